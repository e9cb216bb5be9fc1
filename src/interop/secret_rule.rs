//! Which names carry secrets (DESIGN.md §9), as the exports of this module ask it: thin
//! adapters over the one rule in [`crate::model::secrets`].

use crate::model::KeyValue;
use crate::model::secrets;

/// Whether a header row's value is secret: marked so, or a name the rule calls secret.
pub fn is_secret_header(row: &KeyValue) -> bool {
    row.is_secret() || secrets::is_secret_header(&row.name)
}

/// Whether a query parameter (or form field) named `name` carries a secret value; `marked`
/// is the row's own secret flag.
pub fn is_secret_query(name: &str, marked: bool) -> bool {
    marked || secrets::is_secret_param(name)
}

/// `url` with its user name, password and secret query values replaced by `***`
/// ([`secrets::mask_url`]).
///
/// ```
/// use retryscope::interop::secret_rule::mask_url;
/// assert_eq!(
///     mask_url("https://tok:pw@127.0.0.1/x?sig=S&a=1#f"),
///     "https://***:***@127.0.0.1/x?sig=***&a=1#f"
/// );
/// ```
pub fn mask_url(url: &str) -> String {
    secrets::mask_url(url)
}

//! Auth helpers of the composer: Bearer token and Basic auth, which produce the
//! `Authorization` header when sending.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// Which auth helper is active.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthKind {
    /// No helper: headers are sent as typed.
    #[default]
    None,
    /// `Authorization: Bearer <token>`.
    Bearer,
    /// `Authorization: Basic base64(<user>:<password>)` (RFC 7617).
    Basic,
}

impl AuthKind {
    /// Every kind, in picker order.
    pub const ALL: [AuthKind; 3] = [AuthKind::None, AuthKind::Bearer, AuthKind::Basic];

    /// Label in the picker.
    pub fn label(self) -> &'static str {
        match self {
            AuthKind::None => "none",
            AuthKind::Bearer => "Bearer token",
            AuthKind::Basic => "Basic auth",
        }
    }
}

/// The auth fields; switching kind keeps the other kind's fields. The token and the password are
/// secret: masked in the composer, blanked in saved requests, and persisted across restarts only
/// through the OS keyring ("Remember secrets").
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct AuthDraft {
    /// Active helper.
    pub kind: AuthKind,
    /// Bearer token (may contain `{{variables}}`).
    pub bearer_token: String,
    /// Basic auth user name (may contain `{{variables}}`; not secret, like a URL's user name
    /// is shown).
    pub basic_user: String,
    /// Basic auth password (may contain `{{variables}}`).
    pub basic_password: String,
}

impl AuthDraft {
    /// The `Authorization` value for the active helper, from already resolved fields; `None` for
    /// [`AuthKind::None`].
    ///
    /// ```
    /// use retryscope::model::{AuthDraft, AuthKind};
    /// let basic = AuthDraft { kind: AuthKind::Basic, basic_user: "Aladdin".into(),
    ///     basic_password: "open sesame".into(), ..AuthDraft::default() };
    /// assert_eq!(basic.header_value().as_deref(), Some("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="));
    /// ```
    pub fn header_value(&self) -> Option<String> {
        match self.kind {
            AuthKind::None => None,
            AuthKind::Bearer => Some(format!("Bearer {}", self.bearer_token.trim())),
            AuthKind::Basic => {
                let pair = format!("{}:{}", self.basic_user, self.basic_password);
                Some(format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair)
                ))
            }
        }
    }

    /// The secret fields in use by the active helper (the token, or the password).
    pub fn secret_values(&self) -> Vec<&str> {
        match self.kind {
            AuthKind::None => Vec::new(),
            AuthKind::Bearer => vec![self.bearer_token.as_str()],
            AuthKind::Basic => vec![self.basic_password.as_str()],
        }
    }

    /// A copy with the token and the password blanked (for files), unless they hold only
    /// variable references (`{{token}}`).
    #[must_use]
    pub fn without_secrets(&self) -> Self {
        let kept = |v: &str| {
            if super::variables::only_references(v) {
                v.to_owned()
            } else {
                String::new()
            }
        };
        Self {
            bearer_token: kept(&self.bearer_token),
            basic_password: kept(&self.basic_password),
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_and_none() {
        let mut a = AuthDraft {
            kind: AuthKind::Bearer,
            bearer_token: " abc ".into(),
            ..AuthDraft::default()
        };
        assert_eq!(a.header_value().as_deref(), Some("Bearer abc"));
        a.kind = AuthKind::None;
        assert_eq!(a.header_value(), None);
        assert!(a.secret_values().is_empty());
    }

    #[test]
    fn storage_copy_has_no_secret() {
        let a = AuthDraft {
            kind: AuthKind::Basic,
            bearer_token: "t".into(),
            basic_user: "u".into(),
            basic_password: "p".into(),
        };
        let s = a.without_secrets();
        assert_eq!(
            (s.bearer_token.as_str(), s.basic_password.as_str()),
            ("", "")
        );
        assert_eq!(s.basic_user, "u");
    }
}

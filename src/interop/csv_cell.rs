//! CSV cells safe to open in a spreadsheet. A cell that starts with `=`, `+`, `-`, `@`, a tab
//! or a carriage return is read by Excel, `LibreOffice` and Google Sheets as a formula
//! ("CSV injection": an item named `=HYPERLINK("http://evil","x")` becomes a live link), so
//! such a cell gets a leading single quote, which spreadsheets show as text and do not
//! display. Every CSV Retryscope writes (batch reports, attempts, Lab exports) uses it; the
//! JSON Lines and JUnit reports keep values as they are.

use std::borrow::Cow;

/// `cell` with a `'` in front when a spreadsheet would read it as a formula.
///
/// ```
/// use retryscope::interop::csv_cell::formula_safe;
/// assert_eq!(formula_safe("=HYPERLINK(\"http://evil\",\"x\")"), "'=HYPERLINK(\"http://evil\",\"x\")");
/// assert_eq!(formula_safe("@SUM(A1)"), "'@SUM(A1)");
/// assert_eq!(formula_safe("create order"), "create order");
/// ```
pub fn formula_safe(cell: &str) -> Cow<'_, str> {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// `cell` for a CSV line ([`formula_safe`]), quoted with `"` doubled when it holds a comma,
/// quote or line break (RFC 4180).
///
/// ```
/// use retryscope::interop::csv_cell::csv_cell;
/// assert_eq!(csv_cell("a,b \"c\""), "\"a,b \"\"c\"\"\"");
/// assert_eq!(csv_cell("+1,5"), "\"'+1,5\"");
/// ```
pub fn csv_cell(cell: &str) -> String {
    let safe = formula_safe(cell);
    if safe.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", safe.replace('"', "\"\""))
    } else {
        safe.into_owned()
    }
}

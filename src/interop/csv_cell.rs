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

/// CSV text written by the `csv` crate (RFC 4180: comma separated, a cell quoted with `"`
/// doubled when it holds a comma, quote or line break, CRLF line ends), every cell made
/// [`formula_safe`]. Rows are added with [`Self::row`], the text taken with [`Self::finish`].
///
/// ```
/// use retryscope::interop::csv_cell::CsvText;
/// let mut csv = CsvText::new();
/// csv.row(["a,b \"c\"", "+1,5", "plain"]);
/// assert_eq!(csv.finish(), "\"a,b \"\"c\"\"\",\"'+1,5\",plain\r\n");
/// ```
pub struct CsvText(csv::Writer<Vec<u8>>);

impl Default for CsvText {
    fn default() -> Self {
        Self::new()
    }
}

impl CsvText {
    /// An empty text.
    pub fn new() -> Self {
        Self(
            csv::WriterBuilder::new()
                .terminator(csv::Terminator::CRLF)
                .flexible(true)
                .from_writer(Vec::new()),
        )
    }

    /// Adds one row of `cells`.
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        // Writing to memory cannot fail.
        let _ = self.0.write_record(
            cells
                .into_iter()
                .map(|c| formula_safe(c.as_ref()).into_owned()),
        );
    }

    /// The text written so far.
    pub fn finish(self) -> String {
        let bytes = self.0.into_inner().unwrap_or_default();
        String::from_utf8(bytes).unwrap_or_default()
    }
}

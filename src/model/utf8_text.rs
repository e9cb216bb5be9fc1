//! Bytes a user gave as a text file (a profile, a batch list, another tool's retry settings, a
//! HAR file) checked for UTF-8 in one place, so every reader says the same plain words where
//! they are not: the line and column of the first bad byte, and "UTF-16" when the file starts
//! with a UTF-16 byte-order mark (Windows Notepad's "Unicode", PowerShell's `>`), instead of a
//! library's "stream did not contain valid UTF-8". A UTF-8 byte-order mark (Windows Notepad
//! writes one) is passed over here, for every reader alike: positions count from the first
//! character after it, as editors show them.

/// Where and why bytes are not UTF-8 text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8 {
    /// 1-based line of the first bad byte.
    pub line: usize,
    /// 1-based character column of the first bad byte.
    pub column: usize,
    /// The bytes start with a UTF-16 byte-order mark (`FF FE` or `FE FF`).
    pub utf16: bool,
    /// The first bad byte.
    pub byte: u8,
}

impl NotUtf8 {
    /// What is wrong, in words about `what` (`the file`, `the list`), ending with what to do.
    ///
    /// ```
    /// use retryscope::model::utf8_text;
    /// let e = utf8_text(&[0xFF, 0xFE, b'{', 0]).unwrap_err();
    /// assert_eq!(
    ///     e.message("the file"),
    ///     "the file is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8"
    /// );
    /// let e = utf8_text(b"ok\nab\xE9").unwrap_err();
    /// assert_eq!((e.line, e.column), (2, 3));
    /// assert_eq!(
    ///     e.message("the list"),
    ///     "the list is not UTF-8: byte 0xE9 is not valid here; save it as UTF-8"
    /// );
    /// ```
    pub fn message(&self, what: &str) -> String {
        if self.utf16 {
            format!("{what} is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8")
        } else {
            format!(
                "{what} is not UTF-8: byte 0x{:02X} is not valid here; save it as UTF-8",
                self.byte
            )
        }
    }
}

/// `bytes` as text without a leading UTF-8 byte-order mark, or where and why they are not
/// UTF-8.
///
/// ```
/// use retryscope::model::utf8_text;
/// assert_eq!(utf8_text(b"\xEF\xBB\xBF{}"), Ok("{}"));
/// ```
///
/// # Errors
/// [`NotUtf8`] at the first byte that is not valid.
pub fn utf8_text(bytes: &[u8]) -> Result<&str, NotUtf8> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let good = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
        NotUtf8 {
            line: good.matches('\n').count() + 1,
            column: good.rsplit('\n').next().unwrap_or(good).chars().count() + 1,
            utf16: bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]),
            byte: bytes.get(e.valid_up_to()).copied().unwrap_or_default(),
        }
    })
}

//! Why a [`RequestSpec`](crate::model::RequestSpec) cannot be sent. Reported as a run that ends
//! with kind `error` before attempt 1, never as a panic.

/// A problem in the request as composed: the message names the field and the value (never the
/// value of a header, which may be secret) and says what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// The method is not an HTTP token.
    #[error("invalid method `{0}` in method: use a token such as GET, POST or PURGE")]
    Method(String),
    /// The URL does not parse, is relative, or is not http/https.
    #[error("invalid url in url: {reason}; use an absolute http:// or https:// URL: `{url}`")]
    Url {
        /// The URL as typed.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A header name is not a token.
    #[error(
        "invalid header name `{name}` in headers[{index}]: names are tokens without spaces or colons"
    )]
    HeaderName {
        /// 0-based row in the header table.
        index: usize,
        /// The name as typed.
        name: String,
    },
    /// A header value holds control characters or line breaks.
    #[error(
        "invalid value for header `{name}` in headers[{index}]: remove control characters and line breaks"
    )]
    HeaderValue {
        /// 0-based row in the header table.
        index: usize,
        /// The header's name.
        name: String,
    },
    /// The request is past one of the limits of [`crate::model::request_limits`].
    #[error(transparent)]
    Limit(#[from] crate::model::LimitProblem),
    /// The idempotency key holds control characters or line breaks.
    #[error("invalid idempotency_key: remove control characters and line breaks")]
    IdempotencyKey,
    /// A body content type holds control characters or line breaks.
    #[error("invalid content type `{0}` in body.content_type: use a value like application/json")]
    ContentType(String),
    /// The body file cannot be read.
    #[error("cannot use the body file in body.path: {reason}: {path}")]
    BodyFile {
        /// The path as given.
        path: String,
        /// The OS error, lowercase.
        reason: String,
    },
    /// A file part of a multipart body cannot be read (or makes the body too large).
    #[error("cannot use the file of body.parts[{index}]: {reason}: {path}")]
    PartFile {
        /// 0-based part index.
        index: usize,
        /// The path as given.
        path: String,
        /// What is wrong, lowercase.
        reason: String,
    },
    /// The extra trusted CA certificate file cannot be read or holds no usable certificate.
    #[error("cannot use the CA certificate file in ca_cert: {reason}: {path}")]
    CaCert {
        /// The path as given.
        path: String,
        /// What is wrong, lowercase.
        reason: String,
    },
}

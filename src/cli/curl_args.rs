//! The curl-compatible flags of `retryscope run` (`-i -o -s -u -b -k --cacert -L --max-redirs -F`) and how
//! they change the request. What they print is in [`super::final_response`].

use super::exit::CliError;
use crate::model::{Body, KeyValue, MultipartPart, PartSource, RequestSpec};
use clap::Args;
use std::path::PathBuf;

/// Flags of `retryscope run` that mean what they mean in curl.
#[derive(Debug, Clone, Default, Args)]
pub struct CurlArgs {
    /// Print the final attempt's response headers (`< name: value`; secret ones as ***).
    #[arg(short = 'i', long = "include", conflicts_with = "json")]
    pub include: bool,
    /// Write the final attempt's response body to FILE (streamed to disk, committed atomically;
    /// any size) instead of printing it, byte for byte as the server sent it: secrets the
    /// server echoed are masked on screen and in the history, not in the file you asked for;
    /// the byte count printed is what was written. Works with --json too. `-o -` writes it to stdout (as curl does) and
    /// the timeline to stderr (not with --json).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Do not print the final response body (by default it is printed when it is UTF-8 text of
    /// at most 4 KiB, else one line says its size).
    #[arg(long, conflicts_with = "json")]
    pub no_body: bool,
    /// Summary only: no attempt, wait or request-header lines (the final body still prints).
    #[arg(short = 's', long = "silent", conflicts_with = "json")]
    pub silent: bool,
    /// Basic auth: sends `Authorization: Basic base64(USER:PASSWORD)` (secret: printed as ***).
    #[arg(short = 'u', long = "user", value_name = "USER:PASSWORD")]
    pub user: Option<String>,
    /// Cookies to send, `NAME=VALUE; NAME2=VALUE2` as in curl's `-b` (repeatable: joined with
    /// `; ` into one `Cookie` header, secret by the one rule: printed as ***). Cookie files are
    /// not read.
    #[arg(short = 'b', long = "cookie", value_name = "NAME=VALUE")]
    pub cookie: Vec<String>,
    /// Do not verify TLS certificates (self-signed test servers). Off by default.
    #[arg(short = 'k', long = "insecure")]
    pub insecure: bool,
    /// Trust the CA certificates in FILE (PEM, or one DER certificate) for a server whose
    /// certificate a private CA signed. Unlike curl, the system's trusted roots stay trusted
    /// too. The file is checked before the run starts.
    #[arg(long = "cacert", value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// Follow redirects. Accepted for curl compatibility: retryscope follows redirects by
    /// default (each hop shown inside its attempt); --no-follow turns that off.
    #[arg(short = 'L', long = "location", conflicts_with = "no_follow")]
    pub location: bool,
    /// On a redirect to another origin, keep sending secret headers (Authorization, Cookie,
    /// API-key headers, headers marked secret), as curl's --location-trusted. Without it they
    /// are dropped there and the hop names them.
    #[arg(long, conflicts_with = "no_follow")]
    pub location_trusted: bool,
    /// Most redirect hops followed per attempt (default 10); one more ends the attempt with a
    /// "too many redirects" error.
    #[arg(long, value_name = "N", conflicts_with = "no_follow", allow_negative_numbers = true,
          value_parser = crate::cli::whole_number::u32_value)]
    pub max_redirs: Option<u32>,
    /// Do not follow redirects: a 3xx answer is the attempt's result, and the run stops there
    /// saying `302 redirect not followed (Location: …)` (outcome stopped, exit 1, unless the
    /// profile's success statuses include the 3xx).
    #[arg(long)]
    pub no_follow: bool,
    /// Multipart form field (repeatable, in order): NAME=VALUE, or NAME=@FILE[;type=MIME] for a
    /// file part. Implies POST unless -X is given; not with -d.
    #[arg(
        short = 'F',
        long = "form",
        value_name = "NAME=VALUE|NAME=@FILE",
        conflicts_with = "data"
    )]
    pub form: Vec<String>,
}

impl CurlArgs {
    /// Applies `-u`, `-k`, `--cacert`, `-L`/`--max-redirs`/`--no-follow` and `-F` to `spec`.
    /// `explicit_method` tells whether `-X` was given (else `-F` makes the request a POST).
    ///
    /// # Errors
    /// Exit 2 for `-u` without a colon, `-u` together with `-H 'Authorization: …'`, a
    /// `--cacert` file that cannot be read or holds no certificate (the message names the flag
    /// and the path), or a bad `-F` (no `=`, empty name, unreadable file).
    pub fn apply(&self, spec: &mut RequestSpec, explicit_method: bool) -> Result<(), CliError> {
        if let Some(user) = &self.user {
            spec.headers.push(basic_auth(user, &spec.headers)?);
        }
        if let Some(cookie) = cookie_header(&self.cookie, &spec.headers)? {
            spec.headers.push(cookie);
        }
        if self.insecure {
            spec.verify_tls = false;
        }
        if let Some(path) = &self.cacert {
            let path = path.display().to_string();
            crate::engine::read_trusted_roots(&path).map_err(|e| match e {
                crate::engine::SpecError::CaCert { path, reason } => CliError::usage(format!(
                    "cannot use the CA certificate file of --cacert: {reason}: {path}"
                )),
                other => CliError::usage(other.to_string()),
            })?;
            spec.ca_cert = Some(path);
        }
        if self.no_follow {
            spec.follow_redirects = false;
        }
        spec.location_trusted |= self.location_trusted;
        if let Some(n) = self.max_redirs {
            spec.max_redirects = n;
        }
        if !self.form.is_empty() {
            let parts = self
                .form
                .iter()
                .map(|raw| form_part(raw))
                .collect::<Result<_, _>>()?;
            spec.body = Body::Multipart { parts };
            if !explicit_method {
                spec.method = "POST".into();
            }
        }
        Ok(())
    }
}

/// `-b` values as one secret `Cookie` header (`None` without any).
///
/// # Errors
/// Exit 2 for a value without `=` (curl reads that as a cookie file, which is not supported)
/// or when `-H 'Cookie: …'` is given too.
pub fn cookie_header(
    cookies: &[String],
    headers: &[KeyValue],
) -> Result<Option<KeyValue>, CliError> {
    if cookies.is_empty() {
        return Ok(None);
    }
    if headers
        .iter()
        .any(|h| h.name.eq_ignore_ascii_case("cookie"))
    {
        return Err(CliError::usage(
            "both -H 'Cookie: …' and -b given; use one of them",
        ));
    }
    // The value is not repeated in the message: it may be a secret.
    if cookies.iter().any(|c| !c.contains('=')) {
        return Err(CliError::usage(
            "-b takes cookies as NAME=VALUE (curl reads a value without `=` as a cookie file, which retryscope does not read)",
        ));
    }
    let value = cookies
        .iter()
        .map(|c| c.trim().trim_end_matches(';').trim())
        .collect::<Vec<_>>()
        .join("; ");
    let mut header = KeyValue::new("Cookie", value);
    header.secret = true;
    Ok(Some(header))
}

/// `-u USER:PASSWORD` as a secret `Authorization: Basic …` header (RFC 7617).
///
/// # Errors
/// Exit 2 without a colon (retryscope never prompts) or when `-H` sets Authorization too.
pub fn basic_auth(user: &str, headers: &[KeyValue]) -> Result<KeyValue, CliError> {
    use base64::Engine as _;
    if !user.contains(':') {
        return Err(CliError::usage(
            "-u needs USER:PASSWORD (retryscope does not prompt for a password)",
        ));
    }
    if headers
        .iter()
        .any(|h| h.enabled && h.name.eq_ignore_ascii_case("authorization"))
    {
        return Err(CliError::usage(
            "both -u and -H 'Authorization: …' given; use one of them",
        ));
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(user.as_bytes());
    let mut header = KeyValue::new("Authorization", format!("Basic {encoded}"));
    header.secret = true;
    Ok(header)
}

/// One `-F`: `NAME=VALUE`, or `NAME=@FILE` with an optional `;type=MIME` after the path.
///
/// # Errors
/// Exit 2 without `=`, with an empty name, or when the file cannot be used (the message
/// names the flag and the path).
pub fn form_part(raw: &str) -> Result<MultipartPart, CliError> {
    let Some((name, value)) = raw.split_once('=') else {
        return Err(CliError::usage(format!(
            "-F `{raw}` has no `=`; write it as -F name=value or -F name=@file"
        )));
    };
    if name.is_empty() {
        return Err(CliError::usage(format!(
            "-F `{raw}` has an empty name; write it as -F name=value"
        )));
    }
    let source = match value.strip_prefix('@') {
        Some(file) => {
            let (path, content_type) = match file.rsplit_once(";type=") {
                Some((path, mime)) if !mime.is_empty() => (path, Some(mime.to_owned())),
                _ => (file, None),
            };
            check_part_file(name, path)?;
            PartSource::File {
                path: path.to_owned(),
                content_type,
            }
        }
        None => PartSource::Text {
            value: value.to_owned(),
        },
    };
    Ok(MultipartPart {
        name: name.to_owned(),
        source,
    })
}

/// The file of `-F NAME=@FILE` is checked before anything is sent (`run`, `curl`).
///
/// # Errors
/// Exit 2 naming the part and the file: `FILE: cannot read the file of -F NAME: REASON`.
pub fn check_part_file(name: &str, path: &str) -> Result<(), CliError> {
    crate::service::body_files::check_part_file(name, path)
        .map_err(|e| CliError::usage(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RequestSpec {
        RequestSpec::get("http://127.0.0.1:1/")
    }

    #[test]
    fn insecure_and_redirect_flags_change_the_request() {
        let mut s = spec();
        CurlArgs::default().apply(&mut s, false).expect("applies");
        assert!(s.verify_tls && s.follow_redirects);
        assert_eq!(s.max_redirects, 10);
        let flags = CurlArgs {
            insecure: true,
            max_redirs: Some(2),
            location: true,
            ..CurlArgs::default()
        };
        flags.apply(&mut s, false).expect("applies");
        assert!(!s.verify_tls, "-k turns verification off");
        assert!(s.follow_redirects, "-L keeps following");
        assert_eq!(s.max_redirects, 2);
        let flags = CurlArgs {
            no_follow: true,
            ..CurlArgs::default()
        };
        flags.apply(&mut s, false).expect("applies");
        assert!(!s.follow_redirects);
    }

    #[test]
    fn user_becomes_a_secret_basic_header() {
        let h = basic_auth("alice:s3cret", &[]).expect("valid");
        assert_eq!(
            (h.name.as_str(), h.value.as_str()),
            ("Authorization", "Basic YWxpY2U6czNjcmV0")
        );
        assert!(h.secret && h.is_secret());
        assert!(basic_auth("alice", &[]).is_err());
        let err =
            basic_auth("a:b", &[KeyValue::new("authorization", "Bearer x")]).expect_err("both");
        assert!(err.message.contains("both -u and -H"), "{err:?}");
    }

    #[test]
    fn form_parts_are_text_or_files_and_imply_post() {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        std::io::Write::write_all(&mut file, b"x").expect("write");
        let path = file.path().display().to_string();
        let flags = CurlArgs {
            form: vec![
                "a=1=2".into(),
                format!("f=@{path};type=text/csv"),
                format!("g=@{path}"),
            ],
            ..CurlArgs::default()
        };
        let mut s = spec();
        flags.apply(&mut s, false).expect("applies");
        assert_eq!(s.method, "POST");
        let Body::Multipart { parts } = &s.body else {
            panic!("{:?}", s.body)
        };
        assert_eq!(
            parts[0].source,
            PartSource::Text {
                value: "1=2".into()
            }
        );
        assert_eq!(
            parts[1].source,
            PartSource::File {
                path: path.clone(),
                content_type: Some("text/csv".into())
            }
        );
        assert_eq!(
            parts[2].source,
            PartSource::File {
                path,
                content_type: None
            }
        );
        let mut put = spec();
        put.method = "PUT".into();
        flags.apply(&mut put, true).expect("applies");
        assert_eq!(put.method, "PUT", "-X wins");
        assert!(form_part("novalue").is_err());
        assert!(form_part("=v").is_err());
        let err = form_part("f=@/definitely/not/here").expect_err("missing");
        assert!(
            err.message
                .starts_with("/definitely/not/here: cannot read the file of -F f: "),
            "{err:?}"
        );
    }
}

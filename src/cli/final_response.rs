//! The final attempt's response as `retryscope run` shows or saves it: `-i` headers, the body
//! when it is short text, `-o FILE` (or `-o -`, stdout).

use super::mask;
use crate::model::{AttemptOutcome, ResponseSummary};
use std::fmt::Write as _;

/// Longest body printed on stdout by default, bytes (4 KiB).
pub const PRINTED_BODY_MAX: usize = 4096;

/// What was last answered: the final `AttemptFinished` of the run (secret headers masked).
#[derive(Debug, Default)]
pub struct FinalResponse {
    attempt: u32,
    outcome: Option<AttemptOutcome>,
}

impl FinalResponse {
    /// Keeps `outcome` of `attempt` as the final one (the previous one is dropped).
    pub fn keep(&mut self, attempt: u32, outcome: AttemptOutcome) {
        self.attempt = attempt;
        self.outcome = Some(outcome);
    }

    /// Whether the final attempt answered a redirect that was not followed (a 3xx with a
    /// `Location`, 304 excepted: [`crate::policy::redirect_location`]).
    pub fn is_unfollowed_redirect(&self) -> bool {
        self.response()
            .is_some_and(|r| crate::policy::redirect_location(r).is_some())
    }

    /// The response, if the final attempt got one.
    fn response(&self) -> Option<&ResponseSummary> {
        match &self.outcome {
            Some(AttemptOutcome::Response(r)) => Some(r),
            _ => None,
        }
    }

    /// `< HTTP/1.1 200 OK` and one `< name: value` line per header (values as masked in the
    /// event, control characters escaped, any of `secrets` masked); empty without a response.
    pub fn header_lines(&self, secrets: &[String]) -> String {
        let Some(r) = self.response() else {
            return String::new();
        };
        let mut out = format!("< {} {} {}\n", r.version, r.status, r.reason).replace(" \n", "\n");
        for (name, value) in &r.headers {
            let _ = writeln!(
                out,
                "< {}: {}",
                mask::escape_controls(name),
                mask::escape_controls(value)
            );
        }
        crate::model::mask_secret_values(&out, secrets)
    }

    /// The body as printed by default: itself (plus a final newline) when it is UTF-8 text
    /// without control characters other than tab and line breaks and at most
    /// [`PRINTED_BODY_MAX`] bytes, with any of `secrets` (values the request sent, see
    /// [`crate::model::secrets::secret_values`]) masked, since echo servers send them back; otherwise one line
    /// with its size and how to save it; empty for an empty body or no response.
    pub fn body_text(&self, secrets: &[String]) -> String {
        let Some(r) = self.response() else {
            return String::new();
        };
        let body = &r.body;
        if body.total_bytes == 0 {
            return String::new();
        }
        let text = std::str::from_utf8(&body.bytes).ok().filter(|t| {
            !t.chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        });
        match text {
            Some(text) if !body.truncated && body.bytes.len() <= PRINTED_BODY_MAX => {
                let mut out = crate::model::mask_secret_values(text, secrets);
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out
            }
            Some(_) => format!(
                "body: {} bytes, longer than {PRINTED_BODY_MAX} bytes, not shown (save it with -o FILE; hide this line with --no-body)\n",
                body.total_bytes
            ),
            None => format!(
                "body: {} bytes, not text, not shown (save it with -o FILE; hide this line with --no-body)\n",
                body.total_bytes
            ),
        }
    }

    /// The final attempt's number (0 before any finished).
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// Whether the final attempt got a response whose body can be saved to `shown` (a path,
    /// or `stdout`).
    ///
    /// # Errors
    /// Why there is none: `no response body to save (attempt 3 ended in a connect error); not
    /// written: PATH`.
    pub fn check_answered(&self, shown: &str) -> Result<(), String> {
        if self.response().is_some() {
            return Ok(());
        }
        let why = match &self.outcome {
            Some(AttemptOutcome::Error(e)) => {
                format!("attempt {} ended in a {} error", self.attempt, e.kind)
            }
            _ => "no attempt finished".to_owned(),
        };
        Err(format!(
            "no response body to save ({why}); not written: {shown}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BodyPreview, ErrorKind, NetError};

    fn answered(body: &[u8], truncated: bool) -> FinalResponse {
        let mut f = FinalResponse::default();
        f.keep(
            2,
            AttemptOutcome::Response(ResponseSummary {
                status: 200,
                reason: "OK".into(),
                version: "HTTP/1.1".into(),
                headers: vec![("content-type".into(), "text/plain".into())],
                body: BodyPreview {
                    bytes: body.to_vec(),
                    total_bytes: body.len() as u64 + u64::from(truncated),
                    truncated,
                },
            }),
        );
        f
    }

    #[test]
    fn short_text_prints_and_anything_else_is_one_line() {
        assert_eq!(answered(b"hello", false).body_text(&[]), "hello\n");
        assert_eq!(answered(b"a\nb\n", false).body_text(&[]), "a\nb\n");
        assert_eq!(answered(b"", false).body_text(&[]), "");
        let long = answered(&[b'x'; PRINTED_BODY_MAX + 1], false).body_text(&[]);
        assert!(
            long.starts_with("body: 4097 bytes, longer than 4096"),
            "{long}"
        );
        let binary = answered(&[0xff, 0, 1], false).body_text(&[]);
        assert!(binary.starts_with("body: 3 bytes, not text"), "{binary}");
        let escape = answered(b"\x1b[31mred", false).body_text(&[]);
        assert!(
            escape.contains("not text"),
            "terminal escapes never print: {escape}"
        );
        let secrets = ["Bearer s3cret-t0ken".to_owned()];
        assert_eq!(
            answered(b"{\"auth\":\"Bearer s3cret-t0ken\"}", false).body_text(&secrets),
            "{\"auth\":\"***\"}\n",
            "a secret the request sent is masked when the server echoes it"
        );
        assert_eq!(
            answered(b"hi", false).header_lines(&[]),
            "< HTTP/1.1 200 OK\n< content-type: text/plain\n"
        );
    }

    #[test]
    fn a_save_without_a_response_says_how_the_final_attempt_ended() {
        let mut f = FinalResponse::default();
        f.keep(
            3,
            AttemptOutcome::Error(NetError {
                kind: ErrorKind::Connect,
                message: "refused".into(),
                dns: None,
            }),
        );
        let err = f.check_answered("out.bin").expect_err("no response");
        assert!(err.contains("attempt 3 ended in a connect error"), "{err}");
        assert!(err.ends_with("not written: out.bin"), "{err}");
        assert_eq!(answered(b"x", false).check_answered("out.bin"), Ok(()));
    }
}

//! Hiding the password of URLs (`http://user:***@host/`) in everything a run reports.
//!
//! The request itself still sends the credentials; only the texts in events (URLs of
//! `RunStarted`, `AttemptStarted`, redirect hops, error and outcome messages) are redacted.

use crate::model::{AttemptOutcome, RunEvent};

/// What a password is replaced with.
pub const PASSWORD_MASK: &str = "***";

/// `text` with the password of every `scheme://user:password@host` in it replaced by
/// [`PASSWORD_MASK`]. Works on a bare URL, on a URL that does not parse, and on messages that
/// quote URLs (e.g. `error sending request for url (http://u:p@h/)`). The user name is kept.
pub fn redact_url_passwords(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = rest.find("://") {
        let authority_start = found + 3;
        out.push_str(&rest[..authority_start]);
        let after = &rest[authority_start..];
        let authority_len = after
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | ')' | '(' | '`' | '\'' | '"') || c.is_whitespace()
            })
            .unwrap_or(after.len());
        let authority = &after[..authority_len];
        match authority.rfind('@').and_then(|at| {
            let userinfo = &authority[..at];
            userinfo.find(':').map(|colon| (colon, at))
        }) {
            Some((colon, at)) => {
                out.push_str(&authority[..=colon]);
                out.push_str(PASSWORD_MASK);
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &after[authority_len..];
    }
    out.push_str(rest);
    out
}

/// `event` with the URL passwords redacted in its URLs and messages.
pub(crate) fn redact_event(mut event: RunEvent) -> RunEvent {
    let fix = |s: &mut String| {
        if s.contains('@') {
            *s = redact_url_passwords(s);
        }
    };
    match &mut event {
        RunEvent::RunStarted { url, .. } | RunEvent::AttemptStarted { url, .. } => fix(url),
        RunEvent::AttemptFinished { outcome, hops, .. } => {
            for hop in hops {
                fix(&mut hop.url);
                fix(&mut hop.location);
            }
            if let AttemptOutcome::Error(e) = outcome {
                fix(&mut e.message);
            }
        }
        RunEvent::RunFinished { outcome, .. } => fix(&mut outcome.message),
        RunEvent::WaitScheduled { .. } | RunEvent::WaitFinished { .. } => {}
    }
    event
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked_and_everything_else_kept() {
        let r = redact_url_passwords;
        assert_eq!(
            r("http://user:pass@127.0.0.1:9/a?b=c@d"),
            "http://user:***@127.0.0.1:9/a?b=c@d"
        );
        assert_eq!(r("http://user@127.0.0.1:9/"), "http://user@127.0.0.1:9/");
        assert_eq!(r("http://127.0.0.1:9/x@y:z"), "http://127.0.0.1:9/x@y:z");
        assert_eq!(r("http://u:p:q@h"), "http://u:***@h");
        assert_eq!(
            r("error for url (http://u:s3cret@h/x): and https://a:b@c"),
            "error for url (http://u:***@h/x): and https://a:***@c"
        );
        assert_eq!(r("no urls here"), "no urls here");
    }
}

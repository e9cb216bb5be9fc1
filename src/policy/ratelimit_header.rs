//! The IETF `RateLimit` / `RateLimit-Policy` fields (draft-ietf-httpapi-ratelimit-headers-11)
//! read as Structured Fields (RFC 9651, the `sfv` crate), leniently for the older drafts' forms,
//! and gRPC's `grpc-retry-pushback-ms` (gRPC A6).
//!
//! Forms read, in this order:
//! 1. draft-10/11, a List of quota items: `RateLimit: "default";r=0;t=30, "burst";r=5;t=1`.
//!    The delay is the largest `t` among exhausted quotas (`r=0`): only then is every exhausted
//!    quota available again. Items without `r` count as exhausted; when every quota has `r > 0`
//!    there is no delay to honour (`None`: the fallback decides).
//! 2. older drafts, a Dictionary: `RateLimit: limit=10, remaining=0, reset=30` (or `t=30`);
//!    `remaining > 0` likewise gives `None`.
//! 3. a bare number: `RateLimit-Reset: 30`.
//! 4. anything else: a lenient scan for a `t=` or `reset=` parameter (`r=0; T=2.5`).

use sfv::{BareItem, Dictionary, Item, List, ListEntry, Parameters, Parser};

/// A delay read from a `RateLimit` field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimitDelay {
    /// The delay, ms (seconds × 1000, fractions rounded up).
    pub ms: u64,
    /// The quota policy whose reset decided (`default`), when the field names one.
    pub policy: Option<String>,
}

/// Parses a `RateLimit` (or `RateLimit-Reset`) value; `None` when it holds no usable reset or
/// every quota still has requests left.
///
/// ```
/// use retryscope::policy::parse_ratelimit;
/// let d = parse_ratelimit("\"default\";r=0;t=30").unwrap();
/// assert_eq!((d.ms, d.policy.as_deref()), (30_000, Some("default")));
/// assert_eq!(parse_ratelimit("limit=10, remaining=0, reset=5").map(|d| d.ms), Some(5000));
/// assert_eq!(parse_ratelimit("30").map(|d| d.ms), Some(30_000));
/// assert_eq!(parse_ratelimit("\"default\";r=4;t=30"), None);
/// assert_eq!(parse_ratelimit("-0"), None);
/// ```
pub fn parse_ratelimit(value: &str) -> Option<RateLimitDelay> {
    let value = value.trim();
    if let Ok(list) = Parser::new(value).parse::<List>()
        && let Some(found) = from_list(&list)
    {
        return found;
    }
    if let Ok(dict) = Parser::new(value).parse::<Dictionary>()
        && let Some(found) = from_dictionary(&dict)
    {
        return found;
    }
    // A bare number is delay-seconds: digits only (`-0` parses as the integer 0, but is no
    // delay-seconds value).
    if !value.starts_with('-')
        && let Ok(item) = Parser::new(value).parse::<Item>()
        && let Some(ms) = seconds_ms(&item.bare_item)
    {
        return Some(RateLimitDelay { ms, policy: None });
    }
    lenient(value).map(|ms| RateLimitDelay { ms, policy: None })
}

/// `Some(answer)` when the list has quota items with a `t`; `None` to try the next form.
#[allow(
    clippy::option_option,
    reason = "outer None: not this form, try the next; inner None: this form, no exhausted quota"
)]
fn from_list(list: &List) -> Option<Option<RateLimitDelay>> {
    let mut quotas = 0;
    let mut best: Option<RateLimitDelay> = None;
    for entry in list {
        let ListEntry::Item(item) = entry else {
            continue;
        };
        let Some(t) = item.params.get("t").and_then(seconds_ms) else {
            continue;
        };
        quotas += 1;
        let remaining = item.params.get("r").and_then(BareItem::as_integer);
        if remaining.is_some_and(|r| i64::from(r) > 0) {
            continue;
        }
        if best.as_ref().is_none_or(|b| t > b.ms) {
            best = Some(RateLimitDelay {
                ms: t,
                policy: name(&item.bare_item),
            });
        }
    }
    (quotas > 0).then_some(best)
}

/// The older drafts' `limit=…, remaining=…, reset=…` (or `t=…`).
#[allow(
    clippy::option_option,
    reason = "outer None: not this form, try the next; inner None: this form, no exhausted quota"
)]
fn from_dictionary(dict: &Dictionary) -> Option<Option<RateLimitDelay>> {
    let value = |key: &str| match dict.get(key) {
        Some(ListEntry::Item(item)) => Some(&item.bare_item),
        _ => None,
    };
    let ms = value("reset").or_else(|| value("t")).and_then(seconds_ms)?;
    let remaining = value("remaining")
        .or_else(|| value("r"))
        .and_then(BareItem::as_integer);
    if remaining.is_some_and(|r| i64::from(r) > 0) {
        return Some(None);
    }
    Some(Some(RateLimitDelay { ms, policy: None }))
}

/// A non-negative Integer or Decimal of seconds, as ms rounded up.
fn seconds_ms(item: &BareItem) -> Option<u64> {
    let thousandths = match item {
        BareItem::Integer(i) => i64::from(*i).checked_mul(1000)?,
        BareItem::Decimal(d) => i64::from(d.as_integer_scaled_1000()),
        _ => return None,
    };
    u64::try_from(thousandths).ok()
}

fn name(item: &BareItem) -> Option<String> {
    match item {
        BareItem::String(s) => Some(s.as_str().to_owned()),
        BareItem::Token(t) => Some(t.as_str().to_owned()),
        _ => None,
    }
}

/// A `t=` / `reset=` parameter anywhere (any case, `,` or `;` separated), seconds, as ms;
/// `None` when an `r=` / `remaining=` parameter says requests are left.
fn lenient(value: &str) -> Option<u64> {
    let params = || {
        value
            .split([',', ';'])
            .filter_map(|param| param.split_once('='))
    };
    // Requests left (`r=4`, `remaining=4`): no delay to honour, as in the strict forms.
    let left = params().any(|(key, v)| {
        let key = key.trim();
        (key.eq_ignore_ascii_case("r") || key.eq_ignore_ascii_case("remaining"))
            && v.trim()
                .trim_matches('"')
                .parse::<u64>()
                .is_ok_and(|n| n > 0)
    });
    if left {
        return None;
    }
    value.split([',', ';']).find_map(|param| {
        let (key, v) = param.split_once('=')?;
        let key = key.trim();
        if key.eq_ignore_ascii_case("t") || key.eq_ignore_ascii_case("reset") {
            super::retry_after::decimal_scaled(v.trim().trim_matches('"'), 3)
        } else {
            None
        }
    })
}

/// The quota and window of `policy` in a `RateLimit-Policy` value (`"default";q=100;w=60`), as
/// `q=100 per 60 s`, for the explanation. `None` when the value does not parse or lacks it.
pub fn policy_summary(policy_field: &str, policy: &str) -> Option<String> {
    let list = Parser::new(policy_field.trim()).parse::<List>().ok()?;
    list.iter().find_map(|entry| {
        let ListEntry::Item(item) = entry else {
            return None;
        };
        if name(&item.bare_item).as_deref() != Some(policy) {
            return None;
        }
        Some(quota_text(&item.params))
    })
}

fn quota_text(params: &Parameters) -> String {
    let num = |key: &str| {
        params
            .get(key)
            .and_then(BareItem::as_integer)
            .map(i64::from)
    };
    match (num("q"), num("w")) {
        (Some(q), Some(w)) => format!("q={q} per {w} s"),
        (Some(q), None) => format!("q={q}"),
        (None, Some(w)) => format!("window {w} s"),
        (None, None) => "no quota given".to_owned(),
    }
}

/// gRPC A6 `grpc-retry-pushback-ms`: a non-negative decimal integer of ms. `None` (negative,
/// empty, a fraction, garbage) means the server asks the client not to retry.
///
/// ```
/// use retryscope::policy::grpc_pushback_ms;
/// assert_eq!(grpc_pushback_ms("250"), Some(250));
/// assert_eq!(grpc_pushback_ms("-1"), None);
/// assert_eq!(grpc_pushback_ms("soon"), None);
/// ```
pub fn grpc_pushback_ms(value: &str) -> Option<u64> {
    let v = value.trim();
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Saturating: a huge pushback is still "wait at least this long" (the 24 h ceiling applies).
    Some(v.parse::<u64>().unwrap_or(u64::MAX))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ms(v: &str) -> Option<u64> {
        parse_ratelimit(v).map(|d| d.ms)
    }

    #[test]
    fn table() {
        let cases: &[(&str, Option<u64>)] = &[
            ("\"default\";r=0;t=30", Some(30_000)),
            ("default;r=0;t=30", Some(30_000)),
            (
                "\"a\";r=0;t=10, \"b\";r=0;t=40, \"c\";r=3;t=90",
                Some(40_000),
            ),
            ("\"a\";r=5;t=10", None),
            ("\"a\";t=7", Some(7000)),
            ("\"a\";r=0;t=1.5", Some(1500)),
            ("\"a\";r=0;t=-1", None),
            ("limit=10, remaining=0, reset=30", Some(30_000)),
            ("limit=10, remaining=3, reset=30", None),
            ("reset=2.25", Some(2250)),
            ("30", Some(30_000)),
            ("r=0; T=2.5", Some(2500)),
            ("-5", None),
            ("", None),
            ("soon", None),
            ("limit=100, remaining=0", None),
        ];
        for (value, want) in cases {
            assert_eq!(ms(value), *want, "{value:?}");
        }
        assert_eq!(
            parse_ratelimit("\"a\";r=0;t=10, \"b\";r=0;t=40")
                .unwrap()
                .policy
                .as_deref(),
            Some("b")
        );
    }

    #[test]
    fn policy_summary_names_quota_and_window() {
        let field = "\"burst\";q=10;w=1, \"default\";q=100;w=60";
        assert_eq!(
            policy_summary(field, "default").as_deref(),
            Some("q=100 per 60 s")
        );
        assert_eq!(policy_summary(field, "other"), None);
        assert_eq!(policy_summary("not a list ;;", "default"), None);
    }

    #[test]
    fn grpc_pushback() {
        for (v, want) in [
            ("0", Some(0)),
            (" 1500 ", Some(1500)),
            ("99999999999999999999999", Some(u64::MAX)),
            ("-1", None),
            ("1.5", None),
            ("", None),
            ("+5", None),
        ] {
            assert_eq!(grpc_pushback_ms(v), want, "{v:?}");
        }
    }
}

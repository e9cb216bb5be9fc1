//! `{{name}}` variables: resolving them in a request (URL, query and header values, body) and
//! masking the secret ones in everything shown. Pure: the window and the CLI call the same
//! functions, so a request resolves the same way in both.
//!
//! Syntax: `{{name}}` with optional spaces inside the braces; a name is letters, digits, `_`,
//! `-` and `.`. Anything else between braces (`{{ a b }}`, `{{}}`, a lone `{{`) is kept as typed,
//! so JSON and template bodies pass through. Values are not resolved again (no recursion).
//! `{{uuid}}` is built in: one fresh UUID per Send, the same in every place of that request; an
//! environment variable named `uuid` does not replace it.

use super::attempt::{AttemptOutcome, Hop, NetError, ResponseSummary, Verdict};
use super::environment::Environment;
use super::event::{Draw, RunEvent, RunOutcome, WaitExplanation};
use super::request::{Body, KeyValue, RequestSpec};
use std::collections::BTreeMap;

/// The built-in variable: a fresh UUID per Send.
pub const UUID_VARIABLE: &str = "uuid";
/// What a secret value is shown as.
pub const SECRET_MASK: &str = super::secrets::MASK;

/// The variables a request is resolved with: an environment's, plus overrides (`--var k=v`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variables {
    entries: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    value: String,
    secret: bool,
}

impl Variables {
    /// No variables (only `{{uuid}}` resolves).
    pub fn new() -> Self {
        Self::default()
    }

    /// The variables of `env`; of two with the same name the first wins; blank names are skipped.
    pub fn from_environment(env: &Environment) -> Self {
        let mut out = Self::new();
        for v in &env.variables {
            let name = v.name.trim();
            if !name.is_empty() && !out.entries.contains_key(name) {
                out.set(name, v.value.clone(), v.secret);
            }
        }
        out
    }

    /// Sets `name` to `value` (replacing any earlier value and secret flag).
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>, secret: bool) {
        self.entries.insert(
            name.into(),
            Entry {
                value: value.into(),
                secret,
            },
        );
    }

    /// Overrides the value of `name` (e.g. `--var name=value`), keeping its secret flag when
    /// it exists; a new name is not secret.
    pub fn override_value(&mut self, name: &str, value: impl Into<String>) {
        let secret = self.is_secret(name);
        self.set(name, value, secret);
    }

    /// Removes `name` (using it is then an unknown variable).
    pub fn remove(&mut self, name: &str) {
        self.entries.remove(name);
    }

    /// The value of `name`, if defined.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(|e| e.value.as_str())
    }

    /// Whether `name` is defined and secret.
    pub fn is_secret(&self, name: &str) -> bool {
        self.entries.get(name).is_some_and(|e| e.secret)
    }

    /// Defined names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The non-empty values of the secret variables (what [`mask_secret_values`] hides).
    pub fn secret_values(&self) -> Vec<String> {
        self.entries
            .values()
            .filter(|e| e.secret && !e.value.is_empty())
            .map(|e| e.value.clone())
            .collect()
    }
}

/// A `{{name}}` that no variable defines, and where it was used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {} {} in {place}", if .names.len() == 1 { "variable" } else { "variables" }, braced(.names))]
pub struct UnknownVariable {
    /// The undefined names, in order of appearance, without braces.
    pub names: Vec<String>,
    /// Where: `URL`, `query parameter q`, `header Authorization`, `body`, `form field f`,
    /// `Bearer token`, `Basic auth user`, `Basic auth password`.
    pub place: String,
}

fn braced(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{{{{{n}}}}}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Text after substitution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The text with every variable replaced.
    pub text: String,
    /// Whether a secret variable was substituted (the row holding it becomes secret).
    pub used_secret: bool,
}

/// `text` with every `{{name}}` replaced by its value (`{{uuid}}` by `fresh_uuid`).
///
/// ```
/// use retryscope::model::{Variables, resolve_text};
/// let mut vars = Variables::new();
/// vars.set("host", "127.0.0.1:8080", false);
/// let r = resolve_text("http://{{ host }}/x?id={{uuid}}", &vars, "u-1", "URL").unwrap();
/// assert_eq!(r.text, "http://127.0.0.1:8080/x?id=u-1");
/// ```
///
/// # Errors
/// [`UnknownVariable`] naming every undefined variable in `text`, with `place` as given.
pub fn resolve_text(
    text: &str,
    vars: &Variables,
    fresh_uuid: &str,
    place: &str,
) -> Result<Resolved, UnknownVariable> {
    substitute(text, vars, fresh_uuid, false, place)
}

/// `text` resolved for display: secret variables appear as [`SECRET_MASK`]; unknown ones stay
/// as typed (`{{name}}`), so a title can be shown even for a request that cannot be sent.
pub fn resolve_text_masked(text: &str, vars: &Variables, fresh_uuid: &str) -> String {
    let mut out = String::with_capacity(text.len());
    scan(text, &mut out, |name, out| {
        if name == UUID_VARIABLE {
            out.push_str(fresh_uuid);
        } else if vars.is_secret(name) {
            out.push_str(SECRET_MASK);
        } else if let Some(v) = vars.get(name) {
            out.push_str(v);
        } else {
            out.push_str("{{");
            out.push_str(name);
            out.push_str("}}");
        }
    });
    out
}

fn substitute(
    text: &str,
    vars: &Variables,
    fresh_uuid: &str,
    mut used_secret: bool,
    place: &str,
) -> Result<Resolved, UnknownVariable> {
    let mut out = String::with_capacity(text.len());
    let mut unknown: Vec<String> = Vec::new();
    scan(text, &mut out, |name, out| {
        if name == UUID_VARIABLE {
            out.push_str(fresh_uuid);
        } else if let Some(v) = vars.get(name) {
            used_secret |= vars.is_secret(name);
            out.push_str(v);
        } else if !unknown.iter().any(|u| u == name) {
            unknown.push(name.to_owned());
        }
    });
    if unknown.is_empty() {
        Ok(Resolved {
            text: out,
            used_secret,
        })
    } else {
        Err(UnknownVariable {
            names: unknown,
            place: place.to_owned(),
        })
    }
}

/// Copies `text` into `out`, calling `on_var(name, out)` for every well-formed `{{name}}`.
fn scan(text: &str, out: &mut String, mut on_var: impl FnMut(&str, &mut String)) {
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let name = after
            .find("}}")
            .map(|close| (close, after[..close].trim()))
            .filter(|(_, n)| is_variable_name(n));
        if let Some((close, name)) = name {
            on_var(name, out);
            rest = &after[close + 2..];
        } else {
            // Not a variable: keep one `{` and look again from the next character, so
            // `{{{a}}}` still finds `{{a}}`.
            out.push('{');
            rest = &rest[open + 1..];
        }
    }
    out.push_str(rest);
}

/// Whether `value` holds no secret of its own: one or more `{{name}}` references and nothing
/// else, or an auth scheme word before them (`Bearer {{token}}`: a letter, then letters,
/// digits or `-`, at most 20). The secret lives in the variable, under its own rule, so such a
/// value is kept as typed where secret values are blanked.
///
/// ```
/// use retryscope::model::only_references;
/// assert!(only_references("Bearer {{token}}") && only_references("{{user}}:{{password}}"));
/// assert!(!only_references("Bearer abc{{token}}") && !only_references("Bearer abc"));
/// ```
pub fn only_references(value: &str) -> bool {
    let value = value.trim();
    let rest = match value.split_once(char::is_whitespace) {
        Some((scheme, rest))
            if scheme.len() <= 20
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-') =>
        {
            rest
        }
        _ => value,
    };
    let (mut literal, mut found) = (String::new(), false);
    scan(rest, &mut literal, |_, _| found = true);
    found && literal.chars().all(|c| c.is_whitespace() || c == ':')
}

/// Whether `name` may be used as `{{name}}`: non-empty; letters, digits, `_`, `-`, `.`.
pub fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// `spec` with variables resolved in the URL, the enabled query, header and form field values,
/// and text/JSON bodies (names, disabled rows and file paths are kept as typed). A row that
/// received a secret variable is marked secret, so it is masked wherever rows are shown.
///
/// # Errors
/// The first place (in that order) holding an unknown variable.
pub fn resolve_spec(
    spec: &RequestSpec,
    vars: &Variables,
    fresh_uuid: &str,
) -> Result<RequestSpec, UnknownVariable> {
    let mut out = spec.clone();
    out.url = resolve_text(&spec.url, vars, fresh_uuid, "URL")?.text;
    resolve_rows(&mut out.query, vars, fresh_uuid, "query parameter")?;
    resolve_rows(&mut out.headers, vars, fresh_uuid, "header")?;
    match &mut out.body {
        Body::Text { text, .. } | Body::Json { text } => {
            *text = resolve_text(text, vars, fresh_uuid, "body")?.text;
        }
        Body::Form { fields } => resolve_rows(fields, vars, fresh_uuid, "form field")?,
        Body::Multipart { parts } => {
            for part in parts {
                if let crate::model::PartSource::Text { value } = &mut part.source {
                    let place = format!("form part {}", part.name.trim());
                    *value = resolve_text(value, vars, fresh_uuid, place.trim_end())?.text;
                }
            }
        }
        Body::None | Body::File { .. } => {}
    }
    if let Some(key) = &mut out.idempotency_key {
        *key = resolve_text(key, vars, fresh_uuid, "Idempotency-Key")?.text;
    }
    Ok(out)
}

/// `spec` made a template of its run's `{{uuid}}`: every occurrence of `fresh_uuid` (the UUID
/// its `{{uuid}}` and automatic Idempotency-Key were filled with) becomes `{{uuid}}` again, so
/// [`fill_uuid`] gives each later run its own. A UUID is random hex and hyphens: it never
/// occurs by chance, and needs no escaping in any field.
pub fn uuid_template(spec: &RequestSpec, fresh_uuid: &str) -> RequestSpec {
    if fresh_uuid.is_empty() {
        return spec.clone();
    }
    serde_json::to_string(spec)
        .ok()
        .map(|json| json.replace(fresh_uuid, "{{uuid}}"))
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_else(|| spec.clone())
}

/// `template` (from [`uuid_template`]) with its `{{uuid}}` filled with `fresh_uuid`; every other
/// variable was resolved when the template was made.
pub fn fill_uuid(template: &RequestSpec, fresh_uuid: &str) -> RequestSpec {
    resolve_spec(template, &Variables::new(), fresh_uuid).unwrap_or_else(|_| template.clone())
}

fn resolve_rows(
    rows: &mut [KeyValue],
    vars: &Variables,
    fresh_uuid: &str,
    what: &str,
) -> Result<(), UnknownVariable> {
    for row in rows.iter_mut().filter(|r| r.enabled) {
        let place = format!("{what} {}", row.name.trim());
        let r = resolve_text(&row.value, vars, fresh_uuid, place.trim_end())?;
        row.value = r.text;
        row.secret |= r.used_secret;
    }
    Ok(())
}

/// `text` with every occurrence of each of `secrets` replaced by [`SECRET_MASK`] (longest
/// first, so a secret containing another is masked whole). Empty secrets are ignored.
///
/// Each secret is searched for as it is and in the forms an echoing server encodes it
/// ([`super::secret_echoes::echo_forms`]: JSON escapes, percent and form encoding, base64,
/// HTML entities).
pub fn mask_secret_values(text: &str, secrets: &[String]) -> String {
    let plain: Vec<&str> = secrets.iter().map(String::as_str).collect();
    replace_secrets(text, &super::secret_echoes::with_echo_forms(&plain))
}

/// `text` with every occurrence of each of `patterns` (already with their echo forms) replaced
/// by [`SECRET_MASK`], longest first.
fn replace_secrets(text: &str, patterns: &[String]) -> String {
    let mut sorted: Vec<&String> = patterns.iter().filter(|s| !s.is_empty()).collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_owned();
    for s in sorted {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), SECRET_MASK);
        }
    }
    out
}

/// `event` with every string in it (URLs, methods, messages, response header names and values,
/// reason and version, hop URLs, verdict reasons, wait explanations, body previews) passed
/// through [`mask_secret_values`]; a body that is not UTF-8 has each secret's bytes replaced.
/// With no secrets the event is returned as is. Field by field (no JSON round trip): a string
/// without any secret is left untouched, so an event without secrets costs a scan of its text.
pub fn mask_event_secrets(mut event: RunEvent, secrets: &[String]) -> RunEvent {
    let plain: Vec<&str> = secrets
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect();
    if plain.is_empty() {
        return event;
    }
    let patterns = super::secret_echoes::with_echo_forms(&plain);
    let secrets: Vec<&str> = patterns.iter().map(String::as_str).collect();
    let mask = |text: &mut String| {
        if secrets.iter().any(|s| text.contains(s)) {
            *text = replace_secrets(text, &patterns);
        }
    };
    // Every field is named (no `..`), so a new string field fails to compile until it is masked.
    match &mut event {
        RunEvent::RunStarted {
            run_id: _,
            seed: _,
            profile,
            method,
            url,
            started_at: _,
            tls_unverified: _,
        } => {
            mask(profile);
            mask(method);
            mask(url);
        }
        RunEvent::AttemptStarted {
            run_id: _,
            attempt: _,
            method,
            url,
            started_at: _,
            offset_ms: _,
        } => {
            mask(method);
            mask(url);
        }
        RunEvent::AttemptFinished {
            run_id: _,
            attempt: _,
            outcome,
            hops,
            timings: _,
            verdict,
        } => {
            match outcome {
                AttemptOutcome::Response(ResponseSummary {
                    status: _,
                    reason,
                    version,
                    headers,
                    body,
                }) => {
                    mask(reason);
                    mask(version);
                    for (name, value) in headers {
                        mask(name);
                        mask(value);
                    }
                    mask_body(&mut body.bytes, &secrets);
                    if body.truncated {
                        mask_cut_tail(&mut body.bytes, &secrets);
                    }
                }
                AttemptOutcome::Error(NetError {
                    kind: _,
                    message,
                    dns: _,
                }) => mask(message),
            }
            for Hop {
                method,
                url,
                status: _,
                location,
                dropped_headers: _,
            } in hops
            {
                mask(method);
                mask(url);
                mask(location);
            }
            match verdict {
                Verdict::Success { condition: None } => {}
                Verdict::Success {
                    condition: Some(reason),
                }
                | Verdict::Retry { reason, .. }
                | Verdict::Stop { reason } => mask(reason),
            }
        }
        RunEvent::WaitScheduled {
            run_id: _,
            retry: _,
            planned_ms: _,
            explanation:
                WaitExplanation {
                    retry: _,
                    strategy: _,
                    unjittered_ms: _,
                    draws,
                    capped: _,
                    wait_ms: _,
                    text,
                },
            offset_ms: _,
        } => {
            mask(text);
            for Draw { name, .. } in draws {
                mask(name);
            }
        }
        RunEvent::WaitFinished { .. } => {}
        RunEvent::RunFinished {
            run_id: _,
            outcome:
                RunOutcome {
                    kind: _,
                    message,
                    last_status: _,
                },
            attempts: _,
            elapsed_ms: _,
        } => mask(message),
        RunEvent::BudgetChanged {
            run_id: _,
            attempt: _,
            change:
                super::BudgetChange {
                    kind: _,
                    class: _,
                    amount: _,
                    before: _,
                    after: _,
                    capacity: _,
                    scope,
                    text,
                },
        } => {
            mask(scope);
            mask(text);
        }
    }
    event
}

/// A preview cut short that ends in the first bytes (two or more) of one of `secrets` has
/// that tail masked too: the cut must not leave half a secret.
fn mask_cut_tail(bytes: &mut Vec<u8>, secrets: &[&str]) {
    let tail = secrets
        .iter()
        .filter_map(|s| {
            let s = s.as_bytes();
            (2..s.len()).rev().find(|&k| bytes.ends_with(&s[..k]))
        })
        .max();
    if let Some(k) = tail {
        bytes.truncate(bytes.len() - k);
        bytes.extend_from_slice(SECRET_MASK.as_bytes());
    }
}

/// `bytes` with each of `secrets` masked: as text when they are UTF-8, else byte for byte.
fn mask_body(bytes: &mut Vec<u8>, secrets: &[&str]) {
    let found = |hay: &[u8], s: &str| {
        let needle = s.as_bytes();
        hay.windows(needle.len()).position(|w| w == needle)
    };
    if !secrets.iter().any(|s| found(bytes, s).is_some()) {
        return;
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        let owned: Vec<String> = secrets.iter().map(|s| (*s).to_owned()).collect();
        *bytes = replace_secrets(text, &owned).into_bytes();
        return;
    }
    let mut sorted = secrets.to_vec();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.len()));
    for s in sorted {
        let mut from = 0;
        while let Some(at) = bytes.get(from..).and_then(|rest| found(rest, s)) {
            let at = from + at;
            bytes.splice(at..at + s.len(), SECRET_MASK.bytes());
            from = at + SECRET_MASK.len();
        }
    }
}

#[cfg(test)]
#[path = "variables_tests.rs"]
mod tests;

//! The request as the composer edits it (every body kind's draft, the auth helper), how it
//! becomes a [`RequestSpec`] on Send, and its copy without secrets for files.

use super::auth::AuthDraft;
use super::request::{Body, KeyValue, MultipartPart, RequestSpec, Timeouts};
use super::variables::{UnknownVariable, Variables, resolve_spec, resolve_text};
use serde::{Deserialize, Serialize};

/// The placeholder replaced by a fresh UUID on every Send, wherever variables are resolved.
pub const UUID_PLACEHOLDER: &str = "{{uuid}}";

/// Which body editor is active. The drafts of the other kinds are kept while switching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BodyKind {
    /// No body.
    #[default]
    None,
    /// JSON text (`application/json`).
    Json,
    /// Plain text.
    Text,
    /// URL-encoded form fields.
    Form,
    /// Raw bytes of a file.
    File,
    /// A `multipart/form-data` form: rows in curl's `-F` value form (`value`, or `@path` with
    /// an optional `;type=MIME` for a file part).
    Multipart,
}

impl BodyKind {
    /// Every kind, in picker order.
    pub const ALL: [BodyKind; 6] = [
        BodyKind::None,
        BodyKind::Json,
        BodyKind::Text,
        BodyKind::Form,
        BodyKind::Multipart,
        BodyKind::File,
    ];

    /// Label in the picker.
    pub fn label(self) -> &'static str {
        match self {
            BodyKind::None => "none",
            BodyKind::Json => "JSON",
            BodyKind::Text => "text",
            BodyKind::Form => "form fields",
            BodyKind::File => "file",
            BodyKind::Multipart => "multipart form",
        }
    }
}

/// Every body draft, so switching kind never loses typed text.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BodyDraft {
    /// Active kind.
    pub kind: BodyKind,
    /// JSON source.
    pub json: String,
    /// Plain text.
    pub text: String,
    /// Form fields.
    pub form: Vec<KeyValue>,
    /// Multipart parts: name and curl `-F` value (`text`, or `@path[;type=MIME]` for a file).
    pub multipart: Vec<KeyValue>,
    /// File path.
    pub file_path: String,
    /// Content-Type for text and file bodies; empty = the default for the kind.
    pub content_type: String,
}

impl BodyDraft {
    /// The body to send.
    pub fn to_body(&self) -> Body {
        let content_type =
            (!self.content_type.trim().is_empty()).then(|| self.content_type.trim().to_owned());
        match self.kind {
            BodyKind::None => Body::None,
            BodyKind::Json => Body::Json {
                text: self.json.clone(),
            },
            BodyKind::Text => Body::Text {
                text: self.text.clone(),
                content_type,
            },
            BodyKind::Form => Body::Form {
                fields: without_blank_rows(&self.form),
            },
            BodyKind::File => Body::File {
                path: self.file_path.clone(),
                content_type,
            },
            BodyKind::Multipart => Body::Multipart {
                parts: self
                    .multipart
                    .iter()
                    .filter(|row| row.enabled)
                    .map(|row| MultipartPart::from_form_value(&row.name, &row.value))
                    .collect(),
            },
        }
    }
}

/// The composer's request: a [`RequestSpec`] plus editor-only state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RequestDraft {
    /// Method token (`GET`, `POST`, or any free-text token).
    pub method: String,
    /// URL as typed.
    pub url: String,
    /// Query rows appended to the URL.
    pub query: Vec<KeyValue>,
    /// Header rows.
    pub headers: Vec<KeyValue>,
    /// Body drafts.
    pub body: BodyDraft,
    /// Per-attempt timeouts, ms (`None` = the profile's value).
    pub timeouts: Timeouts,
    /// Follow redirects.
    pub follow_redirects: bool,
    /// Max redirect hops per attempt.
    pub max_redirects: u32,
    /// Keep secret headers on a redirect to another origin ([`RequestSpec::location_trusted`]).
    pub location_trusted: bool,
    /// Verify TLS certificates.
    pub verify_tls: bool,
    /// Path of a PEM file of extra trusted root certificates (empty = the platform's roots
    /// only); see [`RequestSpec::ca_cert`].
    pub ca_cert: String,
    /// Fresh connection for every attempt.
    pub new_connection_per_attempt: bool,
    /// Send an `Idempotency-Key`, the same on every attempt of a run.
    pub idempotency_enabled: bool,
    /// The key sent when enabled (generated once when the toggle is switched on).
    pub idempotency_key: String,
    /// Bearer / Basic auth helper (produces the `Authorization` header).
    pub auth: AuthDraft,
}

impl Default for RequestDraft {
    fn default() -> Self {
        let spec = RequestSpec::get("");
        Self {
            method: spec.method,
            url: spec.url,
            query: Vec::new(),
            headers: Vec::new(),
            body: BodyDraft::default(),
            timeouts: spec.timeouts,
            follow_redirects: spec.follow_redirects,
            max_redirects: spec.max_redirects,
            location_trusted: spec.location_trusted,
            verify_tls: spec.verify_tls,
            ca_cert: String::new(),
            new_connection_per_attempt: spec.new_connection_per_attempt,
            idempotency_enabled: false,
            idempotency_key: String::new(),
            auth: AuthDraft::default(),
        }
    }
}

impl RequestDraft {
    /// The first-run request against the demo server at `base_url`:
    /// `GET /status/{status}?times=2&case={{uuid}}`, so every Send gets its own counter on the
    /// demo server (it fails twice with `status`, then answers 200). `case`, not `key`: the
    /// secrets rule masks a query parameter named `key`. The case is part of the URL,
    /// not a query row, so typing another URL leaves no stray `case` parameter behind. Pick
    /// `status` with `ui::request_draft::demo_failure_status` so the selected profile retries it.
    pub fn demo(base_url: &str, status: u16) -> Self {
        Self {
            url: format!("{base_url}/status/{status}?times=2&case={UUID_PLACEHOLDER}"),
            headers: vec![KeyValue::new("Accept", "application/json")],
            ..Self::default()
        }
    }

    /// The spec to send: variables resolved with `vars` (every [`UUID_PLACEHOLDER`] becomes
    /// `fresh_uuid`, see [`resolve_spec`]) and, when an auth helper is active, an
    /// `Authorization` row (secret) built from its resolved fields. The helper's header replaces
    /// any enabled `Authorization` row typed in the headers table.
    ///
    /// # Errors
    /// [`UnknownVariable`] for the first place using an undefined variable.
    pub fn to_spec(
        &self,
        vars: &Variables,
        fresh_uuid: &str,
    ) -> Result<RequestSpec, UnknownVariable> {
        let mut spec = resolve_spec(&self.raw_spec(), vars, fresh_uuid)?;
        let field =
            |text: &str, place: &str| resolve_text(text, vars, fresh_uuid, place).map(|r| r.text);
        let auth = AuthDraft {
            kind: self.auth.kind,
            bearer_token: field(&self.auth.bearer_token, "Bearer token")?,
            basic_user: field(&self.auth.basic_user, "Basic auth user")?,
            basic_password: field(&self.auth.basic_password, "Basic auth password")?,
        };
        if let Some(value) = auth.header_value() {
            set_authorization(&mut spec, value);
        }
        Ok(spec)
    }

    /// The spec as written: like [`Self::to_spec`] but with every `{{variable}}` left as typed
    /// (a batch list keeps them for the runner to resolve), and the auth helper's
    /// `Authorization` row built from its fields as typed.
    pub fn spec_as_written(&self) -> RequestSpec {
        let mut spec = self.raw_spec();
        if let Some(value) = self.auth.header_value() {
            set_authorization(&mut spec, value);
        }
        spec
    }

    /// The draft's fields as a spec: method case fixed, URL trimmed, blank rows dropped; no
    /// variable resolved and no auth helper applied.
    fn raw_spec(&self) -> RequestSpec {
        RequestSpec {
            method: super::request::standard_method_case(self.method.trim()),
            url: self.url.trim().to_owned(),
            query: without_blank_rows(&self.query),
            headers: without_blank_rows(&self.headers),
            body: self.body.to_body(),
            timeouts: self.timeouts,
            follow_redirects: self.follow_redirects,
            max_redirects: self.max_redirects,
            location_trusted: self.location_trusted,
            verify_tls: self.verify_tls,
            ca_cert: Some(self.ca_cert.trim())
                .filter(|p| !p.is_empty())
                .map(str::to_owned),
            new_connection_per_attempt: self.new_connection_per_attempt,
            idempotency_key: (self.idempotency_enabled && !self.idempotency_key.is_empty())
                .then(|| self.idempotency_key.clone()),
        }
    }

    /// A copy fit for a file: secret header/query/form values ([`KeyValue::is_secret`], [`KeyValue::is_secret_param`]) and the
    /// auth helper's token and password blanked, unless they hold only variable references
    /// ([`super::variables::only_references`]: `Bearer {{token}}` is kept as typed).
    #[must_use]
    pub fn without_secrets(&self) -> Self {
        let mut out = self.clone();
        for row in out.secret_rows_mut() {
            if !super::variables::only_references(&row.value) {
                row.value.clear();
            }
        }
        // The URL's user, password and secret query values (DESIGN.md §9) read `***`.
        out.url = super::secrets::mask_url(&self.url);
        out.auth = self.auth.without_secrets();
        out
    }

    /// Every non-empty secret value as `(slot, value)`; a slot names the field
    /// (`header/0/Authorization`, `query/2/token`, `form/1/password`, `auth/bearer_token`,
    /// `auth/basic_password`, `url` for a URL holding secrets), so [`Self::fill_secrets`] can put the value back after a restart.
    pub fn secret_slots(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if super::secrets::mask_url(&self.url) != self.url {
            out.push((URL_SLOT.to_owned(), self.url.clone()));
        }
        for (table, rows) in [
            ("query", &self.query),
            ("header", &self.headers),
            ("form", &self.body.form),
        ] {
            for (i, row) in rows.iter().enumerate() {
                if is_secret_row(table, row) && !row.value.is_empty() {
                    out.push((format!("{table}/{i}/{}", row.name), row.value.clone()));
                }
            }
        }
        for (slot, value) in [
            ("auth/bearer_token", &self.auth.bearer_token),
            ("auth/basic_password", &self.auth.basic_password),
        ] {
            if !value.is_empty() {
                out.push((slot.to_owned(), value.clone()));
            }
        }
        out
    }

    /// Fills blank secret fields from `lookup(slot)` (slots as in [`Self::secret_slots`]).
    pub fn fill_secrets(&mut self, lookup: impl Fn(&str) -> Option<String>) {
        if let Some(url) = lookup(URL_SLOT)
            && super::secrets::mask_url(&url) == self.url
        {
            self.url = url;
        }
        for (table, rows) in [
            ("query", &mut self.query),
            ("header", &mut self.headers),
            ("form", &mut self.body.form),
        ] {
            for (i, row) in rows.iter_mut().enumerate() {
                if is_secret_row(table, row)
                    && row.value.is_empty()
                    && let Some(v) = lookup(&format!("{table}/{i}/{}", row.name))
                {
                    row.value = v;
                }
            }
        }
        for (slot, value) in [
            ("auth/bearer_token", &mut self.auth.bearer_token),
            ("auth/basic_password", &mut self.auth.basic_password),
        ] {
            if value.is_empty()
                && let Some(v) = lookup(slot)
            {
                *value = v;
            }
        }
    }

    /// The first secret this draft would send empty, named for a message, and whether it is a
    /// row (which can be unticked): an enabled, named header, query parameter or (with a form
    /// body) form field that is secret ([`KeyValue::is_secret`], [`KeyValue::is_secret_param`])
    /// with no value, or the auth helper's Bearer token left empty. A secret's value is not kept
    /// across restarts unless remembered, so this is what a restart leaves of it. A header the
    /// auth helper replaces (`Authorization`) is not counted.
    pub fn secret_without_value(&self) -> Option<(String, bool)> {
        let helper = self.auth.header_value().is_some();
        let empty = |r: &&KeyValue| r.enabled && r.value.is_empty() && !r.name.trim().is_empty();
        let header = self.headers.iter().filter(empty).find(|r| {
            r.is_secret() && !(helper && r.name.trim().eq_ignore_ascii_case("authorization"))
        });
        let form = if self.body.kind == BodyKind::Form {
            &self.body.form[..]
        } else {
            &[]
        };
        let param = |rows: &'_ [KeyValue], what: &str| {
            rows.iter()
                .filter(empty)
                .find(|r| r.is_secret_param())
                .map(|r| (format!("{what} {}", r.name.trim()), true))
        };
        header
            .map(|r| (format!("header {}", r.name.trim()), true))
            .or_else(|| param(&self.query, "query parameter"))
            .or_else(|| param(form, "form field"))
            .or_else(|| {
                (self.auth.kind == super::auth::AuthKind::Bearer
                    && self.auth.bearer_token.trim().is_empty())
                .then(|| ("the Bearer token".to_owned(), false))
            })
    }

    /// The secret values this draft would send (secret rows, the auth helper's secret), for
    /// masking them in what a run shows.
    pub fn secret_values(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .query
            .iter()
            .chain(&self.body.form)
            .filter(|r| r.is_secret_param())
            .chain(self.headers.iter().filter(|r| r.is_secret()))
            .filter(|r| r.enabled && !r.value.is_empty())
            .map(|r| r.value.clone())
            .collect();
        out.extend(
            self.auth
                .secret_values()
                .into_iter()
                .filter(|v| !v.is_empty())
                .map(str::to_owned),
        );
        out
    }

    fn secret_rows_mut(&mut self) -> impl Iterator<Item = &mut KeyValue> {
        self.headers.iter_mut().filter(|r| r.is_secret()).chain(
            self.query
                .iter_mut()
                .chain(self.body.form.iter_mut())
                .filter(|r| r.is_secret_param()),
        )
    }
}

/// The secret slot of a URL holding secrets (user, password, secret query values): the whole URL.
const URL_SLOT: &str = "url";

/// The one rule (DESIGN.md §9) for a row of `table` (`header`, `query`, `form`): header names
/// for headers, parameter names for query parameters and form fields.
fn is_secret_row(table: &str, row: &KeyValue) -> bool {
    if table == "header" {
        row.is_secret()
    } else {
        row.is_secret_param()
    }
}

/// The rows to send: blank rows ([`KeyValue::is_blank`]) dropped, every other row kept in order
/// (an enabled row with a value but no name still reaches the engine, which names it in its
/// refusal).
fn without_blank_rows(rows: &[KeyValue]) -> Vec<KeyValue> {
    rows.iter().filter(|r| !r.is_blank()).cloned().collect()
}

/// The auth helper's header replaces any enabled `Authorization` row (secret: masked everywhere).
fn set_authorization(spec: &mut RequestSpec, value: String) {
    spec.headers
        .retain(|h| !(h.enabled && h.name.eq_ignore_ascii_case("authorization")));
    spec.headers.push(KeyValue {
        name: "Authorization".into(),
        value,
        enabled: true,
        secret: true,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AuthKind;

    #[test]
    fn blank_rows_are_not_sent_but_a_value_without_a_name_is() {
        let mut draft = RequestDraft::demo("http://127.0.0.1:9", 200);
        draft.headers.push(KeyValue::new("", ""));
        draft.headers.push(KeyValue::new("  ", "orphan"));
        draft.query.push(KeyValue::new(" ", ""));
        let spec = draft.to_spec(&Variables::new(), "k").expect("no variables");
        let names: Vec<&str> = spec.headers.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(
            names,
            ["Accept", "  "],
            "blank row dropped, orphan value kept"
        );
        assert!(spec.query.is_empty());
    }

    #[test]
    fn demo_request_gets_a_fresh_key_per_send() {
        let draft = RequestDraft::demo("http://127.0.0.1:9", 503);
        let vars = Variables::new();
        let a = draft.to_spec(&vars, "a1").expect("no variables");
        let b = draft.to_spec(&vars, "b2").expect("no variables");
        assert_eq!(a.url, "http://127.0.0.1:9/status/503?times=2&case=a1");
        assert_eq!(b.url, "http://127.0.0.1:9/status/503?times=2&case=b2");
        assert!(a.query.is_empty(), "no query row to outlive the URL");
    }

    #[test]
    fn storage_copy_blanks_every_secret() {
        let mut draft = RequestDraft::default();
        draft
            .headers
            .push(KeyValue::new("Authorization", "Bearer abc"));
        draft.headers.push(KeyValue::new("Accept", "text/plain"));
        draft.query.push(KeyValue {
            secret: true,
            ..KeyValue::new("q", "hidden")
        });
        draft.auth.bearer_token = "tok".into();
        let stored = draft.without_secrets();
        assert_eq!(stored.headers[0].value, "");
        assert_eq!(stored.headers[1].value, "text/plain");
        assert_eq!(stored.query[0].value, "");
        assert_eq!(stored.auth.bearer_token, "");
        // A value that is only a variable reference holds no secret of its own: kept as typed.
        draft.headers[0].value = "Bearer {{token}}".into();
        draft.query[0].value = "{{q}}".into();
        draft.auth.bearer_token = "{{token}}".into();
        let stored = draft.without_secrets();
        assert_eq!(stored.headers[0].value, "Bearer {{token}}");
        assert_eq!(stored.query[0].value, "{{q}}");
        assert_eq!(stored.auth.bearer_token, "{{token}}");
        draft.headers[0].value = "Bearer abc{{token}}".into();
        assert_eq!(draft.without_secrets().headers[0].value, "");
    }

    #[test]
    fn a_url_holding_secrets_is_masked_for_files_and_restored_from_its_slot() {
        let draft = RequestDraft {
            url: "http://tok@127.0.0.1:9/x?sig=S1&page=2".into(),
            ..RequestDraft::default()
        };
        let file = draft.without_secrets();
        assert_eq!(file.url, "http://***@127.0.0.1:9/x?sig=***&page=2");
        let slots = draft.secret_slots();
        assert_eq!(slots[0], ("url".to_owned(), draft.url.clone()));
        let mut restored = file;
        restored.fill_secrets(|slot| {
            slots
                .iter()
                .find(|(s, _)| s == slot)
                .map(|(_, v)| v.clone())
        });
        assert_eq!(restored.url, draft.url);
    }

    #[test]
    fn secret_slots_round_trip() {
        let mut draft = RequestDraft::default();
        draft.headers.push(KeyValue::new("Accept", "a"));
        draft.headers.push(KeyValue::new("X-Api-Key", "k1"));
        draft.auth.basic_password = "pw".into();
        let slots = draft.secret_slots();
        assert_eq!(
            slots,
            [
                ("header/1/X-Api-Key".to_owned(), "k1".to_owned()),
                ("auth/basic_password".to_owned(), "pw".to_owned())
            ]
        );
        let mut restored = draft.without_secrets();
        restored.fill_secrets(|slot| {
            slots
                .iter()
                .find(|(s, _)| s == slot)
                .map(|(_, v)| v.clone())
        });
        assert_eq!(restored, draft);
    }

    #[test]
    fn idempotency_key_is_sent_only_when_enabled() {
        let vars = Variables::new();
        let mut draft = RequestDraft {
            idempotency_key: "k".into(),
            ..RequestDraft::default()
        };
        assert_eq!(draft.to_spec(&vars, "u").expect("ok").idempotency_key, None);
        draft.idempotency_enabled = true;
        assert_eq!(
            draft
                .to_spec(&vars, "u")
                .expect("ok")
                .idempotency_key
                .as_deref(),
            Some("k")
        );
    }

    #[test]
    fn auth_helper_builds_the_header_from_resolved_fields() {
        let mut vars = Variables::new();
        vars.set("token", "t-123", true);
        let mut draft = RequestDraft {
            url: "http://127.0.0.1:9/".into(),
            ..RequestDraft::default()
        };
        draft
            .headers
            .push(KeyValue::new("Authorization", "typed by hand"));
        draft.auth.kind = AuthKind::Bearer;
        draft.auth.bearer_token = "{{token}}".into();
        let spec = draft.to_spec(&vars, "u").expect("defined");
        let auth: Vec<_> = spec
            .headers
            .iter()
            .filter(|h| h.name.eq_ignore_ascii_case("authorization"))
            .collect();
        assert_eq!(auth.len(), 1, "the helper replaces the typed row");
        assert_eq!(auth[0].value, "Bearer t-123");
        assert!(auth[0].secret);
        draft.auth.bearer_token = "{{missing}}".into();
        let err = draft.to_spec(&vars, "u").expect_err("unknown");
        assert_eq!(
            err.to_string(),
            "unknown variable {{missing}} in Bearer token"
        );
    }

    #[test]
    fn spec_as_written_keeps_variables_and_applies_the_auth_helper() {
        let mut draft = RequestDraft {
            method: "get".into(),
            url: " http://{{host}}/x?id={{uuid}} ".into(),
            ..RequestDraft::default()
        };
        draft.headers.push(KeyValue::new("Authorization", "typed"));
        draft.auth.kind = AuthKind::Bearer;
        draft.auth.bearer_token = "{{token}}".into();
        let spec = draft.spec_as_written();
        assert_eq!(spec.method, "GET");
        assert_eq!(spec.url, "http://{{host}}/x?id={{uuid}}");
        assert_eq!(spec.headers.len(), 1, "the helper replaces the typed row");
        assert_eq!(spec.headers[0].value, "Bearer {{token}}");
        assert!(spec.headers[0].secret);
        // The same draft resolved sends the same shape.
        let mut vars = Variables::new();
        vars.set("host", "127.0.0.1:9", false);
        vars.set("token", "t0k", true);
        let resolved = draft.to_spec(&vars, "u1").expect("defined");
        assert_eq!(resolved.url, "http://127.0.0.1:9/x?id=u1");
        assert_eq!(resolved.headers[0].value, "Bearer t0k");
    }

    #[test]
    fn a_secret_left_empty_is_named_headers_first_then_parameters_then_the_bearer_token() {
        let mut draft = RequestDraft::demo("http://127.0.0.1:9", 200);
        assert_eq!(draft.secret_without_value(), None);
        draft.auth.kind = AuthKind::Bearer;
        assert_eq!(
            draft.secret_without_value(),
            Some(("the Bearer token".to_owned(), false))
        );
        // An empty form field counts only with a form body.
        draft.body.form.push(KeyValue::new("password", ""));
        assert_eq!(
            draft.secret_without_value().map(|(w, _)| w),
            Some("the Bearer token".to_owned())
        );
        draft.body.kind = BodyKind::Form;
        assert_eq!(
            draft.secret_without_value(),
            Some(("form field password".to_owned(), true))
        );
        draft.query.push(KeyValue::new("api_key", ""));
        assert_eq!(
            draft.secret_without_value().map(|(w, _)| w),
            Some("query parameter api_key".to_owned())
        );
        // The helper's Authorization replaces an empty header of that name; another counts.
        draft.headers.push(KeyValue::new("Authorization", ""));
        draft.headers.push(KeyValue::new("X-Api-Key", ""));
        assert_eq!(
            draft.secret_without_value(),
            Some(("header X-Api-Key".to_owned(), true))
        );
    }
}

//! Secret members of a JSON request body (a JSON body, or a text body that parses as JSON): the string values of members whose name the secrets
//! rule calls secret ([`super::secrets::is_secret_param`]: `password`, `client_secret`,
//! `refresh_token`, …), at any depth. Stored and exported copies of the request show them as
//! `***` (the bytes sent are unchanged), and an echo of one in a response is masked like any
//! other secret value.

use serde_json::Value;

/// The secret members' string values of the JSON text `json`, each once;
/// empty when the text is not JSON (a body with `{{variables}}` outside strings, plain text).
pub fn json_secret_members(json: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<Value>(json) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    collect(&value, &mut out);
    out
}

fn collect(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (name, v) in members {
                match v {
                    Value::String(s) if super::secrets::is_secret_param(name) => {
                        if !s.is_empty() && !out.contains(s) {
                            out.push(s.clone());
                        }
                    }
                    _ => collect(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
        _ => {}
    }
}

/// `json` with every secret member's string literal replaced by `"***"`, the rest of the text
/// (formatting, order, other members) as typed. A literal equal to a secret elsewhere in the
/// document is masked too (the safe side).
pub fn mask_json_secret_members(json: &str) -> String {
    let mut out = json.to_owned();
    for secret in json_secret_members(json) {
        let literal = Value::String(secret).to_string();
        out = out.replace(&literal, "\"***\"");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_members_are_found_at_any_depth_and_masked_in_place() {
        let body = r#"{
  "grant_type": "password",
  "username": "alice",
  "password": "pa\"ss1",
  "client": {"client_secret": "cs-123456", "id": "app"},
  "items": [{"refresh_token": "rt-abcdef"}],
  "pin": 1234
}"#;
        let mut found = json_secret_members(body);
        found.sort();
        assert_eq!(found, ["cs-123456", "pa\"ss1", "rt-abcdef"]);
        let masked = mask_json_secret_members(body);
        assert_eq!(
            masked,
            r#"{
  "grant_type": "password",
  "username": "alice",
  "password": "***",
  "client": {"client_secret": "***", "id": "app"},
  "items": [{"refresh_token": "***"}],
  "pin": 1234
}"#
        );
        assert_eq!(mask_json_secret_members("not json {{x}}"), "not json {{x}}");
    }
}

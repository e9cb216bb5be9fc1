//! Finds every unknown field of a document at once, guided by the JSON Schema (serde alone
//! stops at the first one).

use super::source_map::child_key;
use serde_json::Value;

/// An object key the schema does not allow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// Path of the object holding it (`""` for the top level).
    pub parent: String,
    /// The key.
    pub name: String,
    /// The keys allowed there, in schema order.
    pub allowed: Vec<String>,
}

/// Every key of `doc` that `schema` (with `additionalProperties: false`) does not allow
/// (in key order; the loader sorts issues by position).
pub fn find(schema: &Value, doc: &Value) -> Vec<UnknownField> {
    let mut out = Vec::new();
    walk(schema, schema, doc, "", &mut out);
    out
}

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix("#/$defs/")
            .and_then(|name| root.get("$defs")?.get(name))
            .unwrap_or(schema),
        None => schema,
    }
}

fn walk(root: &Value, schema: &Value, doc: &Value, path: &str, out: &mut Vec<UnknownField>) {
    let schema = resolve(root, schema);
    // Options are `anyOf: [{$ref}, {type: null}]`: descend into the object branch.
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        for b in branches {
            let b = resolve(root, b);
            if b.get("properties").is_some() || b.get("items").is_some() {
                walk(root, b, doc, path, out);
                return;
            }
        }
    }
    match doc {
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let strict = schema.get("additionalProperties") == Some(&Value::Bool(false));
            for (key, value) in map {
                match props.get(key) {
                    Some(child) => walk(root, child, value, &child_key(path, key), out),
                    None if strict => out.push(UnknownField {
                        parent: path.to_owned(),
                        name: key.clone(),
                        allowed: props.keys().cloned().collect(),
                    }),
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    walk(root, item_schema, item, &format!("{path}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_all_unknown_fields_including_nested_fallback() {
        let schema: Value =
            serde_json::from_str(&crate::profile::schema_json()).expect("schema is JSON");
        let doc = serde_json::json!({
            "format": "retryscope-profile/1",
            "name": "x",
            "max_retry": 3,
            "retry_on": {"statuses": [429]},
            "backoff": {"strategy": "response_header",
                        "headers": [{"name": "Retry-After", "units": "seconds"}],
                        "fallback": {"strategy": "fixed", "base_delay": 5}}
        });
        let mut found: Vec<String> = find(&schema, &doc)
            .into_iter()
            .map(|u| format!("{}/{}", u.parent, u.name))
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                "/max_retry",
                "backoff.fallback/base_delay",
                "backoff.headers[0]/units",
                "retry_on/statuses",
            ]
        );
    }
}

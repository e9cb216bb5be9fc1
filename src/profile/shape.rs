//! A document's shape, checked against the shipped JSON Schema ([`SHIPPED_SCHEMA`]) with the
//! `jsonschema` crate, as typed [`Problem`]s: every violation at once, each at its field path.
//! The expected types, ranges and names in the messages are read from the schema itself.

use super::field_path::Step;
use super::problem::{Kind, Problem, quoted_list};
use super::schema::SHIPPED_SCHEMA;
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::LazyLock;

/// The shipped schema as JSON (`Null` if it were not JSON; the schema tests rule that out).
static SCHEMA: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(SHIPPED_SCHEMA).unwrap_or_default());

/// The compiled schema, or why it does not compile. Only in-document `$ref`s exist and the
/// crate is built without its remote-reference features: nothing is ever fetched.
static VALIDATOR: LazyLock<Result<Validator, String>> = LazyLock::new(|| {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&SCHEMA)
        .map_err(|e| e.to_string())
});

/// Shape violations looked at per check, at most (a document can hold millions).
pub(super) const MAX_VIOLATIONS: usize = 1000;

/// Every shape problem of `doc`, in the validator's order, from at most `limit` violations.
///
/// The validator collects every violation before returning any, so a document with millions of
/// wrong entries is first checked with each array cut to its first `limit` elements (our schema
/// has no keyword about a whole array, so what is found there is exactly what the full document
/// has at those paths); the whole document is searched only when the cut one is valid.
pub(super) fn problems(doc: &Value, limit: usize) -> Vec<Problem> {
    let validator = match &*VALIDATOR {
        Ok(v) => v,
        Err(e) => {
            let message = format!("the profile schema shipped with retryscope does not load: {e}");
            return vec![Problem::new(Vec::new(), Kind::Rule { message })];
        }
    };
    if validator.is_valid(doc) {
        return Vec::new();
    }
    let cut = cut_arrays(doc, limit);
    let checked = cut
        .as_ref()
        .filter(|c| !validator.is_valid(c))
        .unwrap_or(doc);
    let mut out = Vec::new();
    for error in validator.iter_errors(checked).take(limit) {
        convert(&error, &mut out);
    }
    // One "expected …" per field: a value can break several keywords (type and minimum).
    let mut seen: HashSet<Vec<Step>> = HashSet::new();
    out.retain(|p| {
        !matches!(p.kind, Kind::WrongValue { .. } | Kind::UnknownName { .. })
            || seen.insert(p.path.clone())
    });
    out
}

/// A copy of `doc` with every array longer than `limit` cut to its first `limit` elements;
/// `None` when there is none.
fn cut_arrays(doc: &Value, limit: usize) -> Option<Value> {
    fn too_long(v: &Value, limit: usize) -> bool {
        match v {
            Value::Array(items) => items.len() > limit || items.iter().any(|i| too_long(i, limit)),
            Value::Object(map) => map.values().any(|i| too_long(i, limit)),
            _ => false,
        }
    }
    fn cut(v: &mut Value, limit: usize) {
        match v {
            Value::Array(items) => {
                items.truncate(limit);
                for item in items.iter_mut() {
                    cut(item, limit);
                }
            }
            Value::Object(map) => map.values_mut().for_each(|i| cut(i, limit)),
            _ => {}
        }
    }
    too_long(doc, limit).then(|| {
        let mut copy = doc.clone();
        cut(&mut copy, limit);
        copy
    })
}

fn steps(error: &ValidationError<'_>) -> Vec<Step> {
    error
        .instance_path()
        .iter()
        .map(|segment| match segment {
            LocationSegment::Property(key) => Step::Key(key.into_owned()),
            LocationSegment::Index(i) => Step::Index(i),
        })
        .collect()
}

fn convert(error: &ValidationError<'_>, out: &mut Vec<Problem>) {
    let path = steps(error);
    let node = keyword_owner(error);
    let instance = error.instance();
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let allowed: Vec<String> = node
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            for key in unexpected {
                let mut field = path.clone();
                field.push(Step::Key(key.clone()));
                out.push(Problem::new(
                    field,
                    Kind::UnknownField {
                        allowed: allowed.clone(),
                    },
                ));
            }
        }
        ValidationErrorKind::Required { property } => {
            let mut field = path;
            field.push(Step::Key(property.as_str().unwrap_or_default().to_owned()));
            out.push(Problem::new(field, Kind::Missing));
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context }
            if instance.is_object() || instance.is_array() =>
        {
            // An object or list: report what is wrong inside it, along the branch its type
            // matches (`fallback` is a backoff or null).
            let same_place = |e: &ValidationError<'_>| steps(e) == path;
            let branch = context.iter().find(|errors| {
                !errors
                    .iter()
                    .any(|e| same_place(e) && matches!(e.kind(), ValidationErrorKind::Type { .. }))
            });
            match branch {
                Some(errors) => errors.iter().for_each(|e| convert(e, out)),
                None => out.push(wrong_value(path, node, instance)),
            }
        }
        _ => out.push(wrong_value(path, node, instance)),
    }
}

/// An unknown name (for a string where the schema lists names), else "expected X, found Y".
fn wrong_value(path: Vec<Step>, node: &'static Value, instance: &Value) -> Problem {
    let allowed = names(node);
    if let (false, Some(name)) = (allowed.is_empty(), instance.as_str()) {
        return Problem::new(
            path,
            Kind::UnknownName {
                name: name.to_owned(),
                allowed,
            },
        );
    }
    Problem::new(
        path,
        Kind::WrongValue {
            expected: expected(node),
            found: found(instance),
        },
    )
}

/// The schema object holding the keyword that failed (the schema path without its last step;
/// `$ref`s along the way are followed).
fn keyword_owner(error: &ValidationError<'_>) -> &'static Value {
    let segments: Vec<LocationSegment<'_>> = error.schema_path().iter().collect();
    let mut node: &'static Value = &SCHEMA;
    for segment in &segments[..segments.len().saturating_sub(1)] {
        let next = match segment {
            LocationSegment::Property(key) if key == "$ref" => Some(resolve(node)),
            LocationSegment::Property(key) => node.get(key.as_ref()),
            LocationSegment::Index(i) => node.get(*i),
        };
        node = next.unwrap_or(&Value::Null);
    }
    node
}

/// The definition `node` refers to (`{"$ref": "#/$defs/Backoff"}`), else `node`.
fn resolve(node: &'static Value) -> &'static Value {
    node.get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| SCHEMA.pointer(pointer))
        .unwrap_or(node)
}

/// The names a schema allows (`const`s of its `oneOf`/`anyOf` branches, or its `enum`).
fn names(node: &'static Value) -> Vec<String> {
    let node = resolve(node);
    if let Some(c) = node.get("const").and_then(Value::as_str) {
        return vec![c.to_owned()];
    }
    if let Some(options) = node.get("enum").and_then(Value::as_array) {
        return options
            .iter()
            .filter_map(|o| Some(o.as_str()?.to_owned()))
            .collect();
    }
    let branches = node
        .get("oneOf")
        .or_else(|| node.get("anyOf"))
        .and_then(Value::as_array);
    let mut out = Vec::new();
    for branch in branches.into_iter().flatten() {
        match resolve(branch).get("const").and_then(Value::as_str) {
            Some(c) => out.push(c.to_owned()),
            None => return Vec::new(),
        }
    }
    out
}

/// What `node` accepts, in words: ``a whole number ≥ 0 or null``, ``one of `a`, `b` ``.
fn expected(node: &'static Value) -> String {
    let node = resolve(node);
    if Some(node) == SCHEMA.pointer("/$defs/StatusSet/items") {
        return r#"a status code (100–599) or a range like "500-599""#.into();
    }
    let allowed = names(node);
    if !allowed.is_empty() {
        return format!("one of {}", quoted_list(&allowed));
    }
    // A matcher (DESIGN.md §8) with no key would hold for every response.
    if let Some(min) = node.get("minProperties").and_then(Value::as_u64) {
        let keys = if min == 1 { "key" } else { "keys" };
        return format!("an object with at least {min} {keys}");
    }
    if let Some(branches) = node
        .get("anyOf")
        .or_else(|| node.get("oneOf"))
        .and_then(Value::as_array)
    {
        return branches
            .iter()
            .map(expected)
            .collect::<Vec<_>>()
            .join(" or ");
    }
    let types: Vec<&str> = match node.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.is_empty() {
        return "a valid value".into();
    }
    types
        .iter()
        .map(|t| match *t {
            "integer" => whole_number(node),
            "number" => "a number".into(),
            "string" => "a string".into(),
            "boolean" => "true or false".into(),
            "object" => "an object".into(),
            "array" => "a list".into(),
            "null" => "null".into(),
            other => format!("a JSON {other}"),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// `a whole number ≥ 0`, or `from 0 to 1000` when the schema sets a maximum below the type's
/// own (the maximums of u32/u64 are not worth spelling out).
fn whole_number(node: &Value) -> String {
    let min = node.get("minimum").and_then(Value::as_u64);
    let max = node
        .get("maximum")
        .and_then(Value::as_u64)
        .filter(|&m| m < u64::from(u32::MAX));
    match (min, max) {
        (Some(lo), Some(hi)) => format!("a whole number from {lo} to {hi}"),
        (Some(lo), None) => format!("a whole number ≥ {lo}"),
        (None, Some(hi)) => format!("a whole number ≤ {hi}"),
        (None, None) => "a whole number".into(),
    }
}

/// `the string "3"`, `-5`, `1.5`, `true`, `null`, `an array`, `an object`.
fn found(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(map) if map.is_empty() => "an empty object".into(),
        Value::Object(_) => "an object".into(),
        // serde_json keeps integers past u64 as floats (1.8446744073709552e+19): say what it is.
        Value::Number(n) if n.as_u64().is_none() && n.as_f64().is_some_and(|f| f >= 1.8e19) => {
            "a number beyond 18446744073709551615".into()
        }
        other => other.to_string(),
    }
}

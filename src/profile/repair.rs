//! A copy of a document with its shape problems taken out, so that the semantic rules still run
//! on everything else in the same pass.
//!
//! Every value with a shape problem (unknown field, wrong type, out of range, unknown name) is
//! removed: its default stands in. A required field left missing gets a placeholder (`format`,
//! `strategy`: the usual value; an object: the smallest valid one; a string: `(invalid)`).
//! Array elements removed are remembered, so that paths in the copy map back to the file's
//! indices. Everything removed or replaced is listed in [`Checked::taken`]: a finding about such
//! a field, or reading one, would quote a stand-in, not the file.

use super::field_path::{Step, parse, render};
use super::problem::{Kind, Problem};
use super::shape;
use crate::model::{PROFILE_FORMAT, RetryProfile};
use serde_json::Value;

/// Rounds of placeholders and removals tried before giving up on the semantic checks.
const MAX_ROUNDS: usize = 8;

/// Broken values taken out at most: a document with more waits for the semantic checks until
/// the listed problems are fixed (each removal shifts an array, and such a document is not
/// worth checking further).
const MAX_REMOVALS: usize = 200;

/// The repaired copy, parsed, and what was taken out of it.
pub(super) struct Checked {
    /// The profile the semantic rules run on.
    pub profile: RetryProfile,
    /// Paths (file indices) whose value in the copy is not the file's.
    pub taken: Vec<String>,
    /// Array elements removed: (the array's path, the element's index), both as in the file.
    removed: Vec<(String, usize)>,
}

impl Checked {
    /// A path of the copy (`retry_on.status[2]`) with the file's indices (`retry_on.status[3]`
    /// when `[1]` was removed).
    pub fn in_file(&self, path: &str) -> String {
        render(&self.original(&parse(path)))
    }

    fn original(&self, steps: &[Step]) -> Vec<Step> {
        original(&self.removed, steps)
    }
}

fn original(removed: &[(String, usize)], steps: &[Step]) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::with_capacity(steps.len());
    for step in steps {
        let step = match step {
            Step::Index(index) => {
                let array = render(&out);
                let mut gone: Vec<usize> = removed
                    .iter()
                    .filter(|(a, _)| *a == array)
                    .map(|&(_, i)| i)
                    .collect();
                gone.sort_unstable();
                Step::Index(
                    gone.into_iter()
                        .fold(*index, |i, g| if g <= i { i + 1 } else { i }),
                )
            }
            key @ Step::Key(_) => key.clone(),
        };
        out.push(step);
    }
    out
}

/// `doc` without the values `problems` are about, with placeholders for what that leaves
/// missing, parsed as a profile; `None` when no such copy parses or there are more than
/// [`MAX_REMOVALS`] broken values (the semantic checks are then skipped: the shape problems are
/// reported anyway).
pub(super) fn checked_copy(doc: &Value, problems: &[Problem]) -> Option<Checked> {
    let mut copy = doc.clone();
    let mut taken = Vec::new();
    let mut removed = Vec::new();
    let mut doomed: Vec<&[Step]> = problems
        .iter()
        .filter(|p| {
            matches!(
                p.kind,
                Kind::UnknownField { .. } | Kind::UnknownName { .. } | Kind::WrongValue { .. }
            )
        })
        .map(|p| p.path.as_slice())
        .collect();
    if doomed.len() > MAX_REMOVALS {
        return None;
    }
    // Last first, so that each removal leaves the file's indices of the others valid.
    doomed.sort_unstable();
    doomed.dedup();
    for steps in doomed.into_iter().rev() {
        if remove_at(&mut copy, steps) {
            taken.push(render(steps));
            if let Some((Step::Index(i), array)) = steps.split_last() {
                removed.push((render(array), *i));
            }
        }
    }
    for _ in 0..MAX_ROUNDS {
        let left = shape::problems(&copy, MAX_REMOVALS);
        if left.is_empty() {
            let profile = serde_json::from_value(copy).ok()?;
            return Some(Checked {
                profile,
                taken,
                removed,
            });
        }
        for problem in left.iter().rev() {
            let in_file = original(&removed, &problem.path);
            let changed = match problem.kind {
                Kind::Missing => insert_placeholder(&mut copy, &problem.path),
                _ => remove_at(&mut copy, &problem.path),
            };
            if changed {
                if !matches!(problem.kind, Kind::Missing)
                    && let Some((Step::Index(i), array)) = in_file.split_last()
                {
                    removed.push((render(array), *i));
                }
                taken.push(render(&in_file));
            }
        }
    }
    None
}

/// Sets the missing field at `steps` to a placeholder; false when its object is not there.
fn insert_placeholder(doc: &mut Value, steps: &[Step]) -> bool {
    let Some((Step::Key(field), parent)) = steps.split_last() else {
        return false;
    };
    let placeholder = match field.as_str() {
        "format" => Value::from(PROFILE_FORMAT),
        "strategy" => Value::from("fixed"),
        "backoff" => serde_json::json!({ "strategy": "fixed" }),
        _ => Value::from("(invalid)"),
    };
    match value_at(doc, parent).and_then(Value::as_object_mut) {
        Some(object) => object.insert(field.clone(), placeholder).is_none(),
        None => false,
    }
}

/// Removes the value at `steps` (an object key or an array element); false when there is
/// nothing there (or `steps` is the root).
fn remove_at(doc: &mut Value, steps: &[Step]) -> bool {
    let Some((last, parent)) = steps.split_last() else {
        return false;
    };
    match (last, value_at(doc, parent)) {
        (Step::Key(key), Some(Value::Object(object))) => object.remove(key.as_str()).is_some(),
        (Step::Index(i), Some(Value::Array(items))) if *i < items.len() => {
            items.remove(*i);
            true
        }
        _ => false,
    }
}

/// The value at `steps` (the root for no steps).
fn value_at<'v>(doc: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    let mut node = doc;
    for step in steps {
        node = match step {
            Step::Key(key) => node.get_mut(key.as_str())?,
            Step::Index(i) => node.get_mut(*i)?,
        };
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removed_elements_shift_later_indices_back_to_the_file() {
        let removed = vec![("retry_on.status".to_owned(), 1)];
        // The file's [3] is [2] in the copy once [1] is gone.
        let file = |path: &str| render(&original(&removed, &parse(path)));
        assert_eq!(file("retry_on.status[2]"), "retry_on.status[3]");
        assert_eq!(file("retry_on.status[0]"), "retry_on.status[0]");
        assert_eq!(file("retry_on.errors[1]"), "retry_on.errors[1]");
        let removed = vec![("a".to_owned(), 1), ("a".to_owned(), 3)];
        assert_eq!(render(&original(&removed, &parse("a[1]"))), "a[2]");
        assert_eq!(render(&original(&removed, &parse("a[2]"))), "a[4]");
    }

    #[test]
    fn broken_values_are_taken_out_and_required_ones_replaced() {
        let doc = serde_json::json!({
            "format": "retryscope-profile/1",
            "name": 5,
            "retry_on": {"status": [429, "x", 503]},
            "backoff": {"strategy": "nope", "base_delay_ms": 7}
        });
        let problems = shape::problems(&doc, 100);
        let checked = checked_copy(&doc, &problems).expect("repairable");
        assert_eq!(checked.profile.name, "(invalid)");
        assert_eq!(checked.profile.backoff.base_delay_ms, 7, "kept");
        assert!(checked.profile.retry_on.status.contains(503));
        assert_eq!(checked.in_file("retry_on.status[1]"), "retry_on.status[2]");
        let mut taken = checked.taken.clone();
        taken.sort();
        taken.dedup();
        assert_eq!(taken, ["backoff.strategy", "name", "retry_on.status[1]"]);
    }
}

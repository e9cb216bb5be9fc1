//! The one shape every importer's mapping table has: each key of a map names what it maps to,
//! or why it does not map (yet). Keys not in the table are reported as unknown.

use super::report::{Findings, FormatError};
use super::tree::{Node, index, join};

/// What a mapping function returns: `Err` for a value it cannot read.
pub type Mapped = Result<(), FormatError>;

/// What happens to one key of the other tool's file.
pub enum Rule<D: 'static> {
    /// Mapped by this function (draft, value, the key's path, findings).
    Map(fn(&mut D, &Node, &str, &mut Findings) -> Mapped),
    /// A map of settings walked with this table.
    Nested(&'static [Key<D>]),
    /// Not mapped: the reason (e.g. one of [`super::pending`]).
    Dropped(&'static str),
}

/// One row of a mapping table.
pub struct Key<D: 'static> {
    /// The key as the other tool spells it.
    pub name: &'static str,
    /// What it maps to.
    pub rule: Rule<D>,
}

impl<D> Key<D> {
    /// `name` is mapped by `apply`.
    pub const fn map(
        name: &'static str,
        apply: fn(&mut D, &Node, &str, &mut Findings) -> Mapped,
    ) -> Self {
        Self {
            name,
            rule: Rule::Map(apply),
        }
    }

    /// `name` is a map of settings that `table` maps.
    pub const fn nested(name: &'static str, table: &'static [Key<D>]) -> Self {
        Self {
            name,
            rule: Rule::Nested(table),
        }
    }

    /// `name` is not mapped, because `reason`.
    pub const fn dropped(name: &'static str, reason: &'static str) -> Self {
        Self {
            name,
            rule: Rule::Dropped(reason),
        }
    }
}

/// Applies `table` to every entry of the map at `parent`; keys the table does not know are
/// reported as `unknown setting for {tool}`. A value a rule cannot read is a problem in
/// `findings`, and the walk goes on, so one import lists every bad value.
pub fn walk<D>(
    entries: &[(String, Node)],
    parent: &str,
    table: &[Key<D>],
    tool: &str,
    draft: &mut D,
    findings: &mut Findings,
) {
    for (key, value) in entries {
        let path = join(parent, key);
        let read = match table.iter().find(|k| k.name == key).map(|k| &k.rule) {
            Some(Rule::Map(apply)) => apply(draft, value, &path, findings),
            Some(Rule::Nested(inner)) => value
                .map(&path)
                .map(|inner_entries| walk(inner_entries, &path, inner, tool, draft, findings)),
            Some(Rule::Dropped(reason)) => {
                findings.dropped(&path, value.describe(), reason);
                Ok(())
            }
            None => {
                findings.dropped(
                    &path,
                    value.describe(),
                    &format!("unknown setting for {tool}"),
                );
                Ok(())
            }
        };
        if let Err(e) = read {
            findings.problem(e);
        }
    }
}

/// Reads every item of the list `v` at `path` with `read` (the item, its path `path[i]`, the
/// findings), each item that cannot be read a problem in `findings`: the values of the others,
/// in order.
///
/// # Errors
/// `expected a list` when `v` is not one.
pub fn each_item<T>(
    v: &Node,
    path: &str,
    findings: &mut Findings,
    mut read: impl FnMut(&Node, &str, &mut Findings) -> Result<T, FormatError>,
) -> Result<Vec<T>, FormatError> {
    let mut out = Vec::new();
    for (i, item) in v.list(path)?.iter().enumerate() {
        match read(item, &index(path, i), findings) {
            Ok(value) => out.push(value),
            Err(e) => findings.problem(e),
        }
    }
    Ok(out)
}

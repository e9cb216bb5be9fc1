//! The one shape every importer's mapping table has: each key of a map names what it maps to,
//! or why it does not map (yet). Keys not in the table are reported as unknown.

use super::report::{Findings, FormatError};
use super::tree::{Node, join};

/// What happens to one key of the other tool's file.
pub enum Rule<D> {
    /// Mapped by this function (draft, value, the key's path, findings).
    Map(fn(&mut D, &Node, &str, &mut Findings) -> Result<(), FormatError>),
    /// Not mapped: the reason (e.g. one of [`super::pending`]).
    Dropped(&'static str),
    /// Read by the importer elsewhere (a sibling's rule): nothing to do here.
    Elsewhere,
}

/// One row of a mapping table.
pub struct Key<D> {
    /// The key as the other tool spells it.
    pub name: &'static str,
    /// What it maps to.
    pub rule: Rule<D>,
}

/// Applies `table` to every entry of the map at `parent`; keys the table does not know are
/// reported as `unknown setting for {tool}`.
///
/// # Errors
/// The first value a rule cannot read.
pub fn walk<D>(
    entries: &[(String, Node)],
    parent: &str,
    table: &[Key<D>],
    tool: &str,
    draft: &mut D,
    findings: &mut Findings,
) -> Result<(), FormatError> {
    for (key, value) in entries {
        let path = join(parent, key);
        match table.iter().find(|k| k.name == key) {
            Some(Key {
                rule: Rule::Map(apply),
                ..
            }) => apply(draft, value, &path, findings)?,
            Some(Key {
                rule: Rule::Dropped(reason),
                ..
            }) => findings.dropped(&path, value.describe(), reason),
            Some(Key {
                rule: Rule::Elsewhere,
                ..
            }) => {}
            None => findings.dropped(
                &path,
                value.describe(),
                &format!("unknown setting for {tool}"),
            ),
        }
    }
    Ok(())
}

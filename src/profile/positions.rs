//! Where each field of a profile document sits in its text, so that every problem (shape or
//! semantic) points at `line:column`. The text is parsed a second time, only when there is a
//! problem to place, by `jsonc-parser` in strict mode (plain JSON, byte ranges for every node).

use super::field_path::Step;
use jsonc_parser::ast::{ObjectProp, Value as Node};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};

/// A 1-based `line:column` position (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// A document's syntax tree with byte ranges, and its line starts.
pub(crate) struct Positions<'t> {
    text: &'t str,
    root: Option<Node<'t>>,
    line_starts: Vec<usize>,
}

/// Plain JSON: no comments, trailing commas, single quotes or other JSON5 leniencies.
fn strict() -> ParseOptions {
    ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

impl<'t> Positions<'t> {
    /// Parses `text` (already known to be JSON); on a parse failure only the root is placed.
    pub fn of(text: &'t str) -> Self {
        let root = parse_to_ast(text, &CollectOptions::default(), &strict())
            .ok()
            .and_then(|r| r.value);
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self {
            text,
            root,
            line_starts,
        }
    }

    /// The line:column of byte `offset`.
    pub fn at_offset(&self, offset: usize) -> Position {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let start = self.line_starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        Position { line, column }
    }

    /// Where `steps` is: an object member's key, an array element's first character, the root's
    /// first character. `None` when the path is not in the document. A repeated key is placed
    /// at its last occurrence, the one a parsed value keeps.
    pub fn exact(&self, steps: &[Step]) -> Option<Position> {
        let mut node = self.root.as_ref()?;
        let mut offset = node.start();
        for step in steps {
            match (step, node) {
                (Step::Key(key), Node::Object(object)) => {
                    let prop = object
                        .properties
                        .iter()
                        .rev()
                        .find(|p| p.name.as_str() == key)?;
                    offset = prop.name.start();
                    node = &prop.value;
                }
                (Step::Index(i), Node::Array(array)) => {
                    node = array.elements.get(*i)?;
                    offset = node.start();
                }
                _ => return None,
            }
        }
        Some(self.at_offset(offset))
    }

    /// The position of `steps`, else of its nearest ancestor in the document (the root at worst).
    pub fn locate(&self, steps: &[Step]) -> Position {
        (0..=steps.len())
            .rev()
            .find_map(|n| self.exact(&steps[..n]))
            .unwrap_or(Position { line: 1, column: 1 })
    }

    /// Every object key that repeats an earlier key of the same object: its path and the
    /// position of the repetition, in document order.
    pub fn duplicates(&self) -> Vec<(Vec<Step>, Position)> {
        let mut out = Vec::new();
        if let Some(root) = &self.root {
            self.find_duplicates(root, &mut Vec::new(), &mut out);
        }
        out
    }

    fn find_duplicates(
        &self,
        node: &Node<'_>,
        path: &mut Vec<Step>,
        out: &mut Vec<(Vec<Step>, Position)>,
    ) {
        match node {
            Node::Object(object) => {
                for (i, prop) in object.properties.iter().enumerate() {
                    let name = prop.name.as_str();
                    let repeats = |p: &ObjectProp<'_>| p.name.as_str() == name;
                    path.push(Step::Key(name.to_owned()));
                    if object.properties[..i].iter().any(repeats) {
                        out.push((path.clone(), self.at_offset(prop.name.start())));
                    }
                    self.find_duplicates(&prop.value, path, out);
                    path.pop();
                }
            }
            Node::Array(array) => {
                for (i, element) in array.elements.iter().enumerate() {
                    path.push(Step::Index(i));
                    self.find_duplicates(element, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::field_path::parse;
    use super::*;

    #[test]
    fn places_keys_array_items_and_ancestors() {
        let text = "{\n  \"a\": 1,\n  \"b\": {\"c\": [10, \"é\", 3]}\n}";
        let p = Positions::of(text);
        let at = |line, column| Some(Position { line, column });
        assert_eq!(p.exact(&parse("a")), at(2, 3));
        assert_eq!(p.exact(&parse("b.c")), at(3, 9));
        assert_eq!(p.exact(&parse("b.c[1]")), at(3, 19));
        // Columns count characters: `é` is two bytes.
        assert_eq!(p.exact(&parse("b.c[2]")), at(3, 24));
        assert_eq!(
            p.locate(&parse("b.c[1].zz")),
            Position {
                line: 3,
                column: 19
            }
        );
        assert_eq!(p.locate(&parse("nope")), Position { line: 1, column: 1 });
    }

    #[test]
    fn finds_repeated_keys_at_the_repetition() {
        let text = "{\"a\": 1,\n \"b\": {\"x\": 1, \"x\": 2},\n \"a\": 3}";
        let found: Vec<(String, Position)> = Positions::of(text)
            .duplicates()
            .into_iter()
            .map(|(steps, pos)| (super::super::field_path::render(&steps), pos))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "b.x".to_owned(),
                    Position {
                        line: 2,
                        column: 16
                    }
                ),
                ("a".to_owned(), Position { line: 3, column: 2 }),
            ]
        );
    }
}

//! Where each field of a JSON document sits in its source text, so that problems found after
//! parsing (semantic checks) can still point at `line:column`.
//!
//! The map is built by a small tolerant scanner: on malformed input it simply records less.

use std::collections::HashMap;

/// A 1-based `line:column` position (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Positions of every field path in a JSON document.
///
/// Paths look like `backoff.base_delay_ms` and `retry_on.status[2]`; the root is `""`.
/// An object member's position is its key's opening quote; an array item's is its first character.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    positions: HashMap<String, Position>,
    duplicates: Vec<(String, Position)>,
}

impl SourceMap {
    /// Scans `text`.
    pub fn build(text: &str) -> Self {
        let mut scanner = Scanner {
            chars: text.chars().collect(),
            index: 0,
            line: 1,
            column: 1,
            map: HashMap::new(),
            duplicates: Vec::new(),
        };
        scanner.skip_ws();
        let root = scanner.position();
        scanner.map.insert(String::new(), root);
        let _ = scanner.value("");
        Self {
            positions: scanner.map,
            duplicates: scanner.duplicates,
        }
    }

    /// Every object key that repeats an earlier key of the same object: its path and the
    /// position of the repetition, in document order. Positions of repeated keys (and of what
    /// is inside them) are those of the last occurrence, the one a parsed value keeps.
    pub fn duplicates(&self) -> &[(String, Position)] {
        &self.duplicates
    }

    /// The position of `path`, or of its nearest recorded ancestor (`backoff.x` → `backoff`).
    pub fn locate(&self, path: &str) -> Option<Position> {
        let mut current = path;
        loop {
            if let Some(p) = self.positions.get(current) {
                return Some(*p);
            }
            if current.is_empty() {
                return None;
            }
            current = parent_path(current);
        }
    }

    /// The position of exactly `path`, if recorded.
    pub fn exact(&self, path: &str) -> Option<Position> {
        self.positions.get(path).copied()
    }
}

/// `a.b[2]` → `a.b`, `a.b` → `a`, `a` → ``.
pub fn parent_path(path: &str) -> &str {
    if path.ends_with(']')
        && let Some(open) = path.rfind('[')
    {
        return &path[..open];
    }
    match path.rfind('.') {
        Some(dot) => &path[..dot],
        None => "",
    }
}

/// Joins a parent path and an object key.
pub fn child_key(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

struct Scanner {
    chars: Vec<char>,
    index: usize,
    line: usize,
    column: usize,
    map: HashMap<String, Position>,
    duplicates: Vec<(String, Position)>,
}

impl Scanner {
    fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.column,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.index).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.index += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r' | '\n')) {
            self.bump();
        }
    }

    fn expect(&mut self, c: char) -> Option<()> {
        self.skip_ws();
        (self.bump()? == c).then_some(())
    }

    fn value(&mut self, path: &str) -> Option<()> {
        self.skip_ws();
        match self.peek()? {
            '{' => self.object(path),
            '[' => self.array(path),
            '"' => self.string().map(|_| ()),
            _ => {
                while let Some(c) = self.peek() {
                    if matches!(c, ',' | ']' | '}' | ' ' | '\t' | '\r' | '\n') {
                        break;
                    }
                    self.bump();
                }
                Some(())
            }
        }
    }

    fn object(&mut self, path: &str) -> Option<()> {
        self.expect('{')?;
        self.skip_ws();
        if self.peek()? == '}' {
            self.bump();
            return Some(());
        }
        // Keys of this object so far: a repeat is one within the same object.
        let mut seen = std::collections::HashSet::new();
        loop {
            self.skip_ws();
            let at = self.position();
            let key = self.string()?;
            let child = child_key(path, &key);
            if !seen.insert(key) {
                self.duplicates.push((child.clone(), at));
            }
            // The last occurrence wins, as in the parsed value the checks run on.
            self.map.insert(child.clone(), at);
            self.expect(':')?;
            self.value(&child)?;
            self.skip_ws();
            match self.bump()? {
                ',' => continue,
                '}' => return Some(()),
                _ => return None,
            }
        }
    }

    fn array(&mut self, path: &str) -> Option<()> {
        self.expect('[')?;
        self.skip_ws();
        if self.peek()? == ']' {
            self.bump();
            return Some(());
        }
        let mut index = 0usize;
        loop {
            self.skip_ws();
            let child = format!("{path}[{index}]");
            let at = self.position();
            self.map.insert(child.clone(), at);
            self.value(&child)?;
            self.skip_ws();
            match self.bump()? {
                ',' => index += 1,
                ']' => return Some(()),
                _ => return None,
            }
        }
    }

    /// Reads a string starting at its opening quote; returns its decoded text.
    fn string(&mut self) -> Option<String> {
        if self.bump()? != '"' {
            return None;
        }
        let mut out = String::new();
        loop {
            match self.bump()? {
                '"' => return Some(out),
                '\\' => match self.bump()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'u' => {
                        let mut code = 0u32;
                        for _ in 0..4 {
                            code = code * 16 + self.bump()?.to_digit(16)?;
                        }
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                    }
                    other => out.push(other),
                },
                c => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_keys_and_array_items() {
        let text = "{\n  \"a\": 1,\n  \"b\": {\"c\": [10, \"x\"]}\n}";
        let map = SourceMap::build(text);
        assert_eq!(map.exact("a"), Some(Position { line: 2, column: 3 }));
        assert_eq!(map.exact("b.c"), Some(Position { line: 3, column: 9 }));
        assert_eq!(
            map.exact("b.c[1]"),
            Some(Position {
                line: 3,
                column: 19
            })
        );
        assert_eq!(
            map.locate("b.c[1].zz"),
            Some(Position {
                line: 3,
                column: 19
            })
        );
        assert_eq!(map.locate("nope"), Some(Position { line: 1, column: 1 }));
    }

    #[test]
    fn parent_paths() {
        assert_eq!(parent_path("a.b[2]"), "a.b");
        assert_eq!(parent_path("a.b"), "a");
        assert_eq!(parent_path("a"), "");
    }
}

//! Places in the input's text (a byte offset as line and column) and the repair as SARIF
//! replacements of whole lines.

use super::types::{ArtifactChange, ArtifactLocation, Content, Region, Replacement};

/// A text read as lines, each with its line break: what turns byte offsets into lines and
/// columns (columns count characters, from 1).
pub(super) struct Lines<'a> {
    text: &'a str,
    /// The byte offset where each line starts.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Lines<'a> {
        let starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Lines { text, starts }
    }

    /// The text's length in bytes.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// The line (from 1) and column (from 1, in characters) of byte `offset` (at most the
    /// text's length; inside a character: that character's).
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let column = self
            .text
            .get(start..)
            .map_or(0, |rest| rest.char_indices().take_while(|(i, _)| start + i < offset).count());
        (line, column + 1)
    }

    /// The region of the bytes `start..end` cut at the end of the line `start` is on (a
    /// statement that holds a block spans many lines: its first line names it).
    pub fn region(&self, start: usize, end: usize) -> Region {
        let line_end = self.text.get(start..).and_then(|rest| rest.find('\n')).map_or(self.text.len(), |i| start + i);
        let line_end = line_end.min(self.text.len());
        let end = end.clamp(start.min(line_end), line_end);
        let (start_line, start_column) = self.position(start);
        let (end_line, end_column) = self.position(end);
        Region { start_line, start_column, end_line, end_column }
    }
}

/// The position where line `i` of `lines` (from 0, each with its line break) starts; for `i`
/// past the last line, the end of the text.
fn line_start(lines: &[&str], i: usize) -> (usize, usize) {
    if i < lines.len() {
        return (i + 1, 1);
    }
    match lines.last() {
        None => (1, 1),
        Some(last) if last.ends_with('\n') => (lines.len() + 1, 1),
        Some(last) => (lines.len(), last.chars().count() + 1),
    }
}

/// The change from `old` to `new` as replacements of whole lines of `old` (each region runs
/// from the start of its first line to the start of the line after its last, so that its
/// line breaks go with it; an insertion's region is empty), in the artifact named `uri`.
/// `None` when the texts are equal.
pub(super) fn artifact_change(uri: &str, old: &str, new: &str) -> Option<ArtifactChange> {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let replacements: Vec<Replacement> = crate::diff::hunks(&a, &b)
        .into_iter()
        .map(|h| {
            let (start_line, start_column) = line_start(&a, h.old.start);
            let (end_line, end_column) = line_start(&a, h.old.end);
            Replacement {
                deleted_region: Region { start_line, start_column, end_line, end_column },
                inserted_content: Content { text: b[h.new].concat() },
            }
        })
        .collect();
    (!replacements.is_empty())
        .then(|| ArtifactChange { artifact_location: ArtifactLocation { uri: uri.to_owned() }, replacements })
}

/// Applies `change`'s replacements to `old` as a reader of SARIF does (regions of lines and
/// columns, from the last to the first).
#[cfg(test)]
pub(super) fn apply(old: &str, change: &ArtifactChange) -> String {
    let lines = Lines::new(old);
    let offset = |line: usize, column: usize| {
        let start = lines.starts.get(line - 1).copied().unwrap_or(old.len());
        old[start..].char_indices().nth(column - 1).map_or(old.len(), |(i, _)| start + i)
    };
    let mut text = old.to_owned();
    for r in change.replacements.iter().rev() {
        let d = r.deleted_region;
        text.replace_range(
            offset(d.start_line, d.start_column)..offset(d.end_line, d.end_column),
            &r.inserted_content.text,
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{apply, artifact_change, Lines};

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        let lines = Lines::new("ab\nçd\n");
        assert_eq!(lines.position(0), (1, 1));
        assert_eq!(lines.position(3), (2, 1));
        assert_eq!(lines.position(5), (2, 2), "ç is one column of two bytes");
        let r = lines.region(0, 6);
        assert_eq!((r.start_line, r.start_column, r.end_line, r.end_column), (1, 1, 1, 3), "cut at the line's end");
    }

    #[test]
    fn replacements_rebuild_the_new_text() {
        for (old, new) in [
            ("x\nA\nB\nC\ny\n", "x\nB\nC\nA\ny\n"),
            ("a\nb", "a\nc"),
            ("a\n", "a\nb\n"),
            ("a\nb\n", "b\n"),
            ("", "a\n"),
            ("thread t {\n  x := 1;\n}\n", "thread t {\n  atomic {\n    x := 1;\n  }\n}\n"),
        ] {
            let change = artifact_change("f.cw", old, new).expect("a change");
            assert_eq!(apply(old, &change), new, "{old:?} -> {new:?}");
        }
        assert!(artifact_change("f.cw", "a\n", "a\n").is_none());
    }
}

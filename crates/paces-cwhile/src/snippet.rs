//! The one source line a rendered diagnostic shows: shortened around the error, with control
//! characters escaped, so that neither a huge line nor terminal escapes in a file reach the
//! terminal.

use std::ops::Range;

use codespan_reporting::files::{Error, Files};

use crate::ir::Span;

/// The most characters of a source line a snippet shows (escapes count as written).
pub(crate) const MAX_LINE_CHARS: usize = 100;

/// The most characters of a message, label or note (longer ones end in `…`).
pub(crate) const MAX_TEXT_CHARS: usize = 200;

/// What marks a shortened line or text.
const ELLIPSIS: &str = "…";

/// The source line around one diagnostic's primary range, ready for the renderer: the file
/// holds only this line, and reports the line and column the error has in the real file.
pub(crate) struct Snippet<'n> {
    name: &'n str,
    text: String,
    line: usize,
    col: usize,
    primary: Range<usize>,
}

impl<'n> Snippet<'n> {
    /// The snippet of `primary` in `source`; `line` and `col` are its real 1-based position.
    pub(crate) fn new(name: &'n str, source: &str, primary: Span, (line, col): (usize, usize)) -> Snippet<'n> {
        let start = clamp(source, primary.start as usize);
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[start..].find('\n').map_or(source.len(), |i| start + i);
        let end = clamp(source, (primary.end as usize).clamp(start, line_end));
        let (text, primary) = window(&source[line_start..line_end], start - line_start, end - line_start);
        Snippet { name, text, line, col, primary }
    }

    /// The primary range within the snippet's text.
    pub(crate) fn primary(&self) -> Range<usize> {
        self.primary.clone()
    }
}

impl<'a> Files<'a> for Snippet<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, (): (), _byte_index: usize) -> Result<usize, Error> {
        Ok(0)
    }

    fn line_number(&'a self, (): (), line_index: usize) -> Result<usize, Error> {
        Ok(self.line + line_index)
    }

    fn column_number(&'a self, (): (), _line_index: usize, byte_index: usize) -> Result<usize, Error> {
        // Only the primary range is ever located; columns elsewhere are relative to it.
        let at = byte_index.min(self.text.len());
        let from = self.primary.start.min(at);
        let to = self.primary.start.max(at);
        let between = self.text.get(from..to).map_or(0, |s| s.chars().count());
        Ok(if at >= self.primary.start { self.col + between } else { self.col.saturating_sub(between) })
    }

    fn line_range(&'a self, (): (), line_index: usize) -> Result<Range<usize>, Error> {
        match line_index {
            0 => Ok(0..self.text.len()),
            _ => Err(Error::LineTooLarge { given: line_index, max: 0 }),
        }
    }
}

/// How one character of a line is shown: control characters and the characters that
/// reorder text (bidirectional overrides) are escaped; a tab stays, the renderer expands it.
fn shown(c: char) -> Option<String> {
    let reorders =
        matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    (reorders || (c.is_control() && c != '\t')).then(|| c.escape_unicode().to_string())
}

/// The shown form of `line`, cut to [`MAX_LINE_CHARS`] around the byte range `start..end`,
/// and that range within the result.
fn window(line: &str, start: usize, end: usize) -> (String, Range<usize>) {
    let pieces: Vec<(usize, String)> =
        line.char_indices().map(|(i, c)| (i, shown(c).unwrap_or_else(|| c.to_string()))).collect();
    let width = |p: &[(usize, String)]| p.iter().map(|(_, s)| s.chars().count()).sum::<usize>();
    let first = pieces.partition_point(|(i, _)| *i < start);
    let (lo, hi) = if width(&pieces) <= MAX_LINE_CHARS { (0, pieces.len()) } else { visible(&pieces, first) };
    let mut text = String::new();
    if lo > 0 {
        text.push_str(ELLIPSIS);
    }
    let (mut from, mut to) = (None, None);
    for (i, s) in &pieces[lo..hi] {
        if from.is_none() && *i >= start {
            from = Some(text.len());
        }
        if to.is_none() && *i >= end {
            to = Some(text.len());
        }
        text.push_str(s);
    }
    let from = from.unwrap_or(text.len());
    let to = to.unwrap_or(text.len()).max(from);
    if hi < pieces.len() {
        text.push_str(ELLIPSIS);
    }
    (text, from..to)
}

/// The pieces shown of a line too long to show whole: a third of the width before the piece
/// `first` where the error starts, the rest after it.
fn visible(pieces: &[(usize, String)], first: usize) -> (usize, usize) {
    let mut lo = first;
    let mut used = 0;
    while lo > 0 && used + pieces[lo - 1].1.chars().count() <= MAX_LINE_CHARS / 3 {
        lo -= 1;
        used += pieces[lo].1.chars().count();
    }
    let mut hi = first;
    while hi < pieces.len() && used + pieces[hi].1.chars().count() <= MAX_LINE_CHARS {
        used += pieces[hi].1.chars().count();
        hi += 1;
    }
    (lo, hi)
}

/// A message, label or note as shown: control characters escaped, at most
/// [`MAX_TEXT_CHARS`] characters.
pub(crate) fn text(s: &str) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n == MAX_TEXT_CHARS {
            out.push_str(ELLIPSIS);
            break;
        }
        match shown(c) {
            Some(e) => out.push_str(&e),
            None => out.push(c),
        }
    }
    out
}

/// The nearest character boundary at or before `offset`, within `source`.
pub(crate) fn clamp(source: &str, offset: usize) -> usize {
    let mut offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snippet(line: &str, start: usize, end: usize) -> (String, Range<usize>) {
        window(line, start, end)
    }

    #[test]
    fn a_short_line_is_shown_whole() {
        assert_eq!(snippet("x := 1;", 5, 6), ("x := 1;".to_owned(), 5..6));
    }

    #[test]
    fn a_long_line_is_cut_around_the_error() {
        let line = format!("{}@{}", "a".repeat(10_000), "b".repeat(10_000));
        let (text, range) = snippet(&line, 10_000, 10_001);
        assert_eq!(&text[range], "@");
        assert!(text.starts_with(ELLIPSIS) && text.ends_with(ELLIPSIS), "{text}");
        assert!(text.chars().count() <= MAX_LINE_CHARS + 2, "{text}");
    }

    #[test]
    fn control_characters_are_escaped() {
        let (text, range) = snippet("x := \u{1b}[31m;\u{202e}", 5, 6);
        assert_eq!(text, "x := \\u{1b}[31m;\\u{202e}");
        assert_eq!(&text[range], "\\u{1b}");
    }

    #[test]
    fn long_texts_are_cut() {
        let long = text(&"y".repeat(1_000));
        assert_eq!(long.chars().count(), MAX_TEXT_CHARS + 1);
        assert_eq!(text("a\u{7}b"), "a\\u{7}b");
    }
}

//! Spellings of GCC's C that the C parser does not know, rewritten in place before it reads
//! the text (every offset kept): `$` in identifiers and the `__thread` keyword. Only code is
//! rewritten: string and character literals and comments keep their text.

use std::collections::{BTreeMap, BTreeSet};

/// `text` with each `__thread` keyword written `static  ` (the same length), and where each was.
pub(super) fn without_thread_keyword(mut text: String) -> (String, Vec<usize>) {
    const WORD: &str = "__thread";
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let code = code_mask(&text);
    let mut at = Vec::new();
    let mut from = 0;
    while let Some(k) = text[from..].find(WORD).map(|k| k + from) {
        let end = k + WORD.len();
        let bytes = text.as_bytes();
        let alone = (k == 0 || !word(bytes[k - 1])) && bytes.get(end).is_none_or(|b| !word(*b));
        if alone && code[k] {
            text.replace_range(k..end, "static  ");
            at.push(k);
        }
        from = end;
    }
    (text, at)
}

/// `text` with each `$` in an identifier (a GCC extension SV-COMP's generated tasks use, as in
/// `main$tmp_guard0`) written `_`, which keeps every offset; the offset and spelling of an
/// identifier whose new spelling is already another identifier of the text.
pub(super) fn without_dollars(text: &str) -> Result<String, (usize, String)> {
    if !text.contains('$') {
        return Ok(text.to_owned());
    }
    let code = code_mask(text);
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut names = BTreeSet::new();
    let mut dollars = Vec::new();
    let mut at = 0;
    for piece in text.split(|c: char| !word(c)) {
        if !piece.is_empty() && !piece.starts_with(|c: char| c.is_ascii_digit()) && code[at] {
            if piece.contains('$') {
                dollars.push((at, piece));
            } else {
                names.insert(piece);
            }
        }
        at += piece.len() + text[at + piece.len()..].chars().next().map_or(0, char::len_utf8);
    }
    let mut spelled: BTreeMap<String, &str> = BTreeMap::new();
    let mut out = text.to_owned();
    for &(at, name) in &dollars {
        let new = name.replace('$', "_");
        let other = spelled.insert(new.clone(), name).is_some_and(|o| o != name);
        if other || names.contains(new.as_str()) {
            return Err((at, name.to_owned()));
        }
        out.replace_range(at..at + name.len(), &new);
    }
    Ok(out)
}

/// For each byte of `text`, whether it is code: outside string and character literals (with
/// their escapes) and comments.
fn code_mask(text: &str) -> Vec<bool> {
    let b = text.as_bytes();
    let mut mask = vec![true; b.len() + 1];
    let mut i = 0;
    while i < b.len() {
        let end = match (b[i], b.get(i + 1)) {
            (b'"' | b'\'', _) => literal_end(b, i),
            (b'/', Some(b'/')) => b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |k| i + k),
            (b'/', Some(b'*')) => text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2),
            _ => {
                i += 1;
                continue;
            }
        };
        mask[i..end].iter_mut().for_each(|m| *m = false);
        i = end.max(i + 1);
    }
    mask
}

/// The end (past the closing quote) of the literal opened at `start`, or the line's end for
/// one left open.
fn literal_end(b: &[u8], start: usize) -> usize {
    let quote = b[start];
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_keywords_in_strings_and_comments_are_left_alone() {
        let text = "__thread int a; char *s = \"__thread\"; // __thread\nint b; /* __thread */ __thread int c;";
        let (out, at) = without_thread_keyword(text.to_owned());
        assert_eq!(at, vec![0, text.rfind("__thread int c").unwrap()]);
        assert!(out.contains("\"__thread\"") && out.contains("// __thread") && out.contains("/* __thread */"), "{out}");
        assert_eq!(out.matches("static  ").count(), 2, "{out}");
        assert_eq!(out.len(), text.len());
    }

    #[test]
    fn dollars_in_literals_are_left_alone_and_do_not_clash() {
        let text = "int main$x; int y = '$'; char *s = \"main$x a$b\";";
        let out = without_dollars(text).expect("no clash");
        assert_eq!(out, "int main_x; int y = '$'; char *s = \"main$x a$b\";");
        // A string holding the new spelling is no identifier of the program.
        assert!(without_dollars("int a$b; char *s = \"a_b\";").is_ok());
        assert_eq!(without_dollars("int a$b; int a_b;"), Err((4, "a$b".to_owned())));
    }
}

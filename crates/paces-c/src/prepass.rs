//! What the C parser cannot take as written: comments, `#define` lines, function definitions
//! without a return type and the condition `*`. The pass keeps every byte offset of the
//! source, except for the `int ` it inserts before a definition without a return type, which
//! [`Prepared::original`] maps back.

use paces_cwhile::{Diagnostic, Span};

/// The deepest nesting of brackets the pass hands to the parser (the parser is recursive).
pub(crate) const MAX_NESTING: usize = 200;

/// An object-like macro: `#define NAME VALUE`.
#[derive(Clone, Debug)]
pub(crate) struct Define {
    pub(crate) name: String,
    pub(crate) value: String,
    /// The whole directive.
    pub(crate) span: Span,
}

/// The text for the parser and what the pass took out of it.
#[derive(Debug, Default)]
pub(crate) struct Prepared {
    /// The source with comments and directives blanked, `int ` inserted before definitions
    /// without a return type and `*` conditions written `_`.
    pub(crate) text: String,
    /// Where `int ` was inserted, as offsets in [`Prepared::text`], ascending.
    inserts: Vec<usize>,
    /// The object-like macros, in source order.
    pub(crate) defines: Vec<Define>,
    /// Offsets (in the source) of `*` conditions, now the identifier `_`.
    pub(crate) stars: Vec<u32>,
}

const INSERT: &str = "int ";

/// Words that start a declaration with a type: `void (*hook)()` has its return type.
const TYPE_WORDS: &[&str] =
    &["void", "int", "char", "short", "long", "signed", "unsigned", "_Bool", "static", "extern", "const", "volatile"];

impl Prepared {
    /// The source offset of an offset of [`Prepared::text`].
    pub(crate) fn original(&self, offset: usize) -> u32 {
        let mut shift = 0;
        for &at in &self.inserts {
            if offset >= at + INSERT.len() {
                shift += INSERT.len();
            } else if offset >= at {
                return u32::try_from(at - shift).unwrap_or(u32::MAX);
            }
        }
        u32::try_from(offset - shift).unwrap_or(u32::MAX)
    }

    /// A source span of a span of [`Prepared::text`].
    pub(crate) fn span(&self, start: usize, end: usize) -> Span {
        Span { start: self.original(start), end: self.original(end).max(self.original(start)) }
    }
}

fn err(code: &'static str, message: impl Into<String>, start: usize, end: usize, label: &str) -> Diagnostic {
    let s = |o: usize| u32::try_from(o).unwrap_or(u32::MAX);
    Diagnostic {
        code,
        message: message.into(),
        primary: Span { start: s(start), end: s(end) },
        label: label.into(),
        notes: Vec::new(),
    }
}

/// A significant token of the scan: what the definition check looks at.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tok {
    Ident,
    Punct(u8),
}

/// Prepares `source` for the parser.
pub(crate) fn prepare(source: &str) -> Result<Prepared, Diagnostic> {
    let b = source.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len() + 64);
    let mut p = Prepared::default();
    let mut depth = 0usize;
    // The last two significant tokens and where the last identifier starts in `out`.
    let mut prev: [Option<Tok>; 2] = [None, None];
    let mut ident_at_out = 0usize;
    let mut ident = "";
    let mut line_start = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if b[i..].starts_with(b"//") {
            let end = b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |k| i + k);
            out.extend(std::iter::repeat_n(b' ', end - i));
            i = end;
            continue;
        }
        if b[i..].starts_with(b"/*") {
            let Some(k) = source[i + 2..].find("*/") else {
                return Err(err("C0003", "unterminated comment", i, i + 2, "this comment has no `*/`"));
            };
            let end = i + 2 + k + 2;
            out.extend(b[i..end].iter().map(|&x| if x == b'\n' { b'\n' } else { b' ' }));
            i = end;
            continue;
        }
        if c == b'#' && line_start {
            let end = b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |k| i + k);
            if b[end.saturating_sub(1).max(i)..end].ends_with(b"\\") {
                return Err(err("C0004", "a directive continued on the next line is not supported", i, end, "here"));
            }
            p.defines.push(define(&source[i..end], i)?);
            out.extend(std::iter::repeat_n(b' ', end - i));
            i = end;
            continue;
        }
        if c == b'\n' {
            line_start = true;
            out.push(c);
            i += 1;
            continue;
        }
        if !c.is_ascii_whitespace() {
            line_start = false;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let end = b[i..].iter().position(|x| !(x.is_ascii_alphanumeric() || *x == b'_')).map_or(b.len(), |k| i + k);
            ident_at_out = out.len();
            ident = &source[i..end];
            out.extend_from_slice(&b[i..end]);
            prev = [prev[1], Some(Tok::Ident)];
            i = end;
            continue;
        }
        if c.is_ascii_digit() {
            let end = b[i..].iter().position(|x| !(x.is_ascii_alphanumeric() || *x == b'_')).map_or(b.len(), |k| i + k);
            out.extend_from_slice(&b[i..end]);
            prev = [prev[1], Some(Tok::Punct(b'0'))];
            i = end;
            continue;
        }
        if c == b'('
            && depth == 0
            && prev[1] == Some(Tok::Ident)
            && matches!(prev[0], None | Some(Tok::Punct(b';' | b'}')))
            && !TYPE_WORDS.contains(&ident)
        {
            // `name(` opening a declaration: a definition without a return type.
            out.splice(ident_at_out..ident_at_out, INSERT.bytes());
            p.inserts.push(ident_at_out);
        }
        if c == b'*' && prev[1] == Some(Tok::Punct(b'(')) && next_significant(b, i + 1) == Some(b')') {
            p.stars.push(u32::try_from(i).unwrap_or(u32::MAX));
            out.push(b'_');
            prev = [prev[1], Some(Tok::Ident)];
            i += 1;
            continue;
        }
        match c {
            b'(' | b'{' | b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(err(
                        "C0006",
                        format!("brackets nested deeper than {MAX_NESTING} levels"),
                        i,
                        i + 1,
                        "too deep here",
                    ));
                }
            }
            b')' | b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            prev = [prev[1], Some(Tok::Punct(c))];
        }
        out.push(c);
        i += 1;
    }
    // Only whole ASCII runs were copied or blanked, so the bytes are still UTF-8.
    p.text = String::from_utf8(out).unwrap_or_default();
    Ok(p)
}

fn next_significant(b: &[u8], from: usize) -> Option<u8> {
    b[from..].iter().copied().find(|c| !c.is_ascii_whitespace())
}

/// Reads one directive: only `#define NAME VALUE` is in the dialect.
fn define(line: &str, at: usize) -> Result<Define, Diagnostic> {
    let end = at + line.len();
    let rest = line[1..].trim_start();
    let Some(body) = rest.strip_prefix("define") else {
        let word: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        return Err(err(
            "C0004",
            format!("the directive `#{word}` is outside the dialect (only `#define NAME VALUE` is read)"),
            at,
            end,
            "not supported",
        ));
    };
    let body = body.trim_start();
    let name: String = body.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(err("C0004", "`#define` needs a macro name", at, end, "no name here"));
    }
    let after = &body[name.len()..];
    if after.starts_with('(') {
        return Err(err(
            "C0004",
            format!("the function-like macro `{name}` is outside the dialect"),
            at,
            end,
            "not supported",
        ));
    }
    let value = strip_line_comment(after).trim().to_owned();
    Ok(Define { name, value, span: Span { start: at as u32, end: end as u32 } })
}

fn strip_line_comment(s: &str) -> &str {
    let cut = [s.find("//"), s.find("/*")].into_iter().flatten().min();
    cut.map_or(s, |k| &s[..k])
}

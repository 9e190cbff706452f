//! What the C parser cannot take as written: comments, `#define` lines, function definitions
//! without a return type and the condition `*`. The pass keeps every byte offset of the
//! source, except for the `int ` it inserts before a definition without a return type, which
//! [`Prepared::original`] maps back.

use paces_cwhile::{Diagnostic, Span};

/// The deepest nesting of brackets the pass hands to the parser (the parser is recursive).
pub(crate) const MAX_NESTING: usize = 200;

/// The most operators one statement (up to a `;`, `{` or `}`) may hold, counting a run of
/// operator characters with no operand between as one: a chain of binary operators is a
/// tree as deep as it is long, which the parser's tree takes recursively to free.
pub(crate) const MAX_OPERATORS: usize = 20_000;

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

/// Operators seen in the current statement: runs of operator characters, the characters of
/// the current run (a run of prefix operators such as `- - - x` is as deep as it is long),
/// and assignments and `?` (which nest to the right). The parser is recursive.
#[derive(Default)]
struct Operators {
    runs: usize,
    in_a_row: usize,
    to_the_right: usize,
}

impl Operators {
    /// An identifier or a number: the run of operators ends.
    fn operand(&mut self) {
        self.in_a_row = 0;
    }

    /// The punctuation byte at offset `i` of `b`; an error when it passes a bound.
    fn punct(&mut self, b: &[u8], i: usize) -> Result<(), Diagnostic> {
        let c = b[i];
        match c {
            b';' | b'{' | b'}' => *self = Operators::default(),
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'!' | b'&' | b'|' | b'^' | b'~' | b'?' | b':' => {
                if self.in_a_row == 0 {
                    self.runs += 1;
                }
                self.in_a_row += 1;
                if c == b'?' || is_assignment(b, i) {
                    self.to_the_right += 1;
                }
                self.check(i)?;
            }
            _ => self.in_a_row = 0,
        }
        Ok(())
    }

    fn check(&self, i: usize) -> Result<(), Diagnostic> {
        let message = if self.in_a_row > MAX_NESTING {
            format!("more than {MAX_NESTING} operator characters in a row")
        } else if self.to_the_right > MAX_NESTING {
            format!("more than {MAX_NESTING} assignments or `?` in one statement")
        } else if self.runs > MAX_OPERATORS {
            let mut d = err("C0009", format!("a statement with more than {MAX_OPERATORS} operators"), i, i + 1, "here");
            d.notes.push("split the expression with intermediate variables".to_owned());
            return Err(d);
        } else {
            return Ok(());
        };
        Err(err("C0006", message, i, i + 1, "too many here"))
    }
}

/// Whether the `=` at `i` assigns (`=`, `+=`, ...), as opposed to `==`, `<=`, `>=`, `!=`.
fn is_assignment(b: &[u8], i: usize) -> bool {
    let before = i.checked_sub(1).map(|k| b[k]);
    b[i] == b'=' && b.get(i + 1) != Some(&b'=') && !matches!(before, Some(b'=' | b'<' | b'>' | b'!'))
}

/// Prepares `source` for the parser.
pub(crate) fn prepare(source: &str) -> Result<Prepared, Diagnostic> {
    let b = source.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len() + 64);
    let mut p = Prepared::default();
    let mut depth = 0usize;
    let mut operators = Operators::default();
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
            operators.operand();
            out.extend_from_slice(&b[i..end]);
            prev = [prev[1], Some(Tok::Ident)];
            i = end;
            continue;
        }
        if c.is_ascii_digit() {
            let end = b[i..].iter().position(|x| !(x.is_ascii_alphanumeric() || *x == b'_')).map_or(b.len(), |k| i + k);
            operators.operand();
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
            operators.punct(b, i)?;
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

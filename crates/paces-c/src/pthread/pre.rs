//! The preprocessor of pthread C: `#include`s of standard headers dropped, object- and
//! function-like `#define`s expanded, `#ifdef`/`#ifndef`/`#if 0`/`#if 1` kept or dropped; by the
//! system `cpp` or by this module's own handling. Either way the text that comes out keeps a map
//! from each of its lines to the source line it came from, so every diagnostic points into the
//! source.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use paces_cwhile::{Diagnostic, Span};

use super::diag::error;

/// Which preprocessor runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Preprocessor {
    /// The system `cpp` when one runs, else [`Preprocessor::Own`].
    #[default]
    Auto,
    /// The system `cpp` (an error when it cannot be run).
    System,
    /// This crate's own handling of the directives SV-COMP's files use.
    Own,
}

/// Preprocessed text and where each of its lines comes from.
pub(crate) struct Prepared {
    /// The text the C parser reads.
    pub(crate) text: String,
    /// The start offset in `text` of each of its lines.
    starts: Vec<usize>,
    /// For each line of `text`, the offset in the source of the line it comes from.
    origin: Vec<usize>,
    /// The source's length.
    len: usize,
}

/// The types of `pthread.h` and `stddef.h` the parser must know as type names, on a line of
/// their own before the program (mapped to its first line).
const PRELUDE: &str = "typedef int pthread_t; typedef int pthread_mutex_t; typedef int pthread_cond_t; \
typedef int pthread_attr_t; typedef int pthread_mutexattr_t; typedef int pthread_condattr_t; typedef int size_t;\n";

/// The exact-width and pointer-sized integer types of `stdint.h` (and `inttypes.h`), as the
/// C types they name on a 64-bit target; the reader then treats each as that type (so
/// `uint64_t` arithmetic is refused as 64-bit `unsigned` arithmetic is).
const STDINT: &str = "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; \
typedef long int64_t; typedef unsigned char uint8_t; typedef unsigned short uint16_t; \
typedef unsigned int uint32_t; typedef unsigned long uint64_t; typedef long intptr_t; \
typedef unsigned long uintptr_t; typedef long intmax_t; typedef unsigned long uintmax_t;";

/// The standard headers a program includes whose types the prelude declares.
#[derive(Clone, Copy, Default)]
struct Headers {
    /// `<stdbool.h>`: `bool` is `_Bool`.
    stdbool: bool,
    /// `<stdint.h>` or `<inttypes.h>`: [`STDINT`].
    stdint: bool,
    /// `<semaphore.h>`: `sem_t` is an integer (`semaphore.rs`).
    semaphore: bool,
}

impl Prepared {
    fn new(body: String, source: &str, lines: &[usize], headers: Headers) -> Self {
        let mut prelude = PRELUDE.trim_end().to_owned();
        // `stdbool.h`'s `bool` (its `true` and `false` are the lowering's constants).
        if headers.stdbool {
            prelude.push_str(" typedef _Bool bool;");
        }
        if headers.semaphore {
            prelude.push_str(" typedef int sem_t;");
        }
        if headers.stdint {
            prelude.push(' ');
            prelude.push_str(STDINT);
        }
        let text = format!("{prelude}\n{body}");
        let src_starts = line_starts(source);
        let starts = line_starts(&text);
        let origin = (0..starts.len())
            .map(|i| {
                let line = if i == 0 { 1 } else { lines.get(i - 1).copied().unwrap_or(1).max(1) };
                src_starts.get(line - 1).copied().unwrap_or(source.len())
            })
            .collect();
        Prepared { text, starts, origin, len: source.len() }
    }

    /// The source offset of an offset of the prepared text: the same column on the line it
    /// came from (at most that line's end).
    pub(crate) fn original(&self, offset: usize, source: &str) -> u32 {
        let line = self.starts.partition_point(|&s| s <= offset).saturating_sub(1);
        let column = offset - self.starts.get(line).copied().unwrap_or(0);
        let start = self.origin.get(line).copied().unwrap_or(self.len).min(self.len);
        let end = source[start..].find('\n').map_or(self.len, |n| start + n);
        let mut at = (start + column).min(end);
        while !source.is_char_boundary(at) {
            at -= 1;
        }
        u32::try_from(at).unwrap_or(u32::MAX)
    }

    /// The source span of a span of the prepared text.
    pub(crate) fn span(&self, start: usize, end: usize, source: &str) -> Span {
        let s = self.original(start, source);
        let e = self.original(end, source).max(s);
        Span { start: s, end: e }
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect()
}

/// Runs the preprocessor `which` on `source`; also says which one ran (`"cpp"` or `"own"`).
pub(crate) fn prepare(
    source: &str,
    which: Preprocessor,
    dir: Option<&Path>,
) -> Result<(Prepared, &'static str), Diagnostic> {
    let mut blanked = Blanked::default();
    blank_includes(source, source, dir, None, &mut blanked)?;
    let (prepared, name) = match which {
        Preprocessor::Own => (own(&blanked, source)?, "own"),
        _ => match system(&blanked, source) {
            Some(p) => (p, "cpp"),
            None if which == Preprocessor::System => {
                return Err(error("C0401", "the system `cpp` could not be run", Span::default(), ""))
            }
            None => (own(&blanked, source)?, "own"),
        },
    };
    limits(&prepared, source)?;
    Ok((prepared, name))
}

/// The most brackets open at once, and operator characters in one statement: the parser and
/// the lowering are recursive, and real programs stay far below both.
const MAX_NESTING: usize = 200;
const MAX_OPERATORS: usize = 500;

/// Refuses text nested deeper than the recursive parser and lowering can take.
fn limits(prepared: &Prepared, source: &str) -> Result<(), Diagnostic> {
    let (mut open, mut operators) = (0usize, 0usize);
    for (i, c) in prepared.text.bytes().enumerate() {
        let too_deep = match c {
            b'(' | b'[' | b'{' => {
                open += 1;
                operators = if c == b'{' { 0 } else { operators };
                open > MAX_NESTING
            }
            b')' | b']' | b'}' => {
                open = open.saturating_sub(1);
                false
            }
            b';' => {
                operators = 0;
                false
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'=' | b'!' | b'&' | b'|' | b'^' | b'~' | b'?' => {
                operators += 1;
                operators > MAX_OPERATORS
            }
            _ => false,
        };
        if too_deep {
            let at = prepared.original(i, source);
            return Err(error(
                "C0405",
                format!("more than {MAX_NESTING} brackets open at once or {MAX_OPERATORS} operators in one statement"),
                Span { start: at, end: at.saturating_add(1) },
                "too deep here",
            ));
        }
    }
    Ok(())
}

/// The text the preprocessor reads: the source with each `#include` of a standard header
/// (`<...>`) blanked (its line kept empty: their declarations are the frontend's built-ins), and
/// each `#include "name"` replaced by the lines of the file `name` in the source's directory
/// (its own includes read the same way); for each line, the source line it comes from (an
/// included line: the `#include`'s).
#[derive(Default)]
struct Blanked {
    text: String,
    /// The 1-based source line of each line of `text`.
    lines: Vec<usize>,
    /// The files included, for the depth and size limits.
    files: usize,
    /// The standard headers some line includes whose types the prelude declares.
    headers: Headers,
}

impl Blanked {
    /// The 1-based source line of the 0-based line `k` of the text.
    fn line(&self, k: usize) -> usize {
        self.lines.get(k).copied().unwrap_or(1)
    }
}

/// The span of the 1-based source line `line` (without its line break).
fn line_span(source: &str, starts: &[usize], line: usize) -> Span {
    let start = starts.get(line.saturating_sub(1)).copied().unwrap_or(source.len());
    let end = source[start..].find('\n').map_or(source.len(), |n| start + n);
    Span { start: start as u32, end: end as u32 }
}

/// The most files one program includes, and the most bytes of text in all.
const MAX_INCLUDES: usize = 64;
const MAX_INCLUDED_BYTES: usize = 1 << 20;

/// Appends `text` (the source itself, or a file it includes from the source line `at`) to
/// `out`, reading its `#include` lines (see [`Blanked`]); `dir`, the directory of the file
/// `text` comes from (`None`: a quoted `#include` is an error).
fn blank_includes(
    text: &str,
    source: &str,
    dir: Option<&Path>,
    at: Option<(usize, Span)>,
    out: &mut Blanked,
) -> Result<(), Diagnostic> {
    let mut offset = 0;
    for (k, line) in text.split_inclusive('\n').enumerate() {
        let here = at.map_or(k + 1, |(l, _)| l);
        let span =
            at.map_or_else(|| Span { start: offset as u32, end: (offset + line.trim_end().len()) as u32 }, |(_, s)| s);
        offset += line.len();
        let t = line.trim_start();
        if let Some(name) = t.strip_prefix('#').map(str::trim_start).and_then(|r| r.strip_prefix("include")) {
            let name = name.trim();
            if !name.starts_with('<') {
                include(name, source, dir, (here, span), out)?;
            } else if let Some((header, _)) = name.strip_prefix('<').and_then(|n| n.split_once('>')) {
                match header.trim() {
                    "stdbool.h" => out.headers.stdbool = true,
                    "stdint.h" | "inttypes.h" => out.headers.stdint = true,
                    "semaphore.h" => out.headers.semaphore = true,
                    _ => {}
                }
            }
            out.text.push('\n');
            out.lines.push(here);
            continue;
        }
        out.text.push_str(line.trim_end_matches('\n'));
        out.text.push('\n');
        out.lines.push(here);
    }
    Ok(())
}

/// The lines of the file a quoted `#include` (its text after the word, `name`) names, appended
/// to `out` as [`blank_includes`] reads them; `at`: the source line and span of the outermost
/// `#include`.
fn include(
    name: &str,
    source: &str,
    dir: Option<&Path>,
    at: (usize, Span),
    out: &mut Blanked,
) -> Result<(), Diagnostic> {
    let file = name.strip_prefix('"').and_then(|n| n.split_once('"')).map(|(n, _)| n);
    let (Some(file), Some(dir)) = (file, dir) else {
        return Err(error(
            "C0402",
            "an `#include` of a file that is not a standard header",
            at.1,
            "only `#include <...>` is read (and dropped), and `#include \"name\"` of a file next to the program's",
        ));
    };
    let path = dir.join(file);
    out.files += 1;
    let text = std::fs::read_to_string(&path).map_err(|e| {
        error("C0402", format!("an `#include` of `{file}`, which cannot be read: {e}"), at.1, "included here")
    })?;
    if out.files > MAX_INCLUDES || out.text.len() + text.len() > MAX_INCLUDED_BYTES {
        return Err(error(
            "C0402",
            format!("more than {MAX_INCLUDES} files or {MAX_INCLUDED_BYTES} bytes included"),
            at.1,
            "included here",
        ));
    }
    let inner = path.parent().map(Path::to_path_buf);
    blank_includes(&text, source, inner.as_deref(), Some(at), out)
}

/// The system `cpp`: no standard include directories, no predefined macros; its line markers
/// give each output line its source line. `None` when it cannot run or fails.
fn system(blanked: &Blanked, source: &str) -> Option<Prepared> {
    let text = blanked.text.as_str();
    let mut child = Command::new("cpp")
        .args(["-nostdinc", "-undef", "-std=gnu11", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = text.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    if !output.status.success() {
        return None;
    }
    let raw = String::from_utf8(output.stdout).ok()?;
    let mut out = String::with_capacity(raw.len());
    let mut lines = Vec::new();
    let (mut line, mut ours) = (1usize, true);
    for l in raw.lines() {
        if let Some(marker) = l.strip_prefix("# ") {
            let mut words = marker.split_whitespace();
            let n = words.next().and_then(|w| w.parse::<usize>().ok());
            let file = words.next().unwrap_or("");
            if let Some(n) = n {
                ours = file == "\"<stdin>\"";
                line = n;
                out.push('\n');
                lines.push(1);
                continue;
            }
        }
        out.push_str(if ours { l } else { "" });
        out.push('\n');
        lines.push(if ours { blanked.line(line.wrapping_sub(1)) } else { 1 });
        line += 1;
    }
    Some(Prepared::new(out, source, &lines, blanked.headers))
}

/// A macro: its parameters (`None`: object-like) and its body.
struct Macro {
    params: Option<Vec<String>>,
    body: String,
}

/// This crate's preprocessor: comments blanked, directives read, macros expanded on each line.
fn own(blanked: &Blanked, source: &str) -> Result<Prepared, Diagnostic> {
    let text = blank_comments(&blanked.text).ok_or_else(|| {
        error("C0403", "an unterminated comment", Span { start: 0, end: 0 }, "a `/*` without its `*/`")
    })?;
    let raw: Vec<&str> = text.split('\n').collect();
    let src_starts = line_starts(source);
    let mut macros: BTreeMap<String, Macro> = BTreeMap::new();
    // The conditional stack: whether each open `#if...` keeps its lines.
    let mut keep: Vec<bool> = Vec::new();
    let mut out = String::with_capacity(text.len());
    let mut lines = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let start = i;
        let mut logical = raw[i].to_owned();
        while logical.ends_with('\\') && i + 1 < raw.len() {
            logical.pop();
            i += 1;
            logical.push(' ');
            logical.push_str(raw[i]);
        }
        i += 1;
        let span = line_span(source, &src_starts, blanked.line(start));
        let active = keep.iter().all(|&k| k);
        let t = logical.trim_start();
        if let Some(d) = t.strip_prefix('#') {
            let d = d.trim_start();
            let (word, rest) = d.split_at(d.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(d.len()));
            let rest = rest.trim();
            match word {
                "" => {}
                "define" if active => define(rest, span, &mut macros)?,
                "undef" if active => {
                    macros.remove(rest);
                }
                "ifdef" => keep.push(macros.contains_key(rest)),
                "ifndef" => keep.push(!macros.contains_key(rest)),
                "if" => match rest {
                    "0" => keep.push(false),
                    "1" => keep.push(true),
                    _ => {
                        return Err(error(
                            "C0404",
                            "an `#if` other than `#if 0` or `#if 1`",
                            span,
                            "not read by the own preprocessor",
                        ))
                    }
                },
                "else" => match keep.last_mut() {
                    Some(k) => *k = !*k,
                    None => return Err(error("C0404", "`#else` without `#if`", span, "here")),
                },
                "endif" => {
                    if keep.pop().is_none() {
                        return Err(error("C0404", "`#endif` without `#if`", span, "here"));
                    }
                }
                "define" | "undef" | "pragma" | "line" | "error" | "warning" if !active || word == "pragma" => {}
                _ => {
                    return Err(error("C0404", format!("the directive `#{word}`"), span, "not read"));
                }
            }
            for l in start..i {
                out.push('\n');
                lines.push(blanked.line(l));
            }
            continue;
        }
        let expanded = if active { expand(&logical, &macros, span, 0)? } else { String::new() };
        if expanded.len() > MAX_EXPANDED || out.len() + expanded.len() > MAX_PREPARED {
            return Err(too_long(span));
        }
        out.push_str(&expanded);
        out.push('\n');
        lines.push(blanked.line(start));
        for l in start + 1..i {
            out.push('\n');
            lines.push(blanked.line(l));
        }
    }
    if !keep.is_empty() {
        return Err(error("C0404", "an `#if` without its `#endif`", Span::default(), ""));
    }
    Ok(Prepared::new(out, source, &lines, blanked.headers))
}

/// Reads a `#define`'s name, parameters and body.
fn define(rest: &str, span: Span, macros: &mut BTreeMap<String, Macro>) -> Result<(), Diagnostic> {
    let end = rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(rest.len());
    let (name, after) = rest.split_at(end);
    if name.is_empty() {
        return Err(error("C0404", "a `#define` without a name", span, "here"));
    }
    let (params, body) = if let Some(p) = after.strip_prefix('(') {
        let close = p.find(')').ok_or_else(|| error("C0404", "a macro's parameters without `)`", span, "here"))?;
        let params = p[..close].split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect();
        (Some(params), p[close + 1..].trim())
    } else {
        (None, after.trim())
    };
    if body.contains('#') {
        return Err(error("C0404", "a macro using `#` or `##`", span, "not read by the own preprocessor"));
    }
    macros.insert(name.to_owned(), Macro { params, body: body.to_owned() });
    Ok(())
}

/// The most text the own preprocessor makes, of one line and in all: macros whose bodies
/// repeat their arguments grow exponentially with their nesting.
const MAX_EXPANDED: usize = 1 << 20;
const MAX_PREPARED: usize = 16 << 20;

fn too_long(span: Span) -> Diagnostic {
    error("C0404", "macros that expand to more than 1 MiB on a line or 16 MiB in all", span, "here")
}

/// A function-like macro's body with each parameter replaced by its argument, in brackets.
fn substitute(body: &str, params: &[String], args: &[String]) -> String {
    let mut with = String::new();
    let b = body.as_bytes();
    let mut p = 0;
    while p < b.len() {
        if b[p].is_ascii_alphabetic() || b[p] == b'_' {
            let mut q = p;
            while q < b.len() && (b[q].is_ascii_alphanumeric() || b[q] == b'_') {
                q += 1;
            }
            let w = &body[p..q];
            match params.iter().position(|x| x == w) {
                Some(n) => {
                    with.push('(');
                    with.push_str(args[n].trim());
                    with.push(')');
                }
                None => with.push_str(w),
            }
            p = q;
        } else {
            let ch = body[p..].chars().next().unwrap_or(' ');
            with.push(ch);
            p += ch.len_utf8();
        }
    }
    with
}

/// Expands the macros of one logical line (macros inside a macro's expansion too, a macro never
/// inside its own expansion: depth bounded).
fn expand(line: &str, macros: &BTreeMap<String, Macro>, span: Span, depth: usize) -> Result<String, Diagnostic> {
    if depth > 32 {
        return Err(error("C0404", "macros nested more than 32 deep", span, "here"));
    }
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < bytes.len() {
        if out.len() > MAX_EXPANDED {
            return Err(too_long(span));
        }
        let c = bytes[i];
        if c == b'"' || c == b'\'' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != c {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            let j = (j + 1).min(bytes.len());
            out.push_str(&line[i..j]);
            i = j;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                j += 1;
            }
            let word = &line[i..j];
            match macros.get(word) {
                Some(Macro { params: None, body }) => {
                    out.push_str(&expand(body, macros, span, depth + 1)?);
                    if out.len() > MAX_EXPANDED {
                        return Err(too_long(span));
                    }
                    i = j;
                }
                Some(Macro { params: Some(params), body }) => {
                    let k = j + line[j..].len() - line[j..].trim_start().len();
                    if bytes.get(k) != Some(&b'(') {
                        out.push_str(word);
                        i = j;
                        continue;
                    }
                    let (args, next) = arguments(line, k + 1).ok_or_else(|| {
                        error(
                            "C0404",
                            format!("the arguments of macro `{word}` do not close on its line"),
                            span,
                            "here",
                        )
                    })?;
                    if args.len() != params.len() && !(params.is_empty() && args.len() == 1 && args[0].is_empty()) {
                        return Err(error(
                            "C0404",
                            format!("macro `{word}` takes {} arguments", params.len()),
                            span,
                            "here",
                        ));
                    }
                    let with = substitute(body, params, &args);
                    if with.len() > MAX_EXPANDED {
                        return Err(too_long(span));
                    }
                    out.push_str(&expand(&with, macros, span, depth + 1)?);
                    i = next;
                }
                None => {
                    out.push_str(word);
                    i = j;
                }
            }
        } else {
            let ch = line[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    Ok(out)
}

/// The comma-separated arguments of a macro call whose `(` ends before `from`, and the offset
/// after its `)`.
fn arguments(line: &str, from: usize) -> Option<(Vec<String>, usize)> {
    let mut depth = 0usize;
    let mut args = vec![String::new()];
    for (i, ch) in line[from..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' if depth == 0 => return Some((args, from + i + 1)),
            ')' => depth -= 1,
            ',' if depth == 0 => {
                args.push(String::new());
                continue;
            }
            _ => {}
        }
        args.last_mut()?.push(ch);
    }
    None
}

/// The text with every comment replaced by spaces (newlines kept); `None` for an unterminated
/// `/*`.
fn blank_comments(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let start = i;
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                if i + 1 >= b.len() {
                    return None;
                }
                i += 2;
                for c in &mut out[start..i] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).ok()
}

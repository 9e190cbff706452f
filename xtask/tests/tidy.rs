//! Tidy limits, checked (in the spirit of rust-analyzer's tidy tests): every source file under
//! `crates/*/src` at most [`FILE_LIMIT`] lines, every function at most [`FN_LIMIT`] lines, and no
//! files of a crate importing each other in a circle of any length. The exceptions are listed in
//! `xtask/tidy-allow.txt` with their size, and the list may only shrink. `docs/ARCHITECTURE.md` ("Tidy limits") states
//! the rules; the scanners are tested on small strings first.
//!
//! The docs are checked here too: the README links every `docs/*.md`, and no doc names a commit
//! or a date.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

mod common;
use common::{root, rust_files};

/// The most lines a source file under `crates/*/src` may have.
const FILE_LIMIT: usize = 800;
/// The most lines a function may have, from its `fn` line to its closing brace, both counted.
const FN_LIMIT: usize = 100;
/// The allow-list, relative to the workspace root.
const ALLOW_LIST: &str = "xtask/tidy-allow.txt";

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The text with comments and the contents of string and character literals blanked out
/// (every character but a line break becomes a space), so that braces, `fn` and `use` inside
/// them are not seen. Lifetimes and labels (`'a`) stay; raw strings (`r#"..."#`) are blanked.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && !raw_prefix_blocked(&chars, i) && raw_string_hashes(&chars, i + 1).is_some() {
            let hashes = raw_string_hashes(&chars, i + 1).unwrap_or(0);
            // `r`, the hashes and the opening quote.
            for _ in 0..hashes + 2 {
                out.push(' ');
            }
            i += hashes + 2;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    for _ in 0..hashes + 1 {
                        out.push(' ');
                    }
                    i += hashes + 1;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            if i < chars.len() {
                out.push('"');
                i += 1;
            }
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal: `'x'`, `'{'` or an escape such as `'\''` or `'\u{7b}'`.
            out.push('\'');
            i += 1;
            if chars.get(i) == Some(&'\\') {
                out.push_str("  ");
                i += 2;
            }
            while i < chars.len() && chars[i] != '\'' {
                blank(&mut out, chars[i]);
                i += 1;
            }
            if i < chars.len() {
                out.push('\'');
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether the `r` at `i` is part of an identifier rather than a raw-string prefix (`r"`,
/// `br"`, `cr"`).
fn raw_prefix_blocked(chars: &[char], i: usize) -> bool {
    if i == 0 || !is_ident_char(chars[i - 1]) {
        return false;
    }
    let byte_or_c = matches!(chars[i - 1], 'b' | 'c');
    !(byte_or_c && (i < 2 || !is_ident_char(chars[i - 2])))
}

/// The number of `#` of a raw string whose hashes start at `i`, if a quote follows them.
fn raw_string_hashes(chars: &[char], i: usize) -> Option<usize> {
    let hashes = chars[i.min(chars.len())..].iter().take_while(|&&c| c == '#').count();
    (chars.get(i + hashes) == Some(&'"')).then_some(hashes)
}

/// A function found in a file: its name, the line of its `fn` (1-based) and its length in lines.
#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// Every function with a body in `text`, in order of their `fn` lines. A function is the word
/// `fn` followed by a name; its length runs from the `fn` line to the line of the brace that
/// closes its body, both counted, so attributes and doc comments above it do not count and a
/// one-line function is 1. Braces are matched on [`code_only`] text; a declaration without a
/// body (`fn f();` in a trait) is no function. Nested functions are counted on their own and
/// inside the function around them.
fn functions(text: &str) -> Vec<Function> {
    let code = code_only(text);
    let chars: Vec<char> = code.chars().collect();
    let line_starts: Vec<usize> =
        std::iter::once(0).chain(chars.iter().enumerate().filter(|(_, &c)| c == '\n').map(|(k, _)| k + 1)).collect();
    let line_of = |pos: usize| line_starts.partition_point(|&s| s <= pos);
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < chars.len() {
        let is_fn = chars[i] == 'f'
            && chars[i + 1] == 'n'
            && chars[i + 2].is_whitespace()
            && (i == 0 || !is_ident_char(chars[i - 1]));
        if !is_fn {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < chars.len() && chars[j].is_whitespace() {
            j += 1;
        }
        let name: String = chars[j..].iter().take_while(|&&c| is_ident_char(c)).collect();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            i += 2;
            continue;
        }
        if let Some(close) = body_end(&chars, j + name.len()) {
            out.push(Function { name, line: line_of(i), lines: line_of(close) - line_of(i) + 1 });
        }
        i += 2;
    }
    out
}

/// The position of the brace that closes the body of a function whose signature goes on at
/// `from`, or `None` when a `;` outside brackets ends it first (no body) or the text ends.
fn body_end(chars: &[char], from: usize) -> Option<usize> {
    let mut brackets = 0usize;
    let mut k = from;
    while k < chars.len() {
        match chars[k] {
            '(' | '[' => brackets += 1,
            ')' | ']' => brackets = brackets.saturating_sub(1),
            ';' if brackets == 0 => return None,
            '{' if brackets == 0 => break,
            _ => {}
        }
        k += 1;
    }
    let mut depth = 0usize;
    while k < chars.len() {
        match chars[k] {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// A token of [`code_only`] text: an identifier, `::`, or any other single character.
#[derive(Debug, Clone, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for (k, line) in code.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_whitespace() {
                i += 1;
            } else if is_ident_char(c) {
                let word: String = chars[i..].iter().take_while(|&&c| is_ident_char(c)).collect();
                i += word.chars().count();
                out.push(Token { text: word, line: k + 1 });
            } else if c == ':' && chars.get(i + 1) == Some(&':') {
                out.push(Token { text: "::".to_owned(), line: k + 1 });
                i += 2;
            } else {
                out.push(Token { text: c.to_string(), line: k + 1 });
                i += 1;
            }
        }
    }
    out
}

/// The paths of a `use` tree starting at token `i` (after `use` or inside a group), each with
/// `prefix` in front, and the index of the first token after the tree. `self` in a group names
/// the prefix itself.
fn use_tree(toks: &[Token], mut i: usize, prefix: &[String]) -> (Vec<Vec<String>>, usize) {
    let mut path = prefix.to_vec();
    while let Some(t) = toks.get(i) {
        match t.text.as_str() {
            "::" => i += 1,
            "{" => {
                i += 1;
                let mut all = Vec::new();
                while let Some(t) = toks.get(i) {
                    match t.text.as_str() {
                        "}" => return (all, i + 1),
                        "," => i += 1,
                        _ => {
                            let (paths, next) = use_tree(toks, i, &path);
                            all.extend(paths);
                            i = next.max(i + 1);
                        }
                    }
                }
                return (all, i);
            }
            "*" => return (vec![path], i + 1),
            word if word.starts_with(is_ident_char) => {
                if word != "self" || path.is_empty() {
                    path.push(word.to_owned());
                }
                i += 1;
                if toks.get(i).is_some_and(|t| t.text == "::") {
                    continue;
                }
                if toks.get(i).is_some_and(|t| t.text == "as") {
                    i += 2;
                }
                return (vec![path], i);
            }
            _ => return (vec![path], i),
        }
    }
    (vec![path], i)
}

/// A path into a module of the crate, as [`module_paths`] finds it.
#[derive(Debug, PartialEq)]
struct ModulePath {
    /// The line it stands on.
    line: usize,
    /// The path from the crate root.
    path: Vec<String>,
    /// For a bare `use` path (`child::Item`), the length of the module it was written in: the
    /// path counts only when its next segment is a child module of that one.
    bare_in: Option<usize>,
}

/// Where a file's paths lead: every `crate::`, `super::` or `self::` path in its code (in `use`
/// items and anywhere else) and every other `use` path, resolved against the file's module
/// and the inline modules (`mod tests { .. }`) around the path. Re-exports (`pub use`) do not
/// count: they pass items on rather than use them.
fn module_paths(module: &[String], text: &str) -> Vec<ModulePath> {
    let toks = tokens(&code_only(text));
    let mut out = Vec::new();
    // Inline modules around the current token: name and the brace depth inside them.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let here = |inline: &[(String, usize)]| -> Vec<String> {
        module.iter().cloned().chain(inline.iter().map(|(n, _)| n.clone())).collect()
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        match toks[i].text.as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|(_, d)| *d > depth) {
                    inline.pop();
                }
            }
            "mod" if toks.get(i + 2).is_some_and(|t| t.text == "{") => {
                depth += 1;
                inline.push((toks[i + 1].text.clone(), depth));
                i += 3;
                continue;
            }
            "use" if is_re_export(&toks, i) => {
                // A re-export passes items on rather than using them: skip it.
                let (_, next) = use_tree(&toks, i + 1, &[]);
                i = next.max(i + 1);
                continue;
            }
            "use" => {
                let line = toks[i].line;
                let here = here(&inline);
                let (paths, next) = use_tree(&toks, i + 1, &[]);
                for path in paths {
                    let bare = !matches!(path.first().map(String::as_str), Some("crate" | "self" | "super"));
                    let path =
                        if bare { Some(here.iter().chain(&path).cloned().collect()) } else { resolve(&here, &path) };
                    if let Some(path) = path {
                        out.push(ModulePath { line, path, bare_in: bare.then_some(here.len()) });
                    }
                }
                i = next.max(i + 1);
                continue;
            }
            "crate" | "super" | "self" if toks.get(i + 1).is_some_and(|t| t.text == "::") => {
                let line = toks[i].line;
                let mut path = vec![toks[i].text.clone()];
                let mut k = i + 1;
                while toks.get(k).is_some_and(|t| t.text == "::")
                    && toks.get(k + 1).is_some_and(|t| t.text.starts_with(is_ident_char))
                {
                    path.push(toks[k + 1].text.clone());
                    k += 2;
                }
                if let Some(path) = resolve(&here(&inline), &path) {
                    out.push(ModulePath { line, path, bare_in: None });
                }
                i = k;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether the `use` at token `i` is a re-export: `pub use`, `pub(crate) use`, `pub(super) use`.
fn is_re_export(toks: &[Token], i: usize) -> bool {
    let before = |k: usize| i.checked_sub(k).map(|k| toks[k].text.as_str());
    before(1) == Some("pub")
        || (before(1) == Some(")") && (2..=5).any(|k| before(k) == Some("(") && before(k + 1) == Some("pub")))
}

/// The path from the crate root of a `crate::`, `self::` or `super::` path written in module
/// `here` (`None` for a `super` above the root).
fn resolve(here: &[String], path: &[String]) -> Option<Vec<String>> {
    let (mut base, rest) = match path.first()?.as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (here.to_vec(), &path[1..]),
        _ => {
            let mut base = here.to_vec();
            let supers = path.iter().take_while(|s| *s == "super").count();
            for _ in 0..supers {
                base.pop()?;
            }
            (base, &path[supers..])
        }
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The module path of a source file, from its path below the crate's `src/`: `lib.rs` and
/// `main.rs` are the root, `a/mod.rs` and `a.rs` are `a`, `a/b.rs` is `a::b`.
fn module_of(below_src: &str) -> Vec<String> {
    let mut parts: Vec<String> = below_src.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    } else if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The crate directory (`crates/NAME`) and the path below `src/` of a source file path.
fn split_source_path(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix("crates/")?;
    let slash = rest.find('/')?;
    let below = rest[slash + 1..].strip_prefix("src/")?;
    Some((&path[.."crates/".len() + slash], below))
}

/// The import edges between the files of each crate: (importing file, imported file) with the
/// line of the first path of the one into the other. A path leads to the file whose module is
/// its longest prefix; paths into the crate root (`lib.rs`, `main.rs`: it declares the modules
/// and re-exports their items) and into the file itself do not count.
fn import_edges(files: &[(String, String)]) -> BTreeMap<(String, String), usize> {
    let mut modules: BTreeMap<(&str, Vec<String>), &str> = BTreeMap::new();
    for (path, _) in files {
        if let Some((krate, below)) = split_source_path(path) {
            modules.insert((krate, module_of(below)), path);
        }
    }
    let mut edges: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (path, text) in files {
        let Some((krate, below)) = split_source_path(path) else { continue };
        for ModulePath { line, path: target, bare_in } in module_paths(&module_of(below), text) {
            if let Some(n) = bare_in {
                // A bare `use` path counts only when it starts with a child module.
                if target.len() <= n || !modules.contains_key(&(krate, target[..=n].to_vec())) {
                    continue;
                }
            }
            let file = (1..=target.len()).rev().find_map(|n| modules.get(&(krate, target[..n].to_vec())));
            if let Some(&file) = file {
                if file != path.as_str() {
                    edges.entry((path.clone(), file.to_owned())).or_insert(line);
                }
            }
        }
    }
    edges
}

/// A circle of imports: files of one crate each of which imports the next, the last the first.
#[derive(Debug, PartialEq)]
struct Circle {
    /// Every file of the strongly connected set the circle lies in, sorted: what an allow-list
    /// entry names.
    files: Vec<String>,
    /// One shortest circle through the first of `files`: each file with the line of its path
    /// into the next (the last one's into the first).
    path: Vec<(String, usize)>,
}

/// The import circles of `files`, of any length: one per set of files that import each other
/// directly or through others (a strongly connected set of the import graph with two files or
/// more), sorted by its files.
fn import_circles(files: &[(String, String)]) -> Vec<Circle> {
    let edges = import_edges(files);
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from.as_str()).or_default().push(to.as_str());
    }
    // What each file reaches through one import or more (breadth first).
    let reach = |start: &str| -> BTreeSet<String> {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut queue: Vec<&str> = next.get(start).cloned().unwrap_or_default();
        while let Some(f) = queue.pop() {
            if seen.insert(f.to_owned()) {
                queue.extend(next.get(f).into_iter().flatten().copied());
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<String>> = next.keys().map(|&f| (f, reach(f))).collect();
    let mut out = Vec::new();
    for (&first, reached) in &reaches {
        let set: Vec<String> =
            reached.iter().filter(|f| reaches.get(f.as_str()).is_some_and(|r| r.contains(first))).cloned().collect();
        // Each set once, from its first file; a file alone is no circle.
        if !set.iter().any(|f| f.as_str() == first) || set[0] != first || set.len() < 2 {
            continue;
        }
        // The shortest way back to `first` inside the set (breadth first, lowest paths first).
        let mut before: BTreeMap<&str, &str> = BTreeMap::new();
        let mut level = vec![first];
        let mut last = None;
        while last.is_none() && !level.is_empty() {
            let mut following = Vec::new();
            for &f in &level {
                for &g in next.get(f).into_iter().flatten() {
                    if g == first && last.is_none() {
                        last = Some(f);
                    } else if g != first && set.iter().any(|s| s == g) && !before.contains_key(g) {
                        before.insert(g, f);
                        following.push(g);
                    }
                }
            }
            level = following;
        }
        let mut chain = vec![last.unwrap_or(first)];
        while let Some(&p) = before.get(chain[chain.len() - 1]) {
            chain.push(p);
        }
        chain.reverse();
        let path = (0..chain.len())
            .map(|k| {
                let to = chain.get(k + 1).copied().unwrap_or(first);
                (chain[k].to_owned(), edges[&(chain[k].to_owned(), to.to_owned())])
            })
            .collect();
        out.push(Circle { files: set, path });
    }
    out
}

/// The limits a check applies (the real ones, or small ones in the tests of this file).
#[derive(Clone, Copy)]
struct Limits {
    file: usize,
    function: usize,
}

/// One line of the allow-list.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Entry {
    /// `file PATH LINES`: a file over the limit, and its size when listed.
    File { path: String, lines: usize },
    /// `fn PATH NAME LINES`: the longest function of that name in the file is over the limit.
    Function { path: String, name: String, lines: usize },
    /// `imports PATH PATH...`: files of a crate that import each other in a circle, directly
    /// or through each other (every file of the circle, sorted).
    Imports { files: Vec<String> },
}

/// The entries of the allow-list text; `#` starts a comment line. A line that is no entry is an
/// error, with its line number.
fn parse_allow_list(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |w: &str| w.parse::<usize>().ok();
        let entry = match words.as_slice() {
            ["file", path, n] => number(n).map(|lines| Entry::File { path: (*path).to_owned(), lines }),
            ["fn", path, name, n] => {
                number(n).map(|lines| Entry::Function { path: (*path).to_owned(), name: (*name).to_owned(), lines })
            }
            ["imports", files @ ..] if files.len() >= 2 && files.windows(2).all(|w| w[0] < w[1]) => {
                Some(Entry::Imports { files: files.iter().map(|f| (*f).to_owned()).collect() })
            }
            _ => None,
        };
        match entry {
            Some(entry) => out.push(entry),
            None => {
                return Err(format!(
                    "{ALLOW_LIST}:{}: `{line}` is not `file PATH LINES`, `fn PATH NAME LINES` or \
                     `imports PATH PATH...` (sorted)",
                    k + 1
                ))
            }
        }
    }
    Ok(out)
}

/// Every breach of the limits by `files` (path from the workspace root, text), given the
/// allow-list's text, as readable lines, sorted: a file or function over its limit and not
/// listed, a listed one grown past its recorded size, a listed one back within the limit (its
/// entry must go), and files that import each other in a circle of any length without an entry
/// (or an entry for files that no longer do).
fn violations(files: &[(String, String)], allow_list: &str, limits: Limits) -> Vec<String> {
    let entries = match parse_allow_list(allow_list) {
        Ok(entries) => entries,
        Err(e) => return vec![e],
    };
    let mut out = Vec::new();
    let mut file_entries: BTreeMap<&str, usize> = BTreeMap::new();
    let mut fn_entries: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    let mut import_entries: BTreeSet<&[String]> = BTreeSet::new();
    for entry in &entries {
        let fresh = match entry {
            Entry::File { path, lines } => file_entries.insert(path, *lines).is_none(),
            Entry::Function { path, name, lines } => fn_entries.insert((path, name), *lines).is_none(),
            Entry::Imports { files } => import_entries.insert(files),
        };
        if !fresh {
            out.push(format!("{ALLOW_LIST}: {entry:?} is listed twice"));
        }
    }
    let texts: BTreeMap<&str, &str> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    for (&path, &text) in &texts {
        let lines = text.lines().count();
        match file_entries.get(path) {
            None if lines > limits.file => {
                out.push(format!("{path}: {lines} lines, over the limit of {}: split it", limits.file));
            }
            Some(&listed) if lines > listed => out.push(format!(
                "{path}: {lines} lines, more than the {listed} its entry in {ALLOW_LIST} records: \
                 a listed file may only shrink"
            )),
            Some(_) if lines <= limits.file => out.push(format!(
                "{path}: {lines} lines, within the limit of {}: remove its entry from {ALLOW_LIST}",
                limits.file
            )),
            _ => {}
        }
        // The longest function of each name in the file.
        let mut longest: BTreeMap<String, Function> = BTreeMap::new();
        for f in functions(text) {
            if longest.get(&f.name).is_none_or(|g| f.lines > g.lines) {
                longest.insert(f.name.clone(), f);
            }
        }
        for (name, f) in &longest {
            let at = format!("{path}:{}: fn {name}", f.line);
            match fn_entries.get(&(path, name.as_str())) {
                None if f.lines > limits.function => {
                    out.push(format!("{at}: {} lines, over the limit of {}: split it", f.lines, limits.function));
                }
                Some(&listed) if f.lines > listed => out.push(format!(
                    "{at}: {} lines, more than the {listed} its entry in {ALLOW_LIST} records: a \
                     listed function may only shrink",
                    f.lines
                )),
                Some(_) if f.lines <= limits.function => out.push(format!(
                    "{at}: {} lines, within the limit of {}: remove its entry from {ALLOW_LIST}",
                    f.lines, limits.function
                )),
                _ => {}
            }
        }
        for &(listed_path, name) in fn_entries.keys() {
            if listed_path == path && !longest.contains_key(name) {
                out.push(format!("{path}: no fn {name}: remove its entry from {ALLOW_LIST}"));
            }
        }
    }
    for path in file_entries.keys().chain(fn_entries.keys().map(|(p, _)| p)) {
        if !texts.contains_key(path) {
            out.push(format!("{path}: no such file: remove its entries from {ALLOW_LIST}"));
        }
    }
    let circles = import_circles(files);
    for circle in &circles {
        if !import_entries.contains(circle.files.as_slice()) {
            let path: Vec<String> = circle.path.iter().map(|(f, line)| format!("{f}:{line}")).collect();
            out.push(format!(
                "{} -> {}: files that import each other in a circle: move what they share into a \
                 module none of them imports, or merge them",
                path.join(" -> "),
                circle.path[0].0
            ));
        }
    }
    for &listed in &import_entries {
        if !circles.iter().any(|c| c.files == listed) {
            out.push(format!(
                "{} no longer import each other in a circle: remove their entry from {ALLOW_LIST}",
                listed.join(" and ")
            ));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every source file under `crates/*/src`, as (path from the workspace root with `/`, text).
fn source_files() -> Vec<(String, String)> {
    let root = root();
    let mut crates: Vec<PathBuf> =
        std::fs::read_dir(root.join("crates")).expect("crates/").flatten().map(|e| e.path()).collect();
    crates.sort();
    let mut out = Vec::new();
    for krate in crates {
        for file in rust_files(&krate.join("src")) {
            let relative = file.strip_prefix(&root).expect("below the root");
            let path = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            out.push((path, std::fs::read_to_string(&file).expect("readable source")));
        }
    }
    out
}

/// The import circles the allow-list may name: none. A circle is broken up, never listed.
const KNOWN_CIRCLES: &[&[&str]] = &[];

#[test]
fn sources_keep_the_tidy_limits() {
    let files = source_files();
    assert!(files.len() > 50, "too few source files found: {}", files.len());
    let functions_found: usize = files.iter().map(|(_, t)| functions(t).len()).sum();
    assert!(functions_found > 500, "too few functions found: {functions_found}");
    let allow_list = std::fs::read_to_string(root().join(ALLOW_LIST)).expect("the allow-list");
    let entries = parse_allow_list(&allow_list).unwrap_or_default();
    for entry in &entries {
        if let Entry::Imports { files } = entry {
            assert!(
                KNOWN_CIRCLES.iter().any(|known| known == files),
                "{ALLOW_LIST} lists the import circle {files:?}: a new circle is broken up, not listed"
            );
        }
    }
    let bad = violations(&files, &allow_list, Limits { file: FILE_LIMIT, function: FN_LIMIT });
    assert!(bad.is_empty(), "tidy limits broken (docs/ARCHITECTURE.md, \"Tidy limits\"):\n{}", bad.join("\n"));
}

#[test]
fn code_only_blanks_comments_and_literals() {
    let text = "let a = \"{ fn x() {\"; // fn y() {\nlet b = '{'; let c = '\\''; /* { /* } */ } */ 'l: loop {}\n\
                let d = r#\"}\"#; let e = br\"{\"; fn f<'a>(x: &'a str) {}";
    let code = code_only(text);
    assert_eq!(code.lines().count(), 2 + 1);
    assert!(!code.contains("fn x") && !code.contains("fn y"), "{code}");
    let braces: String = code.chars().filter(|c| matches!(c, '{' | '}')).collect();
    assert_eq!(braces, "{}{}", "{code}");
    assert!(code.contains("'l: loop") && code.contains("fn f<'a>(x: &'a str)"), "{code}");
    assert_eq!(code.chars().count(), text.chars().count());
}

#[test]
fn functions_are_counted_from_fn_to_closing_brace() {
    let text = "\
/// Doc lines do not count.
#[inline]
pub fn one() { let s = \"}\"; }
fn two(
    x: [u8; 4],
) -> u8 {
    // }
    fn inner() {}
    x[0]
}
trait T {
    fn declared(&self);
    fn defaulted(&self) -> fn(u8) -> u8 {
        |x| x
    }
}
";
    let found = functions(text);
    let summary: Vec<(&str, usize, usize)> = found.iter().map(|f| (f.name.as_str(), f.line, f.lines)).collect();
    assert_eq!(summary, [("one", 3, 1), ("two", 4, 7), ("inner", 8, 1), ("defaulted", 13, 3)]);
}

fn file(path: &str, text: &str) -> (String, String) {
    (path.to_owned(), text.to_owned())
}

/// Small limits (files of 4 lines, functions of 3) and a three-file crate with one file and
/// one function over them.
fn over_limits() -> (Vec<(String, String)>, Limits) {
    let files = vec![
        file("crates/k/src/lib.rs", "mod a;\nmod b;\n"),
        file("crates/k/src/a.rs", "fn long() {\n    1;\n    2;\n}\nfn short() {}\n"),
        file("crates/k/src/b.rs", "fn fine() {}\n"),
    ];
    (files, Limits { file: 4, function: 3 })
}

#[test]
fn the_limits_fail_unlisted_files_and_functions() {
    let (files, limits) = over_limits();
    assert_eq!(
        violations(&files, "", limits),
        [
            "crates/k/src/a.rs: 5 lines, over the limit of 4: split it",
            "crates/k/src/a.rs:1: fn long: 4 lines, over the limit of 3: split it",
        ]
    );
    let listed = "# today's exceptions\nfile crates/k/src/a.rs 5\nfn crates/k/src/a.rs long 4\n";
    assert_eq!(violations(&files, listed, limits), Vec::<String>::new());
}

#[test]
fn the_allow_list_may_only_shrink() {
    let (mut files, limits) = over_limits();
    // Grown past the recorded sizes.
    let listed = "file crates/k/src/a.rs 5\nfn crates/k/src/a.rs long 4\n";
    files[1].1 = "fn long() {\n    1;\n    2;\n    3;\n}\nfn short() {}\n".to_owned();
    assert_eq!(
        violations(&files, listed, limits),
        [
            "crates/k/src/a.rs: 6 lines, more than the 5 its entry in xtask/tidy-allow.txt records: a \
             listed file may only shrink",
            "crates/k/src/a.rs:1: fn long: 5 lines, more than the 4 its entry in xtask/tidy-allow.txt \
             records: a listed function may only shrink",
        ]
    );
    // Back within the limits: the entries must go; so must entries for what is gone.
    files[1].1 = "fn long() {}\n".to_owned();
    let listed = "file crates/k/src/a.rs 5\nfn crates/k/src/a.rs long 4\nfn crates/k/src/b.rs gone 200\n\
                  file crates/k/src/c.rs 900\n";
    assert_eq!(
        violations(&files, listed, limits),
        [
            "crates/k/src/a.rs: 1 lines, within the limit of 4: remove its entry from xtask/tidy-allow.txt",
            "crates/k/src/a.rs:1: fn long: 1 lines, within the limit of 3: remove its entry from \
             xtask/tidy-allow.txt",
            "crates/k/src/b.rs: no fn gone: remove its entry from xtask/tidy-allow.txt",
            "crates/k/src/c.rs: no such file: remove its entries from xtask/tidy-allow.txt",
        ]
    );
    assert_eq!(
        violations(&files, "file crates/k/src/a.rs many\n", limits),
        ["xtask/tidy-allow.txt:1: `file crates/k/src/a.rs many` is not `file PATH LINES`, `fn PATH NAME \
          LINES` or `imports PATH PATH...` (sorted)"]
    );
}

/// The end of the message for an import circle.
const CIRCLE: &str =
    ": files that import each other in a circle: move what they share into a module none of them imports, or merge them";

#[test]
fn files_that_import_each_other_are_found() {
    let limits = Limits { file: 100, function: 100 };
    let files = vec![
        // The root re-exports and is imported by all: no cycle through it.
        file("crates/k/src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\npub use a::A;\nuse crate::b::B;\n"),
        file("crates/k/src/a.rs", "use crate::{b::{self, B}, Error};\npub struct A;\n"),
        file("crates/k/src/b.rs", "pub struct B;\nfn f() { let _ = super::a::A; }\n"),
        // c and d: only one way, and a test module's `super::*` is the file itself.
        file("crates/k/src/c.rs", "use crate::d::D;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n"),
        file("crates/k/src/d/mod.rs", "mod e;\npub(crate) use e::F;\npub struct D;\nuse e::E;\n"),
        // A child and its parent: the parent's bare `use e::..` names its child module.
        file("crates/k/src/d/e.rs", "pub struct E;\nuse super::D;\n// use crate::c::C;\n"),
        // Another crate's module of the same name is another file.
        file("crates/l/src/a.rs", "use crate::b::X;\n"),
        file("crates/l/src/b.rs", "use std::a::Y;\n"),
    ];
    assert_eq!(
        violations(&files, "", limits),
        [
            format!("crates/k/src/a.rs:1 -> crates/k/src/b.rs:2 -> crates/k/src/a.rs{CIRCLE}"),
            format!("crates/k/src/d/e.rs:2 -> crates/k/src/d/mod.rs:4 -> crates/k/src/d/e.rs{CIRCLE}"),
        ]
    );
    let listed = "imports crates/k/src/a.rs crates/k/src/b.rs\nimports crates/k/src/d/e.rs crates/k/src/d/mod.rs\n\
                  imports crates/k/src/c.rs crates/k/src/d/mod.rs\n";
    assert_eq!(
        violations(&files, listed, limits),
        ["crates/k/src/c.rs and crates/k/src/d/mod.rs no longer import each other in a circle: remove their \
          entry from xtask/tidy-allow.txt"]
    );
}

#[test]
fn circles_of_any_length_are_found() {
    let limits = Limits { file: 100, function: 100 };
    // a -> b -> c -> a, no two of them importing each other; d imports a but is not in the circle;
    // e -> f -> g -> e and f -> e: one set of three files (the shortest circle is e -> f -> e).
    let files = vec![
        file("crates/k/src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\nmod f;\nmod g;\n"),
        file("crates/k/src/a.rs", "use crate::b::B;\npub struct A;\n"),
        file("crates/k/src/b.rs", "pub struct B;\n\nuse super::c::C;\n"),
        file("crates/k/src/c.rs", "fn f() {\n    let _ = crate::a::A;\n}\n"),
        file("crates/k/src/d.rs", "use crate::a::A;\n"),
        file("crates/k/src/e.rs", "use crate::f::F;\n"),
        file("crates/k/src/f.rs", "use crate::g::G;\nuse crate::e::E;\n"),
        file("crates/k/src/g.rs", "use crate::e::E;\n"),
    ];
    assert_eq!(
        violations(&files, "", limits),
        [
            format!("crates/k/src/a.rs:1 -> crates/k/src/b.rs:3 -> crates/k/src/c.rs:2 -> crates/k/src/a.rs{CIRCLE}"),
            format!("crates/k/src/e.rs:1 -> crates/k/src/f.rs:2 -> crates/k/src/e.rs{CIRCLE}"),
        ]
    );
    // An entry names every file of the set, sorted; a part of it is not enough.
    let listed =
        "imports crates/k/src/a.rs crates/k/src/b.rs crates/k/src/c.rs\nimports crates/k/src/e.rs crates/k/src/f.rs\n";
    assert_eq!(
        violations(&files, listed, limits),
        [
            "crates/k/src/e.rs and crates/k/src/f.rs no longer import each other in a circle: remove their entry \
             from xtask/tidy-allow.txt"
                .to_owned(),
            format!("crates/k/src/e.rs:1 -> crates/k/src/f.rs:2 -> crates/k/src/e.rs{CIRCLE}"),
        ]
    );
    let listed = "imports crates/k/src/a.rs crates/k/src/b.rs crates/k/src/c.rs\n\
                  imports crates/k/src/e.rs crates/k/src/f.rs crates/k/src/g.rs\n";
    assert_eq!(violations(&files, listed, limits), Vec::<String>::new());
}

/// The markdown files of `docs/`, sorted, as (name, text).
fn docs() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| {
            let name = p.file_name().expect("a file name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("a readable doc"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_readme_links_every_doc() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let docs = docs();
    assert!(docs.len() >= 5, "{docs:?}");
    let missing: Vec<&str> =
        docs.iter().map(|(n, _)| n.as_str()).filter(|n| !readme.contains(&format!("(docs/{n})"))).collect();
    assert!(missing.is_empty(), "README.md's documentation list misses docs/{}", missing.join(", docs/"));
}

/// The words of `text` that look like a commit hash (7 to 40 hex digits with at least one
/// digit and one letter) or a date (`2026-11-30`), with their line numbers.
fn commits_and_dates(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        for word in line.split(|c: char| !c.is_ascii_alphanumeric() && c != '-') {
            let hex = (7..=40).contains(&word.len())
                && word.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
                && word.chars().any(|c| c.is_ascii_digit())
                && word.chars().any(|c| c.is_ascii_lowercase());
            let parts: Vec<&str> = word.split('-').collect();
            let date = parts.len() == 3
                && [4, 2, 2].iter().zip(&parts).all(|(n, p)| p.len() == *n && p.chars().all(|c| c.is_ascii_digit()));
            let date_inside = parts
                .windows(3)
                .any(|w| [4, 2, 2].iter().zip(w).all(|(n, p)| p.len() == *n && p.chars().all(|c| c.is_ascii_digit())));
            if hex || date || date_inside {
                out.push((k + 1, word.to_owned()));
            }
        }
    }
    out
}

#[test]
fn docs_name_no_commit_and_no_date() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let mut all = docs();
    all.push(("../README.md".to_owned(), readme));
    let found: Vec<String> = all
        .iter()
        .flat_map(|(name, text)| commits_and_dates(text).into_iter().map(move |(l, w)| format!("docs/{name}:{l}: {w}")))
        .collect();
    assert!(
        found.is_empty(),
        "reference text names commits or dates (history goes in commit messages):\n{}",
        found.join("\n")
    );
}

#[test]
fn commits_and_dates_are_recognised() {
    let text = "before (eb1e1b8) and after\nMeasured 2026-11-30 on\n1500000 states, cafe and deadbeef, 0x7fffffff\n\
                a hash 898b1c8e0f1d2c3b4a5968778695a4b3c2d1e0f1";
    assert_eq!(
        commits_and_dates(text),
        [
            (1, "eb1e1b8".to_owned()),
            (2, "2026-11-30".to_owned()),
            (4, "898b1c8e0f1d2c3b4a5968778695a4b3c2d1e0f1".to_owned())
        ]
    );
}

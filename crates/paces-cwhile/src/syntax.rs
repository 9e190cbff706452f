//! Lexing and parsing to the syntax tree, with error recovery; syntax errors as diagnostics.

use lalrpop_util::ParseError;

use crate::ast::{Decl, UserError, MAX_DEPTH, MAX_EXPR_DEPTH, MAX_HEIGHT};
use crate::diag::Diagnostic;
use crate::ir::Span;
use crate::lexer::{self, LexError, Tok};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused, missing_docs, rust_2018_idioms)]
    grammar
);

fn span(l: usize, r: usize) -> Span {
    Span { start: l as u32, end: r as u32 }
}

fn describe_expected(expected: &[String]) -> Vec<String> {
    expected
        .iter()
        .filter(|e| e.as_str() != "\"/*\"")
        .map(|e| match e.as_str() {
            "Ident" => "an identifier".to_owned(),
            "Num" => "a number".to_owned(),
            "Dotted" => "a dotted name".to_owned(),
            other => format!("`{}`", other.trim_matches('"')),
        })
        .collect()
}

fn expected_note(expected: &[String]) -> Option<String> {
    let list = describe_expected(expected);
    match list.len() {
        0 => None,
        1 => Some(format!("expected {}", list[0])),
        _ => Some(format!("expected one of {}", list.join(", "))),
    }
}

/// Where the last token before byte `at` ends, given every token's end in order.
fn end_before(ends: &[usize], at: usize) -> Option<usize> {
    ends.get(ends.partition_point(|&e| e <= at).checked_sub(1)?).copied()
}

/// A syntax error as a diagnostic; `ends` holds where each token ends, in order: a missing `;`
/// whose statement the next line follows is reported at the end of the statement's last
/// token, not at the next line's first.
fn parse_error(e: ParseError<usize, Tok<'_>, UserError>, source: &str, ends: &[usize]) -> Diagnostic {
    match e {
        ParseError::UnrecognizedToken { token: (l, tok, r), expected } => {
            let semicolon = expected.iter().any(|e| e == "\";\"");
            if let Some(end) = end_before(ends, l).filter(|&end| semicolon && source[end..l].contains('\n')) {
                let d = Diagnostic::new(
                    "E0004",
                    format!("expected `;`, found {}", tok.describe()),
                    span(end, end),
                    "`;` expected here",
                );
                return match expected_note(&expected) {
                    Some(n) if expected.len() > 1 => d.note(n),
                    _ => d,
                };
            }
            let d = Diagnostic::new("E0004", format!("unexpected {}", tok.describe()), span(l, r), "unexpected here");
            match expected_note(&expected) {
                Some(n) => d.note(n),
                None => d,
            }
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            Diagnostic::new("E0004", format!("unexpected {}", tok.describe()), span(l, r), "unexpected here")
        }
        ParseError::UnrecognizedEof { location, expected } => {
            let at = location.min(source.len());
            let d = Diagnostic::new("E0005", "unexpected end of file", span(at, at), "the file ends here");
            match expected_note(&expected) {
                Some(n) => d.note(n),
                None => d,
            }
        }
        ParseError::InvalidToken { location } => {
            Diagnostic::new("E0002", "invalid token", span(location, location + 1), "not a token")
        }
        ParseError::User { error } => match error {
            UserError::StmtTooDeep(s) => Diagnostic::new(
                "E0006",
                format!("statements are nested deeper than {MAX_DEPTH} levels"),
                s,
                format!("level {} starts here", MAX_DEPTH + 1),
            )
            .note("split the program into procedures or flatten the nesting"),
            UserError::ElseIfTooLong(s) => Diagnostic::new(
                "E0006",
                format!("statements and `else if`s are nested deeper than {MAX_HEIGHT} levels"),
                s,
                format!("level {} starts here", MAX_HEIGHT + 1),
            )
            .note(format!("each `else if` counts as one level here, at most {MAX_HEIGHT} in all"))
            .note("split the chain, for instance into a procedure per part"),
            UserError::ExprTooDeep(s) => Diagnostic::new(
                "E0006",
                format!("an expression is nested deeper than {MAX_EXPR_DEPTH} levels"),
                s,
                format!("level {} starts here", MAX_EXPR_DEPTH + 1),
            )
            .note("split the expression with intermediate local variables"),
        },
    }
}

/// Parses `source` into declarations; every lexical and syntax error as a diagnostic.
pub(crate) fn parse(source: &str) -> Result<Vec<Decl>, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut tokens = Vec::new();
    let mut unterminated = false;
    for t in lexer::tokens(source) {
        match t {
            Ok(t) => tokens.push(Ok::<_, UserError>(t)),
            Err(e) => match e.error {
                LexError::UnterminatedComment => {
                    unterminated = true;
                    diags.push(
                        Diagnostic::new(
                            "E0003",
                            "unterminated block comment",
                            span(e.start, e.start + 2),
                            "this `/*` has no closing `*/`",
                        )
                        .note("everything after it up to the end of the file is part of the comment"),
                    );
                }
                LexError::Invalid => {
                    // A run of invalid characters is one error.
                    if let Some(last) = diags.last_mut().filter(|d: &&mut Diagnostic| d.code == "E0002") {
                        if last.primary.end as usize == e.start {
                            last.primary.end = e.end as u32;
                            last.message = "invalid characters".to_owned();
                            continue;
                        }
                    }
                    let text = &source[e.start..e.end];
                    let shown: String = text.chars().take(1).collect();
                    diags.push(
                        Diagnostic::new(
                            "E0002",
                            format!("invalid character `{}`", shown.escape_default()),
                            span(e.start, e.end),
                            "not part of any token",
                        )
                        .note("Cwhile uses ASCII identifiers, numbers, and the operators of the language reference"),
                    );
                }
            },
        }
    }
    // Where the token after each invalid character starts: the parser never saw the
    // character, so a syntax error right there is a consequence, not news.
    let after_invalid: Vec<u32> = diags
        .iter()
        .filter(|d: &&Diagnostic| d.code == "E0002")
        .map(|d| {
            let end = d.primary.end as usize;
            let rest = &source[end.min(source.len())..];
            (end + (rest.len() - rest.trim_start().len())) as u32
        })
        .collect();
    let ends: Vec<usize> = tokens.iter().filter_map(|t| t.as_ref().ok().map(|(_, _, r)| *r)).collect();
    let mut recovered = Vec::new();
    let result = grammar::ProgramParser::new().parse(&mut recovered, tokens);
    for r in recovered {
        let d = parse_error(r.error, source, &ends);
        if !(unterminated && d.code == "E0005") {
            diags.push(d);
        }
    }
    match result {
        Ok(decls) if diags.is_empty() => return Ok(decls),
        Ok(_) => {}
        Err(e) => {
            let d = parse_error(e, source, &ends);
            // An unterminated comment swallows the rest of the file: the parser's complaint
            // about the missing end adds nothing.
            if !(unterminated && d.code == "E0005") {
                diags.push(d);
            }
        }
    }
    diags.retain(|d| !(d.code == "E0004" && after_invalid.contains(&d.primary.start)));
    diags.sort_by_key(|d| d.primary.start);
    diags.dedup();
    Err(diags)
}

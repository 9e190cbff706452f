//! The lexer (logos). Private: its token type never leaves the crate.

use logos::{FilterResult, Logos};

/// What went wrong while lexing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum LexError {
    /// A character that starts no token.
    #[default]
    Invalid,
    /// `/*` without a closing `*/`.
    UnterminatedComment,
}

fn block_comment<'s>(lex: &mut logos::Lexer<'s, Tok<'s>>) -> FilterResult<(), LexError> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            FilterResult::Skip
        }
        None => {
            let rest = lex.remainder().len();
            lex.bump(rest);
            FilterResult::Error(LexError::UnterminatedComment)
        }
    }
}

/// A token.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub(crate) enum Tok<'s> {
    #[token("/*", block_comment)]
    BlockComment,

    #[token("var")]
    Var,
    #[token("thread")]
    Thread,
    #[token("proc")]
    Proc,
    #[token("local")]
    Local,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("atomic")]
    Atomic,
    #[token("noreorder")]
    NoReorder,
    #[token("assume")]
    Assume,
    #[token("await")]
    Await,
    #[token("assert")]
    Assert,
    #[token("assertd")]
    AssertD,
    #[token("skip")]
    Skip,
    #[token("lock")]
    Lock,
    #[token("unlock")]
    Unlock,
    #[token("down")]
    Down,
    #[token("up")]
    Up,
    #[token("true")]
    True,
    #[token("false")]
    False,

    #[regex("[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'s str),
    #[regex("[0-9]+")]
    Num(&'s str),
    /// A dotted name: a label such as `t1.0` (the form of generated labels) or a procedure's
    /// local seen from a caller, `PROC.NAME`.
    #[regex(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+")]
    Dotted(&'s str),

    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(":=")]
    Assign,
    #[token("=")]
    Eq1,
    #[token("||")]
    OrOr,
    #[token("&&")]
    AndAnd,
    #[token("|")]
    Bar,
    #[token("^")]
    Caret,
    #[token("&")]
    Amp,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("!")]
    Bang,
}

impl Tok<'_> {
    /// How the token is written, for error messages.
    pub(crate) fn describe(&self) -> String {
        let fixed = match self {
            Tok::BlockComment => "`/*`",
            Tok::Var => "`var`",
            Tok::Thread => "`thread`",
            Tok::Proc => "`proc`",
            Tok::Local => "`local`",
            Tok::If => "`if`",
            Tok::Else => "`else`",
            Tok::While => "`while`",
            Tok::Atomic => "`atomic`",
            Tok::NoReorder => "`noreorder`",
            Tok::Assume => "`assume`",
            Tok::Await => "`await`",
            Tok::Assert => "`assert`",
            Tok::AssertD => "`assertd`",
            Tok::Skip => "`skip`",
            Tok::Lock => "`lock`",
            Tok::Unlock => "`unlock`",
            Tok::Down => "`down`",
            Tok::Up => "`up`",
            Tok::True => "`true`",
            Tok::False => "`false`",
            Tok::Ident(s) => return format!("identifier `{s}`"),
            Tok::Num(s) => return format!("number `{s}`"),
            Tok::Dotted(s) => return format!("label `{s}`"),
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::LParen => "`(`",
            Tok::RParen => "`)`",
            Tok::Semi => "`;`",
            Tok::Comma => "`,`",
            Tok::Colon => "`:`",
            Tok::Assign => "`:=`",
            Tok::Eq1 => "`=`",
            Tok::OrOr => "`||`",
            Tok::AndAnd => "`&&`",
            Tok::Bar => "`|`",
            Tok::Caret => "`^`",
            Tok::Amp => "`&`",
            Tok::Shl => "`<<`",
            Tok::Shr => "`>>`",
            Tok::EqEq => "`==`",
            Tok::Ne => "`!=`",
            Tok::Lt => "`<`",
            Tok::Le => "`<=`",
            Tok::Gt => "`>`",
            Tok::Ge => "`>=`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Star => "`*`",
            Tok::Slash => "`/`",
            Tok::Percent => "`%`",
            Tok::Bang => "`!`",
        };
        fixed.to_owned()
    }
}

/// A lexing error with its byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LexErrorAt {
    pub(crate) error: LexError,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// The token stream in the form lalrpop expects.
pub(crate) fn tokens(source: &str) -> impl Iterator<Item = Result<(usize, Tok<'_>, usize), LexErrorAt>> + '_ {
    Tok::lexer(source).spanned().map(|(tok, span)| match tok {
        Ok(tok) => Ok((span.start, tok, span.end)),
        Err(error) => Err(LexErrorAt { error, start: span.start, end: span.end }),
    })
}

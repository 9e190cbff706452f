//! Reading the parsed C into the frontend's model ([`crate::model`]): globals, macros,
//! functions with their statements as Cwhile text, labels from source lines.

use lang_c::ast::{
    Declaration, DeclarationSpecifier, Declarator, DeclaratorKind, DerivedDeclarator, ExternalDeclaration,
    FunctionDefinition, Initializer, StorageClassSpecifier, TranslationUnit, TypeSpecifier,
};
use lang_c::span::Node;
use paces_cwhile::{Diagnostic, Span};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::Function;
use crate::prepass::Prepared;

mod expr;
mod stmt;

pub(crate) use stmt::NONDET;

/// A global variable: name, initial value, declaration span.
#[derive(Clone, Debug)]
pub(crate) struct Global {
    pub(crate) name: String,
    pub(crate) init: i64,
    pub(crate) span: Span,
}

/// The whole model as read.
#[derive(Debug, Default)]
pub(crate) struct Model {
    pub(crate) globals: Vec<Global>,
    pub(crate) functions: Vec<Function>,
}

/// The names Cwhile reserves: a C name among them cannot be a Cwhile name.
pub(crate) const CWHILE_KEYWORDS: &[&str] = &[
    "var",
    "thread",
    "proc",
    "local",
    "if",
    "else",
    "while",
    "atomic",
    "noreorder",
    "assume",
    "await",
    "assert",
    "assertd",
    "skip",
    "lock",
    "unlock",
    "down",
    "up",
    "true",
    "false",
];

pub(crate) fn error(
    code: &'static str,
    message: impl Into<String>,
    span: Span,
    label: impl Into<String>,
) -> Diagnostic {
    Diagnostic { code, message: message.into(), primary: span, label: label.into(), notes: Vec::new() }
}

fn outside(what: &str, span: Span) -> Diagnostic {
    error("C0101", format!("{what} is outside the C dialect PACES reads"), span, "not supported")
}

/// Labels from source lines: the first statement starting on line 12 is `12`, the next `12.2`.
struct Labels {
    /// The offset of every newline of the source, ascending: the line of an offset is one
    /// more than the newlines before it (a binary search, so reading stays linear).
    newlines: Vec<usize>,
    used: FxHashMap<usize, u32>,
    /// The words of the source (runs of ASCII letters, digits and `_`) that start with
    /// `nondet_`: the names a drawn local must not take.
    nondet_words: FxHashSet<String>,
}

impl Labels {
    fn new(source: &str) -> Labels {
        let newlines = source.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i).collect();
        let prefix = format!("{}_", stmt::NONDET);
        let nondet_words = source
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with(&prefix))
            .map(str::to_owned)
            .collect();
        Labels { newlines, used: FxHashMap::default(), nondet_words }
    }

    fn next(&mut self, span: Span) -> String {
        let line = self.newlines.partition_point(|&at| at < span.start as usize) + 1;
        let n = self.used.entry(line).or_insert(0);
        *n += 1;
        if *n == 1 {
            line.to_string()
        } else {
            format!("{line}.{n}")
        }
    }
}

/// What the statements of one function see.
struct Scope {
    function: usize,
    locals: FxHashSet<String>,
    /// Parameter name to its Cwhile local.
    params: FxHashMap<String, String>,
    /// The locals into which the statement being read drew a value for each of its reads of
    /// `nondet` (see `Reader::drawing`), and how many of those reads were read: the `k`th
    /// read reads the `k`th local.
    drawn: Vec<String>,
    read_draws: std::cell::Cell<usize>,
}

/// The reader: the prepared text's offsets, the names declared, the labels handed out.
pub(crate) struct Reader<'a> {
    prep: &'a Prepared,
    labels: Labels,
    macros: FxHashMap<String, i64>,
    typedefs: FxHashSet<String>,
    globals: FxHashMap<String, usize>,
    functions: FxHashMap<String, usize>,
    model: Model,
    taken: FxHashSet<String>,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(source: &'a str, prep: &'a Prepared) -> Self {
        Reader {
            prep,
            labels: Labels::new(source),
            macros: FxHashMap::default(),
            typedefs: FxHashSet::default(),
            globals: FxHashMap::default(),
            functions: FxHashMap::default(),
            model: Model::default(),
            taken: FxHashSet::default(),
        }
    }

    fn span<T>(&self, n: &Node<T>) -> Span {
        self.prep.span(n.span.start, n.span.end)
    }

    /// Reads the translation unit.
    pub(crate) fn read(mut self, unit: &TranslationUnit) -> Result<Model, Diagnostic> {
        self.read_macros()?;
        let mut defs = Vec::new();
        for d in &unit.0 {
            match &d.node {
                ExternalDeclaration::Declaration(decl) => self.global_decl(decl)?,
                ExternalDeclaration::FunctionDefinition(f) => defs.push(self.signature(f)?),
                ExternalDeclaration::StaticAssert(s) => return Err(outside("`_Static_assert`", self.span(s))),
            }
        }
        for name in self.macros.keys().chain(self.globals.keys()).chain(self.functions.keys()) {
            self.taken.insert(name.clone());
        }
        self.name_params();
        for (i, f) in defs.into_iter().enumerate() {
            self.body(i, f)?;
        }
        Ok(self.model)
    }

    fn read_macros(&mut self) -> Result<(), Diagnostic> {
        for d in &self.prep.defines {
            let value = if d.value == "true" {
                Some(1)
            } else if d.value == "false" {
                Some(0)
            } else if let Some(&v) = self.macros.get(&d.value) {
                Some(v)
            } else {
                int_literal(d.value.trim_start_matches('-').trim_start_matches(['(', ' ']).trim_end_matches([')', ' ']))
                    .map(|v| if d.value.starts_with('-') { v.wrapping_neg() } else { v })
            };
            let Some(value) = value else {
                return Err(error(
                    "C0102",
                    format!("the macro `{}` is not an integer constant", d.name),
                    d.span,
                    "a macro's value must be a number, `true`, `false` or another macro",
                ));
            };
            if self.macros.insert(d.name.clone(), value).is_some() {
                return Err(error("C0103", format!("the macro `{}` is defined twice", d.name), d.span, "again here"));
            }
        }
        Ok(())
    }

    /// A declaration at the top level: a typedef, globals, or a prototype (ignored).
    fn global_decl(&mut self, decl: &Node<Declaration>) -> Result<(), Diagnostic> {
        let typedef = self.specifiers(&decl.node.specifiers)?;
        for init in &decl.node.declarators {
            let d = &init.node.declarator;
            let (name, nspan) = self.declarator_name(d)?;
            if typedef {
                self.typedefs.insert(name);
                continue;
            }
            let is_function = d
                .node
                .derived
                .iter()
                .any(|x| matches!(x.node, DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)));
            let pointer = self.check_derived(d, true)?;
            if is_function && !pointer {
                continue; // a prototype
            }
            let init_value = match &init.node.initializer {
                None => 0,
                Some(i) => match &i.node {
                    Initializer::Expression(e) => self.constant(e)?,
                    Initializer::List(_) => return Err(outside("an initialiser list", self.span(i))),
                },
            };
            self.check_name(&name, nspan)?;
            if self.globals.contains_key(&name) || self.macros.contains_key(&name) {
                return Err(error("C0103", format!("`{name}` is declared twice"), nspan, "again here"));
            }
            self.globals.insert(name.clone(), self.model.globals.len());
            self.model.globals.push(Global { name, init: init_value, span: nspan });
        }
        Ok(())
    }

    /// Checks declaration specifiers: integer types, `void`, typedef names; whether it is a
    /// `typedef`.
    fn specifiers(&self, specs: &[Node<DeclarationSpecifier>]) -> Result<bool, Diagnostic> {
        let mut typedef = false;
        for s in specs {
            match &s.node {
                DeclarationSpecifier::StorageClass(c) => match c.node {
                    StorageClassSpecifier::Typedef => typedef = true,
                    StorageClassSpecifier::Static | StorageClassSpecifier::Extern | StorageClassSpecifier::Register => {
                    }
                    _ => return Err(outside("this storage class", self.span(s))),
                },
                DeclarationSpecifier::TypeSpecifier(t) => match &t.node {
                    TypeSpecifier::Void
                    | TypeSpecifier::Char
                    | TypeSpecifier::Short
                    | TypeSpecifier::Int
                    | TypeSpecifier::Long
                    | TypeSpecifier::Signed
                    | TypeSpecifier::Unsigned
                    | TypeSpecifier::Bool
                    | TypeSpecifier::TypedefName(_) => {}
                    TypeSpecifier::Struct(_) => return Err(outside("a struct or union", self.span(s))),
                    TypeSpecifier::Enum(_) => return Err(outside("an enum", self.span(s))),
                    _ => return Err(outside("this type (only integer types are read)", self.span(s))),
                },
                DeclarationSpecifier::TypeQualifier(_) | DeclarationSpecifier::Function(_) => {}
                _ => return Err(outside("this declaration specifier", self.span(s))),
            }
        }
        Ok(typedef)
    }

    fn declarator_name(&self, d: &Node<Declarator>) -> Result<(String, Span), Diagnostic> {
        match &d.node.kind.node {
            DeclaratorKind::Identifier(id) => Ok((id.node.name.clone(), self.span(id))),
            DeclaratorKind::Declarator(inner) => self.declarator_name(inner),
            DeclaratorKind::Abstract => {
                Err(error("C0104", "a declaration without a name", self.span(d), "name missing"))
            }
        }
    }

    /// Rejects arrays and pointers other than a function pointer (`void (*hook)()`); whether
    /// it is a function pointer.
    fn check_derived(&self, d: &Node<Declarator>, allow_hook: bool) -> Result<bool, Diagnostic> {
        let mut pointer = false;
        if let DeclaratorKind::Declarator(inner) = &d.node.kind.node {
            for x in &inner.node.derived {
                match x.node {
                    DerivedDeclarator::Pointer(_) if allow_hook => pointer = true,
                    _ => return Err(outside("this declarator", self.span(x))),
                }
            }
        }
        for x in &d.node.derived {
            match &x.node {
                DerivedDeclarator::Array(_) => return Err(outside("an array", self.span(x))),
                DerivedDeclarator::Pointer(_) => {
                    return Err(outside("a pointer (other than a function pointer hook)", self.span(x)))
                }
                _ => {}
            }
        }
        let function = d
            .node
            .derived
            .iter()
            .any(|x| matches!(x.node, DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)));
        if pointer && !function {
            return Err(outside("a pointer (other than a function pointer hook)", self.span(d)));
        }
        Ok(pointer)
    }

    fn check_name(&self, name: &str, span: Span) -> Result<(), Diagnostic> {
        if CWHILE_KEYWORDS.contains(&name) {
            return Err(error("C0105", format!("the name `{name}` is reserved by PACES"), span, "rename it"));
        }
        Ok(())
    }

    /// A function's name and parameters; its body is read later.
    fn signature<'f>(&mut self, f: &'f Node<FunctionDefinition>) -> Result<&'f Node<FunctionDefinition>, Diagnostic> {
        self.specifiers(&f.node.specifiers)?;
        if let Some(d) = f.node.declarations.first() {
            return Err(outside("a K&R parameter declaration list", self.span(d)));
        }
        let d = &f.node.declarator;
        let (name, span) = self.declarator_name(d)?;
        self.check_name(&name, span)?;
        let mut params = Vec::new();
        for x in &d.node.derived {
            match &x.node {
                DerivedDeclarator::Function(fd) => {
                    for p in &fd.node.parameters {
                        self.specifiers(&p.node.specifiers)?;
                        if let Some(pd) = &p.node.declarator {
                            self.check_derived(pd, false)?;
                            let (pname, pspan) = self.declarator_name(pd)?;
                            self.check_name(&pname, pspan)?;
                            params.push((pname, pspan));
                        }
                    }
                }
                DerivedDeclarator::KRFunction(ids) => {
                    if let Some(id) = ids.first() {
                        return Err(outside("a K&R parameter list", self.span(id)));
                    }
                }
                _ => return Err(outside("this function declarator", self.span(x))),
            }
        }
        if self.functions.contains_key(&name) || self.globals.contains_key(&name) {
            return Err(error("C0103", format!("`{name}` is declared twice"), span, "again here"));
        }
        self.functions.insert(name.clone(), self.model.functions.len());
        self.model.functions.push(Function {
            name,
            span: self.span(f),
            params,
            param_vars: Vec::new(),
            returns: false,
            locals: Vec::new(),
            body: Vec::new(),
            calls: Vec::new(),
        });
        Ok(f)
    }

    /// Gives each parameter its Cwhile local: its own name, or with `_` appended while that
    /// names a global, a macro or a function (C lets a parameter hide a global; Cwhile does not).
    fn name_params(&mut self) {
        for i in 0..self.model.functions.len() {
            let f = &self.model.functions[i];
            let mut vars: Vec<String> = Vec::new();
            for (p, _) in &f.params {
                let mut v = p.clone();
                while self.taken.contains(&v) || vars.contains(&v) || f.params.iter().any(|(q, _)| *q == v && q != p) {
                    v.push('_');
                }
                vars.push(v);
            }
            self.model.functions[i].param_vars = vars;
        }
    }
}

/// A C integer literal (decimal, `0x` hex, `0` octal; suffixes `u`/`l` ignored).
fn int_literal(s: &str) -> Option<i64> {
    let s = s.trim_end_matches(['u', 'U', 'l', 'L']);
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(digits, radix).ok().and_then(|v| i64::try_from(v).ok())
}

//! `Printer::comments` (what `paces fmt` writes): every comment of the source is kept, in
//! order, next to the statement it stands by; the text parses back to the same program, and
//! formatting it again changes nothing.

use paces_cwhile::{parse, Printer};

/// The comments of a Cwhile text, in order (it has no string literals).
fn comments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("//").into_iter().chain(rest.find("/*")).min() {
        let tail = &rest[i..];
        let end = if tail.starts_with("//") {
            tail.find('\n').unwrap_or(tail.len())
        } else {
            tail.find("*/").map_or(tail.len(), |k| k + 2)
        };
        out.push(tail[..end].trim_end().to_owned());
        rest = &tail[end..];
    }
    out
}

/// Formats `source` and checks the properties every formatted text has.
#[track_caller]
fn format(source: &str) -> String {
    let program = parse(source).expect("the source parses");
    let text = Printer::new(&program).comments(source).print();
    let back = parse(&text).unwrap_or_else(|d| panic!("{d}\n{text}"));
    assert_eq!(Printer::new(&back).print(), Printer::new(&program).print(), "the same program:\n{text}");
    assert_eq!(comments(&text), comments(source), "every comment, in order:\n{text}");
    assert_eq!(Printer::new(&back).comments(&text).print(), text, "formatting again changes nothing");
    text
}

#[test]
fn comments_stay_by_their_statements() {
    let source = "\
// A header comment
// over two lines.
var x = 0, y; // the globals

/* The writer. */
thread w {
  // first the data
  A: x := 1; // data
  y := 1;
  while (*) {
    skip; // idle
    // end of loop body
  }
  if (x == 1) {
    // then
    skip;
  } else {
    // else
    skip;
  }
  // before the end
}

// a procedure
proc p { local a; a := 1; } // after p

thread r { p(); p.a := 2; assert(y == 0 || x == 1); }
// the end of the file
";
    let expected = "\
// A header comment
// over two lines.
var x = 0, y = 0; // the globals

/* The writer. */
thread w {
  // first the data
  A: x := 1; // data
  w.1: y := 1;
  w.2: while (*) {
    w.3: skip; // idle
    // end of loop body
  }
  w.4: if (x == 1) {
    // then
    w.5: skip;
  } else {
    // else
    w.6: skip;
  }
  // before the end
}

// a procedure
proc p {
  local a = 0;
  p.0: a := 1;
} // after p

thread r {
  r.0: p();
  r.1: p.a := 2;
  r.2: assert(y == 0 || x == 1);
}
// the end of the file
";
    assert_eq!(format(source), expected);
}

#[test]
fn a_program_without_comments_prints_canonically() {
    let source = "var x;\nthread t { x := 1; if (*) { skip; } }\n";
    let program = parse(source).unwrap();
    assert_eq!(Printer::new(&program).comments(source).print(), Printer::new(&program).print());
}

#[test]
fn comments_in_odd_places_are_kept() {
    // Between a label and its statement, inside an empty block, inside an expression, after
    // the last `}` on its line, a block comment over several lines.
    format("var x;\nthread t {\n  A: /* here */ x := 1;\n  if (*) { /* empty */ }\n  x := x + /* one */ 1;\n}\n/* a\n   longer\n   one */\n");
    format("thread t { skip; } // end\n");
    format("/* only */ thread t { skip; }\n");
}

#[test]
fn the_held_in_models_keep_every_comment() {
    let mut seen = 0;
    for name in paces_heldin::NAMES {
        let source = paces_heldin::source(name);
        let text = format(source);
        assert!(!comments(&text).is_empty() || comments(source).is_empty(), "{name}");
        seen += 1;
    }
    assert!(seen >= 10, "only {seen} models");
}

/// Every shipped example with a comment added at the end of every line and a block comment
/// line before every third line: all of them are kept, in order, and the text formats to a
/// fixed point that parses to the same program.
#[test]
fn comments_everywhere_in_the_examples_are_kept() {
    let mut seen = 0;
    for name in paces_heldin::NAMES {
        let source = paces_heldin::source(name);
        if source.contains("/*") {
            continue;
        }
        let mut busy = String::new();
        for (i, line) in source.lines().enumerate() {
            if i % 3 == 0 {
                busy.push_str(&format!("/* b{i} */\n"));
            }
            busy.push_str(line);
            if !line.contains("//") {
                busy.push_str(&format!(" // c{i}"));
            }
            busy.push('\n');
        }
        format(&busy);
        seen += 1;
    }
    assert!(seen >= 10, "only {seen} examples");
}

/// A blank line (or several) after a comment above the first declaration is kept as one; one
/// the source does not have is not added, and blank lines elsewhere are not kept.
#[test]
fn the_header_comment_keeps_its_blank_line() {
    let body = "thread t {\n  t.0: x := 1;\n}\n";
    // Before globals, after several blank lines, and between two paragraphs of the header.
    let source = format!("// header\n//\n// more\n\n\n/* second */\n  \nvar x;\n\n\n{body}");
    assert_eq!(format(&source), format!("// header\n//\n// more\n\n/* second */\n\nvar x = 0;\n\n{body}"));
    // Without a blank line in the source, none is added.
    let source = format!("// header\nvar x;\n{body}");
    assert_eq!(format(&source), format!("// header\nvar x = 0;\n\n{body}"));
    // Without globals: the header stands above the first thread, with its blank line or without.
    let source = "// header\n\nthread t { skip; }\n// above u\n\n\nthread u { skip; }\n";
    assert_eq!(format(source), "// header\n\nthread t {\n  t.0: skip;\n}\n\n// above u\nthread u {\n  u.0: skip;\n}\n");
    let source = "// header\nthread t { skip; }\n";
    assert_eq!(format(source), "// header\nthread t {\n  t.0: skip;\n}\n");
    // A blank line before the header is not kept.
    let source = "\n\n// header\n\nvar x;\nthread t { skip; }\n";
    assert_eq!(format(source), "// header\n\nvar x = 0;\n\nthread t {\n  t.0: skip;\n}\n");
}

//! A small line diff (longest common subsequence) for reports: the unified-style text of
//! [`line_diff`], and the changed runs of lines ([`hunks`]) that the SARIF fixes replace.

use std::ops::Range;

/// One step of an edit script from `a` to `b`: keep line `a[i]` (equal to `b[j]`), delete
/// `a[i]`, or insert `b[j]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edit {
    Keep(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// A shortest edit script from `a` to `b` (a longest common subsequence kept), in order.
fn edits<T: PartialEq>(a: &[T], b: &[T]) -> Vec<Edit> {
    // Trim the common prefix and suffix so the quadratic table stays small.
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let (n, m) = (ma.len(), mb.len());
    // lcs[i][j] = length of the LCS of ma[i..] and mb[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i * (m + 1) + j] = if ma[i] == mb[j] {
                lcs[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                lcs[(i + 1) * (m + 1) + j].max(lcs[i * (m + 1) + j + 1])
            };
        }
    }
    let mut out: Vec<Edit> = (0..prefix).map(|i| Edit::Keep(i, i)).collect();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && ma[i] == mb[j] {
            out.push(Edit::Keep(prefix + i, prefix + j));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i * (m + 1) + j + 1] >= lcs[(i + 1) * (m + 1) + j]) {
            out.push(Edit::Insert(prefix + j));
            j += 1;
        } else {
            out.push(Edit::Delete(prefix + i));
            i += 1;
        }
    }
    out.extend((0..suffix).map(|k| Edit::Keep(a.len() - suffix + k, b.len() - suffix + k)));
    out
}

/// A unified-style diff of two texts: lines only in `old` start with `-`, lines only in
/// `new` with `+`, common lines with a space; two common lines of context before the first
/// change and after the last. Empty when the texts are equal.
pub fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let script = edits(&a, &b);
    let changed = |e: &&Edit| !matches!(e, Edit::Keep(..));
    let (Some(first), Some(last)) = (script.iter().position(|e| changed(&e)), script.iter().rposition(|e| changed(&e)))
    else {
        return String::new();
    };
    let context = 2;
    let shown = &script[first.saturating_sub(context)..(last + 1 + context).min(script.len())];
    shown
        .iter()
        .map(|e| match *e {
            Edit::Keep(i, _) => format!(" {}\n", a[i]),
            Edit::Delete(i) => format!("-{}\n", a[i]),
            Edit::Insert(j) => format!("+{}\n", b[j]),
        })
        .collect()
}

/// A changed run of lines: the lines `old` of the first sequence give way to the lines `new`
/// of the second (either may be empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hunk {
    /// The lines deleted (indices into the first sequence).
    pub old: Range<usize>,
    /// The lines inserted in their place (indices into the second sequence).
    pub new: Range<usize>,
}

/// The changed runs of lines from `a` to `b`, in order, none touching another.
pub(crate) fn hunks<T: PartialEq>(a: &[T], b: &[T]) -> Vec<Hunk> {
    let mut out: Vec<Hunk> = Vec::new();
    // Where the next line of each side stands.
    let (mut i, mut j) = (0, 0);
    let mut open: Option<Hunk> = None;
    for e in edits(a, b) {
        match e {
            Edit::Keep(ai, bj) => {
                out.extend(open.take());
                (i, j) = (ai + 1, bj + 1);
            }
            Edit::Delete(ai) => {
                open.get_or_insert(Hunk { old: i..i, new: j..j }).old.end = ai + 1;
                i = ai + 1;
            }
            Edit::Insert(bj) => {
                open.get_or_insert(Hunk { old: i..i, new: j..j }).new.end = bj + 1;
                j = bj + 1;
            }
        }
    }
    out.extend(open);
    out
}

#[cfg(test)]
mod tests {
    use super::{hunks, line_diff, Hunk};

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(line_diff("a\nb\n", "a\nb\n"), "");
        assert!(hunks(&["a", "b"], &["a", "b"]).is_empty());
    }

    #[test]
    fn moved_line_shows_as_removed_and_added() {
        let d = line_diff("x\nA\nB\nC\ny\n", "x\nB\nC\nA\ny\n");
        assert_eq!(d, " x\n-A\n B\n C\n+A\n y\n");
    }

    #[test]
    fn context_is_two_lines_each_side() {
        let d = line_diff("1\n2\n3\n4\n5\n6\n7\n", "1\n2\n3\nX\n5\n6\n7\n");
        assert_eq!(d, " 2\n 3\n+X\n-4\n 5\n 6\n", "a replacement shows its new line first");
    }

    #[test]
    fn hunks_name_the_changed_lines_of_each_side() {
        let a = ["x", "A", "B", "C", "y"];
        let b = ["x", "B", "C", "A", "y"];
        assert_eq!(hunks(&a, &b), vec![Hunk { old: 1..2, new: 1..1 }, Hunk { old: 4..4, new: 3..4 }]);
        // A replacement, an insertion at the end and a deletion at the start.
        assert_eq!(hunks(&["a", "b"], &["c"]), vec![Hunk { old: 0..2, new: 0..1 }]);
        assert_eq!(hunks(&["a"], &["a", "b"]), vec![Hunk { old: 1..1, new: 1..2 }]);
        assert_eq!(hunks(&["a", "b"], &["b"]), vec![Hunk { old: 0..1, new: 0..0 }]);
    }
}

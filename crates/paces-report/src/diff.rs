//! A small line diff (longest common subsequence) for reports.

/// A unified-style diff of two texts: lines only in `old` start with `-`, lines only in
/// `new` with `+`, common lines with a space. Empty when the texts are equal.
pub fn line_diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    if a == b {
        return String::new();
    }
    // Trim the common prefix and suffix so the quadratic table stays small.
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
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
    let mut out = String::new();
    let context = 2;
    for line in &a[prefix.saturating_sub(context)..prefix] {
        out.push_str(&format!(" {line}\n"));
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && ma[i] == mb[j] {
            out.push_str(&format!(" {}\n", ma[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i * (m + 1) + j + 1] >= lcs[(i + 1) * (m + 1) + j]) {
            out.push_str(&format!("+{}\n", mb[j]));
            j += 1;
        } else {
            out.push_str(&format!("-{}\n", ma[i]));
            i += 1;
        }
    }
    for line in a[a.len() - suffix..].iter().take(context) {
        out.push_str(&format!(" {line}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::line_diff;

    #[test]
    fn equal_texts_have_no_diff() {
        assert_eq!(line_diff("a\nb\n", "a\nb\n"), "");
    }

    #[test]
    fn moved_line_shows_as_removed_and_added() {
        let d = line_diff("x\nA\nB\nC\ny\n", "x\nB\nC\nA\ny\n");
        assert_eq!(d, " x\n-A\n B\n C\n+A\n y\n");
    }
}

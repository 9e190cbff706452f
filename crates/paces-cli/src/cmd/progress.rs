//! The live progress line on stderr: redrawn in place while a check or a repair runs and
//! cleared at the end; drawn only on a terminal.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};

use paces::explore::Progress;

/// A status line at the bottom of stderr. Every method writes to stderr at once; the line is
/// redrawn from the start (carriage return) and its rest erased, so a shorter text leaves no
/// trace of a longer one.
#[derive(Debug, Default)]
pub struct StatusLine {
    /// Whether a status text is on the screen now.
    drawn: Mutex<bool>,
}

/// Erases from the cursor to the end of the line.
const ERASE_REST: &str = "\x1b[K";

impl StatusLine {
    /// A status line when `wanted` and stderr is a terminal; `None` otherwise (a pipe, a file,
    /// a test harness), so nothing is ever written there.
    pub fn on_terminal(wanted: bool) -> Option<Arc<StatusLine>> {
        (wanted && std::io::stderr().is_terminal()).then(|| Arc::new(StatusLine::default()))
    }

    /// Shows `text` in place of what the line showed.
    pub fn draw(&self, text: &str) {
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        let _ = write!(std::io::stderr().lock(), "\r{text}{ERASE_REST}");
        *drawn = true;
    }

    /// Removes the line from the screen.
    pub fn clear(&self) {
        let mut drawn = self.drawn.lock().unwrap_or_else(|e| e.into_inner());
        if *drawn {
            let _ = write!(std::io::stderr().lock(), "\r{ERASE_REST}");
            *drawn = false;
        }
    }
}

/// Writes `line` (and a newline) to stderr, above the status line when there is one: the
/// status text is erased first and comes back with its next [`StatusLine::draw`].
pub fn print_line(status: Option<&StatusLine>, line: &str) {
    if let Some(status) = status {
        status.clear();
    }
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// A check's progress in words: `1.25M states (410.3k/s), 96.0 MiB, depth 57`.
pub fn progress_text(p: &Progress) -> String {
    format!(
        "{} states ({}/s), {:.1} MiB, depth {}",
        short(p.states as f64),
        short(p.states_per_second()),
        p.memory as f64 / (1024.0 * 1024.0),
        p.depth
    )
}

/// A count in at most four digits and a suffix: `950`, `12.5k`, `3.20M`.
fn short(n: f64) -> String {
    if n < 1e3 {
        format!("{n:.0}")
    } else if n < 1e6 {
        format!("{:.1}k", n / 1e3)
    } else {
        format!("{:.2}M", n / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_short() {
        assert_eq!(short(950.0), "950");
        assert_eq!(short(12_500.0), "12.5k");
        assert_eq!(short(3_204_000.0), "3.20M");
    }

    #[test]
    fn no_status_line_unless_wanted() {
        assert!(StatusLine::on_terminal(false).is_none());
    }
}

//! A line of progress on standard error, redrawn at most five times a
//! second, when standard error is a terminal; nothing otherwise (a
//! redirected or captured standard error gets no progress noise).

use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A progress line: [`show`](Ticker::show) redraws it when due,
/// [`done`](Ticker::done) clears it.
pub struct Ticker {
    shown: bool,
    /// When the line was last drawn, and whether it is on the screen.
    last: Mutex<(Option<Instant>, bool)>,
}

impl Ticker {
    /// A ticker that draws when standard error is a terminal.
    pub fn new() -> Ticker {
        Ticker::drawing(std::io::IsTerminal::is_terminal(&std::io::stderr()))
    }

    /// A ticker that draws when `shown`.
    pub fn drawing(shown: bool) -> Ticker {
        Ticker {
            shown,
            last: Mutex::new((None, false)),
        }
    }

    /// Whether it draws at all (to skip work for a line never shown).
    pub fn shown(&self) -> bool {
        self.shown
    }

    /// Draws the line `line` makes, if 200 ms have passed since the last.
    pub fn show(&self, line: impl FnOnce() -> String) {
        if !self.shown {
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last
            .0
            .is_some_and(|t| t.elapsed() < Duration::from_millis(200))
        {
            return;
        }
        eprint!("\r{:78}\r{}", "", line());
        let _ = std::io::stderr().flush();
        *last = (Some(Instant::now()), true);
    }

    /// Clears the line, if it is on the screen: at the end, and before
    /// other output to the same terminal (a row printed, an error line).
    pub fn done(&self) {
        if !self.shown {
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.1 {
            eprint!("\r{:78}\r", "");
            let _ = std::io::stderr().flush();
            last.1 = false;
        }
    }
}

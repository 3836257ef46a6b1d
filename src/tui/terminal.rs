//! The one owner of the terminal. [`init`] installs a panic hook that turns mouse capture off,
//! then `ratatui::try_init` (whose own hook restores raw mode and the main screen before the
//! previous hooks print), then enables mouse capture. The returned [`TerminalGuard`] restores
//! everything on drop, so quitting, `?` errors and panics all leave a usable shell.
//! [`TerminalGuard::suspend`] / [`TerminalGuard::resume`] hand the terminal to `$EDITOR`.

use std::io::{self, IsTerminal, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::backend::CrosstermBackend;
use ratatui::{DefaultTerminal, Terminal};

static HOOK: Once = Once::new();
static WATCH: Once = Once::new();
/// While the UI owns the terminal: which of stdin (1) and stdout (2) were terminals when it
/// took it; 0 when it does not own it.
static WATCHED: AtomicU8 = AtomicU8::new(0);

/// Ends the process when the terminal goes away under the UI (a closed ssh session, a killed
/// tmux): a hung-up terminal reads as end of file forever, and crossterm's reader then loops
/// on it inside the event loop's poll (seen: a core at 77 % for as long as the process lived,
/// the SIGHUP handler never reached). A thread outside the loop checks twice a second whether
/// what was a terminal still is one (a hung-up one is not: its ioctls fail) and exits 129, as
/// for SIGHUP; the writes already sent stay sent, as on a signal.
fn watch_for_hangup() {
    WATCH.call_once(|| {
        let _ = std::thread::Builder::new().name("tty-hangup".into()).spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let watched = WATCHED.load(Ordering::Acquire);
                let gone = (watched & 1 != 0 && !io::stdin().is_terminal())
                    || (watched & 2 != 0 && !io::stdout().is_terminal());
                if gone {
                    let _ = writeln!(io::stderr(), "kschedtui: the terminal hung up; exiting");
                    std::process::exit(129);
                }
            }
        });
    });
}

fn watch(on: bool) {
    let bits = if on {
        u8::from(io::stdin().is_terminal()) | (u8::from(io::stdout().is_terminal()) << 1)
    } else {
        0
    };
    WATCHED.store(bits, Ordering::Release);
}

fn disable_mouse() {
    let _ = execute!(io::stdout(), DisableMouseCapture);
}

/// Owns the terminal while the UI runs.
pub(crate) struct TerminalGuard {
    /// The ratatui terminal.
    pub terminal: DefaultTerminal,
}

/// Enters raw mode, the alternate screen and mouse capture.
pub(crate) fn init() -> io::Result<TerminalGuard> {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            disable_mouse();
            previous(info);
        }));
    });
    let terminal = ratatui::try_init()?;
    let guard = TerminalGuard { terminal };
    execute!(io::stdout(), EnableMouseCapture)?;
    watch(true);
    watch_for_hangup();
    Ok(guard)
}

impl TerminalGuard {
    /// Gives the terminal back to the shell (for `$EDITOR`).
    pub(crate) fn suspend(&mut self) -> io::Result<()> {
        watch(false);
        execute!(io::stdout(), DisableMouseCapture)?;
        disable_raw_mode()?;
        execute!(io::stdout(), LeaveAlternateScreen)?;
        io::stdout().flush()
    }

    /// Takes the terminal again after [`TerminalGuard::suspend`]: a cleared alternate screen
    /// and a fresh ratatui terminal, so the next frame is drawn whole. (`Terminal::clear` would
    /// ask the terminal for the cursor position, which races with the input reader.)
    pub(crate) fn resume(&mut self) -> io::Result<()> {
        enable_raw_mode()?;
        execute!(
            io::stdout(),
            EnterAlternateScreen,
            Clear(ClearType::All),
            EnableMouseCapture
        )?;
        self.terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        watch(true);
        Ok(())
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        watch(false);
        disable_mouse();
        ratatui::restore();
    }
}

/// Puts `text` on the terminal's clipboard with OSC 52 (xterm's "manipulate selection data":
/// `ESC ] 52 ; c ; BASE64 BEL`); terminals that do not allow it ignore the sequence.
pub(crate) fn copy_to_clipboard(text: &str) -> io::Result<()> {
    use base64::Engine as _;
    let mut out = io::stdout().lock();
    write!(
        out,
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    )?;
    out.flush()
}

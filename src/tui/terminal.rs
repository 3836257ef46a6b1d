//! The one owner of the terminal. [`init`] installs a panic hook that turns mouse capture off,
//! then `ratatui::try_init` (whose own hook restores raw mode and the main screen before the
//! previous hooks print), then enables mouse capture. The returned [`TerminalGuard`] restores
//! everything on drop, so quitting, `?` errors and panics all leave a usable shell.
//! [`TerminalGuard::suspend`] / [`TerminalGuard::resume`] hand the terminal to `$EDITOR`.

use std::io::{self, Write};
use std::sync::Once;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::backend::CrosstermBackend;
use ratatui::{DefaultTerminal, Terminal};

static HOOK: Once = Once::new();

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
    Ok(guard)
}

impl TerminalGuard {
    /// Gives the terminal back to the shell (for `$EDITOR`).
    pub(crate) fn suspend(&mut self) -> io::Result<()> {
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
        Ok(())
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
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

//! Table columns that fit the terminal. Each column is as wide as its widest value; the column
//! that answers the screen's question (why a pod is pending, where a node is, what would move a
//! pod on) keeps the room it needs, and the others give way in a set order: text is cut and
//! ends in `…`, a number is never cut (its column is shown whole or left out).
//!
//! ratatui's `Table` cuts a cell that does not fit without a mark, which turns 2000000000 into
//! a plausible 200000: every cell of the tables laid out here is cut by [`cut`] or [`cut_line`]
//! to the width [`fit`] gave its column, so the table never has to.

use std::borrow::Cow;

use ratatui::text::{Line, Span};

/// One column: how wide its values are and how far it may be cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Col {
    /// The widest value, header included.
    pub(super) want: usize,
    /// The narrowest it may be cut to; `want` for a number, which is never cut.
    pub(super) min: usize,
}

impl Col {
    /// A text column: `want` wide, cut to `min` at most.
    pub(super) fn text(want: usize, min: usize) -> Self {
        Col {
            want,
            min: min.min(want),
        }
    }

    /// A column of numbers (or of amounts with their unit): never cut.
    pub(super) fn number(want: usize) -> Self {
        Col { want, min: want }
    }
}

/// How a column gives way to the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Give {
    /// Cut to its `min` (its text ends in `…`).
    Cut(usize),
    /// Left out.
    Drop(usize),
}

/// The columns' widths in `total` cells with `spacing` between them (None: left out).
/// Column `answer` takes what the others leave; until it has `answer_min`, the other columns
/// give way step by step as `steps` says (a step that does not apply is passed over).
pub(super) fn fit(
    total: usize,
    spacing: usize,
    cols: &[Col],
    answer: usize,
    answer_min: usize,
    steps: &[Give],
) -> Vec<Option<usize>> {
    let mut w: Vec<Option<usize>> = cols.iter().map(|c| Some(c.want)).collect();
    let used = |w: &[Option<usize>]| -> usize {
        let shown = w.iter().filter(|x| x.is_some()).count();
        let others: usize = w
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != answer)
            .filter_map(|(_, x)| *x)
            .sum();
        others + spacing * shown.saturating_sub(1)
    };
    for step in steps {
        let over = (used(&w) + answer_min).saturating_sub(total);
        if over == 0 {
            break;
        }
        match *step {
            Give::Cut(i) => {
                if let Some(x) = w[i] {
                    w[i] = Some(x.saturating_sub(over).max(cols[i].min));
                }
            }
            Give::Drop(i) => w[i] = None,
        }
    }
    w[answer] = Some(total.saturating_sub(used(&w)));
    w
}

/// Display width of a text (as the terminal draws it).
pub(super) fn width(s: &str) -> usize {
    Span::raw(s).width()
}

/// `text` in at most `w` cells: cut, with `…` in the last cell, when it is wider.
pub(super) fn cut(text: &str, w: usize) -> Cow<'_, str> {
    if width(text) <= w {
        return Cow::Borrowed(text);
    }
    Cow::Owned(ellipsized(text, w))
}

/// The start of `text` and `…`, in at most `w` cells (nothing in none).
fn ellipsized(text: &str, w: usize) -> String {
    if w == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let mut buf = [0u8; 4];
        let cw = width(c.encode_utf8(&mut buf));
        if used + cw + 1 > w {
            break;
        }
        out.push(c);
        used += cw;
    }
    out.push('…');
    out
}

/// A line of styled spans in at most `w` cells, cut as [`cut`] cuts (the `…` takes the style of
/// the span it ends).
pub(super) fn cut_line(line: Line<'_>, w: usize) -> Line<'_> {
    if line.width() <= w {
        return line;
    }
    let style = line.style;
    let mut out: Vec<Span<'_>> = Vec::new();
    let mut used = 0;
    for s in line.spans {
        let sw = s.width();
        if used + sw < w {
            used += sw;
            out.push(s);
            continue;
        }
        out.push(Span::styled(ellipsized(&s.content, w - used), s.style));
        break;
    }
    Line::from(out).style(style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_text_ends_in_an_ellipsis_and_keeps_its_width() {
        assert_eq!(cut("scheduler-plugins-scheduler", 18), "scheduler-plugins…");
        assert_eq!(cut("europe-west4-a", 14), "europe-west4-a");
        assert_eq!(cut("europe-west4-a", 8), "europe-…");
        assert_eq!(cut("ab", 1), "…");
        assert_eq!(cut("ab", 0), "");
        assert_eq!(cut("8× node affinity", 5), "8× n…");
    }

    #[test]
    fn a_line_is_cut_across_its_spans() {
        let l = Line::from(vec![Span::raw("web"), Span::raw("-"), Span::raw("frontend")]);
        let c = cut_line(l, 7);
        assert_eq!(
            c.spans.iter().map(|s| s.content.as_ref()).collect::<Vec<_>>(),
            ["web", "-", "fr…"]
        );
        let l = Line::from(vec![Span::raw("abc"), Span::raw("def")]);
        let c = cut_line(l, 3);
        assert_eq!(c.spans.iter().map(|s| s.content.as_ref()).collect::<Vec<_>>(), ["ab…"]);
        let l = Line::from(vec![Span::raw("abc"), Span::raw("def")]);
        let c = cut_line(l, 4);
        assert_eq!(
            c.spans.iter().map(|s| s.content.as_ref()).collect::<Vec<_>>(),
            ["abc", "…"]
        );
        let l = Line::from(vec![Span::raw("abc")]);
        assert_eq!(cut_line(l.clone(), 3), l);
    }

    #[test]
    fn the_answer_gets_its_room_from_the_columns_that_give_way() {
        let cols = [Col::text(16, 5), Col::number(10), Col::number(4), Col::text(0, 0)];
        let steps = [Give::Cut(0), Give::Drop(2)];
        // room for everything: the answer takes the rest
        assert_eq!(
            fit(80, 1, &cols, 3, 30, &steps),
            [Some(16), Some(10), Some(4), Some(47)]
        );
        // the name gives way first, to its minimum
        assert_eq!(fit(56, 1, &cols, 3, 30, &steps), [Some(9), Some(10), Some(4), Some(30)]);
        // then the third column goes; the number is never cut
        assert_eq!(fit(49, 1, &cols, 3, 30, &steps), [Some(5), Some(10), None, Some(32)]);
        // with no more to give the answer takes what is left
        assert_eq!(fit(30, 1, &cols, 3, 30, &steps), [Some(5), Some(10), None, Some(13)]);
        // a column left out before another is cut keeps the other whole
        let steps = [Give::Drop(2), Give::Cut(0)];
        assert_eq!(fit(56, 1, &cols, 3, 30, &steps), [Some(14), Some(10), None, Some(30)]);
    }
}

//! The inline what-if form and what an edit applies to.

use super::data::set_cluster;
use crate::app::whatif::{self, EditTarget};
use crate::app::{Action, App, Effect, Mode, Screen};

pub(super) fn edit_target(app: &App) -> Option<EditTarget> {
    match app.screen() {
        None => app
            .pod_rows()
            .pod(app, app.pods.selected)
            .map(|p| EditTarget::Pod(p.key.clone())),
        Some(Screen::Pod(v)) => Some(EditTarget::Pod(v.pod.clone())),
        Some(Screen::Node(v)) => Some(EditTarget::Node(v.node.clone())),
        Some(Screen::Nodes(v)) => app
            .node_rows(v)
            .node(app, v.selected)
            .map(|n| EditTarget::Node(n.name.clone())),
        Some(Screen::Queue(v)) => app.queue_rows().get(v.selected).map(|r| EditTarget::Pod(r.0.clone())),
        Some(Screen::Gang(v)) => app
            .gang_rows(&v.pod)
            .get(v.selected)
            .map(|k| EditTarget::Pod(k.clone())),
        Some(Screen::Deschedule(_) | Screen::Events(_)) => app.focused_pod().map(EditTarget::Pod),
        Some(Screen::Fixes(v)) => Some(EditTarget::Pod(v.pod.clone())),
        Some(Screen::Messages(_) | Screen::Text(_)) => None,
    }
}

/// The editor closed on `target`: the edit applied, or, when the YAML has a mistake, the
/// editor opened again on the text with the error above it (as `kubectl edit` does); saved
/// unchanged or empty, the edit is given up.
pub(super) fn edited(app: &mut App, target: EditTarget, result: Result<String, String>) -> Vec<Effect> {
    let text = match result {
        Ok(t) => t,
        Err(e) => {
            app.error(e);
            return Vec::new();
        }
    };
    let body = whatif::without_edit_error(&text);
    if body.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#')
    }) {
        app.info(format!("edit of {target} cancelled: the file was saved empty"));
        return Vec::new();
    }
    match whatif::apply_yaml(&app.cluster, &target, body, whatif::accept(&app.features)) {
        Ok((c, what)) => set_cluster(app, c, what),
        Err(e) if e.ends_with(whatif::NO_CHANGE) => {
            app.error(e);
            Vec::new()
        }
        Err(e) => {
            let again = whatif::with_edit_error(body, &e);
            if again == text {
                app.error(format!("{e} (saved unchanged: the edit is given up)"));
                return Vec::new();
            }
            app.error(format!("{e}: the editor opens again with the error"));
            vec![Effect::OpenEditor { target, text: again }]
        }
    }
}

pub(super) fn edit(app: &mut App, mut form: whatif::EditForm, action: Action) -> Vec<Effect> {
    let n = form.fields.len();
    match action {
        Action::Input(c) => {
            if let Some(f) = form.fields.get_mut(form.focus) {
                f.value.push(c);
            }
        }
        Action::Backspace => {
            if let Some(f) = form.fields.get_mut(form.focus) {
                f.value.pop();
            }
        }
        Action::ClearInput => {
            if let Some(f) = form.fields.get_mut(form.focus) {
                f.value.clear();
            }
        }
        Action::FieldNext if n > 0 => form.focus = (form.focus + 1) % n,
        Action::FieldPrev if n > 0 => form.focus = (form.focus + n - 1) % n,
        Action::Cancel => return Vec::new(),
        Action::Submit => match whatif::apply_form(&app.cluster, &form, whatif::accept(&app.features)) {
            Ok((c, what)) => return set_cluster(app, c, what),
            Err(e) => form.error = Some(e),
        },
        _ => {}
    }
    app.mode = Mode::Edit(form);
    Vec::new()
}

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

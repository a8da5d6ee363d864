//! The virtual table's row selection (where a list offers bulk actions): a checkbox column,
//! the header's "select all", and what clicks and keys do. Which rows are selected is the
//! caller's (a set of uids, `model::list::selection`); each row reads only its own flag, so
//! a change redraws only the rows whose flag changed.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::model::list::selection::Gesture;

/// Row selection, given by the list.
#[derive(Clone, Copy)]
pub struct RowSelection {
    /// Whether the row at an index of the order is selected (read in a reactive scope).
    pub is_selected: Callback<usize, bool>,
    /// A gesture on the row at an index.
    pub on_gesture: Callback<(usize, Gesture)>,
    /// Escape: nothing selected.
    pub on_clear: Callback<()>,
    /// Whether every row matching the filter is selected (the header's box).
    pub all_selected: Signal<bool>,
    /// The header's box: every row matching the filter, or none.
    pub on_all: Callback<bool>,
}

/// The gesture a click with these modifiers makes: Shift extends, anything else toggles.
pub(super) fn click_gesture(event: &ev::MouseEvent) -> Gesture {
    if event.shift_key() {
        Gesture::Extend
    } else {
        Gesture::Toggle
    }
}

/// The header's box.
pub(super) fn header_cell(selection: RowSelection) -> impl IntoView {
    view! {
        <th scope="col" class="vt-select">
            <input
                type="checkbox"
                aria-label="Select all rows matching the filter"
                prop:checked=move || selection.all_selected.get()
                on:change=move |e| selection.on_all.run(event_target_checked(&e))
            />
        </th>
    }
}

/// A row's box; `name` names the row for screen readers.
pub(super) fn row_cell(
    selection: RowSelection,
    index: usize,
    selected: Memo<bool>,
    name: String,
) -> impl IntoView {
    view! {
        <td class="vt-select">
            <input
                type="checkbox"
                aria-label=format!("Select {name}")
                prop:checked=move || selected.get()
                on:click=move |event: ev::MouseEvent| {
                    // The table's row click must not toggle it a second time.
                    event.stop_propagation();
                    selection.on_gesture.run((index, click_gesture(&event)));
                    // The box says what the selection says (a Shift-click on a selected row
                    // keeps it selected, whatever the browser toggled).
                    if let Some(input) = event
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                    {
                        input.set_checked(selection.is_selected.run(index));
                    }
                }
            />
        </td>
    }
}

/// What a key does to the selection, if anything: Space toggles the active row, Escape
/// clears; Shift+arrows are handled where the active row moves.
pub(super) fn on_key(
    selection: RowSelection,
    event: &ev::KeyboardEvent,
    active: Option<usize>,
) -> bool {
    // A key typed into a box or a field is that control's.
    let in_control = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "SELECT" | "BUTTON"));
    if in_control {
        return false;
    }
    match event.key().as_str() {
        " " => {
            if let Some(index) = active {
                selection.on_gesture.run((index, Gesture::Toggle));
            }
            true
        }
        "Escape" => {
            selection.on_clear.run(());
            true
        }
        _ => false,
    }
}

//! A virtualized table: only the rows in view (plus a small margin) exist in the DOM, so a list
//! of 100,000 objects costs what 40 rows cost. Rows have a fixed height; spacer rows above and
//! below stand in for the rest, so the scrollbar and `aria-rowcount` tell the true size.
//!
//! The table asks for rows by index ([`VirtualTableProps::row_at`]) and only for the visible
//! window, so the caller formats ~40 rows per frame, never the whole list. Rows are keyed by
//! the caller's key (an object's uid plus its revision), so a changed row is redrawn and an
//! unchanged one is kept.
//!
//! Keyboard: the grid takes focus; arrows, Page Up/Down, Home and End move the active row,
//! Enter opens it. Where rows can be selected (`selection.rs`), Space toggles the active row,
//! Shift+arrows extend the selection, Escape clears it.
//!
//! The header's sort buttons are `header.rs`.

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::model::list::selection::Gesture;

/// Height of one row in pixels; the stylesheet sets the same (`.vt-row`).
pub const ROW_HEIGHT: f64 = 30.0;

// What a row and a header hold is the model's (`model::list::display`); this view lays them out.
pub use crate::model::list::display::{DisplayCell, DisplayRow, HeaderCell};

mod cells;
mod header;
mod selection;

pub use selection::RowSelection;

use crate::components::windowing::{use_windowing, UseWindowingOptions, UseWindowingReturn};
use header::header_cells;

#[component]
pub fn VirtualTable(
    /// Accessible name of the grid.
    #[prop(into)]
    label: String,
    #[prop(into)] headers: Signal<Vec<HeaderCell>>,
    #[prop(into)] row_count: Signal<usize>,
    /// The row at an index of the current order; read inside a reactive scope, so the table
    /// redraws when what it reads changes.
    row_at: Callback<usize, Option<DisplayRow>>,
    /// A header was activated (click or Enter): sort by that column id.
    on_sort: Callback<String>,
    /// Enter on a row: open it (the row's href).
    on_open: Callback<String>,
    /// Rows can be selected (a checkbox column).
    #[prop(optional)]
    selection: Option<RowSelection>,
) -> impl IntoView {
    let scroller = NodeRef::<html::Div>::new();
    let window = use_windowing(UseWindowingOptions {
        scroller,
        row_height: ROW_HEIGHT,
        count: row_count,
        initial_viewport: 600.0,
    });
    let UseWindowingReturn {
        scroll_top,
        viewport,
        range,
    } = window;
    let active = RwSignal::new(None::<usize>);
    // The selected object, so the selection stays on it when rows above come or go.
    let active_id = RwSignal::new(None::<String>);

    Effect::new(move |_| {
        if let Some(el) = scroller.get() {
            window.measure(&el);
        }
    });

    // A shorter list (filter, selector) must not leave the view scrolled past its end.
    Effect::new(move |_| {
        let count = row_count.get();
        if let Some(current) = active.get_untracked() {
            if current >= count {
                active.set(count.checked_sub(1));
            }
        }
    });

    let scroll_into_view = move |index: usize| {
        let Some(el) = scroller.get_untracked() else {
            return;
        };
        let header = ROW_HEIGHT;
        let top = index as f64 * ROW_HEIGHT;
        let view_top = el.scroll_top() as f64;
        let view_height = el.client_height() as f64 - header;
        if top < view_top {
            el.set_scroll_top(top as i32);
        } else if top + ROW_HEIGHT > view_top + view_height {
            el.set_scroll_top((top + ROW_HEIGHT - view_height) as i32);
        }
        scroll_top.set(el.scroll_top() as f64);
    };

    // Where the selected object is now (rows may have moved since it was selected).
    let relocated_active = move |index: Option<usize>, id: Option<String>| -> Option<usize> {
        let Some(id) = id else {
            return index;
        };
        let (start, end) = range.get_untracked();
        (start..end)
            .find(|&i| row_at.run(i).is_some_and(|row| row.id == id))
            .or(index)
    };

    let on_keydown = move |event: ev::KeyboardEvent| {
        let count = row_count.get_untracked();
        if count == 0 {
            return;
        }
        let page = ((viewport.get_untracked() / ROW_HEIGHT) as usize)
            .saturating_sub(2)
            .max(1);
        let current = relocated_active(active.get_untracked(), active_id.get_untracked());
        if let Some(selection) = selection {
            if selection::on_key(selection, &event, current) {
                event.prevent_default();
                return;
            }
        }
        let next = match event.key().as_str() {
            "ArrowDown" => current.map_or(0, |i| (i + 1).min(count - 1)),
            "ArrowUp" => current.map_or(0, |i| i.saturating_sub(1)),
            "PageDown" => current.map_or(0, |i| (i + page).min(count - 1)),
            "PageUp" => current.map_or(0, |i| i.saturating_sub(page)),
            "Home" => 0,
            "End" => count - 1,
            "Enter" => {
                if let Some(row) = current.and_then(|i| row_at.run(i)) {
                    event.prevent_default();
                    on_open.run(row.href);
                }
                return;
            }
            _ => return,
        };
        event.prevent_default();
        active.set(Some(next));
        active_id.set(row_at.run(next).map(|row| row.id));
        scroll_into_view(next);
        let vertical = matches!(event.key().as_str(), "ArrowDown" | "ArrowUp");
        if let Some(selection) = selection.filter(|_| event.shift_key() && vertical) {
            // The row left extends too, so the first Shift+arrow takes both rows.
            if let Some(from) = current.filter(|&from| !selection.is_selected.run(from)) {
                selection.on_gesture.run((from, Gesture::Toggle));
            }
            selection.on_gesture.run((next, Gesture::Extend));
        }
    };

    let header_row = move || {
        view! {
            {selection.map(selection::header_cell)}
            {header_cells(headers.get(), on_sort)}
        }
    };

    // Each visible row formatted once per change; the rows drawn read their cells from here.
    let visible_rows = Memo::new(move |_| {
        let (start, end) = range.get();
        (start..end)
            .filter_map(|index| row_at.run(index).map(|row| (index, row)))
            .collect::<Vec<_>>()
    });

    view! {
        <div
            class="vt-scroll"
            node_ref=scroller
            tabindex="0"
            role="region"
            aria-label=format!("{label} (scrollable)")
            on:scroll=move |_| {
                if let Some(el) = scroller.get_untracked() {
                    scroll_top.set(el.scroll_top() as f64);
                }
            }
            on:keydown=on_keydown
        >
            <table
                class="vt-table"
                role="grid"
                aria-label=label.clone()
                aria-rowcount=move || row_count.get() + 1
            >
                <thead>
                    <tr class="vt-row" aria-rowindex="1">{header_row}</tr>
                </thead>
                <tbody>
                    <tr
                        class="vt-spacer"
                        aria-hidden="true"
                        style:height=move || format!("{}px", range.get().0 as f64 * ROW_HEIGHT)
                    ></tr>
                    <For
                        each=move || visible_rows.get()
                        key=|(index, row)| format!("{index}:{}", row.key)
                        children=move |(index, row)| {
                            // The row as it is now: a tick that only changes a cell's text
                            // (an age) updates that text node, not the row.
                            let current = Memo::new(move |_| {
                                visible_rows.with(|rows| {
                                    rows.iter().find(|(i, _)| *i == index).map(|(_, r)| r.clone())
                                })
                            });
                            let id = row.id.clone();
                            let is_active = Memo::new(move |_| {
                                active_id.with(|a| a.as_deref() == Some(id.as_str()))
                            });
                            let row_id = row.id.clone();
                            let selected = Memo::new(move |_| {
                                selection.is_some_and(|s| s.is_selected.run(index))
                            });
                            let name = row
                                .cells
                                .iter()
                                .find(|c| c.link)
                                .map(|c| c.text.clone())
                                .unwrap_or_default();
                            let href = row.href.clone();
                            let problem = row.problem.clone();
                            view! {
                                <tr
                                    class="vt-row"
                                    class:active=is_active
                                    class:problem=problem.is_some()
                                    class:selected=selected
                                    aria-rowindex=index + 2
                                    aria-selected=move || (is_active.get() || selected.get()).to_string()
                                    title=problem.clone()
                                    on:click=move |event: ev::MouseEvent| {
                                        // A click on the link navigates by itself.
                                        let on_link = event
                                            .target()
                                            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                                            .is_some_and(|el| el.tag_name() == "A");
                                        active.set(Some(index));
                                        active_id.set(Some(row_id.clone()));
                                        let chooses = event.shift_key() || event.ctrl_key() || event.meta_key();
                                        if let Some(selection) = selection.filter(|_| chooses && !on_link) {
                                            event.prevent_default();
                                            selection.on_gesture.run((index, selection::click_gesture(&event)));
                                        }
                                        if !on_link {
                                            if let Some(el) = scroller.get_untracked() {
                                                el.focus().ok();
                                            }
                                        }
                                    }
                                >
                                    {selection.map(|s| selection::row_cell(s, index, selected, name.clone()))}
                                    {cells::row_cells(row.cells, current, href.clone(), problem.clone())}
                                </tr>
                            }
                        }
                    />
                    <tr
                        class="vt-spacer"
                        aria-hidden="true"
                        style:height=move || {
                            let (_, end) = range.get();
                            format!("{}px", row_count.get().saturating_sub(end) as f64 * ROW_HEIGHT)
                        }
                    ></tr>
                </tbody>
            </table>
        </div>
    }
}

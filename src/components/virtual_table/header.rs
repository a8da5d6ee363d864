//! The virtual table's header: one sort button per column, its state in `aria-sort`.

use leptos::prelude::*;

use super::HeaderCell;

/// The header cells; activating one asks `on_sort` to sort by its column id.
pub(super) fn header_cells(headers: Vec<HeaderCell>, on_sort: Callback<String>) -> impl IntoView {
    headers
        .into_iter()
        .map(|header| {
            let id = header.id.clone();
            let sort_state = match header.sorted {
                Some(true) => "ascending",
                Some(false) => "descending",
                None => "none",
            };
            let arrow = match header.sorted {
                Some(true) => " ▲",
                Some(false) => " ▼",
                None => "",
            };
            view! {
                <th
                    scope="col"
                    aria-sort=sort_state
                    class:numeric=header.numeric
                    data-column=header.id.clone()
                    title=header.description.clone()
                >
                    <button
                        type="button"
                        class="sort-button"
                        on:click=move |_| on_sort.run(id.clone())
                    >
                        {header.label.clone()}
                        <span aria-hidden="true">{arrow}</span>
                    </button>
                </th>
            }
        })
        .collect_view()
}

//! One row's cells: the health badge, the name as a link (with the row's problem beside
//! it), and the other cells with their flags. Texts are read from the row as it is now, so
//! a tick that only changes a text (an age) updates that text node, not the row.

use leptos::prelude::*;

use super::{DisplayCell, DisplayRow};
use crate::components::diagnosis::HealthBadge;

pub(super) fn row_cells(
    cells: Vec<DisplayCell>,
    current: Memo<Option<DisplayRow>>,
    href: String,
    problem: Option<String>,
) -> impl IntoView {
    let cell_text = move |column: usize| {
        move || {
            current.with(|r| {
                r.as_ref()
                    .and_then(|r| r.cells.get(column))
                    .map(|c| c.text.clone())
                    .unwrap_or_default()
            })
        }
    };
    cells
        .into_iter()
        .enumerate()
        .map(|(column, cell)| {
            if let Some(health) = cell.health {
                view! {
                    <td class="health-cell">
                        <HealthBadge health=health/>
                    </td>
                }
                .into_any()
            } else if cell.link {
                // What was wrong with the row, seen beside its name.
                let flag = problem.clone().map(|p| view! {
                    <span class="row-problem" role="img" aria-label=p.clone() title=p>"⚠"</span>
                });
                view! {
                    <td class="name-cell" class:changed=cell.changed>
                        <a href=href.clone() title=cell_text(column)>{cell_text(column)}</a>
                        {flag}
                    </td>
                }
                .into_any()
            } else {
                // A warning is an icon with its word, never colour alone.
                let flagged = cell.flag.is_some();
                let flag = cell.flag.map(|word| view! {
                    <span class="cell-flag"><span aria-hidden="true">"⚠ "</span>{word}</span>
                });
                view! {
                    <td class:numeric=cell.numeric class:changed=cell.changed class:flagged=flagged title=cell_text(column)>
                        {cell_text(column)}
                        {flag}
                    </td>
                }
                .into_any()
            }
        })
        .collect_view()
}

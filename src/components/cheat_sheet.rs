//! The `?` cheat sheet: every keyboard shortcut, from the same table the key handler reads.

use leptos::prelude::*;

use crate::model::navigation::shortcuts::SHORTCUTS;

#[component]
pub fn CheatSheet(open: RwSignal<bool>) -> impl IntoView {
    let close_ref = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if open.get() {
            if let Some(button) = close_ref.get() {
                let _ = button.focus();
            }
        }
    });
    let rows = SHORTCUTS
        .iter()
        .map(|shortcut| {
            let keys = shortcut
                .keys
                .split(' ')
                .map(|key| view! { <kbd>{key}</kbd>" " })
                .collect_view();
            view! {
                <tr>
                    <td class="keys">{keys}</td>
                    <td>{shortcut.description}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div
            class="palette-backdrop cheat-sheet-backdrop"
            hidden=move || !open.get()
            on:click=move |_| open.set(false)
        >
            <div
                class="cheat-sheet"
                role="dialog"
                aria-modal="true"
                aria-label="Keyboard shortcuts"
                on:click=|e| e.stop_propagation()
                on:keydown=move |e| if e.key() == "Escape" { open.set(false) }
            >
                <h2>"Keyboard shortcuts"</h2>
                <p class="muted">"Shortcuts never fire while you type in a field or the editor. "
                    "After " <kbd>"g"</kbd> ", press the letter within a moment."</p>
                <table aria-label="Shortcuts">
                    <thead><tr><th scope="col">"Keys"</th><th scope="col">"What they do"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
                <button type="button" node_ref=close_ref on:click=move |_| open.set(false)>"Close"</button>
            </div>
        </div>
    }
}

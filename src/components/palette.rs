//! The `:` palette: jump to a resource by name or shortName (`:deploy`, `:po`, `:crd`), as
//! k9s users expect.

use leptos::prelude::*;

use crate::model::{filter::palette_matches, ApiTree, ResourceId};

const MAX_SHOWN: usize = 12;

#[component]
pub fn Palette(
    tree: Signal<ApiTree>,
    open: RwSignal<bool>,
    on_choose: Callback<ResourceId>,
) -> impl IntoView {
    let query = RwSignal::new(String::new());
    let cursor = RwSignal::new(0usize);
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let candidates = Memo::new(move |_| {
        let q = query.get();
        let mut found = tree.with(|t| palette_matches(t, &q));
        found.truncate(MAX_SHOWN);
        found
    });
    Effect::new(move |_| {
        if open.get() {
            query.set(String::new());
            cursor.set(0);
            if let Some(input) = input_ref.get() {
                let _ = input.focus();
            }
        }
    });
    let choose = move |index: usize| {
        if let Some(candidate) = candidates.with(|c| c.get(index).cloned()) {
            on_choose.run(candidate.id);
            open.set(false);
        }
    };
    let on_keydown = move |event: web_sys::KeyboardEvent| {
        let count = candidates.with(Vec::len);
        match event.key().as_str() {
            "Escape" => open.set(false),
            "ArrowDown" if count > 0 => cursor.update(|c| *c = (*c + 1) % count),
            "ArrowUp" if count > 0 => cursor.update(|c| *c = (*c + count - 1) % count),
            "Enter" => choose(cursor.get_untracked()),
            _ => return,
        }
        event.prevent_default();
    };
    view! {
        <Show when=move || open.get()>
            <div class="palette-backdrop" on:click=move |_| open.set(false)>
                <div class="palette" role="dialog" aria-label="Go to resource" on:click=|e| e.stop_propagation()>
                    <input
                        type="text"
                        node_ref=input_ref
                        placeholder=":deploy, :po, :crd …"
                        aria-label="Resource name or short name"
                        prop:value=move || query.get()
                        on:input=move |e| {
                            query.set(event_target_value(&e));
                            cursor.set(0);
                        }
                        on:keydown=on_keydown
                    />
                    <ul role="listbox">
                        {move || {
                            let selected = cursor.get();
                            candidates
                                .get()
                                .into_iter()
                                .enumerate()
                                .map(|(i, c)| {
                                    let shorts = c.short_names.join(", ");
                                    view! {
                                        <li
                                            role="option"
                                            aria-selected=(i == selected).to_string()
                                            on:click=move |_| choose(i)
                                        >
                                            <span class="mono">{c.label.clone()}</span>
                                            <span class="kind">{c.kind.clone()}</span>
                                            <span class="hint">{shorts}</span>
                                        </li>
                                    }
                                })
                                .collect_view()
                        }}
                    </ul>
                </div>
            </div>
        </Show>
    }
}

//! The `:` palette, as k9s users expect: `:po` Enter opens the pods list (in the namespace in
//! view), Shift+Enter the Pod resource's definition; `:ns NAME` switches namespace; other
//! words also find objects by name among those loaded in open views. The entries are the
//! model's (`model::navigation::palette`); this view draws them and reports the choice.

use leptos::prelude::*;

use crate::model::navigation::palette::{
    palette_entries, LoadedObject, PaletteEntry, PaletteTarget,
};
use crate::model::ApiTree;

#[component]
pub fn Palette(
    tree: Signal<ApiTree>,
    open: RwSignal<bool>,
    /// The namespace lists open in.
    namespace: Signal<Option<String>>,
    /// The namespaces known (for `:ns`).
    namespaces: Signal<Option<Vec<String>>>,
    /// Objects loaded in open views, read when the palette opens.
    loaded: Callback<(), Vec<LoadedObject>>,
    on_choose: Callback<PaletteTarget>,
) -> impl IntoView {
    let query = RwSignal::new(String::new());
    let cursor = RwSignal::new(0usize);
    let input_ref = NodeRef::<leptos::html::Input>::new();
    let objects = RwSignal::new(Vec::<LoadedObject>::new());
    let entries = Memo::new(move |_| {
        let q = query.get();
        let namespace = namespace.get();
        let known = namespaces.get().unwrap_or_default();
        tree.with(|t| objects.with(|o| palette_entries(t, &q, namespace.as_deref(), &known, o)))
    });
    // Emptied as it closes, not as it opens: an effect runs after the input is drawn, and
    // what the user typed at once (`:` then a name) would be wiped.
    Effect::new(move |_| {
        if open.get() {
            objects.set(loaded.run(()));
            if let Some(input) = input_ref.get() {
                let _ = input.focus();
            }
        } else {
            query.set(String::new());
            cursor.set(0);
        }
    });
    let choose = move |index: usize, alternate: bool| {
        let Some(entry) = entries.with(|e| e.get(index).cloned()) else {
            return;
        };
        let target = match (alternate, entry.alternate) {
            (true, Some(definition)) => definition,
            _ => entry.target,
        };
        open.set(false);
        on_choose.run(target);
    };
    let on_keydown = move |event: web_sys::KeyboardEvent| {
        let count = entries.with(Vec::len);
        match event.key().as_str() {
            "Escape" => open.set(false),
            "ArrowDown" if count > 0 => cursor.update(|c| *c = (*c + 1) % count),
            "ArrowUp" if count > 0 => cursor.update(|c| *c = (*c + count - 1) % count),
            "Enter" => choose(cursor.get_untracked(), event.shift_key()),
            _ => return,
        }
        event.prevent_default();
    };
    let option = move |index: usize, entry: PaletteEntry, selected: bool| {
        // No control inside an option (options must not nest them): Shift+Enter or a
        // Shift-click goes to the definition, and the line says so.
        let alternate = entry.alternate.is_some().then_some(
            view! { <span class="hint palette-definition">"Shift+Enter: definition"</span> },
        );
        view! {
            <li
                role="option"
                id=format!("palette-option-{index}")
                aria-selected=selected.to_string()
                on:click=move |e| choose(index, e.shift_key())
            >
                <span class="mono">{entry.label.clone()}</span>
                <span class="kind">{entry.detail.clone()}</span>
                <span class="hint">{entry.hint.clone()}</span>
                {alternate}
            </li>
        }
    };
    view! {
        <Show when=move || open.get()>
            <div class="palette-backdrop" on:click=move |_| open.set(false)>
                <div class="palette" role="dialog" aria-label="Go to" on:click=|e| e.stop_propagation()>
                    <input
                        type="text"
                        node_ref=input_ref
                        placeholder=":po, :deploy, :ns kube-system, or an object's name"
                        aria-label="Resource, namespace or object name"
                        role="combobox"
                        aria-expanded="true"
                        aria-controls="palette-options"
                        aria-activedescendant=move || format!("palette-option-{}", cursor.get())
                        prop:value=move || query.get()
                        on:input=move |e| {
                            query.set(event_target_value(&e));
                            cursor.set(0);
                        }
                        on:keydown=on_keydown
                    />
                    <p class="hint palette-help">
                        <kbd>"Enter"</kbd>" opens the list · "<kbd>"Shift"</kbd>" "<kbd>"Enter"</kbd>
                        " the definition · "<kbd>":ns"</kbd>" NAME switches namespace"
                    </p>
                    <ul role="listbox" id="palette-options" aria-label="Matches">
                        {move || {
                            let selected = cursor.get();
                            entries
                                .get()
                                .into_iter()
                                .enumerate()
                                .map(|(i, entry)| option(i, entry, i == selected))
                                .collect_view()
                        }}
                    </ul>
                </div>
            </div>
        </Show>
    }
}

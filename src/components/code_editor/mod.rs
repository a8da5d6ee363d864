//! The YAML editor of the object page: CodeMirror 6 (line numbers, YAML highlighting, folding,
//! undo/redo, search, diagnostics in the gutter and underlined), and a side-by-side diff view.
//!
//! CodeMirror is a JavaScript bundle of its own (`editor/`, built by `cargo xtask build` and
//! copied by Trunk to `dist/editor/kube-atlas-editor.js`), about three times the app's wasm, so
//! it is not part of the page start: the first editor that opens imports it (a dynamic
//! `import()` of a URL relative to the document, so any path prefix works), and every later one
//! reuses it. Until it has loaded, or if it cannot load, the editor is a plain `<textarea>` with
//! the same text and the same callbacks, so editing never waits for it. No `eval`, no inline
//! script: the import goes through a module snippet that wasm-bindgen writes next to the glue.

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod bundle;
mod merge_view;

use bundle::*;
pub use bundle::{
    editor_loaded, preload_editor, EditorDiagnostic, Severity, DEFAULT_LABEL, EDITOR_BUNDLE,
    ISOLATE_STYLES,
};
pub use merge_view::MergeView;

/// A YAML editor: CodeMirror once its bundle has loaded, a plain textarea until then (or for
/// good if it cannot load, with a note saying so).
#[component]
pub fn CodeEditor(
    /// The text it starts with.
    #[prop(into)]
    text: String,
    /// Called with the whole text after each change the user makes (not after `set_text`).
    #[prop(into)]
    on_change: Callback<String>,
    /// Marks in the text (parse errors, say); pushed to the editor whenever they change.
    #[prop(into, optional)]
    diagnostics: Signal<Vec<EditorDiagnostic>>,
    #[prop(into, optional)] read_only: Signal<bool>,
    /// Replaces the text when the number changes: `Some((n, text))` with a new `n` each time
    /// (one undo step in the editor; `on_change` is not called). The value it has when the
    /// editor is created counts as applied already.
    #[prop(into, optional)]
    set_text: Signal<Option<(u64, String)>>,
    /// Accessible name; "YAML editor" unless given.
    #[prop(into, optional)]
    label: Option<String>,
) -> impl IntoView {
    let label = label.unwrap_or_else(|| DEFAULT_LABEL.to_string());
    let stored_label = StoredValue::new(label.clone());
    let rows = fallback_rows(&text);
    // The latest text, whichever of the two holds it: CodeMirror starts from what was typed
    // into the fallback while the bundle loaded.
    let current = StoredValue::new(text.clone());
    // What the fallback shows: set at start and by `set_text`, not by typing.
    let fallback_text = RwSignal::new(text);
    let state = RwSignal::new(LoadState::Loading);
    let ready = Memo::new(move |_| state.with(|s| *s == LoadState::Ready));
    let applied_request = StoredValue::new(set_text.with_untracked(|r| r.as_ref().map(|r| r.0)));
    let host = NodeRef::<html::Div>::new();
    let fallback = NodeRef::<html::Textarea>::new();
    let live = StoredValue::new_local(None::<LiveEditor>);
    // Handles are cloned out before use: the editor may call back into `on_change`, and a
    // stored value must not be reached from inside another's closure.
    let handle = move || live.try_with_value(|l| l.as_ref().map(|l| l.handle.clone()))?;

    let mount = move |bundle: EditorBundle, parent: web_sys::HtmlElement| {
        if live.try_with_value(|_| ()).is_none() {
            // Gone before the bundle arrived.
            return;
        }
        let had_focus = fallback.get_untracked().is_some_and(|el| {
            web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .is_some_and(|active| active.is_same_node(Some(&el)))
        });
        let on_change_js = Closure::<dyn FnMut(String)>::new(move |text: String| {
            current.try_set_value(text.clone());
            on_change.try_run(text);
        });
        let options = js_options(&[
            ("readOnly", JsValue::from_bool(read_only.get_untracked())),
            ("label", JsValue::from_str(&stored_label.get_value())),
            ("isolateStyles", JsValue::from_bool(ISOLATE_STYLES)),
        ]);
        let text = current.get_value();
        match bundle.create_editor(
            &parent,
            &text,
            on_change_js.as_ref().unchecked_ref(),
            &options,
        ) {
            Ok(editor) => {
                live.set_value(Some(LiveEditor {
                    handle: editor.clone(),
                    _on_change: on_change_js,
                }));
                state.set(LoadState::Ready);
                if had_focus {
                    editor.focus().ok();
                }
            }
            Err(error) => state.set(LoadState::Failed(describe_js_error(&error))),
        }
    };

    mount_once_loaded(host, state, mount);

    Effect::new(move |_| {
        let list = diagnostics.get();
        if !ready.get() {
            return;
        }
        if let Some(editor) = handle() {
            // A failure leaves the old marks; the text is still edited.
            editor.set_diagnostics(&diagnostics_to_js(&list)).ok();
        }
    });
    Effect::new(move |_| {
        let value = read_only.get();
        if !ready.get() {
            return;
        }
        if let Some(editor) = handle() {
            editor.set_read_only(value).ok();
        }
    });
    Effect::new(move |_| {
        let Some((number, text)) = set_text.get() else {
            return;
        };
        if applied_request.get_value() == Some(number) {
            return;
        }
        applied_request.set_value(Some(number));
        current.set_value(text.clone());
        match handle() {
            Some(editor) => {
                editor.set_text(&text).ok();
            }
            None => fallback_text.set(text),
        }
    });

    on_cleanup(move || {
        if let Some(Some(editor)) = live.try_update_value(Option::take) {
            // Destroyed before its callback is dropped, so nothing calls a freed closure.
            editor.handle.destroy().ok();
        }
    });

    let on_fallback_input = move |event: leptos::ev::Event| {
        let text = event_target_value(&event);
        current.set_value(text.clone());
        on_change.run(text);
    };
    view! {
        <div class="code-editor">
            <div node_ref=host class="code-editor-host"></div>
            {move || {
                (!ready.get())
                    .then(|| {
                        view! {
                            <textarea
                                node_ref=fallback
                                class="code-editor-fallback mono"
                                aria-label=label.clone()
                                rows=rows
                                wrap="off"
                                spellcheck="false"
                                autocomplete="off"
                                autocapitalize="off"
                                readonly=move || read_only.get()
                                prop:value=move || fallback_text.get()
                                on:input=on_fallback_input
                                style:width="100%"
                                style:resize="vertical"
                                style:padding="8px"
                                style:color="var(--text)"
                                style:background="var(--code-bg)"
                                style:border="1px solid var(--border)"
                                style:border-radius="6px"
                            ></textarea>
                            <ul class="code-editor-diagnostics">
                                {move || {
                                    diagnostics
                                        .get()
                                        .into_iter()
                                        .map(|d| {
                                            view! {
                                                <li class="field-error">
                                                    {format!(
                                                        "Line {}, column {}: {}",
                                                        d.line,
                                                        d.column,
                                                        d.message,
                                                    )}
                                                </li>
                                            }
                                        })
                                        .collect_view()
                                }}
                            </ul>
                        }
                    })
            }}
            {move || failure_note(state, "The YAML editor could not be loaded", "editing as plain text")}
        </div>
    }
}

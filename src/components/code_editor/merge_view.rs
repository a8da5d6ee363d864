//! The side-by-side diff view.

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

use super::bundle::*;

/// Two texts side by side, read-only, with their differences marked: the live object against
/// what the server would store, say. Until the bundle loads (or if it cannot), both texts are
/// shown plainly side by side.
#[component]
pub fn MergeView(
    /// The left side.
    #[prop(into)]
    original: Signal<String>,
    /// The right side.
    #[prop(into)]
    modified: Signal<String>,
    /// Accessible names of the two sides.
    #[prop(into, optional)]
    original_label: Option<String>,
    #[prop(into, optional)] modified_label: Option<String>,
    /// Show unchanged stretches in full (by default long ones fold away, with a line to open
    /// them).
    #[prop(optional)]
    show_all: bool,
) -> impl IntoView {
    let original_label = original_label.unwrap_or_else(|| "Original YAML".to_string());
    let modified_label = modified_label.unwrap_or_else(|| "Modified YAML".to_string());
    let state = RwSignal::new(LoadState::Loading);
    let ready = Memo::new(move |_| state.with(|s| *s == LoadState::Ready));
    let host = NodeRef::<html::Div>::new();
    let live = StoredValue::new_local(None::<MergeHandle>);
    let handle = move || live.try_with_value(Option::clone)?;
    let options = StoredValue::new((original_label.clone(), modified_label.clone()));

    mount_once_loaded(host, state, move |bundle, parent| {
        let Some((left, right)) = options.try_get_value() else {
            return;
        };
        let js = js_options(&[
            ("originalLabel", JsValue::from_str(&left)),
            ("modifiedLabel", JsValue::from_str(&right)),
            ("collapseUnchanged", JsValue::from_bool(!show_all)),
            ("isolateStyles", JsValue::from_bool(ISOLATE_STYLES)),
        ]);
        let (Some(a), Some(b)) = (original.try_get_untracked(), modified.try_get_untracked())
        else {
            return;
        };
        match bundle.create_merge_view(&parent, &a, &b, &js) {
            Ok(view) => {
                live.set_value(Some(view));
                state.set(LoadState::Ready);
            }
            Err(error) => {
                state.set(LoadState::Failed(describe_js_error(&error)));
            }
        }
    });
    Effect::new(move |_| {
        let (a, b) = (original.get(), modified.get());
        if !ready.get() {
            return;
        }
        if let Some(view) = handle() {
            view.set_texts(&a, &b).ok();
        }
    });
    on_cleanup(move || {
        if let Some(Some(view)) = live.try_update_value(Option::take) {
            view.destroy_merge().ok();
        }
    });

    view! {
        <div class="merge-view">
            <div node_ref=host class="merge-view-host"></div>
            {move || {
                (!ready.get())
                    .then(|| {
                        let (left, right) = (original_label.clone(), modified_label.clone());
                        view! {
                            <div
                                class="merge-view-fallback"
                                style:display="grid"
                                style:grid-template-columns="1fr 1fr"
                                style:gap="8px"
                            >
                                <pre class="object-text" tabindex="0" aria-label=left>
                                    {move || original.get()}
                                </pre>
                                <pre class="object-text" tabindex="0" aria-label=right>
                                    {move || modified.get()}
                                </pre>
                            </div>
                        }
                    })
            }}
            {move || failure_note(state, "The diff view could not be loaded", "both texts are shown plainly")}
        </div>
    }
}

//! Views whose code is fetched when first needed (the pages' and the deferred parts' split
//! points), with a way to try again when fetching failed.

use leptos::prelude::*;
use send_wrapper::SendWrapper;

use crate::pages::chunks::PageLoadError;

/// What `load` builds, `loading` while its module is fetched, or why it could not be fetched
/// with a way to try again.
pub(super) fn loaded_with<Load, Loading>(
    loading: fn() -> AnyView,
    failed: &'static str,
    load: Load,
) -> AnyView
where
    Load: Fn() -> Loading + Send + Sync + 'static,
    Loading: std::future::Future<Output = Result<AnyView, PageLoadError>> + 'static,
{
    let attempt = RwSignal::new(0_u32);
    view! {
        <Suspense fallback=loading>
            {move || {
                attempt.track();
                let loading = load();
                Suspend::new(SendWrapper::new(async move {
                    match loading.await {
                        Ok(page) => page,
                        Err(error) => view! {
                            <div class="error" role="alert">
                                <strong>{failed}</strong>
                                {error.to_string()}
                                " "
                                <button on:click=move |_| attempt.update(|n| *n += 1)>
                                    "Try again"
                                </button>
                            </div>
                        }
                        .into_any(),
                    }
                }))
            }}
        </Suspense>
    }
    .into_any()
}

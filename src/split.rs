//! Split points: functions whose code is a wasm module of its own in release builds (the
//! `split` feature, set by `cargo xtask build`), fetched the first time one is called. The
//! pages are split points (`pages/chunks.rs`), and so is what the first paint of the tree
//! does not need: the shell's other parts (`app/deferred.rs`) and the live CRD watch
//! (`state/discovery.rs`), which carries the whole watch stack. Without the feature
//! (development, tests of components) the same functions are plain `async fn`s that are
//! ready at once. [`loaded_with`] draws what a split point builds, once its module is here.

pub use leptos::wasm_split::SplitLoaderError as LoadError;

use leptos::prelude::*;
use send_wrapper::SendWrapper;

/// Declares one split point: `$name(args) -> T` becomes an `async fn` answering
/// `Result<T, LoadError>` (the error when its module could not be fetched).
macro_rules! split_point {
    ($(#[doc = $doc:literal])* $name:ident ($($arg:ident: $ty:ty),*) -> $output:ty $body:block) => {
        $(#[doc = $doc])*
        #[cfg(feature = "split")]
        #[leptos::wasm_split::wasm_split($name, wasm_split_path = ::leptos::wasm_split, fallible)]
        pub fn $name($($arg: $ty),*) -> Result<$output, $crate::split::LoadError> {
            Ok($body)
        }

        $(#[doc = $doc])*
        #[cfg(not(feature = "split"))]
        pub async fn $name($($arg: $ty),*) -> Result<$output, $crate::split::LoadError> {
            Ok($body)
        }
    };
}

/// Declares one split point that builds a view. The view is built without tracking: the
/// caller awaits it inside a `Suspend`, which would otherwise build it again whenever a
/// signal read while building it changed.
macro_rules! split_view {
    ($(#[doc = $doc:literal])* $name:ident ($($arg:ident: $ty:ty),*) => $view:expr) => {
        $crate::split::split_point!(
            $(#[doc = $doc])* $name ($($arg: $ty),*) -> AnyView { untrack(move || $view.into_any()) }
        );
    };
}

pub(crate) use {split_point, split_view};

/// What `load` builds, `loading` while its module is fetched, or why it could not be fetched
/// with a way to try again.
pub(crate) fn loaded_with<Load, Loading>(
    loading: fn() -> AnyView,
    failed: &'static str,
    load: Load,
) -> AnyView
where
    Load: Fn() -> Loading + Send + Sync + 'static,
    Loading: std::future::Future<Output = Result<AnyView, LoadError>> + 'static,
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

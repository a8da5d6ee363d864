//! The application shell: header (server version, connection, namespace), the sidebar (the
//! kinds people open most, then the API tree), the routed page, the request log and the `:`
//! palette. Its state is `state::shell::use_shell`, its keys `state::shortcuts`; the pages
//! themselves live in `pages`, which page a route builds in `app/routes.rs`.

use leptos::prelude::*;

use crate::browser::now_ms;
use crate::model::navigation::route::Page;
use crate::state::shell::{use_shell, Shown, UseShellOptions};
use crate::state::shortcuts::{use_shortcuts, UseShortcutsOptions};

mod deferred;
mod header;
mod routes;
mod sidebar;
mod signed_in;

use deferred::{deferred_part, DeferredShell, ShellPart, ShellState};
use header::Header;
use sidebar::{Sidebar, TREE_FILTER_ID};

#[component]
pub fn App() -> impl IntoView {
    let app_started_ms = now_ms();
    let shell = use_shell(UseShellOptions::default());
    let keys = use_shortcuts(UseShortcutsOptions {
        navigation: shell.navigation,
        filter_id: TREE_FILTER_ID,
    });
    let deferred = DeferredShell {
        due: shell.extras_due,
        state: ShellState {
            tree: shell.tree,
            palette_open: keys.palette_open,
            cheat_sheet_open: keys.cheat_sheet_open,
            namespace: shell.namespace,
            namespaces: shell.namespaces,
            loaded_objects: shell.loaded_objects,
            choose_from_palette: shell.choose_from_palette,
            log: shell.log,
        },
    };
    let page = shell.page;

    crate::browser::mark("kube-atlas:app-set-up");
    view! {
        <div class="app">
            <Header
                discovery=shell.discovery
                navigation=shell.navigation
                namespaces=shell.namespaces
                shell=deferred
            />
            <Sidebar shell=shell app_started_ms=app_started_ms/>
            // Pages that fill the height (lists, pod logs) with their own scrolling: a class
            // here rather than `:has()` in the CSS, which made every change inside the page
            // recompute the style of all of it.
            <main class="main" tabindex="0" class:fill-page=move || page.with(Page::fills_height)>
                {move || shell.fallback_note.get().map(|text| view! {
                    <p class="notice namespace-fallback" role="status">{text}</p>
                })}
                {move || match shell.shown.get() {
                    Shown::Failed(error) => view! {
                        <div class="error" role="alert">
                            <strong>"Cannot load the API. "</strong>
                            {error}
                        </div>
                    }
                    .into_any(),
                    Shown::Loading => {
                        view! { <p class="loading">"Loading discovery…"</p> }.into_any()
                    }
                    Shown::Screen(screen) => routes::screen_view(screen, &shell),
                }}
            </main>
            {deferred_part(deferred, ShellPart::RequestLog)}
            {deferred_part(deferred, ShellPart::Palette)}
            {deferred_part(deferred, ShellPart::CheatSheet)}
        </div>
    }
}

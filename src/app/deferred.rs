//! The parts of the shell that painting the tree does not need: the `:` palette, the shortcut
//! sheet, the request log, the recorder, the cluster switcher and the list of forwards. They share one split point
//! (`crate::split`; one module, where a split point each would cut the code the pages share
//! into many more small modules): in release builds their code is fetched once the tree is
//! painted, which keeps it out of the page-start module and off the first paint.

use leptos::prelude::*;

use crate::components::port_forwards::ForwardsMenu;
use crate::components::{CheatSheet, ClusterSwitcher, Palette, RecordControl, RequestLogPanel};
use crate::model::navigation::palette::{LoadedObject, PaletteTarget};
use crate::model::ApiTree;
use crate::split::split_view;
use crate::state::request_log::RequestRecord;

/// One of the deferred parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellPart {
    /// The header's Record button (watch streams to a file for replay).
    RecordControl,
    /// The header's cluster switcher (behind kube-atlas with several clusters).
    ClusterSwitcher,
    /// The header's list of port-forwards (behind kube-atlas).
    Forwards,
    /// The request log panel (every API call, copyable as curl).
    RequestLog,
    /// The `:` palette: jump to a resource, page, namespace or loaded object.
    Palette,
    /// The `?` sheet of keyboard shortcuts.
    CheatSheet,
}

/// What the parts read and write of the shell's state.
#[derive(Clone, Copy)]
pub struct ShellState {
    pub tree: Signal<ApiTree>,
    pub palette_open: RwSignal<bool>,
    pub cheat_sheet_open: RwSignal<bool>,
    pub namespace: Signal<Option<String>>,
    pub namespaces: Signal<Option<Vec<String>>>,
    pub loaded_objects: Callback<(), Vec<LoadedObject>>,
    pub choose_from_palette: Callback<PaletteTarget>,
    pub log: RwSignal<Vec<RequestRecord>>,
}

split_view!(
    /// Builds one deferred part.
    kube_atlas_shell_part(part: ShellPart, shell: ShellState) => match part {
        ShellPart::RecordControl => view! { <RecordControl/> }.into_any(),
        ShellPart::ClusterSwitcher => view! { <ClusterSwitcher/> }.into_any(),
        ShellPart::Forwards => view! { <ForwardsMenu/> }.into_any(),
        ShellPart::RequestLog => view! { <RequestLogPanel log=shell.log/> }.into_any(),
        ShellPart::Palette => view! {
            <Palette
                tree=shell.tree
                open=shell.palette_open
                namespace=shell.namespace
                namespaces=shell.namespaces
                loaded=shell.loaded_objects
                on_choose=shell.choose_from_palette
            />
        }
        .into_any(),
        ShellPart::CheatSheet => view! { <CheatSheet open=shell.cheat_sheet_open/> }.into_any(),
    }
);

/// The shell's parts from here, and when they are drawn.
#[derive(Clone, Copy)]
pub struct DeferredShell {
    pub due: Signal<bool>,
    pub state: ShellState,
}

/// One part of the shell from here, drawn once due (nothing before, nor while its module is
/// fetched).
pub fn deferred_part(shell: DeferredShell, part: ShellPart) -> impl IntoView {
    move || {
        shell.due.get().then(|| {
            crate::split::loaded_with(
                || ().into_any(),
                "A part of the page could not be loaded. ",
                move || kube_atlas_shell_part(part, shell.state),
            )
        })
    }
}

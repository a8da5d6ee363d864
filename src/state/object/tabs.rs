//! The tabs of an object page.

use leptos::prelude::*;

use crate::model::navigation::route::{ObjectRoute, ObjectTab, Page};
use crate::model::ResourceId;
use crate::state::navigation::use_navigation;

/// A tab of an object page, as its tab bar links it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabLink {
    pub tab: ObjectTab,
    pub label: &'static str,
    pub href: String,
}

/// What [`use_object_tabs`] gives an object page.
pub struct UseObjectTabsReturn {
    /// The open tab, following the address.
    pub current: Memo<ObjectTab>,
    /// The tabs that apply to the kind, in display order.
    pub links: Vec<TabLink>,
}

/// The tabs of an object page of `resource`, each linking to `route_of(tab)`.
pub fn use_object_tabs(
    resource: &ResourceId,
    route_of: impl Fn(ObjectTab) -> ObjectRoute,
) -> UseObjectTabsReturn {
    let navigation = use_navigation();
    let current = Memo::new(move |_| match navigation.page.get() {
        Page::Object(route) => route.tab,
        _ => ObjectTab::Overview,
    });
    let links = ObjectTab::ALL
        .into_iter()
        .filter(|tab| tab.applies_to(resource))
        .map(|tab| TabLink {
            tab,
            label: tab.label(),
            href: Page::Object(route_of(tab)).to_hash(),
        })
        .collect();
    UseObjectTabsReturn { current, links }
}

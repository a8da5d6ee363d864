//! The kinds people open most, above the full API tree: one click opens the list.

use leptos::prelude::*;

use crate::model::quick_access::quick_sections;
use crate::model::route::{ListRoute, Page};
use crate::model::ApiTree;

#[component]
pub fn QuickAccess(
    #[prop(into)] tree: Signal<ApiTree>,
    /// The page shown, to mark the current list and keep its namespace.
    #[prop(into)]
    page: Signal<Page>,
) -> impl IntoView {
    let sections = Memo::new(move |_| tree.with(quick_sections));
    move || {
        let current = page.get();
        let namespace = current.namespace().map(str::to_string);
        let current_list = match &current {
            Page::ResourceList(route) => Some(route.resource.clone()),
            _ => None,
        };
        let sections = sections.get();
        (!sections.is_empty()).then(|| {
            view! {
                <nav class="quick-access" aria-label="Common resources">
                    {sections
                        .into_iter()
                        .map(|section| {
                            let entries = section
                                .entries
                                .into_iter()
                                .map(|entry| {
                                    let ns = namespace.clone().filter(|_| entry.namespaced);
                                    let href = Page::ResourceList(ListRoute::new(entry.id.clone(), ns)).to_hash();
                                    let here = current_list.as_ref() == Some(&entry.id);
                                    view! {
                                        <li>
                                            <a
                                                href=href
                                                aria-current=here.then_some("page")
                                                title=entry.id.key()
                                            >
                                                {entry.label}
                                            </a>
                                        </li>
                                    }
                                })
                                .collect_view();
                            view! {
                                <h2>{section.title}</h2>
                                <ul>{entries}</ul>
                            }
                        })
                        .collect_view()}
                </nav>
            }
        })
    }
}

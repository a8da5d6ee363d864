//! The kinds people open most, above the full API tree: one click opens the list.

use leptos::prelude::*;

use crate::model::navigation::quick_access::quick_sections;
use crate::model::navigation::route::{ListRoute, Page};
use crate::model::ApiTree;

#[component]
pub fn QuickAccess(
    #[prop(into)] tree: Signal<ApiTree>,
    /// The page shown, to mark the current list and keep its namespace.
    #[prop(into)]
    page: Signal<Page>,
) -> impl IntoView {
    let sections = Memo::new(move |_| tree.with(quick_sections));
    // Sections opened past their first entries (by title).
    let opened = RwSignal::new(Vec::<&'static str>::new());
    move || {
        let current = page.get();
        let namespace = current.namespace().map(str::to_string);
        let current_list = match &current {
            Page::ResourceList(route) => Some(route.resource.clone()),
            _ => None,
        };
        // Read in place: a cluster with hundreds of CRDs has hundreds of entries, and only the
        // shown ones become views.
        sections.with(|sections| (!sections.is_empty()).then(|| {
            view! {
                <nav class="quick-access" aria-label="Common resources">
                    {sections
                        .iter()
                        .map(|section| {
                            let title = section.title;
                            let total = section.entries.len();
                            let open = opened.with(|o| o.contains(&title));
                            // The current list stays in view even past the first entries.
                            let current_hidden = section
                                .entries
                                .iter()
                                .skip(section.shown_first)
                                .any(|e| current_list.as_ref() == Some(&e.id));
                            let shown = if open || current_hidden { total } else { section.shown_first };
                            let entries = section
                                .entries
                                .iter()
                                .take(shown)
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
                                                {entry.label.clone()}
                                            </a>
                                        </li>
                                    }
                                })
                                .collect_view();
                            let toggle = (section.shown_first < total && !current_hidden).then(|| {
                                let label = if open {
                                    "Fewer".to_string()
                                } else {
                                    format!("{} more", total - section.shown_first)
                                };
                                view! {
                                    <li>
                                        <button
                                            type="button"
                                            class="link-button more"
                                            aria-expanded=open.to_string()
                                            on:click=move |_| opened.update(|o| {
                                                if let Some(at) = o.iter().position(|t| *t == title) {
                                                    o.remove(at);
                                                } else {
                                                    o.push(title);
                                                }
                                            })
                                        >
                                            {label}
                                        </button>
                                    </li>
                                }
                            });
                            view! {
                                <h2>{title}</h2>
                                <ul>{entries}{toggle}</ul>
                            }
                        })
                        .collect_view()}
                </nav>
            }
        }))
    }
}

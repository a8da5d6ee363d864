//! Loading a resource list into signals: the server's Table in pages of 500 (first page on
//! screen at once, the rest streaming in with progress), restarted on an expired continue
//! token. The pure parts (paging, decoding, rows by uid) are in `model`; this drives them with
//! the transport and cancels everything when the view that asked goes away.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, Abort, ApiError};
use crate::model::list_paging::{ListPager, PagerStep, Progress};
use crate::model::request::TABLE_ACCEPT;
use crate::model::table::{decode_table, DecodeOptions, Table};

/// What to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    /// The collection path (`/api/v1/namespaces/default/pods`, `/api/v1/pods`).
    pub collection_path: String,
    pub label_selector: String,
    pub field_selector: String,
    /// Add a Namespace column (a namespaced resource across all namespaces).
    pub show_namespace: bool,
}

/// The list as the view reads it.
#[derive(Clone, Copy)]
pub struct ListState {
    pub table: RwSignal<Table>,
    pub progress: RwSignal<Progress>,
    /// Loading stopped on this error; the rows loaded so far stay.
    pub error: RwSignal<Option<ApiError>>,
    /// Something the user should know (the list restarted after an expired token).
    pub notice: RwSignal<Option<String>>,
    pub loading: RwSignal<bool>,
    /// Bumped on every change of `table`, so views can key redraws cheaply.
    pub revision: RwSignal<u64>,
}

impl ListState {
    fn new() -> ListState {
        ListState {
            table: RwSignal::new(Table::default()),
            progress: RwSignal::new(Progress::default()),
            error: RwSignal::new(None),
            notice: RwSignal::new(None),
            loading: RwSignal::new(true),
            revision: RwSignal::new(0),
        }
    }
}

/// Starts loading `query`; requests are cancelled when the current reactive owner (the view)
/// is cleaned up.
pub fn load_list(query: ListQuery) -> ListState {
    let state = ListState::new();
    let abort = StoredValue::new_local(Abort::new());
    on_cleanup(move || {
        // The owner may already be disposed; the Abort then aborted on drop.
        abort.try_with_value(Abort::abort);
    });
    spawn_local(async move {
        let (mut pager, first) = ListPager::start(&query.label_selector, &query.field_selector);
        let options = DecodeOptions {
            show_namespace: query.show_namespace,
        };
        let mut request = first;
        loop {
            let api_request = request.to_api_request(&query.collection_path, TABLE_ACCEPT);
            // None once the view is gone: then stop.
            let Some(signal) = abort.try_with_value(Abort::signal) else {
                return;
            };
            let result = api::send(&api_request, signal.as_ref()).await;
            let step = match result {
                Ok(fetched) => match decode_table(&fetched.body, options) {
                    Ok(page) => {
                        let meta = page.list_meta.clone();
                        let rows = page.rows.len();
                        let restarted_before = pager.progress().pages == 0;
                        if state
                            .table
                            .try_update(|table| {
                                if restarted_before {
                                    table.clear_rows();
                                }
                                table.append_page(page);
                            })
                            .is_none()
                        {
                            return;
                        }
                        pager.on_page(&meta, rows)
                    }
                    Err(error) => {
                        pager.on_error(ApiError::bad_response(fetched.status, error.to_string()))
                    }
                },
                Err(ApiError::Aborted) => return,
                Err(error) => pager.on_error(error),
            };
            state.revision.try_update(|r| *r += 1);
            state.progress.try_set(pager.progress());
            match step {
                PagerStep::Fetch(next) => request = next,
                PagerStep::Restart(first) => {
                    state.notice.try_set(pager.notice());
                    request = first;
                }
                PagerStep::Done | PagerStep::Stale => break,
                PagerStep::Failed(error) => {
                    state.error.try_set(Some(error));
                    break;
                }
            }
        }
        state.notice.try_set(pager.notice());
        state.loading.try_set(false);
    });
    state
}

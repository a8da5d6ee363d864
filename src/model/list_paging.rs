//! Loading a big list in pages (`limit=500`, then `continue`), as a pure state machine: the
//! transport fetches what [`PagerStep::Fetch`] asks for and feeds the answer back. An expired
//! continue token (410) restarts the list from the first page, consistently, and is
//! remembered so the view can say why the rows started over.
//!
//! ```text
//! let (mut pager, first) = ListPager::start(label_selector, field_selector);
//! fetch(first.to_api_request(path, TABLE_ACCEPT))
//!   page  -> table.append_page(page); pager.on_page(&page.list_meta, page.rows.len())
//!   error -> pager.on_error(error)
//! and act on the step: Fetch (next page), Restart (clear the rows, fetch), Done, Failed.
//! ```

use super::errors::ApiError;
use super::request::ApiRequest;
use super::table::ListMeta;

/// Items per page, as kubectl and kube-rs ask.
pub const PAGE_SIZE: u32 = 500;

/// Restarts after expired tokens before giving up: a list that changes faster than it can be
/// read would otherwise restart forever.
pub const MAX_RESTARTS: u32 = 3;

/// One page to fetch: the query parameters, not yet encoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub label_selector: String,
    pub field_selector: String,
    pub limit: u32,
    /// None for the first page.
    pub continue_token: Option<String>,
}

impl PageRequest {
    /// `(name, value)` pairs in the order sent; empty selectors are left out.
    pub fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut pairs = Vec::new();
        if !self.label_selector.is_empty() {
            pairs.push(("labelSelector", self.label_selector.clone()));
        }
        if !self.field_selector.is_empty() {
            pairs.push(("fieldSelector", self.field_selector.clone()));
        }
        pairs.push(("limit", self.limit.to_string()));
        if let Some(token) = &self.continue_token {
            pairs.push(("continue", token.clone()));
        }
        pairs
    }

    /// The GET of this page from `collection_path` (`/apis/apps/v1/namespaces/default/deployments`),
    /// with `accept` (e.g. [`super::request::TABLE_ACCEPT`]); its `url()` is percent-encoded.
    pub fn to_api_request(&self, collection_path: &str, accept: &str) -> ApiRequest {
        self.query_pairs().into_iter().fold(
            ApiRequest::get(collection_path).accept(accept),
            |request, (name, value)| request.query(name, &value),
        )
    }

    /// Path and encoded query (`/api/v1/pods?labelSelector=app%3Dweb&limit=500`).
    pub fn path(&self, collection_path: &str) -> String {
        self.to_api_request(collection_path, super::request::JSON)
            .url()
    }
}

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum PagerStep {
    /// Fetch this page, then call [`ListPager::on_page`] or [`ListPager::on_error`].
    Fetch(PageRequest),
    /// The continue token expired (the list changed too much while loading): drop the rows
    /// loaded so far, then fetch this first page.
    Restart(PageRequest),
    /// Every page is in.
    Done,
    /// Stopped: the rows loaded so far are a partial list.
    Failed(ApiError),
    /// An answer arrived when none was expected (after Done or Failed): drop it.
    Stale,
}

/// Where loading stands, for a progress bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Rows received since the last (re)start.
    pub loaded: usize,
    /// `loaded` plus the server's `remainingItemCount` of the last page; absent with
    /// selectors, where the server does not estimate.
    pub estimated_total: Option<usize>,
    pub pages: u32,
    /// How many times an expired continue token restarted the list.
    pub restarts: u32,
    pub done: bool,
}

impl Progress {
    /// 0.0 to 1.0 when the total is estimated (1.0 once done).
    pub fn fraction(&self) -> Option<f64> {
        if self.done {
            return Some(1.0);
        }
        let total = self.estimated_total.filter(|t| *t > 0)?;
        Some((self.loaded as f64 / total as f64).min(1.0))
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Loading,
    Done,
    Failed(ApiError),
}

/// The paging state machine of one list (one set of selectors).
#[derive(Debug, Clone, PartialEq)]
pub struct ListPager {
    label_selector: String,
    field_selector: String,
    limit: u32,
    phase: Phase,
    /// The token of the request in flight (None: the first page).
    continue_token: Option<String>,
    loaded: usize,
    pages: u32,
    remaining: Option<u64>,
    restarts: u32,
    resource_version: Option<String>,
}

impl ListPager {
    /// Starts a list with [`PAGE_SIZE`] pages; returns the first request. Check the selectors
    /// with [`super::selector`] first: the server rejects bad ones with a 400.
    pub fn start(label_selector: &str, field_selector: &str) -> (ListPager, PageRequest) {
        ListPager::with_limit(label_selector, field_selector, PAGE_SIZE)
    }

    /// [`ListPager::start`] with another page size (at least 1).
    pub fn with_limit(
        label_selector: &str,
        field_selector: &str,
        limit: u32,
    ) -> (ListPager, PageRequest) {
        let pager = ListPager {
            label_selector: label_selector.to_string(),
            field_selector: field_selector.to_string(),
            limit: limit.max(1),
            phase: Phase::Loading,
            continue_token: None,
            loaded: 0,
            pages: 0,
            remaining: None,
            restarts: 0,
            resource_version: None,
        };
        let first = pager.request();
        (pager, first)
    }

    fn request(&self) -> PageRequest {
        PageRequest {
            label_selector: self.label_selector.clone(),
            field_selector: self.field_selector.clone(),
            limit: self.limit,
            continue_token: self.continue_token.clone(),
        }
    }

    /// A page arrived with `rows` rows (already appended by the caller).
    pub fn on_page(&mut self, meta: &ListMeta, rows: usize) -> PagerStep {
        if self.phase != Phase::Loading {
            return PagerStep::Stale;
        }
        self.loaded += rows;
        self.pages += 1;
        self.remaining = meta.remaining_item_count;
        if meta.resource_version.is_some() {
            self.resource_version = meta.resource_version.clone();
        }
        match &meta.continue_token {
            None => {
                self.phase = Phase::Done;
                self.continue_token = None;
                self.remaining = Some(0);
                PagerStep::Done
            }
            // A server handing back the token it was given would loop forever.
            Some(token) if self.continue_token.as_ref() == Some(token) => {
                let error = ApiError::bad_response(
                    200,
                    "the server answered the same continue token twice; the list is incomplete",
                );
                self.phase = Phase::Failed(error.clone());
                PagerStep::Failed(error)
            }
            Some(token) => {
                self.continue_token = Some(token.clone());
                PagerStep::Fetch(self.request())
            }
        }
    }

    /// The request failed. A 410 on a continued page restarts (up to [`MAX_RESTARTS`]
    /// times); anything else stops.
    pub fn on_error(&mut self, error: ApiError) -> PagerStep {
        if self.phase != Phase::Loading {
            return PagerStep::Stale;
        }
        let continuing = self.continue_token.is_some();
        if error.code() == Some(410) && continuing && self.restarts < MAX_RESTARTS {
            self.restarts += 1;
            self.continue_token = None;
            self.loaded = 0;
            self.pages = 0;
            self.remaining = None;
            self.resource_version = None;
            return PagerStep::Restart(self.request());
        }
        self.phase = Phase::Failed(error.clone());
        PagerStep::Failed(error)
    }

    pub fn progress(&self) -> Progress {
        Progress {
            loaded: self.loaded,
            estimated_total: self
                .remaining
                .and_then(|r| usize::try_from(r).ok())
                .map(|r| self.loaded.saturating_add(r)),
            pages: self.pages,
            restarts: self.restarts,
            done: self.phase == Phase::Done,
        }
    }

    pub fn is_loading(&self) -> bool {
        self.phase == Phase::Loading
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The error that stopped loading.
    pub fn error(&self) -> Option<&ApiError> {
        match &self.phase {
            Phase::Failed(error) => Some(error),
            _ => None,
        }
    }

    /// The list's snapshot version (shared by all pages): where a watch starts once done.
    pub fn resource_version(&self) -> Option<&str> {
        self.resource_version.as_deref()
    }

    /// What to tell the user about restarts, if any happened.
    pub fn notice(&self) -> Option<String> {
        match self.restarts {
            0 => None,
            1 => Some(
                "The list changed too much while loading (its continue token expired); loading restarted from the beginning."
                    .into(),
            ),
            n => Some(format!(
                "The list changed too much while loading (its continue token expired); loading restarted {n} times."
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(continue_token: Option<&str>, remaining: Option<u64>) -> ListMeta {
        ListMeta {
            resource_version: Some("100".into()),
            continue_token: continue_token.map(str::to_string),
            remaining_item_count: remaining,
        }
    }

    fn expired() -> ApiError {
        ApiError::from_response(
            410,
            r#"{"kind":"Status","reason":"Expired","message":"The provided continue parameter is too old","code":410}"#,
        )
    }

    fn fetched(step: PagerStep) -> PageRequest {
        match step {
            PagerStep::Fetch(request) => request,
            other => panic!("expected a fetch, got {other:?}"),
        }
    }

    #[test]
    fn pages_until_there_is_no_continue_token() {
        let (mut pager, first) = ListPager::start("app=web", "");
        assert_eq!(first.limit, 500);
        assert_eq!(first.continue_token, None);
        assert_eq!(
            first.path("/api/v1/pods"),
            "/api/v1/pods?labelSelector=app%3Dweb&limit=500"
        );
        let second = fetched(pager.on_page(&page(Some("tok-1"), Some(1000)), 500));
        assert_eq!(second.continue_token.as_deref(), Some("tok-1"));
        let progress = pager.progress();
        assert_eq!(progress.loaded, 500);
        assert_eq!(progress.estimated_total, Some(1500));
        assert_eq!(progress.fraction(), Some(500.0 / 1500.0));
        assert!(!progress.done);
        // Servers may send short (even empty) pages and still continue.
        let third = fetched(pager.on_page(&page(Some("tok-2"), None), 0));
        assert_eq!(third.continue_token.as_deref(), Some("tok-2"));
        assert_eq!(pager.progress().estimated_total, None);
        assert_eq!(pager.on_page(&page(None, None), 120), PagerStep::Done);
        let progress = pager.progress();
        assert_eq!((progress.loaded, progress.pages), (620, 3));
        assert_eq!(progress.estimated_total, Some(620));
        assert_eq!(progress.fraction(), Some(1.0));
        assert!(pager.is_done() && !pager.is_loading());
        assert_eq!(pager.resource_version(), Some("100"));
        assert_eq!(pager.notice(), None);
        // Late answers are dropped.
        assert_eq!(pager.on_page(&page(None, None), 5), PagerStep::Stale);
        assert_eq!(pager.on_error(expired()), PagerStep::Stale);
    }

    #[test]
    fn an_expired_token_restarts_from_the_first_page_and_is_remembered() {
        let (mut pager, _) = ListPager::start("", "status.phase!=Running");
        fetched(pager.on_page(&page(Some("tok"), Some(10)), 500));
        let PagerStep::Restart(again) = pager.on_error(expired()) else {
            panic!("restart");
        };
        assert_eq!(again.continue_token, None);
        assert_eq!(again.field_selector, "status.phase!=Running");
        assert_eq!(pager.progress().loaded, 0);
        assert_eq!(pager.progress().restarts, 1);
        assert!(pager
            .notice()
            .is_some_and(|n| n.contains("restarted from the beginning")));
        assert_eq!(pager.on_page(&page(None, None), 3), PagerStep::Done);
        assert_eq!(pager.progress().restarts, 1);
    }

    #[test]
    fn restarts_are_bounded() {
        let (mut pager, _) = ListPager::start("", "");
        for _ in 0..MAX_RESTARTS {
            fetched(pager.on_page(&page(Some("tok"), None), 500));
            assert!(matches!(pager.on_error(expired()), PagerStep::Restart(_)));
        }
        fetched(pager.on_page(&page(Some("tok"), None), 500));
        assert_eq!(pager.on_error(expired()), PagerStep::Failed(expired()));
        assert_eq!(pager.error(), Some(&expired()));
        assert!(pager.notice().is_some_and(|n| n.contains("3 times")));
    }

    #[test]
    fn other_errors_and_a_410_on_the_first_page_stop() {
        let (mut pager, _) = ListPager::start("", "");
        assert_eq!(pager.on_error(expired()), PagerStep::Failed(expired()));
        let forbidden = ApiError::from_response(
            403,
            r#"{"kind":"Status","reason":"Forbidden","message":"no"}"#,
        );
        let (mut pager, _) = ListPager::start("", "");
        fetched(pager.on_page(&page(Some("tok"), None), 500));
        assert_eq!(
            pager.on_error(forbidden.clone()),
            PagerStep::Failed(forbidden)
        );
        assert_eq!(pager.progress().loaded, 500);
        assert!(!pager.is_loading());
    }

    #[test]
    fn a_repeated_token_stops_instead_of_looping() {
        let (mut pager, _) = ListPager::start("", "");
        fetched(pager.on_page(&page(Some("same"), None), 1));
        let PagerStep::Failed(error) = pager.on_page(&page(Some("same"), None), 1) else {
            panic!("failed");
        };
        assert!(error.to_string().contains("same continue token"));
    }

    #[test]
    fn requests_encode_selectors_and_tokens() {
        let request = PageRequest {
            label_selector: "env in (prod, staging),!legacy".into(),
            field_selector: r"metadata.name=a\,b".into(),
            limit: 500,
            continue_token: Some("eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ==+/".into()),
        };
        assert_eq!(
            request.path("/apis/apps/v1/namespaces/default/deployments"),
            "/apis/apps/v1/namespaces/default/deployments?labelSelector=env%20in%20%28prod%2C%20staging%29%2C%21legacy&fieldSelector=metadata.name%3Da%5C%2Cb&limit=500&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ%3D%3D%2B%2F"
        );
        let api = request.to_api_request("/api/v1/pods", "application/json;as=Table");
        assert_eq!(api.accept, "application/json;as=Table");
        assert_eq!(api.query.len(), 4);
        let (_, plain) = ListPager::with_limit("", "", 0);
        assert_eq!(plain.limit, 1);
        assert_eq!(plain.path("/api/v1/nodes"), "/api/v1/nodes?limit=1");
    }
}

//! All browser transport: same-origin requests to the Kubernetes API (through `kubectl proxy`
//! or the demo cluster). One client for every verb ([`send`] of a [`ApiRequest`]), cancellable
//! through an [`Abort`] handle; streamed responses (pod logs, chunked watches) in [`stream`];
//! watch streams in [`watch`].
//!
//! Requests are reported to a [`RequestObserver`] that the app installs (the request log), so
//! this module knows nothing of signals or views.

pub mod discovery;
pub mod exec;
pub mod forwards;
pub mod handshakes;
pub mod multiplex;
pub mod stream;
pub mod watch;

use std::cell::RefCell;
use std::rc::Rc;

use gloo_net::http::{Method, RequestBuilder};

pub use crate::model::api::errors::ApiError;
pub use crate::model::api::request::{warning_texts, ApiRequest, PatchType, Verb, WriteOptions};
use crate::model::api::retry::{parse_retry_after, ReadRetry};

pub use crate::browser::now_ms;

/// A response as far as the callers need it.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub status: u16,
    pub content_type: String,
    pub etag: Option<String>,
    /// `Warning` headers (deprecated APIs, unknown fields with `fieldValidation=Warn`).
    pub warnings: Vec<String>,
    pub body: String,
}

/// What the request log needs to know about one request or stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestOutcome {
    /// None when no HTTP answer came back.
    pub status: Option<u16>,
    pub duration_ms: f64,
    pub bytes: usize,
    pub error: Option<String>,
}

/// Told about every request; installed once by the app (see `state::request_log`).
pub trait RequestObserver {
    /// A request or stream starts; returns an id for the calls below.
    fn started(&self, request: &ApiRequest, transport: Transport) -> u64;
    /// A stream received one message of `bytes` bytes.
    fn stream_message(&self, id: u64, bytes: usize);
    /// The request finished or the stream closed.
    fn finished(&self, id: u64, outcome: RequestOutcome);
}

/// How a request travels, as the log shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Fetch,
    WebSocket,
    /// A response read as it arrives (pod logs with `follow=true`, chunked watches).
    Stream,
    /// A response read as it arrives over kube-atlas's one shared socket (`multiplex`).
    Multiplexed,
}

thread_local! {
    // The browser runs the app on one thread.
    static OBSERVER: RefCell<Option<Rc<dyn RequestObserver>>> = const { RefCell::new(None) };
}

thread_local! {
    // Where the page's cluster's API is: "" same-origin (kubectl proxy, the demo cluster),
    // `/clusters/{context}` behind kube-atlas. Set once, before the app mounts.
    static BASE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Puts every API path of the page under `prefix` (see [`crate::model::api::clusters::api_prefix`]).
pub fn set_base(prefix: String) {
    BASE.with(|base| *base.borrow_mut() = prefix);
}

/// The prefix of the page's cluster's API paths ("" when the page has one cluster).
pub fn base() -> String {
    BASE.with(|base| base.borrow().clone())
}

/// The path (and query) the browser asks for `request`: under its cluster's prefix.
pub fn full_url(request: &ApiRequest) -> String {
    let prefix = match &request.cluster {
        Some(cluster) => crate::model::api::clusters::api_prefix(cluster),
        None => base(),
    };
    format!("{prefix}{}", request.url())
}

pub fn set_observer(observer: Rc<dyn RequestObserver>) {
    OBSERVER.with(|slot| *slot.borrow_mut() = Some(observer));
}

/// A stream's entry in the request log: started now, finished with [`LoggedStream::finish`].
pub(crate) struct LoggedStream {
    id: Option<u64>,
    started: f64,
}

impl LoggedStream {
    pub(crate) fn start(request: &ApiRequest, transport: Transport) -> LoggedStream {
        LoggedStream {
            id: observe(|o| o.started(request, transport)),
            started: now_ms(),
        }
    }

    /// One message of `bytes` bytes arrived.
    pub(crate) fn message(&self, bytes: usize) {
        if let Some(id) = self.id {
            observe(|o| o.stream_message(id, bytes));
        }
    }

    pub(crate) fn finish(&self, status: Option<u16>, bytes: usize, error: Option<String>) {
        if let Some(id) = self.id {
            let outcome = RequestOutcome {
                status,
                duration_ms: now_ms() - self.started,
                bytes,
                error,
            };
            observe(|o| o.finished(id, outcome));
        }
    }
}

pub(crate) fn observe<T>(f: impl FnOnce(&dyn RequestObserver) -> T) -> Option<T> {
    let observer = OBSERVER.with(|slot| slot.borrow().clone());
    observer.map(|o| f(o.as_ref()))
}

/// Cancels its requests when aborted or dropped: a view keeps one and drops it when it goes,
/// so nothing it asked for keeps loading (or lands in a view that no longer exists).
pub struct Abort {
    controller: Option<web_sys::AbortController>,
}

impl Abort {
    pub fn new() -> Abort {
        Abort {
            controller: web_sys::AbortController::new().ok(),
        }
    }

    pub fn signal(&self) -> Option<web_sys::AbortSignal> {
        self.controller.as_ref().map(|c| c.signal())
    }

    pub fn abort(&self) {
        if let Some(controller) = &self.controller {
            controller.abort();
        }
    }

    pub fn is_aborted(&self) -> bool {
        self.controller
            .as_ref()
            .is_some_and(|c| c.signal().aborted())
    }
}

impl Default for Abort {
    fn default() -> Self {
        Abort::new()
    }
}

impl Drop for Abort {
    fn drop(&mut self) {
        self.abort();
    }
}

fn method_of(verb: Verb) -> Method {
    match verb {
        Verb::Get => Method::GET,
        Verb::Post => Method::POST,
        Verb::Put => Method::PUT,
        Verb::Patch(_) => Method::PATCH,
        Verb::Delete => Method::DELETE,
    }
}

/// A request that got no HTTP answer: cancelled through its signal, or the network failed.
pub(crate) enum NoAnswer {
    Cancelled,
    Failed(String),
}

impl NoAnswer {
    /// What the request log shows.
    pub(crate) fn log_text(&self) -> String {
        match self {
            NoAnswer::Cancelled => "cancelled".to_string(),
            NoAnswer::Failed(error) => error.clone(),
        }
    }

    pub(crate) fn into_api_error(self) -> ApiError {
        match self {
            NoAnswer::Cancelled => ApiError::Aborted,
            NoAnswer::Failed(error) => ApiError::Unreachable(error),
        }
    }
}

/// Sends `request` and waits for the answer's status and headers (not its body).
pub(crate) async fn open(
    request: &ApiRequest,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<gloo_net::http::Response, NoAnswer> {
    let url = full_url(request);
    let mut builder = RequestBuilder::new(&url)
        .method(method_of(request.verb))
        .header("Accept", &request.accept);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    builder = builder.abort_signal(signal);
    let prepared = match (&request.body, request.content_type()) {
        (Some(body), Some(content_type)) => builder
            .header("Content-Type", content_type)
            .body(body.as_str()),
        _ => builder.build(),
    };
    let sent = match prepared {
        Ok(prepared) => prepared.send().await,
        Err(error) => Err(error),
    };
    if sent.as_ref().is_ok_and(|response| response.status() == 401) {
        crate::browser::session_ended();
    }
    sent.map_err(|error| {
        if signal.is_some_and(web_sys::AbortSignal::aborted) {
            NoAnswer::Cancelled
        } else {
            NoAnswer::Failed(error.to_string())
        }
    })
}

/// A page opened on a list asks for the list's first page at once, beside the preloader's
/// discovery, instead of after discovery, the list page's module and its first build: the
/// server and the network work while the app starts. Kept with the preloader's answers (and
/// taken the same way, by the first GET of the same URL and Accept); a guess that turns out
/// wrong (a namespace given for a cluster-scoped kind) is never taken, and dropped with the
/// rest a few seconds in.
pub fn prefetch_first_list_page(hash: &str) {
    use wasm_bindgen::JsCast;
    let crate::model::navigation::route::Page::ResourceList(route) =
        crate::model::navigation::route::Page::parse(hash)
    else {
        return;
    };
    let Some(request) = crate::model::watch::key::first_list_page_of(&route) else {
        return;
    };
    let Some(window) = web_sys::window() else {
        return;
    };
    let name = wasm_bindgen::JsValue::from_str(PREFETCHED);
    let prefetched = match js_sys::Reflect::get(&window, &name)
        .ok()
        .and_then(|map| map.dyn_into::<js_sys::Map>().ok())
    {
        Some(map) => map,
        None => {
            let map = js_sys::Map::new();
            if js_sys::Reflect::set(&window, &name, &map).is_err() {
                return;
            }
            map
        }
    };
    let url = full_url(&request);
    let key = format!("{}\n{url}", request.accept);
    let answer = wasm_bindgen_futures::future_to_promise(async move {
        let failed = |error: String| wasm_bindgen::JsValue::from_str(&error);
        let response = open(&request, None)
            .await
            .map_err(|error| failed(error.log_text()))?;
        let raw = web_sys::Response::from(response);
        let body = wasm_bindgen_futures::JsFuture::from(
            raw.array_buffer().map_err(|_| failed("no body".into()))?,
        )
        .await?;
        let answer = js_sys::Object::new();
        js_sys::Reflect::set(&answer, &"response".into(), &raw)?;
        js_sys::Reflect::set(&answer, &"body".into(), &body)?;
        Ok(answer.into())
    });
    prefetched.set(&key.into(), &answer);
    // Not taken by then, it was a wrong guess (or the user went elsewhere): its memory goes.
    leptos::prelude::set_timeout(
        move || {
            if let Some(window) = web_sys::window() {
                js_sys::Reflect::delete_property(&window, &name).ok();
            }
        },
        std::time::Duration::from_secs(PREFETCHED_KEPT_S),
    );
}

/// The window property where answers asked before the app needed them wait for it (the
/// preloader's and [`prefetch_first_list_page`]'s).
const PREFETCHED: &str = "__kubeAtlasPrefetched";

/// How long answers asked before the app needed them are kept for it.
const PREFETCHED_KEPT_S: u64 = 20;

/// The page's preloader (written by `cargo xtask build`, run before the app's module has
/// loaded) asks for discovery at once, so its answer is on its way while the app starts:
/// `window.__kubeAtlasPrefetched` maps `"{accept}\n{url}"` to a promise of the answer and its
/// body, read already. The first plain GET of the same URL with the same Accept takes it
/// (once); a failed prefetch is asked again as usual. The body read in advance is what lets
/// the app go from its start to the tree without waiting a task (and a frame) for the bytes.
async fn take_prefetched(request: &ApiRequest) -> Option<(gloo_net::http::Response, Vec<u8>)> {
    use wasm_bindgen::JsCast;
    if request.verb != crate::model::api::request::Verb::Get
        || request.body.is_some()
        || !request.headers.is_empty()
    {
        return None;
    }
    let window = web_sys::window()?;
    let prefetched = js_sys::Reflect::get(&window, &PREFETCHED.into())
        .ok()?
        .dyn_into::<js_sys::Map>()
        .ok()?;
    let url = full_url(request);
    let key = wasm_bindgen::JsValue::from_str(&format!("{}\n{url}", request.accept));
    let promise = prefetched.get(&key).dyn_into::<js_sys::Promise>().ok()?;
    prefetched.delete(&key);
    if prefetched.size() == 0 {
        // Every answer taken: later requests need not look.
        js_sys::Reflect::delete_property(&window, &PREFETCHED.into()).ok();
    }
    let answer = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    let field = |name: &str| js_sys::Reflect::get(&answer, &name.into()).ok();
    let response = field("response")?.dyn_into::<web_sys::Response>().ok()?;
    let body = field("body")?.dyn_into::<js_sys::ArrayBuffer>().ok()?;
    Some((response.into(), js_sys::Uint8Array::new(&body).to_vec()))
}

/// Sends `request`; aborting `signal` (see [`Abort`]) cancels it, giving
/// [`ApiError::Aborted`]. Non-2xx answers other than 304 become [`ApiError::Status`] with the
/// server's full Status. Reads that meet a transient failure (429, 5xx, no answer) are tried
/// again with backoff (see [`crate::model::api::retry`]); each attempt shows in the request log.
pub async fn send(
    request: &ApiRequest,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<Fetched, ApiError> {
    let aborted = || signal.is_some_and(web_sys::AbortSignal::aborted);
    let mut retry = ReadRetry::new(request.verb, (js_sys::Math::random() * 1e15) as u64 + 1);
    loop {
        let (error, retry_after_header) = match send_once(request, signal).await {
            Ok(fetched) => return Ok(fetched),
            Err(failed) => failed,
        };
        let Some(delay_ms) = retry.after_failure(&error, retry_after_header) else {
            return Err(error);
        };
        gloo_timers::future::TimeoutFuture::new(delay_ms).await;
        if aborted() {
            return Err(ApiError::Aborted);
        }
    }
}

/// One attempt at `request`: the answer, or the error with the answer's `Retry-After` header.
async fn send_once(
    request: &ApiRequest,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<Fetched, (ApiError, Option<u32>)> {
    let id = observe(|o| o.started(request, Transport::Fetch));
    let started = now_ms();
    let finish = |outcome: RequestOutcome| {
        if let Some(id) = id {
            observe(|o| o.finished(id, outcome));
        }
    };
    let aborted = || signal.is_some_and(web_sys::AbortSignal::aborted);
    let (response, body_read) = match take_prefetched(request).await {
        Some((response, body)) => (Ok(response), Some(body)),
        None => (open(request, signal).await, None),
    };
    let response = match response {
        Ok(response) => response,
        Err(error) => {
            finish(RequestOutcome {
                duration_ms: now_ms() - started,
                error: Some(error.log_text()),
                ..Default::default()
            });
            return Err((error.into_api_error(), None));
        }
    };
    let status = response.status();
    let headers = response.headers();
    let content_type = headers.get("content-type").unwrap_or_default();
    let etag = headers.get("etag");
    let warnings = headers
        .get("warning")
        .map(|w| warning_texts(&w))
        .unwrap_or_default();
    let retry_after = headers
        .get("retry-after")
        .and_then(|h| parse_retry_after(&h));
    // The bytes, not `text()`: a JS string would be decoded from UTF-8 by the browser and
    // encoded again to cross into wasm, 13 ms for the 1 MB discovery document of a cluster
    // with 300 CRDs; the bytes are copied and checked once.
    let bytes = match body_read {
        Some(bytes) => Ok(bytes),
        None => response.binary().await,
    };
    let body = match bytes {
        Ok(bytes) => String::from_utf8(bytes)
            .unwrap_or_else(|invalid| String::from_utf8_lossy(invalid.as_bytes()).into_owned()),
        Err(error) => {
            finish(RequestOutcome {
                status: Some(status),
                duration_ms: now_ms() - started,
                error: Some(error.to_string()),
                ..Default::default()
            });
            let error = if aborted() {
                ApiError::Aborted
            } else {
                ApiError::Unreachable(format!("the answer broke off: {error}"))
            };
            return Err((error, None));
        }
    };
    finish(RequestOutcome {
        status: Some(status),
        duration_ms: now_ms() - started,
        bytes: body.len(),
        error: None,
    });
    if (200..300).contains(&status) || status == 304 {
        return Ok(Fetched {
            status,
            content_type,
            etag,
            warnings,
            body,
        });
    }
    Err((ApiError::from_response(status, &body), retry_after))
}

/// kube-atlas's list of clusters (`GET /clusters`), read as it is: `None` where no kube-atlas
/// answers (kubectl proxy, the demo cluster). Not in the request log: it is the server's own
/// state, asked every few seconds, not an API request.
pub async fn cluster_list() -> Option<Vec<crate::model::api::clusters::ClusterEntry>> {
    let response = RequestBuilder::new("/clusters")
        .header("Accept", "application/json")
        .send()
        .await
        .ok()?;
    if response.status() != 200 {
        return None;
    }
    crate::model::api::clusters::parse_cluster_list(&response.text().await.ok()?)
}

/// GET a same-origin API path (absolute, e.g. `/apis`) with the given Accept header.
pub async fn get(path: &str, accept: &str) -> Result<Fetched, ApiError> {
    send(&ApiRequest::get(path).accept(accept), None).await
}

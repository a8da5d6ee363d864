//! The watcher of one key, as a state machine in kube-rs's shape: an initial list (in pages
//! with their continue token, or as a streaming list), then a watch from the list's
//! resourceVersion; a clean end re-watches from the last version seen, a 410 relists, other
//! failures retry after a backoff. The transport performs each [`Command`] and feeds what
//! happened back as an [`Input`]; the [`StoreChange`]s it returns go to the key's store.
//!
//! The first fill of a store is shown as it arrives (the first page at once, the rest
//! appended); every later relist is buffered and swapped in at once, so a view never shows a
//! half list or loses its rows while relisting.

use crate::time::clock::Monotonic;
use serde_json::Value;

use super::backoff::Backoff;
use super::event::{EventType, WatchEvent};
use super::key::{split_page, WatchKey};
use crate::api::errors::ApiError;
use crate::api::request::ApiRequest;
use crate::object::pointer::Pointer;

/// How the initial state is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListMode {
    /// A watch with `sendInitialEvents=true`: one request, no snapshot in memory at the
    /// server. Falls back to [`ListMode::Paged`] when the server does not serve it.
    Streaming,
    /// GET in pages (100, then 1,000), then a watch from the list's resourceVersion. Gives progress
    /// (`remainingItemCount`), so big lists use it.
    Paged,
}

/// What the transport should do.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// After `delay_ms`, fetch this list page; feed the answer as [`Input::Page`].
    List { request: ApiRequest, delay_ms: u32 },
    /// After `delay_ms`, close any open stream and open this watch; feed each event, and
    /// how it ended.
    Watch { request: ApiRequest, delay_ms: u32 },
    /// Keep reading the open stream.
    Continue,
    /// Do nothing until asked ([`Watcher::retry`]): the server forbade the request, and
    /// asking again by itself would be refused the same way.
    Idle,
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// The answer to a [`Command::List`]: the parsed body, or why it failed.
    Page(Result<Value, ApiError>),
    Event(WatchEvent),
    /// A message of the stream that is not a watch event.
    Garbage(String),
    /// The server ended the stream (its timeout, or after an ERROR event).
    StreamEnded,
    /// The stream could not be opened, or broke.
    StreamFailed(ApiError),
}

/// A change for the key's store. Items are whole objects, or whole Tables (whose rows carry
/// their columns) for Table output.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreChange {
    /// Everything the store holds is replaced by these.
    Replace(Vec<Value>),
    /// More of a first fill (the next page).
    Append(Vec<Value>),
    Apply(Value),
    Delete(Value),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub changes: Vec<StoreChange>,
    pub command: Command,
    /// What the input was, for those who keep a record of the stream (recordings), so they
    /// need not read the raw input themselves.
    pub observed: Observed,
}

/// What one input to the watcher was, as a record of the stream notes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    /// An ADDED event: its object is new to the server (not only new to this stream).
    Added,
    /// A BOOKMARK: the server's progress, with no object changed.
    Bookmark { resource_version: String },
    /// Anything else: another event type, a page, an end or a failure.
    Other,
}

impl Observed {
    fn of(input: &Input) -> Observed {
        match input {
            Input::Event(event) if event.event_type == EventType::Added => Observed::Added,
            Input::Event(event) if event.event_type == EventType::Bookmark => event
                .object
                .at("/metadata/resourceVersion")
                .and_then(Value::as_str)
                .map_or(Observed::Other, |rv| Observed::Bookmark {
                    resource_version: rv.to_string(),
                }),
            _ => Observed::Other,
        }
    }

    pub fn is_added(&self) -> bool {
        *self == Observed::Added
    }
}

/// Where a stream stands, as a status line says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamPhase {
    /// The first list is loading.
    Listing,
    /// Following changes.
    Live,
    /// Waiting to retry after a failure.
    Reconnecting,
    /// Reading the whole list again (after a 410); the rows shown are the previous ones.
    Relisting,
    /// The server forbade the list or watch (403): not retried until the user asks or their
    /// permissions may have changed.
    Forbidden,
}

/// What a view shows about its stream.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchStatus {
    pub phase: StreamPhase,
    pub mode: ListMode,
    /// The version the store is at (what a resume starts from).
    pub resource_version: Option<String>,
    /// When the last ADDED/MODIFIED/DELETED arrived (the caller's clock, ms).
    pub last_change_ms: Option<f64>,
    /// When the server was last heard from (any event or page).
    pub last_heard_ms: Option<f64>,
    /// Full relists after the first list, and why the last one happened.
    pub relists: u32,
    pub last_relist_reason: Option<String>,
    /// The last failure, kept until the next success.
    pub last_error: Option<String>,
    /// Set while waiting to retry.
    pub retry_in_ms: Option<u32>,
    /// The last failure was the server's 429 (priority and fairness).
    pub throttled: bool,
    /// The server's estimate of list items still to come (first fill).
    pub remaining_items: Option<u64>,
    /// Something the user should know that is not an error (the list restarted).
    pub notice: Option<String>,
    /// The server's words when it forbade the request (phase [`StreamPhase::Forbidden`]).
    pub forbidden: Option<String>,
}

impl WatchStatus {
    /// The one-word state a status line leads with.
    pub fn headline(&self) -> &'static str {
        match self.phase {
            StreamPhase::Listing => "Loading",
            StreamPhase::Live => "Live",
            StreamPhase::Reconnecting if self.throttled => "Throttled",
            StreamPhase::Reconnecting => "Reconnecting",
            StreamPhase::Relisting => "Relisting",
            StreamPhase::Forbidden => "Forbidden",
        }
    }

    /// The details after it, at `now_ms` (the clock the inputs were given with).
    pub fn details(&self, now: impl Into<Monotonic>) -> Vec<String> {
        let now_ms = now.into().ms();
        let mut parts = Vec::new();
        if let Some(rv) = &self.resource_version {
            parts.push(format!("resourceVersion {rv}"));
        }
        match self.last_change_ms {
            Some(at) => parts.push(format!(
                "last change {} ago",
                crate::time::age::human_duration((now_ms - at).max(0.0) as i64)
            )),
            None if self.phase == StreamPhase::Live => parts.push("no change yet".into()),
            None => {}
        }
        if self.relists > 0 {
            let reason = self.last_relist_reason.as_deref().unwrap_or("unknown");
            let times = if self.relists == 1 { "once" } else { "times" };
            if self.relists == 1 {
                parts.push(format!("relisted {times} ({reason})"));
            } else {
                parts.push(format!(
                    "relisted {} {times} (last: {reason})",
                    self.relists
                ));
            }
        }
        if let Some(error) = &self.last_error {
            match self.retry_in_ms {
                Some(ms) => parts.push(format!(
                    "{error}; retrying in {:.1} s",
                    f64::from(ms) / 1000.0
                )),
                None => parts.push(error.clone()),
            }
        }
        parts
    }
}

/// Expired continue tokens tolerated in one fill before backing off: a list changing faster
/// than it can be read would otherwise restart forever.
pub const MAX_LIST_RESTARTS: u32 = 3;

/// A stream that ends this soon without a single event counts as a failure (backoff), so
/// a proxy that closes watches at once is not hammered.
const INSTANT_END_MS: f64 = 1_000.0;

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Listing {
        continue_token: Option<String>,
        restarts: u32,
    },
    Streaming {
        saw_event: bool,
    },
    Watching {
        resource_version: String,
        opened_ms: f64,
        saw_event: bool,
    },
}

#[derive(Debug, Clone)]
pub struct Watcher {
    key: WatchKey,
    mode: ListMode,
    phase: Phase,
    backoff: Backoff,
    /// The store has held a complete list once: later fills are buffered.
    filled: bool,
    /// The current (progressive) fill has sent its first Replace.
    fill_started: bool,
    buffer: Vec<Value>,
    status: WatchStatus,
    /// The server answered a streaming list with a refusal: this key lists in pages for good.
    streaming_refused: bool,
}

impl Watcher {
    /// A watcher and its first command. `seed` makes the retry jitter repeatable.
    pub fn new(key: WatchKey, mode: ListMode, seed: u64) -> (Watcher, Command) {
        let mut watcher = Watcher {
            key,
            mode,
            phase: Phase::Streaming { saw_event: false },
            backoff: Backoff::new(seed),
            filled: false,
            fill_started: false,
            buffer: Vec::new(),
            status: WatchStatus {
                phase: StreamPhase::Listing,
                mode,
                resource_version: None,
                last_change_ms: None,
                last_heard_ms: None,
                relists: 0,
                last_relist_reason: None,
                last_error: None,
                retry_in_ms: None,
                throttled: false,
                remaining_items: None,
                notice: None,
                forbidden: None,
            },
            streaming_refused: false,
        };
        let command = watcher.begin_fill(0, 0);
        (watcher, command)
    }

    pub fn key(&self) -> &WatchKey {
        &self.key
    }

    pub fn status(&self) -> &WatchStatus {
        &self.status
    }

    /// The store holds a complete list.
    pub fn is_filled(&self) -> bool {
        self.filled
    }

    /// Starts over from whatever the watcher was doing, at once: after the browser comes
    /// back online or a hidden tab is shown again, when a stream may be dead without anyone
    /// having noticed. Resumes from the last version (a 410 then relists).
    /// A forbidden stream stays idle: waking up changes nothing about permissions.
    pub fn reconnect(&mut self, now: impl Into<Monotonic>) -> Command {
        if self.status.phase == StreamPhase::Forbidden {
            return Command::Idle;
        }
        self.resume(now.into().ms())
    }

    /// Tries a forbidden stream again (the user asked, or permissions may have changed);
    /// otherwise as [`Watcher::reconnect`].
    pub fn retry(&mut self, now: impl Into<Monotonic>) -> Command {
        if self.status.phase == StreamPhase::Forbidden {
            self.status.forbidden = None;
            self.status.last_error = None;
            self.status.phase = match (&self.phase, self.filled) {
                (Phase::Watching { .. }, _) => StreamPhase::Live,
                (_, false) => StreamPhase::Listing,
                (_, true) => StreamPhase::Relisting,
            };
        }
        self.resume(now.into().ms())
    }

    fn resume(&mut self, now_ms: f64) -> Command {
        self.backoff.reset();
        self.status.retry_in_ms = None;
        match &self.phase {
            Phase::Watching {
                resource_version, ..
            } => {
                let resource_version = resource_version.clone();
                self.watch_from(resource_version, now_ms, 0)
            }
            Phase::Listing {
                continue_token,
                restarts,
            } if self.fill_started || self.filled => {
                // The pages read so far stay valid: go on from the same page.
                let (token, restarts) = (continue_token.clone(), *restarts);
                self.phase = Phase::Listing {
                    continue_token: token.clone(),
                    restarts,
                };
                Command::List {
                    request: self.key.list_request(token.as_deref()),
                    delay_ms: 0,
                }
            }
            _ => self.begin_fill(0, 0),
        }
    }

    /// Applies one input.
    pub fn on(&mut self, input: Input, now: impl Into<Monotonic>) -> Step {
        let now_ms = now.into().ms();
        let observed = Observed::of(&input);
        let mut changes = Vec::new();
        let command = match (self.phase.clone(), input) {
            (
                Phase::Listing {
                    continue_token,
                    restarts,
                },
                Input::Page(page),
            ) => self.on_page(page, continue_token, restarts, now_ms, &mut changes),
            (Phase::Streaming { saw_event }, Input::Event(event)) => {
                self.on_initial_event(event, saw_event, now_ms, &mut changes)
            }
            (Phase::Streaming { saw_event }, Input::Garbage(error)) => {
                let error = ApiError::bad_response(200, error);
                self.on_streaming_failure(saw_event, &error)
            }
            (
                Phase::Streaming { saw_event },
                end @ (Input::StreamEnded | Input::StreamFailed(_)),
            ) => {
                let error = match end {
                    Input::StreamFailed(error) => error,
                    _ => ApiError::Unreachable("the stream ended during the initial list".into()),
                };
                self.on_streaming_failure(saw_event, &error)
            }
            (
                Phase::Watching {
                    resource_version, ..
                },
                Input::Event(event),
            ) => self.on_event(event, resource_version, now_ms, &mut changes),
            (
                Phase::Watching {
                    resource_version, ..
                },
                Input::Garbage(error),
            ) => {
                let delay = self.fail(&ApiError::bad_response(200, error), None);
                self.watch_from(resource_version, now_ms, delay)
            }
            (
                Phase::Watching {
                    resource_version,
                    opened_ms,
                    saw_event,
                },
                Input::StreamEnded,
            ) => {
                if !saw_event && now_ms - opened_ms < INSTANT_END_MS {
                    let error = ApiError::Unreachable("the watch was closed at once".into());
                    let delay = self.fail(&error, None);
                    self.watch_from(resource_version, now_ms, delay)
                } else {
                    self.watch_from(resource_version, now_ms, 0)
                }
            }
            (
                Phase::Watching {
                    resource_version, ..
                },
                Input::StreamFailed(error),
            ) => {
                if error.is_expired() {
                    self.relist("the watch expired (410 Gone)", 0)
                } else if is_forbidden(&error) {
                    self.forbid(&error)
                } else {
                    let delay = self.fail(&error, retry_after(&error));
                    self.watch_from(resource_version, now_ms, delay)
                }
            }
            // Leftovers of a stream or request that is no longer followed.
            _ => Command::Continue,
        };
        Step {
            changes,
            command,
            observed,
        }
    }

    fn on_page(
        &mut self,
        page: Result<Value, ApiError>,
        continue_token: Option<String>,
        restarts: u32,
        now_ms: f64,
        changes: &mut Vec<StoreChange>,
    ) -> Command {
        let split = page.and_then(|body| split_page(body, self.key.output));
        let (units, meta) = match split {
            Ok(split) => split,
            Err(error) if error.is_expired() && continue_token.is_some() => {
                if restarts < MAX_LIST_RESTARTS {
                    self.status.notice = Some(
                        "The list changed too much while it loaded; it was read again from the start."
                            .into(),
                    );
                    return self.begin_fill(0, restarts + 1);
                }
                if !self.streaming_refused {
                    // Writes outrun the pages: the server's history no longer reaches back to
                    // the first page. A streaming list needs no history (its state is the
                    // server's current one), so the fill is read that way instead.
                    self.mode = ListMode::Streaming;
                    self.status.mode = ListMode::Streaming;
                    self.status.notice = Some(
                        "The list changed faster than it could be read in pages; it is streamed instead."
                            .into(),
                    );
                    return self.begin_fill(0, 0);
                }
                let delay = self.fail(&error, None);
                return self.begin_fill(delay, 0);
            }
            Err(error) if is_forbidden(&error) => return self.forbid(&error),
            Err(error) => {
                let delay = self.fail(&error, retry_after(&error));
                return Command::List {
                    request: self.key.list_request(continue_token.as_deref()),
                    delay_ms: delay,
                };
            }
        };
        self.heard(now_ms);
        self.status.remaining_items = meta.remaining_item_count;
        self.fill_units(units, changes);
        if let Some(token) = meta.continue_token {
            let request = self.key.list_request(Some(&token));
            self.phase = Phase::Listing {
                continue_token: Some(token),
                restarts,
            };
            return Command::List {
                request,
                delay_ms: 0,
            };
        }
        let Some(resource_version) = meta.resource_version else {
            let error =
                ApiError::bad_response(200, "the list has no resourceVersion to watch from");
            let delay = self.fail(&error, None);
            return self.begin_fill(delay, 0);
        };
        self.finish_fill(&resource_version, changes);
        self.watch_from(resource_version, now_ms, 0)
    }

    fn on_initial_event(
        &mut self,
        event: WatchEvent,
        saw_event: bool,
        now_ms: f64,
        changes: &mut Vec<StoreChange>,
    ) -> Command {
        self.phase = Phase::Streaming { saw_event: true };
        match event.event_type {
            EventType::Added | EventType::Modified => {
                self.heard(now_ms);
                self.fill_units(vec![event.object], changes);
                Command::Continue
            }
            // "Impossible" during the initial events; honoured anyway.
            EventType::Deleted => {
                self.heard(now_ms);
                if self.filled {
                    self.buffer.retain(|item| !same_object(item, &event.object));
                } else {
                    changes.push(StoreChange::Delete(event.object));
                }
                Command::Continue
            }
            EventType::Bookmark if event.is_initial_events_end() => {
                self.heard(now_ms);
                match event.resource_version() {
                    Some(resource_version) => {
                        let resource_version = resource_version.to_string();
                        self.finish_fill(&resource_version, changes);
                        self.phase = Phase::Watching {
                            resource_version,
                            opened_ms: now_ms,
                            saw_event: true,
                        };
                        Command::Continue
                    }
                    None => {
                        let error = ApiError::bad_response(200, "bookmark without resourceVersion");
                        let delay = self.fail(&error, None);
                        self.begin_fill(delay, 0)
                    }
                }
            }
            EventType::Bookmark => Command::Continue,
            EventType::Error => {
                let status = event.status();
                let code = status.as_ref().map_or(500, |s| s.code);
                let error = ApiError::Status {
                    code,
                    reason: status.as_ref().map(|s| s.reason.clone()),
                    message: status
                        .as_ref()
                        .map(|s| s.message.clone())
                        .unwrap_or_default(),
                    details: None,
                };
                let retry = status.and_then(|s| s.retry_after_seconds);
                if !saw_event && is_rejection(code) {
                    return self.fall_back_to_paged(&error);
                }
                let delay = self.fail(&error, retry);
                self.begin_fill(delay, 0)
            }
        }
    }

    fn on_streaming_failure(&mut self, saw_event: bool, error: &ApiError) -> Command {
        // Over a WebSocket a refused watch (a server without streaming lists answers 400 or
        // 403) looks like any failed connection: before the first event, list instead.
        let refused = error.code().is_none_or(is_rejection);
        if !saw_event && refused {
            return self.fall_back_to_paged(error);
        }
        if is_forbidden(error) {
            return self.forbid(error);
        }
        let delay = self.fail(error, retry_after(error));
        self.begin_fill(delay, 0)
    }

    fn fall_back_to_paged(&mut self, error: &ApiError) -> Command {
        self.streaming_refused = true;
        self.mode = ListMode::Paged;
        self.status.mode = ListMode::Paged;
        self.status.notice = Some(format!(
            "The server did not stream the list ({error}); listing in pages instead."
        ));
        self.begin_fill(0, 0)
    }

    fn on_event(
        &mut self,
        event: WatchEvent,
        resource_version: String,
        now_ms: f64,
        changes: &mut Vec<StoreChange>,
    ) -> Command {
        if let Some(status) = event.status() {
            if status.code == 410 {
                return self.relist("the watch expired (410 Gone)", 0);
            }
            let error = ApiError::Status {
                code: status.code,
                reason: Some(status.reason),
                message: status.message,
                details: None,
            };
            if is_forbidden(&error) {
                return self.forbid(&error);
            }
            let delay = self.fail(&error, status.retry_after_seconds);
            return self.watch_from(resource_version, now_ms, delay);
        }
        let Some(new_version) = event.resource_version().map(str::to_string) else {
            return self.relist("an event came without resourceVersion", 0);
        };
        self.heard(now_ms);
        if let Phase::Watching { saw_event, .. } = &mut self.phase {
            *saw_event = true;
        }
        match event.event_type {
            EventType::Added | EventType::Modified => {
                self.status.last_change_ms = Some(now_ms);
                changes.push(StoreChange::Apply(event.object));
            }
            EventType::Deleted => {
                self.status.last_change_ms = Some(now_ms);
                changes.push(StoreChange::Delete(event.object));
            }
            EventType::Bookmark | EventType::Error => {}
        }
        if let Phase::Watching {
            resource_version, ..
        } = &mut self.phase
        {
            resource_version.clone_from(&new_version);
        }
        self.status.resource_version = Some(new_version);
        Command::Continue
    }

    /// A request succeeded or an event arrived.
    fn heard(&mut self, now_ms: f64) {
        self.backoff.reset();
        self.status.last_heard_ms = Some(now_ms);
        self.status.last_error = None;
        self.status.retry_in_ms = None;
        self.status.throttled = false;
        self.status.phase = match (&self.phase, self.filled) {
            (Phase::Watching { .. }, _) => StreamPhase::Live,
            (_, false) => StreamPhase::Listing,
            (_, true) => StreamPhase::Relisting,
        };
    }

    /// Stops at a 403: says what the server said, and waits to be asked again.
    fn forbid(&mut self, error: &ApiError) -> Command {
        self.status.phase = StreamPhase::Forbidden;
        self.status.last_error = Some(error.to_string());
        self.status.retry_in_ms = None;
        self.status.throttled = false;
        self.status.forbidden = Some(match error {
            ApiError::Status { message, .. } if !message.is_empty() => message.clone(),
            other => other.to_string(),
        });
        Command::Idle
    }

    /// Records a failure; returns how long to wait before retrying.
    fn fail(&mut self, error: &ApiError, retry_after_seconds: Option<u32>) -> u32 {
        let delay = self.backoff.next_delay_ms(retry_after_seconds);
        self.status.phase = StreamPhase::Reconnecting;
        self.status.last_error = Some(error.to_string());
        self.status.retry_in_ms = Some(delay);
        self.status.throttled = error.code() == Some(429);
        delay
    }

    fn fill_units(&mut self, units: Vec<Value>, changes: &mut Vec<StoreChange>) {
        if self.filled {
            self.buffer.extend(units);
        } else if self.fill_started {
            changes.push(StoreChange::Append(units));
        } else {
            self.fill_started = true;
            changes.push(StoreChange::Replace(units));
        }
    }

    fn finish_fill(&mut self, resource_version: &str, changes: &mut Vec<StoreChange>) {
        if self.filled {
            changes.push(StoreChange::Replace(std::mem::take(&mut self.buffer)));
        } else if !self.fill_started {
            changes.push(StoreChange::Replace(Vec::new()));
        }
        self.filled = true;
        self.fill_started = false;
        self.status.remaining_items = None;
        self.status.resource_version = Some(resource_version.to_string());
        self.status.phase = StreamPhase::Live;
    }

    /// Starts reading the whole state (a first list or a relist) after `delay_ms`.
    fn begin_fill(&mut self, delay_ms: u32, restarts: u32) -> Command {
        self.buffer.clear();
        self.fill_started = false;
        match self.mode {
            ListMode::Paged => {
                self.phase = Phase::Listing {
                    continue_token: None,
                    restarts,
                };
                Command::List {
                    request: self.key.list_request(None),
                    delay_ms,
                }
            }
            ListMode::Streaming => {
                self.phase = Phase::Streaming { saw_event: false };
                Command::Watch {
                    request: self.key.streaming_request(),
                    delay_ms,
                }
            }
        }
    }

    fn relist(&mut self, reason: &str, delay_ms: u32) -> Command {
        if self.filled {
            self.status.relists += 1;
            self.status.phase = StreamPhase::Relisting;
        }
        self.status.last_relist_reason = Some(reason.to_string());
        self.begin_fill(delay_ms, 0)
    }

    fn watch_from(&mut self, resource_version: String, now_ms: f64, delay_ms: u32) -> Command {
        let request = self.key.watch_request(&resource_version);
        self.phase = Phase::Watching {
            resource_version,
            opened_ms: now_ms + f64::from(delay_ms),
            saw_event: false,
        };
        Command::Watch { request, delay_ms }
    }
}

fn is_forbidden(error: &ApiError) -> bool {
    error.code() == Some(403)
}

/// 4xx other than 410 and 429: the server will not do this request, retrying the same way
/// will not help.
fn is_rejection(code: u16) -> bool {
    (400..500).contains(&code) && code != 410 && code != 429
}

fn retry_after(error: &ApiError) -> Option<u32> {
    match error {
        ApiError::Status {
            details: Some(details),
            ..
        } => details.retry_after_seconds,
        _ => None,
    }
}

/// Same uid, or (without uids) same namespace and name.
pub fn same_object(a: &Value, b: &Value) -> bool {
    let field = |v: &Value, path: &str| v.at(path).and_then(Value::as_str).map(str::to_string);
    match (field(a, "/metadata/uid"), field(b, "/metadata/uid")) {
        (Some(x), Some(y)) => x == y,
        _ => {
            field(a, "/metadata/name") == field(b, "/metadata/name")
                && field(a, "/metadata/namespace") == field(b, "/metadata/namespace")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::event::decode_event;
    use crate::watch::key::Output;
    use serde_json::json;

    fn key() -> WatchKey {
        WatchKey::new("/api/v1/configmaps", Output::Objects)
    }

    fn obj(name: &str, rv: u64) -> Value {
        json!({"metadata": {"namespace": "ns", "name": name, "uid": format!("u-{name}"), "resourceVersion": rv.to_string()}})
    }

    fn event(kind: &str, object: Value) -> Input {
        Input::Event(
            decode_event(&json!({"type": kind, "object": object}).to_string()).expect("event"),
        )
    }

    fn page(items: Vec<Value>, rv: &str, continue_token: Option<&str>) -> Input {
        let mut metadata = json!({"resourceVersion": rv});
        if let Some(token) = continue_token {
            metadata["continue"] = json!(token);
        }
        Input::Page(Ok(
            json!({"kind": "ConfigMapList", "metadata": metadata, "items": items}),
        ))
    }

    fn query(command: &Command) -> String {
        match command {
            Command::List { request, .. } | Command::Watch { request, .. } => request.url(),
            Command::Continue | Command::Idle => String::new(),
        }
    }

    fn delay(command: &Command) -> u32 {
        match command {
            Command::List { delay_ms, .. } | Command::Watch { delay_ms, .. } => *delay_ms,
            Command::Continue | Command::Idle => 0,
        }
    }

    #[test]
    fn each_step_says_what_its_input_was() {
        let (mut watcher, _) = Watcher::new(key(), ListMode::Paged, 1);
        let listed = watcher.on(page(vec![obj("a", 5)], "5", None), 0.0);
        assert_eq!(listed.observed, Observed::Other);
        let added = watcher.on(event("ADDED", obj("b", 6)), 1.0);
        assert_eq!(added.observed, Observed::Added);
        assert!(added.observed.is_added());
        let modified = watcher.on(event("MODIFIED", obj("b", 7)), 2.0);
        assert_eq!(modified.observed, Observed::Other);
        let bookmark = watcher.on(
            event("BOOKMARK", json!({"metadata": {"resourceVersion": "9"}})),
            3.0,
        );
        assert_eq!(
            bookmark.observed,
            Observed::Bookmark {
                resource_version: "9".into()
            }
        );
        assert!(bookmark.changes.is_empty(), "a bookmark changes no object");
        let ended = watcher.on(Input::StreamEnded, 4.0);
        assert_eq!(ended.observed, Observed::Other);
    }

    #[test]
    fn pages_then_watch_then_relist_buffered_after_410() {
        let (mut watcher, first) = Watcher::new(key(), ListMode::Paged, 1);
        assert!(query(&first).ends_with("limit=100"));
        let step = watcher.on(page(vec![obj("a", 1)], "5", Some("next")), 0.0);
        assert_eq!(step.changes, vec![StoreChange::Replace(vec![obj("a", 1)])]);
        assert!(query(&step.command).ends_with("continue=next"));
        let step = watcher.on(page(vec![obj("b", 2)], "5", None), 1.0);
        assert_eq!(step.changes, vec![StoreChange::Append(vec![obj("b", 2)])]);
        assert!(
            query(&step.command).contains("watch=true&allowWatchBookmarks=true&resourceVersion=5")
        );
        assert_eq!(watcher.status().phase, StreamPhase::Live);

        let step = watcher.on(event("MODIFIED", obj("a", 6)), 2.0);
        assert_eq!(step.changes, vec![StoreChange::Apply(obj("a", 6))]);
        assert_eq!(step.command, Command::Continue);
        // A clean end resumes from the last version, at once.
        let step = watcher.on(Input::StreamEnded, 5_000.0);
        assert!(query(&step.command).contains("resourceVersion=6"));
        assert_eq!(delay(&step.command), 0);

        // 410: relist; the rows stay until the new list is complete, then swap at once.
        let step = watcher.on(
            event(
                "ERROR",
                json!({"kind":"Status","code":410,"reason":"Expired","message":"too old"}),
            ),
            6_000.0,
        );
        assert!(step.changes.is_empty());
        assert!(query(&step.command).ends_with("limit=100"));
        assert_eq!(watcher.status().phase, StreamPhase::Relisting);
        assert_eq!(watcher.status().relists, 1);
        let step = watcher.on(page(vec![obj("c", 9)], "10", Some("t")), 6_100.0);
        assert!(step.changes.is_empty());
        let step = watcher.on(page(vec![obj("d", 10)], "10", None), 6_200.0);
        assert_eq!(
            step.changes,
            vec![StoreChange::Replace(vec![obj("c", 9), obj("d", 10)])]
        );
        assert!(query(&step.command).contains("resourceVersion=10"));
    }

    #[test]
    fn a_resume_answered_410_relists_at_once() {
        let (mut watcher, _) = Watcher::new(key(), ListMode::Paged, 1);
        let step = watcher.on(page(vec![obj("a", 1)], "5", None), 0.0);
        assert!(query(&step.command).contains("watch=true"));
        assert_eq!(watcher.status().phase, StreamPhase::Live);
        // A clean end resumes from version 5; the server answers the resume with HTTP 410.
        let step = watcher.on(Input::StreamEnded, 5_000.0);
        assert!(query(&step.command).contains("resourceVersion=5"));
        let gone = ApiError::from_response(
            410,
            r#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired","message":"too old resource version: 5 (9)"}"#,
        );
        let step = watcher.on(Input::StreamFailed(gone), 5_001.0);
        // Not a backoff and a resume from the same version: a list, at once, rows kept.
        assert!(step.changes.is_empty());
        assert!(query(&step.command).ends_with("limit=100"), "{step:?}");
        assert_eq!(delay(&step.command), 0);
        assert_eq!(watcher.status().phase, StreamPhase::Relisting);
        assert_eq!(watcher.status().relists, 1);
        let step = watcher.on(page(vec![obj("b", 9)], "9", None), 5_100.0);
        assert_eq!(step.changes, vec![StoreChange::Replace(vec![obj("b", 9)])]);
        assert!(query(&step.command).contains("resourceVersion=9"));
        assert_eq!(watcher.status().phase, StreamPhase::Live);
    }

    #[test]
    fn streaming_list_buffers_until_the_end_bookmark_and_falls_back_when_refused() {
        let (mut watcher, first) = Watcher::new(key(), ListMode::Streaming, 1);
        assert!(query(&first).contains("sendInitialEvents=true"));
        let step = watcher.on(event("ADDED", obj("a", 3)), 0.0);
        assert_eq!(step.changes, vec![StoreChange::Replace(vec![obj("a", 3)])]);
        let end = json!({"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"8",
            "annotations":{"k8s.io/initial-events-end":"true"}}});
        let step = watcher.on(event("BOOKMARK", end), 1.0);
        assert!(step.changes.is_empty());
        assert_eq!(step.command, Command::Continue);
        assert_eq!(watcher.status().resource_version.as_deref(), Some("8"));
        assert!(watcher.is_filled());

        // A server that refuses streaming lists: list in pages from then on.
        let (mut refused, _) = Watcher::new(key(), ListMode::Streaming, 1);
        let step = refused.on(
            Input::StreamFailed(ApiError::Unreachable("WebSocket closed".into())),
            0.0,
        );
        assert!(query(&step.command).ends_with("limit=100"));
        assert_eq!(refused.status().mode, ListMode::Paged);
    }

    #[test]
    fn failures_back_off_honouring_retry_after_and_an_expired_token_restarts() {
        let (mut watcher, _) = Watcher::new(key(), ListMode::Paged, 3);
        let throttled = ApiError::from_response(
            429,
            r#"{"kind":"Status","code":429,"reason":"TooManyRequests","message":"slow","details":{"retryAfterSeconds":2}}"#,
        );
        let step = watcher.on(Input::Page(Err(throttled)), 0.0);
        assert_eq!(delay(&step.command), 2_000);
        assert!(watcher.status().throttled);
        assert_eq!(watcher.status().phase, StreamPhase::Reconnecting);

        let step = watcher.on(page(vec![obj("a", 1)], "5", Some("t1")), 1.0);
        assert_eq!(watcher.status().phase, StreamPhase::Listing);
        assert!(query(&step.command).ends_with("continue=t1"));
        let expired = ApiError::from_response(
            410,
            r#"{"kind":"Status","code":410,"reason":"Expired","message":"token"}"#,
        );
        let step = watcher.on(Input::Page(Err(expired)), 2.0);
        assert!(query(&step.command).ends_with("limit=100"));
        assert!(watcher.status().notice.is_some());
        // The restarted fill replaces the rows of the aborted one.
        let step = watcher.on(page(vec![obj("b", 2)], "6", None), 3.0);
        assert_eq!(step.changes, vec![StoreChange::Replace(vec![obj("b", 2)])]);

        // A watch closed at once, without events, is retried after a backoff.
        let step = watcher.on(Input::StreamEnded, 3.5);
        assert!(delay(&step.command) > 0);
        // Events without a version cannot be resumed from: relist.
        let (mut other, _) = Watcher::new(key(), ListMode::Paged, 3);
        other.on(page(vec![], "1", None), 0.0);
        let step = other.on(event("ADDED", json!({"metadata":{"name":"x"}})), 1.0);
        assert!(query(&step.command).ends_with("limit=100"));
    }

    #[test]
    fn a_forbidden_list_or_watch_waits_for_the_user_instead_of_retrying() {
        let forbidden = |verb: &str| {
            ApiError::from_response(
                403,
                &format!(
                    r#"{{"kind":"Status","code":403,"reason":"Forbidden","message":"configmaps is forbidden: User \"viewer\" cannot {verb} resource \"configmaps\" in API group \"\" at the cluster scope"}}"#
                ),
            )
        };
        let (mut watcher, _) = Watcher::new(key(), ListMode::Paged, 1);
        let step = watcher.on(Input::Page(Err(forbidden("list"))), 0.0);
        assert_eq!(step.command, Command::Idle);
        let status = watcher.status();
        assert_eq!(status.phase, StreamPhase::Forbidden);
        assert_eq!(status.headline(), "Forbidden");
        assert_eq!(status.retry_in_ms, None);
        assert!(status
            .forbidden
            .as_deref()
            .is_some_and(|m| m.contains("cannot list resource")));
        // Waking up (online again, a tab shown) asks nothing.
        assert_eq!(watcher.reconnect(10_000.0), Command::Idle);
        // The user's retry lists again, and a success clears the refusal.
        let step = watcher.retry(20_000.0);
        assert!(query(&step).ends_with("limit=100"));
        assert_eq!(watcher.status().phase, StreamPhase::Listing);
        assert_eq!(watcher.status().forbidden, None);
        watcher.on(page(vec![obj("a", 1)], "5", None), 20_001.0);
        assert_eq!(watcher.status().phase, StreamPhase::Live);

        // Listed but not watched (a role with list and no watch): the rows stay, the watch
        // stops.
        let step = watcher.on(Input::StreamFailed(forbidden("watch")), 20_002.0);
        assert_eq!(step.command, Command::Idle);
        assert_eq!(watcher.status().phase, StreamPhase::Forbidden);
        let step = watcher.retry(30_000.0);
        assert!(query(&step).contains("watch=true"));
        // The same refusal as a watch stream's ERROR event.
        let error_event = json!({"type": "ERROR", "object": {"kind": "Status", "code": 403,
            "reason": "Forbidden", "message": "no"}});
        let step = watcher.on(
            Input::Event(decode_event(&error_event.to_string()).unwrap()),
            30_001.0,
        );
        assert_eq!(step.command, Command::Idle);
    }

    #[test]
    fn pages_that_keep_expiring_are_streamed_instead_unless_the_server_refused_streams() {
        let expired = || {
            Input::Page(Err(ApiError::from_response(
                410,
                r#"{"kind":"Status","code":410,"reason":"Expired","message":"token"}"#,
            )))
        };
        let (mut watcher, _) = Watcher::new(key(), ListMode::Paged, 3);
        let mut step = watcher.on(page(vec![obj("a", 1)], "5", Some("t1")), 0.0);
        for restart in 0..MAX_LIST_RESTARTS {
            watcher.on(expired(), 1.0);
            assert_eq!(watcher.status().mode, ListMode::Paged, "restart {restart}");
            step = watcher.on(page(vec![obj("a", 1)], "5", Some("t1")), 1.0);
        }
        assert!(query(&step.command).ends_with("continue=t1"));
        let step = watcher.on(expired(), 2.0);
        assert_eq!(watcher.status().mode, ListMode::Streaming);
        assert!(query(&step.command).contains("sendInitialEvents=true"));
        assert_eq!(delay(&step.command), 0);

        // A server that refused the stream before is listed in pages again, after a backoff.
        let (mut refused, _) = Watcher::new(key(), ListMode::Streaming, 3);
        refused.on(Input::StreamFailed(ApiError::from_response(400, "{}")), 0.0);
        assert_eq!(refused.status().mode, ListMode::Paged);
        for _ in 0..MAX_LIST_RESTARTS {
            refused.on(page(vec![obj("a", 1)], "5", Some("t1")), 1.0);
            refused.on(expired(), 1.0);
        }
        refused.on(page(vec![obj("a", 1)], "5", Some("t1")), 1.0);
        let step = refused.on(expired(), 2.0);
        assert_eq!(refused.status().mode, ListMode::Paged);
        assert!(query(&step.command).ends_with("limit=100"));
        assert!(delay(&step.command) > 0);
    }

    #[test]
    fn status_says_what_happened() {
        let (mut watcher, _) = Watcher::new(key(), ListMode::Paged, 3);
        assert_eq!(watcher.status().headline(), "Loading");
        watcher.on(page(vec![], "4", None), 0.0);
        watcher.on(event("ADDED", obj("a", 7)), 1_000.0);
        assert_eq!(watcher.status().headline(), "Live");
        assert_eq!(
            watcher.status().details(6_000.0),
            vec![
                "resourceVersion 7".to_string(),
                "last change 5s ago".to_string()
            ]
        );
        watcher.on(
            event(
                "ERROR",
                json!({"kind":"Status","code":410,"reason":"Expired","message":"old"}),
            ),
            7_000.0,
        );
        assert_eq!(watcher.status().headline(), "Relisting");
        watcher.on(page(vec![], "9", None), 7_100.0);
        let details = watcher.status().details(8_000.0);
        assert!(
            details.contains(&"relisted once (the watch expired (410 Gone))".to_string()),
            "{details:?}"
        );
        let throttled = ApiError::from_response(
            429,
            r#"{"kind":"Status","code":429,"reason":"TooManyRequests","message":"slow","details":{"retryAfterSeconds":2}}"#,
        );
        watcher.on(Input::StreamFailed(throttled), 9_000.0);
        assert_eq!(watcher.status().headline(), "Throttled");
        assert!(watcher
            .status()
            .details(9_000.0)
            .last()
            .is_some_and(|d| d.ends_with("retrying in 2.0 s")));
    }

    #[test]
    fn reconnect_resumes_from_the_last_version_at_once() {
        let (mut watcher, _) = Watcher::new(key(), ListMode::Paged, 3);
        watcher.on(page(vec![], "4", None), 0.0);
        watcher.on(event("ADDED", obj("a", 7)), 1.0);
        let failed = watcher.on(
            Input::StreamFailed(ApiError::Unreachable("offline".into())),
            2.0,
        );
        assert!(delay(&failed.command) > 0);
        let command = watcher.reconnect(3.0);
        assert_eq!(delay(&command), 0);
        assert!(query(&command).contains("resourceVersion=7"));
    }
}

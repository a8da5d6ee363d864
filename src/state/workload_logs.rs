//! A workload's logs as its Logs tab reads them: [`use_workload_logs`] follows the pods the
//! workload covers (from the namespace's shared pods watch, the one the object page's owner
//! graph reads), opens one `follow&timestamps` stream per pod and container as pods start,
//! closes it when the pod goes, and feeds every line into one [`WorkloadLog`]; the view
//! merges and draws once per frame. Every decision is the model's
//! (`model::object::workload_logs`); this is the IO.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::rc::Rc;

use futures::future::{abortable, AbortHandle};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use crate::api::{multiplex, stream, Abort, ApiError};
use crate::model::api::request::ApiRequest;
use crate::model::object::workload_logs::membership::OpenStream;
use crate::model::object::workload_logs::{
    Membership, MembershipOptions, PodCoverage, Since, StreamKey, StreamStatus, StreamTag,
    TagPalette, WorkloadLog,
};
use crate::model::watch::{ObjectCache, Output, StreamPhase, WatchKey};
use crate::state::watch::use_watch_objects;

/// Pods streamed at once over plain HTTP (`kubectl proxy`): a browser holds six connections
/// to one server, and each stream keeps one. Behind kube-atlas every stream shares its one
/// socket, and the model's cap applies.
pub const MAX_PODS_OVER_HTTP: usize = 5;

/// What [`use_workload_logs`] is asked.
pub struct UseWorkloadLogsOptions {
    /// Which pods: a workload's (`PodCoverage::of`), or a label selector's.
    pub coverage: PodCoverage,
    pub since: Since,
}

/// One stream as the view lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamRow {
    pub key: StreamKey,
    pub tag: StreamTag,
    pub live: bool,
    pub sentence: String,
}

/// What [`use_workload_logs`] gives the view.
#[derive(Clone, Copy)]
pub struct UseWorkloadLogsReturn {
    /// Every line read, merged (the view merges what is pending once per frame).
    pub log: StoredValue<WorkloadLog, LocalStorage>,
    /// Each stream's prefix (short name, colour) and full name.
    pub tags: StoredValue<TagPalette, LocalStorage>,
    /// Notified when lines arrived: the view merges and draws at its next frame.
    pub arrived: Trigger,
    /// The streams, newest state, in name order.
    pub streams: ReadSignal<Vec<StreamRow>>,
    /// "Streaming 3 pods", "Streaming 4 of 5 pods; 1 not streamed".
    pub summary: ReadSignal<String>,
    /// Why no pod can be covered (a Service without a selector), if so.
    pub nothing: Signal<Option<String>>,
    /// The server's refusal to list the namespace's pods (the user may not), if so.
    pub refused: Signal<Option<String>>,
    /// Whether the streams share kube-atlas's socket (else each holds an HTTP connection).
    pub shared_socket: bool,
}

/// Follows the workload's pods and their logs while the calling view lives (leaving it
/// closes every stream).
pub fn use_workload_logs(options: UseWorkloadLogsOptions) -> UseWorkloadLogsReturn {
    let UseWorkloadLogsOptions { coverage, since } = options;
    let namespace = StoredValue::new(coverage.namespace.clone());
    let nothing = coverage.nothing_reason().map(str::to_string);
    let shared_socket = multiplex::available();
    let max_pods = if shared_socket {
        MembershipOptions::default().max_pods
    } else {
        MAX_PODS_OVER_HTTP
    };
    let log = StoredValue::new_local(WorkloadLog::new());
    let tags = StoredValue::new_local(TagPalette::new());
    let membership = StoredValue::new_local(Membership::new(MembershipOptions { since, max_pods }));
    let coverage = StoredValue::new_local(coverage);
    let arrived = Trigger::new();
    let streams = RwSignal::new(Vec::<StreamRow>::new());
    let summary = RwSignal::new(String::new());
    let running: Rc<RefCell<BTreeMap<StreamKey, Running>>> = Rc::default();
    let running = StoredValue::new_local(running);
    on_cleanup(move || {
        if let Some(running) = running.try_get_value() {
            for (_, stream) in std::mem::take(&mut *running.borrow_mut()) {
                stream.stop();
            }
        }
    });

    let publish = move || {
        let Some(rows) = membership.try_with_value(|m| {
            let rows: Vec<(StreamKey, StreamStatus, bool)> = m
                .streams()
                .map(|(key, status)| (key.clone(), status.clone(), m.several_containers(&key.pod)))
                .collect();
            (rows, m.summary())
        }) else {
            return;
        };
        let (rows, said) = rows;
        let namespace = namespace.get_value();
        let rows = tags
            .try_update_value(|tags| {
                rows.into_iter()
                    .map(|(key, status, several)| StreamRow {
                        tag: tags.tag(&key, several).clone(),
                        live: status.is_live(),
                        sentence: status.sentence(&key, &namespace),
                        key,
                    })
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        streams.try_set(rows);
        summary.try_set(said);
    };

    let open = move |opening: OpenStream| {
        let OpenStream { key, request, .. } = opening;
        log.update_value(|log| log.start_stream(&key));
        let fetch_abort = Abort::new();
        let (task, handle) = abortable(read_stream(
            request,
            key.clone(),
            fetch_abort.signal(),
            log,
            arrived,
        ));
        let stream = Running {
            handle,
            fetch_abort,
        };
        running.with_value(|r| r.borrow_mut().insert(key.clone(), stream));
        spawn_local(async move {
            let Ok(result) = task.await else {
                // Closed by the view (the pod went, or the view did).
                return;
            };
            running.try_with_value(|r| r.borrow_mut().remove(&key));
            log.try_update_value(|log| log.finish_stream(&key));
            arrived.notify();
            membership.try_update_value(|m| match &result {
                Ok(()) => m.stream_finished(&key),
                Err(error) => m.stream_failed(&key, error),
            });
            publish();
        });
    };

    // After each change of the namespace's pods (and a CronJob's Jobs): which streams open,
    // close or ended.
    let pods_key = WatchKey::new(coverage.with_value(PodCoverage::pods_path), Output::Objects);
    let pods_watch = use_watch_objects(pods_key);
    let pods: ReadSignal<ObjectCache> = pods_watch.store.into();
    let pods_status = pods_watch.status;
    let pods_namespace = namespace.get_value();
    let refused = Signal::derive(move || {
        pods_status.with(|status| {
            (status.phase == StreamPhase::Forbidden).then(|| {
                format!(
                    "The pods of namespace {pods_namespace} cannot be listed, so no log is read: {}",
                    status.forbidden.clone().unwrap_or_default()
                )
            })
        })
    });
    let jobs: Option<ReadSignal<ObjectCache>> =
        coverage
            .with_value(PodCoverage::jobs_watch)
            .map(|(path, _)| {
                use_watch_objects(WatchKey::new(path, Output::Objects))
                    .store
                    .into()
            });
    Effect::new(move |_| {
        // Read out before any update: a stored value is never updated inside another's
        // read (one arena lock).
        if let Some(jobs) = jobs {
            let jobs: Vec<Value> = jobs.with(|jobs| jobs.iter().cloned().collect());
            coverage.update_value(|c| _ = c.set_jobs(jobs.iter()));
        }
        let rule = coverage.get_value();
        let covered: Vec<Value> =
            pods.with(|pods| pods.iter().filter(|p| rule.covers(p)).cloned().collect());
        let change = membership.try_update_value(|m| m.apply(covered.iter()));
        let Some(change) = change else {
            return;
        };
        for key in &change.close {
            if let Some(stream) = running.with_value(|r| r.borrow_mut().remove(key)) {
                stream.stop();
                log.update_value(|log| _ = log.finish_stream(key));
            }
        }
        change.open.into_iter().for_each(open);
        publish();
    });

    UseWorkloadLogsReturn {
        log,
        tags,
        arrived,
        streams: streams.read_only(),
        summary: summary.read_only(),
        nothing: Signal::derive(move || nothing.clone()),
        refused,
        shared_socket,
    }
}

/// A stream being read, and how to stop it.
struct Running {
    handle: AbortHandle,
    fetch_abort: Abort,
}

impl Running {
    fn stop(self) {
        self.fetch_abort.abort();
        self.handle.abort();
    }
}

/// Reads one container's log into `log` until it ends: over kube-atlas's socket when the
/// page has one, else as its own HTTP stream.
async fn read_stream(
    request: ApiRequest,
    key: StreamKey,
    signal: Option<web_sys::AbortSignal>,
    log: StoredValue<WorkloadLog, LocalStorage>,
    arrived: Trigger,
) -> Result<(), ApiError> {
    let on_chunk = |chunk: &str| {
        if log
            .try_update_value(|log| log.push_chunk(&key, chunk))
            .is_none()
        {
            return ControlFlow::Break(());
        }
        arrived.notify();
        ControlFlow::Continue(())
    };
    let ended = if multiplex::available() {
        multiplex::stream_text(&request, on_chunk).await
    } else {
        stream::stream_text(&request, signal.as_ref(), on_chunk).await
    };
    ended.map(|_| ())
}

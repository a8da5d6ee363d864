//! Event recording as client-go's recorders do it (aggregating repeats into `count` /
//! `series`), and the one-hour event TTL kube-apiserver applies (`--event-ttl`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::{now_micro, parse_time, writer, Context};
use crate::registry::{now, DeleteOptions, Registry};

/// How long events live (kube-apiserver's `--event-ttl` default).
pub const EVENT_TTL: Duration = Duration::from_secs(3600);

/// One event to record about an object.
#[derive(Debug, Clone, Default)]
pub struct EventSpec {
    pub reason: &'static str,
    pub message: String,
    pub warning: bool,
    /// `source.component` and `reportingComponent`, e.g. `replicaset-controller`.
    pub component: &'static str,
    /// `source.host` / `reportingInstance` (the node, for the kubelet).
    pub host: Option<String>,
    /// `involvedObject.fieldPath`, e.g. `spec.containers{nginx}`.
    pub field_path: Option<String>,
    /// Field manager of the write (`kubelet`, `kube-controller-manager`, ...).
    pub manager: &'static str,
    /// Set for events written through events.k8s.io (the scheduler): `action`, `eventTime`
    /// and `series` instead of `source` and the first/last timestamps.
    pub action: Option<&'static str>,
}

impl EventSpec {
    pub fn normal(reason: &'static str, message: impl Into<String>) -> Self {
        EventSpec {
            reason,
            message: message.into(),
            ..Default::default()
        }
    }

    pub fn warning(reason: &'static str, message: impl Into<String>) -> Self {
        EventSpec {
            warning: true,
            ..Self::normal(reason, message)
        }
    }

    pub fn by(mut self, component: &'static str, manager: &'static str) -> Self {
        self.component = component;
        self.manager = manager;
        self
    }

    pub fn on_host(mut self, host: &str) -> Self {
        self.host = Some(host.to_string());
        self
    }

    pub fn at_field(mut self, field_path: String) -> Self {
        self.field_path = Some(field_path);
        self
    }

    pub fn with_action(mut self, action: &'static str) -> Self {
        self.action = Some(action);
        self
    }
}

/// Writes Events, bumping an existing one when the same thing happens again.
pub struct EventRecorder {
    registry: Arc<Registry>,
    /// Aggregation key → (namespace, event name) of the event last written for it, and when.
    recorded: Mutex<HashMap<String, (String, String, Instant)>>,
}

impl EventRecorder {
    pub fn new(registry: Arc<Registry>) -> Self {
        EventRecorder {
            registry,
            recorded: Mutex::new(HashMap::new()),
        }
    }

    /// Records `spec` about `involved`; failures (e.g. a terminating namespace) are dropped,
    /// as client-go's recorder drops them.
    pub fn record(&self, involved: &Value, spec: EventSpec) {
        self.record_unless_within(involved, spec, Duration::ZERO);
    }

    /// Records `spec` unless the same Event was written less than `period` ago: for what a
    /// controller finds again on every pass but reports once per resync, as the real
    /// controller does (the PersistentVolume controller's WaitForFirstConsumer every 15 s).
    pub fn record_unless_within(&self, involved: &Value, spec: EventSpec, period: Duration) {
        let Some(def) = self.registry.builtin("", "events") else {
            return;
        };
        let meta = &involved["metadata"];
        let namespace = meta["namespace"]
            .as_str()
            .filter(|ns| !ns.is_empty())
            .unwrap_or("default")
            .to_string();
        let key = format!(
            "{namespace}/{}/{}/{}/{}/{}",
            meta["uid"].as_str().unwrap_or_default(),
            spec.reason,
            spec.message,
            spec.component,
            spec.field_path.as_deref().unwrap_or_default()
        );
        let previous = self
            .recorded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .cloned();
        if previous
            .as_ref()
            .is_some_and(|(_, _, at)| !period.is_zero() && at.elapsed() < period)
        {
            return;
        }
        let opts = writer(spec.manager, "");
        if let Some((ns, name, _)) = previous {
            let bumped = self.registry.update_with(&def, &ns, &name, &opts, |event| {
                let count = event["count"].as_i64().unwrap_or(1) + 1;
                if spec.action.is_some() {
                    event["series"] = json!({"count": count, "lastObservedTime": now_micro()});
                } else {
                    event["lastTimestamp"] = json!(now());
                }
                event["count"] = json!(count);
                Ok(())
            });
            if bumped.is_ok() {
                self.recorded
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(key, (ns, name, Instant::now()));
                return;
            }
        }
        let time = now();
        let mut involved_ref = json!({
            "apiVersion": involved["apiVersion"], "kind": involved["kind"], "name": meta["name"],
            "uid": meta["uid"], "resourceVersion": meta["resourceVersion"],
        });
        if let Some(ns) = meta["namespace"].as_str() {
            involved_ref["namespace"] = json!(ns);
        }
        if let Some(path) = &spec.field_path {
            involved_ref["fieldPath"] = json!(path);
        }
        let nanos = chrono::Utc::now()
            .timestamp_nanos_opt()
            .unwrap_or_default()
            .unsigned_abs();
        let name = format!("{}.{nanos:x}", meta["name"].as_str().unwrap_or("object"));
        let instance = spec
            .host
            .clone()
            .unwrap_or_else(|| format!("{}-demo-control-plane", spec.component));
        let mut event = json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": involved_ref,
            "reason": spec.reason, "message": spec.message,
            "type": if spec.warning { "Warning" } else { "Normal" },
            "reportingComponent": spec.component, "reportingInstance": instance,
        });
        if let Some(action) = spec.action {
            // Written through events.k8s.io/v1: no source, no first/last timestamps.
            event["action"] = json!(action);
            event["eventTime"] = json!(now_micro());
            event["source"] = json!({});
            event["firstTimestamp"] = Value::Null;
            event["lastTimestamp"] = Value::Null;
        } else {
            let mut source = json!({"component": spec.component});
            if let Some(host) = &spec.host {
                source["host"] = json!(host);
            }
            event["source"] = source;
            event["firstTimestamp"] = json!(time);
            event["lastTimestamp"] = json!(time);
            event["count"] = json!(1);
            event["eventTime"] = Value::Null;
        }
        if let Ok(created) = self.registry.create(&def, &namespace, event, &opts) {
            let created_name = created["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            self.recorded
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(key, (namespace, created_name, Instant::now()));
        }
    }

    /// Forgets aggregation keys whose event is gone (expired or deleted).
    fn forget_missing(&self) {
        let Some(def) = self.registry.builtin("", "events") else {
            return;
        };
        let mut recorded = self.recorded.lock().unwrap_or_else(|p| p.into_inner());
        recorded.retain(|_, (ns, name, _)| self.registry.get(&def, ns, name).is_ok());
    }
}

/// When an event was last seen: the newest of `series.lastObservedTime` / `lastTimestamp` /
/// `eventTime` its recorder wrote, else its creation.
fn last_seen(event: &Value) -> Option<chrono::DateTime<chrono::Utc>> {
    let recorded = [
        &event["series"]["lastObservedTime"],
        &event["lastTimestamp"],
        &event["eventTime"],
    ]
    .into_iter()
    .filter_map(|v| v.as_str().and_then(parse_time))
    .max();
    recorded.or_else(|| {
        event["metadata"]["creationTimestamp"]
            .as_str()
            .and_then(parse_time)
    })
}

/// Deletes events not seen for `ttl` (emitting DELETED, which is harmless).
pub fn expire_events(ctx: &Context, ttl: Duration) {
    let def = ctx.def("", "events");
    let (events, _) = ctx.registry.list(&def, None);
    let cutoff = chrono::Utc::now() - chrono::Duration::seconds(ttl.as_secs() as i64);
    for event in events {
        if last_seen(&event).is_some_and(|t| t < cutoff) {
            let _ = ctx.registry.delete(
                &def,
                super::namespace_of(&event),
                super::name_of(&event),
                &DeleteOptions::default(),
            );
        }
    }
    ctx.recorder.forget_missing();
}

/// Expires events once a minute, or four times per `ttl` when that is shorter, so no event
/// outlives it by much.
pub fn spawn_ttl(ctx: Arc<Context>, ttl: Duration) -> JoinHandle<()> {
    let sweep = (ttl / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
    tokio::spawn(async move {
        loop {
            expire_events(&ctx, ttl);
            tokio::time::sleep(sweep).await;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::store::Store;

    fn context() -> Arc<Context> {
        let registry = Arc::new(Registry::new(Arc::new(Store::new(100))));
        crate::seed::seed_system_objects(&registry);
        Context::new(registry, 1.0)
    }

    #[test]
    fn repeats_bump_count_or_series_and_old_events_expire() {
        let ctx = context();
        let node = ctx
            .registry
            .get(&ctx.def("", "nodes"), "", "demo-node-1")
            .unwrap();
        let spec = || {
            EventSpec::warning("Rebooted", "Node demo-node-1 has been rebooted")
                .by("kubelet", "kubelet")
        };
        ctx.recorder.record(&node, spec());
        ctx.recorder.record(&node, spec());
        let scheduling = || {
            EventSpec::warning("FailedScheduling", "0/3 nodes are available")
                .by("default-scheduler", "kube-scheduler")
                .with_action("Scheduling")
        };
        ctx.recorder.record(&node, scheduling());
        ctx.recorder.record(&node, scheduling());
        ctx.recorder.record(&node, scheduling());
        let events_def = ctx.def("", "events");
        let (events, _) = ctx.registry.list(&events_def, Some("default"));
        assert_eq!(events.len(), 2);
        let legacy = events.iter().find(|e| e["reason"] == "Rebooted").unwrap();
        assert_eq!(legacy["count"], 2);
        assert_eq!(legacy["source"], json!({"component": "kubelet"}));
        assert_eq!(legacy["involvedObject"]["kind"], "Node");
        let new_api = events
            .iter()
            .find(|e| e["reason"] == "FailedScheduling")
            .unwrap();
        assert_eq!(new_api["series"]["count"], 3);
        assert!(new_api["series"]["lastObservedTime"].is_string());
        assert!(new_api["eventTime"].is_string());

        expire_events(&ctx, EVENT_TTL);
        assert_eq!(ctx.registry.list(&events_def, Some("default")).0.len(), 2);
        let two_hours_ago = (chrono::Utc::now() - chrono::Duration::hours(2))
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string();
        let old = json!({"metadata": {"name": "old.1", "creationTimestamp": two_hours_ago},
            "involvedObject": {"kind": "Node", "name": "demo-node-1"}, "reason": "Old",
            "lastTimestamp": two_hours_ago});
        ctx.registry
            .create(&events_def, "default", old, &writer("test", ""))
            .unwrap();
        // The registry stamps creationTimestamp; lastTimestamp is what ages the event.
        let (events, _) = ctx.registry.list(&events_def, Some("default"));
        assert_eq!(events.len(), 3);
        let only_old = |e: &Value| e["reason"] == "Old";
        assert!(events.iter().any(only_old));
        expire_events(&ctx, Duration::from_secs(3600));
        let (events, _) = ctx.registry.list(&events_def, Some("default"));
        assert!(events.iter().all(|e| !only_old(e)), "{events:?}");
    }
}

//! A list row's health from the server's Table cells alone (a list holds rows, not whole
//! objects): its STATUS and READY columns as kubectl prints them for pods, workloads, jobs,
//! nodes, claims, and custom resources that declare such columns.

use serde_json::Value;

use super::Health;
use crate::list::table::ColumnDefinition;

/// STATUS texts that will not get better by waiting (a pod's is its worst container's
/// reason, kubectl's way; `Init:` prefixes are an init container's).
const FAILING_STATUSES: [&str; 14] = [
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "ErrImagePull",
    "InvalidImageName",
    "ErrImageNeverPull",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "Error",
    "OOMKilled",
    "Failed",
    "NotReady",
    "Lost",
    "Evicted",
];

/// STATUS texts of something on its way.
const PROGRESSING_STATUSES: [&str; 6] = [
    "Pending",
    "ContainerCreating",
    "PodInitializing",
    "Terminating",
    "Running",
    "Suspended",
];

fn column<'a>(columns: &[ColumnDefinition], cells: &'a [Value], name: &str) -> Option<&'a Value> {
    let index = columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))?;
    cells.get(index)
}

/// `3/5` as (3, 5).
fn fraction(text: &str) -> Option<(u64, u64)> {
    let (ready, wanted) = text.split_once('/')?;
    Some((ready.trim().parse().ok()?, wanted.trim().parse().ok()?))
}

fn status_health(status: &str) -> Health {
    let status = status.strip_prefix("Init:").unwrap_or(status);
    let words: Vec<&str> = status.split(',').map(str::trim).collect();
    if words.iter().any(|w| FAILING_STATUSES.contains(w)) {
        return Health::Failing;
    }
    // A node that is Ready but cordoned.
    if words.contains(&"SchedulingDisabled") {
        return Health::Warning;
    }
    if words.iter().any(|w| PROGRESSING_STATUSES.contains(w)) {
        return Health::Progressing;
    }
    match status {
        "Unknown" | "ContainerStatusUnknown" => Health::Unknown,
        _ => Health::Ok,
    }
}

/// Whether rows of a table with these columns say anything about health (a STATUS or a
/// READY column).
pub fn has_health(columns: &[ColumnDefinition]) -> bool {
    columns
        .iter()
        .any(|c| c.name.eq_ignore_ascii_case("status") || c.name.eq_ignore_ascii_case("ready"))
}

/// The row's health, or None when its table has neither a STATUS nor a READY column (its
/// rows say nothing about health).
pub fn row_health(columns: &[ColumnDefinition], cells: &[Value]) -> Option<Health> {
    let status = column(columns, cells, "Status").and_then(Value::as_str);
    let ready = column(columns, cells, "Ready");
    if status.is_none() && ready.is_none() {
        return None;
    }
    let from_status = status.map(status_health);
    let from_ready = match ready {
        // A custom resource's `Ready` condition column.
        Some(Value::String(text)) if text.eq_ignore_ascii_case("false") => Some(Health::Failing),
        Some(Value::String(text)) if text.eq_ignore_ascii_case("true") => Some(Health::Ok),
        Some(Value::String(text)) => fraction(text).map(|(ready, wanted)| {
            if ready >= wanted {
                Health::Ok
            } else if status == Some("Running") {
                // Running but not every container ready: a probe fails, or it is starting.
                Health::Warning
            } else {
                Health::Progressing
            }
        }),
        Some(Value::Bool(true)) => Some(Health::Ok),
        Some(Value::Bool(false)) => Some(Health::Failing),
        _ => None,
    };
    match (from_status, from_ready) {
        // Completed pods are not ready, and need not be.
        (Some(Health::Ok), Some(_)) if status == Some("Completed") => Some(Health::Ok),
        // Running with every container ready.
        (Some(Health::Progressing), Some(Health::Ok)) if status == Some("Running") => {
            Some(Health::Ok)
        }
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn columns(names: &[&str]) -> Vec<ColumnDefinition> {
        names
            .iter()
            .map(|name| ColumnDefinition {
                name: name.to_string(),
                type_name: "string".into(),
                format: String::new(),
                description: String::new(),
                priority: 0,
            })
            .collect()
    }

    #[test]
    fn pods_as_kubectl_prints_them() {
        let pods = columns(&["Name", "Ready", "Status", "Restarts", "Age"]);
        let health = |ready: &str, status: &str| {
            row_health(
                &pods,
                &[
                    json!("p"),
                    json!(ready),
                    json!(status),
                    json!(0),
                    json!("1m"),
                ],
            )
        };
        assert_eq!(health("1/1", "Running"), Some(Health::Ok));
        assert_eq!(
            health("0/1", "Running"),
            Some(Health::Warning),
            "a probe failing"
        );
        assert_eq!(health("0/1", "CrashLoopBackOff"), Some(Health::Failing));
        assert_eq!(health("0/1", "ImagePullBackOff"), Some(Health::Failing));
        assert_eq!(
            health("0/2", "Init:CrashLoopBackOff"),
            Some(Health::Failing)
        );
        assert_eq!(health("0/1", "Pending"), Some(Health::Progressing));
        assert_eq!(
            health("0/1", "ContainerCreating"),
            Some(Health::Progressing)
        );
        assert_eq!(health("0/1", "Completed"), Some(Health::Ok));
        assert_eq!(health("1/1", "Terminating"), Some(Health::Progressing));
    }

    #[test]
    fn workloads_nodes_claims_and_custom_resources() {
        let deployments = columns(&["Name", "Ready", "Up-to-date", "Available", "Age"]);
        let ready = |text: &str| {
            row_health(
                &deployments,
                &[json!("web"), json!(text), json!(1), json!(1), json!("1m")],
            )
        };
        assert_eq!(ready("3/3"), Some(Health::Ok));
        assert_eq!(ready("1/3"), Some(Health::Progressing));
        let nodes = columns(&["Name", "Status", "Roles", "Age", "Version"]);
        let node = |status: &str| {
            row_health(
                &nodes,
                &[
                    json!("n"),
                    json!(status),
                    json!(""),
                    json!("1d"),
                    json!("v1.36.2"),
                ],
            )
        };
        assert_eq!(node("Ready"), Some(Health::Ok));
        assert_eq!(node("NotReady"), Some(Health::Failing));
        assert_eq!(node("Ready,SchedulingDisabled"), Some(Health::Warning));
        let claims = columns(&["Name", "Status", "Volume"]);
        assert_eq!(
            row_health(&claims, &[json!("c"), json!("Pending"), json!("")]),
            Some(Health::Progressing)
        );
        assert_eq!(
            row_health(&claims, &[json!("c"), json!("Bound"), json!("pv")]),
            Some(Health::Ok)
        );
        let custom = columns(&["Name", "Ready", "Age"]);
        assert_eq!(
            row_health(&custom, &[json!("x"), json!("False"), json!("1m")]),
            Some(Health::Failing)
        );
        let config_maps = columns(&["Name", "Data", "Age"]);
        assert_eq!(
            row_health(&config_maps, &[json!("c"), json!(1), json!("1m")]),
            None
        );
    }
}

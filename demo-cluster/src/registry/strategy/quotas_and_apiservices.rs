//! kubectl's columns for two kinds whose printers live outside the workload printers:
//! ResourceQuotas (kube-apiserver: NAME, AGE, REQUEST, LIMIT, each `resource: used/hard`)
//! and APIServices (kube-aggregator: NAME, SERVICE, AVAILABLE, AGE).

use serde_json::{json, Value};

use super::printing::{age, c, named, reference, s, Col, Printer, NAME};
use super::Printed;

pub static RESOURCE_QUOTAS: Printed = Printed(Printer::new(QUOTA_COLUMNS, quota_cells));
pub static API_SERVICES: Printed = Printed(Printer::new(API_SERVICE_COLUMNS, api_service_cells));

const QUOTA_COLUMNS: &[Col] = &[NAME, c("Request", 0), c("Limit", 0), c("Age", 0)];

/// `limits.*` resources go to LIMIT, everything else to REQUEST, in name order (the
/// server's printer sorts them), as `name: used/hard` with `0` for nothing used yet, from
/// `status.hard`.
fn quota_cells(o: &Value) -> Vec<Value> {
    // As kube-apiserver: only what the quota controller has counted (status), so a quota
    // no controller has seen yet prints empty cells.
    let hard = o["status"]["hard"].as_object();
    let used = &o["status"]["used"];
    let (mut requests, mut limits) = (vec![], vec![]);
    if let Some(hard) = hard {
        let mut names: Vec<&String> = hard.keys().collect();
        names.sort();
        for name in names {
            let used = used[name.as_str()].as_str().unwrap_or("0");
            let shown = format!("{name}: {used}/{}", s(&hard[name.as_str()]));
            if name.starts_with("limits.") {
                limits.push(shown);
            } else {
                requests.push(shown);
            }
        }
    }
    named(
        o,
        [json!(requests.join(", ")), json!(limits.join(", ")), age(o)],
    )
}

const API_SERVICE_COLUMNS: &[Col] = &[NAME, c("Service", 0), c("Available", 0), c("Age", 0)];

fn api_service_cells(o: &Value) -> Vec<Value> {
    let service = reference(&o["spec"]["service"], "namespace", "name")
        .unwrap_or_else(|| "Local".to_string());
    let available = o["status"]["conditions"]
        .as_array()
        .and_then(|conditions| conditions.iter().find(|c| c["type"] == "Available"))
        .map(|c| match (s(&c["status"]), s(&c["reason"])) {
            (status, _) if status == "True" => status,
            (status, reason) if reason.is_empty() => status,
            (status, reason) => format!("{status} ({reason})"),
        })
        .unwrap_or_else(|| "Unknown".to_string());
    named(o, [json!(service), json!(available), age(o)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quota_prints_requests_and_limits_apart_in_name_order() {
        let quota = json!({
            "metadata": {"name": "compute"},
            "spec": {"hard": {"pods": "10", "limits.cpu": "2", "requests.cpu": "1"}},
            "status": {
                "hard": {"pods": "10", "limits.cpu": "2", "requests.cpu": "1"},
                "used": {"pods": "3", "requests.cpu": "500m"}
            }
        });
        let cells = quota_cells(&quota);
        assert_eq!(cells[0], json!("compute"));
        assert_eq!(cells[1], json!("pods: 3/10, requests.cpu: 500m/1"));
        assert_eq!(cells[2], json!("limits.cpu: 0/2"));
        // Nothing counted yet (no status): empty cells, as kube-apiserver prints them.
        let fresh = json!({"metadata": {"name": "new"}, "spec": {"hard": {"pods": "10"}}});
        assert_eq!(quota_cells(&fresh)[1], json!(""));
    }

    #[test]
    fn an_api_service_prints_its_service_and_availability() {
        let local = json!({"metadata": {"name": "v1.apps"}, "spec": {},
            "status": {"conditions": [{"type": "Available", "status": "True", "reason": "Local"}]}});
        assert_eq!(
            api_service_cells(&local)[1..3],
            [json!("Local"), json!("True")]
        );
        let down = json!({"metadata": {"name": "v1beta1.metrics.k8s.io"},
            "spec": {"service": {"namespace": "kube-system", "name": "metrics-server"}},
            "status": {"conditions": [{"type": "Available", "status": "False",
                "reason": "MissingEndpoints"}]}});
        assert_eq!(
            api_service_cells(&down)[1..3],
            [
                json!("kube-system/metrics-server"),
                json!("False (MissingEndpoints)")
            ]
        );
    }
}

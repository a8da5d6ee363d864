//! core/v1 ResourceQuotas: kubectl's columns (kube-apiserver: NAME, AGE, REQUEST, LIMIT, each
//! `resource: used/hard`).

use serde_json::{json, Value};

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{age, column, named, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::core::v1::ResourceQuota;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind("", "resourcequotas", "ResourceQuota", true)
        .short(&["quota"])
        .status()
        .build()
}

pub(crate) const SCHEMA: SchemaOf = |generator, _| schema_of::<ResourceQuota>(generator);

pub static STRATEGY: Printed = Printed(Printer::new(QUOTA_COLUMNS, quota_cells));

const QUOTA_COLUMNS: &[Col] = &[
    NAME,
    column("Request", 0),
    column("Limit", 0),
    column("Age", 0),
];

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
            let shown = format!("{name}: {used}/{}", value_text(&hard[name.as_str()]));
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
}

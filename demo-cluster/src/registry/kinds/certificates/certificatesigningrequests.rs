//! certificates.k8s.io/v1 CertificateSigningRequests: the requestor recorded at creation
//! (always the demo's user), status written through `/status` and `/approval`, kubectl's
//! columns. No signer runs: approved requests get no certificate.

use serde_json::{json, Value};

use crate::errors::Cause;
use crate::registry::kinds::builder::{kind, STATUS_VERBS};
use crate::registry::kinds::reviews::{DEMO_GROUPS, DEMO_USER};
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::common::ensure_object;
use crate::registry::strategy::printing::{
    age, column, named, or_none, value_text, Col, Printer, NAME,
};
use crate::registry::strategy::{CreateContext, Strategy};
use crate::schemas::{schema_of, SchemaOf};
use k8s_openapi::api::certificates::v1::CertificateSigningRequest;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "certificates.k8s.io",
        "certificatesigningrequests",
        "CertificateSigningRequest",
        false,
    )
    .short(&["csr"])
    .sub("approval", "CertificateSigningRequest", STATUS_VERBS)
    .status()
    .build()
}

pub(crate) const SCHEMA: SchemaOf =
    |generator, _| schema_of::<CertificateSigningRequest>(generator);

pub(crate) static STRATEGY: CertificateSigningRequests = CertificateSigningRequests;

pub struct CertificateSigningRequests;

impl Strategy for CertificateSigningRequests {
    fn field_selectors(&self) -> &'static [&'static str] {
        &["spec.signerName"]
    }

    fn prepare_for_create(&self, obj: &mut Value, _: &CreateContext) {
        // As kube-apiserver, from the authenticated user, whatever the client sent.
        let spec = ensure_object(obj, "spec");
        spec.insert("username".into(), json!(DEMO_USER));
        spec.insert("groups".into(), json!(DEMO_GROUPS));
    }

    fn validate(&self, obj: &Value) -> Vec<Cause> {
        ["request", "signerName"]
            .into_iter()
            .filter(|field| obj["spec"][field].as_str().is_none_or(str::is_empty))
            .map(|field| Cause::required(&format!("spec.{field}")))
            .collect()
    }

    fn printer(&self) -> Option<Printer> {
        Some(Printer::new(COLUMNS, cells))
    }
}

const COLUMNS: &[Col] = &[
    NAME,
    column("Age", 0),
    column("SignerName", 0),
    column("Requestor", 0),
    column("RequestedDuration", 0),
    column("Condition", 0),
];

fn cells(o: &Value) -> Vec<Value> {
    let spec = &o["spec"];
    let mut conditions: Vec<String> = o["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["status"] != "False")
        .map(|c| value_text(&c["type"]))
        .collect();
    if o["status"]["certificate"].is_string() {
        conditions.push("Issued".into());
    }
    let condition = if conditions.is_empty() {
        "Pending".to_string()
    } else {
        conditions.join(",")
    };
    let duration = spec["expirationSeconds"]
        .as_i64()
        .map(crate::registry::strategy::printing::human_duration)
        .unwrap_or_default();
    named(
        o,
        [
            age(o),
            json!(value_text(&spec["signerName"])),
            json!(value_text(&spec["username"])),
            or_none(duration),
            json!(condition),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_requestor_is_the_authenticated_user_and_request_and_signer_are_required() {
        let mut csr = json!({"metadata": {"name": "alice"}, "spec": {
            "request": "LS0tLS1CRUdJTi...", "signerName": "kubernetes.io/kube-apiserver-client",
            "username": "someone-else", "groups": ["system:masters"], "expirationSeconds": 86400}});
        let ctx = CreateContext::without_service_ips();
        CertificateSigningRequests.prepare_for_create(&mut csr, &ctx);
        assert_eq!(csr["spec"]["username"], DEMO_USER);
        assert_eq!(csr["spec"]["groups"], json!(DEMO_GROUPS));
        assert!(CertificateSigningRequests.validate(&csr).is_empty());
        let fields: Vec<String> = CertificateSigningRequests
            .validate(&json!({"metadata": {"name": "x"}, "spec": {}}))
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(fields, ["spec.request", "spec.signerName"]);
        let row = cells(&csr);
        assert_eq!(
            row[2..],
            [
                json!("kubernetes.io/kube-apiserver-client"),
                json!(DEMO_USER),
                json!("24h"),
                json!("Pending")
            ]
        );
    }

    #[test]
    fn the_condition_lists_approval_and_issuance() {
        let mut csr = json!({"metadata": {"name": "alice"}, "spec": {"signerName": "s"},
            "status": {"conditions": [{"type": "Approved", "status": "True"}]}});
        assert_eq!(cells(&csr)[5], "Approved");
        assert_eq!(cells(&csr)[4], "<none>");
        csr["status"]["certificate"] = json!("LS0t");
        assert_eq!(cells(&csr)[5], "Approved,Issued");
        csr["status"]["conditions"] = json!([{"type": "Denied", "status": "True"}]);
        csr["status"].as_object_mut().unwrap().remove("certificate");
        assert_eq!(cells(&csr)[5], "Denied");
    }
}

//! certificates.k8s.io/v1 ClusterTrustBundles (feature-gated): kube-apiserver prints the
//! signer beside the name.

use serde_json::Value;

use crate::registry::kinds::builder::kind;
use crate::registry::kinds::ResourceDef;
use crate::registry::strategy::printing::{column, named, or_none, value_text, Col, Printer, NAME};
use crate::registry::strategy::Printed;

/// Discovery facts.
pub(crate) fn definition() -> ResourceDef {
    kind(
        "certificates.k8s.io",
        "clustertrustbundles",
        "ClusterTrustBundle",
        false,
    )
    .build()
}

pub(crate) static STRATEGY: Printed = Printed(Printer::new(COLUMNS, cells));

const COLUMNS: &[Col] = &[NAME, column("SignerName", 0)];

fn cells(o: &Value) -> Vec<Value> {
    named(o, [or_none(value_text(&o["spec"]["signerName"]))])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_bundle_without_a_signer_prints_none() {
        let bundle = json!({"metadata": {"name": "b"}, "spec": {}});
        assert_eq!(cells(&bundle)[1], "<none>");
    }
}

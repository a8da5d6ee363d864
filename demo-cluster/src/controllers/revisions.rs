//! ControllerRevisions, as the StatefulSet and DaemonSet controllers keep them: one per pod
//! template the set has run, numbered in order, owned by the set, the oldest beyond
//! `revisionHistoryLimit` (default 10) removed. `kubectl rollout history` reads them.

use serde_json::{json, Value};

use super::{
    controller_ref, controller_uid, name_of, namespace_of, uid_of, writer, Context,
    CONTROLLER_MANAGER,
};
use crate::registry::DeleteOptions;

/// The label naming the revision a pod was created from, and on the revision itself its
/// hash (as the real StatefulSet and DaemonSet controllers set it).
pub const REVISION_LABEL: &str = "controller-revision-hash";

/// Makes sure `set`'s current template is recorded as the revision `name` (labelled with
/// `hash`), numbered after the set's other revisions.
pub fn record(ctx: &Context, set: &Value, name: &str, hash: &str) {
    let def = ctx.def("apps", "controllerrevisions");
    let (revisions, _) = ctx.registry.list(&def, Some(namespace_of(set)));
    let mut owned: Vec<&Value> = revisions
        .iter()
        .filter(|r| controller_uid(r) == Some(uid_of(set)))
        .collect();
    if owned.iter().any(|r| name_of(r) == name) {
        return;
    }
    let number = owned
        .iter()
        .filter_map(|r| r["revision"].as_i64())
        .max()
        .unwrap_or(0)
        + 1;
    let mut labels = set["spec"]["template"]["metadata"]["labels"].clone();
    if !labels.is_object() {
        labels = json!({});
    }
    labels[REVISION_LABEL] = json!(hash);
    let mut template = set["spec"]["template"].clone();
    template["$patch"] = json!("replace");
    let revision = json!({
        "apiVersion": "apps/v1", "kind": "ControllerRevision",
        "metadata": {"name": name, "namespace": namespace_of(set), "labels": labels,
                     "ownerReferences": [controller_ref(set)]},
        "data": {"spec": {"template": template}},
        "revision": number,
    });
    let created = ctx.registry.create(
        &def,
        namespace_of(set),
        revision,
        &writer(CONTROLLER_MANAGER, ""),
    );
    if created.is_err() {
        return;
    }
    // The new one is the newest; the oldest go beyond the history limit.
    let limit = set["spec"]["revisionHistoryLimit"]
        .as_i64()
        .unwrap_or(10)
        .max(0) as usize;
    owned.sort_by_key(|r| r["revision"].as_i64().unwrap_or(0));
    let excess = (owned.len() + 1).saturating_sub(limit.max(1));
    for old in owned.into_iter().take(excess) {
        let _ = ctx.registry.delete(
            &def,
            namespace_of(old),
            name_of(old),
            &DeleteOptions::default(),
        );
    }
}

//! Rolling a Deployment back to a revision from its page, as `kubectl rollout undo
//! --to-revision` does (its template set to that ReplicaSet's, [`rollback_template`]), but
//! reviewed first: a server dry run shows what would change, then the user confirms. Written
//! as the editor writes (a PUT carrying the resourceVersion it was computed from), through an
//! [`EditSession`]. A 409 means the Deployment was written meanwhile: the rollback is
//! computed again from the latest version (a rollback replaces the template whatever it is
//! now, as kubectl's does) and must be reviewed again before it is sent.

use serde_json::Value;

use super::check::EditTarget;
use super::editable::editable;
use super::session::{yaml_of, EditSession, Outcome, Review, Write};
use crate::api::errors::ApiError;
use crate::history::past::rollback_template;

/// Where a rollback stands.
#[derive(Debug, Clone, PartialEq)]
pub enum RollbackStep {
    /// The dry run is under way.
    DryRun,
    /// The dry run answered: confirm or cancel.
    Review(Review),
    /// Sent.
    Saving,
    /// Stored; the deployment controller rolls out from here.
    Done {
        resource_version: String,
    },
    Failed(ApiError),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rollback {
    pub revision: u64,
    /// The ReplicaSet holding the revision's template.
    pub replica_set: Value,
    target: EditTarget,
    session: EditSession,
    /// The Deployment was written meanwhile this many times (409s): each time the rollback
    /// was computed again and is reviewed again.
    pub written_meanwhile: u32,
}

impl Rollback {
    /// A rollback of `deployment` to `revision`, held by `replica_set`.
    pub fn open(
        target: EditTarget,
        deployment: &Value,
        replica_set: &Value,
        revision: u64,
    ) -> Rollback {
        Rollback {
            revision,
            replica_set: replica_set.clone(),
            session: session_for(&target, deployment, replica_set),
            target,
            written_meanwhile: 0,
        }
    }

    pub fn step(&self) -> RollbackStep {
        if let Some(Outcome::Saved {
            resource_version, ..
        }) = self.session.outcome()
        {
            return RollbackStep::Done {
                resource_version: resource_version.clone(),
            };
        }
        if let Some(Outcome::Failed(error)) = self.session.outcome() {
            return RollbackStep::Failed(error.clone());
        }
        match self.session.review() {
            Some(review) if !self.session.is_busy() => RollbackStep::Review(review.clone()),
            Some(_) => RollbackStep::Saving,
            None => RollbackStep::DryRun,
        }
    }

    /// The Deployment to send for the dry run.
    pub fn dry_run(&mut self) -> Option<Value> {
        self.session.begin(None)
    }

    /// The dry run answered `would_store`, against `live`.
    pub fn reviewed(&mut self, live: &Value, would_store: &Value, warnings: Vec<String>) {
        self.session.reviewed(live, would_store, warnings);
    }

    /// The user confirmed the reviewed rollback: the Deployment to PUT, or None when there
    /// is no review to confirm.
    pub fn confirm(&mut self) -> Option<Value> {
        self.session.review()?;
        self.session.begin(Some(Write::Replace))
    }

    pub fn saved(&mut self, object: &Value, warnings: Vec<String>) {
        self.session.saved(object, warnings, Write::Replace);
    }

    pub fn failed(&mut self, error: ApiError) {
        self.session.failed(error, Some(Write::Replace));
    }

    /// Whether `error` says the Deployment was written meanwhile (read it, then
    /// [`Rollback::written_meanwhile_as`]).
    pub fn needs_latest(error: &ApiError) -> bool {
        EditSession::needs_latest(error, Some(Write::Replace))
    }

    /// The Deployment is now `latest`: the rollback is computed again from it, to be
    /// reviewed again (a dry run follows).
    pub fn written_meanwhile_as(&mut self, latest: &Value) {
        self.session = session_for(&self.target, latest, &self.replica_set);
        self.written_meanwhile += 1;
    }
}

fn session_for(target: &EditTarget, deployment: &Value, replica_set: &Value) -> EditSession {
    let mut session = EditSession::open(target.clone(), true, Some(deployment), None);
    let rolled_back = editable(&rollback_template(deployment, replica_set), true);
    session.typed(yaml_of(&rolled_back));
    session
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::tree::tests::sample_tree;
    use serde_json::json;

    fn deployment(rv: &str, image: &str, replicas: u64) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "demo", "uid": "d1", "resourceVersion": rv,
                         "generation": 2,
                         "annotations": {"deployment.kubernetes.io/revision": "2"}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "web", "image": image}]}}},
            "status": {"replicas": replicas}
        })
    }

    fn revision_1() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-111", "namespace": "demo", "uid": "rs1",
                         "annotations": {"deployment.kubernetes.io/revision": "1"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment",
                                              "name": "web", "uid": "d1", "controller": true}]},
            "spec": {"replicas": 0,
                     "template": {"metadata": {"labels": {"app": "web", "pod-template-hash": "111"}},
                                  "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}
        })
    }

    fn target() -> EditTarget {
        let tree = sample_tree();
        let deployments = tree
            .find(&crate::ResourceId::new("apps", "v1", "deployments"))
            .expect("deployments in the sample tree");
        EditTarget::new(&deployments, Some("demo"), Some("web"))
    }

    #[test]
    fn a_rollback_is_reviewed_then_sent_with_the_version_it_was_computed_from() {
        let live = deployment("10", "nginx:1.27", 3);
        let mut rollback = Rollback::open(target(), &live, &revision_1(), 1);
        assert_eq!(rollback.step(), RollbackStep::DryRun);
        assert_eq!(
            rollback.confirm(),
            None,
            "nothing to confirm before the review"
        );
        let sent = rollback.dry_run().expect("a document");
        assert_eq!(
            sent["spec"]["template"]["spec"]["containers"][0]["image"],
            "nginx:1.25"
        );
        assert_eq!(sent["metadata"]["resourceVersion"], "10");
        assert!(sent["spec"]["template"]["metadata"]["labels"]
            .get("pod-template-hash")
            .is_none());
        // The server's dry run answers what it would store.
        let mut would_store = live.clone();
        would_store["spec"]["template"] = sent["spec"]["template"].clone();
        rollback.reviewed(&live, &would_store, Vec::new());
        let RollbackStep::Review(review) = rollback.step() else {
            panic!("reviewed: {:?}", rollback.step());
        };
        let lines: Vec<String> = review.changes.iter().map(|c| c.describe()).collect();
        assert_eq!(
            lines,
            vec!["spec.template.spec.containers[name=web].image: nginx:1.27 → nginx:1.25"]
        );
        let put = rollback.confirm().expect("confirmed");
        assert_eq!(put["metadata"]["resourceVersion"], "10");
        assert_eq!(rollback.step(), RollbackStep::Saving);
        let mut stored = would_store.clone();
        stored["metadata"]["resourceVersion"] = json!("11");
        rollback.saved(&stored, Vec::new());
        assert_eq!(
            rollback.step(),
            RollbackStep::Done {
                resource_version: "11".into()
            }
        );
    }

    #[test]
    fn a_conflict_computes_the_rollback_again_from_the_latest_and_asks_again() {
        let live = deployment("10", "nginx:1.27", 3);
        let mut rollback = Rollback::open(target(), &live, &revision_1(), 1);
        let sent = rollback.dry_run().expect("a document");
        let mut would_store = live.clone();
        would_store["spec"]["template"] = sent["spec"]["template"].clone();
        rollback.reviewed(&live, &would_store, Vec::new());
        rollback.confirm().expect("confirmed");
        let conflict = ApiError::Status {
            code: 409,
            reason: Some("Conflict".into()),
            message: "the object has been modified".into(),
            details: None,
        };
        assert!(Rollback::needs_latest(&conflict));
        // Someone scaled it meanwhile: the rollback keeps their replicas, takes revision 1's
        // template, and is reviewed again before anything is sent.
        let latest = deployment("12", "nginx:1.27", 5);
        rollback.written_meanwhile_as(&latest);
        assert_eq!(rollback.written_meanwhile, 1);
        assert_eq!(rollback.step(), RollbackStep::DryRun);
        assert_eq!(rollback.confirm(), None);
        let again = rollback.dry_run().expect("a document");
        assert_eq!(again["metadata"]["resourceVersion"], "12");
        assert_eq!(again["spec"]["replicas"], 5);
        assert_eq!(
            again["spec"]["template"]["spec"]["containers"][0]["image"],
            "nginx:1.25"
        );
    }
}

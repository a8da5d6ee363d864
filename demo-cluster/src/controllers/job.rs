//! The Job controller (`job-controller`) and the CronJob controller (`cronjob-controller`).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::cron::Schedule;
use super::events::EventSpec;
use super::replicaset::{create_pod, is_active, pod_from_template, pods_by_controller};
use super::{
    condition_true, controller_ref, controller_uid, current, is_deleting, name_of, namespace_of,
    parse_time, pod_key, set_condition, spawn_loop, spawn_queue_loop, uid_of, write_status, writer,
    Batch, Changes, Context, OwnerIndex, CONTROLLER_MANAGER,
};
use crate::registry::{now, DeleteOptions};

const JOB_COMPONENT: &str = "job-controller";
const CRONJOB_COMPONENT: &str = "cronjob-controller";

pub fn spawn(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::of(&ctx.registry, &[("batch", "jobs"), ("", "pods")]);
    let mut index = OwnerIndex::default();
    spawn_queue_loop(changes, ctx.resync(), move |batch| {
        reconcile(&ctx, &mut index, batch);
        None
    })
}

fn is_finished(job: &Value) -> bool {
    condition_true(job, "Complete") || condition_true(job, "Failed")
}

/// Reconciles every Job.
pub fn reconcile_jobs(ctx: &Context) {
    let (jobs, _) = ctx.registry.list(&ctx.def("batch", "jobs"), None);
    let mut pods = pods_by_controller(ctx);
    for job in jobs {
        let owned = pods.remove(uid_of(&job)).unwrap_or_default();
        sync_job(ctx, &job, &owned);
    }
}

/// Syncs the Jobs that changed or whose pods changed; every Job on a full pass.
fn reconcile(ctx: &Context, index: &mut OwnerIndex, batch: Batch) {
    let pods_def = ctx.def("", "pods");
    let mut dirty: HashSet<String> = HashSet::new();
    if batch.full {
        index.rebuild(&ctx.registry.list_shared(&pods_def, None).0, pod_key);
    }
    for key in &batch.keys {
        let obj = ctx.registry.store.get_ref(key);
        if key.resource == "pods" {
            dirty.extend(index.update(key, obj.as_deref().map(|p| p.value())).0);
        } else if let Some(job) = obj {
            dirty.insert(uid_of(&job).to_string());
        }
    }
    let (jobs, _) = ctx.registry.list(&ctx.def("batch", "jobs"), None);
    for job in jobs {
        let uid = uid_of(&job);
        if !batch.full && !dirty.contains(uid) {
            continue;
        }
        let owned: Vec<Value> = current(&ctx.registry, index.owned(uid))
            .iter()
            .filter(|p| controller_uid(p) == Some(uid))
            .map(|p| p.value().clone())
            .collect();
        sync_job(ctx, &job, &owned);
    }
}

fn sync_job(ctx: &Context, job: &Value, owned: &[Value]) {
    if is_deleting(job) || is_finished(job) || job["spec"]["suspend"].as_bool() == Some(true) {
        return;
    }
    let completions = job["spec"]["completions"].as_i64().unwrap_or(1).max(1);
    let parallelism = job["spec"]["parallelism"].as_i64().unwrap_or(1).max(0);
    let backoff_limit = job["spec"]["backoffLimit"].as_i64().unwrap_or(6);
    let succeeded = owned
        .iter()
        .filter(|p| p["status"]["phase"] == "Succeeded")
        .count() as i64;
    let failed = owned
        .iter()
        .filter(|p| p["status"]["phase"] == "Failed")
        .count() as i64;
    let mut active = owned.iter().filter(|p| is_active(p)).count() as i64;
    let ready = owned
        .iter()
        .filter(|p| is_active(p) && super::is_pod_ready(p))
        .count() as i64;
    let time = now();
    let complete = succeeded >= completions;
    let failed_out = failed > backoff_limit;
    if !complete && !failed_out {
        let wanted = parallelism
            .min(completions - succeeded)
            .min(active + super::BURST_REPLICAS as i64);
        let uid = uid_of(job).to_string();
        let name = name_of(job).to_string();
        while active < wanted {
            let pod = pod_from_template(
                job,
                &job["spec"]["template"],
                &[
                    ("batch.kubernetes.io/controller-uid", &uid),
                    ("batch.kubernetes.io/job-name", &name),
                    ("controller-uid", &uid),
                    ("job-name", &name),
                ],
            );
            create_pod(ctx, job, pod, JOB_COMPONENT);
            active += 1;
        }
    }
    let mut status = job["status"].clone();
    if !status.is_object() {
        status = json!({});
    }
    if !status["startTime"].is_string() {
        status["startTime"] = json!(time);
    }
    status["active"] = json!(if complete || failed_out { 0 } else { active });
    status["ready"] = json!(ready);
    status["terminating"] = json!(0);
    status["succeeded"] = json!(succeeded);
    status["failed"] = json!(failed);
    status["uncountedTerminatedPods"] = json!({});
    if complete {
        // Since 1.31 SuccessCriteriaMet precedes Complete.
        let conditions = set_condition(
            &status["conditions"],
            "SuccessCriteriaMet",
            "True",
            json!({"reason": "CompletionsReached", "message": "Reached expected number of succeeded pods", "lastProbeTime": time}),
            &time,
        );
        status["conditions"] = set_condition(
            &conditions,
            "Complete",
            "True",
            json!({"reason": "CompletionsReached", "message": "Reached expected number of succeeded pods", "lastProbeTime": time}),
            &time,
        );
        status["completionTime"] = json!(time);
        ctx.recorder.record(
            job,
            EventSpec::normal("Completed", "Job completed").by(JOB_COMPONENT, CONTROLLER_MANAGER),
        );
    } else if failed_out {
        let conditions = set_condition(
            &status["conditions"],
            "FailureTarget",
            "True",
            json!({"reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit", "lastProbeTime": time}),
            &time,
        );
        status["conditions"] = set_condition(
            &conditions,
            "Failed",
            "True",
            json!({"reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit", "lastProbeTime": time}),
            &time,
        );
        ctx.recorder.record(
            job,
            EventSpec::warning(
                "BackoffLimitExceeded",
                "Job has reached the specified backoff limit",
            )
            .by(JOB_COMPONENT, CONTROLLER_MANAGER),
        );
    }
    write_status(ctx, &ctx.def("batch", "jobs"), job, status);
}

pub fn spawn_cronjobs(ctx: Arc<Context>) -> JoinHandle<()> {
    let changes = Changes::of(&ctx.registry, &[("batch", "cronjobs"), ("batch", "jobs")]);
    // Schedules have minute resolution in simulated time: checking every second is plenty
    // up to `--speed 60`, and a pass catches up on the latest due schedule anyway.
    spawn_loop(changes, Duration::from_secs(1), move || {
        reconcile_cronjobs(&ctx, chrono::Utc::now());
        None
    })
}

/// Job name for a scheduled time: `<cronjob>-<minutes since the epoch>`, as the real controller.
pub fn job_name(cronjob: &str, scheduled: chrono::DateTime<chrono::Utc>) -> String {
    format!("{cronjob}-{}", scheduled.timestamp() / 60)
}

/// Runs the CronJobs due at wall-clock time `now_time`, each on its own simulated clock
/// ([`Context::simulated_since`] its creation).
pub fn reconcile_cronjobs(ctx: &Context, now_time: chrono::DateTime<chrono::Utc>) {
    let (cronjobs, _) = ctx.registry.list(&ctx.def("batch", "cronjobs"), None);
    let (jobs, _) = ctx.registry.list(&ctx.def("batch", "jobs"), None);
    for cj in cronjobs {
        let owned: Vec<&Value> = jobs
            .iter()
            .filter(|j| controller_uid(j) == Some(uid_of(&cj)))
            .collect();
        sync_cronjob(ctx, &cj, &owned, now_time);
    }
}

fn sync_cronjob(
    ctx: &Context,
    cj: &Value,
    owned: &[&Value],
    now_time: chrono::DateTime<chrono::Utc>,
) {
    if is_deleting(cj) {
        return;
    }
    let jobs_def = ctx.def("batch", "jobs");
    let active: Vec<&&Value> = owned.iter().filter(|j| !is_finished(j)).collect();
    let mut status = cj["status"].clone();
    if !status.is_object() {
        status = json!({});
    }
    let refs: Vec<Value> = active
        .iter()
        .map(|j| json!({"apiVersion": "batch/v1", "kind": "Job", "name": name_of(j), "namespace": namespace_of(j), "uid": uid_of(j), "resourceVersion": j["metadata"]["resourceVersion"]}))
        .collect();
    if refs.is_empty() {
        if let Some(m) = status.as_object_mut() {
            m.remove("active");
        }
    } else {
        status["active"] = json!(refs);
    }
    if let Some(last_success) = owned
        .iter()
        .filter(|j| condition_true(j, "Complete"))
        .filter_map(|j| j["status"]["completionTime"].as_str())
        .max()
    {
        status["lastSuccessfulTime"] = json!(last_success);
    }

    let schedule = cj["spec"]["schedule"]
        .as_str()
        .and_then(|s| Schedule::parse(s).ok());
    let created = cj["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(parse_time)
        .unwrap_or(now_time);
    let since = status["lastScheduleTime"]
        .as_str()
        .and_then(parse_time)
        .map_or(created, |real| ctx.simulated_since(created, real));
    let now_time = ctx.simulated_since(created, now_time);
    let suspended = cj["spec"]["suspend"].as_bool() == Some(true);
    if let (Some(schedule), false) = (schedule, suspended) {
        if let Some(due) = schedule.most_recent(since, now_time) {
            let forbid = cj["spec"]["concurrencyPolicy"] == "Forbid" && !active.is_empty();
            if !forbid {
                create_job(ctx, cj, due);
            }
            status["lastScheduleTime"] = json!(real_time_after(ctx, created, due));
        }
    }
    // History limits: the oldest finished jobs beyond the limits go (Background).
    for (condition, limit_field, default_limit) in [
        ("Complete", "successfulJobsHistoryLimit", 3),
        ("Failed", "failedJobsHistoryLimit", 1),
    ] {
        let limit = cj["spec"][limit_field]
            .as_i64()
            .unwrap_or(default_limit)
            .max(0) as usize;
        let mut finished: Vec<&&Value> = owned
            .iter()
            .filter(|j| condition_true(j, condition))
            .collect();
        if finished.len() > limit {
            finished.sort_by_key(|j| {
                j["metadata"]["creationTimestamp"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            });
            let excess = finished.len() - limit;
            for job in finished.into_iter().take(excess) {
                let deleted = ctx.registry.delete(
                    &jobs_def,
                    namespace_of(job),
                    name_of(job),
                    &DeleteOptions {
                        propagation_policy: Some("Background".into()),
                        ..Default::default()
                    },
                );
                if deleted.is_ok() {
                    ctx.recorder.record(
                        cj,
                        EventSpec::normal(
                            "SuccessfulDelete",
                            format!("Deleted job {}", name_of(job)),
                        )
                        .by(CRONJOB_COMPONENT, CONTROLLER_MANAGER),
                    );
                }
            }
        }
    }
    if status != cj["status"] {
        let _ = ctx.registry.update_with(
            &ctx.def("batch", "cronjobs"),
            namespace_of(cj),
            name_of(cj),
            &writer(CONTROLLER_MANAGER, "status"),
            |current| {
                current["status"] = status.clone();
                Ok(())
            },
        );
    }
}

/// The wall-clock time (as stored, to the second) at which the simulated clock passed
/// `simulated`, rounded up so that reading it back never schedules `simulated` again.
fn real_time_after(
    ctx: &Context,
    created: chrono::DateTime<chrono::Utc>,
    simulated: chrono::DateTime<chrono::Utc>,
) -> String {
    use chrono::Timelike;
    let real = ctx.real_since(created, simulated);
    let whole = real.with_nanosecond(0).unwrap_or(real);
    let rounded = if whole < real {
        whole + chrono::Duration::seconds(1)
    } else {
        whole
    };
    rounded.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn create_job(ctx: &Context, cj: &Value, scheduled: chrono::DateTime<chrono::Utc>) {
    let template = &cj["spec"]["jobTemplate"];
    let name = job_name(name_of(cj), scheduled);
    let mut annotations = template["metadata"]["annotations"].clone();
    if !annotations.is_object() {
        annotations = json!({});
    }
    annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"] =
        json!(scheduled.format("%Y-%m-%dT%H:%M:%SZ").to_string());
    let mut job = json!({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": namespace_of(cj),
                     "annotations": annotations, "ownerReferences": [controller_ref(cj)]},
        "spec": template["spec"],
    });
    if template["metadata"]["labels"].is_object() {
        job["metadata"]["labels"] = template["metadata"]["labels"].clone();
    }
    let created = ctx.registry.create(
        &ctx.def("batch", "jobs"),
        namespace_of(cj),
        job,
        &writer(CONTROLLER_MANAGER, ""),
    );
    if created.is_ok() {
        ctx.recorder.record(
            cj,
            EventSpec::normal("SuccessfulCreate", format!("Created job {name}"))
                .by(CRONJOB_COMPONENT, CONTROLLER_MANAGER),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use crate::storage::store::Store;

    #[test]
    fn cronjob_creates_the_job_of_the_latest_due_minute_once() {
        let registry = Arc::new(Registry::new(Arc::new(Store::new(100))));
        crate::seed::seed_system_objects(&registry);
        let ctx = Context::new(registry.clone(), 1.0);
        let cronjobs = ctx.def("batch", "cronjobs");
        let cj = json!({"metadata": {"name": "tick"}, "spec": {"schedule": "*/5 * * * *",
            "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
                "containers": [{"name": "c", "image": "busybox"}]}}}}}});
        let created = registry
            .create(&cronjobs, "default", cj, &writer("test", ""))
            .unwrap();
        let created_at =
            parse_time(created["metadata"]["creationTimestamp"].as_str().unwrap()).unwrap();
        // An injected clock: twelve minutes later two or three schedules passed; one Job runs.
        let later = created_at + chrono::Duration::minutes(12);
        reconcile_cronjobs(&ctx, later);
        reconcile_cronjobs(&ctx, later);
        let (jobs, _) = registry.list(&ctx.def("batch", "jobs"), Some("default"));
        assert_eq!(jobs.len(), 1);
        let job = &jobs[0];
        let schedule = Schedule::parse("*/5 * * * *").unwrap();
        let due = schedule.most_recent(created_at, later).unwrap();
        assert_eq!(job["metadata"]["name"], job_name("tick", due));
        assert_eq!(job["metadata"]["ownerReferences"][0]["kind"], "CronJob");
        let cj = registry.get(&cronjobs, "default", "tick").unwrap();
        assert_eq!(
            cj["status"]["lastScheduleTime"],
            due.format("%Y-%m-%dT%H:%M:%SZ").to_string()
        );
        assert_eq!(cj["status"]["active"][0]["name"], job["metadata"]["name"]);
        let (events, _) = registry.list(&ctx.def("", "events"), Some("default"));
        assert!(events.iter().any(|e| e["reason"] == "SuccessfulCreate"
            && e["source"]["component"] == "cronjob-controller"));
    }

    #[test]
    fn cronjob_schedules_follow_the_simulation_speed() {
        let registry = Arc::new(Registry::new(Arc::new(Store::new(100))));
        crate::seed::seed_system_objects(&registry);
        let ctx = Context::new(registry.clone(), 4.0);
        let cronjobs = ctx.def("batch", "cronjobs");
        let cj = json!({"metadata": {"name": "tick"}, "spec": {"schedule": "* * * * *",
            "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure",
                "containers": [{"name": "c", "image": "busybox"}]}}}}}});
        let created = registry
            .create(&cronjobs, "default", cj, &writer("test", ""))
            .unwrap();
        let created_at =
            parse_time(created["metadata"]["creationTimestamp"].as_str().unwrap()).unwrap();
        let jobs = || {
            registry
                .list(&ctx.def("batch", "jobs"), Some("default"))
                .0
                .len()
        };
        // Every simulated minute is 15 s of wall clock: 16 s after its creation a minute
        // boundary passed on the CronJob's clock, 30 s later two more did (the latest runs).
        let first = created_at + chrono::Duration::seconds(16);
        reconcile_cronjobs(&ctx, first);
        assert_eq!(jobs(), 1);
        // Reading back the stored (wall-clock, whole-second) lastScheduleTime schedules
        // nothing twice.
        reconcile_cronjobs(&ctx, first);
        assert_eq!(jobs(), 1);
        let cj = registry.get(&cronjobs, "default", "tick").unwrap();
        let last = parse_time(cj["status"]["lastScheduleTime"].as_str().unwrap()).unwrap();
        assert!(last > created_at && last <= first, "{last}");
        reconcile_cronjobs(&ctx, first + chrono::Duration::seconds(30));
        assert_eq!(jobs(), 2);
    }
}

//! kubectl where the other tests are thin: `get -w` printing Table rows, `logs -f`,
//! `describe`, `diff`, `wait` and `rollout undo`. Every wait is on kubectl's own output or on
//! a state that lasts, with a generous outer bound; ignored without kubectl, except under CI.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, DeleteParams, PostParams};

mod common;

use common::{Kubectl, PATIENCE};

/// A long-running kubectl whose stdout lines arrive on a channel.
struct Streaming {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Streaming {
    fn start(k: &Kubectl, args: &[&str]) -> Streaming {
        let mut child = k
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("kubectl starts");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Streaming {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits for a line matching `check`; fails if the output ends first.
    fn wait_for_line(&mut self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if check(&line) {
                        return line;
                    }
                }
                Err(_) => panic!("no line with {what}; output so far: {:#?}", self.seen),
            }
        }
    }

    /// Waits for kubectl to close its output and exit by itself.
    fn wait_for_exit(&mut self) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("kubectl did not end; output: {:#?}", self.seen)
                }
            }
        }
        self.child.wait().expect("kubectl status")
    }
}

impl Drop for Streaming {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.expect("join")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn get_watch_prints_table_rows_as_changes_happen() {
    let cluster = common::start_for_cli_clients().await;
    let configmaps: Api<ConfigMap> = Api::namespaced(common::kube_client(&cluster), "default");
    configmaps
        .create(&PostParams::default(), &common::configmap("before"))
        .await
        .expect("create");
    let k = Kubectl::new(&cluster);
    let mut watch = Streaming::start(&k, &["get", "configmaps", "-n", "default", "-w"]);
    let mut watch = blocking(move || {
        let header = watch.wait_for_line("the header", |l| l.starts_with("NAME"));
        assert!(
            header.contains("DATA") && header.contains("AGE"),
            "{header}"
        );
        watch.wait_for_line("the existing ConfigMap", |l| l.starts_with("before"));
        watch
    })
    .await;
    configmaps
        .create(&PostParams::default(), &common::configmap("during"))
        .await
        .expect("create");
    let row =
        blocking(move || watch.wait_for_line("the new row", |l| l.starts_with("during"))).await;
    // A Table row: name, DATA count, age.
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells.len(), 3, "{row}");
    assert_eq!(cells[1], "1", "{row}");
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn logs_follow_streams_until_the_pod_goes() {
    let cluster = common::start_for_cli_clients().await;
    let pods: Api<Pod> = Api::namespaced(common::kube_client(&cluster), "default");
    pods.create(&PostParams::default(), &common::nginx_pod("web"))
        .await
        .expect("create");
    let k = Kubectl::new(&cluster);
    // Wait (kubectl's own way) until it runs.
    k.wait_for("condition=Ready", "pod/web");
    // What it has printed so far; with timestamps every line is distinct.
    let before = k.ok(&["logs", "--timestamps", "web"]);
    assert!(
        before.contains("Configuration complete; ready for start up"),
        "{before}"
    );
    let mut follow = Streaming::start(&k, &["logs", "-f", "--timestamps", "web"]);
    let mut follow = blocking(move || {
        follow.wait_for_line("nginx's start-up line", |l| {
            l.contains("Configuration complete; ready for start up")
        });
        // nginx's periodic access-log lines keep coming while kubectl follows.
        let new = follow.wait_for_line("a line printed after the snapshot", |l| {
            !before.lines().any(|old| old == l)
        });
        assert!(new.contains("\"GET / HTTP/1.1\" 200"), "{new}");
        follow
    })
    .await;
    pods.delete("web", &DeleteParams::default())
        .await
        .expect("delete");
    let status = blocking(move || follow.wait_for_exit()).await;
    assert!(
        status.success(),
        "logs -f ends cleanly with the pod: {status}"
    );
    cluster.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(have_kubectl), ignore = "kubectl not on PATH")]
async fn describe_diff_wait_and_rollout_undo() {
    let cluster = common::start_for_cli_clients().await;
    let deployments: Api<Deployment> = Api::namespaced(common::kube_client(&cluster), "default");
    let k = Kubectl::new(&cluster);
    let manifest = k.home.path().join("web.yaml");
    std::fs::write(&manifest, common::WEB_DEPLOYMENT).expect("manifest");
    let manifest = manifest.to_str().expect("utf-8 path").to_string();
    let k = std::sync::Arc::new(k);

    let k2 = k.clone();
    let m2 = manifest.clone();
    blocking(move || {
        let k = k2;
        k.ok(&["apply", "--server-side", "-f", &m2]);
        k.wait_for("condition=Available", "deployment/web");

        // describe: the sections kubectl builds from the object and its Events.
        let described = k.ok(&["describe", "deployment", "web"]);
        for section in [
            "Name:",
            "Namespace:",
            "Selector:",
            "Replicas:",
            "NewReplicaSet:",
            "Events:",
        ] {
            assert!(
                described.contains(section),
                "{section} missing:\n{described}"
            );
        }
        assert!(described.contains("ScalingReplicaSet"), "{described}");
        let pod = k.ok(&[
            "get",
            "pods",
            "-l",
            "app=web",
            "-o",
            "jsonpath={.items[0].metadata.name}",
        ]);
        let described = k.ok(&["describe", "pod", pod.trim()]);
        for section in ["Node:", "Status:", "Containers:", "Conditions:", "Events:"] {
            assert!(
                described.contains(section),
                "{section} missing:\n{described}"
            );
        }
        assert!(described.contains("Scheduled"), "{described}");

        // diff: nothing to change, then a change (server-side dry run underneath).
        let (same, out, err) = k.run(&["diff", "--server-side", "-f", &m2], None);
        assert!(same, "no difference: exit 0\n{out}\n{err}");
        let changed = m2.replace("web.yaml", "web3.yaml");
        std::fs::write(
            &changed,
            common::WEB_DEPLOYMENT.replace("replicas: 2", "replicas: 3"),
        )
        .expect("manifest");
        let out = k
            .command(&["diff", "--server-side", "-f", &changed])
            .output()
            .expect("diff runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "a difference: exit 1\n{text}");
        assert!(
            text.contains("-  replicas: 2") && text.contains("+  replicas: 3"),
            "{text}"
        );

        // rollout undo: a new image rolls out revision 2; undo brings the old template back.
        k.ok(&["set", "image", "deployment/web", "nginx=nginx:1.26"]);
        let status = k.ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);
        assert!(status.contains("successfully rolled out"), "{status}");
        let undone = k.ok(&["rollout", "undo", "deployment/web"]);
        assert!(undone.contains("rolled back"), "{undone}");
        let status = k.ok(&["rollout", "status", "deployment/web", "--timeout=60s"]);
        assert!(status.contains("successfully rolled out"), "{status}");
        let history = k.ok(&["rollout", "history", "deployment/web"]);
        let revisions: Vec<&str> = history
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|cell| cell.chars().all(|c| c.is_ascii_digit()))
            .collect();
        assert_eq!(revisions, ["2", "3"], "revision 1 became 3:\n{history}");
        // The undo re-used revision 1's ReplicaSet (now revision 3) instead of making one.
        let sets = k.ok(&[
            "get",
            "replicasets",
            "-l",
            "app=web",
            "-o",
            "jsonpath={range .items[*]}{.spec.template.spec.containers[0].image} \
             {.metadata.annotations.deployment\\.kubernetes\\.io/revision} {.spec.replicas}{\"\\n\"}{end}",
        ]);
        let mut sets: Vec<&str> = sets.lines().collect();
        sets.sort();
        assert_eq!(sets, ["nginx:1.25 3 2", "nginx:1.26 2 0"], "{sets:?}");
    })
    .await;
    let web =
        serde_json::to_value(deployments.get("web").await.expect("deployment")).expect("json");
    assert_eq!(
        web["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.25"
    );
    assert_eq!(
        web["metadata"]["annotations"]["deployment.kubernetes.io/revision"], "3",
        "the undo is a new revision"
    );
    cluster.shutdown().await.expect("shutdown");
}

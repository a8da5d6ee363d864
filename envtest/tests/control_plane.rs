//! The harness's own test: a real control plane comes up, its controllers roll a Deployment
//! out onto the stand-in kubelet's nodes, and nothing of it is left after drop.

use std::time::{Duration, Instant};

use envtest::{ControlPlane, KubectlProxy, Options};

fn wait_until(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !check() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(250));
    }
}

fn process_alive(pid: u32) -> bool {
    // `wait` in drop reaps every child, so a pid still in /proc is a process still running.
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
fn a_deployment_rolls_out_on_the_real_controllers_and_drop_leaves_nothing() {
    let plane = ControlPlane::start(Options::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        plane
            .kubectl_ok(&["get", "--raw", "/readyz"])
            .expect("readyz"),
        "ok"
    );
    let version = plane
        .kubectl_ok(&["get", "--raw", "/version"])
        .expect("version");
    let version: serde_json::Value = serde_json::from_str(&version).expect("version JSON");
    assert_eq!(
        version["gitVersion"].as_str().map(|v| &v[..5]),
        Some("v1.36")
    );

    // The stand-in kubelet registers its nodes Ready.
    wait_until("two Ready nodes", Duration::from_secs(30), || {
        plane
            .kubectl_ok(&[
                "get",
                "nodes",
                "-o",
                "jsonpath={range .items[*]}{.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}",
            ])
            .is_ok_and(|out| out.lines().filter(|l| *l == "True").count() == 2)
    });

    plane
        .kubectl_ok(&[
            "create",
            "deployment",
            "web",
            "--image=nginx:1.27",
            "--replicas=2",
        ])
        .expect("deployment created");
    plane
        .kubectl_ok(&["rollout", "status", "deployment/web", "--timeout=90s"])
        .expect("the real controllers roll it out");
    let pods = plane
        .kubectl_ok(&[
            "get",
            "pods",
            "-l",
            "app=web",
            "-o",
            "jsonpath={range .items[*]}{.spec.nodeName} {.status.phase}{\"\\n\"}{end}",
        ])
        .expect("pods");
    let pods: Vec<&str> = pods.lines().collect();
    assert_eq!(pods.len(), 2, "{pods:?}");
    assert!(
        pods.iter()
            .all(|p| p.starts_with("node-") && p.ends_with(" Running")),
        "scheduled by kube-scheduler, run by the stand-in kubelet: {pods:?}"
    );

    // The viewer reads default and may not write.
    let viewer = |args: &[&str]| {
        std::process::Command::new("kubectl")
            .arg(format!(
                "--kubeconfig={}",
                plane.viewer_kubeconfig().display()
            ))
            .args(args)
            .output()
            .expect("kubectl runs")
    };
    assert!(viewer(&["get", "pods"]).status.success());
    assert!(!viewer(&["delete", "deployment", "web"]).status.success());
    assert!(!viewer(&["get", "pods", "--all-namespaces"])
        .status
        .success());

    // A real kubectl proxy in front answers the API without credentials.
    let scratch = tempfile::tempdir().expect("scratch");
    let proxy =
        KubectlProxy::start(&plane.admin_kubeconfig(), None, scratch.path()).expect("proxy");
    let proxied = std::process::Command::new("kubectl")
        .arg(format!("--server={}", proxy.url()))
        .args([
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.status.readyReplicas}",
        ])
        .output()
        .expect("kubectl through the proxy");
    assert_eq!(String::from_utf8_lossy(&proxied.stdout), "2");

    let pids: Vec<u32> = plane.pids().into_iter().map(|(_, pid)| pid).collect();
    assert_eq!(
        pids.len(),
        5,
        "etcd, apiserver, controller manager, scheduler, kubelet"
    );
    let dir = plane.dir().to_path_buf();
    drop(proxy);
    drop(plane);
    let left: Vec<u32> = pids.into_iter().filter(|pid| process_alive(*pid)).collect();
    assert!(left.is_empty(), "processes left after drop: {left:?}");
    assert!(!dir.exists(), "{} left after drop", dir.display());
}

#[test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
fn the_api_server_restarts_on_the_same_data() {
    let mut plane = ControlPlane::start(Options {
        controllers: false,
        nodes: 0,
    })
    .unwrap_or_else(|e| panic!("{e}"));
    plane
        .kubectl_ok(&["create", "configmap", "kept", "--from-literal=k=v"])
        .expect("configmap");
    plane.stop_api_server();
    assert!(plane
        .kubectl(&["get", "--raw", "/readyz"])
        .is_ok_and(|o| !o.status.success()));
    plane.start_api_server().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        plane
            .kubectl_ok(&["get", "configmap", "kept", "-o", "jsonpath={.data.k}"])
            .expect("read after restart"),
        "v"
    );
}

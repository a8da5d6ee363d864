//! The terminal's requests and pod readings against what kubectl v1.32 sent and kube-apiserver
//! v1.36.2 served (`fixtures/terminal`, its README says how they were recorded).

use kube_atlas_model::api::discovery::{parse_resource_list, resources_from_legacy};
use kube_atlas_model::api::request::ApiRequest;
use kube_atlas_model::api::tree::{ApiGroup, GroupVersion, TreeErrors};
use kube_atlas_model::object::pod_logs::ContainerKind;
use kube_atlas_model::object::terminal::containers::{
    default_terminal_container, terminal_containers, ContainerState,
};
use kube_atlas_model::object::terminal::debug::{
    debug_container_request, debug_container_state, DebugContainer, DebugContainerState,
    DebugProfile,
};
use kube_atlas_model::object::terminal::request::{
    attach_request, exec_request, explain_refused_handshake, AttachOptions, ExecOptions,
    HandshakeRefusal,
};
use kube_atlas_model::ApiTree;
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/terminal");

fn read(name: &str) -> String {
    let path = format!("{DIR}/{name}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn pod(name: &str) -> Value {
    serde_json::from_str(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Discovery as served: the pod entries of `/api/v1`.
fn tree() -> ApiTree {
    let list = parse_resource_list(&read("api_v1_pods.json")).expect("an APIResourceList");
    let resources = resources_from_legacy(&list, "", "v1", &mut TreeErrors::default());
    ApiTree::new(vec![ApiGroup::new(
        "",
        vec![GroupVersion::new("v1", false, resources)],
        Some("v1"),
    )])
}

/// The lines kubectl logged for `$ command` (without the `$` line).
fn kubectl(command: &str) -> Vec<String> {
    let text = read("kubectl_requests.txt");
    let start = format!("$ {command}\n");
    let block = text
        .split("\n\n")
        .find_map(|block| block.strip_prefix(&start))
        .unwrap_or_else(|| panic!("no block for `{command}`"));
    block.lines().map(str::to_string).collect()
}

/// kubectl's request `GET …` parsed as this model reads a URL (kubectl writes a space `+`).
fn kubectl_get(command: &str, nth: usize) -> ApiRequest {
    let lines = kubectl(command);
    let url = lines
        .iter()
        .filter_map(|line| line.strip_prefix("GET "))
        .nth(nth)
        .unwrap_or_else(|| panic!("`{command}` made no GET #{nth}"));
    ApiRequest::get(url)
}

fn same_request(ours: &ApiRequest, kubectls: &ApiRequest) {
    assert_eq!(ours.path, kubectls.path);
    assert_eq!(ours.query, kubectls.query, "{}", ours.url());
}

fn exec(container: &str, command: &[&str], stdin: bool, tty: bool) -> ExecOptions {
    ExecOptions {
        container: container.into(),
        command: command.iter().map(|w| w.to_string()).collect(),
        stdin,
        tty,
    }
}

#[test]
fn exec_requests_are_kubectls() {
    let tree = tree();
    for (command, options) in [
        (
            "kubectl exec web -- hostname",
            exec("web", &["hostname"], false, false),
        ),
        (
            "kubectl exec web -- sh -c 'exit 3'",
            exec("web", &["sh", "-c", "exit 3"], false, false),
        ),
        (
            "kubectl exec -it web -- sh",
            exec("web", &["sh"], true, true),
        ),
    ] {
        let ours = exec_request(&tree, "default", "web", &options).expect("exec is served");
        same_request(&ours, &kubectl_get(command, 0));
    }
}

#[test]
fn attach_requests_are_kubectls() {
    let tree = tree();
    let tty = pod("pod_tty.json");
    let main = terminal_containers(&tty)
        .into_iter()
        .find(|c| c.name == "main")
        .expect("main");
    let ours = attach_request(&tree, "default", "tty", &main.attach_options()).expect("served");
    same_request(&ours, &kubectl_get("kubectl attach -it tty", 0));
    for (command, stdin) in [
        ("kubectl attach -it web", true),
        ("kubectl attach web", false),
    ] {
        let options = AttachOptions {
            container: "web".into(),
            stdin,
            // web's container has no tty: kubectl does not ask for one.
            tty: false,
        };
        let ours = attach_request(&tree, "default", "web", &options).expect("served");
        same_request(&ours, &kubectl_get(command, 0));
    }
}

/// `pod` as it was before its ephemeral containers from `keep` on were added.
fn before(pod: &Value, keep: usize) -> Value {
    let mut pod = pod.clone();
    if let Some(list) = pod["spec"]["ephemeralContainers"].as_array_mut() {
        list.truncate(keep);
    }
    pod
}

#[test]
fn debug_patches_are_kubectls() {
    let tree = tree();
    let (web, tty) = (pod("pod_web.json"), pod("pod_tty.json"));
    let debugger =
        |name: &str, target: Option<&str>, command: &[&str], interactive| DebugContainer {
            name: name.into(),
            image: "busybox".into(),
            target: target.map(str::to_string),
            command: command.iter().map(|w| w.to_string()).collect(),
            interactive,
            image_pull_policy: None,
            profile: DebugProfile::Legacy,
        };
    let general = DebugContainer {
        profile: DebugProfile::General,
        ..debugger("debugger-lhcmv", Some("main"), &["true"], false)
    };
    for (command, pod, container) in [
        (
            "kubectl debug web --image=busybox --target=web -- true",
            before(&web, 0),
            debugger("debugger-ztjtw", Some("web"), &["true"], false),
        ),
        (
            "kubectl debug -it web --image=busybox --target=web",
            before(&web, 1),
            debugger("debugger-dz6hp", Some("web"), &[], true),
        ),
        (
            "kubectl debug -it tty --image=busybox",
            before(&tty, 0),
            debugger("debugger-vs68s", None, &[], true),
        ),
        (
            "kubectl debug tty --image=busybox --profile=general --target=main -- true",
            before(&tty, 1),
            general,
        ),
    ] {
        let lines = kubectl(command);
        let ours = debug_container_request(&tree, &pod, &container).expect("served");
        let patch = lines
            .iter()
            .find_map(|l| l.strip_prefix("PATCH "))
            .expect("a PATCH");
        assert_eq!(ours.url(), patch, "{command}");
        let content_type = format!(
            "header: Content-Type: {}",
            ours.content_type().unwrap_or("")
        );
        assert!(lines.contains(&content_type), "{command}");
        let body = lines
            .iter()
            .find_map(|l| l.strip_prefix("body: "))
            .expect("a body");
        assert_eq!(ours.body.as_deref(), Some(body), "{command}");
    }
    // Then kubectl attaches to the new container, as a terminal here would.
    let started = terminal_containers(&web)
        .into_iter()
        .find(|c| c.name == "debugger-dz6hp")
        .expect("the debug container");
    let attach =
        attach_request(&tree, "default", "web", &started.attach_options()).expect("served");
    same_request(
        &attach,
        &kubectl_get("kubectl debug -it web --image=busybox --target=web", 2),
    );
}

#[test]
fn debug_containers_are_seen_running() {
    let web = pod("pod_web.json");
    assert_eq!(
        debug_container_state(&web, "debugger-dz6hp"),
        DebugContainerState::Running
    );
    assert_eq!(
        debug_container_state(&before(&web, 1), "debugger-nope"),
        DebugContainerState::NotReported
    );
}

#[test]
fn the_picker_lists_every_container_with_its_state() {
    let web = pod("pod_web.json");
    let containers = terminal_containers(&web);
    let rows: Vec<(String, ContainerKind, bool)> = containers
        .iter()
        .map(|c| (c.name.clone(), c.kind, c.unavailable_reason().is_none()))
        .collect();
    assert_eq!(
        rows,
        [
            ("web".to_string(), ContainerKind::Regular, true),
            ("debugger-ztjtw".to_string(), ContainerKind::Ephemeral, true),
            ("debugger-dz6hp".to_string(), ContainerKind::Ephemeral, true),
        ]
    );
    assert_eq!(
        default_terminal_container(&web, &containers).map(|c| c.name.as_str()),
        Some("web")
    );

    let mixed = terminal_containers(&pod("pod_mixed.json"));
    let reasons: Vec<Option<String>> = mixed.iter().map(|c| c.unavailable_reason()).collect();
    assert_eq!(
        reasons,
        [
            Some("setup (init) is not running (Not started)".to_string()),
            Some("app is not running (Waiting: CrashLoopBackOff)".to_string()),
            Some("worker is not running (Waiting: CrashLoopBackOff)".to_string()),
        ]
    );
    let broken = terminal_containers(&pod("pod_broken.json"));
    assert!(matches!(
        &broken[0].state,
        ContainerState::Waiting { reason: Some(reason), .. } if reason == "ImagePullBackOff"
    ));
}

#[test]
fn refused_handshakes_are_explained_by_the_recorded_probes() {
    let text = read("handshake_probes.txt");
    let verdicts: Vec<String> = text
        .split("\n\n")
        .skip(1)
        .map(|probe| {
            let answer = probe.lines().nth(2).expect("an answer line");
            let (code, body) = answer.split_once(' ').expect("code and body");
            match explain_refused_handshake(code.parse().expect("a code"), body) {
                HandshakeRefusal::Upgrade => "upgrade".to_string(),
                HandshakeRefusal::Request(error) => error.to_string(),
            }
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            "upgrade",
            "403 Forbidden: pods \"web\" is forbidden: User \"viewer\" cannot get resource \
             \"pods/exec\" in API group \"\" in the namespace \"default\"",
            "400 BadRequest: container nope is not valid for pod web",
            "404 NotFound: pods \"gone\" not found",
            "upgrade",
        ]
    );
}

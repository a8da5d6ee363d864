//! The demo cluster held to kube-apiserver: one real control plane (etcd and kube-apiserver
//! v1.36, no controllers, no nodes; `envtest`) behind a real `kubectl proxy`, and one empty
//! demo cluster (controllers off), are sent the same requests and what a client sees is
//! compared: discovery (aggregated and legacy), Table columns and cells, Status errors, watch
//! shapes (streaming lists, 410), managedFields after applies and updates, and the defaults
//! stored on create. What legitimately varies (uids, times, resourceVersions, generated names,
//! cluster IPs) is normalised in [`normalise`]; every other allowed difference is listed,
//! with its reason, in an allow-list next to the comparison.
//!
//! The pair is started once per test binary and shared; each test works in its own
//! namespace. A watchdog process kills the control plane when the test binary exits (statics
//! are never dropped).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;
use std::time::Duration;

use demo_cluster::Config;
use http_body_util::BodyExt;
use kube::Client;
use serde_json::{json, Value};

mod common;

use common::raw::{self, client_for, Reply};
use common::TABLE;

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// Where the two servers answer, started once.
struct Servers {
    real: String,
    /// The real side behind a `kubectl proxy` that rejects no path (the default one refuses
    /// `pods/exec` and `pods/attach` itself, before kube-apiserver sees them).
    real_unfiltered: String,
    demo: String,
    /// The real side's etcd (its client URL), to compact it.
    etcd: String,
}

static SERVERS: OnceLock<Result<Servers, String>> = OnceLock::new();

/// Keeps the control plane and the proxy alive for the whole test binary.
struct Keep {
    _plane: envtest::ControlPlane,
    _proxy: envtest::KubectlProxy,
    _unfiltered_proxy: ChildKilledOnDrop,
    _scratch: tempfile::TempDir,
}

struct ChildKilledOnDrop(std::process::Child);

impl Drop for ChildKilledOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `kubectl proxy` to the real side with no rejected paths, and its URL.
fn unfiltered_proxy(
    plane: &envtest::ControlPlane,
    cache_dir: &std::path::Path,
) -> Result<(ChildKilledOnDrop, String), String> {
    let child = std::process::Command::new("kubectl")
        .arg(format!(
            "--kubeconfig={}",
            plane.admin_kubeconfig().display()
        ))
        .arg(format!("--cache-dir={}", cache_dir.display()))
        .args([
            "proxy",
            "--address=127.0.0.1",
            "--port=0",
            "--reject-paths=^/no-path-is-rejected$",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("kubectl proxy: {e}"))?;
    let mut child = ChildKilledOnDrop(child);
    let port = envtest::announced_port(&mut child.0, "Starting to serve on")?;
    Ok((child, format!("http://127.0.0.1:{port}")))
}

static KEEP: OnceLock<std::sync::Mutex<Option<Keep>>> = OnceLock::new();

/// The pids of this process's children whose command line mentions `needle` (the proxy,
/// which `KubectlProxy` does not name).
fn children_mentioning(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    let mut out = vec![];
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // pid (comm) state ppid ...
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if ppid == Some(me) && String::from_utf8_lossy(&cmdline).contains(needle) {
            out.push(pid);
        }
    }
    out
}

fn start_servers() -> Result<Servers, String> {
    let plane = envtest::ControlPlane::start(envtest::Options {
        controllers: false,
        nodes: 0,
    })?;
    let scratch = tempfile::tempdir().map_err(|e| format!("scratch: {e}"))?;
    let proxy = envtest::KubectlProxy::start(&plane.admin_kubeconfig(), None, scratch.path())?;
    let (unfiltered, real_unfiltered) = unfiltered_proxy(&plane, &scratch.path().join("cache"))?;
    // Statics are not dropped at exit: a watchdog kills what was started (by pid) and removes
    // the directories once this process is gone.
    let mut pids: Vec<u32> = plane.pids().into_iter().map(|(_, pid)| pid).collect();
    pids.extend(children_mentioning(&plane.dir().display().to_string()));
    let script = format!(
        "while kill -0 {me} 2>/dev/null; do sleep 1; done; kill {pids} 2>/dev/null; sleep 1; \
         kill -9 {pids} 2>/dev/null; rm -rf '{plane_dir}' '{scratch_dir}'",
        me = std::process::id(),
        pids = pids
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        plane_dir = plane.dir().display(),
        scratch_dir = scratch.path().display(),
    );
    std::process::Command::new("sh")
        .args(["-c", &script])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("watchdog: {e}"))?;
    let real = proxy.url();
    let etcd = plane
        .pids()
        .into_iter()
        .find(|(name, _)| *name == "etcd")
        .and_then(|(_, pid)| std::fs::read(format!("/proc/{pid}/cmdline")).ok())
        .and_then(|cmdline| {
            let args: Vec<String> = cmdline
                .split(|b| *b == 0)
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            args.iter()
                .position(|a| a == "--listen-client-urls")
                .and_then(|i| args.get(i + 1).cloned())
        })
        .ok_or("etcd's client URL")?;

    // The demo cluster on a runtime of its own that outlives every test's runtime.
    let demo = common::start_on_own_runtime(Config {
        listen: "127.0.0.1:0".parse().expect("loopback address"),
        empty: true,
        controllers: false,
        // The real side runs no metrics-server (no stand-in kubelet): neither serves
        // metrics.k8s.io here. `metrics_differential.rs` compares the two with it.
        metrics: false,
        ..Config::default()
    })?;
    KEEP.get_or_init(|| {
        std::sync::Mutex::new(Some(Keep {
            _plane: plane,
            _proxy: proxy,
            _unfiltered_proxy: unfiltered,
            _scratch: scratch,
        }))
    });
    Ok(Servers {
        real,
        real_unfiltered,
        demo,
        etcd,
    })
}

/// The two servers, as kube clients made for the calling test's runtime.
struct Pair {
    real: Client,
    demo: Client,
}

fn pair() -> Pair {
    let servers = SERVERS
        .get_or_init(start_servers)
        .as_ref()
        .unwrap_or_else(|e| panic!("{e}"));
    Pair {
        real: client_for(&servers.real),
        demo: client_for(&servers.demo),
    }
}

/// One request, sent as given.
#[derive(Clone, Debug)]
struct Req {
    method: &'static str,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

fn get(path: impl Into<String>) -> Req {
    Req {
        method: "GET",
        path: path.into(),
        headers: vec![],
        body: vec![],
    }
}

fn with_body(
    method: &'static str,
    path: impl Into<String>,
    content_type: &str,
    body: Vec<u8>,
) -> Req {
    Req {
        method,
        path: path.into(),
        headers: vec![("content-type", content_type.to_string())],
        body,
    }
}

fn post(path: impl Into<String>, body: &Value) -> Req {
    with_body(
        "POST",
        path,
        "application/json",
        body.to_string().into_bytes(),
    )
}

impl Req {
    fn accept(mut self, accept: &str) -> Req {
        self.headers.push(("accept", accept.to_string()));
        self
    }
}

async fn send(client: &Client, req: &Req) -> Reply {
    // One User-Agent on both: kube-apiserver names the default field manager after it.
    let mut builder = http::Request::builder()
        .method(req.method)
        .uri(req.path.as_str())
        .header("user-agent", "atlas-differential/1.0");
    for (k, v) in &req.headers {
        builder = builder.header(*k, v);
    }
    raw::send(
        client,
        builder,
        req.body.clone(),
        &format!("{} {}", req.method, req.path),
    )
    .await
}

impl Pair {
    /// The same request to both: (real, demo).
    async fn both(&self, req: &Req) -> (Reply, Reply) {
        let real = send(&self.real, req).await;
        let demo = send(&self.demo, req).await;
        (real, demo)
    }

    /// The same request to both, each answer's JSON, failing unless both are 2xx.
    async fn both_ok(&self, req: &Req) -> (Value, Value) {
        let (real, demo) = self.both(req).await;
        for (side, reply) in [("real", &real), ("demo", &demo)] {
            assert!(
                (200..300).contains(&reply.status),
                "{side}: {} {} -> {}: {}",
                req.method,
                req.path,
                reply.status,
                String::from_utf8_lossy(&reply.body)
            );
        }
        (real.json(), demo.json())
    }

    /// A namespace of this name on both, with the `default` ServiceAccount the real
    /// server's admission requires of pods (its controller, not running here, would add it).
    async fn namespace(&self, name: &str) {
        self.both_ok(&post(
            "/api/v1/namespaces",
            &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}),
        ))
        .await;
        self.both_ok(&post(
            format!("/api/v1/namespaces/{name}/serviceaccounts"),
            &json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}}),
        ))
        .await;
    }
}

/// Fails listing every difference not allowed and every allowance no longer needed.
fn assert_differences(what: &str, found: &BTreeSet<String>, allowed: &[&str]) {
    let allowed: BTreeSet<String> = allowed.iter().map(|s| s.to_string()).collect();
    let unexpected: Vec<&String> = found.difference(&allowed).collect();
    let stale: Vec<&String> = allowed.difference(found).collect();
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "{what}: {} unexpected difference(s) between kube-apiserver and the demo:\n  {}\n\
         {} allowed difference(s) no longer found (remove them from the allow-list):\n  {}",
        unexpected.len(),
        unexpected
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
        stale.len(),
        stale
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
    );
}

/// Every leaf where `real` and `demo` differ, as `path: real != demo` lines (objects by key,
/// arrays by index).
fn diff_values(path: &str, real: &Value, demo: &Value, out: &mut BTreeSet<String>) {
    match (real, demo) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let p = format!("{path}.{k}");
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => diff_values(&p, x, y, out),
                    (Some(x), None) => {
                        out.insert(format!("{p}: {x} != (absent)"));
                    }
                    (None, Some(y)) => {
                        out.insert(format!("{p}: (absent) != {y}"));
                    }
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff_values(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ if real != demo => {
            out.insert(format!("{path}: {real} != {demo}"));
        }
        _ => {}
    }
}

/// `s` with every UUID (8-4-4-4-12 hex digits, as in a Job's `controller-uid` labels and
/// selector) replaced by `<uid>`.
fn without_uuids(s: &str) -> String {
    let is_uuid = |t: &[u8]| {
        t.len() == 36
            && t.iter().enumerate().all(|(i, b)| match i {
                8 | 13 | 18 | 23 => *b == b'-',
                _ => b.is_ascii_hexdigit(),
            })
    };
    let bytes = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        if i + 36 <= bytes.len() && is_uuid(&bytes[i..i + 36]) {
            out.push_str("<uid>");
            i += 36;
        } else {
            let ch = s[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// What legitimately differs between two servers, replaced by placeholders: uids, times,
/// resourceVersions, generated names (a `generateName` plus five characters), cluster IPs,
/// and the numbers that carry a resourceVersion inside messages.
fn normalise(value: &mut Value) {
    fn walk(v: &mut Value, key: &str, generate_name: Option<&str>) {
        match v {
            Value::Object(map) => {
                let generate_name = map
                    .get("metadata")
                    .and_then(|m| m.get("generateName"))
                    .and_then(Value::as_str)
                    .or(generate_name)
                    .map(str::to_string);
                for (k, child) in map.iter_mut() {
                    walk(child, k, generate_name.as_deref());
                }
            }
            Value::Array(items) => {
                for item in items {
                    walk(item, key, generate_name);
                }
            }
            Value::String(s) => {
                let placeholder = match key {
                    "uid" => Some("<uid>"),
                    "resourceVersion" => Some("<rv>"),
                    "creationTimestamp" | "deletionTimestamp" | "time" | "lastTransitionTime"
                    | "lastProbeTime" | "startTime" | "lastUpdateTime" => Some("<time>"),
                    "clusterIP" | "clusterIPs" => Some("<cluster ip>"),
                    "continue" => Some("<continue>"),
                    _ => None,
                };
                if let Some(placeholder) = placeholder {
                    if !s.is_empty() && s != "None" {
                        *s = placeholder.to_string();
                    }
                } else if s.len() >= 36 && s.contains('-') {
                    *s = without_uuids(s);
                } else if let Some(prefix) = generate_name {
                    if key == "name" && s.len() == prefix.len() + 5 && s.starts_with(prefix) {
                        *s = format!("{prefix}<generated>");
                    }
                }
            }
            _ => {}
        }
    }
    walk(value, "", None);
}

// ---------------------------------------------------------------------------------------
// 1. Discovery

/// The comparable content of an aggregated discovery resource or subresource entry.
fn aggregated_entry(r: &Value) -> Value {
    let sorted = |v: &Value| {
        let mut s: Vec<String> = v
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(String::from))
            .collect();
        s.sort();
        json!(s)
    };
    json!({
        "responseKind": r["responseKind"],
        "scope": r["scope"],
        "singularResource": r["singularResource"],
        "verbs": sorted(&r["verbs"]),
        "shortNames": r["shortNames"],
        "categories": r["categories"],
        "acceptedTypes": r["acceptedTypes"],
    })
}

/// `group/version/resource[/subresource]` → its entry, and `group` → versions in order.
/// Each group with its versions, in discovery order.
type GroupOrder = Vec<(String, Vec<String>)>;

fn flatten_aggregated(docs: &[Value]) -> (BTreeMap<String, Value>, GroupOrder) {
    let mut entries = BTreeMap::new();
    let mut groups = vec![];
    for doc in docs {
        for group in doc["items"].as_array().into_iter().flatten() {
            let name = group["metadata"]["name"].as_str().unwrap_or("").to_string();
            let mut versions = vec![];
            for version in group["versions"].as_array().into_iter().flatten() {
                let v = version["version"].as_str().unwrap_or("").to_string();
                versions.push(v.clone());
                entries.insert(
                    format!("{name}/{v} freshness"),
                    version["freshness"].clone(),
                );
                for r in version["resources"].as_array().into_iter().flatten() {
                    let plural = r["resource"].as_str().unwrap_or("");
                    let key = format!("{name}/{v}/{plural}");
                    entries.insert(key.clone(), aggregated_entry(r));
                    for s in r["subresources"].as_array().into_iter().flatten() {
                        let sub = s["subresource"].as_str().unwrap_or("");
                        entries.insert(format!("{key}/{sub}"), aggregated_entry(s));
                    }
                }
            }
            groups.push((name, versions));
        }
    }
    (entries, groups)
}

/// Differences between two maps of entries: only-in-real, only-in-demo, and field diffs.
fn diff_entries(
    real: &BTreeMap<String, Value>,
    demo: &BTreeMap<String, Value>,
    out: &mut BTreeSet<String>,
) {
    for (key, r) in real {
        match demo.get(key) {
            None => {
                out.insert(format!("only real: {key}"));
            }
            Some(d) => diff_values(key, r, d, out),
        }
    }
    for key in demo.keys().filter(|k| !real.contains_key(*k)) {
        out.insert(format!("only demo: {key}"));
    }
}

/// Differences the demo is allowed in aggregated discovery, each with its reason.
const DISCOVERY_ALLOWED: &[&str] = &[
    // The demo's own CRD, installed at start for its cnat operator (a real cluster with the
    // operator installed lists it the same way).
    "only demo group: cnat.programming-kubernetes.info",
    "only demo: cnat.programming-kubernetes.info/v1alpha1 freshness",
    "only demo: cnat.programming-kubernetes.info/v1alpha1/ats",
    "only demo: cnat.programming-kubernetes.info/v1alpha1/ats/status",
];

/// Differences the demo is allowed in legacy discovery: the same as in aggregated discovery.
const LEGACY_DISCOVERY_ALLOWED: &[&str] = &[
    // The demo's CRD group (see DISCOVERY_ALLOWED).
    "only demo: cnat.programming-kubernetes.info",
];

#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn aggregated_discovery_matches() {
    let pair = pair();
    let mut real_docs = vec![];
    let mut demo_docs = vec![];
    for path in ["/api", "/apis"] {
        let (real, demo) = pair.both_ok(&get(path).accept(AGGREGATED)).await;
        real_docs.push(real);
        demo_docs.push(demo);
    }
    let (real, real_groups) = flatten_aggregated(&real_docs);
    let (demo, demo_groups) = flatten_aggregated(&demo_docs);
    let mut found = BTreeSet::new();
    diff_entries(&real, &demo, &mut found);
    // Group order and each group's version order (preferred first) are what clients follow.
    let order = |groups: &[(String, Vec<String>)], other: &[(String, Vec<String>)]| {
        groups
            .iter()
            .filter(|(g, _)| other.iter().any(|(o, _)| o == g))
            .cloned()
            .collect::<Vec<_>>()
    };
    let real_order = order(&real_groups, &demo_groups);
    let demo_order = order(&demo_groups, &real_groups);
    if real_order != demo_order {
        found.insert(format!("group order: {real_order:?} != {demo_order:?}"));
    }
    for (g, _) in real_groups
        .iter()
        .filter(|(g, _)| !demo_groups.iter().any(|(d, _)| d == g))
    {
        found.insert(format!("only real group: {g}"));
    }
    for (g, _) in demo_groups
        .iter()
        .filter(|(g, _)| !real_groups.iter().any(|(r, _)| r == g))
    {
        found.insert(format!("only demo group: {g}"));
    }
    assert_differences("aggregated discovery", &found, DISCOVERY_ALLOWED);
}

/// The legacy documents: `/api`, `/apis`, and every group-version's APIResourceList.
#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn legacy_discovery_matches() {
    let pair = pair();
    let mut found = BTreeSet::new();
    let (real, demo) = pair.both_ok(&get("/api")).await;
    // The address clients are told to use is each server's own.
    let without_address = |mut v: Value| {
        v.as_object_mut()
            .map(|o| o.remove("serverAddressByClientCIDRs"));
        v
    };
    diff_values(
        "/api",
        &without_address(real),
        &without_address(demo),
        &mut found,
    );

    let (real, demo) = pair.both_ok(&get("/apis")).await;
    let groups = |doc: &Value| -> BTreeMap<String, Value> {
        doc["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|g| (g["name"].as_str().unwrap_or("").to_string(), g.clone()))
            .collect()
    };
    let (real_groups, demo_groups) = (groups(&real), groups(&demo));
    diff_entries(&real_groups, &demo_groups, &mut found);
    let mut group_versions = vec!["v1".to_string()];
    for g in real_groups.values() {
        for v in g["versions"].as_array().into_iter().flatten() {
            group_versions.extend(v["groupVersion"].as_str().map(String::from));
        }
    }
    for gv in group_versions {
        let path = if gv == "v1" {
            "/api/v1".to_string()
        } else {
            format!("/apis/{gv}")
        };
        let (real, demo) = pair.both(&get(path.as_str())).await;
        if demo.status != 200 {
            found.insert(format!("{path}: {} != {}", real.status, demo.status));
            continue;
        }
        let resources = |doc: &Value| -> BTreeMap<String, Value> {
            doc["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| {
                    let mut r = r.clone();
                    if let Some(verbs) = r["verbs"].as_array_mut() {
                        verbs.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                    }
                    (format!("{path}/{}", r["name"].as_str().unwrap_or("")), r)
                })
                .collect()
        };
        let (real, demo) = (real.json(), demo.json());
        diff_entries(&resources(&real), &resources(&demo), &mut found);
        for key in ["kind", "apiVersion", "groupVersion"] {
            diff_values(&format!("{path} {key}"), &real[key], &demo[key], &mut found);
        }
    }
    assert_differences("legacy discovery", &found, LEGACY_DISCOVERY_ALLOWED);
}

/// `/version`: the release a client sees (kubectl's version-skew warning reads it).
#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn version_matches() {
    let pair = pair();
    let (real, demo) = pair.both_ok(&get("/version")).await;
    let mut found = BTreeSet::new();
    for key in [
        "major",
        "minor",
        "emulationMajor",
        "emulationMinor",
        "minCompatibilityMajor",
        "minCompatibilityMinor",
        "compiler",
        "platform",
        "gitTreeState",
    ] {
        diff_values(key, &real[key], &demo[key], &mut found);
    }
    let release = |v: &Value| {
        v["gitVersion"]
            .as_str()
            .and_then(|s| s.split('-').next())
            .map(String::from)
    };
    assert_eq!(release(&real), release(&demo), "gitVersion's release");
    assert_differences("/version", &found, &[]);
}

// ---------------------------------------------------------------------------------------
// 2. Tables

/// Every listable resource kube-apiserver serves: (group-version path, plural).
async fn listable_resources(client: &Client) -> Vec<(String, String)> {
    let apis = send(client, &get("/apis")).await.json();
    let mut paths = vec!["/api/v1".to_string()];
    for g in apis["groups"].as_array().into_iter().flatten() {
        for v in g["versions"].as_array().into_iter().flatten() {
            paths.extend(v["groupVersion"].as_str().map(|gv| format!("/apis/{gv}")));
        }
    }
    let mut out = vec![];
    for path in paths {
        let list = send(client, &get(path.as_str())).await.json();
        for r in list["resources"].as_array().into_iter().flatten() {
            let name = r["name"].as_str().unwrap_or("");
            let listable = r["verbs"]
                .as_array()
                .is_some_and(|v| v.iter().any(|v| v == "list"));
            if listable && !name.contains('/') {
                out.push((path.clone(), name.to_string()));
            }
        }
    }
    out
}

fn columns(table: &Value) -> Vec<Value> {
    table["columnDefinitions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| json!([c["name"], c["type"], c["format"], c["priority"]]))
        .collect()
}

/// Column differences the demo is allowed: none. (Descriptions are not compared: kube-apiserver
/// takes them from the API's field documentation; the demo repeats the column's name.)
const COLUMNS_ALLOWED: &[&str] = &[];

#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn table_columns_match() {
    let pair = pair();
    let mut found = BTreeSet::new();
    for (path, resource) in listable_resources(&pair.real).await {
        let req = get(format!("{path}/{resource}?limit=1")).accept(TABLE);
        let (real, demo) = pair.both(&req).await;
        if demo.status != 200 {
            found.insert(format!(
                "{path}/{resource}: {} != {}",
                real.status, demo.status
            ));
            continue;
        }
        let (real, demo) = (columns(&real.json()), columns(&demo.json()));
        if real != demo {
            found.insert(format!(
                "{path}/{resource}: {} != {}",
                json!(real),
                json!(demo)
            ));
        }
    }
    assert_differences("Table columns", &found, COLUMNS_ALLOWED);
}

/// The Table of `path` (a collection, narrowed to one object by field selector) on both:
/// columns' names and each row's cells, ages and creation times left out, cluster IPs
/// normalised, and each row's object (PartialObjectMetadata) normalised.
async fn table_rows(pair: &Pair, path: &str, name: &str) -> (Value, Value) {
    let req = get(format!("{path}?fieldSelector=metadata.name%3D{name}")).accept(TABLE);
    let (real, demo) = pair.both_ok(&req).await;
    let rows = |table: &Value| {
        let names: Vec<String> = table["columnDefinitions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| c["name"].as_str().unwrap_or("").to_string())
            .collect();
        let rows: Vec<Value> = table["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|row| {
                let cells: serde_json::Map<String, Value> = names
                    .iter()
                    .zip(row["cells"].as_array().into_iter().flatten())
                    .filter(|(n, _)| !matches!(n.as_str(), "Age" | "Created At" | "Duration"))
                    .map(|(n, cell)| {
                        let cell = if n == "Cluster-IP" && cell != "None" {
                            json!("<cluster ip>")
                        } else {
                            cell.clone()
                        };
                        (n.clone(), cell)
                    })
                    .collect();
                let mut cells = Value::Object(cells);
                normalise(&mut cells);
                let mut object = row["object"].clone();
                // managedFields are compared on their own (managed_fields_match).
                if let Some(metadata) = object["metadata"].as_object_mut() {
                    metadata.remove("managedFields");
                }
                normalise(&mut object);
                json!({"cells": cells, "object": object})
            })
            .collect();
        json!(rows)
    };
    (rows(&real), rows(&demo))
}

/// Row differences the demo is allowed, each with its reason.
const ROWS_ALLOWED: &[&str] = &[
    // kube-apiserver's StorageObjectInUseProtection admission adds this finalizer and the
    // pvc-protection controller removes it once no pod uses the claim. The demo has no such
    // controller, so the finalizer would leave every deleted claim Terminating.
    r#"/api/v1/namespaces/diff-tables/persistentvolumeclaims/data[0].object.metadata.finalizers: ["kubernetes.io/pvc-protection"] != (absent)"#,
];

#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn table_cells_match() {
    let pair = pair();
    let ns = "diff-tables";
    pair.namespace(ns).await;
    let objects: Vec<(&str, Value)> = vec![
        (
            "/api/v1/namespaces/diff-tables/configmaps",
            json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cfg", "labels": {"app": "web"}}, "data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}}),
        ),
        (
            "/api/v1/namespaces/diff-tables/secrets",
            json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "creds"}, "type": "kubernetes.io/basic-auth", "stringData": {"username": "a", "password": "b"}}),
        ),
        (
            "/api/v1/namespaces/diff-tables/services",
            json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web"}, "spec": {"selector": {"app": "web"},
            "ports": [{"name": "http", "port": 80, "targetPort": 8080}, {"name": "dns", "port": 53, "protocol": "UDP"}]}}),
        ),
        (
            "/api/v1/namespaces/diff-tables/services",
            json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "db"}, "spec": {"clusterIP": "None", "selector": {"app": "db"}, "ports": [{"port": 5432}]}}),
        ),
        (
            "/api/v1/namespaces/diff-tables/services",
            json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "ext"}, "spec": {"type": "ExternalName", "externalName": "example.com"}}),
        ),
        (
            "/api/v1/namespaces/diff-tables/serviceaccounts",
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "builder"}, "secrets": [{"name": "builder-token"}]}),
        ),
        (
            "/api/v1/namespaces/diff-tables/pods",
            json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "one"}, "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}),
        ),
        (
            "/apis/apps/v1/namespaces/diff-tables/deployments",
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"}, "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
                {"name": "nginx", "image": "nginx:1.27"}, {"name": "sidecar", "image": "busybox"}]}}}}),
        ),
        (
            "/apis/apps/v1/namespaces/diff-tables/statefulsets",
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db"}, "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "pg", "image": "postgres:16"}]}}}}),
        ),
        (
            "/apis/apps/v1/namespaces/diff-tables/daemonsets",
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": "agent"}, "spec": {"selector": {"matchLabels": {"app": "agent"}},
            "template": {"metadata": {"labels": {"app": "agent"}}, "spec": {"nodeSelector": {"kubernetes.io/os": "linux"},
            "containers": [{"name": "agent", "image": "busybox"}]}}}}),
        ),
        (
            "/apis/batch/v1/namespaces/diff-tables/jobs",
            json!({"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "pi"}, "spec": {"completions": 2, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "pi", "image": "perl"}]}}}}),
        ),
        (
            "/apis/batch/v1/namespaces/diff-tables/cronjobs",
            json!({"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": "hello"}, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
            "restartPolicy": "OnFailure", "containers": [{"name": "hello", "image": "busybox"}]}}}}}}),
        ),
        (
            "/apis/policy/v1/namespaces/diff-tables/poddisruptionbudgets",
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "db"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}}}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/diff-tables/roles",
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "reader"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/diff-tables/rolebindings",
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "reader"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "builder", "namespace": "diff-tables"}, {"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"}]}),
        ),
        (
            "/apis/networking.k8s.io/v1/namespaces/diff-tables/ingresses",
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
            "metadata": {"name": "web"}, "spec": {"rules": [{"host": "web.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix",
            "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}}),
        ),
        (
            "/api/v1/namespaces/diff-tables/resourcequotas",
            json!({"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "quota"}, "spec": {"hard": {"pods": "10", "limits.cpu": "4"}}}),
        ),
        (
            "/api/v1/namespaces/diff-tables/persistentvolumeclaims",
            json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
        ),
        (
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "diff-high"}, "value": 1000}),
        ),
    ];
    let mut found = BTreeSet::new();
    for (path, body) in &objects {
        pair.both_ok(&post(*path, body)).await;
    }
    let mut targets: Vec<(String, String)> = objects
        .iter()
        .map(|(path, body)| {
            (
                path.to_string(),
                body["metadata"]["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    targets.push(("/api/v1/namespaces".into(), ns.into()));
    for (path, name) in targets {
        let (real, demo) = table_rows(&pair, &path, &name).await;
        diff_values(&format!("{path}/{name}"), &real, &demo, &mut found);
    }
    assert_differences("Table cells", &found, ROWS_ALLOWED);
}

// ---------------------------------------------------------------------------------------
// 3. Status errors

/// The parts of an error a client reads: HTTP code, and the Status's kind, status, code,
/// reason, message and details (name, group, kind, causes).
fn status_shape(reply: &Reply) -> Value {
    let body: Value = serde_json::from_slice(&reply.body).unwrap_or_else(|_| {
        json!({"not JSON": String::from_utf8_lossy(&reply.body).chars().take(200).collect::<String>()})
    });
    let mut shape = json!({
        "http": reply.status,
        "kind": body["kind"],
        "apiVersion": body["apiVersion"],
        "status": body["status"],
        "code": body["code"],
        "reason": body["reason"],
        "message": body["message"],
        "details": body["details"],
    });
    normalise(&mut shape);
    shape
}

/// Error differences the demo is allowed, each with its reason.
const ERRORS_ALLOWED: &[&str] = &[
    // The parsers' own words: kube-apiserver's selector lexer and Go's encoding/json name
    // the offending token their way, serde_json and the demo's selector parser theirs. Code,
    // reason and details are the same.
    r#"bad label selector.message: "unable to parse requirement: found '', expected: ',', ')' or identifier" != "unable to parse requirement: \"a in (\"""#,
    r#"malformed JSON body.message: "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string ({not json)" != "couldn't get version/kind; json parse error: key must be a string at line 1 column 2""#,
    r#"merge patch that is not JSON.message: "error decoding patch: invalid character 'n' looking for beginning of object key string" != "error decoding patch: key must be a string at line 1 column 2""#,
    // kube-apiserver answers an unknown group with its mux's plain-text "404 page not
    // found"; the demo answers the same 404 as a NotFound Status, which every client reads
    // as well (kubectl and kube-rs only look at the code).
    r#"unknown group.apiVersion: null != "v1""#,
    r#"unknown group.code: null != 404"#,
    r#"unknown group.details: null != {}"#,
    r#"unknown group.kind: null != "Status""#,
    r#"unknown group.message: null != "the server could not find the requested resource""#,
    r#"unknown group.reason: null != "NotFound""#,
    r#"unknown group.status: null != "Failure""#,
];

#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn status_errors_match() {
    let pair = pair();
    pair.namespace("diff-errors").await;
    let cms = "/api/v1/namespaces/diff-errors/configmaps";
    let cm = |name: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}});
    let (real, demo) = pair.both_ok(&post(cms, &cm("exists"))).await;
    let stale = |created: &Value| {
        let mut stale = created.clone();
        stale["data"]["k"] = json!("stale");
        stale
    };
    // A write moves both objects on, so their creation versions are stale.
    let update = with_body(
        "PUT",
        format!("{cms}/exists"),
        "application/json",
        cm("exists").to_string().into_bytes(),
    );
    pair.both_ok(&update).await;
    let stale_put = |created: &Value| {
        with_body(
            "PUT",
            format!("{cms}/exists"),
            "application/json",
            stale(created).to_string().into_bytes(),
        )
    };
    let mut found = BTreeSet::new();
    let mut compare = |what: &str, real: &Reply, demo: &Reply| {
        diff_values(what, &status_shape(real), &status_shape(demo), &mut found);
    };
    let (r, d) = (
        send(&pair.real, &stale_put(&real)).await,
        send(&pair.demo, &stale_put(&demo)).await,
    );
    compare("PUT with a stale resourceVersion", &r, &d);

    let big = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"big"}},"data":{{"k":"{}"}}}}"#,
        "x".repeat(3 * 1024 * 1024 + 10)
    );
    let patch = |content_type: &str, body: &str| {
        with_body(
            "PATCH",
            format!("{cms}/exists"),
            content_type,
            body.as_bytes().to_vec(),
        )
    };
    let corpus: Vec<(&str, Req)> = vec![
        ("get a missing object", get(format!("{cms}/missing"))),
        (
            "delete a missing object",
            Req {
                method: "DELETE",
                ..get(format!("{cms}/missing"))
            },
        ),
        ("create a duplicate", post(cms, &cm("exists"))),
        ("create with an invalid name", post(cms, &cm("Bad_Name"))),
        (
            "create without a name",
            post(
                cms,
                &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}),
            ),
        ),
        (
            "create in a missing namespace",
            post("/api/v1/namespaces/nowhere/configmaps", &cm("x")),
        ),
        (
            "create with a resourceVersion",
            post(
                cms,
                &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "rv", "resourceVersion": "5"}}),
            ),
        ),
        (
            "create with a namespace not the path's",
            post(
                cms,
                &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other", "namespace": "default"}}),
            ),
        ),
        (
            "malformed JSON body",
            with_body("POST", cms, "application/json", b"{not json".to_vec()),
        ),
        (
            "wrong kind in body",
            post(
                cms,
                &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}),
            ),
        ),
        (
            "wrong apiVersion in body",
            post(
                cms,
                &json!({"apiVersion": "apps/v1", "kind": "ConfigMap", "metadata": {"name": "s"}}),
            ),
        ),
        (
            "PUT with a name not the path's",
            with_body(
                "PUT",
                format!("{cms}/exists"),
                "application/json",
                cm("other").to_string().into_bytes(),
            ),
        ),
        (
            "bad label selector",
            get(format!("{cms}?labelSelector=a%20in%20(")),
        ),
        (
            "bad field selector",
            get(format!("{cms}?fieldSelector=spec.nothing%3Dx")),
        ),
        ("limit=abc", get(format!("{cms}?limit=abc"))),
        (
            "unknown resource",
            get("/api/v1/namespaces/diff-errors/widgets"),
        ),
        ("unknown group", get("/apis/nope.example.com/v1/things")),
        ("unknown version", get("/apis/apps/v9/deployments")),
        (
            "PATCH with a wrong Content-Type",
            patch("text/plain", r#"{"data":{"k":"w"}}"#),
        ),
        (
            "merge patch that is not JSON",
            patch("application/merge-patch+json", "{nope"),
        ),
        (
            "JSON patch testing a wrong value",
            patch(
                "application/json-patch+json",
                r#"[{"op":"test","path":"/data/k","value":"no"}]"#,
            ),
        ),
        (
            "apply without a field manager",
            patch(
                "application/apply-patch+yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: exists\n",
            ),
        ),
        (
            "a verb the resource lacks",
            post(
                "/api/v1/componentstatuses",
                &json!({"apiVersion": "v1", "kind": "ComponentStatus", "metadata": {"name": "x"}}),
            ),
        ),
        (
            "a body over 3 MiB",
            with_body("POST", cms, "application/json", big.into_bytes()),
        ),
    ];
    for (what, req) in &corpus {
        let (real, demo) = pair.both(req).await;
        compare(what, &real, &demo);
    }
    assert_differences("Status errors", &found, ERRORS_ALLOWED);
}

/// A DELETE's options come from its body when it has one, and from the query only when it
/// has none: `?dryRun=All` beside a body deletes for real on both; `dryRun` in the body does
/// not.
#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn a_delete_reads_its_options_from_the_body_before_the_query() {
    let pair = pair();
    pair.namespace("diff-delete").await;
    let cms = "/api/v1/namespaces/diff-delete/configmaps";
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kept"}});
    pair.both_ok(&post(cms, &cm)).await;
    let delete = |body: Value| {
        with_body(
            "DELETE",
            format!("{cms}/kept?dryRun=All"),
            "application/json",
            body.to_string().into_bytes(),
        )
    };
    let exists = get(format!("{cms}/kept"));
    pair.both_ok(&delete(
        json!({"kind": "DeleteOptions", "apiVersion": "v1", "dryRun": ["All"]}),
    ))
    .await;
    pair.both_ok(&exists).await;
    pair.both_ok(&delete(
        json!({"kind": "DeleteOptions", "apiVersion": "v1"}),
    ))
    .await;
    let (real, demo) = pair.both(&exists).await;
    assert_eq!(
        (real.status, demo.status),
        (404, 404),
        "the query's dryRun is not heeded beside a body"
    );
}

// ---------------------------------------------------------------------------------------
// 4. Watch

/// The events of a watch up to and including the first BOOKMARK (at most 20 s).
async fn events_until_bookmark(client: &Client, path: &str) -> Vec<Value> {
    let request = http::Request::builder()
        .uri(path)
        .header("user-agent", "atlas-differential/1.0")
        .body(kube::client::Body::from(Vec::new()))
        .expect("request");
    let response = client.send(request).await.expect("watch answered");
    assert_eq!(response.status(), 200, "{path}");
    let mut body = response.into_body();
    let mut buffer = Vec::new();
    let mut events = vec![];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let event: Value = serde_json::from_slice(&line).expect("a watch event is JSON");
            let bookmark = event["type"] == "BOOKMARK";
            events.push(event);
            if bookmark {
                return events;
            }
        }
        let frame = tokio::time::timeout_at(deadline, body.frame())
            .await
            .unwrap_or_else(|_| panic!("{path}: no BOOKMARK within 20 s: {events:?}"));
        match frame {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    buffer.extend_from_slice(&data);
                }
            }
            _ => panic!("{path}: the watch ended before a BOOKMARK: {events:?}"),
        }
    }
}

#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn streaming_list_watch_matches() {
    let pair = pair();
    pair.namespace("diff-watch").await;
    let cms = "/api/v1/namespaces/diff-watch/configmaps";
    for name in ["b", "a", "c"] {
        pair.both_ok(&post(
            cms,
            &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"x": "y"}}, "data": {"k": name}}),
        ))
        .await;
    }
    let path = format!(
        "{cms}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
    );
    let shape = |events: Vec<Value>| {
        let mut events: Vec<Value> = events
            .into_iter()
            .map(|mut e| {
                if let Some(metadata) = e["object"]["metadata"].as_object_mut() {
                    metadata.remove("managedFields");
                }
                e
            })
            .collect();
        // The initial events' order is not promised (kube-apiserver's follows its cache).
        let bookmark = events.pop();
        events.sort_by_key(|e| e["object"]["metadata"]["name"].as_str().map(String::from));
        events.extend(bookmark);
        let mut events = json!(events);
        normalise(&mut events);
        events
    };
    let real = shape(events_until_bookmark(&pair.real, &path).await);
    let demo = shape(events_until_bookmark(&pair.demo, &path).await);
    let mut found = BTreeSet::new();
    diff_values("watch-list", &real, &demo, &mut found);
    assert_eq!(
        real.as_array()
            .and_then(|e| e.last())
            .map(|b| b["object"]["metadata"]["annotations"].clone()),
        Some(json!({"k8s.io/initial-events-end": "true"})),
        "the real server ends the initial events with the annotated bookmark"
    );
    assert_differences("streaming list", &found, &[]);
}

// ---------------------------------------------------------------------------------------
// 5. kubectl's imperative commands

/// The real `kubectl` for one server: its own home, kubeconfig and discovery cache.
fn kubectl_for(server: &str) -> common::Kubectl {
    common::Kubectl {
        server: server.to_string(),
        home: tempfile::tempdir().expect("a temporary home"),
    }
}

fn servers() -> &'static Servers {
    SERVERS
        .get_or_init(start_servers)
        .as_ref()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A self-signed certificate and key for `kubectl create secret tls`, made once and given
/// to both servers (the stored Secret carries the files' bytes).
fn tls_pair(dir: &std::path::Path) -> (String, String) {
    let cert = dir.join("tls.crt");
    let key = dir.join("tls.key");
    let made = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
        ])
        .arg("/CN=web.example.com")
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl runs");
    assert!(made.status.success(), "openssl: {made:?}");
    (cert.display().to_string(), key.display().to_string())
}

/// The Node the node commands work on (kubectl users get nodes from kubelets; no kubelet
/// runs on the real side, so the test writes the object).
const DIFF_NODE: &str = r#"{"apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "diff-node", "labels": {"kubernetes.io/hostname": "diff-node"}}}"#;

/// What a command's outcome on the two sides may differ in, each with its reason.
const KUBECTL_OUTCOMES_ALLOWED: &[&str] = &[];

/// Stored-object differences after the commands, each with its reason.
const KUBECTL_OBJECTS_ALLOWED: &[&str] = &[];

/// The imperative commands, as kubectl users type them, with what was sent compared by
/// what each server then stores (and kubectl's exit status and words).
#[test]
#[cfg_attr(
    not(all(have_control_plane, have_kubectl)),
    ignore = "needs the control-plane binaries and kubectl"
)]
fn kubectl_imperative_commands_match() {
    let servers = servers();
    let real = kubectl_for(&servers.real);
    let demo = kubectl_for(&servers.demo);
    let ns = "diff-kubectl";
    let (cert, key) = tls_pair(real.home.path());
    let node = real.manifest("node.json", DIFF_NODE);
    let commands: Vec<Vec<String>> = [
        vec!["create", "namespace", ns],
        vec!["create", "-n", ns, "serviceaccount", "default"],
        vec!["create", "-n", ns, "serviceaccount", "builder"],
        vec![
            "create",
            "-n",
            ns,
            "configmap",
            "cfg",
            "--from-literal=a=1",
            "--from-literal=b=2",
        ],
        vec![
            "create",
            "-n",
            ns,
            "secret",
            "generic",
            "creds",
            "--from-literal=user=admin",
            "--type=Opaque",
        ],
        vec![
            "create",
            "-n",
            ns,
            "secret",
            "tls",
            "tls",
            &format!("--cert={cert}"),
            &format!("--key={key}"),
        ],
        vec![
            "create",
            "-n",
            ns,
            "secret",
            "docker-registry",
            "reg",
            "--docker-server=registry.example.com",
            "--docker-username=u",
            "--docker-password=p",
            "--docker-email=u@example.com",
        ],
        vec![
            "create",
            "-n",
            ns,
            "deployment",
            "web",
            "--image=nginx:1.27",
            "--replicas=2",
            "--port=8080",
        ],
        vec![
            "create",
            "-n",
            ns,
            "job",
            "pi",
            "--image=perl",
            "--",
            "perl",
            "-e",
            "1",
        ],
        vec![
            "create",
            "-n",
            ns,
            "cronjob",
            "hello",
            "--image=busybox",
            "--schedule=*/5 * * * *",
            "--",
            "date",
        ],
        vec![
            "create",
            "-n",
            ns,
            "job",
            "hello-now",
            "--from=cronjob/hello",
        ],
        vec![
            "create",
            "-n",
            ns,
            "quota",
            "quota",
            "--hard=pods=10,cpu=4",
            "--scopes=NotTerminating",
        ],
        vec![
            "create",
            "-n",
            ns,
            "role",
            "reader",
            "--verb=get,list",
            "--resource=pods,deployments.apps",
        ],
        vec![
            "create",
            "-n",
            ns,
            "rolebinding",
            "reader",
            "--role=reader",
            "--user=jane",
            &format!("--serviceaccount={ns}:builder"),
        ],
        vec![
            "create",
            "clusterrole",
            "diff-kubectl-nodes",
            "--verb=get",
            "--resource=nodes",
        ],
        vec![
            "create",
            "clusterrolebinding",
            "diff-kubectl-nodes",
            "--clusterrole=diff-kubectl-nodes",
            "--group=ops",
        ],
        vec![
            "create",
            "-n",
            ns,
            "service",
            "clusterip",
            "svc-c",
            "--tcp=80:8080",
        ],
        vec![
            "create",
            "-n",
            ns,
            "service",
            "clusterip",
            "svc-h",
            "--clusterip=None",
        ],
        vec![
            "create",
            "-n",
            ns,
            "service",
            "nodeport",
            "svc-n",
            "--tcp=80:8080",
            "--node-port=31080",
        ],
        vec![
            "create",
            "-n",
            ns,
            "service",
            "loadbalancer",
            "svc-lb",
            "--tcp=443:8443",
        ],
        vec![
            "create",
            "-n",
            ns,
            "service",
            "externalname",
            "svc-e",
            "--external-name=example.com",
        ],
        vec![
            "create",
            "priorityclass",
            "diff-kubectl-high",
            "--value=1000",
            "--description=high",
        ],
        vec![
            "create",
            "-n",
            ns,
            "poddisruptionbudget",
            "pdb",
            "--selector=app=web",
            "--min-available=1",
        ],
        vec![
            "create",
            "-n",
            ns,
            "ingress",
            "ing",
            "--rule=web.example.com/=svc-c:80",
            "--class=nginx",
        ],
        vec!["create", "-n", ns, "token", "builder", "--duration=10m"],
        vec![
            "run",
            "-n",
            ns,
            "pod1",
            "--image=nginx",
            "--labels=app=p",
            "--port=80",
        ],
        vec![
            "expose",
            "-n",
            ns,
            "deployment",
            "web",
            "--port=80",
            "--target-port=8080",
            "--name=web",
        ],
        vec![
            "expose",
            "-n",
            ns,
            "pod",
            "pod1",
            "--port=80",
            "--name=pod1",
        ],
        vec![
            "autoscale",
            "-n",
            ns,
            "deployment",
            "web",
            "--min=2",
            "--max=5",
            "--cpu-percent=80",
        ],
        vec![
            "set",
            "image",
            "-n",
            ns,
            "deployment/web",
            "nginx=nginx:1.28",
        ],
        vec!["set", "env", "-n", ns, "deployment/web", "MODE=prod"],
        vec![
            "set",
            "resources",
            "-n",
            ns,
            "deployment/web",
            "--limits=cpu=200m,memory=512Mi",
            "--requests=cpu=100m",
        ],
        vec!["set", "selector", "-n", ns, "service/web", "app=web2"],
        vec![
            "set",
            "serviceaccount",
            "-n",
            ns,
            "deployment/web",
            "builder",
        ],
        vec!["label", "-n", ns, "deployment", "web", "tier=front"],
        vec!["label", "-n", ns, "pod", "pod1", "app=q", "--overwrite"],
        vec!["label", "-n", ns, "pod", "pod1", "app=r"],
        vec!["annotate", "-n", ns, "deployment", "web", "note=hi"],
        vec![
            "annotate",
            "-n",
            ns,
            "configmap",
            "cfg",
            "note=hi",
            "gone=yes",
        ],
        vec!["annotate", "-n", ns, "configmap", "cfg", "gone-"],
        vec!["create", "-f", &node],
        vec!["taint", "nodes", "diff-node", "dedicated=db:NoSchedule"],
        vec!["taint", "nodes", "diff-node", "spare:PreferNoSchedule"],
        vec!["taint", "nodes", "diff-node", "spare:PreferNoSchedule-"],
        vec!["cordon", "diff-node"],
        vec!["uncordon", "diff-node"],
        vec![
            "drain",
            "diff-node",
            "--ignore-daemonsets",
            "--force",
            "--timeout=30s",
        ],
        vec![
            "rollout",
            "status",
            "-n",
            ns,
            "deployment/web",
            "--watch=false",
        ],
        vec!["rollout", "history", "-n", ns, "deployment/web"],
        vec!["rollout", "pause", "-n", ns, "deployment/web"],
        vec!["rollout", "resume", "-n", ns, "deployment/web"],
        vec!["rollout", "restart", "-n", ns, "deployment/web"],
        vec!["rollout", "undo", "-n", ns, "deployment/web"],
        vec!["scale", "-n", ns, "deployment", "web", "--replicas=3"],
        vec![
            "scale",
            "-n",
            ns,
            "deployment",
            "web",
            "--current-replicas=2",
            "--replicas=1",
        ],
        vec![
            "scale",
            "-n",
            ns,
            "deployment",
            "web",
            "--current-replicas=3",
            "--replicas=1",
        ],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(String::from).collect())
    .collect();
    let mut found = BTreeSet::new();
    for args in &commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (real_ok, real_out, real_err) = real.run(&args, None);
        let (demo_ok, demo_out, demo_err) = demo.run(&args, None);
        let what = args.join(" ");
        if real_ok != demo_ok {
            found.insert(format!(
                "{what}: exit ok {real_ok} != {demo_ok} ({real_err} | {demo_err})"
            ));
        }
        // A token is signed by each server's own key.
        let token = args.len() > 3 && args[3] == "token";
        if !token && real_out != demo_out {
            found.insert(format!("{what}: stdout {real_out:?} != {demo_out:?}"));
        }
        if real_err != demo_err {
            found.insert(format!("{what}: stderr {real_err:?} != {demo_err:?}"));
        }
    }
    assert_differences("kubectl commands", &found, KUBECTL_OUTCOMES_ALLOWED);

    // What each server stored.
    let stored = |kubectl: &common::Kubectl| {
        let mut objects = BTreeMap::new();
        for args in [
            vec!["get", "-n", ns, "-o", "json",
                "configmaps,secrets,serviceaccounts,services,pods,deployments,jobs,cronjobs,resourcequotas,roles,rolebindings,poddisruptionbudgets,ingresses,horizontalpodautoscalers"],
            vec!["get", "-o", "json", "nodes/diff-node", "clusterroles/diff-kubectl-nodes",
                "clusterrolebindings/diff-kubectl-nodes", "priorityclasses/diff-kubectl-high", &format!("namespaces/{ns}")],
        ] {
            let list: Value = serde_json::from_str(&kubectl.ok(&args)).expect("kubectl prints JSON");
            for mut item in list["items"].as_array().cloned().unwrap_or_default() {
                if let Some(metadata) = item["metadata"].as_object_mut() {
                    metadata.remove("managedFields");
                    // The restart time is each run's own.
                    if let Some(at) = metadata.get_mut("annotations").and_then(|a| a.get_mut("kubectl.kubernetes.io/restartedAt")) {
                        *at = json!("<time>");
                    }
                }
                for path in ["/spec/template/metadata/annotations/kubectl.kubernetes.io~1restartedAt"] {
                    if let Some(at) = item.pointer_mut(path) {
                        *at = json!("<time>");
                    }
                }
                generated_token_volume(&mut item);
                // A LoadBalancer's node port is allocated at random.
                for port in item.pointer_mut("/spec/ports").and_then(Value::as_array_mut).into_iter().flatten() {
                    if item_is_random_node_port(port) {
                        port["nodePort"] = json!("<node port>");
                    }
                }
                normalise(&mut item);
                let key = format!(
                    "{}/{}",
                    item["kind"].as_str().unwrap_or(""),
                    item["metadata"]["name"].as_str().unwrap_or("")
                );
                objects.insert(key, item);
            }
        }
        objects
    };
    let (real_objects, demo_objects) = (stored(&real), stored(&demo));
    let mut found = BTreeSet::new();
    diff_entries(&real_objects, &demo_objects, &mut found);
    assert_differences("objects kubectl made", &found, KUBECTL_OBJECTS_ALLOWED);
}

/// The ServiceAccount admission's `kube-api-access-<5 random characters>` volume, named
/// `kube-api-access-<generated>` in the pod's volumes and mounts.
fn generated_token_volume(item: &mut Value) {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => map.values_mut().for_each(walk),
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::String(s) if s.starts_with("kube-api-access-") && s.len() == 21 => {
                *s = "kube-api-access-<generated>".into();
            }
            _ => {}
        }
    }
    walk(item);
}

/// A node port the command did not choose (only `svc-n` names its own, 31080).
fn item_is_random_node_port(port: &Value) -> bool {
    port.get("nodePort").is_some_and(|p| p != 31080)
}

// ---------------------------------------------------------------------------------------
// 6. 410 Gone for a resourceVersion too old

/// The first line a watch sends (at most 20 s): the event, as JSON.
async fn first_watch_event(client: &Client, path: &str) -> (u16, Value) {
    let request = http::Request::builder()
        .uri(path)
        .header("user-agent", "atlas-differential/1.0")
        .body(kube::client::Body::from(Vec::new()))
        .expect("request");
    let response = client.send(request).await.expect("watch answered");
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut buffer = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            return (
                status,
                serde_json::from_slice(&line).expect("a watch event is JSON"),
            );
        }
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    buffer.extend_from_slice(&data);
                }
            }
            Ok(_) if !buffer.is_empty() => {
                return (
                    status,
                    serde_json::from_slice(&buffer).unwrap_or(Value::Null),
                );
            }
            _ => panic!("{path}: no event within 20 s"),
        }
    }
}

/// `s` with every run of digits replaced by `N` (resourceVersions in messages).
fn without_numbers(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        if ch.is_ascii_digit() {
            if !out.ends_with('N') {
                out.push('N');
            }
        } else {
            out.push(ch);
        }
    }
    out
}

/// The parts of a 410 a client reads, messages without their resourceVersions.
fn expired_shape(http: u16, status: &Value) -> Value {
    json!({
        "http": http,
        "kind": status["kind"],
        "apiVersion": status["apiVersion"],
        "status": status["status"],
        "code": status["code"],
        "reason": status["reason"],
        "message": status["message"].as_str().map(without_numbers),
        "details": status["details"],
        "continue": status["metadata"]["continue"].as_str().map(|_| "<continue>"),
    })
}

/// 410 differences the demo is allowed, each with its reason.
const EXPIRED_ALLOWED: &[&str] = &[];

/// A control plane of its own whose kube-apiserver was restarted after a ConfigMap was
/// written (and a few more writes, so that the rebuilt watch cache starts past it), behind a
/// `kubectl proxy`; with the ConfigMap's resourceVersion.
fn restarted_control_plane(
) -> Result<(envtest::ControlPlane, envtest::KubectlProxy, String), String> {
    let mut plane = envtest::ControlPlane::start(envtest::Options {
        controllers: false,
        nodes: 0,
    })?;
    let rv = plane.kubectl_ok(&[
        "create",
        "configmap",
        "before",
        "-o",
        "jsonpath={.metadata.resourceVersion}",
    ])?;
    for name in ["after-1", "after-2", "after-3"] {
        plane.kubectl_ok(&["create", "configmap", name])?;
    }
    plane.stop_api_server();
    plane.start_api_server()?;
    let proxy = envtest::KubectlProxy::start(&plane.admin_kubeconfig(), None, plane.dir())?;
    Ok((plane, proxy, rv.trim().to_string()))
}

/// A watch and lists from a resourceVersion the server no longer has: kube-apiserver after
/// etcd is compacted past it, the demo after its watch history (50 events, tuned down from
/// 10,000 for the test) moved past it.
#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn too_old_resource_versions_are_gone() {
    let servers = servers();
    let real = client_for(&servers.real);
    let demo_cluster = demo_cluster::start_with_tuning(
        Config {
            listen: "127.0.0.1:0".parse().expect("loopback address"),
            empty: true,
            controllers: false,
            ..Config::default()
        },
        demo_cluster::Tuning {
            watch_cache_capacity: 50,
            ..demo_cluster::Tuning::default()
        },
    )
    .await
    .expect("a demo cluster with a short watch history");
    let demo = client_for(&demo_cluster.url());
    let ns = "diff-gone";
    // Events: kube-apiserver keeps no watch cache for them, so their reads go to etcd and see
    // its compaction (a cached kind's window lives in the apiserver's memory instead).
    let cms = format!("/api/v1/namespaces/{ns}/events");
    let mut found = BTreeSet::new();
    let mut old = vec![];
    let mut configmap_rvs = vec![];
    for client in [&real, &demo] {
        let created = send(
            client,
            &post(
                "/api/v1/namespaces",
                &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
            ),
        )
        .await;
        assert_eq!(
            created.status,
            201,
            "{}",
            String::from_utf8_lossy(&created.body)
        );
        // A ConfigMap (a cached kind) written before the history moves on.
        let early = send(
            client,
            &post(
                format!("/api/v1/namespaces/{ns}/configmaps"),
                &json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "early"}}),
            ),
        )
        .await;
        configmap_rvs.push(
            early.json()["metadata"]["resourceVersion"]
                .as_str()
                .unwrap_or("")
                .to_string(),
        );
        let mut first_rv = String::new();
        for name in ["a", "b", "c"] {
            let reply = send(
                client,
                &post(
                    &cms,
                    &json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
                    "involvedObject": {"kind": "Pod", "name": "x", "namespace": ns},
                    "reason": "Tested", "message": "0", "type": "Normal"}),
                ),
            )
            .await;
            if first_rv.is_empty() {
                first_rv = reply.json()["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
            }
        }
        let page = send(client, &get(format!("{cms}?limit=1"))).await.json();
        let token = page["metadata"]["continue"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(!token.is_empty(), "a continue token: {page}");
        // Enough writes to move the demo's 50-event history past the first version.
        let mut last_rv = String::new();
        for n in 1..=60 {
            let reply = send(
                client,
                &with_body(
                    "PATCH",
                    format!("{cms}/a"),
                    "application/merge-patch+json",
                    json!({"message": n.to_string()}).to_string().into_bytes(),
                ),
            )
            .await;
            last_rv = reply.json()["metadata"]["resourceVersion"]
                .as_str()
                .unwrap_or("")
                .to_string();
        }
        old.push((first_rv, token, last_rv));
    }
    // Compact the real side's etcd up to its last write.
    let etcd = client_for(&servers.etcd);
    let compacted = send(
        &etcd,
        &post(
            "/v3/kv/compaction",
            &json!({"revision": old[0].2, "physical": true}),
        ),
    )
    .await;
    assert_eq!(
        compacted.status,
        200,
        "etcd compaction: {}",
        String::from_utf8_lossy(&compacted.body)
    );

    let shapes = |client: Client, rv: String, token: String, cms: String| async move {
        let (http, event) =
            first_watch_event(&client, &format!("{cms}?watch=true&resourceVersion={rv}")).await;
        let watch = json!({"type": event["type"], "object": expired_shape(http, &event["object"])});
        let exact = send(
            &client,
            &get(format!(
                "{cms}?resourceVersion={rv}&resourceVersionMatch=Exact"
            )),
        )
        .await;
        let exact = expired_shape(exact.status, &exact.json());
        let cont = send(&client, &get(format!("{cms}?limit=1&continue={token}"))).await;
        let fresh = cont.json()["metadata"]["continue"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let cont = expired_shape(cont.status, &cont.json());
        // The 410's fresh token goes on from the current state after the last item sent.
        let resumed = send(&client, &get(format!("{cms}?continue={fresh}"))).await;
        let names: Vec<Value> = resumed.json()["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| i["metadata"]["name"].clone())
            .collect();
        json!({"watch": watch, "list Exact": exact, "list continue": cont,
            "fresh continue": {"http": resumed.status, "names": names}})
    };
    let real_shape = shapes(
        real.clone(),
        old[0].0.clone(),
        old[0].1.clone(),
        cms.clone(),
    )
    .await;
    let demo_shape = shapes(
        demo.clone(),
        old[1].0.clone(),
        old[1].1.clone(),
        cms.clone(),
    )
    .await;
    diff_values("too old", &real_shape, &demo_shape, &mut found);

    // A cached kind (ConfigMaps): kube-apiserver's window is its watch cache's, rebuilt at
    // its start from the then-current version, so a watch from before a restart expires in
    // the cache's words. A control plane of its own is restarted for it (the shared one
    // serves the other tests); the demo's ConfigMap version left its 50-event history.
    let (_restarted_plane, restarted_proxy, before_restart) =
        tokio::task::spawn_blocking(restarted_control_plane)
            .await
            .expect("the restart task")
            .unwrap_or_else(|e| panic!("a restarted control plane: {e}"));
    let cached_watch = |client: Client, rv: String, namespace: &'static str| async move {
        let (http, event) = first_watch_event(
            &client,
            &format!("/api/v1/namespaces/{namespace}/configmaps?watch=true&resourceVersion={rv}"),
        )
        .await;
        json!({"type": event["type"], "object": expired_shape(http, &event["object"])})
    };
    let real_cached = cached_watch(
        client_for(&restarted_proxy.url()),
        before_restart,
        "default",
    )
    .await;
    let demo_cached = cached_watch(demo.clone(), configmap_rvs[1].clone(), ns).await;
    diff_values(
        "too old cached kind",
        &real_cached,
        &demo_cached,
        &mut found,
    );
    assert_eq!(
        real_cached["object"]["code"], 410,
        "the real cached watch expired: {real_cached}"
    );
    assert_eq!(
        real_shape["watch"]["object"]["code"], 410,
        "the real watch expired: {real_shape}"
    );
    assert_differences("410 Gone", &found, EXPIRED_ALLOWED);
}

// ---------------------------------------------------------------------------------------
// 7. Defaults stored on create

/// Stored-object differences after a minimal create, each with its reason.
const DEFAULTS_ALLOWED: &[&str] = &[
    // No pvc-protection controller in the demo to lift it (see ROWS_ALLOWED).
    r#"v1 PersistentVolumeClaim.metadata.finalizers: ["kubernetes.io/pvc-protection"] != (absent)"#,
];

/// A minimal object of each built-in workload-ish kind, created on both: the whole stored
/// object compared (managedFields aside, compared on their own).
#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn defaults_stored_on_create_match() {
    let pair = pair();
    let ns = "diff-defaults";
    pair.namespace(ns).await;
    let template = json!({"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}});
    let selector = json!({"matchLabels": {"app": "a"}});
    let objects: Vec<(String, Value)> = vec![
        (
            "/api/v1/namespaces/diff-defaults/pods".into(),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": template["spec"]}),
        ),
        (
            "/apis/apps/v1/namespaces/diff-defaults/deployments".into(),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"selector": selector, "template": template}}),
        ),
        (
            "/apis/apps/v1/namespaces/diff-defaults/replicasets".into(),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs"}, "spec": {"selector": selector, "template": template}}),
        ),
        (
            "/apis/apps/v1/namespaces/diff-defaults/statefulsets".into(),
            json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s"}, "spec": {"selector": selector, "template": template}}),
        ),
        (
            "/apis/apps/v1/namespaces/diff-defaults/daemonsets".into(),
            json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "ds"}, "spec": {"selector": selector, "template": template}}),
        ),
        (
            "/apis/batch/v1/namespaces/diff-defaults/jobs".into(),
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}),
        ),
        (
            "/apis/batch/v1/namespaces/diff-defaults/cronjobs".into(),
            json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj"}, "spec": {"schedule": "@hourly",
                "jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}}}),
        ),
        (
            "/api/v1/namespaces/diff-defaults/services".into(),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"}, "spec": {"ports": [{"port": 80}]}}),
        ),
        (
            "/api/v1/namespaces/diff-defaults/configmaps".into(),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}),
        ),
        (
            "/api/v1/namespaces/diff-defaults/secrets".into(),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sec"}}),
        ),
        (
            "/api/v1/namespaces/diff-defaults/serviceaccounts".into(),
            json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}}),
        ),
        (
            "/api/v1/namespaces/diff-defaults/persistentvolumeclaims".into(),
            json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "pvc"}, "spec": {
                "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}),
        ),
        (
            "/apis/networking.k8s.io/v1/namespaces/diff-defaults/ingresses".into(),
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "ing"}, "spec": {
                "defaultBackend": {"service": {"name": "svc", "port": {"number": 80}}}}}),
        ),
        (
            "/apis/networking.k8s.io/v1/namespaces/diff-defaults/networkpolicies".into(),
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": "np"}, "spec": {"podSelector": {}}}),
        ),
        (
            "/apis/autoscaling/v2/namespaces/diff-defaults/horizontalpodautoscalers".into(),
            json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "hpa"}, "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3}}),
        ),
        (
            "/apis/autoscaling/v1/namespaces/diff-defaults/horizontalpodautoscalers".into(),
            json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "hpa-v1"}, "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}, "maxReplicas": 3}}),
        ),
        (
            "/apis/policy/v1/namespaces/diff-defaults/poddisruptionbudgets".into(),
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb"}, "spec": {"maxUnavailable": 1}}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/diff-defaults/roles".into(),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"}}),
        ),
        (
            "/apis/rbac.authorization.k8s.io/v1/namespaces/diff-defaults/rolebindings".into(),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}}),
        ),
    ];
    let mut found = BTreeSet::new();
    for (path, body) in &objects {
        let (created_real, created_demo) = pair.both_ok(&post(path.as_str(), body)).await;
        let name = body["metadata"]["name"].as_str().unwrap_or("");
        // As stored: read back (the create's answer is the same object).
        let (mut real, mut demo) = pair.both_ok(&get(format!("{path}/{name}"))).await;
        for (created, read) in [(created_real, &real), (created_demo, &demo)] {
            assert_eq!(
                created["metadata"]["annotations"], read["metadata"]["annotations"],
                "{path}/{name}: annotations as created and as read"
            );
        }
        for object in [&mut real, &mut demo] {
            if let Some(metadata) = object["metadata"].as_object_mut() {
                metadata.remove("managedFields");
            }
            generated_token_volume(object);
            normalise(object);
        }
        let what = format!(
            "{} {}",
            body["apiVersion"].as_str().unwrap_or(""),
            body["kind"].as_str().unwrap_or("")
        );
        diff_values(&what, &real, &demo, &mut found);
    }
    assert_differences("defaults stored on create", &found, DEFAULTS_ALLOWED);
}

// ---------------------------------------------------------------------------------------
// 8. managedFields

/// managedFields differences the demo is allowed, each with its reason: the demo's field
/// sets are computed without kube-apiserver's structured-merge schema.
const MANAGED_FIELDS_ALLOWED: &[&str] = &[];

/// The same server-side applies and updates by two managers on a ConfigMap and a
/// Deployment; each entry's manager, operation, apiVersion, fieldsType, fieldsV1 and
/// subresource compared (times aside).
#[tokio::test]
#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup`"
)]
async fn managed_fields_match() {
    let pair = pair();
    let ns = "diff-managed";
    pair.namespace(ns).await;
    let apply = |path: String, manager: &str, body: &Value| {
        with_body(
            "PATCH",
            format!("{path}?fieldManager={manager}&force=true"),
            "application/apply-patch+yaml",
            body.to_string().into_bytes(),
        )
    };
    let merge = |path: String, manager: &str, body: &Value| {
        with_body(
            "PATCH",
            format!("{path}?fieldManager={manager}"),
            "application/merge-patch+json",
            body.to_string().into_bytes(),
        )
    };
    let cm = format!("/api/v1/namespaces/{ns}/configmaps/cfg");
    let deploy = format!("/apis/apps/v1/namespaces/{ns}/deployments/web");
    let cm_body = |value: &str| {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cfg", "labels": {"app": "web"}}, "data": {"a": value, "b": "1"}})
    };
    let deploy_body = |image: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web"}, "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [
            {"name": "web", "image": image, "ports": [{"containerPort": 80}]}]}}}})
    };
    let steps: Vec<Req> = vec![
        apply(cm.clone(), "alice", &cm_body("1")),
        merge(
            cm.clone(),
            "bob",
            &json!({"data": {"c": "2"}, "metadata": {"annotations": {"note": "x"}}}),
        ),
        apply(cm.clone(), "alice", &cm_body("3")),
        merge(cm.clone(), "bob", &json!({"data": {"b": "4"}})),
        apply(deploy.clone(), "alice", &deploy_body("nginx:1.26")),
        merge(
            deploy.clone(),
            "bob",
            &json!({"spec": {"replicas": 3}, "metadata": {"labels": {"tier": "front"}}}),
        ),
        apply(deploy.clone(), "alice", &deploy_body("nginx:1.27")),
    ];
    // Creates (an Update from nothing: every map and keyed list it makes is owned with its
    // `.`, except what Go's zero value of the kind already has), then writes that add items
    // to existing lists and maps inside existing structs, and an apply of multi-key list-map
    // items (Service ports keyed by port and protocol, the defaulted TCP included).
    let created_cm = format!("/api/v1/namespaces/{ns}/configmaps/created");
    let made = format!("/apis/apps/v1/namespaces/{ns}/deployments/made");
    let svc = format!("/api/v1/namespaces/{ns}/services/dns");
    let made_body = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "made"},
        "spec": {"selector": {"matchLabels": {"app": "m"}}, "template": {"metadata": {"labels": {"app": "m"}},
        "spec": {"nodeSelector": {"disk": "ssd"}, "tolerations": [{"key": "k", "operator": "Exists"}],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "m"}}}],
            "volumes": [{"name": "cache", "emptyDir": {}}],
            "containers": [{"name": "m", "image": "nginx:1.27",
                "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
                "env": [{"name": "E", "value": "1"}], "resources": {"limits": {"cpu": "1"}},
                "securityContext": {"runAsUser": 1000},
                "volumeMounts": [{"name": "cache", "mountPath": "/cache"}]}]}}}});
    let more_steps: Vec<Req> = vec![
        post(
            format!("/api/v1/namespaces/{ns}/configmaps"),
            &json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "created", "labels": {"a": "1"}}, "data": {"k": "v"}}),
        ),
        post(format!("/apis/apps/v1/namespaces/{ns}/deployments"), &made_body),
        with_body(
            "PATCH",
            format!("{made}?fieldManager=smp"),
            "application/strategic-merge-patch+json",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "m", "image": "nginx:1.28",
                "env": [{"name": "F", "value": "2"}]}]}}}})
            .to_string()
            .into_bytes(),
        ),
        merge(
            made.clone(),
            "patcher",
            &json!({"spec": {"template": {"metadata": {"annotations": {"n": "1"}},
                "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}]}]}}}}}}}),
        ),
        apply(
            svc.clone(),
            "alice",
            &json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "dns", "labels": {"a": "b"}},
                "spec": {"selector": {"app": "dns"}, "ports": [{"name": "udp", "port": 53, "protocol": "UDP"},
                    {"name": "tcp", "port": 53}]}}),
        ),
        merge(
            svc.clone(),
            "bob",
            &json!({"metadata": {"annotations": {"note": "x"}}}),
        ),
    ];
    for step in steps.iter().chain(&more_steps) {
        pair.both_ok(step).await;
    }
    let mut found = BTreeSet::new();
    for path in [&cm, &deploy, &created_cm, &made, &svc] {
        let (real, demo) = pair.both_ok(&get(path.as_str())).await;
        let entries = |o: &Value| {
            let mut list: Vec<Value> = o["metadata"]["managedFields"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| json!({"manager": e["manager"], "operation": e["operation"], "apiVersion": e["apiVersion"],
                    "fieldsType": e["fieldsType"], "fieldsV1": e["fieldsV1"], "subresource": e["subresource"]}))
                .collect();
            list.sort_by_key(|e| format!("{}/{}", e["manager"], e["operation"]));
            json!(list)
        };
        diff_values(path, &entries(&real), &entries(&demo), &mut found);
    }
    assert_differences("managedFields", &found, MANAGED_FIELDS_ALLOWED);
}

// ---------------------------------------------------------------------------------------
// 9. Streaming and proxy subresources

/// `s` with every IPv4 address (and its `:port`) replaced by `<address>`: where a dial went
/// is each side's own.
fn without_addresses(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        out.push_str(&rest[..start]);
        let candidate = &rest[start..];
        let end = candidate
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ':'))
            .unwrap_or(candidate.len());
        let token = candidate[..end].trim_end_matches([':', '.']);
        let host = token.split(':').next().unwrap_or("");
        if host.split('.').count() == 4 && host.parse::<std::net::Ipv4Addr>().is_ok() {
            out.push_str("<address>");
            rest = &candidate[token.len()..];
        } else {
            let digits = candidate
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(candidate.len());
            out.push_str(&candidate[..digits]);
            rest = &candidate[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// A Status's comparable shape with dial addresses normalised.
fn connect_shape(reply: &Reply) -> Value {
    let mut shape = status_shape(reply);
    if let Some(message) = shape["message"].as_str().map(without_addresses) {
        shape["message"] = json!(message);
    }
    if let Some(text) = shape["not JSON"].as_str().map(without_addresses) {
        shape["not JSON"] = json!(text);
    }
    shape
}

/// Connect-subresource differences the demo is allowed, each with its reason.
const CONNECT_ALLOWED: &[&str] = &[];

/// exec, attach, portforward and the proxies when no kubelet or backend answers: pods
/// unbound, on a node without addresses, on a node whose kubelet port refuses (127.0.0.1),
/// on a node that does not exist; missing pods, nodes and services; wrong methods. Raw
/// requests (plain, SPDY upgrade, v5 WebSocket) and kubectl's exec, attach and port-forward.
#[tokio::test]
#[cfg_attr(
    not(all(have_control_plane, have_kubectl)),
    ignore = "needs the control-plane binaries and kubectl"
)]
async fn connect_subresources_match() {
    let pair = pair();
    let servers = servers();
    let real = client_for(&servers.real_unfiltered);
    let ns = "diff-connect";
    pair.namespace(ns).await;
    let node = |name: &str| json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}});
    let pod = |name: &str, node: Option<&str>, containers: &[&str]| {
        let containers: Vec<Value> = containers
            .iter()
            .map(|c| json!({"name": c, "image": "nginx:1.27", "ports": [{"containerPort": 80}]}))
            .collect();
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": node, "containers": containers}})
    };
    let merge_status = |path: String, status: Value| {
        with_body(
            "PATCH",
            path,
            "application/merge-patch+json",
            json!({ "status": status }).to_string().into_bytes(),
        )
    };
    let pods = format!("/api/v1/namespaces/{ns}/pods");
    let setup = vec![
        post("/api/v1/nodes", &node("connect-bare")),
        post("/api/v1/nodes", &node("connect-local")),
        merge_status(
            "/api/v1/nodes/connect-local/status".into(),
            json!({"addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}}}),
        ),
        post(&pods, &pod("unbound", None, &["c"])),
        post(&pods, &pod("on-bare", Some("connect-bare"), &["c"])),
        post(&pods, &pod("on-local", Some("connect-local"), &["c"])),
        post(&pods, &pod("on-ghost", Some("connect-ghost"), &["c"])),
        post(&pods, &pod("two", Some("connect-local"), &["a", "b"])),
        merge_status(
            format!("{pods}/on-local/status"),
            json!({"phase": "Running", "podIP": "127.0.0.1", "podIPs": [{"ip": "127.0.0.1"}]}),
        ),
        post(
            format!("/api/v1/namespaces/{ns}/services"),
            &json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
                "spec": {"ports": [{"port": 80}], "selector": {"app": "s"}}}),
        ),
    ];
    for step in &setup {
        pair.both_ok(step).await;
    }

    let spdy = |mut req: Req| {
        req.headers.extend([
            ("connection", "Upgrade".to_string()),
            ("upgrade", "SPDY/3.1".to_string()),
            ("x-stream-protocol-version", "v4.channel.k8s.io".to_string()),
        ]);
        req
    };
    let post_empty = |path: String| Req {
        method: "POST",
        ..get(path)
    };
    let mut corpus: Vec<(String, Req)> = vec![];
    for name in ["unbound", "on-bare", "on-local", "on-ghost", "missing"] {
        for sub in [
            "exec?command=ls&stdout=true",
            "attach?stdout=true",
            "portforward?ports=80",
        ] {
            let path = format!("{pods}/{name}/{sub}");
            corpus.push((format!("GET {name}/{sub}"), get(path.clone())));
            corpus.push((format!("POST {name}/{sub}"), post_empty(path.clone())));
            // exec, attach and port forwarding on a pod whose node is there: the real side
            // dials a kubelet that is not listening, the demo's simulated kubelet answers
            // (`tests/exec_differential.rs` and `tests/portforward_differential.rs` hold
            // those sessions to kube-apiserver with the stand-in kubelet).
            if name == "on-local" {
                continue;
            }
            corpus.push((format!("SPDY {name}/{sub}"), spdy(post_empty(path))));
        }
        corpus.push((
            format!("{name}/proxy"),
            get(format!("{pods}/{name}/proxy/")),
        ));
        corpus.push((
            format!("{name}:80/proxy/x"),
            get(format!("{pods}/{name}:80/proxy/x")),
        ));
    }
    corpus.extend([
        (
            "exec in a missing namespace".to_string(),
            get("/api/v1/namespaces/nowhere/pods/on-local/exec?command=ls"),
        ),
        (
            "PUT exec".to_string(),
            Req {
                method: "PUT",
                ..get(format!("{pods}/on-local/exec?command=ls"))
            },
        ),
        (
            "exec without a container in a two-container pod".to_string(),
            spdy(post_empty(format!(
                "{pods}/two/exec?command=ls&stdout=true"
            ))),
        ),
        (
            "exec in a container the pod lacks".to_string(),
            spdy(post_empty(format!(
                "{pods}/on-local/exec?command=ls&container=nope"
            ))),
        ),
        (
            "DELETE pod proxy".to_string(),
            Req {
                method: "DELETE",
                ..get(format!("{pods}/on-local/proxy"))
            },
        ),
    ]);
    for node in [
        "connect-bare",
        "connect-local",
        "connect-local:10250",
        "missing",
    ] {
        corpus.push((
            format!("nodes/{node}/proxy"),
            get(format!("/api/v1/nodes/{node}/proxy/metrics")),
        ));
    }
    for service in ["s", "s:80", "missing"] {
        let path = format!("/api/v1/namespaces/{ns}/services/{service}/proxy/x");
        corpus.push((format!("GET services/{service}/proxy"), get(path.clone())));
        corpus.push((format!("POST services/{service}/proxy"), post_empty(path)));
    }
    let mut found = BTreeSet::new();
    for (what, req) in &corpus {
        let (r, d) = (send(&real, req).await, send(&pair.demo, req).await);
        diff_values(what, &connect_shape(&r), &connect_shape(&d), &mut found);
    }

    // What kubectl users see: an error at once, in the same words, instead of a hang.
    // (exec and attach on `on-local` reach the demo's simulated kubelet: see above.)
    // (port-forward to `on-local` reaches the demo's simulated container, as above.)
    let commands: [&[&str]; 2] = [
        &["exec", "-n", ns, "on-bare", "--", "ls"],
        &["exec", "-n", ns, "unbound", "--", "ls"],
    ];
    let (real_kubectl, demo_kubectl) = (
        kubectl_for(&servers.real_unfiltered),
        kubectl_for(&servers.demo),
    );
    for args in commands {
        let outcome = |kubectl: &common::Kubectl| {
            let mut command = kubectl.command(&["--request-timeout=20s"]);
            command.args(args);
            let started = std::time::Instant::now();
            let out = command.output().expect("kubectl runs");
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "kubectl {args:?} took {:?}",
                started.elapsed()
            );
            json!({"success": out.status.success(),
                "stderr": without_addresses(&String::from_utf8_lossy(&out.stderr))})
        };
        diff_values(
            &format!("kubectl {}", args.join(" ")),
            &outcome(&real_kubectl),
            &outcome(&demo_kubectl),
            &mut found,
        );
    }
    assert_differences("connect subresources", &found, CONNECT_ALLOWED);
}

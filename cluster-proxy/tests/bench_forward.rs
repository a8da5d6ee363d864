//! Port-forward benchmark: kube-atlas's forward against `kubectl port-forward` to the same pod
//! of the real control plane (kube-apiserver, then the stand-in kubelet's streaming server,
//! whose every port answers HTTP `Hello from pod …`):
//! - first byte: a fresh connection, one `GET`, until the answer's first byte (p50, p90);
//! - requests/s: 4 keep-alive connections asking one after another;
//! - upload MB/s: one `POST` of a large body, which the stand-in reads whole before it answers
//!   (it cannot send a large answer, so the large transfer goes towards the pod).
//!
//! Prints `bench forward: key=value` lines and the ratios to kubectl (goal: within 1.5x), and
//! writes `target/bench/forward.json` (each figure with its goal and kubectl's value beside
//! it) for `cargo xtask bench`'s table and the README's; asserts only that both really ran.
//! Figures are only meaningful from an optimized build: `cargo xtask bench forward`, or
//! `cargo test --profile bench -p kube-atlas-server --test bench_forward -- --nocapture`.
//! `KUBE_ATLAS_BENCH_QUICK=1` runs small sizes (figures in `target/bench/quick/`).

mod support;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use serde_json::json;
use support::backends::{local_address, Backend, Cluster};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn quick() -> bool {
    std::env::var("KUBE_ATLAS_BENCH_QUICK").is_ok_and(|v| v == "1")
}

/// Reads one HTTP answer with a Content-Length from `stream`; the time its first byte came.
async fn read_answer(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Instant {
    buffer.clear();
    let mut chunk = [0u8; 4096];
    let mut first_byte = None;
    loop {
        let read = stream.read(&mut chunk).await.expect("the answer");
        assert!(
            read > 0,
            "the connection closed mid-answer: {:?}",
            String::from_utf8_lossy(buffer)
        );
        first_byte.get_or_insert_with(Instant::now);
        buffer.extend_from_slice(&chunk[..read]);
        let text = String::from_utf8_lossy(buffer);
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|line| line.strip_prefix("Content-Length: "))
                .and_then(|n| n.trim().parse::<usize>().ok())
                .expect("a Content-Length");
            if buffer.len() >= end + 4 + length {
                assert!(text.contains("Hello from pod default/web-1"), "{text}");
                return first_byte.unwrap_or_else(Instant::now);
            }
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(index).copied().unwrap_or(f64::NAN)
}

struct Figures {
    first_byte_p50_ms: f64,
    first_byte_p90_ms: f64,
    requests_per_s: f64,
    upload_mb_per_s: f64,
}

async fn measure(addr: SocketAddr) -> Figures {
    let mut buffer = Vec::new();
    let fresh = if quick() { 10 } else { 50 };
    let mut first_bytes = Vec::new();
    for i in 0..fresh {
        let clock = Instant::now();
        let mut stream = TcpStream::connect(addr).await.expect("connects");
        stream.set_nodelay(true).expect("nodelay");
        let request = format!("GET /fresh/{i} HTTP/1.1\r\nHost: x\r\n\r\n");
        stream.write_all(request.as_bytes()).await.expect("sent");
        let first = read_answer(&mut stream, &mut buffer).await;
        first_bytes.push((first - clock).as_secs_f64() * 1000.0);
    }
    first_bytes.sort_by(f64::total_cmp);

    let per_connection = if quick() { 50 } else { 500 };
    let clock = Instant::now();
    let connections = (0..4).map(|c| {
        tokio::spawn(async move {
            let mut stream = TcpStream::connect(addr).await.expect("connects");
            stream.set_nodelay(true).expect("nodelay");
            let mut buffer = Vec::new();
            for r in 0..per_connection {
                let request = format!("GET /c{c}/r{r} HTTP/1.1\r\nHost: x\r\n\r\n");
                stream.write_all(request.as_bytes()).await.expect("sent");
                read_answer(&mut stream, &mut buffer).await;
            }
        })
    });
    for connection in futures_util::future::join_all(connections).await {
        connection.expect("a connection's requests");
    }
    let requests_per_s = f64::from(4 * per_connection) / clock.elapsed().as_secs_f64();

    let mebibytes: usize = if quick() { 4 } else { 64 };
    let body = vec![b'x'; mebibytes << 20];
    let clock = Instant::now();
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    let head = format!(
        "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("sent");
    stream.write_all(&body).await.expect("body sent");
    read_answer(&mut stream, &mut buffer).await;
    let upload_mb_per_s = mebibytes as f64 * 1.048_576 / clock.elapsed().as_secs_f64();
    Figures {
        first_byte_p50_ms: percentile(&first_bytes, 0.5),
        first_byte_p90_ms: percentile(&first_bytes, 0.9),
        requests_per_s,
        upload_mb_per_s,
    }
}

/// `kubectl port-forward pod/web-1 :8080` as the admin; killed on drop.
struct KubectlForward(Child);

impl Drop for KubectlForward {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts kubectl's forward and reads its `Forwarding from 127.0.0.1:PORT -> 8080` line.
fn kubectl_forward(kubeconfig: &std::path::Path) -> (KubectlForward, SocketAddr) {
    let mut child = Command::new("kubectl")
        .arg(format!("--kubeconfig={}", kubeconfig.display()))
        .args(["port-forward", "--address=127.0.0.1", "pod/web-1", ":8080"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kubectl port-forward starts");
    let stdout = child.stdout.take().expect("kubectl's stdout");
    let forward = KubectlForward(child);
    let mut lines = BufReader::new(stdout).lines();
    let addr = lines
        .find_map(|line| {
            let line = line.ok()?;
            let from = line.strip_prefix("Forwarding from ")?;
            from.split_whitespace().next()?.parse::<SocketAddr>().ok()
        })
        .expect("kubectl says where it forwards from");
    // Later lines ("Handling connection for …") are drained so kubectl never blocks on them.
    std::thread::spawn(move || lines.for_each(drop));
    (forward, addr)
}

#[cfg_attr(
    not(have_control_plane),
    ignore = "no control-plane binaries: run `cargo xtask setup` (needs ../shared/kubernetes)"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forward_throughput_and_first_byte_against_kubectl() {
    let cluster = Cluster::start(Backend::Real).await;
    cluster.running_pod("web-1", json!({"app": "web"})).await;
    let (status, info) = cluster
        .start_forward("admin", "Pod", "web-1", json!(8080), None)
        .await;
    assert_eq!(status, 201, "{info}");
    let atlas = measure(local_address(&info)).await;
    let kubeconfig = cluster
        .admin_kubeconfig()
        .expect("the real plane's kubeconfig");
    let (_kubectl, kubectl_addr) =
        tokio::task::spawn_blocking(move || kubectl_forward(&kubeconfig))
            .await
            .expect("kubectl's thread");
    let kubectl = measure(kubectl_addr).await;
    for (who, figures) in [("atlas", &atlas), ("kubectl", &kubectl)] {
        println!(
            "bench forward: {who}_first_byte_p50_ms={:.2} {who}_first_byte_p90_ms={:.2} {who}_requests_per_s={:.0} {who}_upload_mb_per_s={:.1}",
            figures.first_byte_p50_ms, figures.first_byte_p90_ms, figures.requests_per_s, figures.upload_mb_per_s
        );
    }
    println!(
        "bench forward: first_byte_ratio={:.2} requests_ratio={:.2} upload_ratio={:.2} (atlas vs kubectl; goal ≤ 1.5 for time, ≥ 0.67 for rates)",
        atlas.first_byte_p50_ms / kubectl.first_byte_p50_ms,
        atlas.requests_per_s / kubectl.requests_per_s,
        atlas.upload_mb_per_s / kubectl.upload_mb_per_s,
    );
    assert!(atlas.requests_per_s > 0.0 && kubectl.requests_per_s > 0.0);
    save(&atlas, &kubectl);
}

/// Writes the part's file as `cargo xtask bench` reads it (the browser benchmarks' format:
/// `tests/common`'s `bench::Figures`): kube-atlas's figures with their goals, kubectl's too.
fn save(atlas: &Figures, kubectl: &Figures) {
    let beside = |atlas: f64, kubectl: f64, unit: &str| {
        // Rates in whole numbers, times to the hundredth of a millisecond.
        let digits = if kubectl >= 100.0 { 0 } else { 2 };
        format!(
            "kubectl {kubectl:.digits$} {unit}, {:.2}x kubectl's",
            atlas / kubectl
        )
    };
    let figure = |name: &str,
                  goal: Option<&str>,
                  value: f64,
                  unit: &str,
                  detail: Option<String>| {
        json!({"name": name, "goal": goal, "value": (value * 100.0).round() / 100.0, "unit": unit, "detail": detail})
    };
    let (time_goal, rate_goal) = (Some("≤ 1.5x kubectl's"), Some("≥ kubectl's / 1.5"));
    let figures = [
        figure(
            "first_byte_p50_ms",
            time_goal,
            atlas.first_byte_p50_ms,
            "ms",
            Some(beside(
                atlas.first_byte_p50_ms,
                kubectl.first_byte_p50_ms,
                "ms",
            )),
        ),
        figure(
            "first_byte_p90_ms",
            None,
            atlas.first_byte_p90_ms,
            "ms",
            Some(beside(
                atlas.first_byte_p90_ms,
                kubectl.first_byte_p90_ms,
                "ms",
            )),
        ),
        figure(
            "requests_per_s",
            rate_goal,
            atlas.requests_per_s,
            "/s",
            Some(beside(atlas.requests_per_s, kubectl.requests_per_s, "/s")),
        ),
        figure(
            "upload_mb_per_s",
            rate_goal,
            atlas.upload_mb_per_s,
            "MB/s",
            Some(beside(
                atlas.upload_mb_per_s,
                kubectl.upload_mb_per_s,
                "MB/s",
            )),
        ),
        figure(
            "kubectl first_byte_p50_ms",
            None,
            kubectl.first_byte_p50_ms,
            "ms",
            None,
        ),
        figure(
            "kubectl requests_per_s",
            None,
            kubectl.requests_per_s,
            "/s",
            None,
        ),
        figure(
            "kubectl upload_mb_per_s",
            None,
            kubectl.upload_mb_per_s,
            "MB/s",
            None,
        ),
    ];
    let commit = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let document = json!({
        "part": "forward",
        "quick": quick(),
        "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "date": k8s_openapi::jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        "commit": commit,
        "load_average": load.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        "figures": figures,
        "notes": [],
    });
    let mut dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench");
    if quick() {
        dir.push("quick");
    }
    std::fs::create_dir_all(&dir).expect("the bench folder");
    let path = dir.join("forward.json");
    let text = serde_json::to_string_pretty(&document).expect("json") + "\n";
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    println!("bench forward: wrote {}", path.display());
}

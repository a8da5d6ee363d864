//! Server benchmark of the demo cluster, over plain HTTP/1.1 on loopback (`cargo xtask bench`).
//!
//! 1. Lists 10,000 Pods: full JSON list, `limit=500` paging through every page, and a Table.
//! 2. 200 chunked watches on ConfigMaps while paced writers create/update/delete ConfigMaps at
//!    1,000 writes/s for 30 s. Every watcher must receive every event exactly once, in
//!    resourceVersion order; lag = receive time - the time the write was sent.
//!
//! What is measured: the server runs on a tokio runtime (and threads) of its own; the writers
//! and watchers are clients on another runtime in the same process. So list times and write
//! latencies are the server's answer times as a client sees them over loopback, and the watch
//! lag is end to end: the server's fan-out plus the client's reading and JSON decoding of the
//! event, on the same 2-core machine (clients and server share the CPUs, not a scheduler).
//!
//! Prints `bench demo-cluster: ...` lines of key=value figures. Times are reported, never
//! asserted; the exit status is non-zero when an event was lost, duplicated, reordered or
//! wrong, when a write failed or a planned write was skipped (the run then did not carry the
//! load it reports), or when the run could not be carried out.
//!
//! ```text
//! CARGO_TARGET_DIR=/work/target-bench cargo run --profile bench -p demo-cluster \
//!     --example bench_server -- [--pods N] [--reps N] [--watchers N] [--rate N] \
//!     [--duration SECS] [--writers N] [--keep-pods] [--no-controllers]
//! ```

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use demo_cluster::Config;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::json;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::watch;

const NS: &str = "bench";
/// Names of the benchmark's ConfigMaps: `bcm-<id>`, the id being the creating write's number.
const PREFIX: &str = "bcm-";
const PAGE_LIMIT: usize = 500;
const TABLE_ACCEPT: &str = "application/json;as=Table;v=v1;g=meta.k8s.io";
/// How long watchers may take to catch up after the last write.
const DRAIN_GRACE: Duration = Duration::from_secs(20);
/// Event types as packed into a watcher's records.
const ADDED: u64 = 0;
const MODIFIED: u64 = 1;
const DELETED: u64 = 2;

fn line(figures: &str) {
    println!("bench demo-cluster: {figures}");
}

/// Microseconds since the process's first call: the clock shared by writers and watchers.
fn now_us() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_micros() as u64
}

// ---------------------------------------------------------------------------------------------
// Options

struct Opts {
    pods: usize,
    reps: usize,
    watchers: usize,
    rate: u64,
    duration: u64,
    writers: usize,
    keep_pods: bool,
    controllers: bool,
}

const USAGE: &str = "usage: bench_server [--pods N] [--reps N] [--watchers N] [--rate N] \
[--duration SECS] [--writers N] [--keep-pods] [--no-controllers]";

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts {
        pods: 10_000,
        reps: 10,
        watchers: 200,
        rate: 1_000,
        duration: 30,
        writers: 64,
        keep_pods: false,
        controllers: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (arg.clone(), None),
        };
        if flag == "--keep-pods" {
            o.keep_pods = true;
            continue;
        }
        if flag == "--no-controllers" {
            o.controllers = false;
            continue;
        }
        if flag == "--help" || flag == "-h" {
            return Err(USAGE.into());
        }
        let value = match inline {
            Some(v) => v,
            None => args
                .next()
                .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?,
        };
        let n: u64 = value
            .parse()
            .map_err(|_| format!("{flag}: {value:?} is not a number\n{USAGE}"))?;
        match flag.as_str() {
            "--pods" => o.pods = n as usize,
            "--reps" => o.reps = (n as usize).max(1),
            "--watchers" => o.watchers = n as usize,
            "--rate" => o.rate = n.max(1),
            "--duration" => o.duration = n.max(1),
            "--writers" => o.writers = (n as usize).max(1),
            _ => return Err(format!("unknown option {flag}\n{USAGE}")),
        }
    }
    Ok(o)
}

// ---------------------------------------------------------------------------------------------
// Minimal HTTP/1.1 client (keep-alive, Content-Length or chunked bodies)

fn bad(msg: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.into())
}

struct Head {
    status: u16,
    content_length: Option<usize>,
    chunked: bool,
}

fn parse_header_line(head: &mut Head, line: &str) {
    if let Some((name, value)) = line.split_once(':') {
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            head.content_length = value.parse().ok();
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            head.chunked = value.to_ascii_lowercase().contains("chunked");
        }
    }
}

fn parse_status_line(line: &str) -> std::io::Result<u16> {
    line.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(format!("bad status line {line:?}")))
}

async fn read_head<R: AsyncBufRead + Unpin>(r: &mut R) -> std::io::Result<Head> {
    let mut line = String::new();
    if r.read_line(&mut line).await? == 0 {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    let mut head = Head {
        status: parse_status_line(&line)?,
        content_length: None,
        chunked: false,
    };
    loop {
        line.clear();
        if r.read_line(&mut line).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let l = line.trim_end();
        if l.is_empty() {
            return Ok(head);
        }
        parse_header_line(&mut head, l);
    }
}

async fn read_chunked<R: AsyncBufRead + Unpin>(r: &mut R) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        r.read_line(&mut line).await?;
        let size = chunk_size(line.as_bytes()).map_err(bad)?;
        if size == 0 {
            // Trailers, up to the empty line.
            loop {
                line.clear();
                if r.read_line(&mut line).await? == 0 || line.trim().is_empty() {
                    return Ok(out);
                }
            }
        }
        let start = out.len();
        out.resize(start + size, 0);
        r.read_exact(&mut out[start..]).await?;
        let mut crlf = [0u8; 2];
        r.read_exact(&mut crlf).await?;
    }
}

fn chunk_size(line: &[u8]) -> Result<usize, String> {
    let text = std::str::from_utf8(line).map_err(|e| e.to_string())?;
    let hex = text.trim().split(';').next().unwrap_or("").trim();
    usize::from_str_radix(hex, 16).map_err(|_| format!("bad chunk size line {text:?}"))
}

struct Resp {
    status: u16,
    body: Vec<u8>,
}

impl Resp {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body[..self.body.len().min(400)]).into_owned()
    }
}

struct Conn {
    io: BufReader<TcpStream>,
    host: String,
}

impl Conn {
    async fn connect(addr: SocketAddr) -> std::io::Result<Conn> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            io: BufReader::with_capacity(64 * 1024, stream),
            host: addr.to_string(),
        })
    }

    async fn request(
        &mut self,
        method: &str,
        path: &str,
        accept: &str,
        body: Option<&[u8]>,
    ) -> std::io::Result<Resp> {
        let mut req = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAccept: {accept}\r\nUser-Agent: bench_server\r\n",
            self.host
        );
        if let Some(b) = body {
            req.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                b.len()
            ));
        }
        req.push_str("\r\n");
        let mut bytes = req.into_bytes();
        if let Some(b) = body {
            bytes.extend_from_slice(b);
        }
        self.io.get_mut().write_all(&bytes).await?;
        let head = read_head(&mut self.io).await?;
        let body = if head.chunked {
            read_chunked(&mut self.io).await?
        } else if let Some(n) = head.content_length {
            let mut v = vec![0u8; n];
            self.io.read_exact(&mut v).await?;
            v
        } else {
            let mut v = Vec::new();
            self.io.read_to_end(&mut v).await?;
            v
        };
        Ok(Resp {
            status: head.status,
            body,
        })
    }

    async fn get(&mut self, path: &str, accept: &str) -> std::io::Result<Resp> {
        self.request("GET", path, accept, None).await
    }

    /// A request that must answer `want`.
    async fn expect(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
        want: &[u16],
    ) -> Result<Resp, String> {
        let resp = self
            .request(method, path, "application/json", body)
            .await
            .map_err(|e| format!("{method} {path}: {e}"))?;
        if want.contains(&resp.status) {
            Ok(resp)
        } else {
            Err(format!(
                "{method} {path}: HTTP {}: {}",
                resp.status,
                resp.text()
            ))
        }
    }
}

/// Percent-encodes a query value (continue tokens are base64).
fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Wire shapes (only the fields the benchmark reads)

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireMeta {
    name: String,
    #[serde(rename = "resourceVersion")]
    resource_version: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireData {
    sent_us: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireObject {
    metadata: WireMeta,
    data: WireData,
    message: String,
}

#[derive(Deserialize)]
struct WireEvent<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(default)]
    object: WireObject,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireList {
    metadata: WireMeta,
    items: Vec<IgnoredAny>,
    rows: Vec<IgnoredAny>,
}

fn parse_list(body: &[u8]) -> Result<WireList, String> {
    serde_json::from_slice(body).map_err(|e| format!("list body: {e}"))
}

fn parse_rv(s: &str) -> Result<u64, String> {
    s.parse()
        .map_err(|_| format!("resourceVersion {s:?} is not a number"))
}

// ---------------------------------------------------------------------------------------------
// Statistics

struct Summary {
    min: f64,
    median: f64,
    p90: f64,
    max: f64,
}

fn percentile<T: Copy + Into<f64>>(sorted: &[T], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)].into()
}

fn summarize_ms(durations: &[Duration]) -> Summary {
    let mut ms: Vec<f64> = durations.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    Summary {
        min: percentile(&ms, 0.0),
        median: percentile(&ms, 0.5),
        p90: percentile(&ms, 0.9),
        max: percentile(&ms, 1.0),
    }
}

fn ms_from_us(us: f64) -> f64 {
    us / 1e3
}

// ---------------------------------------------------------------------------------------------
// Phase 1: Pods and lists

fn pod_body(i: usize) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("bench-pod-{i:05}"), "namespace": NS,
            "labels": {"app": "bench", "shard": (i % 10).to_string()}},
        // Bound to a node that does not exist: no scheduler or kubelet simulation acts on it.
        "spec": {"nodeName": "bench-node", "containers": [{"name": "app",
            "image": "registry.k8s.io/pause:3.9",
            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}
    }))
    .expect("pod serializes")
}

async fn create_namespace(addr: SocketAddr) -> Result<(), String> {
    let mut c = Conn::connect(addr).await.map_err(|e| e.to_string())?;
    let ns = serde_json::to_vec(
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}),
    )
    .expect("namespace serializes");
    c.expect("POST", "/api/v1/namespaces", Some(&ns), &[201])
        .await?;
    Ok(())
}

async fn create_pods(addr: SocketAddr, pods: usize) -> Result<(), String> {
    const CONCURRENCY: usize = 16;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for t in 0..CONCURRENCY.min(pods.max(1)) {
        tasks.push(tokio::spawn(async move {
            let mut c = Conn::connect(addr).await.map_err(|e| e.to_string())?;
            let path = format!("/api/v1/namespaces/{NS}/pods");
            for i in (t..pods).step_by(CONCURRENCY) {
                c.expect("POST", &path, Some(&pod_body(i)), &[201]).await?;
            }
            Ok::<(), String>(())
        }));
    }
    for t in tasks {
        t.await.map_err(|e| e.to_string())??;
    }
    let secs = started.elapsed().as_secs_f64();
    line(&format!(
        "create_pods n={pods} concurrency={CONCURRENCY} secs={secs:.2} rate_per_s={:.0}",
        pods as f64 / secs
    ));
    Ok(())
}

async fn bench_lists(addr: SocketAddr, o: &Opts) -> Result<(), String> {
    let mut c = Conn::connect(addr).await.map_err(|e| e.to_string())?;
    let path = format!("/api/v1/namespaces/{NS}/pods");
    let io = |e: std::io::Error| e.to_string();

    // Full JSON list. The first (untimed) request warms up and checks the item count.
    let warm = c.expect("GET", &path, None, &[200]).await?;
    let items = parse_list(&warm.body)?.items.len();
    if items != o.pods {
        return Err(format!("list returned {items} pods, expected {}", o.pods));
    }
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..o.reps {
        let t = Instant::now();
        let r = c.get(&path, "application/json").await.map_err(io)?;
        times.push(t.elapsed());
        bytes = r.body.len();
    }
    let s = summarize_ms(&times);
    line(&format!(
        "list_pods n={} reps={} min_ms={:.1} median_ms={:.1} p90_ms={:.1} max_ms={:.1} bytes={bytes}",
        o.pods, o.reps, s.min, s.median, s.p90, s.max
    ));

    // limit=500, following continue tokens through every page.
    let mut times = Vec::new();
    let mut pages = 0;
    let mut total_bytes = 0;
    for rep in 0..=o.reps {
        let t = Instant::now();
        let mut token = String::new();
        let (mut n_pages, mut n_bytes, mut n_items) = (0, 0, 0);
        loop {
            let mut url = format!("{path}?limit={PAGE_LIMIT}");
            if !token.is_empty() {
                url.push_str(&format!("&continue={}", query_escape(&token)));
            }
            let r = c.get(&url, "application/json").await.map_err(io)?;
            if r.status != 200 {
                return Err(format!("GET {url}: HTTP {}: {}", r.status, r.text()));
            }
            n_pages += 1;
            n_bytes += r.body.len();
            token = continue_token(&r.body);
            if rep == 0 {
                n_items += parse_list(&r.body)?.items.len();
            }
            if token.is_empty() {
                break;
            }
        }
        if rep == 0 {
            // Warm-up round: checks the pages add up, not timed.
            if n_items != o.pods {
                return Err(format!(
                    "paged list returned {n_items} pods, expected {}",
                    o.pods
                ));
            }
            continue;
        }
        times.push(t.elapsed());
        pages = n_pages;
        total_bytes = n_bytes;
    }
    let s = summarize_ms(&times);
    line(&format!(
        "list_pods_paged n={} limit={PAGE_LIMIT} pages={pages} reps={} min_ms={:.1} median_ms={:.1} p90_ms={:.1} max_ms={:.1} bytes={total_bytes}",
        o.pods, o.reps, s.min, s.median, s.p90, s.max
    ));

    // Table, as kubectl get asks for it.
    let warm = c.get(&path, TABLE_ACCEPT).await.map_err(io)?;
    if warm.status != 200 {
        return Err(format!("Table list: HTTP {}: {}", warm.status, warm.text()));
    }
    let rows = parse_list(&warm.body)?.rows.len();
    if rows != o.pods {
        return Err(format!("Table has {rows} rows, expected {}", o.pods));
    }
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..o.reps {
        let t = Instant::now();
        let r = c.get(&path, TABLE_ACCEPT).await.map_err(io)?;
        times.push(t.elapsed());
        bytes = r.body.len();
    }
    let s = summarize_ms(&times);
    line(&format!(
        "list_pods_table n={} reps={} min_ms={:.1} median_ms={:.1} p90_ms={:.1} max_ms={:.1} bytes={bytes}",
        o.pods, o.reps, s.min, s.median, s.p90, s.max
    ));
    Ok(())
}

/// `metadata.continue` of a list page, found without parsing the page (it is the last field).
fn continue_token(body: &[u8]) -> String {
    const KEY: &[u8] = b"\"continue\":\"";
    let Some(at) = body.windows(KEY.len()).rposition(|w| w == KEY) else {
        return String::new();
    };
    let rest = &body[at + KEY.len()..];
    let end = rest.iter().position(|&b| b == b'"').unwrap_or(rest.len());
    String::from_utf8_lossy(&rest[..end]).into_owned()
}

/// Deletes the Pods (one deletecollection, no grace period: nothing would finish a graceful
/// deletion of Pods bound to a node that does not exist), so the watch phase runs on an
/// otherwise small store.
async fn drop_pods(addr: SocketAddr) -> Result<(), String> {
    let started = Instant::now();
    let mut c = Conn::connect(addr).await.map_err(|e| e.to_string())?;
    let path = format!("/api/v1/namespaces/{NS}/pods");
    c.expect(
        "DELETE",
        &format!("{path}?gracePeriodSeconds=0"),
        None,
        &[200, 202],
    )
    .await?;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let r = c
            .expect("GET", &format!("{path}?limit=1"), None, &[200])
            .await?;
        if parse_list(&r.body)?.items.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("Pods remain in {NS} 60 s after deleting them"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    line(&format!(
        "drop_pods via=deletecollection secs={:.2}",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Phase 2: watches during paced writes

/// Incremental decoder of a chunked body; cancel-safe because it keeps all state itself.
#[derive(Default)]
struct Chunked {
    state: ChunkState,
    size_line: Vec<u8>,
}

#[derive(Default, Clone, Copy, PartialEq)]
enum ChunkState {
    #[default]
    Size,
    Data(usize),
    Crlf(usize),
    Done,
}

impl Chunked {
    fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        while !input.is_empty() {
            match self.state {
                ChunkState::Size => match input.iter().position(|&b| b == b'\n') {
                    None => {
                        self.size_line.extend_from_slice(input);
                        input = &[];
                    }
                    Some(i) => {
                        self.size_line.extend_from_slice(&input[..i]);
                        input = &input[i + 1..];
                        let n = chunk_size(&self.size_line)?;
                        self.size_line.clear();
                        self.state = if n == 0 {
                            ChunkState::Done
                        } else {
                            ChunkState::Data(n)
                        };
                    }
                },
                ChunkState::Data(n) => {
                    let take = n.min(input.len());
                    out.extend_from_slice(&input[..take]);
                    input = &input[take..];
                    self.state = if take == n {
                        ChunkState::Crlf(2)
                    } else {
                        ChunkState::Data(n - take)
                    };
                }
                ChunkState::Crlf(n) => {
                    let take = n.min(input.len());
                    input = &input[take..];
                    self.state = if take == n {
                        ChunkState::Size
                    } else {
                        ChunkState::Crlf(n - take)
                    };
                }
                ChunkState::Done => return Ok(()),
            }
        }
        Ok(())
    }
}

/// An open watch whose response head has been read.
struct WatchStream {
    stream: TcpStream,
    decoder: Chunked,
    /// Decoded body not yet split into lines.
    body: Vec<u8>,
}

async fn open_watch(addr: SocketAddr, path: &str) -> Result<WatchStream, String> {
    let mut stream = TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json\r\nUser-Agent: bench_server\r\n\r\n"
    );
    stream
        .write_all(req.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut buf).await.map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("watch: connection closed before the response head".into());
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head_text = String::from_utf8_lossy(&raw[..head_end]).into_owned();
    let mut lines = head_text.split("\r\n");
    let mut head = Head {
        status: parse_status_line(lines.next().unwrap_or("")).map_err(|e| e.to_string())?,
        content_length: None,
        chunked: false,
    };
    for l in lines {
        parse_header_line(&mut head, l);
    }
    if head.status != 200 || !head.chunked {
        return Err(format!(
            "watch {path}: HTTP {} (chunked={}): {}",
            head.status,
            head.chunked,
            String::from_utf8_lossy(&raw[head_end..])
        ));
    }
    let mut ws = WatchStream {
        stream,
        decoder: Chunked::default(),
        body: Vec::new(),
    };
    ws.decoder.feed(&raw[head_end + 4..], &mut ws.body)?;
    Ok(ws)
}

/// What the main task tells watchers: how many of the benchmark's events to wait for, or stop.
#[derive(Clone, Copy, Default)]
struct Ctrl {
    expected: Option<u64>,
    abort: bool,
}

#[derive(Default)]
struct WatcherOut {
    /// `rv << 32 | type << 30 | id` per event on a benchmark ConfigMap, in arrival order.
    records: Vec<u64>,
    lags_us: Vec<u32>,
    /// Events on other objects (none are expected).
    foreign: u64,
    /// Events without a send time to compare with.
    untimed: u64,
    /// An ERROR event, a broken stream, or the server ending the watch.
    error: Option<String>,
}

/// Send times of deletes by object id (a DELETED event carries the object's last state).
type DeleteSent = Arc<Vec<AtomicU64>>;

async fn run_watcher(
    mut ws: WatchStream,
    del_sent: DeleteSent,
    mut ctrl: watch::Receiver<Ctrl>,
) -> WatcherOut {
    let mut out = WatcherOut::default();
    let mut buf = vec![0u8; 32 * 1024];
    // Lines already in the head's read.
    if let Err(e) = drain_lines(&mut ws.body, now_us(), &mut out, &del_sent) {
        out.error = Some(e);
        return out;
    }
    loop {
        let c = *ctrl.borrow_and_update();
        if c.abort || c.expected.is_some_and(|n| out.records.len() as u64 >= n) {
            return out;
        }
        tokio::select! {
            read = ws.stream.read(&mut buf) => {
                let n = match read {
                    Ok(0) => {
                        out.error = Some("the server ended the watch".into());
                        return out;
                    }
                    Ok(n) => n,
                    Err(e) => {
                        out.error = Some(format!("watch read: {e}"));
                        return out;
                    }
                };
                let received = now_us();
                let fed = ws.decoder.feed(&buf[..n], &mut ws.body);
                if let Err(e) = fed.and_then(|()| drain_lines(&mut ws.body, received, &mut out, &del_sent)) {
                    out.error = Some(e);
                    return out;
                }
                if ws.decoder.state == ChunkState::Done {
                    out.error = Some("the server ended the watch".into());
                    return out;
                }
            }
            changed = ctrl.changed() => {
                if changed.is_err() {
                    return out;
                }
            }
        }
    }
}

/// Handles every complete line of `body`, keeping a trailing partial line.
fn drain_lines(
    body: &mut Vec<u8>,
    received: u64,
    out: &mut WatcherOut,
    del_sent: &DeleteSent,
) -> Result<(), String> {
    let mut start = 0;
    while let Some(i) = body[start..].iter().position(|&b| b == b'\n') {
        let line = &body[start..start + i];
        start += i + 1;
        if !line.iter().all(u8::is_ascii_whitespace) {
            handle_event(line, received, out, del_sent)?;
        }
    }
    body.drain(..start);
    Ok(())
}

fn handle_event(
    line: &[u8],
    received: u64,
    out: &mut WatcherOut,
    del_sent: &DeleteSent,
) -> Result<(), String> {
    let ev: WireEvent = serde_json::from_slice(line).map_err(|e| {
        format!(
            "bad watch line ({e}): {}",
            String::from_utf8_lossy(&line[..line.len().min(300)])
        )
    })?;
    let ty = match ev.kind {
        "ADDED" => ADDED,
        "MODIFIED" => MODIFIED,
        "DELETED" => DELETED,
        "BOOKMARK" => return Ok(()),
        "ERROR" => return Err(format!("ERROR event: {}", ev.object.message)),
        other => return Err(format!("unexpected event type {other:?}")),
    };
    let meta = &ev.object.metadata;
    let Some(id) = meta
        .name
        .strip_prefix(PREFIX)
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|id| *id < 1 << 30)
    else {
        out.foreign += 1;
        return Ok(());
    };
    let rv = parse_rv(&meta.resource_version)?;
    if rv > u64::from(u32::MAX) {
        return Err(format!("resourceVersion {rv} does not fit the records"));
    }
    out.records.push(rv << 32 | ty << 30 | id);
    let sent = if ty == DELETED {
        del_sent
            .get(id as usize)
            .map_or(0, |s| s.load(Ordering::Acquire))
    } else {
        ev.object.data.sent_us.parse().unwrap_or(0)
    };
    if sent == 0 {
        out.untimed += 1;
    } else {
        out.lags_us
            .push(received.saturating_sub(sent).min(u64::from(u32::MAX)) as u32);
    }
    Ok(())
}

fn configmap_body(id: u64, seq: u64, sent: u64, rv: Option<&str>) -> Vec<u8> {
    let mut meta =
        json!({"name": format!("{PREFIX}{id}"), "namespace": NS, "labels": {"app": "bench"}});
    if let Some(rv) = rv {
        meta["resourceVersion"] = json!(rv);
    }
    serde_json::to_vec(&json!({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
        "data": {"seq": seq.to_string(), "sent_us": sent.to_string(),
            "pad": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
    }))
    .expect("configmap serializes")
}

#[derive(Default)]
struct WriterOut {
    /// (rv, type << 30 | id) of every create and update.
    known: Vec<(u64, u64)>,
    /// (id, resourceVersion the object had when deleted).
    deletes: Vec<(u64, u64)>,
    latencies_us: Vec<u32>,
    counts: [u64; 3],
    errors: u64,
    first_error: Option<String>,
    /// Writes not sent because the run's time was up before the writer got to them.
    skipped: u64,
    last_done: Option<tokio::time::Instant>,
}

struct WriterPlan {
    addr: SocketAddr,
    index: u64,
    writers: u64,
    rate: u64,
    start: tokio::time::Instant,
    end: tokio::time::Instant,
    total: u64,
}

/// One writer owns its objects (no two writers touch the same ConfigMap) and sends writes
/// number index, index + writers, ... at their scheduled times (late ones at once).
async fn run_writer(p: WriterPlan, del_sent: DeleteSent) -> WriterOut {
    let mut out = WriterOut::default();
    let mut conn = match Conn::connect(p.addr).await {
        Ok(c) => c,
        Err(e) => {
            out.errors += 1;
            out.first_error = Some(e.to_string());
            return out;
        }
    };
    let base = format!("/api/v1/namespaces/{NS}/configmaps");
    // Live objects: (id, resourceVersion), least recently written first.
    let mut live: VecDeque<(u64, String)> = VecDeque::new();
    let mut k = 0u64;
    loop {
        let seq = k * p.writers + p.index;
        if seq >= p.total {
            break;
        }
        let due = p.start + Duration::from_nanos(seq * 1_000_000_000 / p.rate);
        tokio::time::sleep_until(due).await;
        if tokio::time::Instant::now() >= p.end {
            out.skipped += (p.total - seq).div_ceil(p.writers);
            break;
        }
        // Thirds of creates, updates and deletes once a few objects exist.
        let ty = match k % 3 {
            0 => ADDED,
            1 if !live.is_empty() => MODIFIED,
            2 if live.len() > 4 => DELETED,
            2 if !live.is_empty() => MODIFIED,
            _ => ADDED,
        };
        k += 1;
        let sent = now_us();
        let result = match ty {
            ADDED => {
                let body = configmap_body(seq, seq, sent, None);
                conn.expect("POST", &base, Some(&body), &[201])
                    .await
                    .and_then(|r| written_rv(&r.body))
                    .map(|rv| {
                        out.known.push((rv, ADDED << 30 | seq));
                        live.push_back((seq, rv.to_string()));
                    })
            }
            MODIFIED => {
                let (id, rv) = live.pop_front().expect("live object");
                let body = configmap_body(id, seq, sent, Some(&rv));
                conn.expect("PUT", &format!("{base}/{PREFIX}{id}"), Some(&body), &[200])
                    .await
                    .and_then(|r| written_rv(&r.body))
                    .map(|rv| {
                        out.known.push((rv, MODIFIED << 30 | id));
                        live.push_back((id, rv.to_string()));
                    })
            }
            _ => {
                let (id, rv) = live.pop_front().expect("live object");
                if let Some(slot) = del_sent.get(id as usize) {
                    slot.store(sent, Ordering::Release);
                }
                conn.expect("DELETE", &format!("{base}/{PREFIX}{id}"), None, &[200, 202])
                    .await
                    .and_then(|_| parse_rv(&rv))
                    .map(|rv| out.deletes.push((id, rv)))
            }
        };
        let done = tokio::time::Instant::now();
        out.latencies_us
            .push((now_us().saturating_sub(sent)).min(u64::from(u32::MAX)) as u32);
        match result {
            Ok(()) => {
                out.counts[ty as usize] += 1;
                out.last_done = Some(done);
            }
            Err(e) => {
                out.errors += 1;
                out.first_error.get_or_insert(e);
                // The connection may be unusable after a failure: start a new one.
                match Conn::connect(p.addr).await {
                    Ok(c) => conn = c,
                    Err(_) => return out,
                }
            }
        }
    }
    out
}

fn written_rv(body: &[u8]) -> Result<u64, String> {
    let obj: WireObject = serde_json::from_slice(body).map_err(|e| format!("write answer: {e}"))?;
    parse_rv(&obj.metadata.resource_version)
}

async fn list_configmaps_rv(addr: SocketAddr) -> Result<u64, String> {
    let mut c = Conn::connect(addr).await.map_err(|e| e.to_string())?;
    let r = c
        .expect(
            "GET",
            &format!("/api/v1/namespaces/{NS}/configmaps"),
            None,
            &[200],
        )
        .await?;
    parse_rv(&parse_list(&r.body)?.metadata.resource_version)
}

#[derive(Default)]
struct Verdict {
    expected: u64,
    delivered: u64,
    lost: u64,
    duplicated: u64,
    reordered: u64,
    /// Events that match no write (wrong name/type for their resourceVersion, unknown delete).
    unexpected: u64,
    /// Watchers that saw the same delete at different resourceVersions.
    inconsistent_deletes: u64,
    min_per_watcher: u64,
    max_per_watcher: u64,
}

/// Checks every watcher's events against the writes.
fn verify(writers: &[WriterOut], watchers: &[WatcherOut], start_rv: u64, end_rv: u64) -> Verdict {
    let span = (end_rv - start_rv) as usize;
    // Per rv after start_rv: 0 when no create/update of ours has it, else 1 + (type << 30 | id).
    let mut known = vec![0u64; span + 1];
    let mut max_id = 0;
    let mut n_known = 0u64;
    for w in writers {
        for &(rv, tagged) in &w.known {
            if rv > start_rv && rv <= end_rv {
                known[(rv - start_rv) as usize] = tagged + 1;
                n_known += 1;
            }
            max_id = max_id.max(tagged & ((1 << 30) - 1));
        }
    }
    // Per id: 0 when not deleted, else 1 + the rv the object had before its deletion.
    let mut deleted_after = vec![0u64; max_id as usize + 1];
    let mut n_deletes = 0u64;
    for w in writers {
        for &(id, rv) in &w.deletes {
            deleted_after[id as usize] = rv + 1;
            n_deletes += 1;
        }
    }
    let expected = n_known + n_deletes;
    let mut delete_rv = vec![0u64; max_id as usize + 1];
    let mut v = Verdict {
        expected,
        min_per_watcher: u64::MAX,
        ..Verdict::default()
    };
    for w in watchers {
        let mut seen_rv = vec![false; span + 1];
        let mut seen_delete = vec![false; max_id as usize + 1];
        let mut matched = 0u64;
        let mut prev = 0u64;
        for &r in &w.records {
            let rv = r >> 32;
            let ty = (r >> 30) & 3;
            let id = r & ((1 << 30) - 1);
            if rv < prev {
                v.reordered += 1;
            }
            prev = prev.max(rv);
            if rv <= start_rv || rv > end_rv {
                v.unexpected += 1;
                continue;
            }
            let slot = (rv - start_rv) as usize;
            if ty == DELETED {
                let ok = known[slot] == 0
                    && deleted_after
                        .get(id as usize)
                        .is_some_and(|&after| after != 0 && rv + 1 > after);
                if !ok {
                    v.unexpected += 1;
                } else if seen_delete[id as usize] {
                    v.duplicated += 1;
                } else {
                    seen_delete[id as usize] = true;
                    matched += 1;
                    match delete_rv[id as usize] {
                        0 => delete_rv[id as usize] = rv,
                        first if first != rv => v.inconsistent_deletes += 1,
                        _ => {}
                    }
                }
            } else if known[slot] != (ty << 30 | id) + 1 {
                v.unexpected += 1;
            } else if seen_rv[slot] {
                v.duplicated += 1;
            } else {
                seen_rv[slot] = true;
                matched += 1;
            }
        }
        v.lost += expected.saturating_sub(matched);
        v.delivered += w.records.len() as u64;
        v.min_per_watcher = v.min_per_watcher.min(w.records.len() as u64);
        v.max_per_watcher = v.max_per_watcher.max(w.records.len() as u64);
    }
    if watchers.is_empty() {
        v.min_per_watcher = 0;
    }
    v
}

async fn bench_watch(addr: SocketAddr, o: &Opts) -> Result<bool, String> {
    let start_rv = list_configmaps_rv(addr).await?;
    let total = o.rate * o.duration;
    let del_sent: DeleteSent = Arc::new((0..total + 1).map(|_| AtomicU64::new(0)).collect());
    let path = format!(
        "/api/v1/namespaces/{NS}/configmaps?watch=true&resourceVersion={start_rv}&timeoutSeconds={}",
        o.duration + 300
    );
    let opening = Instant::now();
    let mut streams = Vec::with_capacity(o.watchers);
    for _ in 0..o.watchers {
        let ws = tokio::time::timeout(Duration::from_secs(10), open_watch(addr, &path))
            .await
            .map_err(|_| "a watch did not answer within 10 s".to_string())??;
        streams.push(ws);
    }
    let open_ms = opening.elapsed().as_secs_f64() * 1e3;
    let (ctrl_tx, ctrl_rx) = watch::channel(Ctrl::default());
    let watchers: Vec<_> = streams
        .into_iter()
        .map(|ws| tokio::spawn(run_watcher(ws, del_sent.clone(), ctrl_rx.clone())))
        .collect();

    let start = tokio::time::Instant::now() + Duration::from_millis(200);
    let end = start + Duration::from_secs(o.duration);
    let writers: Vec<_> = (0..o.writers as u64)
        .map(|index| {
            let plan = WriterPlan {
                addr,
                index,
                writers: o.writers as u64,
                rate: o.rate,
                start,
                end,
                total,
            };
            tokio::spawn(run_writer(plan, del_sent.clone()))
        })
        .collect();
    let mut written = Vec::new();
    for w in writers {
        written.push(w.await.map_err(|e| e.to_string())?);
    }
    let writes_done = tokio::time::Instant::now();
    let end_rv = list_configmaps_rv(addr).await?;

    let n_expected: u64 = written.iter().map(|w| w.counts.iter().sum::<u64>()).sum();
    ctrl_tx.send_replace(Ctrl {
        expected: Some(n_expected),
        abort: false,
    });
    let drain_deadline = tokio::time::Instant::now() + DRAIN_GRACE;
    let mut outs = Vec::with_capacity(watchers.len());
    let mut timed_out = 0;
    for mut h in watchers {
        let out = match tokio::time::timeout_at(drain_deadline, &mut h).await {
            Ok(r) => r,
            Err(_) => {
                timed_out += 1;
                ctrl_tx.send_replace(Ctrl {
                    expected: Some(n_expected),
                    abort: true,
                });
                h.await
            }
        };
        outs.push(out.map_err(|e| e.to_string())?);
    }
    let drained_ms = writes_done.elapsed().as_secs_f64() * 1e3;

    // Writes.
    let counts = written.iter().fold([0u64; 3], |mut acc, w| {
        for (a, c) in acc.iter_mut().zip(w.counts) {
            *a += c;
        }
        acc
    });
    let errors: u64 = written.iter().map(|w| w.errors).sum();
    let skipped: u64 = written.iter().map(|w| w.skipped).sum();
    let last_done = written.iter().filter_map(|w| w.last_done).max();
    let active_secs = last_done
        .map(|t| t.saturating_duration_since(start).as_secs_f64())
        .unwrap_or(0.0)
        .max(o.duration as f64);
    let mut write_lat: Vec<u32> = written
        .iter()
        .flat_map(|w| w.latencies_us.iter().copied())
        .collect();
    write_lat.sort_unstable();
    line(&format!(
        "watch_writes writers={} rate_target={} rate_achieved={:.0} writes={n_expected} creates={} updates={} deletes={} errors={errors} skipped={skipped} write_p50_ms={:.2} write_p99_ms={:.2} write_max_ms={:.2}",
        o.writers,
        o.rate,
        n_expected as f64 / active_secs,
        counts[ADDED as usize],
        counts[MODIFIED as usize],
        counts[DELETED as usize],
        ms_from_us(percentile(&write_lat, 0.5)),
        ms_from_us(percentile(&write_lat, 0.99)),
        ms_from_us(percentile(&write_lat, 1.0)),
    ));
    if let Some(e) = written.iter().find_map(|w| w.first_error.as_ref()) {
        line(&format!("watch_write_error first={e:?}"));
    }

    // Watches.
    let v = verify(&written, &outs, start_rv, end_rv);
    let mut lags: Vec<u32> = outs
        .iter()
        .flat_map(|w| w.lags_us.iter().copied())
        .collect();
    lags.sort_unstable();
    let foreign: u64 = outs.iter().map(|w| w.foreign).sum();
    let untimed: u64 = outs.iter().map(|w| w.untimed).sum();
    let watch_errors = outs.iter().filter(|w| w.error.is_some()).count();
    line(&format!(
        "watch watchers={} open_ms={open_ms:.0} duration_s={} rate_target={} rate_achieved={:.0} events_per_watcher={} min_received={} max_received={} delivered={} lost={} duplicated={} reordered={} unexpected={} inconsistent_deletes={} watch_errors={watch_errors} drain_timeouts={timed_out} foreign={foreign} untimed={untimed} end_to_end_lag_p50_ms={:.2} end_to_end_lag_p99_ms={:.2} end_to_end_lag_max_ms={:.2} drain_ms={drained_ms:.0}",
        o.watchers,
        o.duration,
        o.rate,
        n_expected as f64 / active_secs,
        v.expected,
        v.min_per_watcher,
        v.max_per_watcher,
        v.delivered,
        v.lost,
        v.duplicated,
        v.reordered,
        v.unexpected,
        v.inconsistent_deletes,
        ms_from_us(percentile(&lags, 0.5)),
        ms_from_us(percentile(&lags, 0.99)),
        ms_from_us(percentile(&lags, 1.0)),
    ));
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for w in &outs {
        if let Some(e) = &w.error {
            match reasons.iter_mut().find(|(r, _)| *r == e.as_str()) {
                Some((_, n)) => *n += 1,
                None => reasons.push((e.as_str(), 1)),
            }
        }
    }
    for (reason, n) in reasons {
        line(&format!("watch_error watchers={n} reason={reason:?}"));
    }
    let correct = errors == 0
        && skipped == 0
        && v.lost == 0
        && v.duplicated == 0
        && v.reordered == 0
        && v.unexpected == 0
        && v.inconsistent_deletes == 0;
    Ok(correct)
}

// ---------------------------------------------------------------------------------------------

/// The demo cluster on a runtime and threads of its own, so its work is never queued behind
/// the benchmark's clients on one scheduler.
struct ServerThread {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    thread: std::thread::JoinHandle<Result<(), String>>,
}

fn start_server(controllers: bool) -> Result<ServerThread, String> {
    let (addr_tx, addr_rx) = std::sync::mpsc::channel::<Result<SocketAddr, String>>();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("demo-cluster".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .thread_name("demo-cluster-worker")
                .enable_all()
                .build()
                .map_err(|e| format!("server runtime: {e}"))?;
            runtime.block_on(async move {
                let started = demo_cluster::start(Config {
                    listen: SocketAddr::from(([127, 0, 0, 1], 0)),
                    empty: true,
                    controllers,
                    ..Config::default()
                })
                .await
                .map_err(|e| format!("starting the demo cluster: {e}"));
                let cluster = match started {
                    Ok(cluster) => cluster,
                    Err(e) => {
                        // The receiver reports the error; nothing else to do with a failed send.
                        addr_tx.send(Err(e.clone())).ok();
                        return Err(e);
                    }
                };
                addr_tx
                    .send(Ok(cluster.addr()))
                    .map_err(|_| "the benchmark went away".to_string())?;
                // A dropped sender also means stop.
                stopped.await.ok();
                match tokio::time::timeout(Duration::from_secs(10), cluster.shutdown()).await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(e)) => Err(format!("shutdown: {e}")),
                    Err(_) => Err("the server did not shut down within 10 s".into()),
                }
            })
        })
        .map_err(|e| format!("server thread: {e}"))?;
    let addr = addr_rx
        .recv()
        .map_err(|_| "the server thread ended before listening".to_string())??;
    Ok(ServerThread { addr, stop, thread })
}

impl ServerThread {
    async fn shutdown(self) -> Result<(), String> {
        self.stop.send(()).ok();
        tokio::task::spawn_blocking(move || self.thread.join())
            .await
            .map_err(|e| e.to_string())?
            .map_err(|_| "the server thread panicked".to_string())?
    }
}

async fn run(o: &Opts) -> Result<bool, String> {
    let controllers = o.controllers;
    let server = tokio::task::spawn_blocking(move || start_server(controllers))
        .await
        .map_err(|e| e.to_string())??;
    let addr = server.addr;
    line(&format!(
        "server controllers={} runtime=own (clients on a separate runtime, same process and CPUs)",
        o.controllers
    ));
    create_namespace(addr).await?;
    if o.pods > 0 {
        create_pods(addr, o.pods).await?;
        bench_lists(addr, o).await?;
        if !o.keep_pods {
            drop_pods(addr).await?;
        }
    }
    let correct = if o.watchers > 0 {
        bench_watch(addr, o).await?
    } else {
        true
    };
    server.shutdown().await?;
    Ok(correct)
}

#[tokio::main]
async fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    now_us();
    let started = Instant::now();
    let result = run(&opts).await;
    line(&format!(
        "total wall_s={:.1}",
        started.elapsed().as_secs_f64()
    ));
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!(
                "bench demo-cluster: FAILED: writes failed or were skipped, or watch events were \
                 lost, duplicated, reordered or wrong"
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("bench demo-cluster: error: {e}");
            ExitCode::FAILURE
        }
    }
}

//! A real Kubernetes control plane for tests, as controller-runtime's *envtest* starts one:
//! etcd and kube-apiserver (plus kube-controller-manager, kube-scheduler and a stand-in kubelet
//! where a test needs controllers and running pods) on free loopback ports in a temporary
//! directory, ready once `/readyz` answers, and every process gone when the [`ControlPlane`]
//! drops. [`KubectlProxy`] puts a real `kubectl proxy` in front, as the README tells users to
//! run the dashboard. [`ControlPlane::start_with_oidc`] starts kube-apiserver taking an OIDC
//! issuer's ID tokens ([`OidcAuthenticator`]: `--oidc-issuer-url`, `--oidc-client-id`,
//! `--oidc-ca-file`, the username and groups claims).
//!
//! The binaries come from `KUBEBUILDER_ASSETS` when it is set (envtest's convention, so a
//! kubebuilder or kind download works too), else from `target/control-plane/bin`, where
//! `cargo xtask setup` unpacks `../shared/kubernetes/bin`.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The token of the `admin` user (group `system:masters`).
pub const ADMIN_TOKEN: &str = "atlas-admin-token";
/// The token of the `viewer` user (group `viewers`, bound to the `view` ClusterRole in
/// namespace `default` only).
pub const VIEWER_TOKEN: &str = "atlas-viewer-token";

/// The binaries every control plane needs; the controller manager and the scheduler only
/// when [`Options::controllers`] is set.
const REQUIRED_BINARIES: [&str; 2] = ["etcd", "kube-apiserver"];

/// The workspace this crate sits in.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `../shared/kubernetes` beside the clone: the compressed binaries and the stand-in kubelet.
pub fn shared_kubernetes_dir() -> PathBuf {
    workspace_root().join("../shared/kubernetes")
}

/// Where `cargo xtask setup` unpacks the binaries.
pub fn unpacked_assets_dir() -> PathBuf {
    workspace_root().join("target/control-plane/bin")
}

/// The directory holding `etcd` and `kube-apiserver` (and the controller manager and the
/// scheduler), or why there is none.
pub fn assets_dir() -> Result<PathBuf, String> {
    let (dir, source) = match std::env::var_os("KUBEBUILDER_ASSETS") {
        Some(dir) => (PathBuf::from(dir), "KUBEBUILDER_ASSETS"),
        None => (unpacked_assets_dir(), "`cargo xtask setup`'s unpacked copy"),
    };
    match REQUIRED_BINARIES
        .iter()
        .find(|binary| !dir.join(binary).is_file())
    {
        Some(missing) => Err(format!(
            "no {missing} in {} ({source}); run `cargo xtask setup` with ../shared/kubernetes \
             beside the clone, or point KUBEBUILDER_ASSETS at a directory of control-plane binaries",
            dir.display()
        )),
        None => Ok(dir),
    }
}

/// What a control plane runs besides etcd and kube-apiserver.
#[derive(Clone, Debug)]
pub struct Options {
    /// kube-controller-manager (every controller but node lifecycle, which would mark the
    /// stand-in nodes NotReady) and kube-scheduler.
    pub controllers: bool,
    /// Nodes of the stand-in kubelet (`../shared/kubernetes/fake_kubelet.py`); 0 runs none.
    pub nodes: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            controllers: true,
            nodes: 2,
        }
    }
}

/// kube-apiserver's OIDC authenticator (`--oidc-*`): ID tokens of `issuer_url` for
/// `client_id` are bearer tokens of the cluster. kube-apiserver fetches the issuer's discovery
/// document and keys itself (and retries), so the issuer should be up when the plane starts.
#[derive(Clone, Debug)]
pub struct OidcAuthenticator {
    pub issuer_url: String,
    pub client_id: String,
    /// The CA of the issuer's certificate.
    pub ca_file: PathBuf,
    /// The claim naming the user (`--oidc-username-claim`).
    pub username_claim: String,
    /// The claim listing the user's groups (`--oidc-groups-claim`).
    pub groups_claim: String,
    /// Put before each user name (`--oidc-username-prefix`); `-` for none.
    pub username_prefix: String,
}

impl OidcAuthenticator {
    /// The flags kube-apiserver is started with.
    pub fn api_server_args(&self) -> Vec<String> {
        vec![
            format!("--oidc-issuer-url={}", self.issuer_url),
            format!("--oidc-client-id={}", self.client_id),
            format!("--oidc-ca-file={}", self.ca_file.display()),
            format!("--oidc-username-claim={}", self.username_claim),
            format!("--oidc-groups-claim={}", self.groups_claim),
            format!("--oidc-username-prefix={}", self.username_prefix),
        ]
    }
}

/// A started process, killed when the control plane drops.
struct Process {
    name: &'static str,
    child: Child,
}

/// A running control plane; dropping it kills every process and removes its directory.
pub struct ControlPlane {
    dir: tempfile::TempDir,
    assets: PathBuf,
    api_server_port: u16,
    api_server_args: Vec<String>,
    /// In start order; stopped in reverse.
    processes: Vec<Process>,
}

/// The first port of the kernel's ephemeral range (`ip_local_port_range`), where it assigns
/// the local ports of outgoing connections and of `bind(…:0)`.
fn ephemeral_ports_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32768)
}

/// A free loopback port below the ephemeral range, picked at random and checked by binding
/// it. A port from `bind(…:0)` would come from the ephemeral range, where any outgoing
/// connection (a browser's, a proxy's) can take it as its local port between the check and
/// the server's own bind, or while kube-apiserver is down for a restart on the same port.
pub fn free_port() -> u16 {
    use std::hash::{BuildHasher, Hasher};
    const LOWEST: u16 = 10_000;
    let below = ephemeral_ports_start().max(LOWEST + 1_000);
    for _ in 0..1_000 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        let port = LOWEST + (hasher.finish() % u64::from(below - LOWEST)) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port in {LOWEST}..{below}")
}

/// How often [`ControlPlane::start`] starts again on new ports when another process took
/// one of them first.
const START_ATTEMPTS: u32 = 3;

/// Why etcd and kube-apiserver did not start.
enum StartError {
    /// One of them found its port taken: starting again on other ports helps.
    PortTaken(String),
    Other(String),
}

impl From<String> for StartError {
    fn from(reason: String) -> Self {
        StartError::Other(reason)
    }
}

impl ControlPlane {
    /// Starts etcd and kube-apiserver (RBAC on, the admin and viewer tokens), waits for
    /// `/readyz`, binds the viewer to `view` in `default`, then starts what `options` asks.
    pub fn start(options: Options) -> Result<ControlPlane, String> {
        Self::start_with_api_server_args(options, &[])
    }

    /// As [`ControlPlane::start`], kube-apiserver also taking ID tokens of `oidc`'s issuer.
    pub fn start_with_oidc(
        options: Options,
        oidc: &OidcAuthenticator,
    ) -> Result<ControlPlane, String> {
        Self::start_with_api_server_args(options, &oidc.api_server_args())
    }

    /// As [`ControlPlane::start`], with `extra` flags on kube-apiserver's command line from
    /// its first start.
    pub fn start_with_api_server_args(
        options: Options,
        extra: &[String],
    ) -> Result<ControlPlane, String> {
        let mut attempt = 1;
        loop {
            match Self::start_servers(extra) {
                Err(StartError::PortTaken(reason)) if attempt < START_ATTEMPTS => {
                    eprintln!("envtest: {reason}; starting again on other ports");
                    attempt += 1;
                }
                Err(StartError::PortTaken(reason) | StartError::Other(reason)) => {
                    return Err(reason)
                }
                Ok(plane) => return plane.start_the_rest(options),
            }
        }
    }

    /// etcd and kube-apiserver on fresh ports in a fresh directory, ready.
    fn start_servers(extra: &[String]) -> Result<ControlPlane, StartError> {
        let assets = assets_dir()?;
        let dir = tempfile::Builder::new()
            .prefix("kube-atlas-envtest-")
            .tempdir()
            .map_err(|e| format!("a temporary directory: {e}"))?;
        let mut plane = ControlPlane {
            api_server_port: free_port(),
            api_server_args: Vec::new(),
            assets,
            dir,
            processes: Vec::new(),
        };
        plane.write_credentials()?;
        let etcd_port = free_port();
        let etcd_peer_port = free_port();
        plane.spawn(
            "etcd",
            &[
                "--data-dir".into(),
                plane.path("etcd"),
                "--listen-client-urls".into(),
                format!("http://127.0.0.1:{etcd_port}"),
                "--advertise-client-urls".into(),
                format!("http://127.0.0.1:{etcd_port}"),
                "--listen-peer-urls".into(),
                format!("http://127.0.0.1:{etcd_peer_port}"),
                "--unsafe-no-fsync".into(),
            ],
        )?;
        plane.api_server_args = vec![
            format!("--etcd-servers=http://127.0.0.1:{etcd_port}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            format!("--secure-port={}", plane.api_server_port),
            format!("--cert-dir={}", plane.path("certs")),
            "--service-account-issuer=https://kubernetes.default.svc".into(),
            format!("--service-account-key-file={}", plane.path("sa.pub")),
            format!(
                "--service-account-signing-key-file={}",
                plane.path("sa.key")
            ),
            "--service-cluster-ip-range=10.96.0.0/16".into(),
            "--authorization-mode=Node,RBAC".into(),
            format!("--token-auth-file={}", plane.path("tokens.csv")),
            "--allow-privileged=true".into(),
        ];
        plane.api_server_args.extend_from_slice(extra);
        if let Err(reason) = plane.start_api_server() {
            let taken = ["etcd", "kube-apiserver"]
                .iter()
                .any(|name| plane.log_tail(name).contains("address already in use"));
            return Err(if taken {
                StartError::PortTaken(reason)
            } else {
                StartError::Other(reason)
            });
        }
        Ok(plane)
    }

    /// After the servers: the viewer's binding, then what `options` asks.
    fn start_the_rest(mut self, options: Options) -> Result<ControlPlane, String> {
        let plane = &mut self;
        plane.kubectl_ok(&[
            "create",
            "rolebinding",
            "viewers-view",
            "--clusterrole=view",
            "--group=viewers",
            "--namespace=default",
        ])?;
        if options.controllers {
            let kubeconfig = plane.admin_kubeconfig().display().to_string();
            plane.spawn(
                "kube-controller-manager",
                &[
                    format!("--kubeconfig={kubeconfig}"),
                    "--leader-elect=false".into(),
                    format!(
                        "--service-account-private-key-file={}",
                        plane.path("sa.key")
                    ),
                    format!("--root-ca-file={}", plane.path("certs/apiserver.crt")),
                    "--controllers=*,-node-lifecycle-controller".into(),
                    "--bind-address=127.0.0.1".into(),
                    "--secure-port=0".into(),
                ],
            )?;
            plane.spawn(
                "kube-scheduler",
                &[
                    format!("--kubeconfig={kubeconfig}"),
                    "--leader-elect=false".into(),
                    "--bind-address=127.0.0.1".into(),
                    "--secure-port=0".into(),
                ],
            )?;
        }
        if options.nodes > 0 {
            plane.start_kubelet(options.nodes)?;
        }
        Ok(self)
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// The service-account key pair, the token file and the two kubeconfigs.
    fn write_credentials(&self) -> Result<(), String> {
        let dir = self.dir.path();
        std::fs::create_dir_all(dir.join("certs")).map_err(|e| format!("certs dir: {e}"))?;
        run_quietly(
            Command::new("openssl")
                .args(["genrsa", "-out"])
                .arg(dir.join("sa.key"))
                .arg("2048"),
        )?;
        run_quietly(
            Command::new("openssl")
                .args(["rsa", "-in"])
                .arg(dir.join("sa.key"))
                .args(["-pubout", "-out"])
                .arg(dir.join("sa.pub")),
        )?;
        let write = |name: &str, text: String| {
            std::fs::write(dir.join(name), text).map_err(|e| format!("writing {name}: {e}"))
        };
        write("tokens.csv", tokens_csv())?;
        write("admin.kubeconfig", self.kubeconfig("admin", ADMIN_TOKEN))?;
        write("viewer.kubeconfig", self.kubeconfig("viewer", VIEWER_TOKEN))
    }

    fn kubeconfig(&self, user: &str, token: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: envtest\n  cluster:\n    server: \"{}\"\n    insecure-skip-tls-verify: true\n\
             users:\n- name: {user}\n  user:\n    token: {token}\n\
             contexts:\n- name: envtest\n  context:\n    cluster: envtest\n    user: {user}\n    namespace: default\n\
             current-context: envtest\n",
            self.server_url()
        )
    }

    fn spawn(&mut self, name: &'static str, args: &[String]) -> Result<(), String> {
        let log = std::fs::File::create(self.dir.path().join(format!("{name}.log")))
            .map_err(|e| format!("{name}.log: {e}"))?;
        let err_log = log.try_clone().map_err(|e| format!("{name}.log: {e}"))?;
        let binary = self.assets.join(name);
        let child = Command::new(&binary)
            .args(args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err_log)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        self.processes.push(Process { name, child });
        Ok(())
    }

    fn start_kubelet(&mut self, nodes: u32) -> Result<(), String> {
        self.start_kubelet_with(nodes, &[])
    }

    /// Starts the stand-in kubelet of `nodes` nodes with `--metrics`: the stand-in
    /// metrics-server behind kube-apiserver's aggregator (`v1beta1.metrics.k8s.io`), and waits
    /// (60 s at most) until its nodes' metrics are served. For a plane started with
    /// `nodes: 0`.
    pub fn start_kubelet_with_metrics(&mut self, nodes: u32) -> Result<(), String> {
        self.start_kubelet_with(nodes, &["--metrics"])?;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let served = self
                .kubectl(&["get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes"])
                .is_ok_and(|out| {
                    out.status.success()
                        && String::from_utf8_lossy(&out.stdout).contains("\"usage\"")
                });
            if served {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the metrics API was not served within 60 s:\n{}",
                    self.log_tail("kubelet")
                ));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    fn start_kubelet_with(&mut self, nodes: u32, flags: &[&str]) -> Result<(), String> {
        let script = shared_kubernetes_dir().join("fake_kubelet.py");
        if !script.is_file() {
            return Err(format!("no stand-in kubelet at {}", script.display()));
        }
        let log = std::fs::File::create(self.dir.path().join("kubelet.log"))
            .map_err(|e| format!("kubelet.log: {e}"))?;
        let err_log = log.try_clone().map_err(|e| format!("kubelet.log: {e}"))?;
        // With `--streams` kube-apiserver's log, exec, attach and port-forward paths run end
        // to end; the script runs `kubelet-streams` from beside the kubeconfig, linked to the
        // unpacked copy among the assets (else it unpacks its own).
        let streams = self.assets.join("kubelet-streams");
        if streams.is_file() {
            let _ = std::os::unix::fs::symlink(&streams, self.dir.path().join("kubelet-streams"));
        }
        let child = Command::new("python3")
            .arg("-u")
            .arg(&script)
            .arg(self.admin_kubeconfig())
            .arg(nodes.to_string())
            .arg("--streams")
            .args(flags)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err_log)
            .spawn()
            .map_err(|e| format!("cannot start the stand-in kubelet: {e}"))?;
        self.processes.push(Process {
            name: "kubelet",
            child,
        });
        Ok(())
    }

    /// Starts kube-apiserver (again, after [`ControlPlane::stop_api_server`]) on the same port
    /// and etcd, and waits for `/readyz`.
    pub fn start_api_server(&mut self) -> Result<(), String> {
        let args = self.api_server_args.clone();
        self.spawn("kube-apiserver", &args)?;
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            if self
                .kubectl(&["get", "--raw", "/readyz"])
                .is_ok_and(|out| out.status.success())
            {
                return Ok(());
            }
            if let Some(exited) = self.exited("kube-apiserver") {
                return Err(format!(
                    "kube-apiserver exited ({exited}):\n{}",
                    self.log_tail("kube-apiserver")
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "kube-apiserver not ready within 90 s:\n{}",
                    self.log_tail("kube-apiserver")
                ));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// What pods need on a control plane started without controllers: the `default` service
    /// account in namespace `default` (admission asks for it); and the viewer's read of pods
    /// there, through a Role of its own (no controller aggregates the `view` ClusterRole).
    pub fn prepare_without_controllers(&self) -> Result<(), String> {
        let steps: [&[&str]; 3] = [
            &["create", "serviceaccount", "default", "--namespace=default"],
            &[
                "create",
                "role",
                "pod-reader",
                "--verb=get,list,watch",
                "--resource=pods",
                "--namespace=default",
            ],
            &[
                "create",
                "rolebinding",
                "viewers-read-pods",
                "--role=pod-reader",
                "--group=viewers",
                "--namespace=default",
            ],
        ];
        for args in steps {
            self.kubectl_ok(args)?;
        }
        Ok(())
    }

    /// Adds flags to kube-apiserver's command line, taking effect at its next
    /// [`ControlPlane::start_api_server`] (e.g. `--client-ca-file` for client certificates).
    pub fn add_api_server_args(&mut self, args: &[String]) {
        self.api_server_args.extend_from_slice(args);
    }

    /// Kills kube-apiserver (as a crash would: open connections drop at once); etcd and the
    /// rest keep running, so [`ControlPlane::start_api_server`] brings the same cluster back.
    pub fn stop_api_server(&mut self) {
        if let Some(index) = self
            .processes
            .iter()
            .position(|p| p.name == "kube-apiserver")
        {
            let mut process = self.processes.remove(index);
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
    }

    /// The exit status of the process `name`, if it has exited.
    fn exited(&mut self, name: &str) -> Option<std::process::ExitStatus> {
        self.processes
            .iter_mut()
            .find(|p| p.name == name)
            .and_then(|p| p.child.try_wait().ok().flatten())
    }

    /// The last lines of a process's log, for error messages.
    pub fn log_tail(&self, name: &str) -> String {
        let text = std::fs::read_to_string(self.dir.path().join(format!("{name}.log")))
            .unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// `https://127.0.0.1:PORT`.
    pub fn server_url(&self) -> String {
        format!("https://127.0.0.1:{}", self.api_server_port)
    }

    /// The admin's kubeconfig (token [`ADMIN_TOKEN`], group `system:masters`).
    pub fn admin_kubeconfig(&self) -> PathBuf {
        self.dir.path().join("admin.kubeconfig")
    }

    /// The viewer's kubeconfig (token [`VIEWER_TOKEN`], `view` in namespace `default`).
    pub fn viewer_kubeconfig(&self) -> PathBuf {
        self.dir.path().join("viewer.kubeconfig")
    }

    /// The control plane's working directory (logs, kubeconfigs, etcd data).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The operating-system process ids of what runs, by name.
    pub fn pids(&self) -> Vec<(&'static str, u32)> {
        self.processes
            .iter()
            .map(|p| (p.name, p.child.id()))
            .collect()
    }

    /// `kubectl` as the admin, run to its end.
    pub fn kubectl(&self, args: &[&str]) -> std::io::Result<std::process::Output> {
        Command::new("kubectl")
            .arg(format!(
                "--kubeconfig={}",
                self.admin_kubeconfig().display()
            ))
            .arg(format!("--cache-dir={}", self.path("kubectl-cache")))
            .args(args)
            .stdin(Stdio::null())
            .output()
    }

    /// As [`ControlPlane::kubectl`], failing with kubectl's words unless it succeeds; returns
    /// its standard output.
    pub fn kubectl_ok(&self, args: &[&str]) -> Result<String, String> {
        let out = self
            .kubectl(args)
            .map_err(|e| format!("kubectl {}: {e}", args.join(" ")))?;
        if !out.status.success() {
            return Err(format!(
                "kubectl {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Drop for ControlPlane {
    // Also on a failed assertion: never leave a control plane running.
    fn drop(&mut self) {
        for process in self.processes.iter_mut().rev() {
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
    }
}

fn run_quietly(command: &mut Command) -> Result<(), String> {
    let out = command.output().map_err(|e| format!("{command:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{command:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Reads the port a child announces on stdout in a line containing `marker` (chromedriver:
/// "started successfully on port N."; kubectl proxy: "Starting to serve on 127.0.0.1:N").
/// Later output is drained on a thread so the child never blocks on a full pipe.
pub fn announced_port(child: &mut Child, marker: &'static str) -> Result<u16, String> {
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| "the child's stdout is not piped".to_string())?;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sender = Some(sender);
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if !line.contains(marker) {
                continue;
            }
            let trimmed = line.trim_end_matches(|c: char| !c.is_ascii_digit());
            let digits_from = trimmed
                .rfind(|c: char| !c.is_ascii_digit())
                .map_or(0, |i| i + 1);
            let port = trimmed[digits_from..]
                .parse::<u16>()
                .ok()
                .filter(|p| *p != 0);
            if let (Some(port), Some(sender)) = (port, sender.take()) {
                sender.send(port).ok();
            }
        }
    });
    receiver
        .recv_timeout(Duration::from_secs(30))
        .map_err(|_| format!("no \"{marker}\" line with a port within 30 s"))
}

/// The tokens file that gives the admin and the viewer their tokens (kube-apiserver's
/// `--token-auth-file` format): the real control plane's, and a demo cluster's run with RBAC.
pub fn tokens_csv() -> String {
    format!("{ADMIN_TOKEN},admin,1,system:masters\n{VIEWER_TOKEN},viewer,2,viewers\n")
}

/// A real `kubectl proxy` on a free loopback port, serving `www` under `/ui/` when given
/// (`kubectl proxy --www=dist --www-prefix=/ui/`, as the README says); killed on drop.
pub struct KubectlProxy {
    child: Child,
    port: u16,
}

impl KubectlProxy {
    /// Proxies to the cluster and credentials of `kubeconfig`.
    pub fn start(
        kubeconfig: &Path,
        www: Option<&Path>,
        cache_dir: &Path,
    ) -> Result<KubectlProxy, String> {
        let mut command = Command::new("kubectl");
        command
            .arg(format!("--kubeconfig={}", kubeconfig.display()))
            .arg(format!("--cache-dir={}", cache_dir.display()))
            .args(["proxy", "--address=127.0.0.1", "--port=0"]);
        if let Some(www) = www {
            command
                .arg(format!("--www={}", www.display()))
                .arg("--www-prefix=/ui/");
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("kubectl proxy: {e}"))?;
        let port = match announced_port(&mut child, "Starting to serve on") {
            Ok(port) => port,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("kubectl proxy: {e}"));
            }
        };
        Ok(KubectlProxy { child, port })
    }

    /// Proxies to `server` (plain HTTP, no credentials: the demo cluster), with a kubeconfig
    /// written into `scratch`.
    pub fn for_server(
        server: &str,
        www: Option<&Path>,
        scratch: &Path,
    ) -> Result<KubectlProxy, String> {
        Self::for_server_as(server, None, www, scratch)
    }

    /// As [`KubectlProxy::for_server`], sending `token` as the bearer token of every request
    /// (the demo cluster run with a tokens file: [`ADMIN_TOKEN`], [`VIEWER_TOKEN`]).
    pub fn for_server_as(
        server: &str,
        token: Option<&str>,
        www: Option<&Path>,
        scratch: &Path,
    ) -> Result<KubectlProxy, String> {
        std::fs::create_dir_all(scratch)
            .map_err(|e| format!("creating {}: {e}", scratch.display()))?;
        let kubeconfig = scratch.join("kubeconfig");
        let user = match token {
            Some(token) => format!("\n    token: {token}"),
            None => " {}".to_string(),
        };
        // The demo cluster's example certificate is self-signed (kubectl sends tokens only
        // over TLS, so a token user's server is an https one).
        let trust = if server.starts_with("https://") {
            "\n    insecure-skip-tls-verify: true"
        } else {
            ""
        };
        std::fs::write(
            &kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: demo\n  cluster:\n    server: {server}{trust}\n\
                 contexts:\n- name: demo\n  context:\n    cluster: demo\n    user: demo\n\
                 current-context: demo\nusers:\n- name: demo\n  user:{user}\n"
            ),
        )
        .map_err(|e| format!("writing {}: {e}", kubeconfig.display()))?;
        Self::start(&kubeconfig, www, &scratch.join("cache"))
    }

    /// `http://127.0.0.1:PORT`: the API at its root, the dashboard (if served) under `/ui/`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for KubectlProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How a kubeconfig context checks its server's certificate.
pub enum ServerCheck<'a> {
    /// `insecure-skip-tls-verify` (or plain HTTP).
    Unchecked,
    /// Against a CA file (`certificate-authority`).
    CaFile(&'a Path),
}

/// Who a kubeconfig context is.
pub enum Credentials<'a> {
    Anonymous,
    Token(&'a str),
    ClientCertificate { cert: &'a str, key: &'a str },
}

/// One context of [`kubeconfig_of`]: its cluster and user entries are named after it.
pub struct ContextEntry<'a> {
    pub name: &'a str,
    pub server: String,
    pub check: ServerCheck<'a>,
    pub credentials: Credentials<'a>,
}

/// A kubeconfig of several contexts, as a user's kubeconfig holds several clusters.
pub fn kubeconfig_of(contexts: &[ContextEntry]) -> String {
    let mut clusters = String::new();
    let mut users = String::new();
    let mut named = String::new();
    for context in contexts {
        let name = context.name;
        clusters.push_str(&format!(
            "- name: {name}\n  cluster:\n    server: {}\n",
            context.server
        ));
        match context.check {
            ServerCheck::Unchecked if context.server.starts_with("https:") => {
                clusters.push_str("    insecure-skip-tls-verify: true\n")
            }
            ServerCheck::Unchecked => {}
            ServerCheck::CaFile(ca) => {
                clusters.push_str(&format!("    certificate-authority: {}\n", ca.display()))
            }
        }
        users.push_str(&match context.credentials {
            Credentials::Anonymous => format!("- name: {name}\n  user: {{}}\n"),
            Credentials::Token(token) => format!("- name: {name}\n  user:\n    token: {token}\n"),
            Credentials::ClientCertificate { cert, key } => format!(
                "- name: {name}\n  user:\n    client-certificate: {cert}\n    client-key: {key}\n"
            ),
        });
        named.push_str(&format!(
            "- name: {name}\n  context: {{cluster: {name}, user: {name}}}\n"
        ));
    }
    format!("apiVersion: v1\nkind: Config\nclusters:\n{clusters}users:\n{users}contexts:\n{named}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_ports_lie_below_the_ephemeral_range_and_can_be_bound() {
        let ephemeral_start = ephemeral_ports_start();
        for _ in 0..50 {
            let port = free_port();
            assert!(port < ephemeral_start.max(11_000), "{port} is ephemeral");
            assert!(TcpListener::bind(("127.0.0.1", port)).is_ok());
        }
    }
}

//! The simulated container behind `pods/exec` and `pods/attach`: a small built-in shell and a
//! "main process", as the stand-in kubelet of `../shared/kubernetes` (`kubelet-streams.go`,
//! `session`, `ExecInContainer`, `AttachContainer`) has them, word for word, so the demo
//! answers the same commands with the same bytes and exit codes as kube-apiserver does in
//! front of it.
//!
//! Commands: `echo`, `printf`, `hostname` (the pod's name), `whoami`, `pwd`, `date`, `env`,
//! `ls`, `cat` (`/etc/hostname`, `/etc/hosts`, `/etc/os-release`, …), `seq N`, `sleep N`,
//! `stty size` (the last resize), `true`, `false`, `exit N`, `sh -c "a; b"`; anything else is
//! `sh: x: not found`, exit 127. `sh` (or `bash`, `ash`, `X -i`) reads command lines from
//! stdin: with a terminal as a line discipline would (echo, backspace, Ctrl-C interrupting a
//! running command with exit 130, Ctrl-D), printing `/ # `; without one, a line at a time.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

/// A terminal's size, as the last resize message set it (24×80 until then).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub rows: u16,
    pub cols: u16,
}

impl Default for Size {
    fn default() -> Self {
        Size { rows: 24, cols: 80 }
    }
}

/// Where a process's output goes: the session's stdout and stderr, as far as the client asked
/// for them. Without stderr, errors go to stdout (with a terminal there is no stderr); without
/// either, nowhere.
#[derive(Debug, Clone)]
pub struct Output {
    tx: mpsc::UnboundedSender<Written>,
    stdout: bool,
    stderr: bool,
}

/// One write of the process, kept whole: each becomes one message on the socket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
}

impl Output {
    pub fn new(tx: mpsc::UnboundedSender<Written>, stdout: bool, stderr: bool) -> Output {
        Output { tx, stdout, stderr }
    }

    fn out(&self, bytes: impl Into<Vec<u8>>) {
        if self.stdout {
            let _ = self.tx.send(Written::Stdout(bytes.into()));
        }
    }

    fn err(&self, bytes: impl Into<Vec<u8>>) {
        if self.stderr {
            let _ = self.tx.send(Written::Stderr(bytes.into()));
        } else {
            self.out(bytes);
        }
    }
}

/// The process's stdin: what the client typed, in the chunks it sent; `None` at its end (the
/// v5 close signal, or the socket gone).
pub struct Input {
    rx: mpsc::UnboundedReceiver<Vec<u8>>,
    pending: VecDeque<u8>,
}

impl Input {
    pub fn new(rx: mpsc::UnboundedReceiver<Vec<u8>>) -> Input {
        Input {
            rx,
            pending: VecDeque::new(),
        }
    }

    /// The next byte; cancel-safe (nothing is lost when a `select!` drops it).
    async fn next_byte(&mut self) -> Option<u8> {
        loop {
            if let Some(b) = self.pending.pop_front() {
                return Some(b);
            }
            let chunk = self.rx.recv().await?;
            self.pending.extend(chunk);
        }
    }

    /// The next line without its `\n` (and the last, unterminated one at the end), as Go's
    /// `bufio.Scanner` splits them.
    async fn next_line(&mut self) -> Option<Vec<u8>> {
        let mut line = vec![];
        loop {
            match self.next_byte().await {
                Some(b'\n') => return Some(line),
                Some(b) => line.push(b),
                None if line.is_empty() => return None,
                None => return Some(line),
            }
        }
    }
}

/// One session's shell: the pod it runs in, whether it has a terminal, where it writes.
pub struct Shell {
    pod: String,
    namespace: String,
    tty: bool,
    size: Arc<Mutex<Size>>,
    output: Output,
    /// Set while a running command is being interrupted (Ctrl-C, or stdin's end): `sleep`
    /// returns at once; every other command is quick and finishes.
    interrupt: tokio::sync::watch::Sender<bool>,
}

/// `seq` beyond this many numbers is cut short (the stand-in has no limit; the demo keeps one
/// runaway command from filling its memory).
const SEQ_LIMIT: i64 = 1_000_000;
/// `sleep` longer than this sleeps this long.
const SLEEP_LIMIT_SECS: f64 = 86_400.0;

const ROOT_LISTING: &[(&str, &[&str])] = &[
    (
        "/",
        &[
            "bin", "dev", "etc", "home", "proc", "root", "sys", "tmp", "usr", "var",
        ],
    ),
    (
        "/etc",
        &["hostname", "hosts", "os-release", "passwd", "resolv.conf"],
    ),
    (
        "/bin",
        &[
            "cat", "date", "echo", "env", "hostname", "ls", "printf", "pwd", "seq", "sh", "sleep",
            "stty", "whoami",
        ],
    ),
    ("/tmp", &[]),
    ("/usr", &["bin", "lib", "share"]),
    ("/var", &["log", "run"]),
    ("/home", &[]),
    ("/root", &[]),
    ("/var/log", &[]),
    ("/var/run", &["secrets"]),
    ("/usr/bin", &[]),
    ("/usr/lib", &[]),
    ("/proc", &["1", "cpuinfo", "meminfo", "self", "version"]),
    (
        "/dev",
        &["null", "stderr", "stdin", "stdout", "tty", "zero"],
    ),
    ("/sys", &["fs", "kernel"]),
    ("/usr/share", &[]),
];

fn directory(path: &str) -> Option<&'static [&'static str]> {
    ROOT_LISTING
        .iter()
        .find(|(dir, _)| *dir == path)
        .map(|(_, entries)| *entries)
}

type Run<'a> = Pin<Box<dyn Future<Output = (i32, bool)> + Send + 'a>>;

/// Go's `strconv.Atoi`, 0 when it fails (as the stand-in ignores the error).
fn atoi(text: &str) -> i64 {
    text.parse().unwrap_or(0)
}

impl Shell {
    pub fn new(
        pod: &str,
        namespace: &str,
        tty: bool,
        size: Arc<Mutex<Size>>,
        output: Output,
    ) -> Shell {
        Shell {
            pod: pod.to_string(),
            namespace: namespace.to_string(),
            tty,
            size,
            output,
            interrupt: tokio::sync::watch::channel(false).0,
        }
    }

    fn newline(&self) -> &'static str {
        if self.tty {
            "\r\n"
        } else {
            "\n"
        }
    }

    fn line(&self, text: &str) -> String {
        format!("{}{}", text.replace('\n', self.newline()), self.newline())
    }

    fn println(&self, text: &str) {
        self.output.out(self.line(text));
    }

    fn eprintln(&self, text: &str) {
        self.output.err(self.line(text));
    }

    fn file(&self, path: &str) -> Option<String> {
        let name = &self.pod;
        Some(match path {
            "/etc/hostname" => name.clone(),
            "/etc/hosts" => format!("127.0.0.1\tlocalhost\n10.244.0.5\t{name}"),
            "/etc/os-release" => "NAME=\"Stand-in Linux\"\nID=standin\nVERSION_ID=1.0".into(),
            "/etc/resolv.conf" => format!(
                "search {}.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5",
                self.namespace
            ),
            "/etc/passwd" => "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin".into(),
            "/proc/version" => "Linux version 6.1.0-standin (kubelet-streams)".into(),
            _ => return None,
        })
    }

    /// Runs `pods/exec`'s command: a shell reading stdin for `sh` alone (or `X -i`), else the
    /// one command. The exit code.
    pub async fn exec(&self, command: &[String], input: Option<Input>) -> i32 {
        let interactive = match command {
            [one] => matches!(
                one.as_str(),
                "sh" | "/bin/sh" | "bash" | "/bin/bash" | "ash"
            ),
            [_, flag] => flag == "-i",
            _ => false,
        };
        if interactive {
            return match input {
                Some(input) => self.interactive(input).await,
                None => 0,
            };
        }
        if command.is_empty() {
            return 0;
        }
        self.run_args(command.to_vec()).await.0
    }

    /// Runs one command line: the exit code and whether the shell ends (`exit`).
    fn run<'a>(&'a self, line: &str) -> Run<'a> {
        let args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        Box::pin(async move {
            if args.is_empty() {
                return (0, false);
            }
            self.run_args(args).await
        })
    }

    fn run_args(&self, args: Vec<String>) -> Run<'_> {
        Box::pin(async move {
            let mut cmd = args[0].as_str();
            if cmd.starts_with("/bin/") || cmd.starts_with("/usr/bin/") {
                cmd = cmd.rsplit('/').next().unwrap_or(cmd);
            }
            let rest = &args[1..];
            match cmd {
                "echo" => self.println(&rest.join(" ")),
                "printf" => {
                    if let Some(format) = rest.first() {
                        let text = format.replace("\\n", self.newline()).replace("\\t", "\t");
                        self.output.out(text);
                    }
                }
                "hostname" => self.println(&self.pod),
                "whoami" => self.println("root"),
                "pwd" => self.println("/"),
                "date" => self.println(
                    &chrono::Utc::now()
                        .format("%a %b %e %H:%M:%S UTC %Y")
                        .to_string(),
                ),
                "env" | "printenv" => {
                    let mut env = vec![
                        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
                            .to_string(),
                        format!("HOSTNAME={}", self.pod),
                        "HOME=/root".into(),
                        "KUBERNETES_SERVICE_HOST=10.96.0.1".into(),
                        "KUBERNETES_SERVICE_PORT=443".into(),
                        "KUBERNETES_PORT=tcp://10.96.0.1:443".into(),
                    ];
                    if self.tty {
                        env.push("TERM=xterm".into());
                    }
                    self.println(&env.join("\n"));
                }
                "ls" => {
                    let dir = match rest.last() {
                        Some(last) => match last.trim_end_matches('/') {
                            "" => "/",
                            dir => dir,
                        },
                        None => "/",
                    };
                    match directory(dir) {
                        Some(entries) if !entries.is_empty() => self.println(&entries.join("\n")),
                        Some(_) => {}
                        None if self.file(dir).is_some() => self.println(dir),
                        None => {
                            self.eprintln(&format!("ls: {dir}: No such file or directory"));
                            return (1, false);
                        }
                    }
                }
                "cat" => {
                    let mut code = 0;
                    for path in rest {
                        if let Some(text) = self.file(path) {
                            self.println(&text);
                        } else if directory(path).is_some() {
                            self.eprintln("cat: read error: Is a directory");
                            code = 1;
                        } else {
                            self.eprintln(&format!(
                                "cat: can't open '{path}': No such file or directory"
                            ));
                            code = 1;
                        }
                    }
                    return (code, false);
                }
                "seq" => {
                    let n = rest.last().map_or(0, |last| atoi(last)).min(SEQ_LIMIT);
                    let mut text = String::new();
                    for i in 1..=n {
                        text.push_str(&i.to_string());
                        text.push_str(self.newline());
                    }
                    self.output.out(text);
                }
                "sleep" => {
                    let secs = rest
                        .first()
                        .map_or(1.0, |s| s.parse::<f64>().unwrap_or(0.0));
                    let secs = if secs.is_nan() {
                        0.0
                    } else {
                        secs.clamp(0.0, SLEEP_LIMIT_SECS)
                    };
                    let mut interrupted = self.interrupt.subscribe();
                    if !*interrupted.borrow_and_update() {
                        tokio::select! {
                            _ = tokio::time::sleep(Duration::from_secs_f64(secs)) => {}
                            _ = interrupted.wait_for(|on| *on) => {}
                        }
                    }
                }
                "stty" => {
                    if rest.first().map(String::as_str) == Some("size") {
                        let size = *self.size.lock().unwrap_or_else(|p| p.into_inner());
                        if !self.tty {
                            self.eprintln("stty: standard input: Not a tty");
                            return (1, false);
                        }
                        self.println(&format!("{} {}", size.rows, size.cols));
                    }
                }
                "true" | ":" => {}
                "false" => return (1, false),
                "exit" => {
                    let code = rest.first().map_or(0, |c| atoi(c));
                    return (code as i32, true);
                }
                "sh" | "bash" | "ash" => {
                    if rest.len() > 1 && rest[0] == "-c" {
                        let mut code = 0;
                        for part in rest[1..].join(" ").split(';') {
                            let part = part.trim().trim_matches(|c| c == '"' || c == '\'');
                            let (c, end) = self.run(part).await;
                            code = c;
                            if end {
                                return (code, true);
                            }
                        }
                        return (code, false);
                    }
                    self.eprintln("sh: nested shells are not supported here");
                    return (2, false);
                }
                _ => {
                    self.eprintln(&format!("sh: {}: not found", args[0]));
                    return (127, false);
                }
            }
            (0, false)
        })
    }

    /// Runs a line while still reading keys, so Ctrl-C reaches the command; other keys are
    /// typed ahead. (exit code, whether the shell ends)
    ///
    /// As the stand-in's: keys already sent are read before the command's end is looked at,
    /// and an interrupted command (Ctrl-C, or the end of stdin) is waited for; the end of
    /// stdin while a command runs ends the shell with 0, dropping lines typed ahead (the
    /// stand-in does the same or runs them, as its goroutines happen to be scheduled; the demo
    /// always drops them).
    async fn execute(
        &self,
        line: &str,
        input: &mut Input,
        ahead: &mut VecDeque<u8>,
    ) -> (i32, bool) {
        let mut run = self.run(line);
        loop {
            tokio::select! {
                biased;
                key = input.next_byte() => match key {
                    None => {
                        self.interrupted(run).await;
                        return (0, true);
                    }
                    Some(0x03) if self.tty => {
                        self.output.out("^C");
                        self.interrupted(run).await;
                        self.output.out("\r\n");
                        return (130, false);
                    }
                    Some(b) => ahead.push_back(b),
                },
                result = &mut run => return result,
            }
        }
    }

    /// Interrupts a running command and waits for it to return.
    async fn interrupted(&self, run: Run<'_>) {
        self.interrupt.send_replace(true);
        run.await;
        self.interrupt.send_replace(false);
    }

    /// The shell reading command lines from stdin: with a terminal as a terminal's line
    /// discipline would (echo, backspace, Ctrl-C, Ctrl-D), printing a prompt.
    async fn interactive(&self, mut input: Input) -> i32 {
        let prompt = || {
            if self.tty {
                self.output.out("/ # ");
            }
        };
        let mut ahead: VecDeque<u8> = VecDeque::new();
        prompt();
        let mut line: Vec<u8> = vec![];
        let mut last = 0;
        loop {
            let key = match ahead.pop_front() {
                Some(b) => Some(b),
                None => input.next_byte().await,
            };
            let Some(b) = key else {
                return last;
            };
            if !self.tty {
                if b == b'\n' {
                    let text = String::from_utf8_lossy(&line).into_owned();
                    let (code, end) = self.execute(&text, &mut input, &mut ahead).await;
                    line.clear();
                    last = code;
                    if end {
                        return code;
                    }
                } else {
                    line.push(b);
                }
                continue;
            }
            match b {
                b'\r' | b'\n' => {
                    self.output.out("\r\n");
                    let text = String::from_utf8_lossy(&line).into_owned();
                    let (code, end) = self.execute(&text, &mut input, &mut ahead).await;
                    line.clear();
                    last = code;
                    if end {
                        return code;
                    }
                    prompt();
                }
                0x7f | 0x08 if !line.is_empty() => {
                    line.pop();
                    self.output.out("\x08 \x08");
                }
                0x03 => {
                    self.output.out("^C\r\n");
                    line.clear();
                    prompt();
                }
                0x04 if line.is_empty() => {
                    self.output.out("exit\r\n");
                    return last;
                }
                // Backspace on an empty line, Ctrl-D after some text: nothing.
                0x7f | 0x08 | 0x04 => {}
                0x1b => {
                    // An escape sequence (arrows): read and drop it.
                    let next = match ahead.pop_front() {
                        Some(b) => Some(b),
                        None => input.next_byte().await,
                    };
                    if next == Some(b'[') {
                        loop {
                            let c = match ahead.pop_front() {
                                Some(b) => Some(b),
                                None => input.next_byte().await,
                            };
                            match c {
                                Some(0x40..=0x7e) | None => break,
                                Some(_) => {}
                            }
                        }
                    }
                }
                b if b >= 0x20 => {
                    line.push(b);
                    self.output.out(vec![b]);
                }
                _ => {}
            }
        }
    }

    /// `pods/attach`: the container's main process prints `<pod>: tick N` every 2 s and answers
    /// each line sent to it with `received: <line>`; it returns when stdin ends.
    pub async fn attach(&self, input: Option<Input>) -> i32 {
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + TICK, TICK);
        let mut input = input;
        let mut n = 0u64;
        loop {
            let line = async {
                match input.as_mut() {
                    Some(input) => input.next_line().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                line = line => match line {
                    Some(line) => {
                        let text = String::from_utf8_lossy(&line);
                        self.println(&format!("received: {}", text.trim_end_matches('\r')));
                    }
                    None => return 0,
                },
                _ = tick.tick() => {
                    n += 1;
                    self.println(&format!("{}: tick {n}", self.pod));
                }
            }
        }
    }
}

/// How often the attached main process prints.
const TICK: Duration = Duration::from_secs(2);

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(tty: bool) -> (Shell, mpsc::UnboundedReceiver<Written>, Arc<Mutex<Size>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let size = Arc::new(Mutex::new(Size::default()));
        let shell = Shell::new(
            "web",
            "default",
            tty,
            size.clone(),
            Output::new(tx, true, !tty),
        );
        (shell, rx, size)
    }

    fn drain(rx: &mut mpsc::UnboundedReceiver<Written>) -> Vec<Written> {
        let mut all = vec![];
        while let Ok(w) = rx.try_recv() {
            all.push(w);
        }
        all
    }

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[tokio::test]
    async fn commands_print_as_the_stand_in_prints_them() {
        let (shell, mut rx, _) = shell(false);
        assert_eq!(shell.exec(&argv(&["hostname"]), None).await, 0);
        assert_eq!(shell.exec(&argv(&["seq", "3"]), None).await, 0);
        assert_eq!(shell.exec(&argv(&["nosuchcommand"]), None).await, 127);
        assert_eq!(
            shell
                .exec(&argv(&["sh", "-c", "echo hi; exit 3"]), None)
                .await,
            3
        );
        assert_eq!(shell.exec(&argv(&["/bin/ls", "/etc/"]), None).await, 0);
        assert_eq!(shell.exec(&argv(&["cat", "/etc"]), None).await, 1);
        assert_eq!(shell.exec(&argv(&["stty", "size"]), None).await, 1);
        assert_eq!(
            drain(&mut rx),
            vec![
                Written::Stdout(b"web\n".to_vec()),
                Written::Stdout(b"1\n2\n3\n".to_vec()),
                Written::Stderr(b"sh: nosuchcommand: not found\n".to_vec()),
                Written::Stdout(b"hi\n".to_vec()),
                Written::Stdout(b"hostname\nhosts\nos-release\npasswd\nresolv.conf\n".to_vec()),
                Written::Stderr(b"cat: read error: Is a directory\n".to_vec()),
                Written::Stderr(b"stty: standard input: Not a tty\n".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn a_terminal_echoes_and_follows_resizes_and_ctrl_c_interrupts_sleep() {
        let (shell, mut rx, size) = shell(true);
        let (tx, keys) = mpsc::unbounded_channel();
        *size.lock().unwrap() = Size {
            rows: 40,
            cols: 100,
        };
        tx.send(b"stty sizx\x7fe\r".to_vec()).unwrap();
        let run =
            tokio::spawn(async move { shell.exec(&argv(&["sh"]), Some(Input::new(keys))).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        tx.send(b"sleep 30\r".to_vec()).unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        tx.send(vec![3]).unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        tx.send(vec![4]).unwrap();
        let code = tokio::time::timeout(Duration::from_secs(5), run)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(code, 130);
        let text: Vec<u8> = drain(&mut rx)
            .into_iter()
            .flat_map(|w| match w {
                Written::Stdout(b) | Written::Stderr(b) => b,
            })
            .collect();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "/ # stty sizx\x08 \x08e\r\n40 100\r\n/ # sleep 30\r\n^C\r\n/ # exit\r\n"
        );
    }
}

//! Synthetic container logs for `pods/{name}/log`: no container runs, so each container gets
//! plausible lines for its image (nginx, redis, shell commands, crashing images, generic
//! services) derived from its start time, including periodic lines for `follow=true`.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::errors::{ApiError, ApiResult};
use crate::registry::Registry;

/// Query options of `pods/log` the demo honours.
#[derive(Debug, Clone, Default)]
pub struct LogOptions {
    pub container: String,
    pub follow: bool,
    pub timestamps: bool,
    pub previous: bool,
    pub tail_lines: Option<usize>,
    pub since_seconds: Option<i64>,
}

fn container_status<'a>(pod: &'a Value, container: &str) -> Option<&'a Value> {
    pod["status"]["containerStatuses"]
        .as_array()?
        .iter()
        .find(|s| s["name"] == container)
}

fn parse(t: &Value) -> Option<DateTime<Utc>> {
    t.as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// When the container instance whose log is read started, and when it stopped (if it did).
fn instance_window(
    pod: &Value,
    container: &str,
    previous: bool,
) -> ApiResult<(DateTime<Utc>, Option<DateTime<Utc>>)> {
    let pod_name = pod["metadata"]["name"].as_str().unwrap_or_default();
    let created = parse(&pod["metadata"]["creationTimestamp"]).unwrap_or_else(Utc::now);
    let Some(status) = container_status(pod, container) else {
        // No kubelet has reported yet: an empty log from now on.
        return Ok((created, None));
    };
    if previous {
        let last = &status["lastState"]["terminated"];
        return match parse(&last["startedAt"]) {
            Some(start) => Ok((start, parse(&last["finishedAt"]))),
            None => Err(ApiError::bad_request(format!(
                "previous terminated container \"{container}\" in pod \"{pod_name}\" not found"
            ))),
        };
    }
    let state = &status["state"];
    if let Some(start) = parse(&state["running"]["startedAt"]) {
        return Ok((start, None));
    }
    if let Some(start) = parse(&state["terminated"]["startedAt"]) {
        return Ok((start, parse(&state["terminated"]["finishedAt"])));
    }
    // Waiting after a crash: the log of the instance that just exited.
    let last = &status["lastState"]["terminated"];
    if let Some(start) = parse(&last["startedAt"]) {
        return Ok((start, parse(&last["finishedAt"])));
    }
    let reason = state["waiting"]["reason"]
        .as_str()
        .unwrap_or("ContainerCreating");
    Err(ApiError::bad_request(format!(
        "container \"{container}\" in pod \"{pod_name}\" is waiting to start: {reason}"
    )))
}

fn container_spec<'a>(pod: &'a Value, container: &str) -> Option<&'a Value> {
    pod["spec"]["containers"]
        .as_array()?
        .iter()
        .find(|c| c["name"] == container)
}

/// The shell command of a container (`sh -c "..."` or the joined command and args).
fn script(spec: &Value) -> String {
    let words: Vec<&str> = ["command", "args"]
        .iter()
        .flat_map(|f| spec[*f].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    match words.iter().position(|w| *w == "-c") {
        Some(i) => words[i + 1..].join(" "),
        None => words.join(" "),
    }
}

/// Lines printed by a shell script's `echo`/`date` commands at start.
fn script_output(script: &str, start: DateTime<Utc>) -> Vec<String> {
    script
        .split([';', '\n'])
        .map(str::trim)
        .filter_map(|cmd| {
            if let Some(text) = cmd.strip_prefix("echo ") {
                Some(
                    text.trim()
                        .trim_matches(|c| c == '"' || c == '\'')
                        .to_string(),
                )
            } else if cmd == "date" {
                Some(start.format("%a %b %e %H:%M:%S UTC %Y").to_string())
            } else {
                None
            }
        })
        .collect()
}

/// Every line of the container instance started at `start`, up to `until`.
pub fn lines(
    pod: &Value,
    container: &str,
    start: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Vec<(DateTime<Utc>, String)> {
    let spec = container_spec(pod, container)
        .cloned()
        .unwrap_or(Value::Null);
    let image = spec["image"].as_str().unwrap_or_default().to_string();
    let client = pod["status"]["hostIP"]
        .as_str()
        .unwrap_or("10.244.0.1")
        .to_string();
    let at = |ms: i64| start + chrono::Duration::milliseconds(ms);
    let mut out: Vec<(DateTime<Utc>, String)> = vec![];
    let periodic: Option<(i64, PeriodicLine)>;
    if image.contains("crash") {
        out.push((at(10), format!("starting {image}")));
        out.push((
            at(120),
            "loading configuration from /etc/app/config.yaml".into(),
        ));
        out.push((
            at(1400),
            "panic: simulated crash: configuration key \"database.url\" is missing".into(),
        ));
        out.push((
            at(1450),
            "goroutine 1 [running]:\nmain.main()\n\t/app/main.go:42 +0x1d".into(),
        ));
        periodic = None;
    } else if image.starts_with("nginx") || image.contains("/nginx") {
        for (i, line) in [
            "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
            "/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/",
            "/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh",
            "/docker-entrypoint.sh: Configuration complete; ready for start up",
        ]
        .into_iter()
        .enumerate()
        {
            out.push((at(i as i64 * 5), line.to_string()));
        }
        let date = start.format("%Y/%m/%d %H:%M:%S").to_string();
        out.push((at(30), format!("{date} [notice] 1#1: nginx/1.27.3")));
        out.push((
            at(31),
            format!("{date} [notice] 1#1: start worker processes"),
        ));
        periodic = Some((
            7,
            Box::new(move |t: DateTime<Utc>| {
                format!(
                    "{client} - - [{}] \"GET / HTTP/1.1\" 200 615 \"-\" \"kube-probe/1.34\" \"-\"",
                    t.format("%d/%b/%Y:%H:%M:%S +0000")
                )
            }),
        ));
    } else if image.starts_with("redis") || image.contains("/redis") {
        let stamp = |t: DateTime<Utc>| t.format("%d %b %Y %H:%M:%S%.3f").to_string();
        out.push((
            at(0),
            format!(
                "1:C {} * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo",
                stamp(at(0))
            ),
        ));
        out.push((
            at(2),
            format!("1:M {} * Running mode=standalone, port=6379.", stamp(at(2))),
        ));
        out.push((at(4), format!("1:M {} * Server initialized", stamp(at(4)))));
        out.push((
            at(6),
            format!("1:M {} * Ready to accept connections tcp", stamp(at(6))),
        ));
        periodic = None;
    } else if !script(&spec).is_empty() {
        for (i, line) in script_output(&script(&spec), start).into_iter().enumerate() {
            out.push((at(20 + i as i64), line));
        }
        periodic = None;
    } else {
        out.push((at(10), format!("starting {image}")));
        out.push((at(200), "listening on :8080".into()));
        periodic = Some((
            10,
            Box::new(|t: DateTime<Utc>| {
                format!("{} GET /healthz 200 0.4ms", t.format("%Y-%m-%dT%H:%M:%SZ"))
            }),
        ));
    }
    if let Some((period, render)) = periodic {
        // Only the last 500 periodic lines; older ones "rotated away".
        let elapsed = (until - start).num_seconds().max(0);
        let first = (elapsed / period - 500).max(1);
        for k in first..=elapsed / period {
            let t = start + chrono::Duration::seconds(k * period);
            out.push((t, render(t)));
        }
    }
    out.retain(|(t, _)| *t <= until);
    out
}

/// Renders the line a service prints periodically at a given time (access logs, health checks).
type PeriodicLine = Box<dyn Fn(DateTime<Utc>) -> String>;

fn render(lines: &[(DateTime<Utc>, String)], timestamps: bool) -> String {
    let mut text = String::new();
    for (t, line) in lines {
        if timestamps {
            text.push_str(&t.format("%Y-%m-%dT%H:%M:%S%.9fZ ").to_string());
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Answers `GET pods/{name}/log`; with `follow` the body stays open, adding lines as the
/// simulated container "prints" them, until the pod or container goes away.
pub fn respond(
    registry: Arc<Registry>,
    namespace: &str,
    pod: &Value,
    opts: LogOptions,
) -> ApiResult<Response> {
    let (start, end) = instance_window(pod, &opts.container, opts.previous)?;
    let now = Utc::now();
    // A stopped instance printed everything it would before it stopped (simulated runs can
    // be shorter than its script, and than the timestamps' one-second precision): its whole
    // script, stamped no later than its end.
    let until = match end {
        Some(end) => end.max(start + chrono::Duration::seconds(2)),
        None => now,
    };
    let mut first: Vec<(DateTime<Utc>, String)> = lines(pod, &opts.container, start, until);
    if let Some(end) = end {
        for (at, _) in &mut first {
            *at = (*at).min(end.max(start));
        }
    }
    if let Some(since) = opts.since_seconds {
        let cutoff = chrono::Duration::try_seconds(since).and_then(|d| now.checked_sub_signed(d));
        if let Some(cutoff) = cutoff {
            first.retain(|(t, _)| *t >= cutoff);
        }
    }
    if let Some(tail) = opts.tail_lines {
        let skip = first.len().saturating_sub(tail);
        first.drain(..skip);
    }
    let initial = render(&first, opts.timestamps);
    let mut response = if opts.follow && end.is_none() && !opts.previous {
        let state = Follow {
            registry,
            namespace: namespace.to_string(),
            name: pod["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            uid: pod["metadata"]["uid"].clone(),
            opts,
            start,
            printed_until: until,
            initial: Some(initial),
        };
        let stream = futures_util::stream::unfold(state, Follow::next);
        Body::from_stream(stream).into_response()
    } else {
        (StatusCode::OK, initial).into_response()
    };
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    Ok(response)
}

struct Follow {
    registry: Arc<Registry>,
    namespace: String,
    name: String,
    uid: Value,
    opts: LogOptions,
    start: DateTime<Utc>,
    printed_until: DateTime<Utc>,
    initial: Option<String>,
}

impl Follow {
    async fn next(mut self) -> Option<(Result<Bytes, std::io::Error>, Self)> {
        if let Some(initial) = self.initial.take() {
            return Some((Ok(Bytes::from(initial)), self));
        }
        let def = self.registry.builtin("", "pods")?;
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            // The stream ends when the pod is gone or replaced, or the container stopped.
            let pod = self.registry.get(&def, &self.namespace, &self.name).ok()?;
            if pod["metadata"]["uid"] != self.uid {
                return None;
            }
            let running = container_status(&pod, &self.opts.container)
                .is_none_or(|s| s["state"]["running"].is_object());
            let now = Utc::now();
            let fresh: Vec<(DateTime<Utc>, String)> =
                lines(&pod, &self.opts.container, self.start, now)
                    .into_iter()
                    .filter(|(t, _)| *t > self.printed_until)
                    .collect();
            self.printed_until = now;
            if !fresh.is_empty() {
                let text = render(&fresh, self.opts.timestamps);
                return Some((Ok(Bytes::from(text)), self));
            }
            if !running {
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shell_commands_print_their_echoes() {
        let pod = json!({"spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sh", "-c", "echo YAY; sleep 1"]}]}});
        let start = Utc::now() - chrono::Duration::seconds(5);
        let got: Vec<String> = lines(&pod, "c", start, Utc::now())
            .into_iter()
            .map(|(_, l)| l)
            .collect();
        assert_eq!(got, vec!["YAY"]);
    }

    #[test]
    fn nginx_logs_grow_with_time() {
        let pod = json!({"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}});
        let start = Utc::now() - chrono::Duration::seconds(70);
        let got = lines(&pod, "web", start, Utc::now());
        assert!(got
            .iter()
            .any(|(_, l)| l.contains("Configuration complete")));
        assert_eq!(
            got.iter()
                .filter(|(_, l)| l.contains("GET / HTTP/1.1"))
                .count(),
            10
        );
    }
}

//! The HTTP server of a simulated container port, fed the bytes a client sends and
//! answering as the stand-in kubelet's `PortForward` does: requests read one after another on
//! the connection (a body skipped by its `Content-Length`), each answered with one write of
//! `HTTP/1.1 200 OK`, `Content-Type: text/plain`, `Content-Length` and the hello line; a
//! request asking to close (or one that does not parse) ends the connection.
//!
//! It is a state machine rather than a task, so each transport (WebSocket channels, SPDY
//! streams, the proxies) drives it with whatever framing it has.

use super::{Forwarded, Page};

/// A request head larger than this ends the connection (a client sending garbage).
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// One connection to a forwarded port.
#[derive(Debug)]
pub struct Connection {
    forwarded: Forwarded,
    received: Vec<u8>,
    /// A body still to skip before the next request.
    skipping: usize,
}

/// What the connection does with the bytes it was given.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Fed {
    /// Each response, to be written as it is (one write each, as the stand-in writes them).
    pub responses: Vec<Vec<u8>>,
    /// The server closed the connection.
    pub closed: bool,
}

/// One parsed request head.
#[derive(Debug, PartialEq, Eq)]
struct Head {
    method: String,
    target: String,
    close: bool,
    body_length: usize,
}

impl Connection {
    pub fn new(forwarded: Forwarded) -> Connection {
        Connection {
            forwarded,
            received: vec![],
            skipping: 0,
        }
    }

    /// Takes `bytes` from the client; `page` says what the port serves now.
    pub fn feed(&mut self, bytes: &[u8], page: Page) -> Fed {
        let mut fed = Fed::default();
        let skipped = self.skipping.min(bytes.len());
        self.skipping -= skipped;
        self.received.extend_from_slice(&bytes[skipped..]);
        while self.skipping == 0 {
            let Some(end) = find(&self.received, b"\r\n\r\n") else {
                fed.closed = self.received.len() > MAX_HEAD_BYTES;
                return fed;
            };
            let head = parse_head(&self.received[..end]);
            self.received.drain(..end + 4);
            let Some(head) = head else {
                fed.closed = true;
                return fed;
            };
            let body_here = head.body_length.min(self.received.len());
            self.received.drain(..body_here);
            self.skipping = head.body_length - body_here;
            fed.responses
                .push(response(&self.forwarded, page, &head.method, &head.target));
            if head.close {
                fed.closed = true;
                return fed;
            }
        }
        fed
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The request line and the headers that matter; `None` for what Go's `ReadRequest` refuses.
fn parse_head(bytes: &[u8]) -> Option<Head> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut lines = text.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let (method, target, version) = (
        request_line.next()?,
        request_line.next()?,
        request_line.next()?,
    );
    if method.is_empty() || target.is_empty() || request_line.next().is_some() {
        return None;
    }
    let http_1_0 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        _ => return None,
    };
    let mut head = Head {
        method: method.to_string(),
        target: target.to_string(),
        close: http_1_0,
        body_length: 0,
    };
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            head.body_length = value.parse().ok()?;
        } else if name.eq_ignore_ascii_case("connection") {
            let token = |t: &str| value.split(',').any(|v| v.trim().eq_ignore_ascii_case(t));
            head.close = token("close") || (http_1_0 && !token("keep-alive"));
        }
    }
    Some(head)
}

/// The whole response to one request, status line to body.
pub fn response(forwarded: &Forwarded, page: Page, method: &str, target: &str) -> Vec<u8> {
    let (content_type, body) = content(forwarded, page, method, target);
    let mut bytes = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// The content type and body a port answers `method target` with (`target` is the request
/// URI as sent: path and query).
pub fn content(
    forwarded: &Forwarded,
    page: Page,
    method: &str,
    target: &str,
) -> (&'static str, String) {
    match page {
        Page::Hello => (
            "text/plain",
            format!(
                "Hello from pod {}/{}, port {}: {method} {target}\n",
                forwarded.namespace, forwarded.pod, forwarded.port
            ),
        ),
        Page::Hostile => ("text/html; charset=utf-8", HOSTILE_PAGE.to_string()),
    }
}

/// A page that tries to read Secrets and to write a ConfigMap (`hostile-wrote`) with whatever
/// credentials its origin carries, and says what it got (in the page, and to its parent
/// frame). The write is tried both as a request a form could send (`text/plain`, no CORS
/// preflight) and as the API's own JSON (preflighted).
const HOSTILE_PAGE: &str = r#"<!doctype html>
<html><head><title>hostile page</title></head>
<body>
<h1>This page tries to read the API</h1>
<pre id="result">trying</pre>
<script>
var configmap = JSON.stringify({apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'hostile-wrote'}, data: {by: 'a pod'}});
function attempt(label, url, init) {
  return fetch(url, Object.assign({credentials: 'include'}, init))
    .then(function (r) { return r.text().then(function (t) { return label + ': status ' + r.status + ': ' + t.slice(0, 200); }); })
    .catch(function (e) { return label + ': blocked: ' + e; });
}
Promise.all([
  attempt('read', '/api/v1/namespaces/default/secrets'),
  attempt('write as a form', '/api/v1/namespaces/default/configmaps', {method: 'POST', headers: {'Content-Type': 'text/plain'}, body: configmap}),
  attempt('write as JSON', '/api/v1/namespaces/default/configmaps', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: configmap})
]).then(function (results) {
  var t = results.join('\n');
  document.getElementById('result').textContent = t;
  try { parent.postMessage({hostilePage: t}, '*'); } catch (e) {}
});
</script>
</body></html>
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn connection() -> Connection {
        Connection::new(Forwarded {
            namespace: "default".into(),
            pod: "web".into(),
            uid: "u".into(),
            port: 80,
        })
    }

    #[test]
    fn requests_split_anywhere_are_answered_in_order_and_bodies_skipped() {
        let mut c = connection();
        let wire = b"POST /a?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\n\r\n";
        let mut responses = vec![];
        for chunk in wire.chunks(3) {
            let fed = c.feed(chunk, Page::Hello);
            assert!(!fed.closed);
            responses.extend(fed.responses);
        }
        let texts: Vec<String> = responses
            .iter()
            .map(|r| String::from_utf8_lossy(r).into_owned())
            .collect();
        assert_eq!(
            texts,
            [
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 49\r\n\r\nHello from pod default/web, port 80: POST /a?x=1\n",
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 44\r\n\r\nHello from pod default/web, port 80: GET /b\n",
            ]
        );
    }

    #[test]
    fn close_http_1_0_and_garbage_end_the_connection() {
        let fed = connection().feed(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n", Page::Hello);
        assert_eq!((fed.responses.len(), fed.closed), (1, true));
        let fed = connection().feed(b"GET / HTTP/1.0\r\n\r\n", Page::Hello);
        assert_eq!((fed.responses.len(), fed.closed), (1, true));
        let fed = connection().feed(b"nonsense\r\n\r\n", Page::Hello);
        assert_eq!((fed.responses.len(), fed.closed), (0, true));
    }
}

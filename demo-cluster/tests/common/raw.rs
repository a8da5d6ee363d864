//! Requests sent as given through a kube client's connection (no typed API) and their
//! answers, for the tests that compare two servers' bytes (`differential`, `rbac`).

use std::time::Duration;

use http_body_util::BodyExt;
use kube::Client;
use serde_json::Value;

/// A client of the server at `url` that waits up to a minute for an answer.
pub fn client_for(url: &str) -> Client {
    let mut config = kube::Config::new(url.parse().expect("server URL"));
    config.read_timeout = Some(Duration::from_secs(60));
    Client::try_from(config).expect("kube client")
}

/// An answer as a client sees it: its code and body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Reply {
    /// The body as JSON; fails the test when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "{}: body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The body as JSON, if it is.
    pub fn json_if_any(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `request` with `body` and reads the whole answer, failing the test when there is
/// none within a minute; `what` (`METHOD path`) names the request in failures.
pub async fn send(
    client: &Client,
    request: http::request::Builder,
    body: Vec<u8>,
    what: &str,
) -> Reply {
    let request = request
        .body(kube::client::Body::from(body))
        .expect("a request");
    let response = tokio::time::timeout(Duration::from_secs(60), client.send(request))
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer within 60 s"))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let status = response.status().as_u16();
    let body = response
        .into_body()
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{what}: body: {e}"))
        .to_bytes()
        .to_vec();
    Reply { status, body }
}

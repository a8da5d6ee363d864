//! kube-atlas's forwards API (`/kube-atlas/forwards`, `cluster-proxy/src/forwards/http.rs`):
//! list, start and stop forwards, and renew the page's lease on the ones it owns. kube-atlas's
//! own state, not API requests, so not in the request log.

use gloo_net::http::{Request, RequestBuilder, Response};

use crate::model::api::errors::ApiError;
use crate::model::api::forwards::{ForwardInfo, ForwardList, ForwardRequest};

const FORWARDS: &str = "/kube-atlas/forwards";

fn unreachable(error: gloo_net::Error) -> String {
    format!("kube-atlas could not be reached: {error}")
}

/// The answer's body as `T`, or the Status message of a refusal, in words.
async fn read<T: serde::de::DeserializeOwned>(response: Response) -> Result<T, String> {
    let status = response.status();
    let body = response.text().await.map_err(unreachable)?;
    if !(200..300).contains(&status) {
        return Err(match ApiError::from_response(status, &body) {
            ApiError::Status { message, .. } => message,
            other => other.to_string(),
        });
    }
    serde_json::from_str(&body).map_err(|e| format!("kube-atlas answered unreadably: {e}"))
}

/// Every forward kube-atlas runs, and the ones that ended.
pub async fn list() -> Result<ForwardList, String> {
    let response = RequestBuilder::new(FORWARDS)
        .header("Accept", "application/json")
        .send()
        .await
        .map_err(unreachable)?;
    read(response).await
}

/// Starts a forward; the forward with its `http://127.0.0.1:PORT`, or why it cannot start.
pub async fn start(request: &ForwardRequest) -> Result<ForwardInfo, String> {
    let body = serde_json::to_string(request).map_err(|e| e.to_string())?;
    let sent: Request = RequestBuilder::new(FORWARDS)
        .method(gloo_net::http::Method::POST)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .body(body)
        .map_err(|e| e.to_string())?;
    read(sent.send().await.map_err(unreachable)?).await
}

/// Stops forward `id`; the forward as it ended.
pub async fn stop(id: &str) -> Result<ForwardInfo, String> {
    let url = format!(
        "{FORWARDS}/{}",
        crate::model::api::endpoints::encode_path_segment(id)
    );
    let response = RequestBuilder::new(&url)
        .method(gloo_net::http::Method::DELETE)
        .header("Accept", "application/json")
        .send()
        .await
        .map_err(unreachable)?;
    read(response).await
}

/// Renews the lease of the page's `session`: its forwards live on while it is renewed.
pub async fn renew_lease(session: &str) -> Result<(), String> {
    let url = format!(
        "{FORWARDS}/leases/{}",
        crate::model::api::endpoints::encode_path_segment(session)
    );
    let response = RequestBuilder::new(&url)
        .method(gloo_net::http::Method::POST)
        .send()
        .await
        .map_err(unreachable)?;
    match response.status() {
        200..=299 => Ok(()),
        status => Err(format!("kube-atlas refused the lease: HTTP {status}")),
    }
}

//! All browser transport: same-origin requests to the Kubernetes API (through `kubectl proxy`
//! or the demo cluster). Every call is recorded in the request log so users can see, and copy,
//! the API calls the dashboard makes.

pub mod discovery;
pub mod watch;

use gloo_net::http::Request;

pub use crate::model::errors::ApiError;
use crate::state::request_log;

/// A response as far as the callers need it.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub status: u16,
    pub content_type: String,
    pub etag: Option<String>,
    pub body: String,
}

pub(crate) fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// GET a same-origin API path (absolute, e.g. `/apis`) with the given Accept header.
/// Non-2xx answers other than 304 become [`ApiError::Status`].
pub async fn get(path: &str, accept: &str) -> Result<Fetched, ApiError> {
    get_with_headers(path, accept, &[]).await
}

pub async fn get_with_headers(
    path: &str,
    accept: &str,
    headers: &[(&str, &str)],
) -> Result<Fetched, ApiError> {
    let id = request_log::start("GET", path, accept, false);
    let started = now_ms();
    let mut request = Request::get(path).header("Accept", accept);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(error) => {
            request_log::update(id, |r| {
                r.duration_ms = now_ms() - started;
                r.error = Some(error.to_string());
            });
            return Err(ApiError::Unreachable(error.to_string()));
        }
    };
    let status = response.status();
    let response_headers = response.headers();
    let content_type = response_headers.get("content-type").unwrap_or_default();
    let etag = response_headers.get("etag");
    let body = response.text().await.unwrap_or_default();
    request_log::update(id, |r| {
        r.status = Some(status);
        r.duration_ms = now_ms() - started;
        r.bytes = body.len();
    });
    if (200..300).contains(&status) || status == 304 {
        return Ok(Fetched {
            status,
            content_type,
            etag,
            body,
        });
    }
    Err(status_error(status, &body))
}

fn status_error(code: u16, body: &str) -> ApiError {
    ApiError::from_response(code, body)
}

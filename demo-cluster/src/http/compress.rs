//! Response compression as kube-apiserver does it: gzip (at its fastest level) when the
//! client accepts it and the body is over 128 KiB. Only bodies whose length is known are
//! candidates, so watch and log streams pass through uncompressed and unbuffered.

use axum::body::{Body, HttpBody};
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::io::Write;

use crate::errors::ApiError;

/// kube-apiserver's threshold: smaller bodies are not worth the CPU.
pub const GZIP_THRESHOLD_BYTES: u64 = 128 * 1024;

/// Whether `Accept-Encoding` lists gzip without refusing it by `q=0` (as kube-apiserver,
/// a bare `*` does not count).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut params = item.split(';').map(str::trim);
            let coding = params.next().unwrap_or_default();
            let refused = params.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            coding.eq_ignore_ascii_case("gzip") && !refused
        })
}

/// Middleware on the API routes.
pub async fn gzip_large_responses(req: Request, next: Next) -> Response {
    let wanted = accepts_gzip(req.headers());
    let resp = next.run(req).await;
    let large = resp
        .body()
        .size_hint()
        .exact()
        .is_some_and(|len| len > GZIP_THRESHOLD_BYTES);
    if !wanted || !large || resp.headers().contains_key(header::CONTENT_ENCODING) {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let compressed = match axum::body::to_bytes(body, usize::MAX).await {
        // Tens of megabytes take a while: off the async workers.
        Ok(plain) => tokio::task::spawn_blocking(move || gzip(&plain)).await,
        Err(e) => return ApiError::internal(e).into_response(),
    };
    let compressed = match compressed {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => return ApiError::internal(e).into_response(),
        Err(e) => return ApiError::internal(e).into_response(),
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts
        .headers
        .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
    parts
        .headers
        .append(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    Response::from_parts(parts, Body::from(compressed))
}

fn gzip(plain: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(
        Vec::with_capacity(plain.len() / 8),
        flate2::Compression::fast(),
    );
    encoder.write_all(plain)?;
    encoder.finish()
}

#[cfg(test)]
mod tests {
    use super::accepts_gzip;
    use axum::http::{header, HeaderMap, HeaderValue};

    fn accepting(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn accept_encoding_is_read_as_http_says() {
        assert!(accepts_gzip(&accepting("gzip")));
        assert!(accepts_gzip(&accepting("deflate, GZIP;q=0.5")));
        assert!(!accepts_gzip(&accepting("*")));
        assert!(!accepts_gzip(&accepting("gzip;q=0")));
        assert!(!accepts_gzip(&accepting("identity")));
        assert!(!accepts_gzip(&accepting("br, x-gzip-not")));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }
}

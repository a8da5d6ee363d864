//! The dashboard's own files: from a folder (`--www dist`, read on each request, so a rebuild
//! shows at once) or, in a binary built by `cargo xtask dist` (feature `embedded-ui`), from
//! inside the binary. Either way a content-hashed name is cached for good and the page is asked
//! again each time (`kube_atlas_model::api::asset_caching`).

use std::path::PathBuf;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Request, StatusCode};
use tower_http::services::ServeDir;

/// Where the dashboard's files come from.
#[derive(Clone)]
pub enum Assets {
    /// Only the API paths answer.
    None,
    /// A built dist/ folder.
    Folder { files: ServeDir, index: PathBuf },
    /// The release dist/ compiled into the binary, every file gzipped.
    #[cfg(feature = "embedded-ui")]
    Embedded,
}

const NO_DASHBOARD: &str = "kube-atlas was started without the dashboard's files (--www dist)";

impl Assets {
    /// The files of `dir` (a built dist/).
    pub fn folder(dir: PathBuf) -> Assets {
        Assets::Folder {
            index: dir.join("index.html"),
            files: ServeDir::new(dir),
        }
    }

    /// The dashboard compiled into this binary, if it was built with it.
    pub fn embedded() -> Option<Assets> {
        #[cfg(feature = "embedded-ui")]
        if embedded::file("index.html").is_some() {
            return Some(Assets::Embedded);
        }
        None
    }

    /// The page (index.html) as text, or the answer saying why there is none.
    pub async fn index_html(&self) -> Result<String, Response> {
        match self {
            Assets::None => Err((StatusCode::NOT_FOUND, NO_DASHBOARD).into_response()),
            Assets::Folder { index, .. } => {
                tokio::fs::read_to_string(index).await.map_err(|error| {
                    let message = format!("kube-atlas could not read {}: {error}", index.display());
                    (StatusCode::NOT_FOUND, message).into_response()
                })
            }
            #[cfg(feature = "embedded-ui")]
            Assets::Embedded => embedded::index_html()
                .map(str::to_string)
                .ok_or_else(|| (StatusCode::NOT_FOUND, NO_DASHBOARD).into_response()),
        }
    }

    /// The file at `request`'s path, with its caching rule.
    pub async fn serve(&self, request: Request<Body>) -> Response {
        let path = request.uri().path().to_string();
        let mut response = match self {
            Assets::None => return (StatusCode::NOT_FOUND, NO_DASHBOARD).into_response(),
            Assets::Folder { files, .. } => {
                let mut files = files.clone();
                match tower::ServiceExt::oneshot(&mut files, request).await {
                    Ok(response) => response.map(Body::new),
                    Err(never) => match never {},
                }
            }
            #[cfg(feature = "embedded-ui")]
            Assets::Embedded => embedded::serve(&path, &request),
        };
        if response.status().is_success() {
            let cache_control = kube_atlas_model::api::asset_caching::cache_control(&path);
            response.headers_mut().insert(
                http::header::CACHE_CONTROL,
                HeaderValue::from_static(cache_control),
            );
        }
        response
    }
}

/// The embedded dist/: `cargo xtask dist` writes each file of dist/ gzipped (best compression)
/// under its own name into a folder, and `include_dir` compiles that folder in. Browsers take
/// gzip, so the bytes go out as they are stored.
#[cfg(feature = "embedded-ui")]
mod embedded {
    use std::io::Read;
    use std::sync::OnceLock;

    use axum::body::Body;
    use axum::response::{IntoResponse, Response};
    use http::{header, Request, StatusCode};

    static DIST: include_dir::Dir<'static> = include_dir::include_dir!("$KUBE_ATLAS_EMBED_DIR");

    /// The gzipped bytes of the file at `path` (relative, no leading `/`).
    pub fn file(path: &str) -> Option<&'static [u8]> {
        DIST.get_file(path).map(|file| file.contents())
    }

    fn inflate(gzipped: &[u8]) -> Option<Vec<u8>> {
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(gzipped)
            .read_to_end(&mut raw)
            .ok()?;
        Some(raw)
    }

    /// index.html, inflated once.
    pub fn index_html() -> Option<&'static str> {
        static INDEX: OnceLock<Option<String>> = OnceLock::new();
        INDEX
            .get_or_init(|| {
                let raw = inflate(file("index.html")?)?;
                String::from_utf8(raw).ok()
            })
            .as_deref()
    }

    fn accepts_gzip(request: &Request<Body>) -> bool {
        request
            .headers()
            .get_all(header::ACCEPT_ENCODING)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .any(|coding| {
                let mut parts = coding.trim().split(';');
                let name = parts.next().unwrap_or_default().trim();
                let refused = parts.any(|parameter| {
                    parameter.trim().replace(' ', "") == "q=0"
                        || parameter.trim().replace(' ', "") == "q=0.0"
                });
                (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
            })
    }

    pub fn serve(path: &str, request: &Request<Body>) -> Response {
        let relative = path.trim_start_matches('/');
        let relative = if relative.is_empty() {
            "index.html"
        } else {
            relative
        };
        let Some(gzipped) = file(relative) else {
            return (StatusCode::NOT_FOUND, format!("no file {path}")).into_response();
        };
        let content_type = mime_guess::from_path(relative)
            .first_or_octet_stream()
            .to_string();
        if accepts_gzip(request) {
            return (
                [
                    (header::CONTENT_TYPE, content_type),
                    (header::CONTENT_ENCODING, "gzip".to_string()),
                    (header::VARY, "accept-encoding".to_string()),
                ],
                gzipped,
            )
                .into_response();
        }
        match inflate(gzipped) {
            Some(raw) => (
                [
                    (header::CONTENT_TYPE, content_type),
                    (header::VARY, "accept-encoding".to_string()),
                ],
                raw,
            )
                .into_response(),
            None => (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the embedded {path} is damaged"),
            )
                .into_response(),
        }
    }
}

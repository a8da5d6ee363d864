//! kube-atlas's HTTP client for the OIDC issuer (discovery, keys, the token endpoint): HTTPS
//! only, rustls with ring, the issuer's own CA when `--oidc-ca-file` names one (else the
//! system's roots), no redirects followed (a token endpoint that redirects could send the
//! client secret elsewhere), bounded in time and size.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use openidconnect::{HttpRequest, HttpResponse};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

/// How long one request to the issuer may take, answer included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// The largest answer read (a discovery document or a key set is a few KiB).
const MAX_ANSWER: usize = 1024 * 1024;

/// Why a request to the issuer failed, in words (never a token: the request's body is not
/// part of it).
#[derive(Debug)]
pub struct IssuerError(String);

impl std::fmt::Display for IssuerError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for IssuerError {}

type HttpsClient = Client<hyper_rustls::HttpsConnector<HttpConnector>, Full<Bytes>>;

#[derive(Clone)]
pub struct IssuerClient {
    client: HttpsClient,
}

impl IssuerClient {
    /// A client trusting `ca_file`'s certificates only, or the system's roots without one.
    pub fn new(ca_file: Option<&Path>) -> Result<IssuerClient, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = hyper_rustls::HttpsConnectorBuilder::new();
        let builder = match ca_file {
            Some(path) => {
                let pem = std::fs::read(path)
                    .map_err(|error| format!("reading {}: {error}", path.display()))?;
                let mut roots = rustls::RootCertStore::empty();
                for certificate in CertificateDer::pem_slice_iter(&pem) {
                    let certificate =
                        certificate.map_err(|error| format!("{}: {error}", path.display()))?;
                    roots
                        .add(certificate)
                        .map_err(|error| format!("{}: {error}", path.display()))?;
                }
                if roots.is_empty() {
                    return Err(format!("{} holds no certificate", path.display()));
                }
                let config = rustls::ClientConfig::builder_with_provider(provider)
                    .with_safe_default_protocol_versions()
                    .map_err(|error| error.to_string())?
                    .with_root_certificates(roots)
                    .with_no_client_auth();
                builder.with_tls_config(config)
            }
            None => builder
                .with_provider_and_native_roots(provider)
                .map_err(|error| format!("the system's CA certificates: {error}"))?,
        };
        let connector = builder.https_only().enable_http1().build();
        Ok(IssuerClient {
            client: Client::builder(TokioExecutor::new()).build(connector),
        })
    }

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, IssuerError> {
        let (parts, body) = request.into_parts();
        let where_to = format!("{} {}", parts.method, without_query(&parts.uri));
        let request = http::Request::from_parts(parts, Full::new(Bytes::from(body)));
        let exchange = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|error| IssuerError(format!("{where_to}: {error}")))?;
            let (parts, body) = response.into_parts();
            let body = http_body_util::Limited::new(body, MAX_ANSWER)
                .collect()
                .await
                .map_err(|error| IssuerError(format!("{where_to}: the answer: {error}")))?
                .to_bytes();
            Ok(http::Response::from_parts(parts, body.to_vec()))
        };
        tokio::time::timeout(REQUEST_TIMEOUT, exchange)
            .await
            .map_err(|_| {
                IssuerError(format!(
                    "{where_to}: no answer within {} s",
                    REQUEST_TIMEOUT.as_secs()
                ))
            })?
    }
}

/// A URI without its query, for error messages.
fn without_query(uri: &http::Uri) -> String {
    format!(
        "{}://{}{}",
        uri.scheme_str().unwrap_or("https"),
        uri.authority().map_or("", |authority| authority.as_str()),
        uri.path()
    )
}

impl<'c> openidconnect::AsyncHttpClient<'c> for IssuerClient {
    type Error = IssuerError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, IssuerError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(self.send(request))
    }
}

/// Why discovery failed, in words.
pub fn describe_discovery_error<E: std::error::Error>(
    error: &openidconnect::DiscoveryError<E>,
) -> String {
    use openidconnect::DiscoveryError;
    let detail = match error {
        DiscoveryError::Request(inner) => inner.to_string(),
        DiscoveryError::Response(status, _, reason) => format!("{status}: {reason}"),
        DiscoveryError::Parse(inner) => format!("the document does not parse: {inner}"),
        DiscoveryError::Validation(reason) => reason.clone(),
        other => other.to_string(),
    };
    format!("The issuer's discovery document could not be read ({detail}). Try again.")
}

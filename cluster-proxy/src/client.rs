//! A context's kube client, built as kube-rs's `Client::try_from(config)` builds it (TLS and
//! credentials from the kubeconfig, the same layers) but with `TCP_NODELAY` on its
//! connections. kube-rs leaves Nagle's algorithm on: a fresh connection's first request
//! (written just after the TLS handshake's last message, before the server acknowledged it)
//! then waits for the server's delayed acknowledgement, about 40 ms. Pooled requests pay it
//! once, but every port-forward and exec session is a fresh connection (an upgrade takes its
//! connection out of the pool), so each paid it: a forward's first byte took ~49 ms where
//! kubectl's takes ~1.2 ms.

use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kube::client::ConfigExt;
use kube::{Client, Config};
use tower::ServiceBuilder;

/// The client for `config`; a kubeconfig with a proxy gets kube-rs's own (its proxy connectors
/// are not rebuilt here).
pub fn build(config: Config) -> Result<Client, kube::Error> {
    if config.proxy_url.is_some() {
        return Client::try_from(config);
    }
    let mut connector = HttpConnector::new();
    // The cluster URL is https (or http); the TLS layer wraps this connector.
    connector.enforce_http(false);
    connector.set_nodelay(true);
    connector.set_connect_timeout(config.connect_timeout);
    let connector = config.rustls_https_connector_with_connector(connector)?;
    let mut connector = hyper_timeout::TimeoutConnector::new(connector);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    let http = hyper_util::client::legacy::Builder::new(TokioExecutor::new()).build(connector);
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(config.auth_layer()?)
        .layer(config.extra_headers_layer()?)
        .map_err(tower::BoxError::from)
        .service(http);
    Ok(Client::new(service, config.default_namespace))
}

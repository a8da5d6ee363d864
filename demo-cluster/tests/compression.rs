//! Response compression as kube-apiserver: gzip for bodies over 128 KiB when the client
//! accepts it, never for small bodies or watch streams.

use std::io::Read;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use demo_cluster::http::{router, AppState};
use demo_cluster::load::{populate, LoadConfig, DEFAULT_SEED};
use demo_cluster::{build_registry, Config, Tuning};
use futures_util::StreamExt;
use http_body_util::BodyExt;
use tower::ServiceExt;

fn loaded_app(pods: usize) -> Router {
    let tuning = Tuning::default();
    let config = Config {
        empty: true,
        ..Config::default()
    };
    let registry = build_registry(&config, &tuning).expect("registry");
    populate(
        &registry,
        &LoadConfig {
            pods,
            crds: 0,
            seed: DEFAULT_SEED,
        },
    );
    router(AppState::new(registry, tuning, vec![]), None)
}

fn get(uri: &str, encoding: Option<&str>) -> Request<Body> {
    let mut r = Request::builder()
        .uri(uri)
        .header(header::HOST, "localhost");
    if let Some(encoding) = encoding {
        r = r.header(header::ACCEPT_ENCODING, encoding);
    }
    r.body(Body::empty()).expect("request")
}

async fn fetch(app: &Router, r: Request<Body>) -> (axum::http::HeaderMap, Vec<u8>) {
    let resp = app.clone().oneshot(r).await.expect("answered");
    assert_eq!(resp.status(), StatusCode::OK);
    let headers = resp.headers().clone();
    let body = resp.into_body().collect().await.expect("body").to_bytes();
    (headers, body.to_vec())
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut plain = vec![];
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut plain)
        .expect("valid gzip");
    plain
}

#[tokio::test]
async fn large_lists_are_gzipped_for_clients_that_accept_it() {
    let app = loaded_app(10_000);
    let (plain_headers, plain) = fetch(&app, get("/api/v1/pods", None)).await;
    assert!(plain_headers.get(header::CONTENT_ENCODING).is_none());
    let list: serde_json::Value = serde_json::from_slice(&plain).expect("JSON");
    assert_eq!(list["items"].as_array().map(Vec::len), Some(10_000));

    let (headers, gzipped) = fetch(&app, get("/api/v1/pods", Some("gzip, deflate, br"))).await;
    assert_eq!(headers[header::CONTENT_ENCODING], "gzip");
    assert_eq!(headers[header::VARY], "Accept-Encoding");
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert!(
        gzipped.len() * 5 < plain.len(),
        "{} bytes gzipped from {}",
        gzipped.len(),
        plain.len()
    );
    assert_eq!(gunzip(&gzipped), plain, "the same JSON, byte for byte");

    // Small answers are sent as they are, asked with gzip or not.
    let (headers, small) = fetch(&app, get("/api/v1/namespaces/default", Some("gzip"))).await;
    assert!(headers.get(header::CONTENT_ENCODING).is_none());
    assert!(small.len() < 128 * 1024);
    // Refused by q=0: not compressed.
    let (headers, _) = fetch(&app, get("/api/v1/pods?limit=2000", Some("gzip;q=0"))).await;
    assert!(headers.get(header::CONTENT_ENCODING).is_none());
}

#[tokio::test]
async fn watches_are_neither_compressed_nor_buffered() {
    let app = loaded_app(1_000);
    // The initial state alone is far over the threshold.
    let resp = app
        .clone()
        .oneshot(get("/api/v1/pods?watch=true", Some("gzip")))
        .await
        .expect("answered");
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.headers().get(header::CONTENT_ENCODING).is_none());
    let mut stream = resp.into_body().into_data_stream();
    let mut received = vec![];
    let mut events = 0;
    // Events arrive while the watch is open: nothing waits for the end of the stream.
    while events < 1_000 {
        let chunk = tokio::time::timeout(Duration::from_secs(60), stream.next())
            .await
            .expect("events arrive before the watch ends")
            .expect("the watch stays open")
            .expect("a chunk");
        events += chunk.iter().filter(|b| **b == b'\n').count();
        received.extend_from_slice(&chunk);
    }
    let first = received.split(|b| *b == b'\n').next().unwrap_or_default();
    let event: serde_json::Value = serde_json::from_slice(first).expect("plain JSON lines");
    assert_eq!(event["type"], "ADDED");
}

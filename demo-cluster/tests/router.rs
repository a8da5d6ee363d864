//! Router-level tests without a socket (tower::ServiceExt::oneshot): discovery negotiation,
//! ETag/304, Status errors, limits and the Host check.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use demo_cluster::http::{router, AppState};
use demo_cluster::{build_registry, Config, Tuning};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

mod common;

use common::TABLE;

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

fn app() -> Router {
    let tuning = Tuning::default();
    let registry = build_registry(&Config::default(), &tuning).unwrap();
    router(
        AppState::new(registry, tuning, vec!["demo.example".into()]),
        None,
    )
}

fn req(method: &str, uri: &str) -> axum::http::request::Builder {
    Request::builder()
        .method(method)
        .uri(uri)
        .header(header::HOST, "localhost:8001")
}

/// A plain GET with no extra headers.
fn get(uri: &str) -> Request<Body> {
    req("GET", uri).body(Body::empty()).unwrap()
}

async fn send(app: &Router, r: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let resp = app.clone().oneshot(r).await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let body = resp
        .into_body()
        .collect()
        .await
        .unwrap()
        .to_bytes()
        .to_vec();
    (status, headers, body)
}

/// The status and JSON body of a request; a body that is not JSON fails the test (every
/// answer of the API server, errors included, is JSON).
async fn json_of(app: &Router, r: Request<Body>) -> (StatusCode, Value) {
    let (s, _, b) = send(app, r).await;
    let body = serde_json::from_slice(&b).unwrap_or_else(|e| {
        panic!(
            "{s}: body is not JSON ({e}): {}",
            String::from_utf8_lossy(&b)
        )
    });
    (s, body)
}

/// A request carrying `body` as `content_type`.
fn with_body(method: &str, uri: &str, content_type: &str, body: impl Into<Body>) -> Request<Body> {
    req(method, uri)
        .header(header::CONTENT_TYPE, content_type)
        .body(body.into())
        .unwrap()
}

/// Creates ConfigMap `name` in `default`; returns the created object.
async fn create_configmap(app: &Router, name: &str) -> Value {
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
    json_ok(
        app,
        with_body(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            "application/json",
            cm.to_string(),
        ),
    )
    .await
}

/// The JSON body of a request that must succeed.
async fn json_ok(app: &Router, r: Request<Body>) -> Value {
    let what = format!("{} {}", r.method(), r.uri());
    let (s, body) = json_of(app, r).await;
    assert!(s.is_success(), "{what}: {s} {body}");
    body
}

#[tokio::test]
async fn aggregated_discovery_is_negotiated_with_etag_and_304() {
    let app = app();
    for path in ["/api", "/apis"] {
        let (s, h, body) = send(
            &app,
            req("GET", path)
                .header(header::ACCEPT, AGGREGATED)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(
            h[header::CONTENT_TYPE],
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
        );
        assert_eq!(h[header::VARY], "Accept");
        let etag = h[header::ETAG].to_str().unwrap().to_string();
        assert!(
            etag.starts_with('"') && etag.ends_with('"') && etag.len() == 130,
            "{etag}"
        );
        assert!(etag[1..129]
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase()));
        let doc: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(doc["kind"], "APIGroupDiscoveryList");
        let (s, h, body) = send(
            &app,
            req("GET", path)
                .header(header::ACCEPT, AGGREGATED)
                .header(header::IF_NONE_MATCH, &etag)
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(s, StatusCode::NOT_MODIFIED);
        assert!(body.is_empty());
        assert_eq!(h[header::ETAG].to_str().unwrap(), etag);
    }
    let (s, h, _) = send(
        &app,
        req("GET", "/apis")
            .header(
                header::ACCEPT,
                "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        h[header::CONTENT_TYPE],
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
    );
}

#[tokio::test]
async fn legacy_discovery_and_not_acceptable() {
    let app = app();
    let (s, h, body) = send(
        &app,
        req("GET", "/api")
            .header(header::ACCEPT, "application/json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(h[header::CONTENT_TYPE], "application/json");
    let doc: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(doc["kind"], "APIVersions");
    assert!(doc["serverAddressByClientCIDRs"].is_array());
    let (s, doc) = json_of(&app, get("/apis")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(doc["kind"], "APIGroupList");
    assert!(doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["name"] == "apps"));
    let (s, doc) = json_of(
        &app,
        req("GET", "/apis")
            .header(
                header::ACCEPT,
                "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(doc["reason"], "NotAcceptable");
    let (s, doc) = json_of(&app, get("/apis/apps")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(doc["preferredVersion"]["groupVersion"], "apps/v1");
    let (s, doc) = json_of(&app, get("/version")).await;
    assert_eq!(s, StatusCode::OK);
    for f in [
        "major",
        "minor",
        "gitVersion",
        "gitCommit",
        "gitTreeState",
        "buildDate",
        "goVersion",
        "compiler",
        "platform",
    ] {
        assert!(doc[f].is_string(), "{f}");
    }
}

#[tokio::test]
async fn errors_are_status_objects() {
    let app = app();
    let (s, doc) = json_of(&app, get("/api/v1/namespaces/default/configmaps/missing")).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(
        doc,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "configmaps \"missing\" not found", "reason": "NotFound",
        "details": {"name": "missing", "kind": "configmaps"}, "code": 404})
    );
    let (s, doc) = json_of(&app, get("/apis/nope.example/v1/things")).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(
        doc["message"],
        "the server could not find the requested resource"
    );

    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}});
    let post = |body: &Value| {
        req("POST", "/api/v1/namespaces/default/configmaps")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let (s, created) = json_of(&app, post(&cm)).await;
    assert_eq!(s, StatusCode::CREATED);
    assert!(created["metadata"]["uid"].is_string());
    let (s, doc) = json_of(&app, post(&cm)).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(doc["reason"], "AlreadyExists");
    assert_eq!(doc["message"], "configmaps \"c\" already exists");

    let (s, doc) = json_of(
        &app,
        req("POST", "/api/v1/namespaces/nope/configmaps")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(cm.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(doc["message"], "namespaces \"nope\" not found");

    let mut stale = created.clone();
    stale["metadata"]["resourceVersion"] = json!("1");
    let (s, doc) = json_of(
        &app,
        req("PUT", "/api/v1/namespaces/default/configmaps/c")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(stale.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(doc["message"], "Operation cannot be fulfilled on configmaps \"c\": the object has been modified; please apply your changes to the latest version and try again");

    let (s, doc) = json_of(&app, req("POST", "/apis/apps/v1/namespaces/default/deployments").header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "y"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}).to_string())).unwrap()).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(doc["reason"], "Invalid");
    assert_eq!(doc["details"]["kind"], "Deployment");
    assert_eq!(
        doc["details"]["causes"][0]["field"],
        "spec.template.metadata.labels"
    );

    let (s, doc) = json_of(
        &app,
        req("GET", "/api/v1/pods?labelSelector=a%20in%20(b")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(doc["reason"], "BadRequest");
    let (s, doc) = json_of(&app, get("/api/v1/configmaps?fieldSelector=spec.foo%3Dx")).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(doc["message"]
        .as_str()
        .unwrap()
        .contains("is not a known field selector"));

    let (s, doc) = json_of(
        &app,
        req("PATCH", "/api/v1/namespaces/default/configmaps/c")
            .header(header::CONTENT_TYPE, "text/plain")
            .body(Body::from("{}"))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(doc["reason"], "UnsupportedMediaType");

    let (s, doc) = json_of(&app, get("/api/v1/configmaps?resourceVersionMatch=Exact")).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(doc["message"]
        .as_str()
        .unwrap()
        .starts_with("ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden"));

    let big = vec![b' '; 3 * 1024 * 1024 + 10];
    let (s, doc) = json_of(
        &app,
        req("POST", "/api/v1/namespaces/default/configmaps")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(big))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(doc["reason"], "RequestEntityTooLarge");

    let (s, doc) = json_of(
        &app,
        req("POST", "/api/v1/namespaces/default/configmaps")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from("{not json"))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(doc["kind"], "Status");
}

#[tokio::test]
async fn host_header_is_checked() {
    let app = app();
    for (host, ok) in [
        ("localhost:8001", true),
        ("127.0.0.1", true),
        ("[::1]:9", true),
        ("demo.example:80", true),
        ("evil.example", false),
    ] {
        let r = Request::builder()
            .uri("/version")
            .header(header::HOST, host)
            .body(Body::empty())
            .unwrap();
        let (s, _, _) = send(&app, r).await;
        assert_eq!(s == StatusCode::OK, ok, "{host}");
        if !ok {
            assert_eq!(s, StatusCode::FORBIDDEN);
        }
    }
}

#[tokio::test]
async fn table_and_metadata_negotiation() {
    let app = app();
    let (s, h, body) = send(&app, req("GET", "/api/v1/nodes").header(header::ACCEPT, "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json").body(Body::empty()).unwrap()).await;
    assert_eq!(s, StatusCode::OK);
    assert!(h[header::CONTENT_TYPE]
        .to_str()
        .unwrap()
        .contains("as=Table"));
    let t: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(t["kind"], "Table");
    let cols: Vec<&str> = t["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(&cols[..5], &["Name", "Status", "Roles", "Age", "Version"]);
    assert_eq!(t["rows"].as_array().unwrap().len(), 3);
    for row in t["rows"].as_array().unwrap() {
        assert_eq!(row["cells"].as_array().unwrap().len(), cols.len());
        assert_eq!(row["cells"][1], "Ready");
        assert_eq!(row["object"]["kind"], "PartialObjectMetadata");
    }
    let t = json_ok(
        &app,
        req("GET", "/api/v1/namespaces?includeObject=None")
            .header(
                header::ACCEPT,
                "application/json;as=Table;v=v1;g=meta.k8s.io",
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(t["rows"][0].get("object").is_none());
    let t = json_ok(
        &app,
        req("GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles")
            .header(
                header::ACCEPT,
                "application/json;as=Table;v=v1;g=meta.k8s.io",
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(t["columnDefinitions"][1]["name"], "Created At");
    let (s, l) = json_of(
        &app,
        req("GET", "/api/v1/namespaces")
            .header(
                header::ACCEPT,
                "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(l["kind"], "PartialObjectMetadataList");
    assert_eq!(l["items"][0]["kind"], "PartialObjectMetadata");
    let (s, _) = json_of(
        &app,
        req("GET", "/api/v1/namespaces")
            .header(header::ACCEPT, "application/yaml")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::NOT_ACCEPTABLE);
}

#[tokio::test]
async fn list_paging_and_exact_resource_versions() {
    let app = app();
    for i in 0..5 {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("c{i}"), "labels": {"i": i.to_string()}}});
        let (s, _) = json_of(
            &app,
            req("POST", "/api/v1/namespaces/default/configmaps")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(cm.to_string()))
                .unwrap(),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED);
    }
    let page1 = json_ok(&app, get("/api/v1/namespaces/default/configmaps?limit=2")).await;
    assert_eq!(page1["items"].as_array().unwrap().len(), 2);
    assert_eq!(page1["metadata"]["remainingItemCount"], 3);
    let rv = page1["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    // A change between pages must not show up: pages are one snapshot.
    let (s, _) = json_of(
        &app,
        req("DELETE", "/api/v1/namespaces/default/configmaps/c3")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let token = page1["metadata"]["continue"].as_str().unwrap();
    let page2 = json_ok(
        &app,
        req(
            "GET",
            &format!(
                "/api/v1/namespaces/default/configmaps?limit=10&continue={}",
                urlencode(token)
            ),
        )
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    let names: Vec<&str> = page2["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["c2", "c3", "c4"]);
    assert_eq!(page2["metadata"]["resourceVersion"], rv.as_str());
    assert!(page2["metadata"].get("continue").is_none());
    let (s, l) = json_of(
        &app,
        get(&format!(
            "/api/v1/namespaces/default/configmaps?resourceVersion={rv}&resourceVersionMatch=Exact"
        )),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(l["items"].as_array().unwrap().len(), 5);
    let l = json_ok(
        &app,
        req(
            "GET",
            "/api/v1/namespaces/default/configmaps?labelSelector=i%20in%20(1,2)",
        )
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(l["items"].as_array().unwrap().len(), 2);
    let (s, doc) = json_of(
        &app,
        req(
            "GET",
            "/api/v1/namespaces/default/configmaps?limit=1&continue=garbage",
        )
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{doc}");
}

#[tokio::test]
async fn expired_continue_token_is_410() {
    let tuning = Tuning {
        watch_cache_capacity: 3,
        ..Tuning::default()
    };
    let registry = build_registry(&Config::default(), &tuning).unwrap();
    let app = router(AppState::new(registry, tuning, vec![]), None);
    let page1 = json_ok(&app, get("/api/v1/namespaces?limit=1")).await;
    for i in 0..5 {
        let cm =
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": format!("c{i}")}});
        json_of(
            &app,
            req("POST", "/api/v1/namespaces/default/configmaps")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(cm.to_string()))
                .unwrap(),
        )
        .await;
    }
    let token = page1["metadata"]["continue"].as_str().unwrap();
    let (s, doc) = json_of(
        &app,
        req(
            "GET",
            &format!("/api/v1/namespaces?limit=1&continue={}", urlencode(token)),
        )
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::GONE);
    assert_eq!(doc["reason"], "Expired");
}

#[tokio::test]
async fn delete_returns_status_or_object_and_honours_finalizers() {
    let app = app();
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "f", "finalizers": ["example.com/x"]}});
    json_of(
        &app,
        req("POST", "/api/v1/namespaces/default/configmaps")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(cm.to_string()))
            .unwrap(),
    )
    .await;
    let (s, obj) = json_of(
        &app,
        req("DELETE", "/api/v1/namespaces/default/configmaps/f")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(
                r#"{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}"#,
            ))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(obj["metadata"]["deletionTimestamp"].is_string());
    let (s, obj) = json_of(
        &app,
        req("PATCH", "/api/v1/namespaces/default/configmaps/f")
            .header(header::CONTENT_TYPE, "application/merge-patch+json")
            .body(Body::from(r#"{"metadata":{"finalizers":null}}"#))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{obj}");
    let (s, _) = json_of(&app, get("/api/v1/namespaces/default/configmaps/f")).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "g"}});
    let created = json_ok(
        &app,
        req("POST", "/api/v1/namespaces/default/configmaps")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(cm.to_string()))
            .unwrap(),
    )
    .await;
    let (s, doc) = json_of(
        &app,
        req("DELETE", "/api/v1/namespaces/default/configmaps/g")
            .body(Body::from(r#"{"preconditions":{"uid":"other"}}"#))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(doc["message"]
        .as_str()
        .unwrap()
        .contains("Precondition failed: UID in precondition: other"));
    let (s, doc) = json_of(
        &app,
        req(
            "DELETE",
            "/api/v1/namespaces/default/configmaps/g?dryRun=All",
        )
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(doc["status"], "Success");
    // With a body, kube-apiserver reads the options from it alone: the query's dryRun is
    // not one of them, and the body's is.
    let (s, _) = json_of(
        &app,
        req(
            "DELETE",
            "/api/v1/namespaces/default/configmaps/g?dryRun=All",
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            r#"{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}"#,
        ))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = json_of(
        &app,
        req("GET", "/api/v1/namespaces/default/configmaps/g")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "a dry run in the body deletes nothing");
    let (s, doc) = json_of(
        &app,
        req(
            "DELETE",
            "/api/v1/namespaces/default/configmaps/g?dryRun=All",
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(r#"{"kind":"DeleteOptions","apiVersion":"v1"}"#))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        doc["details"],
        json!({"name": "g", "kind": "configmaps", "uid": created["metadata"]["uid"]})
    );
    let (s, _) = json_of(
        &app,
        req("GET", "/api/v1/namespaces/default/configmaps/g")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(
        s,
        StatusCode::NOT_FOUND,
        "the query's dryRun was not heeded"
    );

    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    let (s, created) = json_of(
        &app,
        req("POST", "/api/v1/namespaces/default/pods")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(pod.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(created["status"]["phase"], "Pending");
    let (s, doc) = json_of(&app, req("POST", "/api/v1/namespaces/default/pods/p/binding").header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(r#"{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"apiVersion":"v1","kind":"Node","name":"demo-node-1"}}"#)).unwrap()).await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(doc["status"], "Success");
    let (s, _) = json_of(
        &app,
        req("POST", "/api/v1/namespaces/default/pods/p/binding")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(r#"{"target":{"name":"demo-node-2"}}"#))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT);
    let (s, h, _) = send(&app, get("/api/v1/namespaces/default/pods/p/log")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(h[header::CONTENT_TYPE], "text/plain");
    let (s, doc) = json_of(
        &app,
        req("DELETE", "/api/v1/namespaces/default/pods/p")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(doc["kind"], "Pod");
    assert_eq!(doc["spec"]["nodeName"], "demo-node-1");
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn crds_change_discovery_etag_and_print_their_columns() {
    let app = app();
    let etag_of = |h: &axum::http::HeaderMap| h[header::ETAG].to_str().unwrap().to_string();
    let (_, h, _) = send(
        &app,
        req("GET", "/apis")
            .header(header::ACCEPT, AGGREGATED)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let before = etag_of(&h);
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Cluster",
            "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1beta1", "served": true, "storage": false},
                         {"name": "v1", "served": true, "storage": true,
                          "additionalPrinterColumns": [{"name": "Color", "type": "string", "jsonPath": ".spec.color"},
                                                       {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status", "priority": 1}]}]}});
    let (s, created) = json_of(
        &app,
        req(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(crd.to_string()))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{created}");
    assert_eq!(created["status"]["acceptedNames"]["listKind"], "GadgetList");
    let (_, h, body) = send(
        &app,
        req("GET", "/apis")
            .header(header::ACCEPT, AGGREGATED)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_ne!(etag_of(&h), before);
    let doc: Value = serde_json::from_slice(&body).unwrap();
    let group = doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["metadata"]["name"] == "example.com")
        .unwrap();
    let versions: Vec<&str> = group["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions, vec!["v1", "v1beta1"], "GA first");
    let g = json_ok(&app, get("/apis/example.com")).await;
    assert_eq!(g["preferredVersion"]["version"], "v1");

    let gadget = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"color": "red"}});
    let (s, _) = json_of(
        &app,
        req("POST", "/apis/example.com/v1/gadgets")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(gadget.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    let via_beta = json_ok(&app, get("/apis/example.com/v1beta1/gadgets/g1")).await;
    assert_eq!(via_beta["apiVersion"], "example.com/v1beta1");
    let t = json_ok(
        &app,
        req("GET", "/apis/example.com/v1/gadgets")
            .header(
                header::ACCEPT,
                "application/json;as=Table;v=v1;g=meta.k8s.io",
            )
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let cols: Vec<&str> = t["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(cols, vec!["Name", "Color", "Ready"]);
    assert_eq!(t["rows"][0]["cells"], json!(["g1", "red", null]));

    let (s, _) = json_of(
        &app,
        req(
            "DELETE",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com",
        )
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = json_of(&app, get("/apis/example.com/v1/gadgets")).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (_, h, _) = send(
        &app,
        req("GET", "/apis")
            .header(header::ACCEPT, AGGREGATED)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(etag_of(&h), before);
}

#[tokio::test]
async fn openapi_documents_let_kubectl_validate_on_the_server() {
    let app = app();
    let (s, index) = json_of(&app, get("/openapi/v3")).await;
    assert_eq!(s, StatusCode::OK);
    let url = index["paths"]["apis/apps/v1"]["serverRelativeURL"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(url.starts_with("/openapi/v3/apis/apps/v1?hash="));
    let (s, doc) = json_of(&app, get(&url)).await;
    assert_eq!(s, StatusCode::OK);
    let patch = &doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"];
    assert_eq!(
        patch["x-kubernetes-group-version-kind"],
        json!({"group": "apps", "version": "v1", "kind": "Deployment"})
    );
    assert!(patch["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "fieldValidation"));
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["io.k8s.api.apps.v1.Deployment"]["x-kubernetes-group-version-kind"],
        json!([{"group": "apps", "version": "v1", "kind": "Deployment"}])
    );
    let containers = &schemas["io.k8s.api.core.v1.PodSpec"]["properties"]["containers"];
    assert_eq!(containers["x-kubernetes-patch-merge-key"], "name");
    assert_eq!(containers["x-kubernetes-patch-strategy"], "merge");
    let (s, v2) = json_of(
        &app,
        req("GET", "/openapi/v2")
            .header(header::ACCEPT, "application/json")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v2["swagger"], "2.0");
}

#[tokio::test]
async fn openapi_publishes_only_the_verbs_each_resource_serves() {
    let app = app();
    let (s, doc) = json_of(&app, get("/openapi/v3/apis/authorization.k8s.io/v1")).await;
    assert_eq!(s, StatusCode::OK);
    let paths = doc["paths"].as_object().unwrap();
    // The review kinds are create-only: a POST on the collection, no object path.
    let review = &paths["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"];
    assert_eq!(
        review.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["post"]
    );
    assert_eq!(
        review["post"]["operationId"],
        "createAuthorizationV1SelfSubjectAccessReview"
    );
    assert_eq!(review["post"]["x-kubernetes-action"], "post");
    let local =
        &paths["/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews"];
    assert_eq!(
        local["post"]["operationId"],
        "createAuthorizationV1NamespacedLocalSubjectAccessReview"
    );
    assert!(
        paths.keys().all(|p| !p.ends_with("{name}")),
        "{:?}",
        paths.keys()
    );
    let (_, core) = json_of(&app, get("/openapi/v3/api/v1")).await;
    let core = &core["paths"];
    // Subresources by their own verbs and kinds; read-only kinds without writes.
    let eviction = &core["/api/v1/namespaces/{namespace}/pods/{name}/eviction"];
    assert_eq!(
        eviction.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["post"]
    );
    assert_eq!(
        eviction["post"]["x-kubernetes-group-version-kind"],
        json!({"group": "policy", "version": "v1", "kind": "Eviction"})
    );
    let log = &core["/api/v1/namespaces/{namespace}/pods/{name}/log"];
    assert_eq!(log.as_object().unwrap().keys().collect::<Vec<_>>(), ["get"]);
    let statuses = &core["/api/v1/componentstatuses/{name}"];
    assert_eq!(
        statuses.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["get"]
    );
    assert_eq!(
        core["/api/v1/pods"]["get"]["operationId"],
        "listCoreV1PodForAllNamespaces"
    );
    assert_eq!(
        core["/api/v1/namespaces/{namespace}/pods"]["delete"]["operationId"],
        "deleteCoreV1CollectionNamespacedPod"
    );
    // kubectl looks for those kinds in /openapi/v2, which it reads only as protobuf.
    let response = app
        .clone()
        .oneshot(
            req("GET", "/openapi/v2")
                .header(
                    header::ACCEPT,
                    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
                )
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()[header::CONTENT_TYPE],
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    );
}

#[tokio::test]
async fn hostile_inputs_get_4xx_not_panics() {
    let app = app();
    let cm = create_configmap(&app, "h").await;
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let (s, _) = json_of(
        &app,
        req("POST", "/apis/apps/v1/namespaces/default/deployments")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(deploy.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    let cases: Vec<(&str, &str, &str, String)> = vec![
        ("PATCH", "/api/v1/namespaces/default/configmaps/h", "application/merge-patch+json", r#"{"metadata":"x"}"#.into()),
        ("PATCH", "/api/v1/namespaces/default/configmaps/h", "application/merge-patch+json", "5".into()),
        ("PATCH", "/api/v1/namespaces/default/configmaps/h", "application/json-patch+json", r#"[{"op":"replace","path":"","value":7}]"#.into()),
        ("PATCH", "/api/v1/namespaces/default/configmaps/h", "application/json-patch+json", r#"[{"op":"test","path":"/data","value":1}]"#.into()),
        ("PATCH", "/api/v1/namespaces/default/configmaps/h", "application/json-patch+json", r#"{"op":"x"}"#.into()),
        ("PATCH", "/api/v1/namespaces/default/configmaps/h", "application/strategic-merge-patch+json", r#"{"metadata":{"$patch":"bogus"}}"#.into()),
        ("PATCH", "/api/v1/namespaces/default/configmaps/h", "application/apply-patch+yaml", "a: [".into()),
        ("PATCH", "/api/v1/namespaces/default/configmaps/h?fieldManager=x", "application/apply-patch+yaml", "- 1\n- 2".into()),
        ("PATCH", "/api/v1/namespaces/default/configmaps/h?fieldManager=x", "application/apply-patch+yaml", "metadata: 3".into()),
        ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d", "application/merge-patch+json", r#"{"spec":"x"}"#.into()),
        ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/status", "application/merge-patch+json", r#"{"status":"x"}"#.into()),
        ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/scale", "application/merge-patch+json", r#"{"spec":{"replicas":"many"}}"#.into()),
        ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d/scale", "application/merge-patch+json", r#"{"spec":"x"}"#.into()),
        ("PATCH", "/apis/apps/v1/namespaces/default/deployments/d", "application/strategic-merge-patch+json", r#"{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}"#.into()),
        ("PUT", "/api/v1/namespaces/default/configmaps/h", "application/json", r#"{"metadata":{"name":"other"}}"#.into()),
        ("PUT", "/api/v1/namespaces/default/configmaps/h", "application/json", r#"{"metadata":{"name":"h","resourceVersion":"abc"}}"#.into()),
        ("PUT", "/api/v1/namespaces/default/configmaps/h", "application/json", "[]".into()),
        ("POST", "/api/v1/namespaces/default/configmaps", "application/json", r#"{"kind":"Pod","metadata":{"name":"x"}}"#.into()),
        ("POST", "/api/v1/namespaces/default/configmaps", "application/json", r#"{"metadata":{"name":"UPPER"}}"#.into()),
        ("POST", "/api/v1/namespaces/default/configmaps", "application/json", r#"{"metadata":{"namespace":"other","name":"x"}}"#.into()),
        ("POST", "/api/v1/namespaces/default/configmaps", "application/json", r#"{"metadata":{}}"#.into()),
        ("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", r#"{"metadata":{"name":"x"},"spec":"y"}"#.into()),
        ("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", r#"{"metadata":{"name":"x"},"spec":{"names":5}}"#.into()),
        ("POST", "/api/v1/namespaces/default/pods/nope/binding", "application/json", "{}".into()),
        ("DELETE", "/api/v1/namespaces/default/configmaps/h", "application/json", r#"{"propagationPolicy":"Sideways"}"#.into()),
        ("DELETE", "/api/v1/namespaces/default/configmaps/h", "application/json", "not json".into()),
        ("GET", "/api/v1/namespaces/default/configmaps?limit=abc&resourceVersion=zz", "", String::new()),
        ("GET", "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=zz", "", String::new()),
        ("GET", "/api/v1/namespaces/default/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan", "", String::new()),
        ("POST", "/api/v1/namespaces/default/configmaps?dryRun=Some", "application/json", cm.to_string()),
        ("GET", "/api/v1/namespaces/default/configmaps/h/status", "", String::new()),
        ("GET", "/api/v1/namespaces/default/pods/x/y/z", "", String::new()),
        ("PUT", "/api/v1/namespaces/default/configmaps", "application/json", "{}".into()),
    ];
    for (method, uri, ct, body) in cases {
        let mut r = req(method, uri);
        if !ct.is_empty() {
            r = r.header(header::CONTENT_TYPE, ct);
        }
        let (s, doc) = json_of(&app, r.body(Body::from(body.clone())).unwrap()).await;
        assert!(
            s.is_client_error() || s == StatusCode::GATEWAY_TIMEOUT,
            "{method} {uri} {body}: {s} {doc}"
        );
        assert_eq!(doc["kind"], "Status", "{method} {uri} {body}");
    }
    // The objects survived all of that.
    let (s, _) = json_of(&app, get("/api/v1/namespaces/default/configmaps/h")).await;
    assert_eq!(s, StatusCode::OK);
}

#[tokio::test]
async fn unknown_fields_follow_field_validation() {
    let app = app();
    let body = |name: &str| {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "bogus": 1},
               "data": {"a": "1"}, "extra": {"x": 1}})
        .to_string()
    };
    let (s, doc) = json_of(
        &app,
        req(
            "POST",
            "/api/v1/namespaces/default/configmaps?fieldValidation=Strict",
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body("s")))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(
        doc["message"],
        "strict decoding error: unknown field \"extra\", unknown field \"metadata.bogus\""
    );
    let (s, h, b) = send(
        &app,
        req("POST", "/api/v1/namespaces/default/configmaps")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body("w")))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    let warnings: Vec<&str> = h
        .get_all(header::WARNING)
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        vec![
            "299 - \"unknown field \\\"extra\\\"\"",
            "299 - \"unknown field \\\"metadata.bogus\\\"\""
        ]
    );
    let created: Value = serde_json::from_slice(&b).unwrap();
    assert!(created.get("extra").is_none() && created["metadata"].get("bogus").is_none());
    // Nested unknown fields in typed sub-objects are found too.
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i", "imagePullPolcy": "Always", "resources": {"limits": {"cpu": "1"}}}], "nodeSelector": {"a": "b"}}});
    let (s, doc) = json_of(
        &app,
        req(
            "POST",
            "/api/v1/namespaces/default/pods?fieldValidation=Strict",
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(pod.to_string()))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(
        doc["message"],
        "strict decoding error: unknown field \"spec.containers[0].imagePullPolcy\""
    );
}

#[tokio::test]
async fn custom_resources_are_pruned_by_their_structural_schema() {
    let app = app();
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "dials.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "dials", "kind": "Dial"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                "type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"},
                        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}}}]}});
    let (s, _) = json_of(
        &app,
        req(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(crd.to_string()))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    let dial = json!({"apiVersion": "example.com/v1", "kind": "Dial", "metadata": {"name": "d", "labels": {"a": "b"}},
        "spec": {"size": 1, "colour": "red", "extra": {"anything": [1]}}, "top": 1});
    let (s, doc) = json_of(
        &app,
        req(
            "POST",
            "/apis/example.com/v1/namespaces/default/dials?fieldValidation=Strict",
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(dial.to_string()))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(
        doc["message"],
        "strict decoding error: unknown field \"spec.colour\", unknown field \"top\""
    );
    let (s, created) = json_of(
        &app,
        req("POST", "/apis/example.com/v1/namespaces/default/dials")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(dial.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(
        created["spec"],
        json!({"size": 1, "extra": {"anything": [1]}})
    );
    assert_eq!(created["metadata"]["labels"], json!({"a": "b"}));
    assert!(created.get("top").is_none());
}

#[tokio::test]
async fn events_are_shared_between_core_and_events_k8s_io() {
    let app = app();
    let core = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "p.1"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Pulled", "message": "pulled it", "source": {"component": "kubelet"}, "count": 2, "type": "Normal"});
    let (s, _) = json_of(
        &app,
        req("POST", "/api/v1/namespaces/default/events")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(core.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    let (s, list) = json_of(
        &app,
        req(
            "GET",
            "/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dp",
        )
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{list}");
    let ev = &list["items"][0];
    assert_eq!(ev["apiVersion"], "events.k8s.io/v1");
    assert_eq!(ev["regarding"]["name"], "p");
    assert_eq!(ev["note"], "pulled it");
    assert_eq!(ev["deprecatedCount"], 2);
    assert_eq!(ev["deprecatedSource"]["component"], "kubelet");
    let new = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "p.2"},
        "eventTime": "2024-05-01T12:00:00.000000Z", "regarding": {"kind": "Pod", "name": "p"},
        "reportingController": "default-scheduler", "reportingInstance": "s", "action": "Binding",
        "reason": "Scheduled", "note": "assigned", "type": "Normal"});
    let (s, created) = json_of(
        &app,
        req(
            "POST",
            "/apis/events.k8s.io/v1/namespaces/default/events?fieldValidation=Strict",
        )
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(new.to_string()))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{created}");
    assert_eq!(created["note"], "assigned");
    let as_core = json_ok(&app, get("/api/v1/namespaces/default/events/p.2")).await;
    assert_eq!(as_core["involvedObject"]["name"], "p");
    assert_eq!(as_core["reportingComponent"], "default-scheduler");
    assert_eq!(as_core["message"], "assigned");
    let (s, patched) = json_of(
        &app,
        req(
            "PATCH",
            "/apis/events.k8s.io/v1/namespaces/default/events/p.2",
        )
        .header(header::CONTENT_TYPE, "application/merge-patch+json")
        .body(Body::from(r#"{"note":"changed"}"#))
        .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(patched["note"], "changed");
    let as_core = json_ok(&app, get("/api/v1/namespaces/default/events/p.2")).await;
    assert_eq!(as_core["message"], "changed");
    assert!(as_core.get("note").is_none());
}

/// A Status answer: its code is the HTTP status and it names `reason`.
fn assert_status(what: &str, s: StatusCode, doc: &Value, code: u16, reason: &str) {
    assert_eq!(s.as_u16(), code, "{what}: {doc}");
    assert_eq!(doc["kind"], "Status", "{what}: {doc}");
    assert_eq!(doc["code"], code, "{what}: {doc}");
    assert_eq!(doc["reason"], reason, "{what}: {doc}");
}

#[tokio::test]
async fn bodies_in_unsupported_media_types_get_415() {
    let app = app();
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}});
    // As kube-apiserver: a create or update without Content-Type is read as JSON.
    let created = json_ok(
        &app,
        req("POST", "/api/v1/namespaces/default/configmaps")
            .body(Body::from(cm.to_string()))
            .unwrap(),
    )
    .await;
    assert_eq!(created["metadata"]["name"], "m");
    let object = "/api/v1/namespaces/default/configmaps/m";
    const BODIES: &str = "application/json, application/yaml, application/vnd.kubernetes.protobuf";
    // A PATCH of no patch type gets kube-apiserver's router's words, naming nothing.
    const PATCHES: &str = "";
    let cases = [
        (
            "POST",
            "/api/v1/namespaces/default/configmaps",
            Some("text/plain"),
            BODIES,
        ),
        (
            "POST",
            "/api/v1/namespaces/default/configmaps",
            Some("application/xml; charset=utf-8"),
            BODIES,
        ),
        ("PUT", object, Some("text/html"), BODIES),
        ("PUT", object, Some("application/merge-patch+json"), BODIES),
        // A patch names its type: without one, or with a plain JSON type, it cannot be read.
        ("PATCH", object, None, PATCHES),
        ("PATCH", object, Some("application/json"), PATCHES),
        ("PATCH", object, Some("application/yaml"), PATCHES),
    ];
    for (method, uri, content_type, accepted) in cases {
        let mut r = req(method, uri);
        if let Some(ct) = content_type {
            r = r.header(header::CONTENT_TYPE, ct);
        }
        let what = format!("{method} {uri} as {content_type:?}");
        let (s, doc) = json_of(&app, r.body(Body::from(cm.to_string())).unwrap()).await;
        assert_status(&what, s, &doc, 415, "UnsupportedMediaType");
        let expected = if accepted.is_empty() {
            "415: Unsupported Media Type".to_string()
        } else {
            format!("the body of the request was in an unknown format - accepted media types include: {accepted}")
        };
        assert_eq!(doc["message"], expected, "{what}");
    }
}

#[tokio::test]
async fn bodies_over_the_limit_get_413() {
    let app = app();
    create_configmap(&app, "big").await;
    let limit = demo_cluster::http::MAX_BODY_BYTES;
    let object = "/api/v1/namespaces/default/configmaps/big";
    let huge_data = |len: usize| {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "big"},
               "data": {"k": "x".repeat(len)}})
        .to_string()
    };
    for (method, content_type) in [
        ("PUT", "application/json"),
        ("PATCH", "application/merge-patch+json"),
        ("PATCH", "application/apply-patch+yaml"),
    ] {
        let (s, doc) = json_of(
            &app,
            with_body(method, object, content_type, huge_data(limit)),
        )
        .await;
        assert_status(method, s, &doc, 413, "RequestEntityTooLarge");
    }
    // A body sent in chunks, without a length, is cut at the limit all the same.
    let chunk = axum::body::Bytes::from(vec![b' '; 1024 * 1024]);
    let chunks =
        (0..limit / chunk.len() + 2).map(move |_| Ok::<_, std::convert::Infallible>(chunk.clone()));
    let (s, doc) = json_of(
        &app,
        with_body(
            "POST",
            "/api/v1/namespaces/default/configmaps",
            "application/json",
            Body::from_stream(futures_util::stream::iter(chunks)),
        ),
    )
    .await;
    assert_status("chunked POST", s, &doc, 413, "RequestEntityTooLarge");
    // Just under the limit is read.
    let (s, doc) = json_of(
        &app,
        with_body("PUT", object, "application/json", huge_data(limit - 200)),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{doc}");
}

#[tokio::test]
async fn bad_selectors_get_400() {
    let app = app();
    let bad_labels = [
        "a in (b",
        "a in b",
        "a notin ()x",
        "=b",
        "a=b=c",
        "!",
        "a,,b",
        "-a=b",
        "a/b/c=d",
        "a=-b",
        "a>",
        "a gt 1",
    ];
    let bad_fields = [
        "spec.foo=x",
        "metadata.name",
        "metadata.name~x",
        "=x",
        "metadata.labels=x",
    ];
    let queries = bad_labels
        .iter()
        .map(|s| format!("labelSelector={}", urlencode(s)))
        .chain(
            bad_fields
                .iter()
                .map(|s| format!("fieldSelector={}", urlencode(s))),
        );
    for query in queries {
        for collection in [
            "/api/v1/configmaps",
            "/api/v1/namespaces/default/pods",
            "/apis/apps/v1/deployments",
            "/api/v1/nodes",
        ] {
            for extra in ["", "&watch=true", "&limit=1"] {
                let uri = format!("{collection}?{query}{extra}");
                let (s, doc) = json_of(&app, get(&uri)).await;
                assert_status(&uri, s, &doc, 400, "BadRequest");
            }
        }
        for collection in [
            "/api/v1/namespaces/default/configmaps",
            "/apis/apps/v1/namespaces/default/deployments",
            "/api/v1/nodes",
        ] {
            let uri = format!("{collection}?{query}");
            let (s, doc) = json_of(&app, req("DELETE", &uri).body(Body::empty()).unwrap()).await;
            assert_status(&format!("DELETE {uri}"), s, &doc, 400, "BadRequest");
        }
    }
    // Collections of namespaced kinds are deleted one namespace at a time.
    let (s, doc) = json_of(
        &app,
        req("DELETE", "/api/v1/configmaps")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_status("DELETE all configmaps", s, &doc, 405, "MethodNotAllowed");
    let (s, _) = json_of(
        &app,
        get("/api/v1/namespaces/default/configmaps?labelSelector=a%20notin%20()"),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "an empty set is a set");
}

#[tokio::test]
async fn unknown_groups_versions_and_resources_get_404_status() {
    let app = app();
    let paths = [
        "/api/v2",
        "/api/v2/pods",
        "/api/v1/nopes",
        "/api/v1/namespaces/default/nopes",
        "/api/v1/namespaces/default/nopes/x",
        // Nodes are cluster-scoped: there is no namespaced path to them.
        "/api/v1/namespaces/default/nodes",
        "/api/v1/namespaces/default/pods/p/nope",
        "/apis/apps/v2",
        "/apis/apps/v2/deployments",
        "/apis/apps/v1beta1/namespaces/default/deployments",
        "/apis/apps/v1/nopes",
        "/apis/apps/v1/namespaces/default/deployments/d/nope",
        "/apis/nope.example",
        "/apis/nope.example/v1",
        "/apis/nope.example/v1/things",
        "/apis/nope.example/v1/namespaces/default/things/x",
        "/apis/batch/v1/namespaces/default/deployments",
        "/nope",
    ];
    for path in paths {
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
            let (s, doc) = json_of(
                &app,
                with_body(method, path, "application/merge-patch+json", "{}"),
            )
            .await;
            let what = format!("{method} {path}");
            // Discovery documents exist only for GET; other verbs on them are 405.
            if s == StatusCode::METHOD_NOT_ALLOWED {
                assert_status(&what, s, &doc, 405, "MethodNotAllowed");
                continue;
            }
            assert_status(&what, s, &doc, 404, "NotFound");
            assert_eq!(
                doc["message"], "the server could not find the requested resource",
                "{what}"
            );
        }
    }
}

#[tokio::test]
async fn abandoned_watches_release_their_subscription() {
    let tuning = Tuning::default();
    let registry = build_registry(&Config::default(), &tuning).unwrap();
    let app = router(AppState::new(registry.clone(), tuning, vec![]), None);
    let before = registry.store.subscriber_count();
    let mut watches = vec![];
    for uri in [
        "/api/v1/configmaps?watch=true",
        "/api/v1/namespaces/default/pods?watch=true&resourceVersion=0",
        "/apis/apps/v1/deployments?watch=true&allowWatchBookmarks=true",
    ] {
        let resp = app.clone().oneshot(get(uri)).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "{uri}");
        watches.push(resp);
    }
    // Each watch subscribes from its own task, soon after its headers are answered.
    common::wait_for_subscribers(&registry, |n| n == before + 3, "the watches to subscribe").await;
    // The client goes away without reading to the end: the response body is dropped.
    drop(watches);
    common::wait_for_subscribers(
        &registry,
        |n| n == before,
        "abandoned watches to unsubscribe",
    )
    .await;
}

#[tokio::test]
async fn reviews_are_answered_not_stored() {
    let app = app();
    let post =
        |uri: &str, body: Value| with_body("POST", uri, "application/json", body.to_string());
    let ssar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
        "spec": {"resourceAttributes": {"verb": "create", "group": "apps", "resource": "deployments", "namespace": "default"}}});
    let (s, answer) = json_of(
        &app,
        post(
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            ssar.clone(),
        ),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{answer}");
    assert_eq!(answer["status"]["allowed"], true);
    assert_eq!(answer["spec"], ssar["spec"]);
    // Nothing to list or get: reviews are create-only.
    let (s, doc) = json_of(
        &app,
        get("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
    )
    .await;
    assert_status("list reviews", s, &doc, 405, "MethodNotAllowed");

    let cases = [
        // Neither resourceAttributes nor nonResourceAttributes.
        (
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            json!({"kind": "SelfSubjectAccessReview", "spec": {}}),
            422,
        ),
        (
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            json!({"spec": {"resourceAttributes": {}, "nonResourceAttributes": {"path": "/x", "verb": "get"}}}),
            422,
        ),
        // No user or group to ask about.
        (
            "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            json!({"spec": {"resourceAttributes": {"verb": "get"}}}),
            422,
        ),
        (
            "/apis/authorization.k8s.io/v1/namespaces/shop/localsubjectaccessreviews",
            json!({"spec": {"user": "u", "resourceAttributes": {"verb": "get", "namespace": "other"}}}),
            400,
        ),
        (
            "/apis/authorization.k8s.io/v1/namespaces/shop/localsubjectaccessreviews",
            json!({"spec": {"user": "u", "nonResourceAttributes": {"path": "/x", "verb": "get"}}}),
            422,
        ),
        (
            "/apis/authentication.k8s.io/v1/tokenreviews",
            json!({"spec": {}}),
            400,
        ),
        (
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
            json!({"kind": "TokenReview"}),
            400,
        ),
    ];
    for (uri, body, code) in cases {
        let (s, doc) = json_of(&app, post(uri, body.clone())).await;
        assert_eq!(s.as_u16(), code, "{uri} {body}: {doc}");
        assert_eq!(doc["kind"], "Status");
    }

    let sar = json_ok(&app, post("/apis/authorization.k8s.io/v1/subjectaccessreviews",
        json!({"spec": {"user": "bob", "groups": ["dev"], "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}}))).await;
    assert_eq!(sar["kind"], "SubjectAccessReview");
    assert_eq!(sar["status"]["allowed"], true);
    let local = json_ok(&app, post("/apis/authorization.k8s.io/v1/namespaces/shop/localsubjectaccessreviews",
        json!({"spec": {"user": "bob", "resourceAttributes": {"verb": "delete", "resource": "pods", "namespace": "shop"}}}))).await;
    assert_eq!(local["metadata"]["namespace"], "shop");
    assert_eq!(local["status"]["allowed"], true);
    let rules = json_ok(
        &app,
        post(
            "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
            json!({"spec": {"namespace": "default"}}),
        ),
    )
    .await;
    assert_eq!(rules["status"]["resourceRules"][0]["verbs"], json!(["*"]));
    assert_eq!(rules["status"]["incomplete"], false);
    let me = json_ok(
        &app,
        post(
            "/apis/authentication.k8s.io/v1/selfsubjectreviews",
            json!({}),
        ),
    )
    .await;
    assert_eq!(me["apiVersion"], "authentication.k8s.io/v1");
    assert_eq!(me["status"]["userInfo"]["username"], "kubernetes-admin");
    let token = json_ok(
        &app,
        post(
            "/apis/authentication.k8s.io/v1/tokenreviews",
            json!({"spec": {"token": "abc", "audiences": ["demo"]}}),
        ),
    )
    .await;
    assert_eq!(token["status"]["authenticated"], true);
    assert_eq!(token["status"]["audiences"], json!(["demo"]));
    assert_eq!(
        token["status"]["user"]["groups"],
        json!(["system:masters", "system:authenticated"])
    );
}

/// A namespaced CRD in `shadow.example` whose plural is `plural` (a built-in's, on purpose).
async fn create_shadow_crd(app: &Router, plural: &str, kind: &str) {
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.shadow.example")},
        "spec": {"group": "shadow.example", "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    json_ok(
        app,
        with_body(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "application/json",
            crd.to_string(),
        ),
    )
    .await;
}

#[tokio::test]
async fn custom_resources_named_like_built_ins_get_no_built_in_behaviour() {
    let app = app();
    create_shadow_crd(&app, "services", "Service").await;
    create_shadow_crd(&app, "jobs", "Job").await;
    let post =
        |uri: &str, body: Value| with_body("POST", uri, "application/json", body.to_string());
    // A built-in Service's name must be a DNS-1035 label; a custom resource's need not.
    let (s, doc) = json_of(
        &app,
        post(
            "/api/v1/namespaces/default/services",
            json!({"metadata": {"name": "9lives"}, "spec": {"ports": [{"port": 80}]}}),
        ),
    )
    .await;
    assert_status("built-in service 9lives", s, &doc, 422, "Invalid");
    let service = json_ok(
        &app,
        post(
            "/apis/shadow.example/v1/namespaces/default/services",
            json!({"apiVersion": "shadow.example/v1", "kind": "Service", "metadata": {"name": "9lives"}, "spec": {}}),
        ),
    )
    .await;
    assert!(
        service["spec"].get("clusterIP").is_none(),
        "no ClusterIP allocated: {service}"
    );

    let job = json!({"apiVersion": "shadow.example/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"completions": 1, "template": {"image": "a"}}, "status": {"succeeded": 1}});
    let created = json_ok(
        &app,
        post("/apis/shadow.example/v1/namespaces/default/jobs", job),
    )
    .await;
    assert!(
        created["spec"].get("selector").is_none() && created["spec"].get("backoffLimit").is_none(),
        "no Job defaults: {created}"
    );
    // Its template may change: only the built-in Job's is fixed at creation.
    json_ok(
        &app,
        with_body(
            "PATCH",
            "/apis/shadow.example/v1/namespaces/default/jobs/j",
            "application/merge-patch+json",
            r#"{"spec":{"template":{"image":"b"}}}"#,
        ),
    )
    .await;
    // Printed with the CRD's columns (Name, Age), without Job rows' conditions.
    let table = json_ok(
        &app,
        req("GET", "/apis/shadow.example/v1/namespaces/default/jobs")
            .header(header::ACCEPT, TABLE)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let columns: Vec<&str> = table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(columns, ["Name", "Age"]);
    assert!(table["rows"][0].get("conditions").is_none(), "{table}");
    // Nor the built-in Job's selectable fields.
    let (s, _) = json_of(
        &app,
        get("/apis/batch/v1/jobs?fieldSelector=status.successful%3D1"),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, doc) = json_of(
        &app,
        get("/apis/shadow.example/v1/jobs?fieldSelector=status.successful%3D1"),
    )
    .await;
    assert_status(
        "custom jobs by status.successful",
        s,
        &doc,
        400,
        "BadRequest",
    );
}

#[tokio::test]
async fn fields_fixed_at_creation_are_immutable() {
    let app = app();
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"app": "d"}},
                 "template": {"metadata": {"labels": {"app": "d", "tier": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    json_ok(
        &app,
        with_body(
            "POST",
            "/apis/apps/v1/namespaces/default/deployments",
            "application/json",
            deploy.to_string(),
        ),
    )
    .await;
    let patch = |uri: &str, body: Value| {
        with_body(
            "PATCH",
            uri,
            "application/merge-patch+json",
            body.to_string(),
        )
    };
    let deployment = "/apis/apps/v1/namespaces/default/deployments/d";
    // The template's labels still match the new selector: only immutability refuses it.
    let (s, doc) = json_of(
        &app,
        patch(
            deployment,
            json!({"spec": {"selector": {"matchLabels": {"app": "d", "tier": "web"}}}}),
        ),
    )
    .await;
    assert_status("selector change", s, &doc, 422, "Invalid");
    assert_eq!(doc["details"]["causes"][0]["field"], "spec.selector");
    assert!(
        doc["message"]
            .as_str()
            .unwrap()
            .contains("field is immutable"),
        "{doc}"
    );
    json_ok(&app, patch(deployment, json!({"spec": {"replicas": 3}}))).await;

    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}});
    json_ok(
        &app,
        with_body(
            "POST",
            "/apis/batch/v1/namespaces/default/jobs",
            "application/json",
            job.to_string(),
        ),
    )
    .await;
    let job = "/apis/batch/v1/namespaces/default/jobs/j";
    let (s, doc) = json_of(
        &app,
        with_body(
            "PATCH",
            job,
            "application/strategic-merge-patch+json",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "other"}]}}}})
                .to_string(),
        ),
    )
    .await;
    assert_status("template change", s, &doc, 422, "Invalid");
    assert_eq!(doc["details"]["causes"][0]["field"], "spec.template");
    let (s, doc) = json_of(
        &app,
        patch(
            job,
            json!({"spec": {"selector": {"matchLabels": {"x": "y"}}}}),
        ),
    )
    .await;
    assert_status("selector change", s, &doc, 422, "Invalid");
    json_ok(
        &app,
        patch(job, json!({"metadata": {"labels": {"seen": "yes"}}})),
    )
    .await;
}

#[tokio::test]
async fn horizontal_pod_autoscalers_are_served_as_v2_and_v1() {
    let app = app();
    let group = json_ok(&app, get("/apis/autoscaling")).await;
    assert_eq!(group["preferredVersion"]["version"], "v2");
    let v2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
    let v1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
    let target = json!({"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"});
    let memory = json!({"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}}});
    let behavior = json!({"scaleDown": {"stabilizationWindowSeconds": 60}});
    let created = json_ok(&app, with_body("POST", v2, "application/json", json!({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "a"},
        "spec": {"scaleTargetRef": target, "maxReplicas": 5, "behavior": behavior,
                 "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}, memory]}
    }).to_string())).await;
    assert_eq!(created["spec"]["minReplicas"], 1, "defaulted");

    // Through v1: the CPU target, the rest in kube-apiserver's annotations.
    let as_v1 = json_ok(&app, get(&format!("{v1}/a"))).await;
    assert_eq!(as_v1["apiVersion"], "autoscaling/v1");
    assert_eq!(as_v1["spec"]["targetCPUUtilizationPercentage"], 50);
    assert!(as_v1["spec"].get("metrics").is_none());
    let annotations = &as_v1["metadata"]["annotations"];
    let kept: Value = serde_json::from_str(
        annotations["autoscaling.alpha.kubernetes.io/metrics"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(kept, json!([memory]));
    // A v1 client writing it back loses nothing, and changes what it can say.
    let mut edited = as_v1.clone();
    edited["spec"]["targetCPUUtilizationPercentage"] = json!(60);
    json_ok(
        &app,
        with_body(
            "PUT",
            &format!("{v1}/a"),
            "application/json",
            edited.to_string(),
        ),
    )
    .await;
    let as_v2 = json_ok(&app, get(&format!("{v2}/a"))).await;
    assert_eq!(as_v2["apiVersion"], "autoscaling/v2");
    assert_eq!(
        as_v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        60
    );
    assert_eq!(as_v2["spec"]["metrics"][1], memory);
    assert_eq!(as_v2["spec"]["behavior"], behavior);
    assert!(as_v2["metadata"].get("annotations").is_none(), "{as_v2}");

    // Created through v1, read through v2.
    json_ok(&app, with_body("POST", v1, "application/json", json!({
        "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "b"},
        "spec": {"scaleTargetRef": target, "maxReplicas": 3, "targetCPUUtilizationPercentage": 70}
    }).to_string())).await;
    let b = json_ok(&app, get(&format!("{v2}/b"))).await;
    assert_eq!(
        b["spec"]["metrics"],
        json!([{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}])
    );
    let listed = json_ok(&app, get(v1)).await;
    assert_eq!(listed["items"].as_array().map(Vec::len), Some(2));
    assert!(listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["apiVersion"] == "autoscaling/v1"));

    let table = json_ok(
        &app,
        req("GET", v1)
            .header(header::ACCEPT, TABLE)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let row = &table["rows"][1]["cells"];
    assert_eq!(row[0], "b");
    assert_eq!(row[1], "Deployment/web");
    assert_eq!(row[2], "cpu: <unknown>/70%");
    assert_eq!((row[3].clone(), row[4].clone()), (json!(1), json!(3)));

    let (s, doc) = json_of(&app, with_body("POST", v2, "application/json", json!({
        "metadata": {"name": "c"}, "spec": {"scaleTargetRef": target, "minReplicas": 4, "maxReplicas": 2}
    }).to_string())).await;
    assert_status("max below min", s, &doc, 422, "Invalid");
}

#[tokio::test]
async fn cluster_scoped_kinds_are_stored_and_served() {
    let app = app();
    let objects = [
        (
            "/api/v1/persistentvolumes",
            json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}}),
        ),
        (
            "/apis/storage.k8s.io/v1/storageclasses",
            json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "standard"}, "provisioner": "rancher.io/local-path"}),
        ),
        (
            "/apis/scheduling.k8s.io/v1/priorityclasses",
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": "high"}, "value": 1000}),
        ),
        (
            "/apis/networking.k8s.io/v1/ingressclasses",
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
            "metadata": {"name": "nginx"}, "spec": {"controller": "k8s.io/ingress-nginx"}}),
        ),
        (
            "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
            json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "hook"}, "webhooks": []}),
        ),
        (
            "/apis/node.k8s.io/v1/runtimeclasses",
            json!({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
            "metadata": {"name": "runc"}, "handler": "runc"}),
        ),
    ];
    for (collection, object) in objects {
        let name = object["metadata"]["name"].as_str().unwrap();
        let created = json_ok(
            &app,
            with_body("POST", collection, "application/json", object.to_string()),
        )
        .await;
        assert!(created["metadata"].get("namespace").is_none(), "{created}");
        let read = json_ok(&app, get(&format!("{collection}/{name}"))).await;
        assert_eq!(read["kind"], object["kind"]);
        let listed = json_ok(&app, get(collection)).await;
        assert_eq!(
            listed["items"].as_array().map(Vec::len),
            Some(1),
            "{collection}"
        );
        // Cluster-scoped: no path through a namespace.
        let (prefix, resource) = collection.rsplit_once('/').unwrap();
        let namespaced = format!("{prefix}/namespaces/default/{resource}");
        let (s, _) = json_of(&app, get(&namespaced)).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{namespaced}");
        json_ok(
            &app,
            req("DELETE", &format!("{collection}/{name}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    }
}

#[tokio::test]
async fn core_bindings_bind_the_pod_they_name() {
    let app = app();
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}]}});
    json_ok(
        &app,
        with_body(
            "POST",
            "/api/v1/namespaces/default/pods",
            "application/json",
            pod.to_string(),
        ),
    )
    .await;
    let binding = json!({"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "p"},
        "target": {"apiVersion": "v1", "kind": "Node", "name": "demo-node-1"}});
    let (s, answer) = json_of(
        &app,
        with_body(
            "POST",
            "/api/v1/namespaces/default/bindings",
            "application/json",
            binding.to_string(),
        ),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{answer}");
    let bound = json_ok(&app, get("/api/v1/namespaces/default/pods/p")).await;
    assert_eq!(bound["spec"]["nodeName"], "demo-node-1");
    // Nothing to list: bindings are create-only.
    let (s, doc) = json_of(&app, get("/api/v1/namespaces/default/bindings")).await;
    assert_status("list bindings", s, &doc, 405, "MethodNotAllowed");
}

#[tokio::test]
async fn namespaces_finalize_releases_a_terminating_namespace() {
    let app = app();
    let ns = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "stuck"}});
    json_ok(
        &app,
        with_body(
            "POST",
            "/api/v1/namespaces",
            "application/json",
            ns.to_string(),
        ),
    )
    .await;
    // No namespace controller in this router: the `kubernetes` finalizer holds it.
    json_ok(
        &app,
        req("DELETE", "/api/v1/namespaces/stuck")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let mut held = json_ok(&app, get("/api/v1/namespaces/stuck")).await;
    assert_eq!(held["status"]["phase"], "Terminating");
    assert_eq!(held["spec"]["finalizers"], json!(["kubernetes"]));
    // finalize writes spec.finalizers only: a label change is ignored.
    let finalize = |body: &Value| {
        with_body(
            "PUT",
            "/api/v1/namespaces/stuck/finalize",
            "application/json",
            body.to_string(),
        )
    };
    held["metadata"]["labels"]["extra"] = json!("x");
    held = json_ok(&app, finalize(&held)).await;
    assert!(held["metadata"]["labels"].get("extra").is_none(), "{held}");
    held["spec"]["finalizers"] = json!([]);
    let (s, _) = json_of(
        &app,
        with_body(
            "PUT",
            "/api/v1/namespaces/stuck/finalize",
            "application/json",
            held.to_string(),
        ),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = json_of(&app, get("/api/v1/namespaces/stuck")).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "released and gone");
}

#[tokio::test]
async fn evictions_honour_pod_disruption_budgets() {
    let app = app();
    let pods = "/api/v1/namespaces/default/pods";
    for name in ["w1", "w2", "w3"] {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "i"}]}});
        json_ok(
            &app,
            with_body("POST", pods, "application/json", pod.to_string()),
        )
        .await;
        // Running and Ready, as a kubelet would report (no controllers run in this router).
        let status = json!({"status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": if name == "w3" { "False" } else { "True" }}]}});
        json_ok(
            &app,
            with_body(
                "PATCH",
                &format!("{pods}/{name}/status"),
                "application/merge-patch+json",
                status.to_string(),
            ),
        )
        .await;
    }
    let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}});
    json_ok(
        &app,
        with_body(
            "POST",
            "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
            "application/json",
            pdb.to_string(),
        ),
    )
    .await;
    let evict = |name: &str| {
        let eviction =
            json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}});
        with_body(
            "POST",
            &format!("{pods}/{name}/eviction"),
            "application/json",
            eviction.to_string(),
        )
    };
    // Two healthy, one needed: one may go; then none.
    let (s, doc) = json_of(&app, evict("w1")).await;
    assert_eq!(s, StatusCode::CREATED, "{doc}");
    let (s, doc) = json_of(&app, evict("w2")).await;
    assert_status("second healthy pod", s, &doc, 429, "TooManyRequests");
    assert_eq!(
        doc["message"],
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(doc["details"]["causes"][0]["reason"], "DisruptionBudget");
    assert_eq!(
        doc["details"]["causes"][0]["message"],
        "The disruption budget web needs 1 healthy pods and has 1 currently"
    );
    // An unready pod may go while the budget holds without it.
    let (s, doc) = json_of(&app, evict("w3")).await;
    assert_eq!(s, StatusCode::CREATED, "{doc}");
    let (s, _) = json_of(&app, get(&format!("{pods}/w2"))).await;
    assert_eq!(s, StatusCode::OK, "the budget kept w2");
}

#[tokio::test]
async fn replication_controllers_scale_and_print_with_their_label_map() {
    let app = app();
    let rcs = "/api/v1/namespaces/default/replicationcontrollers";
    let rc = json!({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "old"},
        "spec": {"replicas": 2, "selector": {"app": "old"},
                 "template": {"metadata": {"labels": {"app": "old"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
    json_ok(
        &app,
        with_body("POST", rcs, "application/json", rc.to_string()),
    )
    .await;
    let scale = json_ok(&app, get(&format!("{rcs}/old/scale"))).await;
    assert_eq!(scale["spec"]["replicas"], 2);
    assert_eq!(scale["status"]["selector"], "app=old");
    let table = json_ok(
        &app,
        req("GET", rcs)
            .header(header::ACCEPT, TABLE)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let cells = &table["rows"][0]["cells"];
    assert_eq!(
        (cells[1].clone(), cells[6].clone(), cells[7].clone()),
        (json!(2), json!("nginx"), json!("app=old"))
    );
    let listed = json_ok(
        &app,
        get(&format!("{rcs}?fieldSelector=status.replicas%3D0")),
    )
    .await;
    assert_eq!(listed["items"].as_array().map(Vec::len), Some(1));
}

/// Reads newline-terminated watch lines from a streaming body until `count` have come.
async fn watch_lines(body: &mut Body, count: usize) -> Vec<Value> {
    let mut buffered = Vec::new();
    let mut lines = Vec::new();
    while lines.len() < count {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(60), body.frame())
            .await
            .expect("a watch event within 60 s")
            .expect("the stream goes on")
            .expect("a frame");
        let Ok(data) = frame.into_data() else {
            continue;
        };
        buffered.extend_from_slice(&data);
        while let Some(end) = buffered.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffered.drain(..=end).collect();
            lines.push(serde_json::from_slice(&line).expect("a JSON line"));
        }
    }
    lines
}

#[tokio::test]
async fn table_watches_send_columns_once_and_follow_their_selector() {
    let app = app();
    let list = json_ok(&app, get("/api/v1/namespaces/default/configmaps")).await;
    let since = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let uri = format!(
        "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={since}&labelSelector=tier%3Dweb"
    );
    let resp = app
        .clone()
        .oneshot(
            req("GET", &uri)
                .header(header::ACCEPT, TABLE)
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let mut body = resp.into_body();
    for (name, tier) in [("first", "web"), ("second", "web")] {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "labels": {"tier": tier}}});
        let (s, _) = json_of(
            &app,
            with_body(
                "POST",
                "/api/v1/namespaces/default/configmaps",
                "application/json",
                cm.to_string(),
            ),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED);
    }
    // The first leaves the selection: DELETED, at the change's resourceVersion.
    let relabel = json!({"metadata": {"labels": {"tier": "db"}}});
    let (s, changed) = json_of(
        &app,
        with_body(
            "PATCH",
            "/api/v1/namespaces/default/configmaps/first",
            "application/merge-patch+json",
            relabel.to_string(),
        ),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let events = watch_lines(&mut body, 3).await;
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["ADDED", "ADDED", "DELETED"]);
    for event in &events {
        assert_eq!(event["object"]["kind"], "Table");
        assert_eq!(event["object"]["rows"].as_array().map(Vec::len), Some(1));
    }
    // kube-apiserver sends a watch's column definitions with its first event only.
    let columns = events[0]["object"]["columnDefinitions"]
        .as_array()
        .expect("columns");
    assert_eq!(columns[0]["name"], "Name");
    assert_eq!(events[1]["object"]["columnDefinitions"], Value::Null);
    assert_eq!(events[2]["object"]["columnDefinitions"], Value::Null);
    let names: Vec<&Value> = events
        .iter()
        .map(|e| &e["object"]["rows"][0]["cells"][0])
        .collect();
    assert_eq!(names, [&json!("first"), &json!("second"), &json!("first")]);
    let deleted = &events[2]["object"]["rows"][0]["object"]["metadata"];
    assert_eq!(
        deleted["resourceVersion"],
        changed["metadata"]["resourceVersion"]
    );
    assert_eq!(
        deleted["labels"]["tier"], "web",
        "the last state it was selected in"
    );
}

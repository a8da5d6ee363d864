//! Helpers shared by the demo cluster's integration tests.

#![allow(dead_code)]

use demo_cluster::{start, Config, RunningCluster};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Client;
use serde_json::json;

/// On a free loopback port, with only nodes and system namespaces (tests count what they see).
pub fn empty_cluster_config() -> Config {
    Config {
        listen: "127.0.0.1:0".parse().expect("loopback address"),
        empty: true,
        ..Config::default()
    }
}

/// An empty cluster for command-line clients (kubectl, Python): fast simulated kubelets, as
/// deleting a namespace waits for its pods to terminate.
pub async fn start_for_cli_clients() -> RunningCluster {
    start(Config {
        speed: 50.0,
        ..empty_cluster_config()
    })
    .await
    .expect("cluster starts")
}

/// A kube-rs client for the cluster (plain HTTP on loopback).
pub fn kube_client(cluster: &RunningCluster) -> Client {
    let config = kube::Config::new(cluster.url().parse().expect("cluster URL"));
    Client::try_from(config).expect("kube client")
}

pub fn configmap(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}))
        .expect("valid ConfigMap")
}

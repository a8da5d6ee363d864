//! Load mode (`--pods`, `--crds`, `--churn`): a big, busy cluster for trying the dashboard
//! at scale and for benchmarks.
//!
//! - [`workloads`]: N Running pods in namespaces of ~1,000, on Nodes of ~100, owned by
//!   ReplicaSets of 10-50 under Deployments, consistent with what the controllers compute so
//!   the cluster is quiet once loaded.
//! - [`crds`]: N CustomResourceDefinitions in their own groups, with printer columns.
//! - [`churn`]: R pod writes per second (kubelet status updates, pod replacements) with
//!   their Events.
//!
//! Everything is seeded (`--seed`), so two runs build the same cluster and churn alike.

pub mod churn;
pub mod crds;
pub mod rng;
pub mod workloads;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::registry::Registry;
use rng::Rng;

/// The seed used unless `--seed` says otherwise.
pub const DEFAULT_SEED: u64 = 14;
/// Pods created for churn to work on when the cluster has none (`--churn` on `--empty`).
pub const CHURN_POOL_PODS: usize = 100;
/// Where the widgets of the load CRDs live.
const WIDGET_NAMESPACE: &str = "default";

/// What to load.
#[derive(Debug, Clone, Default)]
pub struct LoadConfig {
    pub pods: usize,
    pub crds: usize,
    pub seed: u64,
}

/// What was loaded, and how long it took.
#[derive(Debug, Clone, Default)]
pub struct LoadReport {
    pub workloads: workloads::LoadedWorkloads,
    pub crds: usize,
    pub elapsed: Duration,
}

/// Creates the load objects (before the controllers start; nothing is watching yet).
pub fn populate(registry: &Arc<Registry>, config: &LoadConfig) -> LoadReport {
    let started = Instant::now();
    let mut rng = Rng::new(config.seed);
    let workloads = workloads::load_pods(registry, config.pods, &mut rng);
    let crds = crds::load_crds(registry, config.crds, WIDGET_NAMESPACE, &mut rng);
    LoadReport {
        workloads,
        crds,
        elapsed: started.elapsed(),
    }
}

//! Benchmark of the pure model on the real discovery fixture plus 300 synthetic CRD groups:
//! parse, build the tree, filter, palette. Run by `cargo xtask bench`; prints figures.

use std::time::Instant;

#[path = "../tests/support/synthetic_crds.rs"]
mod synthetic_crds;

use synthetic_crds::with_synthetic_crds;

use kube_atlas_model::{
    api::discovery::parse_aggregated, api::discovery::tree_from_aggregated,
    navigation::resource_search::filter_tree, navigation::resource_search::palette_matches,
};

const SYNTHETIC_GROUPS: usize = 300;
const ROUNDS: u32 = 50;

fn fixture() -> Option<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/fixtures/discovery/aggregated_v2.json"
    );
    match std::fs::read_to_string(path) {
        Ok(body) => Some(body),
        Err(error) => {
            println!("bench model: fixture not found at {path} ({error}); skipping");
            None
        }
    }
}

fn per_round_ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0 / f64::from(ROUNDS)
}

fn main() {
    let Some(real) = fixture() else { return };
    let body = match with_synthetic_crds(&real, SYNTHETIC_GROUPS) {
        Ok(body) => body,
        Err(error) => {
            eprintln!("bench model: cannot build the synthetic document: {error}");
            std::process::exit(1);
        }
    };

    let started = Instant::now();
    let mut groups = 0;
    for _ in 0..ROUNDS {
        let list = parse_aggregated(&body).expect("valid document");
        let discovery = tree_from_aggregated(None, list);
        groups = discovery.tree.groups.len();
    }
    let build_ms = per_round_ms(started);
    let tree = tree_from_aggregated(None, parse_aggregated(&body).expect("valid")).tree;

    let started = Instant::now();
    for _ in 0..ROUNDS {
        std::hint::black_box(filter_tree(&tree, "deploy"));
    }
    let filter_ms = per_round_ms(started);

    let started = Instant::now();
    for _ in 0..ROUNDS {
        std::hint::black_box(palette_matches(&tree, ":po"));
    }
    let palette_ms = per_round_ms(started);

    println!(
        "bench model: document_kib={} groups={groups} parse_and_build_ms={build_ms:.2} filter_ms={filter_ms:.3} palette_ms={palette_ms:.3} (native, mean of {ROUNDS})",
        body.len() / 1024
    );
}

//! `cargo xtask bench`: prints measured figures; targets are checked by reading them, not by
//! timed tests.

use anyhow::Result;

use crate::{build, cmd};

pub fn run(args: &[String]) -> Result<()> {
    let only = args.first().map(String::as_str);
    if only.is_none() || only == Some("ui-size") {
        println!("\nxtask bench: ==== UI bundle size ====");
        let size = build::release_ui()?;
        println!(
            "bench ui-size: wasm_raw_kib={} wasm_gzip_kib={} js_gzip_kib={}",
            size.wasm_raw / 1024,
            size.wasm_gzip / 1024,
            size.js_gzip / 1024
        );
    }
    if only.is_none() || only == Some("model") {
        println!("\nxtask bench: ==== pure model (discovery parsing and tree) ====");
        cmd::run(cmd::command("cargo").args([
            "run",
            "--quiet",
            "--profile",
            "bench",
            "-p",
            "kube-atlas",
            "--example",
            "bench_model",
        ]))?;
    }
    Ok(())
}

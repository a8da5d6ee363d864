//! Project tasks: `cargo xtask <setup|build|demo|test|bench>`.
//!
//! Everything a fresh machine needs is installed by `setup` from the package registries the
//! machines can reach (crates.io, npm, Debian), never from ad-hoc downloads.

mod bench;
mod build;
mod cmd;
mod dist;
#[cfg(test)]
mod layering;
mod setup;
mod split;
mod test;
#[path = "../../build-support/test_env.rs"]
mod test_env;

use anyhow::{bail, Result};

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  setup [--no-browser]        install the wasm target, trunk, wasm-bindgen-cli, wasm-opt,
                              the editor's npm packages, chromium + chromedriver
                              (idempotent, pinned)
  build                       release build of the UI into dist/, with the editor bundle
                              (prints sizes)
  dist [--target TRIPLE]      build dist/, then one release `kube-atlas` binary with it
                              inside (feature embedded-ui); prints the binary's size
  demo [--listen ADDR] [--speed F] [--empty] [--pods N] [--crds N] [--churn R] [--seed S]
       [--event-ttl D] [--chaos SPEC]
       [--token-auth-file PATH --tls-cert-file PATH --tls-private-key-file PATH]
                              build, then serve the UI and the demo cluster on one origin;
                              --pods/--crds/--churn: load mode (a big, busy cluster);
                              --token-auth-file: RBAC for token users (see demo-cluster/README.md)
  demo --clusters [--kubeconfig F]...
                              the demo cluster as one more context beside the kubeconfig's
                              (default: KUBECONFIG or ~/.kube/config), all behind kube-atlas
  test                        fmt, clippy, native tests, browser component tests, e2e tests,
                              the benchmarks in quick mode
                              (their screenshots go to target/screenshots)
  screenshots                 run the e2e tests, writing the README's docs/screenshots
  bench [ui-size|model|server|ui|list|list-real|timeline|live]
                              benchmarks (prints figures); all of them without an argument;
                              each part also writes target/bench/<part>.json (figures, goals,
                              cores, date, commit) and a closing table is printed
  bench readme                the README's Measured figures table, rewritten from
                              target/bench/*.json (what the last full runs measured)
";

fn main() {
    if let Err(error) = run() {
        eprintln!("xtask: error: {error:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        print!("{USAGE}");
        return Ok(());
    };
    cmd::enter_workspace_root()?;
    match command.as_str() {
        "setup" => setup::run(setup::Options {
            browser: !rest.iter().any(|a| a == "--no-browser"),
        }),
        "build" => build::release_ui().map(|_| ()),
        "dist" => dist::run(rest),
        "demo" => build::demo(rest),
        "test" => test::run(),
        "screenshots" => test::screenshots(),
        "bench" => bench::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => bail!("unknown command `{other}`\n{USAGE}"),
    }
}

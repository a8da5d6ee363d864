//! Running child processes with the project's tool PATH.

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// Moves to the workspace root (the parent of xtask/), so every task runs from one place.
pub fn enter_workspace_root() -> Result<()> {
    // `cargo run` tells the running xtask where its manifest is; the compile-time path is
    // only a fallback, since a binary built for another checkout (a worktree sharing this
    // target directory) would carry that checkout's path.
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    let root = manifest_dir
        .parent()
        .context("xtask has no parent directory")?
        .to_path_buf();
    std::env::set_current_dir(&root).with_context(|| format!("cd {}", root.display()))?;
    Ok(())
}

pub fn workspace_root() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// PATH with cargo's bin dir and npm's global bin dir first: the npm binaryen must shadow
/// Debian's older wasm-opt, whose output crashes wasm-bindgen apps on load.
pub fn tool_path() -> OsString {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(npm_bin) = npm_global_bin() {
        dirs.push(npm_bin);
    }
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        dirs.push(PathBuf::from(home).join("bin"));
    } else if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    if let Some(existing) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&existing));
    }
    std::env::join_paths(dirs).unwrap_or_else(|_| std::env::var_os("PATH").unwrap_or_default())
}

fn npm_global_bin() -> Option<PathBuf> {
    let output = Command::new("npm").args(["prefix", "-g"]).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let prefix = String::from_utf8(output.stdout).ok()?;
    Some(PathBuf::from(prefix.trim()).join("bin"))
}

/// A command with the tool PATH and Trunk's update check silenced.
pub fn command(program: &str) -> Command {
    let mut command = Command::new(program);
    command
        .env("PATH", tool_path())
        .env("TRUNK_SKIP_VERSION_CHECK", "true");
    command
}

pub fn describe(command: &Command) -> String {
    let mut text = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

/// Runs to completion, failing on a non-zero exit.
pub fn run(command: &mut Command) -> Result<()> {
    println!("xtask: $ {}", describe(command));
    let status = command
        .status()
        .with_context(|| format!("could not start `{}`", describe(command)))?;
    if !status.success() {
        bail!("`{}` failed with {status}", describe(command));
    }
    Ok(())
}

/// First line of `program --version`, or None when the program is missing.
pub fn version_of(program: &str, flag: &str) -> Option<String> {
    let output = command(program).arg(flag).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    text.lines().next().map(|line| line.trim().to_string())
}

/// Totals of cargo's `test result:` lines, and the names of the ignored tests.
#[derive(Debug, Default, Clone)]
pub struct TestCounts {
    pub passed: u64,
    pub failed: u64,
    pub ignored: u64,
    /// From the `test NAME ... ignored` lines, in the order seen.
    pub ignored_names: Vec<String>,
}

impl TestCounts {
    pub fn add(&mut self, other: TestCounts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.ignored += other.ignored;
        self.ignored_names.extend(other.ignored_names);
    }
}

/// The name in `test NAME ... ignored` or `test NAME ... ignored, REASON`.
pub fn parse_ignored_test(line: &str) -> Option<&str> {
    let (name, outcome) = line.trim().strip_prefix("test ")?.split_once(" ... ")?;
    (outcome == "ignored" || outcome.starts_with("ignored,")).then_some(name)
}

/// Parses `test result: ok. 12 passed; 0 failed; 1 ignored; ...`.
pub fn parse_test_result(line: &str) -> Option<TestCounts> {
    let rest = line.trim().strip_prefix("test result: ")?;
    let mut counts = TestCounts::default();
    for part in rest.split(';') {
        let mut words = part.split_whitespace().rev();
        let label = words.next()?;
        let Some(number) = words.next().and_then(|n| n.parse::<u64>().ok()) else {
            continue;
        };
        match label {
            "passed" => counts.passed = number,
            "failed" => counts.failed = number,
            "ignored" => counts.ignored = number,
            _ => {}
        }
    }
    Some(counts)
}

/// Runs a `cargo test`-like command, echoing its output and adding up the result lines.
pub fn run_tests(command: &mut Command) -> Result<TestCounts> {
    println!("xtask: $ {}", describe(command));
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start `{}`", describe(command)))?;
    let mut counts = TestCounts::default();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap_or_default();
            println!("{line}");
            if let Some(found) = parse_test_result(&line) {
                counts.add(found);
            }
            if let Some(name) = parse_ignored_test(&line) {
                counts.ignored_names.push(name.to_string());
            }
        }
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("`{}` failed with {status}", describe(command));
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cargo_test_summary() {
        let counts = parse_test_result(
            "test result: ok. 12 passed; 1 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.01s",
        )
        .expect("a result line");
        assert_eq!((counts.passed, counts.failed, counts.ignored), (12, 1, 3));
        assert!(parse_test_result("running 3 tests").is_none());
    }

    #[test]
    fn finds_the_names_of_ignored_tests() {
        assert_eq!(
            parse_ignored_test("test record_the_example ... ignored, records it again"),
            Some("record_the_example")
        );
        assert_eq!(
            parse_ignored_test("test tests::lists::first ... ignored"),
            Some("tests::lists::first")
        );
        assert_eq!(parse_ignored_test("test tests::lists::first ... ok"), None);
        assert_eq!(parse_ignored_test("test result: ok. 1 passed"), None);
    }
}

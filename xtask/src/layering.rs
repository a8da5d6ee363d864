//! The app's layers and what each may import (docs/architecture.md), checked on the source
//! text (by a test of this crate) so a wrong-way import fails `cargo test` instead of waiting
//! for a review:
//!
//! - `browser` (small browser helpers) imports no layer;
//! - `api` (the network) imports only the model and `browser`;
//! - `state` (signals, hooks, loaders) imports no view;
//! - `components` (reusable views) import neither pages nor `api`;
//! - `pages` import neither `api` nor another page (`pages/chunks.rs`, the split points,
//!   names them all).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The top-level modules of `src/` that are layers.
const LAYERS: [&str; 6] = ["browser", "api", "state", "components", "pages", "app"];

/// What each layer must not import.
fn forbidden(layer: &str) -> &'static [&'static str] {
    match layer {
        "browser" => &["api", "state", "components", "pages", "app"],
        "api" => &["state", "components", "pages", "app"],
        "state" => &["components", "pages", "app"],
        "components" => &["api", "pages", "app"],
        "pages" => &["api", "app"],
        _ => &[],
    }
}

/// One import that goes the wrong way.
#[derive(Debug, PartialEq, Eq)]
pub struct WrongImport {
    pub file: PathBuf,
    pub line: usize,
    pub text: String,
}

/// The layer a file of `src/` belongs to (`src/state/watch/mod.rs` -> `state`), and for a
/// page its module name.
fn layer_of(relative: &Path) -> Option<(String, Option<String>)> {
    let mut parts = relative.iter().map(|p| p.to_string_lossy().into_owned());
    let first = parts.next()?;
    let layer = first.trim_end_matches(".rs").to_string();
    if !LAYERS.contains(&layer.as_str()) {
        return None;
    }
    let page = (layer == "pages")
        .then(|| parts.next())
        .flatten()
        .map(|p| p.trim_end_matches(".rs").to_string())
        .filter(|p| p != "mod");
    Some((layer, page))
}

/// The wrong-way imports in one file's text.
fn wrong_imports(file: &Path, layer: &str, page: Option<&str>, text: &str) -> Vec<WrongImport> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or_default();
        let wrong_layer =
            paths_after(code, "crate::").any(|target| forbidden(layer).contains(&target.as_str()));
        // Another page, as `crate::pages::other` or `super::other`, from a page other than
        // the split points.
        let other_page = page.filter(|own| *own != "chunks").is_some_and(|own| {
            paths_after(code, "crate::pages::")
                .chain(paths_after(code, "super::"))
                .any(|module| module != own)
        });
        if wrong_layer || other_page {
            found.push(WrongImport {
                file: file.to_path_buf(),
                line: index + 1,
                text: line.trim().to_string(),
            });
        }
    }
    found
}

/// The names that follow `prefix` in `code` (`crate::state::x` after `crate::` gives
/// `state`).
fn paths_after<'a>(code: &'a str, prefix: &'a str) -> impl Iterator<Item = String> + 'a {
    code.match_indices(prefix).filter_map(move |(at, _)| {
        // `pages::` inside `crate::pages::` is not a `super::`-style path of its own.
        let before = &code[..at];
        if prefix == "super::" && before.ends_with("::") {
            return None;
        }
        let name: String = code[at + prefix.len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty()).then_some(name)
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// Fails naming every import in `src/` that goes against the layers.
pub fn check(workspace_root: &Path) -> Result<()> {
    let src = workspace_root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files)?;
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap_or(file);
        let Some((layer, page)) = layer_of(relative) else {
            continue;
        };
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        wrong.extend(wrong_imports(relative, &layer, page.as_deref(), &text));
    }
    if !wrong.is_empty() {
        let lines: Vec<String> = wrong
            .iter()
            .map(|w| format!("  src/{}:{}: {}", w.file.display(), w.line, w.text))
            .collect();
        bail!(
            "imports against the layers (see docs/architecture.md):\n{}",
            lines.join("\n")
        );
    }
    println!("xtask: {} files of src/ keep to their layers", files.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrong(path: &str, text: &str) -> Vec<usize> {
        let (layer, page) = layer_of(Path::new(path)).expect("a layer");
        wrong_imports(Path::new(path), &layer, page.as_deref(), text)
            .into_iter()
            .map(|w| w.line)
            .collect()
    }

    #[test]
    fn each_layer_imports_only_below_it() {
        assert_eq!(
            wrong(
                "api/watch.rs",
                "use crate::model::watch::Input;\nuse crate::state::x;"
            ),
            [2]
        );
        assert_eq!(
            wrong(
                "state/watch/mod.rs",
                "use crate::api;\nuse crate::components::Y;"
            ),
            [2]
        );
        assert_eq!(
            wrong(
                "components/pod_logs.rs",
                "use crate::api::stream::stream_text;"
            ),
            [1]
        );
        assert_eq!(
            wrong(
                "components/tree.rs",
                "use crate::state::x; // crate::pages in a comment"
            ),
            Vec::<usize>::new()
        );
        assert_eq!(
            wrong("browser.rs", "use crate::model::x;\nuse crate::state::y;"),
            [2]
        );
    }

    #[test]
    fn a_page_imports_no_other_page_but_the_split_points_name_them_all() {
        assert_eq!(
            wrong(
                "pages/object.rs",
                "use crate::pages::resource_list::use_clock;"
            ),
            [1]
        );
        assert_eq!(
            wrong(
                "pages/object.rs",
                "use crate::pages::object::ObjectIdentity;"
            ),
            Vec::<usize>::new()
        );
        assert_eq!(
            wrong("pages/chunks.rs", "use crate::pages::object::ObjectPage;"),
            Vec::<usize>::new()
        );
        assert_eq!(
            wrong("pages/mod.rs", "pub use crate::pages::object::ObjectPage;"),
            Vec::<usize>::new()
        );
        assert_eq!(
            wrong("pages/create.rs", "use super::resource_list::ListIdentity;"),
            [1]
        );
    }

    /// The app as it is: `cargo test --workspace` fails on a wrong-way import.
    #[test]
    fn the_app_keeps_to_its_layers() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        if let Err(error) = check(&root) {
            panic!("{error:#}");
        }
    }

    #[test]
    fn files_outside_the_layers_are_not_checked() {
        assert_eq!(layer_of(Path::new("lib.rs")), None);
        assert_eq!(layer_of(Path::new("main.rs")), None);
        assert_eq!(
            layer_of(Path::new("pages/mod.rs")),
            Some(("pages".into(), None))
        );
    }
}

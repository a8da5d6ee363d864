//! Splits the release bundle at the app's split points (`src/pages/chunks.rs`): the shell and
//! the API tree load at page start, every other page is a wasm module fetched when it is first
//! opened. Trunk builds the app with the `split` feature and the linker's relocations kept;
//! this step takes that wasm (before wasm-bindgen), splits it with `wasm_split_cli_support`
//! (the splitter cargo-leptos uses), runs wasm-bindgen and wasm-opt on the pieces, and puts
//! them in place of the single module Trunk wrote into dist/.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use sha2::Digest as _;

use crate::cmd;

/// What the split build of the app needs from rustc: the `split` feature (split points
/// become imports the splitter resolves) and relocations in the linked wasm (the splitter
/// follows them to find what each piece uses). `erase_components` is repeated from
/// .cargo/config.toml because RUSTFLAGS replaces that list.
pub const RUSTFLAGS: &str = "--cfg erase_components -Clink-args=--emit-relocs";
/// The cargo feature that turns the split points on.
pub const FEATURE: &str = "split";

/// The flags Trunk's `data-wasm-opt="z"` amounts to, for the pieces Trunk never sees.
const WASM_OPT_FLAGS: [&str; 5] = [
    "-Oz",
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
];

/// What one more wasm module costs a page, in bytes of function code, for the splitter's
/// merging of shared chunks (our change to it: xtask/vendor/wasm_split_cli_support). Each
/// module is a request, a compile and an instantiation on the main thread, about 1 ms on the
/// benchmark machine: unmerged, the API page needed 50 chunks of 26 KiB in all, and their
/// loading delayed the first paint of the tree by 60 ms.
const MODULE_COST_BYTES: usize = 16 * 1024;

/// Replaces Trunk's single module in `dist` with the split one. `glue_stem` is the name of
/// Trunk's JS glue without `.js` (`kube-atlas-app-<hash>`), which keeps its name.
pub fn split_dist(dist: &Path, glue_stem: &str) -> Result<()> {
    let linked = target_dir().join("wasm32-unknown-unknown/release/kube-atlas-app.wasm");
    let input = std::fs::read(&linked).with_context(|| format!("reading {}", linked.display()))?;
    let work = target_dir().join("split");
    if work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("removing {}", work.display()))?;
    }
    let pieces = work.join("pieces");
    std::fs::create_dir_all(&pieces)?;
    let main_module = format!("./{glue_stem}.js");
    let loader = format!("./{glue_stem}-split.js");
    let main_out = work.join("main.wasm");
    let split = wasm_split_cli_support::transform({
        let mut options = wasm_split_cli_support::Options::new(&input);
        options.output_dir = &pieces;
        options.main_out_path = &main_out;
        options.main_module = &main_module;
        options.link_name = &loader;
        options.module_cost_bytes = MODULE_COST_BYTES;
        options
    })
    .map_err(|error| anyhow::anyhow!("splitting {}: {error:?}", linked.display()))?;
    if split.split_modules.is_empty() {
        bail!(
            "the splitter found no split points in {}: was it built with the `{FEATURE}` \
             feature and `{RUSTFLAGS}`?",
            linked.display()
        );
    }

    let bindgen = work.join("bindgen");
    cmd::run(
        cmd::command("wasm-bindgen")
            .args(["--target", "web", "--no-typescript", "--keep-lld-exports"])
            .args(["--no-demangle", "--out-name", glue_stem, "--out-dir"])
            .arg(&bindgen)
            .arg(&main_out),
    )?;

    let glue = bindgen.join(format!("{glue_stem}.js"));
    std::fs::copy(&glue, dist.join(format!("{glue_stem}.js")))
        .with_context(|| format!("copying {}", glue.display()))?;
    wasm_opt(
        &bindgen.join(format!("{glue_stem}_bg.wasm")),
        &dist.join(format!("{glue_stem}_bg.wasm")),
    )?;
    copy_tree(&bindgen.join("snippets"), &dist.join("snippets"))?;
    let mut to_optimise = Vec::new();
    for entry in std::fs::read_dir(&pieces)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .context("a split piece's file name")?
            .to_string();
        if name.ends_with(".wasm") {
            to_optimise.push((path, dist.join(format!("{glue_stem}-{name}"))));
        } else {
            std::fs::copy(&path, dist.join(&name))?;
        }
    }
    wasm_opt_all(&to_optimise)?;
    rename_pieces_in_loader(
        &dist.join(loader.trim_start_matches("./")),
        &pieces,
        glue_stem,
    )?;
    write_preloader(dist, glue_stem, &split.prefetch_map)?;
    refresh_integrity(dist)?;
    Ok(())
}

/// Which page module renders the page a fragment opens: the first prefix that matches, the
/// overview for an empty fragment or `#/` (with or without parameters), the API page
/// otherwise (`Page::parse` falls back to it too). Kept beside `Page::to_hash` by a test.
const ROUTE_PAGES: [(&str, &str); 8] = [
    ("#/list/", "kube_atlas_list_page"),
    ("#/obj/", "kube_atlas_object_page"),
    ("#/events", "kube_atlas_events_page"),
    ("#/permissions", "kube_atlas_permissions_page"),
    ("#/map", "kube_atlas_map_page"),
    ("#/replay", "kube_atlas_replay_page"),
    ("#/create/", "kube_atlas_create_page"),
    ("#/api", "kube_atlas_api_page"),
];
const OVERVIEW_PAGE: &str = "kube_atlas_overview_page";
const FALLBACK_PAGE: &str = "kube_atlas_api_page";

/// The page module [`ROUTE_PAGES`] picks for `hash` (the rule the preloader runs in JS).
#[cfg(test)]
fn page_module_of(hash: &str) -> &'static str {
    if hash.is_empty() || hash == "#" || hash == "#/" || hash.starts_with("#/?") {
        return OVERVIEW_PAGE;
    }
    ROUTE_PAGES
        .iter()
        .find(|(prefix, _)| hash.starts_with(prefix))
        .map_or(FALLBACK_PAGE, |(_, page)| page)
}

/// The Accept header the app asks discovery with (`model::api::discovery::DISCOVERY_ACCEPT`, kept
/// equal by a test): the preloader must ask the same for the app to take its answers.
const DISCOVERY_ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

/// Writes `{glue_stem}-preload.js` and loads it first from index.html: at page start it asks
/// for the wasm modules of the page the address opens (`<link rel=preload>`, which the split
/// loader's fetches then find), beside the shell's own module. Without it they were fetched
/// only once the shell had started and discovery had answered: on kube-apiserver behind
/// `kubectl proxy` that chain was most of the time to a list's first rows.
fn write_preloader(
    dist: &Path,
    glue_stem: &str,
    prefetch_map: &std::collections::HashMap<String, Vec<String>>,
) -> Result<()> {
    let mut modules = serde_json::Map::new();
    for page in ROUTE_PAGES
        .iter()
        .map(|(_, page)| *page)
        .chain([OVERVIEW_PAGE, FALLBACK_PAGE])
    {
        let stems = prefetch_map
            .get(page)
            .with_context(|| format!("the splitter made no module for page `{page}`"))?;
        let files: Vec<serde_json::Value> = stems
            .iter()
            .map(|stem| format!("{glue_stem}-{stem}.wasm"))
            .inspect(|file| {
                if !dist.join(file).exists() {
                    eprintln!("xtask: warning: the preloader names {file}, which is not in dist/");
                }
            })
            .map(serde_json::Value::String)
            .collect();
        modules.insert(page.to_string(), serde_json::Value::Array(files));
    }
    let routes = serde_json::to_string(&ROUTE_PAGES)?;
    let modules = serde_json::to_string(&modules)?;
    let discovery_accept = serde_json::to_string(DISCOVERY_ACCEPT)?;
    let script = format!(
        "// Written by `cargo xtask build` (xtask/src/split.rs): asks at page start for the wasm
// modules of the page the address opens, beside the shell's own module.
const modules = {modules};
const routes = {routes};
const hash = location.hash;
const page = hash === \"\" || hash === \"#\" || hash === \"#/\" || hash.startsWith(\"#/?\")
  ? {OVERVIEW_PAGE:?}
  : (routes.find(([prefix]) => hash.startsWith(prefix)) ?? [null, {FALLBACK_PAGE:?}])[1];
for (const file of modules[page] ?? []) {{
  const link = document.createElement(\"link\");
  link.rel = \"preload\";
  link.as = \"fetch\";
  link.type = \"application/wasm\";
  link.crossOrigin = \"anonymous\";
  link.href = new URL(`./${{file}}`, import.meta.url).href;
  document.head.append(link);
}}
// Discovery too, so its answer travels while the shell's module loads and starts: the app's
// first GET of the same path with the same Accept takes it (src/api/mod.rs,
// take_prefetched). Behind kube-atlas (the page carries its cluster list) the paths depend
// on the cluster the app picks, and the app asks itself.
if (!document.getElementById(\"kube-atlas-clusters\")) {{
  const accept = {discovery_accept};
  // XMLHttpRequest, not fetch: its load event comes once the whole body is here, so the
  // answer is ready when the app starts (fetch's body read would take tasks of its own after
  // the app's first frame). The app takes a Response (status and headers) and the bytes.
  const ask = (path) => new Promise((resolve, reject) => {{
    const request = new XMLHttpRequest();
    request.open(\"GET\", path);
    request.setRequestHeader(\"Accept\", accept);
    request.responseType = \"arraybuffer\";
    request.onerror = reject;
    request.onload = () => {{
      const headers = new Headers();
      for (const line of request.getAllResponseHeaders().split(\"\\r\\n\")) {{
        const colon = line.indexOf(\":\");
        if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }}
      try {{
        resolve({{ response: new Response(null, {{ status: request.status, headers }}), body: request.response }});
      }} catch (error) {{
        reject(error);
      }}
    }};
    request.send();
  }});
  window.__kubeAtlasPrefetched = new Map([\"/api\", \"/apis\"].map((path) =>
    [`${{accept}}\n${{path}}`, ask(path)]));
}}
"
    );
    let file = format!("{glue_stem}-preload.js");
    std::fs::write(dist.join(&file), script).with_context(|| format!("writing {file}"))?;
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index)?;
    // Before every other script, so its requests go out with the shell's.
    let head = html.find("<head>").context("index.html has no <head>")? + "<head>".len();
    let mut page = html.clone();
    page.insert_str(
        head,
        &format!("\n    <script type=\"module\" src=\"./{file}\"></script>"),
    );
    std::fs::write(&index, page)?;
    Ok(())
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"))
}

/// Runs [`wasm_opt`] on every (input, output) pair, one process per core at a time: the
/// pieces are some seventy, and one after another they took minutes of every build.
fn wasm_opt_all(pairs: &[(PathBuf, PathBuf)]) -> Result<()> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((input, output)) = pairs.get(at) else {
                            return Ok(());
                        };
                        wasm_opt(input, output)?;
                    }
                })
            })
            .collect();
        handles.into_iter().try_for_each(|handle| {
            handle
                .join()
                .unwrap_or_else(|_| bail!("wasm-opt worker panicked"))
        })
    })
}

/// `KUBE_ATLAS_WASM_NAMES=1` keeps the function names (`wasm-opt -g`), so a page's CPU
/// profile names Rust functions; the modules grow, so never for a measured size.
fn wasm_opt(input: &Path, output: &Path) -> Result<()> {
    let keep_names = std::env::var_os("KUBE_ATLAS_WASM_NAMES").is_some();
    cmd::run(
        cmd::command("wasm-opt")
            .args(WASM_OPT_FLAGS)
            .args(keep_names.then_some("-g"))
            .arg(input)
            .arg("-o")
            .arg(output),
    )
}

/// The loader names each piece `./<name>.wasm`; in dist/ they carry the build's hash, as
/// Trunk's files do, so a browser never pairs a cached piece with a newer main module.
fn rename_pieces_in_loader(loader: &Path, pieces: &Path, glue_stem: &str) -> Result<()> {
    let mut text =
        std::fs::read_to_string(loader).with_context(|| format!("reading {}", loader.display()))?;
    for entry in std::fs::read_dir(pieces)? {
        let path = entry?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !name.ends_with(".wasm") {
            continue;
        }
        let quoted = format!("\"./{name}\"");
        if !text.contains(&quoted) {
            bail!("the split loader does not name {name}");
        }
        text = text.replace(&quoted, &format!("\"./{glue_stem}-{name}\""));
    }
    std::fs::write(loader, text)?;
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    if !from.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        let target = to.join(path.file_name().context("a file name")?);
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            std::fs::copy(&path, &target)?;
        }
    }
    Ok(())
}

/// Trunk wrote `integrity="sha384-…"` for the files it produced; the split replaced some of
/// them, so every `href="./…" … integrity="…"` in index.html is computed again.
fn refresh_integrity(dist: &Path) -> Result<()> {
    let index = dist.join("index.html");
    let html = std::fs::read_to_string(&index)?;
    let mut out = String::with_capacity(html.len());
    let mut rest = html.as_str();
    while let Some(at) = rest.find("href=\"./") {
        let (before, from_href) = rest.split_at(at);
        out.push_str(before);
        let path_start = "href=\"./".len();
        let path_end = from_href[path_start..]
            .find('"')
            .context("an unterminated href in index.html")?
            + path_start;
        let file = &from_href[path_start..path_end];
        let tag_end = from_href
            .find('>')
            .context("an unterminated tag in index.html")?;
        let tag = &from_href[..tag_end];
        match tag.find("integrity=\"") {
            Some(integrity_at) => {
                let value_start = integrity_at + "integrity=\"".len();
                let value_end = tag[value_start..]
                    .find('"')
                    .context("an unterminated integrity")?
                    + value_start;
                let bytes = std::fs::read(dist.join(file))
                    .with_context(|| format!("reading dist/{file} for its integrity"))?;
                let digest = sha2::Sha384::digest(&bytes);
                let hash = base64::engine::general_purpose::STANDARD.encode(digest);
                out.push_str(&tag[..value_start]);
                out.push_str(&format!("sha384-{hash}"));
                out.push_str(&tag[value_end..]);
            }
            None => out.push_str(tag),
        }
        rest = &from_href[tag_end..];
    }
    out.push_str(rest);
    std::fs::write(&index, out)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_atlas_model::navigation::route::{
        CreateRoute, EventsRoute, ListRoute, MapRoute, ObjectRoute, OverviewRoute, Page,
        PermissionsRoute, Route,
    };
    use kube_atlas_model::ResourceId;

    /// The preloader's rule picks, for each kind of page the app routes to, the module whose
    /// split point draws it (`src/pages/chunks.rs`, `src/app.rs`).
    #[test]
    fn the_preloader_asks_discovery_as_the_app_does() {
        assert_eq!(
            DISCOVERY_ACCEPT,
            kube_atlas_model::api::discovery::DISCOVERY_ACCEPT
        );
    }

    #[test]
    fn the_preloader_picks_the_module_of_each_routed_page() {
        let pods = ResourceId::new("", "v1", "pods");
        let cases = [
            (Page::Overview(OverviewRoute::default()), OVERVIEW_PAGE),
            (
                Page::Overview(OverviewRoute {
                    namespace: Some("demo".into()),
                }),
                OVERVIEW_PAGE,
            ),
            (Page::Home(Route::default()), "kube_atlas_api_page"),
            (
                Page::Home(Route {
                    resource: Some(pods.clone()),
                    namespace: None,
                }),
                "kube_atlas_api_page",
            ),
            (
                Page::ResourceList(ListRoute::new(pods.clone(), Some("demo".into()))),
                "kube_atlas_list_page",
            ),
            (
                Page::Object(ObjectRoute::new(pods.clone(), Some("demo".into()), "web-1")),
                "kube_atlas_object_page",
            ),
            (
                Page::Events(EventsRoute::default()),
                "kube_atlas_events_page",
            ),
            (
                Page::Permissions(PermissionsRoute::default()),
                "kube_atlas_permissions_page",
            ),
            (
                Page::Map(MapRoute {
                    namespace: Some("demo".into()),
                    selector: "app=web".into(),
                    around: None,
                }),
                "kube_atlas_map_page",
            ),
            (Page::Replay, "kube_atlas_replay_page"),
            (
                Page::Create(CreateRoute {
                    resource: pods,
                    namespace: Some("demo".into()),
                }),
                "kube_atlas_create_page",
            ),
        ];
        for (page, module) in cases {
            let hash = page.to_hash();
            assert_eq!(page_module_of(&hash), module, "{hash}");
            assert_eq!(
                Page::parse(&hash),
                page,
                "{hash} routes back to the same page"
            );
        }
        // A first visit has no fragment: the overview.
        assert_eq!(page_module_of(""), OVERVIEW_PAGE);
        assert!(matches!(Page::parse(""), Page::Overview(_)));
    }

    #[test]
    fn integrity_is_computed_for_the_files_in_dist() {
        let dist = std::env::temp_dir().join(format!("xtask-sri-{}", std::process::id()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("a.js"), "export {};").unwrap();
        std::fs::write(
            dist.join("index.html"),
            "<link rel=\"modulepreload\" href=\"./a.js\" integrity=\"sha384-old\"><link href=\"./b.css\">",
        )
        .unwrap();
        refresh_integrity(&dist).unwrap();
        let page = std::fs::read_to_string(dist.join("index.html")).unwrap();
        std::fs::remove_dir_all(&dist).unwrap();
        let expected =
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha384::digest(b"export {};"));
        assert!(
            page.contains(&format!("integrity=\"sha384-{expected}\"")),
            "{page}"
        );
        assert!(page.contains("<link href=\"./b.css\">"), "{page}");
    }
}

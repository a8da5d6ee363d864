//! Entry point: only mounts the app; everything else lives in the library so tests can use it.

fn main() {
    // A panic stops the whole app (wasm cannot unwind): besides the console's report, the
    // page says so, instead of silently showing views that no longer update.
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        kube_atlas::browser::show_app_stopped(&info.to_string());
    }));
    kube_atlas::browser::mark("kube-atlas:main");
    kube_atlas::browser::expose_wasm_memory();
    // Behind kube-atlas, the cluster is known before the first API request.
    kube_atlas::state::clusters::detect();
    // Opened on a list: its first page is asked now, while the app starts.
    if let Some(hash) = web_sys::window().and_then(|w| w.location().hash().ok()) {
        kube_atlas::api::prefetch_first_list_page(&hash);
    }
    kube_atlas::browser::mark("kube-atlas:mount");
    leptos::mount::mount_to_body(kube_atlas::App);
    kube_atlas::browser::mark("kube-atlas:mounted");
}

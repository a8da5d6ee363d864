//! Entry point: only mounts the app; everything else lives in the library so tests can use it.

fn main() {
    console_error_panic_hook::set_once();
    kube_atlas::browser::expose_wasm_memory();
    leptos::mount::mount_to_body(kube_atlas::App);
}

//! How browsers may cache the dashboard's own files, for the servers that serve them (the demo
//! cluster and kube-atlas): the build names every script and wasm module after a hash of its
//! content, so those never change under their name and need no revalidation on a page load;
//! the page itself (and anything unhashed) is asked again each time, so a rebuild shows.

/// The `Cache-Control` value for a static file at `path` (the URL path).
pub fn cache_control(path: &str) -> &'static str {
    if is_content_hashed(path) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    }
}

/// Trunk's names carry a 64-bit hash in hex (`kube-atlas-app-6ad2d810e1c90fb0_bg.wasm`,
/// `snippets/kube-atlas-c365de91c1d6b047/inline0.js`), in the file name or a directory. It is
/// written without leading zeros, so one build in sixteen has 15 digits
/// (`kube-atlas-app-d0d3152e88b663e_bg.wasm`), one in 256 has 14, and so on.
fn is_content_hashed(path: &str) -> bool {
    path.split('/').any(|segment| {
        segment.split(['-', '_', '.']).any(|part| {
            (12..=16).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_hexdigit())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_build_files_are_immutable_and_the_page_is_asked_again() {
        let immutable = "public, max-age=31536000, immutable";
        for hashed in [
            "/kube-atlas-app-6ad2d810e1c90fb0_bg.wasm",
            "/kube-atlas-app-6ad2d810e1c90fb0-chunk_11.wasm",
            "/kube-atlas-app-6ad2d810e1c90fb0.js",
            "/main-e165890238e2f430.css",
            "/snippets/kube-atlas-c365de91c1d6b047/inline0.js",
            // A hash with a leading zero, written without it.
            "/kube-atlas-app-d0d3152e88b663e_bg.wasm",
            "/kube-atlas-app-d0d3152e88b663e-chunk_14.wasm",
        ] {
            assert_eq!(cache_control(hashed), immutable, "{hashed}");
        }
        for asked_again in ["/", "/index.html", "/editor/editor.js", "/favicon.ico"] {
            assert_eq!(cache_control(asked_again), "no-cache", "{asked_again}");
        }
    }
}

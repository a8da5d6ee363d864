//! Name and label syntax, as apimachinery's validation package checks it.

pub fn is_dns1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

pub fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

/// A label value: empty, or at most 63 alphanumerics, '-', '_' or '.', beginning and ending
/// with an alphanumeric.
pub fn is_label_value(v: &str) -> bool {
    v.is_empty()
        || (v.len() <= 63
            && v.starts_with(|c: char| c.is_ascii_alphanumeric())
            && v.ends_with(|c: char| c.is_ascii_alphanumeric())
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)))
}

/// A qualified name (label and annotation keys): `[prefix/]name`, the prefix a DNS
/// subdomain, the name a non-empty label value.
pub fn is_qualified_name(key: &str) -> bool {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    prefix.is_none_or(is_dns1123_subdomain) && !name.is_empty() && is_label_value(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names_and_label_values() {
        for good in [
            "a",
            "app.kubernetes.io/name",
            "A_b-1",
            "x/y",
            "pod-template-hash",
        ] {
            assert!(is_qualified_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a/b/c", "/a", "a/", "Upper.Case/x", "a b"] {
            assert!(!is_qualified_name(bad), "{bad}");
        }
        for good in ["", "v1", "a.b_c-d"] {
            assert!(is_label_value(good), "{good}");
        }
        for bad in ["-b", "b-", "a/b", &"x".repeat(64)] {
            assert!(!is_label_value(bad), "{bad}");
        }
    }
}

//! Kubernetes version priority (`v1 > v1beta2 > v1beta1 > v1alpha1`).
//!
//! Mirrors apimachinery's `CompareKubeAwareVersionStrings`: versions matching
//! `^v(\d+)((alpha|beta)(\d+))?$` are "kube-like" and ordered GA > beta > alpha, higher
//! numbers first; everything else comes after them, alphabetically.

use std::cmp::Ordering;

/// Maturity level of an API version, derived from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stability {
    Ga,
    Beta,
    Alpha,
    /// Not a Kubernetes-style version name (e.g. `v1.2`, `foo`, `v1beta`).
    Other,
}

impl Stability {
    pub fn of(version: &str) -> Stability {
        match parse_kube_version(version) {
            Some(v) => v.stability,
            None => Stability::Other,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Stability::Ga => "GA",
            Stability::Beta => "beta",
            Stability::Alpha => "alpha",
            Stability::Other => "other",
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct KubeVersion<'a> {
    /// Digits with leading zeros stripped, compared as big numbers so huge values can't overflow.
    major: &'a str,
    stability: Stability,
    minor: &'a str,
}

fn parse_kube_version(v: &str) -> Option<KubeVersion<'_>> {
    let rest = v.strip_prefix('v')?;
    let major_len = rest.bytes().take_while(u8::is_ascii_digit).count();
    if major_len == 0 {
        return None;
    }
    let (major, tail) = rest.split_at(major_len);
    if tail.is_empty() {
        return Some(KubeVersion {
            major: strip_zeros(major),
            stability: Stability::Ga,
            minor: "",
        });
    }
    let (stability, minor) = if let Some(m) = tail.strip_prefix("beta") {
        (Stability::Beta, m)
    } else if let Some(m) = tail.strip_prefix("alpha") {
        (Stability::Alpha, m)
    } else {
        return None;
    };
    if minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(KubeVersion {
        major: strip_zeros(major),
        stability,
        minor: strip_zeros(minor),
    })
}

fn strip_zeros(digits: &str) -> &str {
    digits.trim_start_matches('0')
}

/// Compares two digit strings (without leading zeros) numerically.
fn cmp_num(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Orders versions by priority: `Ordering::Less` means `a` is preferred over `b`, so sorting
/// ascending with this comparator yields the highest-priority version first.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    match (parse_kube_version(a), parse_kube_version(b)) {
        (Some(x), Some(y)) => x
            .stability
            .cmp(&y.stability)
            .then_with(|| cmp_num(y.major, x.major))
            .then_with(|| cmp_num(y.minor, x.minor))
            // `v1` vs `v01` are numerically equal; keep the order total and deterministic.
            .then_with(|| a.cmp(b)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// Sorts version names in place, highest priority first.
pub fn sort_versions(versions: &mut [String]) {
    crate::list::stable_sort::sort_by(versions, |a, b| compare_versions(a, b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_crd_example_order() {
        // The example from the Kubernetes CRD versioning docs, shuffled.
        let expected = [
            "v10",
            "v2",
            "v1",
            "v11beta2",
            "v10beta3",
            "v3beta1",
            "v12alpha1",
            "v11alpha2",
            "foo1",
            "foo10",
        ];
        let mut shuffled: Vec<String> = [
            "foo10",
            "v11alpha2",
            "v1",
            "v3beta1",
            "foo1",
            "v12alpha1",
            "v10beta3",
            "v2",
            "v11beta2",
            "v10",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        sort_versions(&mut shuffled);
        assert_eq!(shuffled, expected);
    }

    #[test]
    fn ga_beta_alpha_and_numbers() {
        use Ordering::*;
        assert_eq!(compare_versions("v1", "v1beta1"), Less);
        assert_eq!(compare_versions("v1beta2", "v1beta1"), Less);
        assert_eq!(compare_versions("v1beta1", "v1alpha1"), Less);
        assert_eq!(compare_versions("v2", "v1"), Less);
        assert_eq!(compare_versions("v2beta1", "v1beta2"), Less);
        assert_eq!(compare_versions("v1alpha3", "v1alpha2"), Less);
        assert_eq!(compare_versions("v1alpha1", "v1alpha1"), Equal);
        // Numeric, not lexical: v10 beats v9.
        assert_eq!(compare_versions("v10", "v9"), Less);
        assert_eq!(compare_versions("v1beta10", "v1beta9"), Less);
        // Huge numbers don't overflow.
        assert_eq!(
            compare_versions("v99999999999999999999999", "v99999999999999999999998"),
            Less
        );
    }

    #[test]
    fn non_kube_versions_last_alphabetically() {
        use Ordering::*;
        assert_eq!(compare_versions("v1alpha1", "foo"), Less);
        assert_eq!(compare_versions("foo", "v1alpha1"), Greater);
        assert_eq!(compare_versions("abc", "abd"), Less);
        // Not kube-like: missing number, dotted, uppercase prefix, bare "v".
        for odd in ["v1beta", "v1.2", "V1", "v", "1", "v1gamma1", "", "v1beta1x"] {
            assert_eq!(Stability::of(odd), Stability::Other, "{odd}");
            assert_eq!(compare_versions("v1alpha1", odd), Less, "{odd}");
        }
    }

    #[test]
    fn ordering_is_total_and_antisymmetric() {
        let all = [
            "v1", "v01", "v2", "v1beta1", "v1beta01", "v2alpha1", "foo", "bar", "v1beta", "v0",
        ];
        for a in all {
            assert_eq!(compare_versions(a, a), Ordering::Equal);
            for b in all {
                assert_eq!(
                    compare_versions(a, b),
                    compare_versions(b, a).reverse(),
                    "{a} {b}"
                );
            }
        }
    }

    #[test]
    fn stability_labels() {
        assert_eq!(Stability::of("v1"), Stability::Ga);
        assert_eq!(Stability::of("v2beta3"), Stability::Beta);
        assert_eq!(Stability::of("v1alpha2"), Stability::Alpha);
        assert_eq!(Stability::Beta.label(), "beta");
    }
}

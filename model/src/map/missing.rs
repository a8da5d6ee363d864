//! The kinds the map could not list, so the view says what is absent instead of drawing a
//! namespace that looks complete ("Secrets are not shown: you may not list them").

/// Why a kind is absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MissingReason {
    /// The list was refused (403).
    Forbidden,
    /// Any other failure, in the server's or the client's words.
    Failed(String),
}

/// A kind the caller could not list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingKind {
    /// `Secret`.
    pub kind: String,
    pub reason: MissingReason,
}

impl MissingKind {
    pub fn forbidden(kind: &str) -> MissingKind {
        MissingKind {
            kind: kind.to_string(),
            reason: MissingReason::Forbidden,
        }
    }

    /// "Secrets are not shown: you may not list them".
    pub fn sentence(&self) -> String {
        let kinds = plural(&self.kind);
        match &self.reason {
            MissingReason::Forbidden => {
                format!("{kinds} are not shown: you may not list them")
            }
            MissingReason::Failed(why) => format!("{kinds} are not shown: {why}"),
        }
    }
}

/// The English plural of a kind, as its resource names it (`NetworkPolicy` → `NetworkPolicies`,
/// `Ingress` → `Ingresses`).
pub fn plural(kind: &str) -> String {
    if kind.ends_with("ss") || kind.ends_with('x') || kind.ends_with("ch") {
        format!("{kind}es")
    } else if let Some(stem) = kind
        .strip_suffix('y')
        .filter(|stem| !stem.ends_with(['a', 'e', 'i', 'o', 'u']))
    {
        format!("{stem}ies")
    } else {
        format!("{kind}s")
    }
}

/// How a count of objects of `kind` is said: `1 pod`, `12 pods`, `2 ReplicaSets` (one-word
/// kinds in lower case, as people say them; compound ones as written).
pub fn count_of(count: usize, kind: &str) -> String {
    let compound = kind.chars().skip(1).any(char::is_uppercase);
    let word = if count == 1 {
        kind.to_string()
    } else {
        plural(kind)
    };
    let word = if compound { word } else { word.to_lowercase() };
    format!("{count} {word}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_and_counts_read_as_english() {
        assert_eq!(plural("NetworkPolicy"), "NetworkPolicies");
        assert_eq!(plural("Ingress"), "Ingresses");
        assert_eq!(plural("Gateway"), "Gateways");
        assert_eq!(plural("Secret"), "Secrets");
        assert_eq!(count_of(12, "Pod"), "12 pods");
        assert_eq!(count_of(1, "Job"), "1 job");
        assert_eq!(count_of(2, "ReplicaSet"), "2 ReplicaSets");
        assert_eq!(
            MissingKind::forbidden("Secret").sentence(),
            "Secrets are not shown: you may not list them"
        );
    }
}

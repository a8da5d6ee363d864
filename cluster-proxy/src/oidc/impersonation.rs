//! `--impersonate`: for a cluster whose kube-apiserver does not take the issuer's tokens.
//! kube-atlas checks the user's ID token itself and sends their requests with its own
//! ServiceAccount's token and `Impersonate-User`/`Impersonate-Group` naming them, as
//! kube-apiserver's `--oidc-username-claim` and `--oidc-groups-claim` would have (no prefix).
//! The risk, said in the README: kube-atlas then holds a credential that may act as others,
//! so its ServiceAccount must be allowed to impersonate only the users and groups it serves,
//! and nothing else.

use std::path::PathBuf;

use base64::Engine;

use crate::session::Identity;

/// Who kube-atlas impersonates, and with what.
#[derive(Debug, Clone)]
pub struct ImpersonationConfig {
    /// The pod's ServiceAccount token (read at each request).
    pub token_file: PathBuf,
    /// The claim naming the user (`sub`, `email`, `preferred_username`…).
    pub username_claim: String,
    /// The claim listing the user's groups, if any.
    pub groups_claim: Option<String>,
}

/// The user and groups an ID token's claims name, as kube-apiserver's OIDC authenticator
/// reads them: the user claim a string, the groups claim a string or a list of strings.
/// `id_token` must have been verified already (its payload is read here, not checked).
pub fn identity_from_claims(
    id_token: &str,
    config: &ImpersonationConfig,
) -> Result<Identity, String> {
    let payload = id_token
        .split('.')
        .nth(1)
        .and_then(|payload| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(payload)
                .ok()
        })
        .and_then(|json| serde_json::from_slice::<serde_json::Value>(&json).ok())
        .ok_or_else(|| "The ID token's claims cannot be read.".to_string())?;
    let claim = config.username_claim.as_str();
    let user = payload[claim]
        .as_str()
        .filter(|user| !user.is_empty())
        .ok_or_else(|| format!("The ID token has no {claim:?} claim naming the user."))?;
    if user.starts_with("system:") {
        return Err(format!("kube-atlas does not act as {user}."));
    }
    let groups = match config.groups_claim.as_deref().map(|claim| &payload[claim]) {
        Some(serde_json::Value::String(group)) => vec![group.clone()],
        Some(serde_json::Value::Array(groups)) => groups
            .iter()
            .filter_map(|group| group.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    if let Some(group) = groups.iter().find(|group| group.starts_with("system:")) {
        return Err(format!("kube-atlas does not act for the group {group}."));
    }
    Ok(Identity {
        user: user.to_string(),
        groups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(claims: serde_json::Value) -> String {
        let encode =
            |text: String| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text.as_bytes());
        format!("{}.{}.sig", encode("{}".into()), encode(claims.to_string()))
    }

    fn config() -> ImpersonationConfig {
        ImpersonationConfig {
            token_file: PathBuf::from("/nowhere"),
            username_claim: "preferred_username".into(),
            groups_claim: Some("groups".into()),
        }
    }

    #[test]
    fn the_user_and_groups_come_from_the_claims_kube_apiserver_would_read() {
        let identity = identity_from_claims(
            &token(serde_json::json!({"preferred_username": "alice", "groups": ["admins", 3]})),
            &config(),
        );
        assert_eq!(
            identity,
            Ok(Identity {
                user: "alice".into(),
                groups: vec!["admins".into()],
            })
        );
        let one_group = identity_from_claims(
            &token(serde_json::json!({"preferred_username": "bob", "groups": "devs"})),
            &config(),
        );
        assert_eq!(
            one_group.map(|identity| identity.groups),
            Ok(vec!["devs".into()])
        );
        assert!(identity_from_claims(&token(serde_json::json!({"sub": "x"})), &config()).is_err());
        // Never a system user or group, whatever the issuer says.
        for claims in [
            serde_json::json!({"preferred_username": "system:admin"}),
            serde_json::json!({"preferred_username": "eve", "groups": ["system:masters"]}),
        ] {
            assert!(identity_from_claims(&token(claims), &config()).is_err());
        }
    }
}

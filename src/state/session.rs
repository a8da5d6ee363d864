//! Who is signed in, when kube-atlas runs for a team (each user signed in with their own
//! token): read from the element kube-atlas writes into the page it serves, the same JSON as
//! its `GET /kube-atlas/session`, so the header knows without a request. Elsewhere (kubectl
//! proxy, the demo cluster, kube-atlas on a kubeconfig) there is none, and no sign-out.

use serde::Deserialize;

use crate::browser::SESSION_ELEMENT_ID;

/// The signed-in user, as the API server named them at sign-in (a SelfSubjectReview).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct SignedIn {
    pub user: String,
    #[serde(default)]
    pub groups: Vec<String>,
    /// Where the sign-out form posts (the session ends on the server; the token never was
    /// in the page).
    #[serde(rename = "signOut")]
    pub sign_out: String,
}

/// The signed-in user of this page, if kube-atlas serves it with sessions.
pub fn signed_in() -> Option<SignedIn> {
    let text = crate::browser::element_text(SESSION_ELEMENT_ID)?;
    serde_json::from_str(&text).ok()
}

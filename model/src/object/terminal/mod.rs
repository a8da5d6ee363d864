//! A terminal in a pod (`pods/exec`, `pods/attach`) over a WebSocket, as data and decisions:
//! which channel subprotocol to offer and what to try when one fails ([`protocol`]), the
//! messages on the socket ([`frame`]), how a session ended and what to say of it
//! ([`status`]), the requests built from discovery ([`request`]), the default shell and typed
//! command lines ([`shell`]), debug containers (`kubectl debug`, [`debug`]) and the containers
//! a terminal can open in ([`containers`]).
//!
//! A session, as the UI drives it:
//! 1. pick a container ([`containers::terminal_containers`]) and build the request
//!    ([`request::exec_request`], argv from [`shell::Shell::DEFAULT`] or
//!    [`shell::command_argv`]);
//! 2. open a WebSocket to its `url()` with [`protocol::Negotiation::offer`]'s names; when the
//!    handshake fails, GET the same URL and read the answer with
//!    [`request::explain_refused_handshake`]: a request refused for itself ends the attempt,
//!    otherwise [`protocol::Negotiation::refused`] says what to offer next;
//! 3. once open, [`protocol::Negotiation::opened`] gives the protocol; send a resize
//!    ([`frame::encode_resize`]) and the keystrokes ([`frame::encode_stdin`]); decode each
//!    message ([`frame::decode`]) and keep the status;
//! 4. on close, [`status::ExecEnd::from_session`] says how it ended (a socket lost before any
//!    message goes to [`protocol::Negotiation::lost`] first), [`status::ExecEnd::sentence`]
//!    what to show, [`shell::next_default_shell`] whether to retry with `sh`, and
//!    [`status::should_offer_reconnect`] whether to offer reconnecting.
//!
//! Everything here was checked against kube-apiserver v1.36 and kubectl v1.32; the recorded
//! sessions are `model/tests/fixtures/terminal` (`tests/terminal_fixtures.rs`).

pub mod containers;
pub mod debug;
pub mod frame;
pub mod protocol;
pub mod refusal;
pub mod request;
pub mod shell;
pub mod status;

#[cfg(test)]
pub(crate) mod test_support {
    use crate::api::tree::{ApiGroup, ApiResource, ApiTree, GroupVersion, Subresource};

    /// A core/v1 tree whose pods serve these subresources, with kube-apiserver's verbs.
    pub(crate) fn pods_tree(subresources: &[&str]) -> ApiTree {
        let verbs = |name: &str| -> Vec<String> {
            let verbs: &[&str] = match name {
                "exec" | "attach" | "portforward" => &["create", "get"],
                _ => &["get", "patch", "update"],
            };
            verbs.iter().map(|v| v.to_string()).collect()
        };
        let pods = ApiResource {
            plural: "pods".into(),
            singular: "pod".into(),
            kind: "Pod".into(),
            namespaced: true,
            verbs: vec!["get".into(), "list".into(), "patch".into()],
            short_names: vec!["po".into()],
            categories: vec!["all".into()],
            subresources: subresources
                .iter()
                .map(|name| Subresource {
                    name: name.to_string(),
                    kind: "Pod".into(),
                    kind_group_version: None,
                    verbs: verbs(name),
                })
                .collect(),
        };
        ApiTree::new(vec![ApiGroup::new(
            "",
            vec![GroupVersion::new("v1", false, vec![pods])],
            Some("v1"),
        )])
    }
}

//! Whether WebSocket watches work through whatever serves the page, decided from what a probe
//! saw. A browser hides why a WebSocket handshake failed: a 403 (a user who may not watch what
//! was asked), a 429 and a proxy that cannot upgrade all look the same. So a refused socket is
//! evidence against sockets only when the same watch over plain HTTP is answered where the
//! socket was not; a refusal over HTTP too says the question was wrong, not the transport.

/// What to watch for the probe: something the user may watch. A user limited to one
/// namespace (RBAC's `view` in it) may not watch namespaces, so the probe asks inside the
/// namespace in view when there is one (its LimitRanges: readable with `view`, and watched
/// by no view, so the probe never shares a fate meant for a view's own watch), and across
/// the cluster only when nothing narrower is known.
pub fn probe_collection(namespace_in_view: Option<&str>) -> String {
    match namespace_in_view.filter(|ns| !ns.is_empty()) {
        Some(namespace) => format!("/api/v1/namespaces/{namespace}/limitranges"),
        None => "/api/v1/namespaces".to_string(),
    }
}

/// The name the probe selects: no object has it, so the watch says nothing but its end.
pub const PROBE_OBJECT_NAME: &str = "kube-atlas-websocket-probe";

/// What one attempt of the probe saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeAnswer {
    /// The socket delivered a message or closed cleanly: sockets work.
    SocketAnswered,
    /// The socket opened but stayed silent past the probe's timeout (a proxy that accepts
    /// the upgrade and forwards nothing, as Trunk's dev proxy does).
    SocketSilent,
    /// The handshake failed or the socket errored before saying anything: cause unknown.
    SocketRefused,
    /// The same watch over HTTP was answered with this status (after a refused socket).
    HttpAnswered(u16),
    /// The same watch over HTTP got no answer at all.
    HttpUnreachable,
}

/// What the probe concludes, or asks next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeVerdict {
    /// WebSocket watches work here.
    SocketsWork,
    /// WebSockets do not carry watches here: every watch goes over chunked HTTP.
    SocketsFail,
    /// Nothing says sockets fail (the watch itself was refused): keep using them; each
    /// stream hears its own refusal.
    Undecided,
    /// Try the socket again after this many milliseconds (a passing 429 or 500).
    RetrySocket(u32),
    /// Ask the same watch over HTTP, to learn why the socket was refused.
    CheckOverHttp,
}

/// Socket attempts before the refusal is checked over HTTP.
pub const SOCKET_ATTEMPTS: u32 = 3;

/// The verdict after `answer` on attempt `attempt` (1-based) of the socket. A socket that
/// already delivered an event elsewhere in the app settles it before any probe answer does
/// (the caller stops probing then).
pub fn probe_verdict(answer: ProbeAnswer, attempt: u32) -> ProbeVerdict {
    match answer {
        ProbeAnswer::SocketAnswered => ProbeVerdict::SocketsWork,
        ProbeAnswer::SocketSilent => ProbeVerdict::SocketsFail,
        ProbeAnswer::SocketRefused if attempt < SOCKET_ATTEMPTS => {
            ProbeVerdict::RetrySocket(500 * attempt)
        }
        ProbeAnswer::SocketRefused => ProbeVerdict::CheckOverHttp,
        // HTTP carried the watch the socket could not: the socket is what fails.
        ProbeAnswer::HttpAnswered(status) if (200..300).contains(&status) => {
            ProbeVerdict::SocketsFail
        }
        // Refused over HTTP too (403, 401, 404, 429…), or nothing answers at all: the
        // refusal was of the watch or the server, not of the socket.
        ProbeAnswer::HttpAnswered(_) | ProbeAnswer::HttpUnreachable => ProbeVerdict::Undecided,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_that_answers_works_and_one_that_stays_silent_fails() {
        assert_eq!(
            probe_verdict(ProbeAnswer::SocketAnswered, 1),
            ProbeVerdict::SocketsWork
        );
        assert_eq!(
            probe_verdict(ProbeAnswer::SocketSilent, 1),
            ProbeVerdict::SocketsFail
        );
    }

    #[test]
    fn a_refused_socket_is_tried_again_then_checked_over_http() {
        assert_eq!(
            probe_verdict(ProbeAnswer::SocketRefused, 1),
            ProbeVerdict::RetrySocket(500)
        );
        assert_eq!(
            probe_verdict(ProbeAnswer::SocketRefused, 2),
            ProbeVerdict::RetrySocket(1000)
        );
        assert_eq!(
            probe_verdict(ProbeAnswer::SocketRefused, SOCKET_ATTEMPTS),
            ProbeVerdict::CheckOverHttp
        );
    }

    #[test]
    fn a_refusal_over_http_too_is_no_evidence_against_sockets() {
        // The viewer of one namespace, refused the probe's watch: sockets stay.
        for status in [401, 403, 404, 429, 500] {
            assert_eq!(
                probe_verdict(ProbeAnswer::HttpAnswered(status), 1),
                ProbeVerdict::Undecided,
                "{status}"
            );
        }
        assert_eq!(
            probe_verdict(ProbeAnswer::HttpUnreachable, 1),
            ProbeVerdict::Undecided
        );
    }

    #[test]
    fn http_answering_where_the_socket_was_refused_means_sockets_fail() {
        assert_eq!(
            probe_verdict(ProbeAnswer::HttpAnswered(200), 1),
            ProbeVerdict::SocketsFail
        );
    }

    #[test]
    fn the_probe_watches_inside_the_namespace_in_view() {
        assert_eq!(
            probe_collection(Some("default")),
            "/api/v1/namespaces/default/limitranges"
        );
        assert_eq!(probe_collection(Some("")), "/api/v1/namespaces");
        assert_eq!(probe_collection(None), "/api/v1/namespaces");
    }
}

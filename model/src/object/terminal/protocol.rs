//! The WebSocket subprotocols of exec and attach, what each can do, and which to offer next
//! when a connection does not work out.
//!
//! What kube-apiserver v1.36 does with the offer (recorded, `model/tests/fixtures/terminal`):
//! when `v5.channel.k8s.io` is anywhere in `Sec-WebSocket-Protocol`, its stream translator
//! answers with v5 itself and speaks SPDY to the kubelet; otherwise the request is proxied to
//! the kubelet, which picks the first protocol of the offer it knows, and refuses (403) an
//! offer it knows nothing of.

/// A channel subprotocol of `pods/exec` and `pods/attach`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// `v5.channel.k8s.io`: v4 and a close signal, so stdin can end without ending the session.
    V5,
    /// `v4.channel.k8s.io`: binary frames, a `metav1.Status` as JSON on the status channel.
    V4,
    /// `v4.base64.channel.k8s.io`: v4 in text frames, the data base64-encoded.
    V4Base64,
    /// `base64.channel.k8s.io`: text frames; the status channel carries a bare error message.
    Base64,
    /// `channel.k8s.io`: binary, bare error messages; what the kubelet speaks when the client
    /// offered nothing (never offered here).
    V1,
}

impl Protocol {
    pub const ALL: [Protocol; 5] = [
        Protocol::V5,
        Protocol::V4,
        Protocol::V4Base64,
        Protocol::Base64,
        Protocol::V1,
    ];

    /// The name in `Sec-WebSocket-Protocol`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::V5 => "v5.channel.k8s.io",
            Protocol::V4 => "v4.channel.k8s.io",
            Protocol::V4Base64 => "v4.base64.channel.k8s.io",
            Protocol::Base64 => "base64.channel.k8s.io",
            Protocol::V1 => "channel.k8s.io",
        }
    }

    /// The protocol the server chose (the socket's `protocol`); an empty name is the kubelet's
    /// default, [`Protocol::V1`].
    pub fn from_name(name: &str) -> Option<Protocol> {
        let name = name.trim();
        if name.is_empty() {
            return Some(Protocol::V1);
        }
        Protocol::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Messages are text frames, base64 after the channel digit.
    pub fn is_base64(self) -> bool {
        matches!(self, Protocol::V4Base64 | Protocol::Base64)
    }

    /// The client can close its stdin (channel 255) and the server can say a stream ended.
    pub fn has_close_channel(self) -> bool {
        self == Protocol::V5
    }

    /// The status channel carries a `metav1.Status` (with the exit code) rather than an error
    /// message, and is written on success too.
    pub fn has_status_json(self) -> bool {
        matches!(self, Protocol::V5 | Protocol::V4 | Protocol::V4Base64)
    }
}

/// What kube-apiserver answers to an offer (the server's side): v5 when it is offered at all
/// (its stream translator), else the kubelet's choice, the first protocol of the offer it
/// knows, with no offer at all meaning [`Protocol::V1`]. None: the handshake is refused (403).
pub fn server_choice<'a>(offered: impl IntoIterator<Item = &'a str>) -> Option<Protocol> {
    let offered: Vec<&str> = offered
        .into_iter()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .collect();
    if offered.is_empty() {
        return Some(Protocol::V1);
    }
    if offered.contains(&Protocol::V5.name()) {
        return Some(Protocol::V5);
    }
    offered
        .iter()
        .find_map(|name| Protocol::ALL.into_iter().find(|p| p.name() == *name))
}

/// The protocols one handshake offers, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Everything, v5 first: what a browser sends first.
    Preferred,
    /// Without v5, so kube-apiserver proxies the WebSocket to the kubelet as before v1.30
    /// rather than translating it: for a server or proxy that refuses the translated stream.
    WithoutV5,
    /// Text frames only: for a proxy that mangles binary frames.
    Base64Only,
}

impl Offer {
    pub fn protocols(self) -> &'static [Protocol] {
        match self {
            Offer::Preferred => &[
                Protocol::V5,
                Protocol::V4,
                Protocol::V4Base64,
                Protocol::Base64,
            ],
            Offer::WithoutV5 => &[Protocol::V4, Protocol::V4Base64, Protocol::Base64],
            Offer::Base64Only => &[Protocol::V4Base64, Protocol::Base64],
        }
    }

    /// The names, in order, for the WebSocket constructor's protocol list.
    pub fn names(self) -> Vec<&'static str> {
        self.protocols().iter().map(|p| p.name()).collect()
    }

    /// The `Sec-WebSocket-Protocol` header value, as a non-browser client sends it.
    pub fn header_value(self) -> String {
        self.names().join(", ")
    }

    /// The offer to try after this one failed the way `failure` says.
    fn after(self, failure: Failure) -> Option<Offer> {
        match (self, failure) {
            (Offer::Preferred, Failure::Refused) => Some(Offer::WithoutV5),
            (Offer::Preferred | Offer::WithoutV5, _) => Some(Offer::Base64Only),
            (Offer::Base64Only, _) => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// The handshake failed (the request itself was fine: see `explain_refused_handshake`).
    Refused,
    /// The socket opened on a binary protocol, then died before one message got through.
    BinaryLost,
}

/// What the terminal does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// Open a new socket offering these protocols.
    Connect(Offer),
    /// The socket is open: speak this protocol.
    Use(Protocol),
    /// Nothing more to try: the session ended or cannot start.
    Stop,
}

/// The choice of subprotocol across attempts: offer everything, then without v5 when the
/// handshake is refused, then base64 only when binary frames do not get through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Negotiation {
    offer: Offer,
    chosen: Option<Protocol>,
    /// A message arrived on the chosen protocol: it works, later losses are the network's.
    confirmed: bool,
}

impl Default for Negotiation {
    fn default() -> Self {
        Negotiation::new()
    }
}

impl Negotiation {
    pub fn new() -> Negotiation {
        Negotiation {
            offer: Offer::Preferred,
            chosen: None,
            confirmed: false,
        }
    }

    /// What the current (or next) handshake offers.
    pub fn offer(&self) -> Offer {
        self.offer
    }

    /// The protocol in use once the socket opened.
    pub fn protocol(&self) -> Option<Protocol> {
        self.chosen
    }

    /// The socket opened with the server's choice `chosen_name`.
    pub fn opened(&mut self, chosen_name: &str) -> NextStep {
        // Browsers fail a handshake whose choice was not offered; a server choosing something
        // unknown cannot be spoken to.
        match Protocol::from_name(chosen_name) {
            Some(protocol) => {
                self.chosen = Some(protocol);
                self.confirmed = false;
                NextStep::Use(protocol)
            }
            None => NextStep::Stop,
        }
    }

    /// A message arrived: the protocol works.
    pub fn message_received(&mut self) {
        self.confirmed = self.chosen.is_some();
    }

    /// The handshake failed for the upgrade's sake, not the request's.
    pub fn refused(&mut self) -> NextStep {
        self.retry(Failure::Refused)
    }

    /// The socket closed without a close frame (the browser's code 1006, or an error event).
    /// The kubelet and kube-apiserver send a first (empty) frame as soon as the streams are
    /// up, so a binary socket lost before any message is taken for binary frames not getting
    /// through; any other loss ends the session.
    pub fn lost(&mut self) -> NextStep {
        match self.chosen {
            Some(protocol) if !self.confirmed && !protocol.is_base64() => {
                self.retry(Failure::BinaryLost)
            }
            _ => NextStep::Stop,
        }
    }

    fn retry(&mut self, failure: Failure) -> NextStep {
        match self.offer.after(failure) {
            Some(next) => {
                *self = Negotiation {
                    offer: next,
                    chosen: None,
                    confirmed: false,
                };
                NextStep::Connect(next)
            }
            None => NextStep::Stop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_an_empty_choice_is_the_kubelets_default() {
        for protocol in Protocol::ALL {
            assert_eq!(Protocol::from_name(protocol.name()), Some(protocol));
        }
        assert_eq!(Protocol::from_name(""), Some(Protocol::V1));
        assert_eq!(Protocol::from_name("v6.channel.k8s.io"), None);
    }

    #[test]
    fn the_server_takes_v5_anywhere_else_the_first_it_knows() {
        assert_eq!(
            server_choice(["v4.channel.k8s.io", "v5.channel.k8s.io"]),
            Some(Protocol::V5)
        );
        // Recorded: an unknown name first, then v4.base64 before v4.
        assert_eq!(
            server_choice(["x.k8s.io", "v4.base64.channel.k8s.io", "v4.channel.k8s.io"]),
            Some(Protocol::V4Base64)
        );
        assert_eq!(server_choice(["v6.channel.k8s.io"]), None);
        assert_eq!(server_choice([]), Some(Protocol::V1));
    }

    #[test]
    fn the_first_offer_prefers_v5_then_binary_then_base64() {
        assert_eq!(
            Negotiation::new().offer().header_value(),
            "v5.channel.k8s.io, v4.channel.k8s.io, v4.base64.channel.k8s.io, base64.channel.k8s.io"
        );
        assert_eq!(
            Offer::Base64Only.names(),
            ["v4.base64.channel.k8s.io", "base64.channel.k8s.io"]
        );
    }

    #[test]
    fn a_refused_handshake_drops_v5_then_binary_then_gives_up() {
        let mut negotiation = Negotiation::new();
        assert_eq!(negotiation.refused(), NextStep::Connect(Offer::WithoutV5));
        assert_eq!(negotiation.refused(), NextStep::Connect(Offer::Base64Only));
        assert_eq!(negotiation.refused(), NextStep::Stop);
    }

    #[test]
    fn v4_chosen_has_no_close_channel() {
        let mut negotiation = Negotiation::new();
        assert_eq!(negotiation.refused(), NextStep::Connect(Offer::WithoutV5));
        assert_eq!(
            negotiation.opened("v4.channel.k8s.io"),
            NextStep::Use(Protocol::V4)
        );
        assert!(!Protocol::V4.has_close_channel() && Protocol::V5.has_close_channel());
        assert!(Protocol::V4.has_status_json() && !Protocol::Base64.has_status_json());
    }

    #[test]
    fn binary_lost_before_any_message_falls_back_to_base64_once() {
        let mut negotiation = Negotiation::new();
        negotiation.opened("v5.channel.k8s.io");
        assert_eq!(negotiation.lost(), NextStep::Connect(Offer::Base64Only));
        assert_eq!(negotiation.protocol(), None);
        assert_eq!(
            negotiation.opened("v4.base64.channel.k8s.io"),
            NextStep::Use(Protocol::V4Base64)
        );
        // Base64 lost too: nothing left to try.
        assert_eq!(negotiation.lost(), NextStep::Stop);
    }

    #[test]
    fn a_loss_after_messages_flowed_ends_the_session() {
        let mut negotiation = Negotiation::new();
        negotiation.opened("v5.channel.k8s.io");
        negotiation.message_received();
        assert_eq!(negotiation.lost(), NextStep::Stop);
        // A choice nobody offered cannot be spoken.
        assert_eq!(Negotiation::new().opened("x.k8s.io"), NextStep::Stop);
    }
}

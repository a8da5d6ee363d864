//! Messages on the socket: the client's (stdin, resize, close) encoded, the server's decoded.
//!
//! Binary protocols put the channel number in the first byte; the base64 ones send text whose
//! first character is the channel digit and the rest the data in base64. On v5, channel 255 is
//! a close signal whose second byte names the channel closed.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine;

use super::protocol::Protocol;
use super::status::ExecStatus;

/// The streams of one session, numbered as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    Stdin,
    Stdout,
    Stderr,
    /// The error channel in Kubernetes' terms: how the command ended.
    Status,
    /// Terminal size changes, from the client.
    Resize,
}

impl Channel {
    pub fn number(self) -> u8 {
        match self {
            Channel::Stdin => 0,
            Channel::Stdout => 1,
            Channel::Stderr => 2,
            Channel::Status => 3,
            Channel::Resize => 4,
        }
    }

    pub fn from_number(number: u8) -> Option<Channel> {
        [
            Channel::Stdin,
            Channel::Stdout,
            Channel::Stderr,
            Channel::Status,
            Channel::Resize,
        ]
        .into_iter()
        .find(|c| c.number() == number)
    }
}

/// The v5 close signal's channel number.
pub const CLOSE_SIGNAL: u8 = 255;

/// A message to send, in the frame type the protocol wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outgoing {
    Binary(Vec<u8>),
    Text(String),
}

/// A message received, as the socket delivered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame<'a> {
    Binary(&'a [u8]),
    Text(&'a str),
}

/// What a received message means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Incoming {
    /// Bytes for the terminal: UTF-8 may be split across messages, so they stay bytes.
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    /// How the command ended (the session closes right after).
    Status(ExecStatus),
    /// v5: the server will send nothing more on this channel.
    Close(Channel),
    /// A message this client cannot read: a channel it does not know, a frame of the wrong
    /// type for the protocol, bad base64. Ignored, but worth a line in a debug log.
    Unknown {
        channel: Option<u8>,
    },
}

/// Columns and rows of the terminal, as the resize channel carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalSize {
    pub cols: u16,
    pub rows: u16,
}

/// Keystrokes or pasted bytes for the process's stdin.
pub fn encode_stdin(protocol: Protocol, bytes: &[u8]) -> Outgoing {
    encode(protocol, Channel::Stdin, bytes)
}

/// A new terminal size: `{"Width":cols,"Height":rows}` (Go's `remotecommand.TerminalSize`).
/// Send one right after the socket opens, as kubectl does, and on every change.
pub fn encode_resize(protocol: Protocol, size: TerminalSize) -> Outgoing {
    let json = format!(r#"{{"Width":{},"Height":{}}}"#, size.cols, size.rows);
    encode(protocol, Channel::Resize, json.as_bytes())
}

/// End of input (`[255, 0]`), so a command reading stdin sees EOF while its output still
/// arrives. Only v5 has it (None otherwise); with a terminal, Ctrl-D is just a byte on stdin.
pub fn encode_close_stdin(protocol: Protocol) -> Option<Outgoing> {
    protocol
        .has_close_channel()
        .then(|| Outgoing::Binary(vec![CLOSE_SIGNAL, Channel::Stdin.number()]))
}

fn encode(protocol: Protocol, channel: Channel, data: &[u8]) -> Outgoing {
    if protocol.is_base64() {
        let mut text = String::with_capacity(1 + data.len().div_ceil(3) * 4);
        text.push(char::from(b'0' + channel.number()));
        STANDARD.encode_string(data, &mut text);
        Outgoing::Text(text)
    } else {
        let mut bytes = Vec::with_capacity(1 + data.len());
        bytes.push(channel.number());
        bytes.extend_from_slice(data);
        Outgoing::Binary(bytes)
    }
}

/// The server's side: `data` on an output channel (stdout, stderr, status), in the frame type
/// the protocol wants. An empty `data` is the message a session opens with.
pub fn encode_output(protocol: Protocol, channel: Channel, data: &[u8]) -> Outgoing {
    encode(protocol, channel, data)
}

/// What a client's message means, read by a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FromClient {
    Stdin(Vec<u8>),
    /// The terminal's new size (`{"Width":…,"Height":…}` on channel 4).
    Resize(TerminalSize),
    /// v5: the client will send nothing more on this channel (`[255, 0]`: end of stdin).
    Close(Channel),
    /// A channel a client does not write, a frame of the wrong type, bad base64 or a resize
    /// that is not one: ignored, as the kubelet ignores it.
    Unknown,
}

#[derive(serde::Deserialize)]
struct ResizeMessage {
    #[serde(rename = "Width")]
    width: u16,
    #[serde(rename = "Height")]
    height: u16,
}

/// Reads one message from the client (the server's mirror of [`decode`]); an empty stdin
/// message is kept (it carries nothing, but it is not an end of input).
pub fn decode_from_client(protocol: Protocol, frame: Frame<'_>) -> FromClient {
    let (channel, data) = match (frame, protocol.is_base64()) {
        (Frame::Binary(bytes), false) => match bytes.split_first() {
            Some((&channel, data)) => (channel, data.to_vec()),
            None => return FromClient::Unknown,
        },
        (Frame::Text(text), true) => {
            let Some(digit) = text.bytes().next() else {
                return FromClient::Unknown;
            };
            match LENIENT.decode(&text[1..]) {
                Ok(data) => (digit.wrapping_sub(b'0'), data),
                Err(_) => return FromClient::Unknown,
            }
        }
        _ => return FromClient::Unknown,
    };
    if channel == CLOSE_SIGNAL && protocol.has_close_channel() {
        return match data.first().copied().and_then(Channel::from_number) {
            Some(closed) => FromClient::Close(closed),
            None => FromClient::Unknown,
        };
    }
    match Channel::from_number(channel) {
        Some(Channel::Stdin) => FromClient::Stdin(data),
        Some(Channel::Resize) => match serde_json::from_slice::<ResizeMessage>(&data) {
            Ok(size) => FromClient::Resize(TerminalSize {
                cols: size.width,
                rows: size.height,
            }),
            Err(_) => FromClient::Unknown,
        },
        _ => FromClient::Unknown,
    }
}

/// Go writes padded base64; accept unpadded too rather than drop output over a detail.
const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Reads one message. None for messages that carry nothing: the kubelet opens a session with
/// an empty message on its first output channel (recorded: `01` alone), to say it is ready.
pub fn decode(protocol: Protocol, frame: Frame<'_>) -> Option<Incoming> {
    let (channel, data) = match (frame, protocol.is_base64()) {
        (Frame::Binary(bytes), false) => {
            let (&channel, data) = bytes.split_first()?;
            (channel, data.to_vec())
        }
        (Frame::Text(text), true) => {
            let digit = text.bytes().next()?;
            let channel = digit.wrapping_sub(b'0');
            if channel > 9 {
                return Some(Incoming::Unknown { channel: None });
            }
            match LENIENT.decode(&text[1..]) {
                Ok(data) => (channel, data),
                Err(_) => {
                    return Some(Incoming::Unknown {
                        channel: Some(channel),
                    })
                }
            }
        }
        _ => return Some(Incoming::Unknown { channel: None }),
    };
    if channel == CLOSE_SIGNAL && protocol.has_close_channel() {
        let closed = data.first().copied().and_then(Channel::from_number);
        return Some(match closed {
            Some(closed) => Incoming::Close(closed),
            None => Incoming::Unknown {
                channel: Some(channel),
            },
        });
    }
    if data.is_empty() {
        return None;
    }
    Some(match Channel::from_number(channel) {
        Some(Channel::Stdout) => Incoming::Stdout(data),
        Some(Channel::Stderr) => Incoming::Stderr(data),
        Some(Channel::Status) => Incoming::Status(ExecStatus::parse(protocol, &data)),
        _ => Incoming::Unknown {
            channel: Some(channel),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary(outgoing: Outgoing) -> Vec<u8> {
        match outgoing {
            Outgoing::Binary(bytes) => bytes,
            Outgoing::Text(text) => panic!("expected binary, got text {text:?}"),
        }
    }

    #[test]
    fn stdin_resize_and_close_are_encoded_for_binary_protocols() {
        assert_eq!(binary(encode_stdin(Protocol::V5, b"ls\r")), b"\0ls\r");
        let size = TerminalSize {
            cols: 100,
            rows: 40,
        };
        assert_eq!(
            binary(encode_resize(Protocol::V4, size)),
            b"\x04{\"Width\":100,\"Height\":40}"
        );
        assert_eq!(
            encode_close_stdin(Protocol::V5),
            Some(Outgoing::Binary(vec![255, 0]))
        );
        assert_eq!(encode_close_stdin(Protocol::V4), None);
    }

    #[test]
    fn base64_protocols_send_text_with_a_channel_digit() {
        assert_eq!(
            encode_stdin(Protocol::Base64, b"hi\n"),
            Outgoing::Text("0aGkK".into())
        );
        assert_eq!(
            encode_resize(Protocol::V4Base64, TerminalSize { cols: 80, rows: 24 }),
            Outgoing::Text(format!(
                "4{}",
                STANDARD.encode(br#"{"Width":80,"Height":24}"#)
            ))
        );
        assert_eq!(
            encode_stdin(Protocol::V4Base64, b""),
            Outgoing::Text("0".into())
        );
    }

    #[test]
    fn output_is_decoded_by_channel() {
        let decode_binary = |bytes: &[u8]| decode(Protocol::V5, Frame::Binary(bytes));
        assert_eq!(
            decode_binary(b"\x01web\n"),
            Some(Incoming::Stdout(b"web\n".to_vec()))
        );
        assert_eq!(
            decode_binary(b"\x02oops"),
            Some(Incoming::Stderr(b"oops".to_vec()))
        );
        // A status without its channel byte reads as channel `{`: unknown, not dropped.
        assert_eq!(
            decode_binary(br#"{"status":"Success"}"#),
            Some(Incoming::Unknown {
                channel: Some(b'{')
            })
        );
        assert_eq!(
            decode_binary(b"\x03{\"status\":\"Success\"}"),
            Some(Incoming::Status(ExecStatus::Success))
        );
        assert_eq!(
            decode(Protocol::Base64, Frame::Text("1aGkK")),
            Some(Incoming::Stdout(b"hi\n".to_vec()))
        );
    }

    #[test]
    fn the_initial_empty_frames_carry_nothing() {
        for channel in 0..=4u8 {
            assert_eq!(decode(Protocol::V5, Frame::Binary(&[channel])), None);
            let digit = char::from(b'0' + channel).to_string();
            assert_eq!(decode(Protocol::V4Base64, Frame::Text(&digit)), None);
        }
        assert_eq!(decode(Protocol::V4, Frame::Binary(&[])), None);
        assert_eq!(decode(Protocol::Base64, Frame::Text("")), None);
    }

    #[test]
    fn v5_close_names_the_channel_and_is_unknown_elsewhere() {
        assert_eq!(
            decode(Protocol::V5, Frame::Binary(&[255, 1])),
            Some(Incoming::Close(Channel::Stdout))
        );
        assert_eq!(
            decode(Protocol::V5, Frame::Binary(&[255, 9])),
            Some(Incoming::Unknown { channel: Some(255) })
        );
        assert_eq!(
            decode(Protocol::V4, Frame::Binary(&[255, 1])),
            Some(Incoming::Unknown { channel: Some(255) })
        );
    }

    #[test]
    fn a_server_reads_what_a_client_encodes_and_encodes_what_a_client_decodes() {
        let size = TerminalSize {
            cols: 100,
            rows: 40,
        };
        for protocol in Protocol::ALL {
            let read = |outgoing: Outgoing| match outgoing {
                Outgoing::Binary(bytes) => decode_from_client(protocol, Frame::Binary(&bytes)),
                Outgoing::Text(text) => decode_from_client(protocol, Frame::Text(&text)),
            };
            assert_eq!(
                read(encode_stdin(protocol, b"ls\r")),
                FromClient::Stdin(b"ls\r".to_vec())
            );
            assert_eq!(
                read(encode_resize(protocol, size)),
                FromClient::Resize(size)
            );
            let output = encode_output(protocol, Channel::Stdout, b"web\n");
            let decoded = match &output {
                Outgoing::Binary(bytes) => decode(protocol, Frame::Binary(bytes)),
                Outgoing::Text(text) => decode(protocol, Frame::Text(text)),
            };
            assert_eq!(decoded, Some(Incoming::Stdout(b"web\n".to_vec())));
        }
        assert_eq!(
            decode_from_client(Protocol::V5, Frame::Binary(&[255, 0])),
            FromClient::Close(Channel::Stdin)
        );
        assert_eq!(
            decode_from_client(Protocol::V4, Frame::Binary(&[255, 0])),
            FromClient::Unknown
        );
        assert_eq!(
            decode_from_client(Protocol::V5, Frame::Binary(b"\x04{}")),
            FromClient::Unknown
        );
        assert_eq!(
            encode_output(Protocol::Base64, Channel::Stdout, b""),
            Outgoing::Text("1".into())
        );
    }

    #[test]
    fn frames_of_the_wrong_kind_or_bad_base64_are_unknown() {
        let unknown = Some(Incoming::Unknown { channel: None });
        assert_eq!(decode(Protocol::V5, Frame::Text("1aGkK")), unknown);
        assert_eq!(decode(Protocol::Base64, Frame::Binary(b"\x01hi")), unknown);
        assert_eq!(decode(Protocol::Base64, Frame::Text("xaGkK")), unknown);
        assert_eq!(
            decode(Protocol::Base64, Frame::Text("1a!b")),
            Some(Incoming::Unknown { channel: Some(1) })
        );
        // Unpadded base64 is read all the same.
        assert_eq!(
            decode(Protocol::Base64, Frame::Text("1aGk")),
            Some(Incoming::Stdout(b"hi".to_vec()))
        );
    }
}

//! The terminal's frames and endings against sessions recorded from kube-apiserver v1.36.2
//! (`fixtures/terminal`, its README says how): each received message decoded as the browser
//! would get it, each sent one compared with what the model encodes.

use kube_atlas_model::object::terminal::frame::{
    decode, encode_close_stdin, encode_resize, encode_stdin, Frame, Incoming, Outgoing,
    TerminalSize,
};
use kube_atlas_model::object::terminal::protocol::{Negotiation, NextStep, Offer, Protocol};
use kube_atlas_model::object::terminal::shell::{next_default_shell, Shell};
use kube_atlas_model::object::terminal::status::{
    should_offer_reconnect, EndContext, ExecEnd, ExecStatus, SocketClose,
};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/terminal");

/// One recorded session.
struct Session {
    offered: String,
    protocol: Protocol,
    /// `(sent, message)`; a close frame is kept as its code.
    messages: Vec<(bool, Message)>,
}

enum Message {
    Binary(Vec<u8>),
    Text(String),
    Close(u16),
}

fn read(name: &str) -> String {
    let path = format!("{DIR}/{name}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn hex(text: &str) -> Vec<u8> {
    if text == "-" {
        return Vec::new();
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

fn session(name: &str) -> Session {
    let text = read(name);
    let header = |prefix: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("{name}: no `{prefix}` line"))
            .to_string()
    };
    let chosen = header("# answer: ");
    let chosen = chosen.rsplit("protocol: ").next().unwrap_or_default();
    let messages = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().take(3).collect();
            let payload = hex(fields[2]);
            let message = match fields[1] {
                "binary" => Message::Binary(payload),
                "text" => Message::Text(String::from_utf8(payload).expect("UTF-8 text")),
                "close" => Message::Close(u16::from_be_bytes([payload[0], payload[1]])),
                other => panic!("{name}: unknown message kind {other}"),
            };
            (fields[0] == ">", message)
        })
        .collect();
    Session {
        offered: header("# offered: "),
        protocol: Protocol::from_name(chosen).unwrap_or_else(|| panic!("{name}: {chosen}")),
        messages,
    }
}

/// What the terminal makes of the server's messages.
#[derive(Default)]
struct Replay {
    stdout: String,
    stderr: String,
    status: Option<ExecStatus>,
    /// Messages that carried nothing (the kubelet's first, empty one).
    empty: usize,
    first_carried_nothing: bool,
    sent: Vec<Outgoing>,
}

fn replay(name: &str) -> (Session, Replay, ExecEnd) {
    let session = session(name);
    let mut replay = Replay::default();
    let mut close = SocketClose::Abnormal;
    let mut received = 0;
    for (sent, message) in &session.messages {
        if *sent {
            replay.sent.push(match message {
                Message::Binary(bytes) => Outgoing::Binary(bytes.clone()),
                Message::Text(text) => Outgoing::Text(text.clone()),
                Message::Close(_) => continue,
            });
            continue;
        }
        let frame = match message {
            Message::Binary(bytes) => Frame::Binary(bytes),
            Message::Text(text) => Frame::Text(text),
            Message::Close(code) => {
                close = SocketClose::from_close_event(*code, true);
                continue;
            }
        };
        let incoming = decode(session.protocol, frame);
        if received == 0 {
            replay.first_carried_nothing = incoming.is_none();
        }
        received += 1;
        match incoming {
            None => replay.empty += 1,
            Some(Incoming::Stdout(bytes)) => replay.stdout += &String::from_utf8_lossy(&bytes),
            Some(Incoming::Stderr(bytes)) => replay.stderr += &String::from_utf8_lossy(&bytes),
            Some(Incoming::Status(status)) => replay.status = Some(status),
            Some(other) => panic!("{name}: unexpected {other:?}"),
        }
    }
    let end = ExecEnd::from_session(session.protocol, replay.status.as_ref(), close);
    (session, replay, end)
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn sentence(end: &ExecEnd, command: &[&str], container: &str) -> String {
    let command = argv(command);
    end.sentence(&EndContext {
        command: &command,
        container,
        user_typed: false,
    })
}

#[test]
fn hostname_prints_and_exits_zero() {
    let (session, replay, end) = replay("v5_hostname.txt");
    assert_eq!(session.offered, Offer::Preferred.header_value());
    assert_eq!(session.protocol, Protocol::V5);
    assert_eq!(replay.stdout, "web\n");
    assert_eq!(replay.status, Some(ExecStatus::Success));
    assert_eq!(end, ExecEnd::Exited(0));
}

#[test]
fn exit_3_reads_the_same_on_every_protocol() {
    for (name, protocol, stdout) in [
        ("v5_exit_3.txt", Protocol::V5, ""),
        ("v4_exit_3.txt", Protocol::V4, ""),
        ("v4_base64_echo_exit_3.txt", Protocol::V4Base64, "hi\n"),
        // Before v4 the code is only in the error message's text.
        ("base64_echo_exit_3.txt", Protocol::Base64, "hi\n"),
    ] {
        let (session, replay, end) = replay(name);
        assert_eq!(session.protocol, protocol, "{name}");
        assert_eq!(replay.stdout, stdout, "{name}");
        assert_eq!(end, ExecEnd::Exited(3), "{name}");
        assert_eq!(
            sentence(&end, &["sh", "-c", "exit 3"], "web"),
            "Exited with code 3"
        );
    }
    // Without v5 offered, kube-apiserver proxies to the kubelet, which picks v4.
    assert_eq!(
        session("v4_exit_3.txt").offered,
        Offer::WithoutV5.header_value()
    );
}

#[test]
fn every_session_opens_with_an_empty_message() {
    // What `Negotiation::lost` relies on: a socket that works gets a message at once.
    for name in [
        "v5_hostname.txt",
        "v5_exit_3.txt",
        "v5_nosuchcommand.txt",
        "v5_tty_resize_stty_size.txt",
        "v5_stdin_close.txt",
        "v5_container_not_running.txt",
        "v5_attach_tty.txt",
        "v4_exit_3.txt",
        "v4_base64_echo_exit_3.txt",
        "base64_echo_exit_3.txt",
    ] {
        let (_, replay, _) = replay(name);
        assert!(replay.first_carried_nothing, "{name}");
        assert_eq!(replay.empty, 1, "{name}");
    }
}

#[test]
fn resize_then_stty_size_sees_the_new_size() {
    let (_, replay, end) = replay("v5_tty_resize_stty_size.txt");
    let size = TerminalSize {
        cols: 100,
        rows: 40,
    };
    assert_eq!(
        replay.sent,
        [
            encode_resize(Protocol::V5, size),
            encode_stdin(Protocol::V5, b"stty size\r"),
            encode_stdin(Protocol::V5, b"exit\r"),
        ]
    );
    assert_eq!(replay.stdout, "/ # stty size\r\n40 100\r\n/ # exit\r\n");
    assert_eq!(end, ExecEnd::Exited(0));
}

#[test]
fn closing_stdin_ends_a_shell_reading_it() {
    let (_, replay, end) = replay("v5_stdin_close.txt");
    let close = encode_close_stdin(Protocol::V5).expect("v5 has close");
    assert_eq!(
        replay.sent,
        [encode_stdin(Protocol::V5, b"hostname\n"), close]
    );
    assert_eq!(replay.stdout, "web\n");
    assert_eq!(end, ExecEnd::Exited(0));
}

#[test]
fn attach_types_into_the_main_process() {
    let (_, replay, end) = replay("v5_attach_tty.txt");
    assert_eq!(replay.sent[0], encode_stdin(Protocol::V5, b"hello\r"));
    assert_eq!(replay.stdout, "tty: tick 1\r\nreceived: hello\r\n");
    assert_eq!(end, ExecEnd::Exited(0));
}

#[test]
fn an_unknown_command_is_not_found() {
    let (_, replay, end) = replay("v5_nosuchcommand.txt");
    assert_eq!(replay.stderr, "sh: nosuchcommand: not found\n");
    assert_eq!(end, ExecEnd::Exited(127));
    assert_eq!(
        sentence(&end, &["nosuchcommand"], "web"),
        "`nosuchcommand`: command not found (exit code 127)"
    );
    assert!(!should_offer_reconnect(&end));
}

#[test]
fn a_container_not_running_is_said_so_and_not_retried() {
    let (_, _, end) = replay("v5_container_not_running.txt");
    assert!(matches!(end, ExecEnd::Failed(_)));
    assert_eq!(
        sentence(&end, &["sh"], "app"),
        "Container app is not running"
    );
    assert!(!should_offer_reconnect(&end));
    assert_eq!(next_default_shell(Shell::Bash, false, &end), None);
}

#[test]
fn bash_missing_falls_back_to_sh() {
    let (_, _, end) = replay("v5_bash_not_found.hand-written.txt");
    assert_eq!(
        sentence(&end, &["bash"], "web"),
        "`bash`: command not found"
    );
    assert_eq!(
        next_default_shell(Shell::Bash, false, &end),
        Some(Shell::Sh)
    );
}

#[test]
fn refused_handshakes_carry_no_messages() {
    for name in [
        "refused_unknown_protocol.txt",
        "refused_viewer_forbidden.txt",
        "refused_container_not_valid.txt",
    ] {
        let text = read(name);
        assert!(!text.contains(" 101 "), "{name}");
        assert!(text.lines().all(|line| line.starts_with('#')), "{name}");
    }
    // An offer the kubelet knows nothing of is refused; the model never makes one, and
    // after a refusal it offers less, never something else.
    let mut negotiation = Negotiation::new();
    assert_eq!(negotiation.refused(), NextStep::Connect(Offer::WithoutV5));
}

use super::*;

fn parse_v5(json: &str) -> ExecStatus {
    ExecStatus::parse(Protocol::V5, json.as_bytes())
}

fn context<'a>(command: &'a [String], user_typed: bool) -> EndContext<'a> {
    EndContext {
        command,
        container: "web",
        user_typed,
    }
}

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn success_and_exit_codes_are_read_from_the_status() {
    assert_eq!(
        parse_v5(r#"{"metadata":{},"status":"Success"}"#),
        ExecStatus::Success
    );
    let exit_3 = r#"{"status":"Failure","reason":"NonZeroExitCode",
        "details":{"causes":[{"reason":"ExitCode","message":"3"}]},
        "message":"command terminated with non-zero exit code: exit status 3"}"#;
    assert_eq!(parse_v5(exit_3), ExecStatus::ExitCode(3));
    assert_eq!(ExecEnd::from_status(&parse_v5(exit_3)), ExecEnd::Exited(3));
}

#[test]
fn other_failures_keep_the_servers_reason_and_message() {
    let json = r#"{"status":"Failure","reason":"InternalError","code":500,
        "message":"Internal error occurred: container \"web\" is not running"}"#;
    assert_eq!(
        parse_v5(json),
        ExecStatus::Failure {
            reason: Some("InternalError".into()),
            message: r#"Internal error occurred: container "web" is not running"#.into(),
        }
    );
    // A NonZeroExitCode without a readable code is a failure, not exit 0.
    let no_code = r#"{"status":"Failure","reason":"NonZeroExitCode","message":"odd"}"#;
    assert!(matches!(parse_v5(no_code), ExecStatus::Failure { .. }));
    // Not JSON at all: the text is the message.
    assert_eq!(
        parse_v5("boom\n"),
        ExecStatus::Failure {
            reason: None,
            message: "boom".into()
        }
    );
}

#[test]
fn before_v4_the_status_is_an_error_message() {
    let text = "command terminated with non-zero exit code: exit status 3";
    assert_eq!(
        ExecStatus::parse(Protocol::Base64, text.as_bytes()),
        ExecStatus::ExitCode(3)
    );
    let containerd = "command terminated with non-zero exit code: error executing command \
                      [sh -c exit 4], exit code 4";
    assert_eq!(
        ExecStatus::parse(Protocol::V1, containerd.as_bytes()),
        ExecStatus::ExitCode(4)
    );
    assert_eq!(
        ExecStatus::parse(Protocol::V1, b"container not found (\"web\")"),
        ExecStatus::Failure {
            reason: None,
            message: "container not found (\"web\")".into()
        }
    );
}

#[test]
fn the_status_decides_else_the_close() {
    let success = ExecStatus::Success;
    let clean = SocketClose::from_close_event(1000, true);
    let lost = SocketClose::from_close_event(1006, false);
    assert_eq!(
        ExecEnd::from_session(Protocol::V5, Some(&success), lost),
        ExecEnd::Exited(0)
    );
    assert_eq!(
        ExecEnd::from_session(Protocol::V5, None, clean),
        ExecEnd::ClosedByServer
    );
    assert_eq!(
        ExecEnd::from_session(Protocol::V5, None, lost),
        ExecEnd::ConnectionLost
    );
    // Before v4 silence on the status channel is success.
    assert_eq!(
        ExecEnd::from_session(Protocol::Base64, None, clean),
        ExecEnd::Exited(0)
    );
    assert_eq!(
        SocketClose::from_close_event(1006, true),
        SocketClose::Abnormal
    );
}

#[test]
fn sentences_name_what_happened() {
    let sh = argv(&["sh"]);
    let typed = context(&sh, true);
    assert_eq!(ExecEnd::Exited(3).sentence(&typed), "Exited with code 3");
    assert_eq!(ExecEnd::Exited(0).sentence(&typed), "Exited with code 0");
    assert_eq!(
        ExecEnd::ClosedByServer.sentence(&typed),
        "Session closed by the server"
    );
    assert_eq!(ExecEnd::ConnectionLost.sentence(&typed), "Connection lost");
    assert_eq!(
        ExecEnd::Exited(130).sentence(&typed),
        "Interrupted (exit code 130)"
    );
    assert_eq!(
        ExecEnd::Exited(137).sentence(&typed),
        "Killed (exit code 137)"
    );
    assert_eq!(
        ExecEnd::Exited(134).sentence(&typed),
        "Ended by signal 6 (exit code 134)"
    );
    // After typing, 127 is the last command's code, not the shell's.
    assert_eq!(
        ExecEnd::Exited(127).sentence(&typed),
        "Exited with code 127"
    );
}

#[test]
fn not_found_and_not_executable_name_the_program() {
    let foo = argv(&["foo", "--bar"]);
    assert_eq!(
        ExecEnd::Exited(127).sentence(&context(&foo, false)),
        "`foo`: command not found (exit code 127)"
    );
    assert_eq!(
        ExecEnd::Exited(126).sentence(&context(&foo, false)),
        "`foo`: not executable (exit code 126)"
    );
    let wrapped = argv(&["sh", "-c", "nosuchcommand --x"]);
    assert_eq!(
        ExecEnd::Exited(127).sentence(&context(&wrapped, false)),
        "`nosuchcommand`: command not found (exit code 127)"
    );
    let oci = "Internal error occurred: error executing command in container: failed to exec \
               in container: OCI runtime exec failed: exec failed: unable to start container \
               process: exec: \"bash\": executable file not found in $PATH: unknown";
    let bash = argv(&["bash"]);
    assert_eq!(
        ExecEnd::Failed(oci.into()).sentence(&context(&bash, false)),
        "`bash`: command not found"
    );
}

#[test]
fn failures_are_told_in_the_users_terms() {
    let sh = argv(&["sh"]);
    let not_running = "Internal error occurred: Internal error occurred: error executing \
                       command in container: container \"web\" is not running";
    assert_eq!(
        ExecEnd::Failed(not_running.into()).sentence(&context(&sh, false)),
        "Container web is not running"
    );
    assert_eq!(
        classify_failure("unable to upgrade connection: container not found (\"web\")"),
        FailureKind::ContainerNotRunning
    );
    assert_eq!(
        ExecEnd::Failed("Internal error occurred: Internal error occurred: disk full".into())
            .sentence(&context(&sh, false)),
        "disk full"
    );
}

#[test]
fn reconnecting_is_offered_only_for_a_cut_session() {
    assert!(should_offer_reconnect(&ExecEnd::ConnectionLost));
    assert!(should_offer_reconnect(&ExecEnd::ClosedByServer));
    assert!(!should_offer_reconnect(&ExecEnd::Exited(0)));
    assert!(!should_offer_reconnect(&ExecEnd::Failed("x".into())));
}

use super::*;
use crate::object::terminal::test_support::pods_tree;

fn argv(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn exec_with_a_terminal_is_what_kubectl_exec_it_sends() {
    let tree = pods_tree(&["attach", "exec", "log"]);
    let options = ExecOptions::terminal("web", argv(&["sh"]));
    let request = exec_request(&tree, "default", "web", &options).expect("exec is served");
    assert_eq!(request.method(), "GET");
    assert_eq!(
        request.url(),
        "/api/v1/namespaces/default/pods/web/exec?command=sh&container=web&stdin=true\
         &stdout=true&tty=true"
    );
}

#[test]
fn each_argument_is_one_command_parameter_and_stderr_comes_without_a_terminal() {
    let tree = pods_tree(&["exec"]);
    let options = ExecOptions {
        container: "web".into(),
        command: argv(&["sh", "-c", "exit 3", ""]),
        stdin: false,
        tty: false,
    };
    let request = exec_request(&tree, "team a", "web/1", &options).expect("served");
    assert_eq!(
        request.url(),
        "/api/v1/namespaces/team%20a/pods/web%2F1/exec?command=sh&command=-c\
         &command=exit%203&command=&container=web&stderr=true&stdout=true"
    );
}

#[test]
fn attach_opens_the_streams_the_container_has() {
    let tree = pods_tree(&["attach"]);
    let with_tty = AttachOptions {
        container: "main".into(),
        stdin: true,
        tty: true,
    };
    assert_eq!(
        attach_request(&tree, "default", "tty", &with_tty)
            .expect("served")
            .url(),
        "/api/v1/namespaces/default/pods/tty/attach?container=main&stdin=true&stdout=true&tty=true"
    );
    let without = AttachOptions {
        tty: false,
        ..with_tty
    };
    assert_eq!(
        attach_request(&tree, "default", "tty", &without)
            .expect("served")
            .url(),
        "/api/v1/namespaces/default/pods/tty/attach?container=main&stderr=true&stdin=true&stdout=true"
    );
}

#[test]
fn nothing_is_built_for_what_discovery_does_not_serve() {
    let tree = pods_tree(&["log"]);
    let options = ExecOptions::terminal("web", argv(&["sh"]));
    let refused = exec_request(&tree, "default", "web", &options);
    assert_eq!(
        refused,
        Err(TerminalRequestError::NotServed(PodSubresource::Exec))
    );
    assert_eq!(
        TerminalRequestError::NotServed(PodSubresource::Exec).to_string(),
        "This cluster does not serve pods/exec"
    );
    assert!(!is_served(&tree, PodSubresource::Attach));
    assert!(!is_served(&ApiTree::default(), PodSubresource::Exec));
    assert!(is_served(&pods_tree(&["attach"]), PodSubresource::Attach));
    let no_command = ExecOptions::terminal("web", vec![]);
    assert_eq!(
        exec_request(&pods_tree(&["exec"]), "default", "web", &no_command),
        Err(TerminalRequestError::EmptyCommand)
    );
}

#[test]
fn a_refused_handshake_is_explained_by_a_plain_get() {
    // As kube-apiserver v1.36 answered (recorded with curl).
    let upgrade = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
        "message":"Upgrade request required","reason":"BadRequest","code":400}"#;
    assert_eq!(
        explain_refused_handshake(400, upgrade),
        HandshakeRefusal::Upgrade
    );
    let forbidden = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
        "message":"pods \"web\" is forbidden: User \"viewer\" cannot get resource \"pods/exec\" in API group \"\" in the namespace \"default\"",
        "reason":"Forbidden","details":{"name":"web","kind":"pods"},"code":403}"#;
    match explain_refused_handshake(403, forbidden) {
        HandshakeRefusal::Request(error) => {
            assert_eq!(error.reason(), Some("Forbidden"));
            assert!(error
                .to_string()
                .contains("cannot get resource \"pods/exec\""));
        }
        other => panic!("expected the request refused, got {other:?}"),
    }
    let bad_container = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
        "message":"container nope is not valid for pod web","reason":"BadRequest","code":400}"#;
    assert!(matches!(
        explain_refused_handshake(400, bad_container),
        HandshakeRefusal::Request(_)
    ));
}

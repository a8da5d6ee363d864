use crate::object::workload_logs::severity::{detect_severity, Severity};

#[test]
fn common_loggers_levels_are_recognised() {
    let cases = [
        // klog
        (
            "E1207 01:02:03.123456       1 reflector.go:138] failed to list",
            Severity::Error,
        ),
        (
            "W1207 01:02:03.123456       1 warnings.go:70] deprecated",
            Severity::Warning,
        ),
        (
            "I1207 01:02:03.123456       1 leaderelection.go:258] acquired",
            Severity::Info,
        ),
        (
            "F1207 01:02:03.123456       1 main.go:1] fatal",
            Severity::Error,
        ),
        // JSON: zap, logrus, pino, Google Cloud
        (
            r#"{"level":"warn","ts":1.7,"msg":"slow"}"#,
            Severity::Warning,
        ),
        (r#"{"msg":"level","level" : "error"}"#, Severity::Error),
        (r#"{"severity":"ERROR","message":"x"}"#, Severity::Error),
        (r#"{"level":30,"msg":"pino info"}"#, Severity::Info),
        (r#"{"level":50,"msg":"pino error"}"#, Severity::Error),
        (r#"{"lvl":"dbug"}"#, Severity::Unknown),
        (r#"{"level":"debug"}"#, Severity::Debug),
        // logfmt
        (
            r#"time=2026-12-07 level=error msg="db down""#,
            Severity::Error,
        ),
        (r#"ts=1 level="warn" msg=x"#, Severity::Warning),
        ("lvl=info msg=ok", Severity::Info),
        ("xlevel=error msg=not a field", Severity::Unknown),
        // words set apart as levels
        (
            "2026/12/07 01:02:03 [error] 29#29: *1 open() failed",
            Severity::Error,
        ),
        ("ERROR:root:connection refused", Severity::Error),
        (
            "2026-12-07 01:02:03.123 WARN 1 --- [main] o.s.Application",
            Severity::Warning,
        ),
        (
            "2026-12-07T01:02:03.123Z\twarn\tserver/handler.go:12\tslow",
            Severity::Warning,
        ),
        ("<debug> cache miss", Severity::Debug),
        ("error: could not open config", Severity::Error),
        ("Warning: deprecated flag", Severity::Warning),
        ("TRACE entering", Severity::Debug),
        // plain words in a sentence are not levels
        ("no error occurred", Severity::Unknown),
        ("served GET /info in 3ms", Severity::Unknown),
        ("", Severity::Unknown),
        ("🚀 ready", Severity::Unknown),
    ];
    for (line, want) in cases {
        assert_eq!(detect_severity(line), want, "{line}");
    }
}

#[test]
fn severities_order_by_gravity() {
    assert!(Severity::Error > Severity::Warning);
    assert!(Severity::Warning > Severity::Info);
    assert!(Severity::Info > Severity::Debug);
    assert!(Severity::Debug > Severity::Unknown);
    let labels: Vec<&str> = Severity::LEVELS.iter().map(|s| s.label()).collect();
    assert_eq!(labels, ["Error", "Warning", "Info", "Debug"]);
    // A long line with a multi-byte character at the window's edge is cut safely.
    let long = format!("{}é ERROR", "a".repeat(119));
    assert_eq!(detect_severity(&long), Severity::Unknown);
}

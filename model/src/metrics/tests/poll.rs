//! Tests of [`crate::metrics::poll`].

use crate::metrics::discovery::MetricsApi;
use crate::metrics::poll::*;

fn served() -> MetricsApi {
    MetricsApi::Served {
        version: "v1beta1".into(),
        pods: true,
        nodes: true,
    }
}

fn key(ns: &str) -> PollKey {
    PollKey::new(format!("/apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods"))
}

#[test]
fn one_poll_per_key_at_the_window_shared_by_views() {
    let mut poller = Poller::new(served());
    poller.subscribe(key("a"));
    poller.subscribe(key("a"));
    poller.subscribe(key("b"));
    assert_eq!(poller.views(&key("a")), 2);
    assert_eq!(poller.due(0.0), [key("a"), key("b")]);
    // In flight: not asked twice.
    assert!(poller.due(1.0).is_empty());
    poller.answered(&key("a"), Outcome::Ok, 100.0);
    poller.answered(&key("b"), Outcome::Failed, 200.0);
    assert_eq!(poller.next_wake(), Some(15_100.0));
    assert!(poller.due(15_099.0).is_empty());
    assert_eq!(poller.due(15_100.0), [key("a")]);
    assert_eq!(poller.due(15_200.0), [key("b")]);
    // The second view going keeps the poll; the last one stops it.
    poller.unsubscribe(&key("a"));
    assert_eq!(poller.views(&key("a")), 1);
    poller.unsubscribe(&key("a"));
    assert_eq!(poller.views(&key("a")), 0);
    poller.answered(&key("a"), Outcome::Ok, 15_300.0);
    poller.answered(&key("b"), Outcome::Ok, 15_300.0);
    assert!(poller.due(60_000.0).iter().all(|k| *k == key("b")));
}

#[test]
fn never_faster_than_ten_seconds() {
    let mut poller = Poller::new(served());
    assert_eq!(poller.window_ms(), DEFAULT_WINDOW_MS);
    poller.set_window_ms(1_000.0);
    assert_eq!(poller.window_ms(), MIN_WINDOW_MS);
    poller.set_window_ms(f64::NAN);
    assert_eq!(poller.window_ms(), DEFAULT_WINDOW_MS);
    poller.set_window_ms(30_000.0);
    poller.subscribe(key("a"));
    assert_eq!(poller.due(0.0).len(), 1);
    poller.answered(&key("a"), Outcome::Ok, 0.0);
    assert!(poller.due(29_999.0).is_empty());
    assert_eq!(poller.due(30_000.0).len(), 1);
}

#[test]
fn paused_while_hidden() {
    let mut poller = Poller::new(served());
    poller.subscribe(key("a"));
    poller.set_hidden(true);
    assert!(poller.due(0.0).is_empty());
    assert_eq!(poller.next_wake(), None);
    poller.set_hidden(false);
    assert_eq!(poller.due(0.0).len(), 1);
    poller.answered(&key("a"), Outcome::Ok, 0.0);
    poller.set_hidden(true);
    assert!(poller.due(120_000.0).is_empty());
    // Shown again long after: asked at once, once.
    poller.set_hidden(false);
    assert_eq!(poller.due(120_000.0).len(), 1);
    assert!(poller.due(120_001.0).is_empty());
}

#[test]
fn a_503_or_404_stops_and_is_said_once() {
    for status in [503, 404] {
        let mut poller = Poller::new(served());
        assert_eq!(poller.take_notice(), None);
        poller.subscribe(key("a"));
        poller.subscribe(key("b"));
        let due = poller.due(0.0);
        assert_eq!(due.len(), 2);
        poller.answered(&key("a"), Outcome::Status(status), 10.0);
        // The other request's answer comes later: still stopped, said once.
        poller.answered(&key("b"), Outcome::Status(status), 20.0);
        assert!(!poller.api().is_served());
        let notice = poller.take_notice().expect("said");
        assert!(
            notice.starts_with("no metrics API: install metrics-server"),
            "{notice}"
        );
        assert!(notice.contains(&status.to_string()), "{notice}");
        assert_eq!(poller.take_notice(), None);
        for now in [15_010.0, 60_000.0, 3_600_000.0] {
            assert!(poller.due(now).is_empty());
        }
        assert_eq!(poller.next_wake(), None);
        // A new view does not poll a missing API either.
        poller.subscribe(key("c"));
        assert!(poller.due(4_000_000.0).is_empty());
        // Discovery finds it again: polls at once.
        poller.set_api(served());
        assert_eq!(poller.due(4_000_001.0).len(), 3);
    }
    // Other failures are tried again next window.
    let mut poller = Poller::new(served());
    poller.subscribe(key("a"));
    poller.due(0.0);
    poller.answered(&key("a"), Outcome::Status(500), 0.0);
    assert!(poller.api().is_served());
    assert_eq!(poller.due(15_000.0).len(), 1);
}

#[test]
fn a_missing_api_is_never_polled() {
    let mut poller = Poller::new(crate::metrics::discovery::metrics_api(
        &crate::ApiTree::default(),
    ));
    assert_eq!(
        poller.take_notice().as_deref(),
        Some("no metrics API: install metrics-server")
    );
    assert_eq!(poller.take_notice(), None);
    poller.subscribe(key("a"));
    assert!(poller.due(0.0).is_empty());
    assert_eq!(poller.next_wake(), None);
}

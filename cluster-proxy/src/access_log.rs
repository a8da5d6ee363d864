//! Who did what: one JSON line per request on stdout (as a pod's logs are collected), with the
//! signed-in user, the Kubernetes verb, the path (never the query, never a header, so no token
//! can reach a log line), the status and how long the answer took to start.

use std::time::Duration;

use http::Method;
use serde::Serialize;

/// One request, as logged.
#[derive(Debug, Serialize)]
pub struct Entry<'a> {
    /// The signed-in user, or none (no session, or a server without sessions).
    pub user: Option<&'a str>,
    pub method: &'a str,
    pub verb: &'static str,
    pub path: &'a str,
    pub status: u16,
    #[serde(serialize_with = "milliseconds", rename = "duration_ms")]
    pub duration: Duration,
}

fn milliseconds<S: serde::Serializer>(duration: &Duration, to: S) -> Result<S::Ok, S::Error> {
    to.serialize_f64((duration.as_secs_f64() * 1000.0 * 10.0).round() / 10.0)
}

/// The Kubernetes verb an HTTP request stands for, as the API server's audit log names it (a
/// GET of one object and of a collection are both `get` here: telling them apart needs the
/// discovery document).
pub fn verb(method: &Method, query: Option<&str>, is_upgrade: bool) -> &'static str {
    let watching = query.is_some_and(|query| {
        query
            .split('&')
            .any(|pair| pair == "watch=true" || pair == "watch=1")
    });
    match *method {
        _ if is_upgrade => "connect",
        Method::GET if watching => "watch",
        Method::GET | Method::HEAD => "get",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE => "delete",
        _ => "other",
    }
}

/// The line for `entry`.
pub fn line(entry: &Entry) -> String {
    serde_json::to_string(entry).unwrap_or_default()
}

/// Writes `entry`'s line on stdout.
pub fn write(entry: &Entry) {
    println!("{}", line(entry));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_who_did_what_and_how_it_went() {
        let entry = Entry {
            user: Some("viewer"),
            method: "DELETE",
            verb: verb(&Method::DELETE, None, false),
            path: "/clusters/in-cluster/api/v1/namespaces/default/pods/web",
            status: 403,
            duration: Duration::from_micros(12_345),
        };
        assert_eq!(
            line(&entry),
            r#"{"user":"viewer","method":"DELETE","verb":"delete","path":"/clusters/in-cluster/api/v1/namespaces/default/pods/web","status":403,"duration_ms":12.3}"#
        );
        assert_eq!(verb(&Method::GET, Some("watch=true&x=1"), false), "watch");
        assert_eq!(verb(&Method::GET, Some("watch=false"), false), "get");
        assert_eq!(verb(&Method::GET, None, true), "connect");
    }
}

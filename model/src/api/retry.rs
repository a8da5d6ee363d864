//! Which failed requests are tried again, and after how long. A read that met an overloaded
//! server (429 from priority-and-fairness), a failing one (500, 502, 503, 504 from the
//! apiserver or a proxy in front of it) or a network blip is repeated a few times with
//! backoff, honouring `Retry-After`. Writes are never repeated here: a 500 may come after the
//! write was stored, so repeating it could apply it twice; the views keep the user's edit
//! and let them decide.

use crate::api::errors::ApiError;
use crate::api::request::Verb;
use crate::watch::Backoff;

/// Attempts a read gets in all, the first one included.
pub const READ_ATTEMPTS: u32 = 4;
/// A read whose server asks for a longer pause than this fails at once with the server's
/// answer (the view says "throttled"), rather than looking stuck.
pub const MAX_READ_WAIT_MS: u32 = 10_000;

/// Whether a later attempt at the same request may succeed.
pub fn is_transient(error: &ApiError) -> bool {
    match error {
        ApiError::Unreachable(_) => true,
        ApiError::Status { code, .. } => matches!(code, 429 | 500 | 502 | 503 | 504),
        ApiError::Aborted => false,
    }
}

/// The retry state of one request: after each failure, says whether to try again and when.
#[derive(Debug, Clone)]
pub struct ReadRetry {
    verb: Verb,
    attempts: u32,
    backoff: Backoff,
}

impl ReadRetry {
    pub fn new(verb: Verb, seed: u64) -> ReadRetry {
        ReadRetry {
            verb,
            attempts: 1,
            backoff: Backoff::new(seed),
        }
    }

    /// After attempt number [`attempts`](Self::attempts) failed with `error`: the pause in
    /// milliseconds before the next attempt, or None when the failure is final.
    /// `retry_after_header` is the `Retry-After` header in seconds, used when the Status
    /// carries none (proxies and load balancers send only the header).
    pub fn after_failure(
        &mut self,
        error: &ApiError,
        retry_after_header: Option<u32>,
    ) -> Option<u32> {
        if self.verb != Verb::Get || !is_transient(error) || self.attempts >= READ_ATTEMPTS {
            return None;
        }
        let retry_after = match error {
            ApiError::Status {
                details: Some(details),
                ..
            } => details.retry_after_seconds.or(retry_after_header),
            _ => retry_after_header,
        };
        let delay = self.backoff.next_delay_ms(retry_after);
        if delay > MAX_READ_WAIT_MS {
            return None;
        }
        self.attempts += 1;
        Some(delay)
    }

    /// Attempts made so far, the first one included.
    pub fn attempts(&self) -> u32 {
        self.attempts
    }
}

/// `Retry-After` as a number of seconds (the HTTP-date form is not used by kube-apiserver).
pub fn parse_retry_after(header: &str) -> Option<u32> {
    header.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::request::PatchType;

    fn status(code: u16, retry_after: Option<u32>) -> ApiError {
        let details = retry_after
            .map(|s| format!(r#","details":{{"retryAfterSeconds":{s}}}"#))
            .unwrap_or_default();
        ApiError::from_response(
            code,
            &format!(
                r#"{{"kind":"Status","status":"Failure","message":"m","code":{code}{details}}}"#
            ),
        )
    }

    #[test]
    fn reads_retry_transient_failures_a_few_times_then_give_up() {
        let mut retry = ReadRetry::new(Verb::Get, 3);
        let mut delays = Vec::new();
        while let Some(delay) = retry.after_failure(&status(503, None), None) {
            delays.push(delay);
        }
        assert_eq!(delays.len() as u32, READ_ATTEMPTS - 1);
        assert_eq!(retry.attempts(), READ_ATTEMPTS);
        // Exponential with jitter: each pause within [half, whole] of its doubling ceiling.
        for (i, delay) in delays.iter().enumerate() {
            let ceiling = 500u32 << i;
            assert!(*delay >= ceiling / 2 && *delay <= ceiling, "{i}: {delay}");
        }
    }

    #[test]
    fn throttling_waits_as_long_as_the_server_asks_and_not_forever() {
        let mut retry = ReadRetry::new(Verb::Get, 1);
        assert_eq!(
            retry.after_failure(&status(429, Some(2)), None),
            Some(2_000)
        );
        // The header counts where the Status says nothing.
        assert_eq!(
            retry.after_failure(&status(429, None), Some(3)),
            Some(3_000)
        );
        // A pause longer than a user would wait ends the retries with the server's answer.
        let mut retry = ReadRetry::new(Verb::Get, 1);
        assert_eq!(retry.after_failure(&status(429, Some(60)), None), None);
    }

    #[test]
    fn only_transient_failures_of_reads_are_retried() {
        for code in [400, 401, 403, 404, 409, 410, 422] {
            let mut retry = ReadRetry::new(Verb::Get, 1);
            assert_eq!(
                retry.after_failure(&status(code, None), None),
                None,
                "{code}"
            );
        }
        let mut retry = ReadRetry::new(Verb::Get, 1);
        assert_eq!(retry.after_failure(&ApiError::Aborted, None), None);
        assert!(retry
            .after_failure(&ApiError::Unreachable("offline".into()), None)
            .is_some());
        // Writes never: a 500 may have come after the write was stored.
        for verb in [
            Verb::Post,
            Verb::Put,
            Verb::Delete,
            Verb::Patch(PatchType::Merge),
        ] {
            let mut retry = ReadRetry::new(verb, 1);
            assert_eq!(retry.after_failure(&status(500, None), None), None);
            assert_eq!(retry.after_failure(&status(429, Some(1)), None), None);
        }
    }

    #[test]
    fn retry_after_is_read_as_seconds() {
        assert_eq!(parse_retry_after(" 5 "), Some(5));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}

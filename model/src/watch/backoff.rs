//! How long to wait before retrying a failed list or watch: exponential with jitter (so many
//! views reconnecting after an outage do not all hit the server at once), honouring the
//! server's `Retry-After`, reset once a request succeeds.

/// First retry after about this long.
pub const BASE_DELAY_MS: u32 = 500;
/// Never wait longer than this between attempts (kube-rs's default maximum is similar).
pub const MAX_DELAY_MS: u32 = 30_000;
/// A server's Retry-After longer than this is capped, so a view never looks dead.
pub const MAX_RETRY_AFTER_MS: u32 = 60_000;

/// A tiny deterministic random source (xorshift64): jitter needs no quality, and a seeded
/// one makes every test and failing run repeatable.
#[derive(Debug, Clone)]
pub struct Jitter(u64);

impl Jitter {
    pub fn new(seed: u64) -> Jitter {
        // Spread nearby seeds apart (splitmix64's finaliser): xorshift from a small seed
        // starts with small numbers.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Jitter((z ^ (z >> 31)).max(1))
    }

    /// A number in `[0, 1)`.
    pub fn next_fraction(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Debug, Clone)]
pub struct Backoff {
    failures: u32,
    jitter: Jitter,
}

impl Backoff {
    pub fn new(seed: u64) -> Backoff {
        Backoff {
            failures: 0,
            jitter: Jitter::new(seed),
        }
    }

    /// The delay before the next attempt after one more failure: `Retry-After` when the
    /// server sent one, else 0.5 s doubling up to 30 s, each scaled by a random 50-100 %.
    pub fn next_delay_ms(&mut self, retry_after_seconds: Option<u32>) -> u32 {
        self.failures = self.failures.saturating_add(1);
        if let Some(seconds) = retry_after_seconds {
            return seconds.saturating_mul(1000).min(MAX_RETRY_AFTER_MS);
        }
        let exponent = (self.failures - 1).min(16);
        let ceiling = BASE_DELAY_MS
            .saturating_mul(1 << exponent)
            .min(MAX_DELAY_MS);
        let scale = 0.5 + 0.5 * self.jitter.next_fraction();
        (f64::from(ceiling) * scale) as u32
    }

    /// A request succeeded: the next failure starts from the base delay again.
    pub fn reset(&mut self) {
        self.failures = 0;
    }

    /// Failures since the last success.
    pub fn failures(&self) -> u32 {
        self.failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_exponentially_with_jitter_up_to_the_cap_and_resets() {
        let mut backoff = Backoff::new(7);
        let delays: Vec<u32> = (0..10).map(|_| backoff.next_delay_ms(None)).collect();
        for (attempt, delay) in delays.iter().enumerate() {
            let ceiling = (BASE_DELAY_MS << attempt).min(MAX_DELAY_MS);
            assert!(
                *delay >= ceiling / 2 && *delay <= ceiling,
                "attempt {attempt}: {delay} ms not in [{}, {ceiling}]",
                ceiling / 2
            );
        }
        assert_eq!(backoff.failures(), 10);
        backoff.reset();
        assert!(backoff.next_delay_ms(None) <= BASE_DELAY_MS);
    }

    #[test]
    fn honours_retry_after_within_a_cap() {
        let mut backoff = Backoff::new(1);
        assert_eq!(backoff.next_delay_ms(Some(3)), 3_000);
        assert_eq!(backoff.next_delay_ms(Some(3_600)), MAX_RETRY_AFTER_MS);
    }

    #[test]
    fn jitter_spreads_views_that_fail_together() {
        let first: Vec<u32> = (1..=20)
            .map(|seed| Backoff::new(seed).next_delay_ms(None))
            .collect();
        let distinct: std::collections::BTreeSet<u32> = first.iter().copied().collect();
        assert!(distinct.len() > 10, "{first:?}");
    }
}

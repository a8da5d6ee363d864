//! Noticing that streams may have died without a word: the machine slept (a laptop lid), or
//! a stream has been silent longer than any live watch can be. A dead TCP connection sends no
//! FIN, so without these a view would show stale data until the browser gave up on it
//! (hours, with the operating system's keepalive).

use super::key::WATCH_TIMEOUT_SECONDS;
use crate::time::clock::{Monotonic, Wall};

/// A watch silent this long is dead: the server ends every watch after
/// [`WATCH_TIMEOUT_SECONDS`], so a live one says something (an event, a bookmark, its end)
/// before then (kube-rs's idle timeout is the same).
pub const IDLE_TIMEOUT_MS: u32 = (WATCH_TIMEOUT_SECONDS + 5) * 1000;

/// How often the page checks the wall clock for a jump.
pub const WAKE_TICK_MS: u32 = 10_000;

/// A tick this much later than due means the page did not run meanwhile: the machine slept
/// (or the tab was frozen). Timers drift by milliseconds, hidden tabs' by up to a minute,
/// which is why ticks of a hidden page are not judged.
const LATE_BY_MS: f64 = 20_000.0;

/// Judges the page's periodic ticks by the wall clock (which moves on while a machine
/// sleeps, unlike the monotonic clock on some systems).
#[derive(Debug, Default, Clone)]
pub struct SleepDetector {
    last_tick_ms: Option<f64>,
}

impl SleepDetector {
    /// One tick at wall-clock time `now_ms`; true when the page just woke from a sleep, so
    /// every stream should be checked at once. A `hidden` page's ticks only set the clock.
    pub fn tick(&mut self, now: impl Into<Wall>, hidden: bool) -> bool {
        let now_ms = now.into().ms();
        let previous = self.last_tick_ms.replace(now_ms);
        let Some(previous) = previous else {
            return false;
        };
        !hidden && now_ms - previous > f64::from(WAKE_TICK_MS) + LATE_BY_MS
    }
}

/// When a stream last received anything; how long until it counts as dead.
#[derive(Debug, Clone, Copy)]
pub struct Silence {
    last_heard_ms: f64,
}

impl Silence {
    pub fn since(now: impl Into<Monotonic>) -> Silence {
        let now_ms = now.into().ms();
        Silence {
            last_heard_ms: now_ms,
        }
    }

    pub fn heard(&mut self, now: impl Into<Monotonic>) {
        let now_ms = now.into().ms();
        self.last_heard_ms = now_ms;
    }

    /// None when the stream has been silent for [`IDLE_TIMEOUT_MS`]; else how much longer
    /// it may stay silent.
    pub fn remaining_ms(&self, now: impl Into<Monotonic>) -> Option<u32> {
        let now_ms = now.into().ms();
        let left = f64::from(IDLE_TIMEOUT_MS) - (now_ms - self.last_heard_ms);
        (left > 0.0).then(|| left.ceil() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_tick_of_a_visible_page_means_it_slept() {
        let mut detector = SleepDetector::default();
        assert!(
            !detector.tick(1_000.0, false),
            "the first tick sets the clock"
        );
        assert!(!detector.tick(11_000.0, false), "on time");
        assert!(!detector.tick(22_500.0, false), "a little late");
        assert!(
            detector.tick(22_500.0 + 600_000.0, false),
            "ten minutes later: slept"
        );
        assert!(
            !detector.tick(632_500.0 + 10_000.0, false),
            "back to normal"
        );
    }

    #[test]
    fn hidden_pages_are_not_judged_by_their_throttled_timers() {
        let mut detector = SleepDetector::default();
        detector.tick(0.0, true);
        assert!(
            !detector.tick(60_000.0, true),
            "a hidden tab's timer fires once a minute"
        );
        assert!(
            !detector.tick(70_000.0, false),
            "shown again: judged from the last tick"
        );
    }

    #[test]
    fn silence_counts_from_the_last_thing_heard() {
        let mut silence = Silence::since(0.0);
        assert_eq!(silence.remaining_ms(1_000.0), Some(IDLE_TIMEOUT_MS - 1_000));
        silence.heard(200_000.0);
        assert_eq!(
            silence.remaining_ms(200_000.0 + f64::from(IDLE_TIMEOUT_MS) - 1.0),
            Some(1)
        );
        assert_eq!(
            silence.remaining_ms(200_000.0 + f64::from(IDLE_TIMEOUT_MS)),
            None
        );
    }
}

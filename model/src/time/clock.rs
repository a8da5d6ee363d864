//! The two clocks the dashboard reads, as types so one is never passed for the other.
//!
//! [`Monotonic`] readings measure durations (backoffs, silences, how long a change mark
//! shows); they never go back, never jump when the machine sleeps or the wall clock is set,
//! and mean nothing as dates. [`Wall`] readings say when something happened (timelines,
//! recordings, the mechanics log) and compare with the server's timestamps; they jump.
//!
//! The model's functions take `impl Into<Monotonic>` or `impl Into<Wall>`: the browser side
//! passes typed readings (`browser::monotonic_now`, `browser::wall_now`), so handing one
//! clock's reading to the other's parameter does not compile; tests and simulations pass
//! plain milliseconds.

/// A reading of the page's monotonic clock, in milliseconds (`performance.now()`).
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Monotonic(pub f64);

/// A reading of the wall clock, in milliseconds since the Unix epoch (`Date.now()`).
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Wall(pub f64);

impl Monotonic {
    pub fn ms(self) -> f64 {
        self.0
    }
}

impl Wall {
    pub fn ms(self) -> f64 {
        self.0
    }

    /// Whole milliseconds since the epoch, as ages are computed.
    pub fn epoch_millis(self) -> crate::time::age::EpochMillis {
        self.0 as crate::time::age::EpochMillis
    }
}

/// Plain milliseconds, as tests and simulations give them.
impl From<f64> for Monotonic {
    fn from(ms: f64) -> Monotonic {
        Monotonic(ms)
    }
}

/// Plain milliseconds since the epoch, as tests and recordings give them.
impl From<f64> for Wall {
    fn from(ms: f64) -> Wall {
        Wall(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_keep_their_milliseconds() {
        assert_eq!(Monotonic::from(1.5).ms(), 1.5);
        assert_eq!(
            Wall::from(1_795_000_000_123.9).epoch_millis(),
            1_795_000_000_123
        );
    }
}

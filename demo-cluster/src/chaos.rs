//! Chaos mode (`--chaos SPEC`): the faults a client meets between it and a real kube-apiserver
//! (load balancers cutting watches, a watch cache that lost its history, an overloaded or
//! failing server, a slow network), injected on purpose so clients' recovery can be tested.
//!
//! - [`ChaosSpec`] is the parsed spec (`drop-watch=0.05,expire=0.02,error=0.01,...`).
//! - [`Chaos`] decides, per API request, which faults it gets. Decisions come from the
//!   request's arrival number and the seed only, so the same seed and the same sequence of
//!   requests give the same faults (a failing run can be repeated).
//! - [`inject`] is the middleware on the API routes: latency, then 500 / 429 before the handler
//!   runs (so a faulted write was not applied and retrying it is safe); it hands the request's
//!   [`WatchFaults`] to the watch code, which cuts streams and answers resumes with 410.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::errors::ApiError;
use crate::load::rng::Rng;

/// How long a throttled client is asked to wait (`Retry-After`), as kube-apiserver's
/// max-in-flight and priority-and-fairness filters answer.
pub const RETRY_AFTER_SECONDS: u64 = 1;

const KEYS: &str = "drop-watch, expire, error, throttle, latency";
const EXAMPLE: &str = "drop-watch=0.05,expire=0.02,error=0.01,throttle=0.02,latency=50ms";

/// The faults to inject, as probabilities (0..=1) and an added latency.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChaosSpec {
    /// Probability that a watch stream ends before each event it would send (live, replayed
    /// and bookmark events one by one; a watch's initial state as one unit, cut at a random
    /// point inside it).
    pub drop_watch: f64,
    /// Probability that a watch resuming from a resourceVersion gets 410 Expired.
    pub expire: f64,
    /// Probability that an API request is answered 500 InternalError.
    pub error: f64,
    /// Probability that an API request is answered 429 TooManyRequests with `Retry-After`.
    pub throttle: f64,
    /// Added before every API response.
    pub latency: Duration,
}

impl ChaosSpec {
    /// Whether the spec injects anything at all.
    pub fn is_active(&self) -> bool {
        self.drop_watch > 0.0
            || self.expire > 0.0
            || self.error > 0.0
            || self.throttle > 0.0
            || !self.latency.is_zero()
    }
}

impl FromStr for ChaosSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let mut spec = ChaosSpec::default();
        let mut seen: Vec<&str> = Vec::new();
        // Empty items are skipped, so a trailing comma is harmless.
        for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(format!(
                    "{item:?} needs a value, as in {item}=0.05 (spec {EXAMPLE})"
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            if seen.contains(&key) {
                return Err(format!("{key} is given twice in {text:?}"));
            }
            match key {
                "drop-watch" => spec.drop_watch = probability(key, value)?,
                "expire" => spec.expire = probability(key, value)?,
                "error" => spec.error = probability(key, value)?,
                "throttle" => spec.throttle = probability(key, value)?,
                "latency" => {
                    spec.latency =
                        parse_go_duration(value).map_err(|e| format!("latency={value}: {e}"))?
                }
                _ => return Err(format!("unknown chaos key {key:?}; known keys: {KEYS}")),
            }
            seen.push(key);
        }
        if seen.is_empty() {
            return Err(format!("the chaos spec is empty; e.g. {EXAMPLE}"));
        }
        Ok(spec)
    }
}

fn probability(key: &str, value: &str) -> Result<f64, String> {
    let p: f64 = value
        .parse()
        .map_err(|_| format!("{key}={value}: {value:?} is not a number"))?;
    // Written so NaN fails too.
    if !(0.0..=1.0).contains(&p) {
        return Err(format!(
            "{key}={value}: a probability must be between 0 and 1"
        ));
    }
    Ok(p)
}

/// A Go-style duration (`50ms`, `1s`, `1.5s`, `1m30s`, `250us`; a bare `0` is zero), as
/// kube-apiserver's flags take them.
pub fn parse_go_duration(text: &str) -> Result<Duration, String> {
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() {
        return Err("a duration is needed, e.g. 50ms".into());
    }
    let mut nanos: u128 = 0;
    let mut rest = text;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(number_len);
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let unit_nanos: u128 = match unit {
            "ns" => 1,
            "us" | "µs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "" => return Err(format!("{text:?} needs a unit: ms, s, m, h (or ns, us)")),
            _ => {
                return Err(format!(
                    "unknown unit {unit:?} in {text:?}; use ms, s, m or h"
                ))
            }
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty() && fraction.is_empty() {
            return Err(format!("a number must come before {unit:?} in {text:?}"));
        }
        let digits = |s: &str| -> Result<u128, String> {
            if s.is_empty() {
                return Ok(0);
            }
            s.parse::<u128>()
                .map_err(|_| format!("{number:?} is not a number in {text:?}"))
        };
        // Integer arithmetic, so `50ms` is exactly 50 ms (no float rounding).
        let fraction_digits = fraction.len().min(18) as u32;
        let fraction_value = digits(&fraction[..fraction_digits as usize])?;
        nanos = nanos
            .saturating_add(digits(whole)?.saturating_mul(unit_nanos))
            .saturating_add(fraction_value * unit_nanos / 10u128.pow(fraction_digits));
        rest = after;
    }
    let secs = u64::try_from(nanos / 1_000_000_000).map_err(|_| format!("{text:?} is too long"))?;
    Ok(Duration::new(secs, (nanos % 1_000_000_000) as u32))
}

/// The shortest exact Go-style form: `50ms`, `1s`, `1500ms`, `0s`.
fn format_duration(d: Duration) -> String {
    let nanos = d.as_nanos();
    if nanos.is_multiple_of(1_000_000_000) {
        format!("{}s", nanos / 1_000_000_000)
    } else if nanos.is_multiple_of(1_000_000) {
        format!("{}ms", nanos / 1_000_000)
    } else if nanos.is_multiple_of(1_000) {
        format!("{}us", nanos / 1_000)
    } else {
        format!("{nanos}ns")
    }
}

/// The spec in canonical key order, leaving out keys that inject nothing; it parses back to
/// an equal spec.
impl fmt::Display for ChaosSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items = Vec::new();
        for (key, p) in [
            ("drop-watch", self.drop_watch),
            ("expire", self.expire),
            ("error", self.error),
            ("throttle", self.throttle),
        ] {
            if p > 0.0 {
                items.push(format!("{key}={p}"));
            }
        }
        if !self.latency.is_zero() {
            items.push(format!("latency={}", format_duration(self.latency)));
        }
        if items.is_empty() {
            // Still a valid spec, meaning "nothing".
            items.push("error=0".into());
        }
        f.write_str(&items.join(","))
    }
}

/// A request answered by chaos instead of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// 500 InternalError.
    Error,
    /// 429 TooManyRequests with `Retry-After`.
    Throttle,
}

/// What one API request gets.
#[derive(Debug, Clone)]
pub struct RequestDraw {
    /// The request's arrival number (0 for the first API request).
    pub index: u64,
    pub fault: Option<Fault>,
    /// What a watch served by this request meets (ignored by other requests).
    pub watch: WatchFaults,
}

/// The faults of one watch stream; travels to the watch code in the request's extensions.
#[derive(Debug, Clone)]
pub struct WatchFaults {
    /// Answer with 410 Expired instead of resuming (only for watches given a
    /// resourceVersion; the watch code clears it for the others).
    pub expire: bool,
    drop_watch: f64,
    /// This stream's own generator, so its cuts do not depend on other streams' timing.
    rng: Rng,
}

impl WatchFaults {
    /// Whether the stream ends before the next event (one draw per event).
    pub fn cut(&mut self) -> bool {
        self.drop_watch > 0.0 && unit(&mut self.rng) < self.drop_watch
    }

    /// For a watch's initial state of `len` objects, sent as one unit: `Some(i)` when the
    /// stream is cut before object `i`.
    pub fn cut_initial(&mut self, len: usize) -> Option<usize> {
        if len == 0 || !self.cut() {
            return None;
        }
        Some(self.rng.below(len))
    }
}

/// A number in `0.0..1.0`, so `p = 0` never and `p = 1` always fires.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// SplitMix64's increment: request `n`'s seed is the `n`-th output of a generator seeded
/// with the run's seed, computed directly.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
/// Keeps the chaos stream apart from load mode's, which uses the same `--seed`.
const SALT: u64 = 0x6368_616f_735f_6d64;

/// The decision source of a running server.
#[derive(Debug)]
pub struct Chaos {
    spec: ChaosSpec,
    seed: u64,
    requests: AtomicU64,
}

impl Chaos {
    pub fn new(spec: ChaosSpec, seed: u64) -> Self {
        Chaos {
            spec,
            seed,
            requests: AtomicU64::new(0),
        }
    }

    pub fn spec(&self) -> &ChaosSpec {
        &self.spec
    }

    /// The faults of the next API request.
    pub fn next_request(&self) -> RequestDraw {
        self.draw(self.requests.fetch_add(1, Ordering::Relaxed))
    }

    /// The faults of the request that arrives `index`-th: a pure function of the seed, the
    /// spec and `index`.
    pub fn draw(&self, index: u64) -> RequestDraw {
        let request_seed =
            Rng::new((self.seed ^ SALT).wrapping_add(index.wrapping_mul(GAMMA))).next_u64();
        let mut rng = Rng::new(request_seed);
        // One draw splits error and throttle, so each gets exactly its probability (when
        // they add up to more than 1, throttle gets what error leaves).
        let u = unit(&mut rng);
        let fault = if u < self.spec.error {
            Some(Fault::Error)
        } else if u < self.spec.error + self.spec.throttle {
            Some(Fault::Throttle)
        } else {
            None
        };
        let expire = unit(&mut rng) < self.spec.expire;
        RequestDraw {
            index,
            fault,
            watch: WatchFaults {
                expire,
                drop_watch: self.spec.drop_watch,
                rng: Rng::new(rng.next_u64()),
            },
        }
    }
}

/// The Status of an injected 500, as apimachinery's `NewInternalError` builds it.
pub fn internal_error(index: u64) -> ApiError {
    let cause = format!("injected by --chaos (request {index})");
    let mut e = ApiError::internal(&cause);
    e.details = Some(Box::new(json!({"causes": [{"message": cause}]})));
    e
}

/// Middleware on the API routes (not on static files or health checks).
pub async fn inject(State(chaos): State<Arc<Chaos>>, mut req: Request, next: Next) -> Response {
    let draw = chaos.next_request();
    if !chaos.spec.latency.is_zero() {
        tokio::time::sleep(chaos.spec.latency).await;
    }
    // Answered here, before the handler: a faulted write never reaches the store.
    let answer = match draw.fault {
        Some(Fault::Error) => Some(internal_error(draw.index)),
        Some(Fault::Throttle) => Some(ApiError::too_many_requests(
            "Too many requests, please try again later.",
            RETRY_AFTER_SECONDS,
        )),
        None => None,
    };
    if let Some(e) = answer {
        tracing::debug!(
            "chaos: request {} {} {} answered {}",
            draw.index,
            req.method(),
            req.uri(),
            e.code
        );
        return e.into_response();
    }
    req.extensions_mut().insert(draw.watch);
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> ChaosSpec {
        text.parse().expect("valid spec")
    }

    #[test]
    fn parses_the_documented_example_and_prints_it_back() {
        let s = spec("drop-watch=0.05,expire=0.02,error=0.01,throttle=0.02,latency=50ms");
        assert_eq!(s.drop_watch, 0.05);
        assert_eq!(s.expire, 0.02);
        assert_eq!(s.error, 0.01);
        assert_eq!(s.throttle, 0.02);
        assert_eq!(s.latency, Duration::from_millis(50));
        assert_eq!(
            s.to_string(),
            "drop-watch=0.05,expire=0.02,error=0.01,throttle=0.02,latency=50ms"
        );
        assert_eq!(spec(&s.to_string()), s);
        // Order, spaces and a trailing comma do not matter; zero keys are left out.
        let t = spec(" latency=1s , error=1,drop-watch=0,");
        assert_eq!(t.to_string(), "error=1,latency=1s");
        assert_eq!(spec("error=0").to_string(), "error=0");
        assert!(!spec("error=0,latency=0").is_active());
        assert!(spec("latency=1ms").is_active());
    }

    #[test]
    fn latencies_read_as_go_durations() {
        let d = |t: &str| parse_go_duration(t);
        assert_eq!(d("50ms"), Ok(Duration::from_millis(50)));
        assert_eq!(d("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(d("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(d("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(d("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(d("0"), Ok(Duration::ZERO));
        assert_eq!(d("0.1ms"), Ok(Duration::from_micros(100)));
        for bad in ["", "50", "5d", "ms", ".s", "1.2.3s", "-1s"] {
            assert!(d(bad).is_err(), "{bad:?} should be refused");
        }
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(format_duration(Duration::from_micros(250)), "250us");
        assert_eq!(format_duration(Duration::ZERO), "0s");
        assert_eq!(
            spec("latency=1.5s").to_string(),
            "latency=1500ms",
            "printed exactly, parses back"
        );
    }

    #[test]
    fn errors_name_the_problem() {
        let err = |t: &str| t.parse::<ChaosSpec>().expect_err(t);
        assert!(err("drop=0.1").contains("unknown chaos key \"drop\""));
        assert!(err("drop=0.1").contains("drop-watch, expire, error, throttle, latency"));
        assert!(err("error=abc").contains("\"abc\" is not a number"));
        assert!(err("error=1.5").contains("between 0 and 1"));
        assert!(err("throttle=-0.1").contains("between 0 and 1"));
        assert!(err("expire=NaN").contains("between 0 and 1"));
        assert!(err("error").contains("needs a value"));
        assert!(err("error=0.1,error=0.2").contains("given twice"));
        assert!(err("latency=50").contains("needs a unit"));
        assert!(err("latency=5d").contains("unknown unit"));
        assert!(err("").contains("empty"));
        assert!(err(" , ").contains("empty"));
    }

    /// One request's fate: fault, expire, and the first cuts of its watch.
    type Fate = (Option<Fault>, bool, Vec<bool>);

    /// What the first `n` requests get.
    fn sequence(chaos: &Chaos, n: u64) -> Vec<Fate> {
        (0..n)
            .map(|_| {
                let mut d = chaos.next_request();
                let cuts = (0..8).map(|_| d.watch.cut()).collect();
                (d.fault, d.watch.expire, cuts)
            })
            .collect()
    }

    #[test]
    fn same_seed_same_faults_and_rates_match_the_spec() {
        let s = spec("drop-watch=0.2,expire=0.1,error=0.05,throttle=0.05");
        let a = sequence(&Chaos::new(s.clone(), 7), 4000);
        let b = sequence(&Chaos::new(s.clone(), 7), 4000);
        assert_eq!(a, b, "same seed, same sequence of faults");
        let c = sequence(&Chaos::new(s.clone(), 8), 4000);
        assert_ne!(a, c, "another seed, other faults");
        // A request's faults depend on its number only, not on who drew before.
        let chaos = Chaos::new(s, 7);
        assert_eq!(chaos.draw(123).fault, a[123].0);
        assert_eq!(chaos.draw(123).watch.expire, a[123].1);

        let rate = |hit: &dyn Fn(&Fate) -> bool| {
            a.iter().filter(|r| hit(r)).count() as f64 / a.len() as f64
        };
        let near = |got: f64, want: f64| (got - want).abs() < 0.02;
        assert!(near(rate(&|r| r.0 == Some(Fault::Error)), 0.05));
        assert!(near(rate(&|r| r.0 == Some(Fault::Throttle)), 0.05));
        assert!(near(rate(&|r| r.1), 0.1));
        assert!(near(rate(&|r| r.2[0]), 0.2));
    }

    #[test]
    fn certain_and_impossible_faults() {
        let always = Chaos::new(spec("error=1,expire=1,drop-watch=1"), 1);
        let never = Chaos::new(spec("throttle=0,latency=10ms"), 1);
        for _ in 0..1000 {
            let mut d = always.next_request();
            assert_eq!(d.fault, Some(Fault::Error));
            assert!(d.watch.expire && d.watch.cut());
            assert!(d.watch.cut_initial(5).is_some_and(|i| i < 5));
            let mut d = never.next_request();
            assert_eq!(d.fault, None);
            assert!(!d.watch.expire && !d.watch.cut());
            assert_eq!(d.watch.cut_initial(5), None);
        }
        // error takes precedence; throttle gets the rest.
        let both = Chaos::new(spec("error=0.5,throttle=1"), 3);
        assert!((0..200).all(|i| both.draw(i).fault.is_some()));
    }

    #[test]
    fn injected_errors_are_kubernetes_statuses() {
        let s = internal_error(4).to_status();
        assert_eq!(s["code"], 500);
        assert_eq!(s["reason"], "InternalError");
        assert_eq!(
            s["message"],
            "Internal error occurred: injected by --chaos (request 4)"
        );
        let t = ApiError::too_many_requests("Too many requests, please try again later.", 1)
            .to_status();
        assert_eq!(t["code"], 429);
        assert_eq!(t["reason"], "TooManyRequests");
        assert_eq!(t["details"]["retryAfterSeconds"], 1);
    }
}

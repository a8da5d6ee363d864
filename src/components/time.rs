//! Times as the views write them: the clock of a moment (`10:04:05.123`, or to the second,
//! as the cluster keeps them), with its age, and a reconstructed entry's time. Shared by the
//! timelines, the activity view, the rollout history, stream status and the replay.

use crate::model::history::PastTime;
use crate::model::time::age::human_duration;
use crate::state::clock::epoch_now;

/// `10:04:05.123`, local time.
pub fn clock_time(epoch_ms: f64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(epoch_ms));
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds(),
        date.get_milliseconds()
    )
}

/// `10:04:05`, local time: the times the cluster keeps are written to the second.
pub fn clock_second(epoch_ms: f64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(epoch_ms));
    format!(
        "{:02}:{:02}:{:02}",
        date.get_hours(),
        date.get_minutes(),
        date.get_seconds()
    )
}

/// `10:04:05 (3m20s ago)`.
pub fn clock_and_age(epoch_ms: i64) -> String {
    format!(
        "{} ({} ago)",
        clock_second(epoch_ms as f64),
        human_duration(epoch_now() - epoch_ms)
    )
}

/// A reconstructed entry's time: a moment, an Event's first and last time, or none.
pub fn past_time_text(time: &PastTime) -> String {
    match time {
        PastTime::At(at) => clock_and_age(*at),
        PastTime::Span { first, last, count } => format!(
            "{} – {} ({count} times)",
            clock_second(*first as f64),
            clock_and_age(*last)
        ),
        PastTime::Unknown => "time not recorded".into(),
    }
}

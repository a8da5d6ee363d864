//! Time as the model reads it: the two clocks, typed apart ([`clock`]), Kubernetes timestamps
//! and kubectl's ages ([`age`]), and recomputes paced by their own cost ([`pacing`]).

pub mod age;
pub mod clock;
pub mod pacing;

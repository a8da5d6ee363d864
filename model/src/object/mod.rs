//! One object and what is shown of it: its metadata read leniently ([`meta`]), who owns it
//! ([`owners`]), its page ([`page`]), its YAML ([`yaml`]), fields found by JSON pointer
//! ([`pointer`](mod@pointer)), cluster text shown as what it is ([`visible_text`]), the Event objects
//! reported about it ([`events`]), a pod's logs ([`pod_logs`]), a workload's logs, all its
//! pods' merged by time ([`workload_logs`]), and a terminal in a pod ([`terminal`]: exec and
//! attach over a WebSocket, debug containers).

pub mod events;
pub mod meta;
pub mod owners;
pub mod page;
pub mod pod_logs;
pub mod pointer;
pub mod terminal;
pub mod visible_text;
pub mod workload_logs;
pub mod yaml;

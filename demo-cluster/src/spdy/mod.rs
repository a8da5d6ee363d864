//! SPDY/3.1 framing, as much as kubectl's port forwarding speaks (client-go's `spdystream`):
//! SYN_STREAM, SYN_REPLY, DATA, RST_STREAM, PING, GOAWAY, WINDOW_UPDATE, SETTINGS and
//! HEADERS, with header blocks compressed by one zlib stream per direction primed with SPDY's
//! dictionary (`dictionary.bin`, the 1,423 bytes of the SPDY/3 specification, adler32
//! `e3c6a7c2`). No maintained Rust crate speaks SPDY, so this is a small one of its own.
//!
//! Flow control is not enforced: `spdystream` neither sends nor waits for WINDOW_UPDATE, and
//! what the demo's containers write is far below the initial 64 KiB window.

pub mod conn;
pub mod frame;
pub mod headers;

pub use frame::{Frame, FrameReader};
pub use headers::{HeaderDeflater, HeaderInflater};

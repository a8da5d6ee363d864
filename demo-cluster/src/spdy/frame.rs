//! SPDY/3.1 frames: read from a byte stream as they arrive, written whole.
//!
//! A control frame is `1 | version(15) | type(16) | flags(8) | length(24)` then its data; a
//! data frame is `0 | stream id(31) | flags(8) | length(24)` then its bytes.

use super::headers::{HeaderDeflater, HeaderInflater, Headers};

const VERSION: u16 = 3;
const FLAG_FIN: u8 = 0x01;
/// Larger frames end the connection (SPDY's own limit is 16 MiB; kubectl writes 32 KiB).
const MAX_FRAME_BYTES: usize = 1 << 20;

const SYN_STREAM: u16 = 1;
const SYN_REPLY: u16 = 2;
const RST_STREAM: u16 = 3;
const PING: u16 = 6;
const GOAWAY: u16 = 7;

/// RST_STREAM's status for a stream the receiver refuses.
pub const REFUSED_STREAM: u32 = 3;

/// A frame from the peer, as far as the server acts on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    SynStream {
        stream_id: u32,
        fin: bool,
        headers: Headers,
    },
    Data {
        stream_id: u32,
        fin: bool,
        bytes: Vec<u8>,
    },
    RstStream {
        stream_id: u32,
    },
    Ping {
        id: u32,
    },
    GoAway,
    /// SETTINGS, WINDOW_UPDATE, HEADERS, SYN_REPLY and unknown types: read past.
    Other,
}

/// Reads frames out of the bytes received so far.
#[derive(Default)]
pub struct FrameReader {
    received: Vec<u8>,
    inflater: HeaderInflater,
}

impl FrameReader {
    pub fn push(&mut self, bytes: &[u8]) {
        self.received.extend_from_slice(bytes);
    }

    /// The next whole frame, None until one has arrived, or why the stream is not SPDY/3.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, String> {
        let Some(head) = self.received.first_chunk::<8>().copied() else {
            return Ok(None);
        };
        let length = usize::from(head[5]) << 16 | usize::from(head[6]) << 8 | usize::from(head[7]);
        if length > MAX_FRAME_BYTES {
            return Err(format!("a frame of {length} bytes"));
        }
        let Some(body) = self.received.get(8..8 + length) else {
            return Ok(None);
        };
        let body = body.to_vec();
        self.received.drain(..8 + length);
        let flags = head[4];
        let fin = flags & FLAG_FIN != 0;
        let word = |bytes: &[u8], at: usize| {
            bytes
                .get(at..at + 4)
                .and_then(|b| b.first_chunk::<4>())
                .map(|b| u32::from_be_bytes(*b) & 0x7fff_ffff)
                .ok_or_else(|| "a control frame cut short".to_string())
        };
        if head[0] & 0x80 == 0 {
            return Ok(Some(Frame::Data {
                stream_id: word(&head, 0)?,
                fin,
                bytes: body,
            }));
        }
        let version = u16::from_be_bytes([head[0] & 0x7f, head[1]]);
        if version != VERSION {
            return Err(format!("SPDY version {version}, not 3"));
        }
        let frame = match u16::from_be_bytes([head[2], head[3]]) {
            SYN_STREAM => Frame::SynStream {
                stream_id: word(&body, 0)?,
                fin,
                headers: self.inflater.inflate(body.get(10..).unwrap_or_default())?,
            },
            // Their header blocks are inflated all the same: the zlib stream is shared.
            SYN_REPLY | 8 => {
                self.inflater.inflate(body.get(4..).unwrap_or_default())?;
                Frame::Other
            }
            RST_STREAM => Frame::RstStream {
                stream_id: word(&body, 0)?,
            },
            PING => Frame::Ping {
                id: word(&body, 0)
                    .map(|_| u32::from_be_bytes([body[0], body[1], body[2], body[3]]))?,
            },
            GOAWAY => Frame::GoAway,
            _ => Frame::Other,
        };
        Ok(Some(frame))
    }
}

fn control(kind: u16, flags: u8, body: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(8 + body.len());
    frame.extend_from_slice(&(0x8000 | VERSION).to_be_bytes());
    frame.extend_from_slice(&kind.to_be_bytes());
    frame.push(flags);
    frame.extend_from_slice(&length_bytes(body.len()));
    frame.extend_from_slice(body);
    frame
}

fn length_bytes(length: usize) -> [u8; 3] {
    let bytes = u32::try_from(length).unwrap_or(u32::MAX).to_be_bytes();
    [bytes[1], bytes[2], bytes[3]]
}

/// A SYN_STREAM opening `stream_id` (the client's side: kubectl's streams, and tests).
pub fn syn_stream(
    deflater: &mut HeaderDeflater,
    stream_id: u32,
    fin: bool,
    headers: &[(&str, &str)],
) -> Vec<u8> {
    let mut body = stream_id.to_be_bytes().to_vec();
    // No associated stream, priority 0, no slot.
    body.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    body.extend(deflater.deflate(headers));
    control(SYN_STREAM, if fin { FLAG_FIN } else { 0 }, &body)
}

pub fn syn_reply(
    deflater: &mut HeaderDeflater,
    stream_id: u32,
    headers: &[(&str, &str)],
) -> Vec<u8> {
    let mut body = stream_id.to_be_bytes().to_vec();
    body.extend(deflater.deflate(headers));
    control(SYN_REPLY, 0, &body)
}

/// DATA frames for `bytes` (split at the frame size limit), the last with FIN if `fin`.
pub fn data(stream_id: u32, bytes: &[u8], fin: bool) -> Vec<u8> {
    let mut frames = vec![];
    let mut chunks: Vec<&[u8]> = bytes.chunks(MAX_FRAME_BYTES).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    let last = chunks.len() - 1;
    for (i, chunk) in chunks.into_iter().enumerate() {
        frames.extend_from_slice(&(stream_id & 0x7fff_ffff).to_be_bytes());
        frames.push(if fin && i == last { FLAG_FIN } else { 0 });
        frames.extend_from_slice(&length_bytes(chunk.len()));
        frames.extend_from_slice(chunk);
    }
    frames
}

pub fn ping(id: u32) -> Vec<u8> {
    control(PING, 0, &id.to_be_bytes())
}

pub fn rst_stream(stream_id: u32, status: u32) -> Vec<u8> {
    let mut body = stream_id.to_be_bytes().to_vec();
    body.extend_from_slice(&status.to_be_bytes());
    control(RST_STREAM, 0, &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_as_they_complete() {
        let mut reader = FrameReader::default();
        let mut wire = data(3, b"hello", true);
        wire.extend(ping(7));
        let (first, rest) = wire.split_at(6);
        reader.push(first);
        assert_eq!(reader.next_frame(), Ok(None));
        reader.push(rest);
        assert_eq!(
            reader.next_frame(),
            Ok(Some(Frame::Data {
                stream_id: 3,
                fin: true,
                bytes: b"hello".to_vec()
            }))
        );
        assert_eq!(reader.next_frame(), Ok(Some(Frame::Ping { id: 7 })));
        assert_eq!(reader.next_frame(), Ok(None));
    }

    #[test]
    fn a_syn_stream_carries_its_headers() {
        let mut deflater = HeaderDeflater::default();
        let mut body = 5u32.to_be_bytes().to_vec();
        body.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
        body.extend(deflater.deflate(&[("streamtype", "error"), ("port", "80")]));
        let mut reader = FrameReader::default();
        reader.push(&control(SYN_STREAM, FLAG_FIN, &body));
        let Ok(Some(Frame::SynStream {
            stream_id,
            fin,
            headers,
        })) = reader.next_frame()
        else {
            panic!("a SYN_STREAM");
        };
        assert_eq!((stream_id, fin), (5, true));
        assert_eq!(headers[0], ("streamtype".into(), "error".into()));
    }

    #[test]
    fn another_version_is_refused() {
        let mut reader = FrameReader::default();
        reader.push(&[0x80, 2, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1]);
        assert!(reader.next_frame().is_err());
    }
}

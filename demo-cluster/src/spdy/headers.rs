//! SPDY/3 header blocks: a count, then length-prefixed names and values, compressed by one
//! zlib stream per direction of the connection (each block ends with a sync flush).
//!
//! The peer's stream starts with a zlib header naming SPDY's dictionary (FDICT): the
//! decompressor is primed with the dictionary as a stored deflate block whose output is
//! thrown away, so back-references reach into it as zlib's preset dictionary would; this
//! works with flate2's pure-Rust backend, which has no `set_dictionary`. Our own stream needs
//! no dictionary (a zlib reader uses one only when the stream's header asks for it).

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress};

/// SPDY/3's zlib dictionary.
pub const DICTIONARY: &[u8] = include_bytes!("dictionary.bin");

/// Header names and values, names in lower case as SPDY/3 requires.
pub type Headers = Vec<(String, String)>;

/// The decompressor of the peer's header blocks.
pub struct HeaderInflater {
    raw: Decompress,
    /// Whether the stream's zlib header (and dictionary id) has been read.
    started: bool,
}

impl Default for HeaderInflater {
    fn default() -> Self {
        HeaderInflater {
            raw: Decompress::new(false),
            started: false,
        }
    }
}

impl HeaderInflater {
    /// Decompresses and parses one header block.
    pub fn inflate(&mut self, block: &[u8]) -> Result<Headers, String> {
        let mut input = block;
        if !self.started {
            let [cmf, flags, ..] = *block else {
                return Err("a header block shorter than zlib's header".into());
            };
            if cmf & 0x0f != 8 || (u16::from(cmf) << 8 | u16::from(flags)) % 31 != 0 {
                return Err("a header block that does not start a zlib stream".into());
            }
            let with_dictionary = flags & 0x20 != 0;
            input = block
                .get(if with_dictionary { 6 } else { 2 }..)
                .ok_or("a header block shorter than zlib's header")?;
            if with_dictionary {
                self.prime()?;
            }
            self.started = true;
        }
        let mut out = Vec::with_capacity(input.len() * 4 + 64);
        loop {
            let before = self.raw.total_in();
            self.raw
                .decompress_vec(input, &mut out, FlushDecompress::Sync)
                .map_err(|e| format!("a header block that does not inflate: {e}"))?;
            let consumed = usize::try_from(self.raw.total_in() - before).unwrap_or(input.len());
            input = input.get(consumed..).unwrap_or_default();
            if input.is_empty() && out.len() < out.capacity() {
                break;
            }
            if out.len() > 1 << 20 {
                return Err("a header block over 1 MiB".into());
            }
            out.reserve(out.capacity().max(256));
        }
        parse(&out)
    }

    /// Feeds the dictionary as a stored (uncompressed) block and drops what comes out.
    fn prime(&mut self) -> Result<(), String> {
        let length = u16::try_from(DICTIONARY.len()).map_err(|e| e.to_string())?;
        let mut stored = vec![0u8];
        stored.extend_from_slice(&length.to_le_bytes());
        stored.extend_from_slice(&(!length).to_le_bytes());
        stored.extend_from_slice(DICTIONARY);
        let mut sink = Vec::with_capacity(DICTIONARY.len() + 16);
        self.raw
            .decompress_vec(&stored, &mut sink, FlushDecompress::Sync)
            .map_err(|e| format!("priming the header dictionary: {e}"))?;
        Ok(())
    }
}

fn parse(block: &[u8]) -> Result<Headers, String> {
    let mut rest = block;
    let take_u32 = |rest: &mut &[u8]| -> Result<usize, String> {
        let (number, tail) = rest
            .split_first_chunk::<4>()
            .ok_or("a header block cut short")?;
        *rest = tail;
        usize::try_from(u32::from_be_bytes(*number)).map_err(|e| e.to_string())
    };
    let count = take_u32(&mut rest)?;
    let mut headers = vec![];
    for _ in 0..count {
        let text = |rest: &mut &[u8]| -> Result<String, String> {
            let length = take_u32(rest)?;
            let bytes = rest.get(..length).ok_or("a header block cut short")?;
            *rest = &rest[length..];
            Ok(String::from_utf8_lossy(bytes).into_owned())
        };
        let name = text(&mut rest)?;
        let value = text(&mut rest)?;
        headers.push((name.to_ascii_lowercase(), value));
    }
    Ok(headers)
}

/// The compressor of our header blocks.
pub struct HeaderDeflater {
    zlib: Compress,
}

impl Default for HeaderDeflater {
    fn default() -> Self {
        HeaderDeflater {
            zlib: Compress::new(Compression::default(), true),
        }
    }
}

impl HeaderDeflater {
    pub fn deflate(&mut self, headers: &[(&str, &str)]) -> Vec<u8> {
        let mut block = vec![];
        block.extend_from_slice(&u32::try_from(headers.len()).unwrap_or(0).to_be_bytes());
        for (name, value) in headers {
            for text in [name.as_bytes(), value.as_bytes()] {
                block.extend_from_slice(&u32::try_from(text.len()).unwrap_or(0).to_be_bytes());
                block.extend_from_slice(text);
            }
        }
        let mut out = Vec::with_capacity(block.len() + 64);
        let mut input = block.as_slice();
        loop {
            let before = self.zlib.total_in();
            // Compressing into a Vec with room to spare cannot fail.
            let _ = self.zlib.compress_vec(input, &mut out, FlushCompress::Sync);
            let consumed = usize::try_from(self.zlib.total_in() - before).unwrap_or(input.len());
            input = input.get(consumed..).unwrap_or_default();
            if input.is_empty() && out.len() < out.capacity() {
                return out;
            }
            out.reserve(out.capacity().max(64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dictionary_is_spdy_3s() {
        // zlib's adler32 of the dictionary: the id a SPDY/3 peer's stream names.
        let (mut a, mut b) = (1u32, 0u32);
        for byte in DICTIONARY {
            a = (a + u32::from(*byte)) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!((b << 16) | a, 0xe3c6_a7c2);
    }

    #[test]
    fn blocks_round_trip_through_one_stream() {
        // (A peer's stream naming the dictionary is exercised by kubectl, in
        // tests/portforward_kubectl.rs.)
        let mut deflater = HeaderDeflater::default();
        let ours = deflater.deflate(&[("streamtype", "data"), ("port", "80")]);
        let mut inflater = HeaderInflater::default();
        assert_eq!(
            inflater.inflate(&ours).expect("inflates"),
            [
                ("streamtype".to_string(), "data".to_string()),
                ("port".to_string(), "80".to_string())
            ]
        );
        let again = deflater.deflate(&[("requestid", "1")]);
        assert_eq!(
            inflater.inflate(&again).expect("inflates"),
            [("requestid".to_string(), "1".to_string())]
        );
    }
}

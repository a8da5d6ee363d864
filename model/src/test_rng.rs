//! A small deterministic random source for the model's randomized tests (xorshift64), so a
//! failure always replays the same way.

pub(crate) struct TestRng(u64);

impl TestRng {
    pub(crate) fn new(seed: u64) -> TestRng {
        // Xorshift never leaves zero.
        TestRng(seed.max(1))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..bound` (`bound` > 0).
    pub(crate) fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }

    /// Up to `max_pieces - 1` pieces, each picked at random, joined.
    pub(crate) fn text(&mut self, pieces: &[&str], max_pieces: usize) -> String {
        let count = self.below(max_pieces);
        (0..count)
            .map(|_| pieces[self.below(pieces.len())])
            .collect()
    }
}

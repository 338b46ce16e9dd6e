//! Delivery of messages to the receiving application (RFC 9260 §6.5, §6.6, §6.9).
//!
//! A message is delivered once all its fragments are held (the B…E run of chunks
//! with consecutive TSNs, §6.9). An ordered message also waits for every earlier
//! message of its stream: stream sequence numbers are per stream, so head-of-line
//! blocking stays within the stream (§6.5). An unordered message (U bit) is delivered
//! as soon as it is complete (§6.6). The application reads at once, so delivered
//! bytes leave the receive buffer immediately; `held_bytes` is what waits.

use std::collections::VecDeque;

use super::chunk::DataChunk;

#[derive(Clone, Debug)]
pub struct Reassembly {
    /// Next stream sequence number to deliver, per stream.
    next_ssn: Vec<u32>,
    /// Chunks received but not delivered, sorted by TSN (a deque: filling a hole
    /// delivers from the front).
    held: VecDeque<DataChunk>,
    held_bytes: u64,
}

impl Reassembly {
    pub fn new(streams: u16) -> Self {
        Reassembly {
            next_ssn: vec![0; streams.max(1) as usize],
            held: VecDeque::new(),
            held_bytes: 0,
        }
    }

    /// User bytes received but not yet delivered.
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    /// A new (not duplicate) chunk; returns the user bytes it lets the application read.
    pub fn on_chunk(&mut self, chunk: DataChunk) -> u64 {
        let s = chunk.stream as usize;
        if s >= self.next_ssn.len() {
            self.next_ssn.resize(s + 1, 0);
        }
        let whole = chunk.begin && chunk.end;
        if whole && chunk.unordered {
            return chunk.len as u64;
        }
        if whole && chunk.ssn == self.next_ssn[s] {
            self.next_ssn[s] += 1;
            return chunk.len as u64 + self.deliver_stream(chunk.stream);
        }
        let i = self.held.partition_point(|c| c.tsn < chunk.tsn);
        self.held.insert(i, chunk);
        self.held_bytes += chunk.len as u64;
        let Some((first, last)) = self.message_around(i) else {
            return 0;
        };
        if chunk.unordered {
            return self.take(first, last);
        }
        if chunk.ssn != self.next_ssn[s] {
            return 0;
        }
        self.next_ssn[s] += 1;
        self.take(first, last) + self.deliver_stream(chunk.stream)
    }

    /// Delivers the complete messages of `stream` that are now next in order.
    fn deliver_stream(&mut self, stream: u16) -> u64 {
        let mut delivered = 0;
        while !self.held.is_empty() {
            let next = self.next_ssn[stream as usize];
            let start = self
                .held
                .iter()
                .position(|c| c.stream == stream && !c.unordered && c.ssn == next && c.begin);
            let Some(range) = start.and_then(|i| self.message_around(i)) else {
                break;
            };
            self.next_ssn[stream as usize] += 1;
            delivered += self.take(range.0, range.1);
        }
        delivered
    }

    /// The complete message containing held chunk `i`, as a range of indices.
    fn message_around(&self, i: usize) -> Option<(usize, usize)> {
        let same = |a: &DataChunk, b: &DataChunk| {
            a.stream == b.stream && a.ssn == b.ssn && a.unordered == b.unordered
        };
        let mut first = i;
        while !self.held[first].begin {
            let prev = first.checked_sub(1)?;
            let (p, c) = (&self.held[prev], &self.held[first]);
            if p.tsn + 1 != c.tsn || !same(p, c) {
                return None;
            }
            first = prev;
        }
        let mut last = i;
        while !self.held[last].end {
            let (c, n) = (&self.held[last], self.held.get(last + 1)?);
            if c.tsn + 1 != n.tsn || !same(c, n) {
                return None;
            }
            last += 1;
        }
        Some((first, last))
    }

    fn take(&mut self, first: usize, last: usize) -> u64 {
        let bytes: u64 = self.held.drain(first..=last).map(|c| c.len as u64).sum();
        self.held_bytes -= bytes;
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(tsn: u64, stream: u16, ssn: u32, begin: bool, end: bool) -> DataChunk {
        DataChunk {
            tsn,
            stream,
            ssn,
            len: 100,
            unordered: false,
            begin,
            end,
            copy: 0,
        }
    }

    fn whole(tsn: u64, stream: u16, ssn: u32) -> DataChunk {
        chunk(tsn, stream, ssn, true, true)
    }

    #[test]
    fn in_order_messages_are_delivered_at_once() {
        let mut r = Reassembly::new(1);
        assert_eq!(r.on_chunk(whole(1, 0, 0)), 100);
        assert_eq!(r.on_chunk(whole(2, 0, 1)), 100);
        assert_eq!(r.held_bytes(), 0);
    }

    #[test]
    fn head_of_line_blocking_stays_within_a_stream() {
        // TSN 1 (stream 0, ssn 0) is late. TSN 2 (stream 1) is delivered; TSN 3
        // (stream 0, ssn 1) waits for TSN 1, which then releases both.
        let mut r = Reassembly::new(2);
        assert_eq!(r.on_chunk(whole(2, 1, 0)), 100);
        assert_eq!(r.on_chunk(whole(3, 0, 1)), 0);
        assert_eq!(r.held_bytes(), 100);
        assert_eq!(r.on_chunk(whole(1, 0, 0)), 200);
        assert_eq!(r.held_bytes(), 0);
    }

    #[test]
    fn unordered_messages_skip_the_queue() {
        let mut r = Reassembly::new(1);
        let mut u = whole(5, 0, 0);
        u.unordered = true;
        assert_eq!(r.on_chunk(whole(4, 0, 1)), 0); // ordered ssn 1 waits for ssn 0
        assert_eq!(r.on_chunk(u), 100);
    }

    #[test]
    fn fragments_are_delivered_when_the_message_is_complete() {
        // A message in TSNs 1-3 (B, middle, E) arriving 3, 1, 2.
        let mut r = Reassembly::new(1);
        assert_eq!(r.on_chunk(chunk(3, 0, 0, false, true)), 0);
        assert_eq!(r.on_chunk(chunk(1, 0, 0, true, false)), 0);
        assert_eq!(r.held_bytes(), 200);
        assert_eq!(r.on_chunk(chunk(2, 0, 0, false, false)), 300);
        // The next message (ssn 1, TSNs 4-5) completes later.
        assert_eq!(r.on_chunk(chunk(4, 0, 1, true, false)), 0);
        assert_eq!(r.on_chunk(chunk(5, 0, 1, false, true)), 200);
        assert_eq!(r.held_bytes(), 0);
    }
}

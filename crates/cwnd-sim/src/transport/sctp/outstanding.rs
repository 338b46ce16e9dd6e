//! The sender's retransmission queue: every DATA chunk sent and not yet covered by
//! the cumulative TSN ack, indexed by TSN (TSNs are consecutive, so a deque from the
//! lowest one gives O(1) lookup).

use std::collections::VecDeque;

use super::chunk::DataChunk;
use crate::time::SimTime;

/// Why a chunk waits for retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    FastRetransmit,
    Timeout,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkState {
    /// Sent and counted in its path's flight size.
    InFlight,
    /// Acknowledged by a gap ack block (no reneging is modelled: final).
    GapAcked,
    /// Marked for retransmission; not in flight.
    Marked(Reason),
}

/// Index of a retransmission event (fast retransmit or timeout) in the sender's list.
pub type EventId = u32;

#[derive(Clone, Copy, Debug)]
pub struct SentChunk {
    /// The chunk as last sent (`copy` counts its transmissions).
    pub chunk: DataChunk,
    /// Path of the latest transmission.
    pub path: u8,
    pub sent: SimTime,
    pub state: ChunkState,
    /// Miss indications so far (the paper's crf).
    pub misses: u32,
    /// Fast retransmitted already: not again (RFC 9260 §7.2.4 step 5).
    pub fast_retransmitted: bool,
    /// The retransmission event that marked it last.
    pub event: Option<EventId>,
}

impl SentChunk {
    /// Bytes the chunk counts in windows (see `cc`).
    pub fn size(&self) -> u64 {
        self.chunk.wire_size() as u64
    }
}

#[derive(Clone, Debug, Default)]
pub struct Outstanding {
    /// TSN of `chunks[0]`.
    base: u64,
    chunks: VecDeque<SentChunk>,
}

impl Outstanding {
    pub fn new(first_tsn: u64) -> Self {
        Outstanding {
            base: first_tsn,
            chunks: VecDeque::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Appends a newly sent chunk; its TSN must be the next one.
    pub fn push(&mut self, c: SentChunk) {
        debug_assert_eq!(c.chunk.tsn, self.base + self.chunks.len() as u64);
        self.chunks.push_back(c);
    }

    pub fn get(&self, tsn: u64) -> Option<&SentChunk> {
        let i = tsn.checked_sub(self.base)?;
        self.chunks.get(i as usize)
    }

    pub fn get_mut(&mut self, tsn: u64) -> Option<&mut SentChunk> {
        let i = tsn.checked_sub(self.base)?;
        self.chunks.get_mut(i as usize)
    }

    /// Removes the lowest chunk if its TSN is at most `tsn`.
    pub fn pop_through(&mut self, tsn: u64) -> Option<SentChunk> {
        if self.base > tsn || self.chunks.is_empty() {
            return None;
        }
        self.base += 1;
        self.chunks.pop_front()
    }

    pub fn iter(&self) -> impl Iterator<Item = &SentChunk> {
        self.chunks.iter()
    }

    /// TSNs in [from, to] that are in the queue.
    pub fn range(&self, from: u64, to: u64) -> std::ops::RangeInclusive<u64> {
        let lo = from.max(self.base);
        let hi = to.min(self.base + self.chunks.len() as u64 - 1);
        lo..=hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(tsn: u64) -> SentChunk {
        SentChunk {
            chunk: DataChunk {
                tsn,
                stream: 0,
                ssn: 0,
                len: 100,
                unordered: false,
                begin: true,
                end: true,
                copy: 0,
            },
            path: 0,
            sent: SimTime::ZERO,
            state: ChunkState::InFlight,
            misses: 0,
            fast_retransmitted: false,
            event: None,
        }
    }

    #[test]
    fn lookup_by_tsn_and_cumulative_removal() {
        let mut q = Outstanding::new(1);
        for t in 1..=5 {
            q.push(sent(t));
        }
        assert_eq!(q.get(3).map(|c| c.chunk.tsn), Some(3));
        assert!(q.get(0).is_none() && q.get(6).is_none());
        assert_eq!(q.pop_through(2).map(|c| c.chunk.tsn), Some(1));
        assert_eq!(q.pop_through(2).map(|c| c.chunk.tsn), Some(2));
        assert!(q.pop_through(2).is_none());
        assert_eq!(q.get(3).map(|c| c.chunk.tsn), Some(3));
        assert_eq!(q.range(1, 10), 3..=5);
        assert!(q.range(7, 9).is_empty());
    }
}

//! The sending application: messages of a fixed size, written into the outbound
//! streams in turn, cut into DATA chunks of at most one packet's worth of user data
//! (fragmentation with the B and E bits and consecutive TSNs, RFC 9260 §6.9).
//!
//! As with the TCP agents, all data is available at once (ns-2's FTP): an unlimited
//! supply, or `total` bytes. Chunks are made when the sender can send them, so
//! nothing is queued in memory.

use super::chunk::DataChunk;

#[derive(Clone, Debug)]
pub struct AppSource {
    message_size: u32,
    max_chunk_data: u32,
    unordered: bool,
    /// Bytes not yet cut into chunks (`u64::MAX`: unlimited).
    remaining: u64,
    /// Size of the message being cut and bytes of it already cut.
    message: u32,
    offset: u32,
    stream: u16,
    ssn: u32,
    next_stream: u16,
    /// Next stream sequence number per stream.
    next_ssn: Vec<u32>,
}

impl AppSource {
    pub fn new(
        message_size: u32,
        max_chunk_data: u32,
        streams: u16,
        unordered: bool,
        total: Option<u64>,
    ) -> Self {
        AppSource {
            message_size: message_size.max(1),
            max_chunk_data,
            unordered,
            remaining: total.unwrap_or(u64::MAX),
            message: 0,
            offset: 0,
            stream: 0,
            ssn: 0,
            next_stream: 0,
            next_ssn: vec![0; streams.max(1) as usize],
        }
    }

    /// The application writes nothing more; a message being cut is finished.
    pub fn stop(&mut self) {
        self.remaining = 0;
    }

    /// Whether every byte has been cut into chunks.
    pub fn exhausted(&self) -> bool {
        self.offset == self.message && self.remaining == 0
    }

    /// User bytes of the next chunk, if there is one.
    pub fn peek_len(&self) -> Option<u32> {
        if self.offset < self.message {
            return Some((self.message - self.offset).min(self.max_chunk_data));
        }
        if self.remaining == 0 {
            return None;
        }
        let message = self.remaining.min(self.message_size as u64) as u32;
        Some(message.min(self.max_chunk_data))
    }

    /// Cuts the next chunk (the caller checked `peek_len`) and gives it `tsn`.
    pub fn next_chunk(&mut self, tsn: u64) -> DataChunk {
        if self.offset == self.message {
            self.message = self.remaining.min(self.message_size as u64) as u32;
            if self.remaining != u64::MAX {
                self.remaining -= self.message as u64;
            }
            self.offset = 0;
            self.stream = self.next_stream;
            self.next_stream = (self.next_stream + 1) % self.next_ssn.len() as u16;
            self.ssn = self.next_ssn[self.stream as usize];
            if !self.unordered {
                self.next_ssn[self.stream as usize] += 1;
            }
        }
        let len = (self.message - self.offset).min(self.max_chunk_data);
        let chunk = DataChunk {
            tsn,
            stream: self.stream,
            ssn: self.ssn,
            len,
            unordered: self.unordered,
            begin: self.offset == 0,
            end: self.offset + len == self.message,
            copy: 0,
        };
        self.offset += len;
        chunk
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_fragmented_and_spread_over_streams() {
        // 3000-byte messages, 1452 B per chunk, two streams, 7000 bytes in all:
        // messages of 3000, 3000, 1000 → chunks 1452+1452+96, 1452+1452+96, 1000.
        let mut a = AppSource::new(3000, 1452, 2, false, Some(7000));
        let mut chunks = Vec::new();
        while a.peek_len().is_some() {
            chunks.push(a.next_chunk(chunks.len() as u64 + 1));
        }
        let lens: Vec<u32> = chunks.iter().map(|c| c.len).collect();
        assert_eq!(lens, vec![1452, 1452, 96, 1452, 1452, 96, 1000]);
        let flags: Vec<(bool, bool)> = chunks.iter().map(|c| (c.begin, c.end)).collect();
        assert_eq!(flags[..3], [(true, false), (false, false), (false, true)]);
        assert_eq!(flags[6], (true, true));
        let streams: Vec<(u16, u32)> = chunks.iter().map(|c| (c.stream, c.ssn)).collect();
        assert_eq!(streams[0], (0, 0));
        assert_eq!(streams[3], (1, 0));
        assert_eq!(streams[6], (0, 1));
        assert!(a.exhausted());
    }

    #[test]
    fn stop_finishes_the_current_message() {
        let mut a = AppSource::new(3000, 1452, 1, false, None);
        a.next_chunk(1);
        a.stop();
        assert_eq!(a.peek_len(), Some(1452));
        a.next_chunk(2);
        assert_eq!(a.next_chunk(3).len, 96);
        assert_eq!(a.peek_len(), None);
        assert!(a.exhausted());
    }
}

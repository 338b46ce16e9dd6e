//! DropTail output queue of a link direction.
//!
//! The link computes every packet's transmission start when the packet arrives
//! (a FIFO served at a fixed rate needs no events for that), so the queue keeps
//! the start times of the packets still waiting and releases them lazily: a
//! packet leaves the queue when its transmission starts. The packet being
//! transmitted is not in the queue, as in ns-2 and Linux qdiscs; the limit counts
//! waiting packets (or their bytes) only.

use std::collections::VecDeque;

use crate::time::SimTime;

/// How much a queue holds before it drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

impl QueueLimit {
    /// Whether `packets` packets of `bytes` bytes in all are within the limit.
    pub fn holds(self, packets: usize, bytes: u64) -> bool {
        match self {
            QueueLimit::Packets(n) => packets as u64 <= n as u64,
            QueueLimit::Bytes(b) => bytes <= b,
        }
    }

    /// Whether one more packet of `size` bytes fits beside `packets` of `bytes`.
    pub fn admits(self, packets: usize, bytes: u64, size: u32) -> bool {
        self.holds(packets + 1, bytes + size as u64)
    }
}

/// Occupancy samples: (time, waiting packets, waiting bytes) at every change.
#[derive(Default, Debug, Clone)]
pub struct QueueTrace {
    pub time: Vec<SimTime>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
}

impl QueueTrace {
    fn push(&mut self, time: SimTime, packets: u32, bytes: u64) {
        self.time.push(time);
        self.packets.push(packets);
        self.bytes.push(bytes);
    }
}

pub struct DropTail {
    limit: QueueLimit,
    /// (transmission start, IP size) of each waiting packet, in FIFO order.
    waiting: VecDeque<(SimTime, u32)>,
    bytes: u64,
    /// Boxed: most queues are not traced, and the link keeps this struct in the
    /// cache lines every packet touches.
    trace: Option<Box<QueueTrace>>,
}

impl DropTail {
    pub fn new(limit: QueueLimit, traced: bool) -> Self {
        DropTail {
            limit,
            waiting: VecDeque::new(),
            bytes: 0,
            trace: traced.then(Box::default),
        }
    }

    /// Removes the packets whose transmission has started by `now`.
    pub fn release(&mut self, now: SimTime) {
        while let Some(&(start, size)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.bytes -= size as u64;
            if let Some(t) = &mut self.trace {
                t.push(start, self.waiting.len() as u32, self.bytes);
            }
        }
    }

    /// Empties the queue (its packets are being offered again).
    pub fn clear_waiting(&mut self, now: SimTime) {
        self.waiting.clear();
        self.bytes = 0;
        if let Some(t) = &mut self.trace {
            t.push(now, 0, 0);
        }
    }

    /// Whether one more packet of `size` bytes fits (call after `release`).
    pub fn admits(&self, size: u32) -> bool {
        self.limit.admits(self.waiting.len(), self.bytes, size)
    }

    /// Adds a packet that will start transmission at `start`.
    pub fn push(&mut self, now: SimTime, start: SimTime, size: u32) {
        self.waiting.push_back((start, size));
        self.bytes += size as u64;
        if let Some(t) = &mut self.trace {
            t.push(now, self.waiting.len() as u32, self.bytes);
        }
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Bytes of the trace's storage (time, bytes: 8; packets: 4).
    pub fn trace_bytes(&self) -> u64 {
        self.trace
            .as_ref()
            .map_or(0, |t| t.time.capacity() as u64 * 20)
    }

    /// Releases everything still waiting (end of run) and returns the trace.
    pub fn take_trace(&mut self) -> Option<QueueTrace> {
        self.release(SimTime::MAX);
        self.trace.take().map(|t| *t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_limit_counts_waiting_packets_only() {
        let mut q = DropTail::new(QueueLimit::Packets(2), false);
        assert!(q.admits(1500));
        q.push(SimTime(0), SimTime(10), 1500);
        q.push(SimTime(0), SimTime(20), 1500);
        assert!(!q.admits(40));
        // At t = 10 the first starts transmission and leaves the queue.
        q.release(SimTime(10));
        assert_eq!(q.len(), 1);
        assert!(q.admits(1500));
    }

    #[test]
    fn byte_limit_admits_up_to_exactly_the_limit() {
        let mut q = DropTail::new(QueueLimit::Bytes(3000), false);
        q.push(SimTime(0), SimTime(5), 1500);
        assert!(q.admits(1500));
        q.push(SimTime(0), SimTime(6), 1500);
        assert!(!q.admits(1));
        assert_eq!(q.bytes(), 3000);
    }

    #[test]
    fn trace_records_arrivals_and_departures() {
        let mut q = DropTail::new(QueueLimit::Packets(10), true);
        q.push(SimTime(1), SimTime(4), 100);
        q.push(SimTime(2), SimTime(8), 200);
        let t = q.take_trace().unwrap();
        assert_eq!(t.time, vec![SimTime(1), SimTime(2), SimTime(4), SimTime(8)]);
        assert_eq!(t.packets, vec![1, 2, 1, 0]);
        assert_eq!(t.bytes, vec![100, 300, 200, 0]);
    }
}

//! Every data-segment transmission of a flow: the classic sequence-vs-time trace.

use crate::time::SimTime;

#[derive(Clone, Debug, Default)]
pub struct SegmentTrace {
    pub time: Vec<SimTime>,
    pub seq: Vec<u64>,
    pub len: Vec<u32>,
    pub retransmission: Vec<bool>,
}

impl SegmentTrace {
    /// Bytes of the columns' storage (time, seq: 8; len: 4; retransmission: 1).
    pub fn bytes_held(&self) -> u64 {
        self.time.capacity() as u64 * 21
    }

    pub fn push(&mut self, time: SimTime, seq: u64, len: u32, retransmission: bool) {
        self.time.push(time);
        self.seq.push(seq);
        self.len.push(len);
        self.retransmission.push(retransmission);
    }
}

//! Columnar per-flow time series of the sender's state.

use crate::time::SimTime;

/// The traced state of one flow at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowSnapshot {
    pub cwnd: u32,
    pub ssthresh: u32,
    /// SimTime::MAX before the first RTT sample.
    pub srtt: SimTime,
    pub rto: SimTime,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Bytes delivered in order at the receiver.
    pub delivered: u64,
}

/// One column per field of `FlowSnapshot`, plus time.
#[derive(Clone, Debug, Default)]
pub struct FlowSeries {
    pub time: Vec<SimTime>,
    pub cwnd: Vec<u32>,
    pub ssthresh: Vec<u32>,
    pub srtt: Vec<SimTime>,
    pub rto: Vec<SimTime>,
    pub snd_una: Vec<u64>,
    pub snd_nxt: Vec<u64>,
    pub delivered: Vec<u64>,
}

impl FlowSeries {
    /// Bytes of the columns' storage (time, srtt, rto, snd_una, snd_nxt, delivered:
    /// 8 each; cwnd, ssthresh: 4 each).
    pub fn bytes_held(&self) -> u64 {
        self.time.capacity() as u64 * 56
    }

    pub fn push(&mut self, time: SimTime, s: &FlowSnapshot) {
        self.time.push(time);
        self.cwnd.push(s.cwnd);
        self.ssthresh.push(s.ssthresh);
        self.srtt.push(s.srtt);
        self.rto.push(s.rto);
        self.snd_una.push(s.snd_una);
        self.snd_nxt.push(s.snd_nxt);
        self.delivered.push(s.delivered);
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

//! Byte counts in fixed-width time bins (throughput over time).

use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Bins {
    width: SimTime,
    bytes: Vec<u64>,
    /// The bin written last and its time span [start, end): times mostly stay in
    /// it, and finding it again saves a division per packet.
    last: usize,
    last_span: (SimTime, SimTime),
}

impl Bins {
    /// Bytes of the bins' storage.
    pub fn bytes_held(&self) -> u64 {
        self.bytes.capacity() as u64 * 8
    }

    pub fn new(width: SimTime) -> Self {
        Bins {
            width,
            bytes: Vec::new(),
            last: 0,
            last_span: (SimTime::MAX, SimTime::MAX),
        }
    }

    /// Adds `bytes` to the bin that contains `at`.
    pub fn add(&mut self, at: SimTime, bytes: u64) {
        let (start, end) = self.last_span;
        if start <= at && at < end {
            self.bytes[self.last] += bytes;
            return;
        }
        let i = at.as_nanos() / self.width.as_nanos();
        let index = i as usize;
        if index >= self.bytes.len() {
            self.bytes.resize(index + 1, 0);
        }
        self.bytes[index] += bytes;
        let start = SimTime(i * self.width.as_nanos());
        self.last = index;
        self.last_span = (start, start + self.width);
    }

    pub fn width(&self) -> SimTime {
        self.width
    }

    /// Bytes per bin, padded with zeros to `len` bins.
    pub fn padded(&self, len: usize) -> Vec<u64> {
        let mut v = self.bytes.clone();
        v.resize(len.max(v.len()), 0);
        v
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_land_in_the_bin_of_their_time() {
        let mut b = Bins::new(SimTime::from_millis(100));
        b.add(SimTime::from_millis(0), 10);
        b.add(SimTime::from_millis(99), 5);
        b.add(SimTime::from_millis(100), 7);
        b.add(SimTime::from_millis(350), 1);
        assert_eq!(b.padded(5), vec![15, 7, 0, 1, 0]);
    }

    #[test]
    fn a_time_before_the_last_bin_lands_in_its_own() {
        // Bins of 100 ms: 250 ms → bin 2, then 120 ms → bin 1, then 299 ms → bin 2.
        let mut b = Bins::new(SimTime::from_millis(100));
        b.add(SimTime::from_millis(250), 3);
        b.add(SimTime::from_millis(120), 4);
        b.add(SimTime::from_millis(299), 5);
        b.add(SimTime::from_millis(300), 6);
        assert_eq!(b.padded(4), vec![0, 4, 8, 6]);
    }
}

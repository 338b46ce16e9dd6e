//! Byte counts in fixed-width time bins (throughput over time).

use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Bins {
    width: SimTime,
    bytes: Vec<u64>,
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
        }
    }

    /// Adds `bytes` to the bin that contains `at`.
    pub fn add(&mut self, at: SimTime, bytes: u64) {
        let i = (at.as_nanos() / self.width.as_nanos()) as usize;
        if i >= self.bytes.len() {
            self.bytes.resize(i + 1, 0);
        }
        self.bytes[i] += bytes;
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
}

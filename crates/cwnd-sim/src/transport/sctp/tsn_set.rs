//! The TSNs a data receiver holds: the cumulative TSN (every TSN up to it received)
//! and the gap ack blocks above it (RFC 9260 §3.3.4, §6.2).
//!
//! TSNs start at 1, so a cumulative TSN of 0 means nothing received yet. Blocks are
//! inclusive, disjoint, sorted and never adjacent (adjacent ones are merged), and
//! none touches the cumulative TSN (it absorbs them): exactly the gap ack blocks a
//! SACK reports.

#[derive(Clone, Debug, Default)]
pub struct TsnSet {
    cumulative: u64,
    blocks: Vec<(u64, u64)>,
}

impl TsnSet {
    pub fn cumulative(&self) -> u64 {
        self.cumulative
    }

    /// The gap ack blocks, lowest first.
    pub fn gaps(&self) -> &[(u64, u64)] {
        &self.blocks
    }

    /// The highest TSN received.
    pub fn highest(&self) -> u64 {
        self.blocks.last().map_or(self.cumulative, |b| b.1)
    }

    pub fn contains(&self, tsn: u64) -> bool {
        if tsn <= self.cumulative {
            return true;
        }
        let i = self.blocks.partition_point(|b| b.1 < tsn);
        self.blocks.get(i).is_some_and(|b| b.0 <= tsn)
    }

    /// Records `tsn`; false if it was already held (a duplicate).
    pub fn insert(&mut self, tsn: u64) -> bool {
        if self.contains(tsn) {
            return false;
        }
        if tsn == self.cumulative + 1 {
            self.cumulative = tsn;
            if self.blocks.first().is_some_and(|b| b.0 == tsn + 1) {
                self.cumulative = self.blocks.remove(0).1;
            }
            return true;
        }
        let i = self.blocks.partition_point(|b| b.1 < tsn);
        let joins_left = i > 0 && self.blocks[i - 1].1 + 1 == tsn;
        let joins_right = i < self.blocks.len() && self.blocks[i].0 == tsn + 1;
        match (joins_left, joins_right) {
            (true, true) => {
                self.blocks[i - 1].1 = self.blocks[i].1;
                self.blocks.remove(i);
            }
            (true, false) => self.blocks[i - 1].1 = tsn,
            (false, true) => self.blocks[i].0 = tsn,
            (false, false) => self.blocks.insert(i, (tsn, tsn)),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_form_merge_and_are_absorbed_by_the_cumulative_tsn() {
        let mut s = TsnSet::default();
        for t in [1, 2, 4, 6, 5, 9] {
            assert!(s.insert(t));
        }
        // 1-2 in order; 4, 6, 5 merge into 4-6; 9 alone.
        assert_eq!(s.cumulative(), 2);
        assert_eq!(s.gaps(), &[(4, 6), (9, 9)]);
        assert_eq!(s.highest(), 9);
        assert!(s.insert(3)); // fills the hole: the cumulative TSN jumps to 6
        assert_eq!(s.cumulative(), 6);
        assert_eq!(s.gaps(), &[(9, 9)]);
        assert!(s.insert(8)); // joins 9 from the left
        assert_eq!(s.gaps(), &[(8, 9)]);
    }

    #[test]
    fn duplicates_are_refused() {
        let mut s = TsnSet::default();
        s.insert(1);
        s.insert(5);
        assert!(!s.insert(1));
        assert!(!s.insert(5));
        assert!(s.contains(5) && !s.contains(4) && !s.contains(6));
    }
}

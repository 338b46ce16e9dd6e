//! What the simulator knows and the protocol does not: whether a retransmission was
//! needed. Copy `c` of a TSN (0 the original, 1 the first retransmission…) was
//! spurious if some earlier copy reached the receiver, before or after it.
//!
//! Only TSNs that are retransmitted are tracked. When copy `c` is sent, the receiver
//! either already holds the TSN (then an earlier copy arrived: spurious) or the
//! ledger watches the arrivals of that TSN from then on. Arrivals are checked against
//! the range of tracked TSNs before the map, so untracked TSNs cost two comparisons.

use std::collections::HashMap;

/// No copy has arrived.
const NONE: u8 = u8::MAX;

#[derive(Clone, Debug)]
pub struct Ledger {
    /// Lowest copy number seen arriving, per retransmitted TSN (an upper bound for
    /// arrivals before the entry existed: all of them were earlier copies).
    lowest_arrived: HashMap<u64, u8>,
    min_tsn: u64,
    max_tsn: u64,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger {
            lowest_arrived: HashMap::new(),
            min_tsn: u64::MAX,
            max_tsn: 0,
        }
    }
}

impl Ledger {
    /// Copy `copy` ≥ 1 of `tsn` is sent; `held` says whether the receiver already
    /// holds the TSN.
    pub fn retransmitted(&mut self, tsn: u64, copy: u8, held: bool) {
        self.min_tsn = self.min_tsn.min(tsn);
        self.max_tsn = self.max_tsn.max(tsn);
        let lowest = self.lowest_arrived.entry(tsn).or_insert(NONE);
        if held && *lowest == NONE {
            *lowest = copy - 1;
        }
    }

    /// Copy `copy` of `tsn` reached the receiver.
    pub fn arrived(&mut self, tsn: u64, copy: u8) {
        if tsn < self.min_tsn || tsn > self.max_tsn {
            return;
        }
        if let Some(lowest) = self.lowest_arrived.get_mut(&tsn) {
            *lowest = (*lowest).min(copy);
        }
    }

    /// Whether copy `copy` ≥ 1 of `tsn` was unnecessary (as far as known now).
    pub fn spurious(&self, tsn: u64, copy: u8) -> bool {
        self.lowest_arrived
            .get(&tsn)
            .is_some_and(|&lowest| lowest < copy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_original_makes_the_retransmission_spurious() {
        let mut l = Ledger::default();
        l.retransmitted(100, 1, false);
        assert!(!l.spurious(100, 1));
        l.arrived(100, 1); // the retransmission arrives first
        assert!(!l.spurious(100, 1));
        l.arrived(100, 0); // then the delayed original
        assert!(l.spurious(100, 1));
    }

    #[test]
    fn a_lost_original_makes_it_necessary() {
        let mut l = Ledger::default();
        l.retransmitted(7, 1, false);
        l.arrived(7, 1);
        assert!(!l.spurious(7, 1));
        // A second retransmission after the first arrived is spurious.
        l.retransmitted(7, 2, true);
        assert!(l.spurious(7, 2));
    }

    #[test]
    fn an_original_already_held_when_retransmitted_is_spurious() {
        let mut l = Ledger::default();
        l.retransmitted(5, 1, true);
        assert!(l.spurious(5, 1));
        assert!(!l.spurious(6, 1)); // never retransmitted
    }
}

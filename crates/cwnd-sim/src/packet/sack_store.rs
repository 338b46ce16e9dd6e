//! Where the SACK blocks of ACKs in flight live.
//!
//! Every packet is a fixed-size value moved by copy through queues and links, so
//! its size is that of its largest payload. The SACK option (RFC 2018 §3: up to 4
//! blocks of two 64-bit sequence numbers here, 72 B) made every packet, data
//! segments included, about twice as large as without it. An ACK that carries
//! blocks therefore keeps them here and travels with their slot number
//! (`packet::AckRef`); the slot is freed when the ACK is delivered or dropped.
//! Freed slots are reused first, so a run in steady state allocates nothing per
//! ACK and the few slots in use stay in cache (as `transport::sctp::store` does
//! for SCTP's chunks).

use super::SackBlocks;

/// Index of a set of SACK blocks in the store.
pub type SackId = u32;

#[derive(Default)]
pub struct SackStore {
    slots: Vec<SackBlocks>,
    free: Vec<SackId>,
}

impl SackStore {
    /// Keeps `blocks` until `take` or `release`.
    pub fn put(&mut self, blocks: SackBlocks) -> SackId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = blocks;
                id
            }
            None => {
                self.slots.push(blocks);
                (self.slots.len() - 1) as SackId
            }
        }
    }

    /// The blocks in slot `id`, which stays in use.
    pub fn get(&self, id: SackId) -> SackBlocks {
        self.slots[id as usize]
    }

    /// The blocks in slot `id`; frees the slot (the ACK was delivered).
    pub fn take(&mut self, id: SackId) -> SackBlocks {
        self.free.push(id);
        self.slots[id as usize]
    }

    /// Frees slot `id` (the ACK was dropped).
    pub fn release(&mut self, id: SackId) {
        self.free.push(id);
    }

    /// Slots currently in use.
    pub fn in_use(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(pairs: &[(u64, u64)]) -> SackBlocks {
        let mut b = SackBlocks::default();
        for &(s, e) in pairs {
            b.push(s, e);
        }
        b
    }

    #[test]
    fn freed_slots_are_reused_and_hold_the_new_blocks() {
        let mut s = SackStore::default();
        let a = s.put(blocks(&[(10, 20)]));
        let b = s.put(blocks(&[(30, 40), (50, 60)]));
        assert_ne!(a, b);
        assert_eq!(s.get(b).as_slice(), &[(30, 40), (50, 60)]);
        assert_eq!(s.take(a).as_slice(), &[(10, 20)]);
        assert_eq!(s.in_use(), 1);
        // The freed slot comes back first, holding only what was put in it.
        let c = s.put(blocks(&[(70, 80)]));
        assert_eq!(c, a);
        assert_eq!(s.get(c).as_slice(), &[(70, 80)]);
        s.release(b);
        s.release(c);
        assert_eq!(s.in_use(), 0);
    }
}

//! The relay's packet buffers: a ring of fixed slots allocated once, so that
//! reading, holding and writing a packet allocates nothing.
//!
//! Packet number `n` (counted from 0) lives in slot `n % slots`, and its handle is
//! `n`. A slot is reused once `slots` newer packets have been read: a packet the
//! model still holds then (it sat in the network behind that many newer packets)
//! has lost its bytes, which `get` detects by the slot's stamp and the relay counts
//! as an overrun. With 65 536 slots that takes 0.8 s of holding at 1 Gb/s of
//! 1500-byte packets; queues and ARQ in the scenarios hold far less.

/// Largest packet a slot holds: a TUN device's default MTU is 1500; 2048 leaves
/// room for any MTU up to it.
pub const SLOT_BYTES: usize = 2048;

pub struct PacketPool {
    bytes: Vec<u8>,
    len: Vec<u16>,
    /// The handle of the packet each slot holds (`u64::MAX`: none yet).
    stamp: Vec<u64>,
    next: u64,
}

impl PacketPool {
    pub fn new(slots: usize) -> Self {
        assert!(slots > 0, "a pool needs at least one slot");
        PacketPool {
            // Zeroed memory: pages are touched only when a slot is first used.
            bytes: vec![0; slots * SLOT_BYTES],
            len: vec![0; slots],
            stamp: vec![u64::MAX; slots],
            next: 0,
        }
    }

    fn slot(&self, handle: u64) -> usize {
        (handle % self.len.len() as u64) as usize
    }

    /// The slot the next packet is read into.
    pub fn vacant(&mut self) -> &mut [u8] {
        let s = self.slot(self.next);
        &mut self.bytes[s * SLOT_BYTES..(s + 1) * SLOT_BYTES]
    }

    /// Keeps the `len` bytes just read into `vacant()`; returns their handle.
    pub fn commit(&mut self, len: usize) -> u64 {
        let handle = self.next;
        let s = self.slot(handle);
        self.len[s] = len.min(SLOT_BYTES) as u16;
        self.stamp[s] = handle;
        self.next += 1;
        handle
    }

    /// The bytes of packet `handle`, unless its slot was reused since.
    pub fn get(&self, handle: u64) -> Option<&[u8]> {
        let s = self.slot(handle);
        (self.stamp[s] == handle)
            .then(|| &self.bytes[s * SLOT_BYTES..s * SLOT_BYTES + self.len[s] as usize])
    }

    /// The bytes of packet `handle` to change (a CE mark), unless its slot was
    /// reused since.
    pub fn get_mut(&mut self, handle: u64) -> Option<&mut [u8]> {
        let s = self.slot(handle);
        (self.stamp[s] == handle)
            .then(|| &mut self.bytes[s * SLOT_BYTES..s * SLOT_BYTES + self.len[s] as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(pool: &mut PacketPool, fill: u8, len: usize) -> u64 {
        pool.vacant()[..len].fill(fill);
        pool.commit(len)
    }

    #[test]
    fn packets_come_back_by_handle() {
        let mut pool = PacketPool::new(4);
        let a = put(&mut pool, 1, 3);
        let b = put(&mut pool, 2, 5);
        assert_eq!(pool.get(a), Some(&[1u8, 1, 1][..]));
        assert_eq!(pool.get(b), Some(&[2u8; 5][..]));
    }

    #[test]
    fn a_slot_reused_by_a_newer_packet_is_an_overrun() {
        let mut pool = PacketPool::new(2);
        let first = put(&mut pool, 1, 1); // handle 0, slot 0
        put(&mut pool, 2, 1); // handle 1, slot 1
        let third = put(&mut pool, 3, 1); // handle 2, slot 0 again
        assert_eq!(pool.get(first), None);
        assert_eq!(pool.get(third), Some(&[3u8][..]));
    }

    #[test]
    fn a_read_that_is_not_committed_leaves_the_slot_free() {
        let mut pool = PacketPool::new(2);
        let a = put(&mut pool, 1, 1);
        pool.vacant()[0] = 9; // a read that failed: nothing committed
        let b = pool.commit(1);
        assert_eq!((a, b), (0, 1));
        assert_eq!(pool.get(b), Some(&[9u8][..]));
    }
}

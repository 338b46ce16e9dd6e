//! Where the chunks of SCTP packets in flight live.
//!
//! A packet bundles a variable number of chunks, but the simulator moves packets as
//! small fixed-size values (`packet::Packet`). An SCTP packet therefore carries the
//! index of its body in this store; the body is released when the packet is
//! delivered or dropped. Released bodies are reused with their buffers, so a run in
//! steady state allocates nothing per packet.

use super::chunk::SctpPacket;

/// Index of a packet body in the store.
pub type BodyId = u32;

#[derive(Default)]
pub struct PacketStore {
    bodies: Vec<SctpPacket>,
    free: Vec<BodyId>,
}

impl PacketStore {
    /// An empty body, to be filled by the caller.
    pub fn alloc(&mut self) -> BodyId {
        match self.free.pop() {
            Some(id) => id,
            None => {
                self.bodies.push(SctpPacket::default());
                (self.bodies.len() - 1) as BodyId
            }
        }
    }

    pub fn get(&self, id: BodyId) -> &SctpPacket {
        &self.bodies[id as usize]
    }

    pub fn get_mut(&mut self, id: BodyId) -> &mut SctpPacket {
        &mut self.bodies[id as usize]
    }

    /// Takes the body out to read it while filling others; `put_back` returns it.
    pub fn take(&mut self, id: BodyId) -> SctpPacket {
        std::mem::take(&mut self.bodies[id as usize])
    }

    /// Returns a body taken with `take` and frees its slot.
    pub fn put_back(&mut self, id: BodyId, mut body: SctpPacket) {
        body.clear();
        self.bodies[id as usize] = body;
        self.free.push(id);
    }

    /// Frees a body (its packet was dropped).
    pub fn release(&mut self, id: BodyId) {
        self.bodies[id as usize].clear();
        self.free.push(id);
    }

    /// Bodies currently in use (allocated and not released).
    #[cfg(test)]
    pub fn in_use(&self) -> usize {
        self.bodies.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::sctp::chunk::Control;

    #[test]
    fn released_bodies_are_reused_empty() {
        let mut s = PacketStore::default();
        let a = s.alloc();
        s.get_mut(a).control.push(Control::CookieAck);
        let b = s.alloc();
        assert_ne!(a, b);
        s.release(a);
        assert_eq!(s.in_use(), 1);
        let c = s.alloc();
        assert_eq!(c, a);
        assert!(s.get(c).control.is_empty());
        let body = s.take(b);
        s.put_back(b, body);
        assert_eq!(s.in_use(), 1);
    }
}

//! A first-in first-out list of waiting packets with its byte count: the queue of
//! DropTail, CoDel and PIE, and of each flow of FQ-CoDel and FQ-PIE.

use std::collections::VecDeque;

use super::Queued;

#[derive(Default)]
pub struct PacketFifo {
    queue: VecDeque<Queued>,
    bytes: u64,
}

impl PacketFifo {
    pub fn push(&mut self, queued: Queued) {
        self.bytes += queued.packet.size as u64;
        self.queue.push_back(queued);
    }

    pub fn pop(&mut self) -> Option<Queued> {
        let queued = self.queue.pop_front()?;
        self.bytes -= queued.packet.size as u64;
        Some(queued)
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

//! DropTail — a FIFO that refuses an arrival when its limit is reached — optionally
//! with RED (`net/red.rs`) deciding first whether to drop the arrival early: the
//! link's queue as it always was, behind the discipline seam. Both decide on arrival
//! only, so in front of a fixed rate the link keeps them on its fast path (each
//! packet's start known when it arrives, `net/queue.rs`) and calls these same two
//! rules there; this queue is what waits for a transmitter whose capacity moves.
//!
//! The limit counts waiting packets only, not the one being transmitted (ns-2's and
//! Linux's convention). A packet is queued before the transmitter takes it, even an
//! arrival at an idle link, so here a limit must hold one packet (on the fast path an
//! arrival at an idle link never counts against it).

use super::fifo::PacketFifo;
use super::{Admission, DropCause, Dropped, QueueDiscipline, Queued};
use crate::net::queue::QueueLimit;
use crate::net::red::Red;
use crate::packet::Packet;
use crate::time::SimTime;

pub struct DropTail {
    limit: QueueLimit,
    red: Option<Box<Red>>,
    fifo: PacketFifo,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail {
            limit,
            red: None,
            fifo: PacketFifo::default(),
        }
    }

    /// Puts RED in front of the queue.
    pub fn with_red(mut self, red: Red) -> Self {
        self.red = Some(Box::new(red));
        self
    }

    /// The limit and RED, for the link's fast path.
    pub(crate) fn into_parts(self) -> (QueueLimit, Option<Box<Red>>) {
        (self.limit, self.red)
    }
}

impl QueueDiscipline for DropTail {
    fn enqueue(
        &mut self,
        now: SimTime,
        packet: Packet,
        idle_since: Option<SimTime>,
        _dropped: &mut Vec<Dropped>,
    ) -> Admission {
        if let Some(red) = &mut self.red {
            if red.on_arrival(now, self.fifo.len(), idle_since) {
                return Admission::Dropped(DropCause::Early);
            }
        }
        if !self
            .limit
            .admits(self.fifo.len(), self.fifo.bytes(), packet.size)
        {
            return Admission::Dropped(DropCause::Overflow);
        }
        self.fifo.push(Queued {
            packet,
            arrived: now,
        });
        Admission::Queued
    }

    fn dequeue(&mut self, _now: SimTime, _dropped: &mut Vec<Dropped>) -> Option<Queued> {
        self.fifo.pop()
    }

    fn packets(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_packets::packet;
    use super::*;
    use crate::net::red::RedParams;
    use crate::rng;

    #[test]
    fn a_full_queue_refuses_arrivals_and_serves_in_order() {
        // Limit 2 packets: the third arrival overflows; dequeues give 0 then 1.
        let mut q = DropTail::new(QueueLimit::Packets(2));
        let mut dropped = Vec::new();
        let t = SimTime::ZERO;
        for uid in 0..2 {
            assert_eq!(
                q.enqueue(t, packet(uid, 0, 1500), None, &mut dropped),
                Admission::Queued
            );
        }
        assert_eq!(
            q.enqueue(t, packet(2, 0, 1500), None, &mut dropped),
            Admission::Dropped(DropCause::Overflow)
        );
        assert_eq!((q.packets(), q.bytes()), (2, 3000));
        let uids: Vec<u64> = (0..3)
            .filter_map(|_| q.dequeue(t, &mut dropped).map(|d| d.packet.uid))
            .collect();
        assert_eq!(uids, vec![0, 1]);
        assert!(dropped.is_empty());
    }

    #[test]
    fn red_in_front_drops_early_before_the_limit() {
        // w_q = 1 and max_th 2 (gentle off): the average is the queue, and an arrival
        // that finds 2 packets waiting is dropped early though the limit is 10.
        let params = RedParams {
            w_q: 1.0,
            min_th: 1.0,
            max_th: 2.0,
            gentle: false,
            ..Default::default()
        };
        let red = Red::new(params, 4_000_000, rng::stream(1, "red"));
        let mut q = DropTail::new(QueueLimit::Packets(10)).with_red(red);
        let mut dropped = Vec::new();
        q.enqueue(SimTime::ZERO, packet(0, 0, 500), None, &mut dropped);
        q.enqueue(SimTime::ZERO, packet(1, 0, 500), None, &mut dropped);
        assert_eq!(
            q.enqueue(SimTime::ZERO, packet(2, 0, 500), None, &mut dropped),
            Admission::Dropped(DropCause::Early)
        );
    }
}

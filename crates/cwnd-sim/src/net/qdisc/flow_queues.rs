//! The flow queues that FQ-CoDel and FQ-PIE share (RFC 8290 §4.1–4.2, Hoeiland-
//! Joergensen et al. 2018; Linux net/sched/sch_fq_codel.c and sch_fq_pie.c):
//!
//! * **Classification.** A packet goes to queue `reciprocal_scale(hash, flows)` =
//!   ⌊hash × flows / 2³²⌋ of a 32-bit hash of its flow. Linux hashes the 5-tuple with
//!   `jhash` keyed by a random value drawn at boot; here the flow's id and its two ends
//!   go through SplitMix64's finaliser (Steele et al. 2014) keyed by a number drawn
//!   from the link's named random stream: a run is reproducible from its seed, and
//!   distinct flows may share a queue exactly as they may in Linux.
//! * **DRR++.** Queues that have packets are on one of two lists. A queue that gets a
//!   packet while on neither joins the tail of the new list with a deficit of one
//!   quantum. Dequeue looks at the head of the new list, else of the old list: a queue
//!   whose deficit is used up gets another quantum and moves to the old list's tail;
//!   else its discipline gives a packet (whose size comes off the deficit) or, if it
//!   gives none, the queue leaves — to the old list's tail if it was new and the old
//!   list is not empty (so that new queues cannot starve old ones), else off both.
//!   A sparse flow, whose queue empties between its packets, is served from the new
//!   list ahead of the bulk flows.

use std::collections::VecDeque;

use super::fifo::PacketFifo;
use super::Queued;
use crate::packet::Packet;

/// One queue: its packets, its DRR deficit, and its AQM's state.
pub struct FlowQueue<S> {
    pub fifo: PacketFifo,
    deficit: i64,
    /// On the new or the old list.
    listed: bool,
    pub aqm: S,
}

/// The whole queue's packets and bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Totals {
    pub packets: usize,
    pub bytes: u64,
}

impl Totals {
    /// Takes the head packet of `fifo` out, counting it off the totals.
    pub fn pop(&mut self, fifo: &mut PacketFifo) -> Option<Queued> {
        let q = fifo.pop()?;
        self.packets -= 1;
        self.bytes -= q.packet.size as u64;
        Some(q)
    }
}

pub struct FlowQueues<S> {
    flows: Vec<FlowQueue<S>>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    quantum: u32,
    key: u64,
    pub totals: Totals,
}

fn splitmix_finalise(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl<S> FlowQueues<S> {
    /// `flows` queues (at least 1), each with the AQM state `aqm()` gives.
    pub fn new(flows: u32, quantum: u32, key: u64, aqm: impl Fn() -> S) -> Self {
        FlowQueues {
            flows: (0..flows)
                .map(|_| FlowQueue {
                    fifo: PacketFifo::default(),
                    deficit: 0,
                    listed: false,
                    aqm: aqm(),
                })
                .collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            quantum,
            key,
            totals: Totals::default(),
        }
    }

    /// The queue a packet belongs to.
    pub fn classify(&self, packet: &Packet) -> usize {
        let ends = (packet.src as u64) << 32 | packet.dst as u64;
        let h = splitmix_finalise(splitmix_finalise(self.key ^ packet.flow as u64) ^ ends);
        ((h as u32 as u64 * self.flows.len() as u64) >> 32) as usize
    }

    pub fn flow(&self, i: usize) -> &FlowQueue<S> {
        &self.flows[i]
    }

    pub fn flow_mut(&mut self, i: usize) -> &mut FlowQueue<S> {
        &mut self.flows[i]
    }

    /// Adds a packet to queue `i`, which joins the new list if it was on neither.
    pub fn push(&mut self, i: usize, queued: Queued) {
        self.totals.packets += 1;
        self.totals.bytes += queued.packet.size as u64;
        let flow = &mut self.flows[i];
        flow.fifo.push(queued);
        if !flow.listed {
            flow.listed = true;
            flow.deficit = self.quantum as i64;
            self.new_flows.push_back(i as u32);
        }
    }

    /// The queue with the most bytes (the first of equals), as Linux's
    /// `fq_codel_drop` finds it: a scan of every queue.
    pub fn fattest(&self) -> usize {
        let mut best = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.fifo.bytes() > self.flows[best].fifo.bytes() {
                best = i;
            }
        }
        best
    }

    /// Takes the head packet of queue `i` out (to drop it).
    pub fn pop_head(&mut self, i: usize) -> Option<Queued> {
        self.totals.pop(&mut self.flows[i].fifo)
    }

    /// DRR++'s dequeue; `serve` takes a packet out of the queue chosen (with the
    /// totals to count it off), or gives none if its discipline has none to send.
    pub fn dequeue(
        &mut self,
        mut serve: impl FnMut(&mut FlowQueue<S>, &mut Totals) -> Option<Queued>,
    ) -> Option<Queued> {
        loop {
            let (from_new, i) = match self.new_flows.front() {
                Some(&i) => (true, i),
                None => (false, *self.old_flows.front()?),
            };
            let flow = &mut self.flows[i as usize];
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            if flow.deficit <= 0 {
                flow.deficit += self.quantum as i64;
                list.pop_front();
                self.old_flows.push_back(i);
                continue;
            }
            if let Some(q) = serve(flow, &mut self.totals) {
                flow.deficit -= q.packet.size as i64;
                return Some(q);
            }
            list.pop_front();
            if from_new && !self.old_flows.is_empty() {
                self.old_flows.push_back(i);
            } else {
                flow.listed = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_packets::packet;
    use super::*;
    use crate::time::SimTime;

    fn queued(uid: u64, flow: u32, size: u32) -> Queued {
        Queued {
            packet: packet(uid, flow, size),
            arrived: SimTime::ZERO,
        }
    }

    /// Serves plain FIFOs.
    fn fifo_serve(f: &mut FlowQueue<()>, t: &mut Totals) -> Option<Queued> {
        t.pop(&mut f.fifo)
    }

    #[test]
    fn a_new_queue_is_served_before_the_old_ones_and_a_quantum_at_a_time() {
        // Quantum 3000 B. Queue 0 has four 1500-B packets (uids 0–3), and is new
        // (deficit 3000): it sends 0 (1500 left). Queue 1 gets uid 10 and is new
        // behind it. Queue 0 sends 1 (0 left), then is out of credit: +3000, to the
        // old list. Queue 1 sends 10, then is empty while the old list is not: to the
        // old list's tail, behind queue 0, which sends 2 and 3; then both are empty.
        let mut q = FlowQueues::new(2, 3000, 0, || ());
        for uid in 0..4 {
            q.push(0, queued(uid, 0, 1500));
        }
        let mut order = vec![q.dequeue(fifo_serve).unwrap().packet.uid];
        q.push(1, queued(10, 1, 1500));
        while let Some(d) = q.dequeue(fifo_serve) {
            order.push(d.packet.uid);
        }
        assert_eq!(order, vec![0, 1, 10, 2, 3]);
        assert_eq!(q.totals.packets, 0);
    }

    #[test]
    fn deficits_share_bytes_not_packets() {
        // Quantum 1500 B. Queue 0 sends 1500-B packets, queue 1 500-B ones; both stay
        // backlogged on the old list. Per round queue 0 sends one packet (1500 B) and
        // queue 1 three (3 × 500 B): equal bytes.
        let mut q = FlowQueues::new(2, 1500, 0, || ());
        for uid in 0..4 {
            q.push(0, queued(uid, 0, 1500));
        }
        for uid in 100..112 {
            q.push(1, queued(uid, 1, 500));
        }
        let order: Vec<u32> = (0..8)
            .map(|_| q.dequeue(fifo_serve).unwrap().packet.flow)
            .collect();
        // New list: 0 sends (deficit 0), 1 sends 3 (1500 → 0). Both move to the old
        // list with a fresh quantum as they run out: 0 again, then 1 three times.
        assert_eq!(order, vec![0, 1, 1, 1, 0, 1, 1, 1]);
    }

    #[test]
    fn the_fattest_queue_is_the_first_with_the_most_bytes() {
        let mut q = FlowQueues::new(4, 1500, 0, || ());
        q.push(1, queued(0, 1, 1000));
        q.push(2, queued(1, 2, 1500));
        q.push(3, queued(2, 3, 1500));
        assert_eq!(q.fattest(), 2);
    }

    #[test]
    fn classification_is_spread_and_fixed_by_the_key() {
        // 1000 flows into 1024 queues: a good hash leaves about 1024·(1 − 1/1024)^1000
        // ≈ 385 queues empty (balls into bins), so about 639 used; allow 600–680. The
        // same key gives the same queue; another key moves most flows.
        let a = FlowQueues::new(1024, 1500, 1, || ());
        let b = FlowQueues::new(1024, 1500, 2, || ());
        let qa: Vec<usize> = (0..1000).map(|f| a.classify(&packet(0, f, 100))).collect();
        let used = qa.iter().collect::<std::collections::HashSet<_>>().len();
        assert!((600..=680).contains(&used), "{used} queues used");
        assert_eq!(qa[7], a.classify(&packet(9, 7, 1500)));
        let moved = (0..1000)
            .filter(|&f| b.classify(&packet(0, f, 100)) != qa[f as usize])
            .count();
        assert!(moved > 950, "{moved} flows moved");
    }
}

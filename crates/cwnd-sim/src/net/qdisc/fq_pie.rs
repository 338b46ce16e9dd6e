//! FQ-PIE, Flow Queue PIE (Linux net/sched/sch_fq_pie.c, M. P. Tahiliani et al.,
//! 2020; G. Ramakrishnan et al., "FQ-PIE Queue Discipline in the Linux Kernel:
//! Design, Implementation and Challenges", IEEE LCN Symposium 2019): the flow
//! queues and DRR++ of FQ-CoDel (`flow_queues.rs`, RFC 8290 §4) with a PIE controller
//! per queue (`pie.rs`, RFC 8033) in place of CoDel. As in Linux:
//!
//! * drops happen on arrival only: the whole queue's limit (overflow), then the
//!   arrival's own queue's PIE, which sees that queue's bytes (`sel_flow->backlog`);
//! * every queue's probability is updated at the same instants (Linux's one timer
//!   walks all queues every `tupdate`, first 500 ms after start); here each queue
//!   catches up when a packet of its own arrives or leaves, which gives the same
//!   values (`pie.rs`);
//! * the departure updates that queue's delay (timestamps by default).
//!
//! Defaults (Linux `fq_pie_init`): limit 10 240 packets, 1024 flows, quantum 1500 B
//! (Linux: `psched_mtu`), PIE's target 15 ms, tupdate 15 ms, α 0.125, β 1.25, burst
//! allowance 150 ms. ns-3 3.44's `FqPieQueueDisc`: the same limit, flows, target and
//! gains, de-randomisation off, updates from 0 s. Left out: Linux's `memory_limit`,
//! which drops nothing (it only counts arrivals over it), and ECN (next step; off
//! by default in Linux's `fq_pie`).

use rand::RngExt;

use super::flow_queues::FlowQueues;
use super::fq_codel::check_flows_and_quantum;
use super::pie::{Pie, PieConfig};
use super::{Admission, DropCause, Dropped, QueueDiscipline, Queued};
use crate::net::queue::QueueLimit;
use crate::packet::Packet;
use crate::rng::RngStream;
use crate::time::SimTime;

/// FQ-PIE's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqPieConfig {
    /// Each queue's PIE; its `limit` is the whole queue's.
    pub pie: PieConfig,
    /// Queues packets are hashed into (Linux: 1 to 65 536).
    pub flows: u32,
    /// Bytes a queue may send per DRR++ round.
    pub quantum: u32,
}

impl Default for FqPieConfig {
    fn default() -> Self {
        FqPieConfig {
            pie: PieConfig {
                limit: QueueLimit::Packets(10_240),
                ..PieConfig::default()
            },
            flows: 1024,
            quantum: 1500,
        }
    }
}

impl FqPieConfig {
    /// The first parameter out of its range, as (name, message).
    pub fn check(&self) -> Result<(), (String, String)> {
        self.pie.check()?;
        check_flows_and_quantum(self.flows, self.quantum)
    }
}

pub struct FqPie {
    config: PieConfig,
    queues: FlowQueues<Pie>,
    rng: RngStream,
}

impl FqPie {
    /// The hash key is the first draw of `rng` (the link's named stream); drops draw
    /// from it after.
    pub fn new(config: FqPieConfig, mut rng: RngStream) -> Self {
        let key = rng.random::<u64>();
        let pie = config.pie;
        FqPie {
            queues: FlowQueues::new(config.flows, config.quantum, key, || Pie::new(&pie)),
            config: pie,
            rng,
        }
    }
}

impl QueueDiscipline for FqPie {
    /// Linux's `fq_pie_qdisc_enqueue`.
    fn enqueue(
        &mut self,
        now: SimTime,
        packet: Packet,
        _idle_since: Option<SimTime>,
        _dropped: &mut Vec<Dropped>,
    ) -> Admission {
        let i = self.queues.classify(&packet);
        let totals = self.queues.totals;
        let flow = self.queues.flow_mut(i);
        let backlog = flow.fifo.bytes();
        flow.aqm.catch_up(&self.config, now, backlog);
        let cause = if !self
            .config
            .limit
            .admits(totals.packets, totals.bytes, packet.size)
        {
            DropCause::Overflow
        } else if flow
            .aqm
            .drop_early(&self.config, backlog, packet.size, &mut self.rng)
        {
            DropCause::Early
        } else {
            self.queues.push(
                i,
                Queued {
                    packet,
                    arrived: now,
                },
            );
            return Admission::Queued;
        };
        flow.aqm.dropped();
        Admission::Dropped(cause)
    }

    fn dequeue(&mut self, now: SimTime, _dropped: &mut Vec<Dropped>) -> Option<Queued> {
        let config = &self.config;
        self.queues.dequeue(|flow, totals| {
            flow.aqm.catch_up(config, now, flow.fifo.bytes());
            let q = totals.pop(&mut flow.fifo)?;
            flow.aqm.departed(config, now, &q, flow.fifo.bytes());
            Some(q)
        })
    }

    fn packets(&self) -> usize {
        self.queues.totals.packets
    }

    fn bytes(&self) -> u64 {
        self.queues.totals.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_packets::packet;
    use super::*;
    use crate::rng;

    fn fq(config: FqPieConfig) -> FqPie {
        FqPie::new(config, rng::stream(1, "fq_pie"))
    }

    /// Two flow ids whose packets go to different queues, and their queues.
    fn two_flows(q: &FqPie) -> ((u32, usize), (u32, usize)) {
        let qa = q.queues.classify(&packet(0, 0, 1500));
        let (b, qb) = (1..)
            .map(|f| (f, q.queues.classify(&packet(0, f, 1500))))
            .find(|&(_, qb)| qb != qa)
            .unwrap();
        ((0, qa), (b, qb))
    }

    fn offer(q: &mut FqPie, uid: u64, flow: u32) -> Admission {
        q.enqueue(
            SimTime::ZERO,
            packet(uid, flow, 1500),
            None,
            &mut Vec::new(),
        )
    }

    /// Makes queue `i`'s PIE drop every arrival it may: p = 1, no burst allowance
    /// left, delay 20 ms (above target/2).
    fn congest(q: &mut FqPie, i: usize) {
        let fresh = Pie::new(&q.config);
        let pie = &mut q.queues.flow_mut(i).aqm;
        *pie = fresh;
        pie.force(1.0, SimTime::from_millis(20));
    }

    #[test]
    fn each_queue_has_its_own_drop_probability() {
        // Queue a congested (p = 1, 3000 B queued ≥ 2·1500): its arrival is dropped
        // early. Queue b is fresh (burst allowance left): its arrival is queued.
        let mut q = fq(FqPieConfig::default());
        let ((a, qa), (b, _)) = two_flows(&q);
        offer(&mut q, 0, a);
        offer(&mut q, 1, a);
        congest(&mut q, qa);
        assert_eq!(offer(&mut q, 2, a), Admission::Dropped(DropCause::Early));
        assert_eq!(offer(&mut q, 3, b), Admission::Queued);
    }

    #[test]
    fn the_two_packet_floor_counts_the_arrivals_own_queue() {
        // Queue a congested but holding one packet (1500 B < 2·1500 B): its arrival is
        // kept although the whole queue holds 20 packets (b's 19).
        let mut q = fq(FqPieConfig::default());
        let ((a, qa), (b, _)) = two_flows(&q);
        offer(&mut q, 0, a);
        for uid in 1..20 {
            offer(&mut q, uid, b);
        }
        congest(&mut q, qa);
        assert_eq!(offer(&mut q, 20, a), Admission::Queued);
    }

    #[test]
    fn the_whole_queues_limit_drops_as_overflow() {
        let mut q = fq(FqPieConfig {
            pie: PieConfig {
                limit: QueueLimit::Packets(2),
                ..Default::default()
            },
            ..Default::default()
        });
        let ((a, _), (b, _)) = two_flows(&q);
        offer(&mut q, 0, a);
        offer(&mut q, 1, b);
        assert_eq!(offer(&mut q, 2, b), Admission::Dropped(DropCause::Overflow));
    }

    #[test]
    fn a_departure_sets_its_own_queues_delay() {
        // a's packet arrived at 0 and leaves at 12 ms with a's queue still holding
        // one: a's delay is 12 ms; b's is untouched (0).
        let mut q = fq(FqPieConfig::default());
        let ((a, qa), (b, qb)) = two_flows(&q);
        offer(&mut q, 0, a);
        offer(&mut q, 1, a);
        offer(&mut q, 2, b);
        let sent = q.dequeue(SimTime::from_millis(12), &mut Vec::new());
        assert_eq!(sent.map(|s| s.packet.uid), Some(0));
        assert_eq!(q.queues.flow(qa).aqm.delay(), SimTime::from_millis(12));
        assert_eq!(q.queues.flow(qb).aqm.delay(), SimTime::ZERO);
    }

    #[test]
    fn check_names_the_parameter_out_of_range() {
        let d = FqPieConfig::default();
        assert!(d.check().is_ok());
        let bad = |c: FqPieConfig| c.check().unwrap_err().0;
        assert_eq!(bad(FqPieConfig { quantum: 0, ..d }), "quantum");
        assert_eq!(bad(FqPieConfig { flows: 0, ..d }), "flows");
        let pie = PieConfig {
            tupdate: SimTime::ZERO,
            ..d.pie
        };
        assert_eq!(bad(FqPieConfig { pie, ..d }), "tupdate");
    }
}

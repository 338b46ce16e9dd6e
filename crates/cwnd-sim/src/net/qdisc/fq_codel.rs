//! FQ-CoDel, the Flow Queue CoDel packet scheduler (T. Hoeiland-Joergensen, P.
//! McKenney, D. Taht, J. Gettys, E. Dumazet, RFC 8290, 2018; Linux
//! net/sched/sch_fq_codel.c): packets hashed into `flows` queues served by DRR++
//! (`flow_queues.rs`), each queue with its own CoDel state (`codel.rs`).
//!
//! * **Enqueue** (RFC 8290 §4.1.1–4.1.2, `fq_codel_enqueue`): the packet joins its
//!   queue; if the whole queue is then over its limit (packets or bytes) or over its
//!   memory limit, the fattest queue (most bytes) loses packets from its head until
//!   half its bytes are gone or `drop_batch` packets are (at least one) — the fat-flow
//!   batch drop — and that queue's CoDel count grows by the packets dropped ("tell
//!   codel to increase its signal strength", Linux). The arriving packet was queued
//!   first: if its own queue was the fattest and lost everything, it is among the
//!   packets dropped (Linux then answers `NET_XMIT_CN`, "congestion", not a drop).
//! * **Dequeue** (§4.2): DRR++ picks a queue; its CoDel takes the packet, perhaps
//!   dropping some first, with the backlog test on the whole queue's bytes (Linux
//!   passes `sch->qstats.backlog`).
//!
//! Defaults (Linux `fq_codel_init`): limit 10 240 packets, 1024 flows, quantum 1500 B
//! (Linux: `psched_mtu`, 1514 on Ethernet), memory limit 32 MiB, drop batch 64,
//! CoDel target 5 ms, interval 100 ms, mtu 1500 B. ns-3 3.44's `FqCoDelQueueDisc`
//! has the same limit, flows, batch, target and interval, its quantum is the device's
//! MTU, and it has no memory limit. Simplified: memory counts packets' IP bytes, where
//! Linux counts each buffer's `truesize` (its allocation, about 1.5–3× a full-size
//! packet), so the memory limit binds later here; no ECN yet (Linux marks ECN-capable
//! packets by default instead of dropping them: ECN is the next step).

use rand::RngExt;

use super::codel::{check_limit, CoDel, CoDelParams, CoDelSource};
use super::fifo::PacketFifo;
use super::flow_queues::{FlowQueues, Totals};
use super::{Admission, DropCause, Dropped, QueueDiscipline, Queued};
use crate::net::queue::QueueLimit;
use crate::packet::Packet;
use crate::rng::RngStream;
use crate::time::SimTime;

/// FQ-CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCoDelConfig {
    /// Each queue's CoDel target.
    pub target: SimTime,
    /// Each queue's CoDel interval.
    pub interval: SimTime,
    /// CoDel's minimum backlog (bytes of the whole queue) for a drop.
    pub mtu: u32,
    /// The whole queue's limit; beyond it, the fat-flow batch drop.
    pub limit: QueueLimit,
    /// Queues packets are hashed into (Linux: 1 to 65 536).
    pub flows: u32,
    /// Bytes a queue may send per DRR++ round.
    pub quantum: u32,
    /// Bytes the whole queue may hold before the fat-flow batch drop.
    pub memory_limit: u64,
    /// Most packets one batch drop takes.
    pub drop_batch: u32,
}

impl Default for FqCoDelConfig {
    fn default() -> Self {
        FqCoDelConfig {
            target: SimTime::from_millis(5),
            interval: SimTime::from_millis(100),
            mtu: 1500,
            limit: QueueLimit::Packets(10_240),
            flows: 1024,
            quantum: 1500,
            memory_limit: 32 << 20,
            drop_batch: 64,
        }
    }
}

/// Linux's range for the number of flows (`fq_codel_change`).
const MAX_FLOWS: u32 = 65_536;
/// Linux's largest quantum (`fq_codel_change` refuses more than 2²⁰; it raises a
/// quantum under 256 to 256, where this check accepts any from 1).
const MAX_QUANTUM: u32 = 1 << 20;

impl FqCoDelConfig {
    /// The first parameter out of its range, as (name, message).
    pub fn check(&self) -> Result<(), (String, String)> {
        self.codel().check()?;
        check_limit(self.limit)?;
        check_flows_and_quantum(self.flows, self.quantum)?;
        if self.memory_limit == 0 {
            return Err((
                "memory_limit".into(),
                "0 B is not allowed; use 1 B or more".into(),
            ));
        }
        if self.drop_batch == 0 {
            return Err((
                "drop_batch".into(),
                "0 is not allowed; use 1 packet or more".into(),
            ));
        }
        Ok(())
    }

    fn codel(&self) -> CoDelParams {
        CoDelParams {
            target: self.target,
            interval: self.interval,
            mtu: self.mtu,
        }
    }
}

/// The checks FQ-CoDel and FQ-PIE share.
pub(super) fn check_flows_and_quantum(flows: u32, quantum: u32) -> Result<(), (String, String)> {
    if !(1..=MAX_FLOWS).contains(&flows) {
        return Err((
            "flows".into(),
            format!("{flows} is not allowed; use 1 to {MAX_FLOWS}"),
        ));
    }
    if !(1..=MAX_QUANTUM).contains(&quantum) {
        return Err((
            "quantum".into(),
            format!("{quantum} B is not allowed; use 1 B to {MAX_QUANTUM} B"),
        ));
    }
    Ok(())
}

pub struct FqCoDel {
    config: FqCoDelConfig,
    codel: CoDelParams,
    queues: FlowQueues<CoDel>,
}

impl FqCoDel {
    /// The hash key is the first draw of `rng` (the link's named stream).
    pub fn new(config: FqCoDelConfig, mut rng: RngStream) -> Self {
        let key = rng.random::<u64>();
        FqCoDel {
            codel: config.codel(),
            queues: FlowQueues::new(config.flows, config.quantum, key, CoDel::default),
            config,
        }
    }

    fn over_limit(&self) -> bool {
        let t = self.queues.totals;
        !self.config.limit.holds(t.packets, t.bytes) || t.bytes > self.config.memory_limit
    }

    /// Linux's `fq_codel_drop`: the fattest queue loses up to half its bytes from its
    /// head, `drop_batch` packets at most and one at least.
    fn drop_from_fattest(&mut self, dropped: &mut Vec<Dropped>) {
        let fat = self.queues.fattest();
        let threshold = self.queues.flow(fat).fifo.bytes() / 2;
        let (mut bytes, mut packets) = (0u64, 0u32);
        while let Some(q) = self.queues.pop_head(fat) {
            bytes += q.packet.size as u64;
            packets += 1;
            dropped.push(Dropped {
                packet: q.packet,
                cause: DropCause::Overflow,
            });
            if packets >= self.config.drop_batch || bytes >= threshold {
                break;
            }
        }
        let codel = &mut self.queues.flow_mut(fat).aqm;
        codel.count = codel.count.wrapping_add(packets);
    }
}

/// One queue's packets as CoDel sees them: its own head, the whole queue's backlog.
struct FlowSource<'a> {
    fifo: &'a mut PacketFifo,
    totals: &'a mut Totals,
}

impl CoDelSource for FlowSource<'_> {
    fn pop(&mut self) -> Option<Queued> {
        self.totals.pop(self.fifo)
    }

    fn backlog(&self) -> u64 {
        self.totals.bytes
    }
}

impl QueueDiscipline for FqCoDel {
    fn enqueue(
        &mut self,
        now: SimTime,
        packet: Packet,
        _idle_since: Option<SimTime>,
        dropped: &mut Vec<Dropped>,
    ) -> Admission {
        let i = self.queues.classify(&packet);
        self.queues.push(
            i,
            Queued {
                packet,
                arrived: now,
            },
        );
        if !self.over_limit() {
            return Admission::Queued;
        }
        self.drop_from_fattest(dropped);
        Admission::Queued
    }

    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
        let codel = &self.codel;
        self.queues.dequeue(|flow, totals| {
            let mut source = FlowSource {
                fifo: &mut flow.fifo,
                totals,
            };
            flow.aqm.dequeue(codel, now, &mut source, dropped)
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

    fn fq(config: FqCoDelConfig) -> FqCoDel {
        FqCoDel::new(config, rng::stream(1, "fq_codel"))
    }

    /// Two flow ids whose packets go to different queues of `q`.
    fn two_flows(q: &FqCoDel) -> (u32, u32) {
        let qa = q.queues.classify(&packet(0, 0, 1500));
        let b = (1..)
            .find(|&f| q.queues.classify(&packet(0, f, 1500)) != qa)
            .unwrap();
        (0, b)
    }

    fn offer(q: &mut FqCoDel, t: SimTime, uid: u64, flow: u32, size: u32) -> (Admission, Vec<u64>) {
        let mut dropped = Vec::new();
        let a = q.enqueue(t, packet(uid, flow, size), None, &mut dropped);
        (a, dropped.iter().map(|d| d.packet.uid).collect())
    }

    fn next(q: &mut FqCoDel, t: SimTime) -> (Option<u64>, Vec<u64>) {
        let mut dropped = Vec::new();
        let sent = q.dequeue(t, &mut dropped).map(|d| d.packet.uid);
        (sent, dropped.iter().map(|d| d.packet.uid).collect())
    }

    #[test]
    fn a_sparse_flow_overtakes_a_bulk_backlog() {
        // Flow a has 20 packets queued and has sent one; flow b's single packet
        // arrives: its queue is new, so it is sent next, ahead of a's 19.
        let mut q = fq(FqCoDelConfig::default());
        let (a, b) = two_flows(&q);
        for uid in 0..20 {
            offer(&mut q, SimTime::ZERO, uid, a, 1500);
        }
        assert_eq!(next(&mut q, SimTime::ZERO).0, Some(0));
        offer(&mut q, SimTime::ZERO, 100, b, 100);
        // a's deficit is used up (1500 − 1500 = 0): it moves to the old list, and the
        // new list's b goes first.
        assert_eq!(next(&mut q, SimTime::ZERO).0, Some(100));
        assert_eq!(next(&mut q, SimTime::ZERO).0, Some(1));
    }

    #[test]
    fn over_the_limit_the_fattest_flow_loses_half_its_bytes_from_its_head() {
        // Limit 10 packets. Flow a: 8 × 1500 B = 12 000 B; flow b: 2 × 1500 B. b's third
        // packet makes 11 > 10: the fattest is a (12 000 B), threshold 6000 B, so a
        // loses 1500, 3000, 4500, 6000 B: its first four packets (uids 0–3). a's CoDel
        // count grows by 4. The arrival (b's) stays: 7 packets remain.
        let mut q = fq(FqCoDelConfig {
            limit: QueueLimit::Packets(10),
            ..Default::default()
        });
        let (a, b) = two_flows(&q);
        for uid in 0..8 {
            offer(&mut q, SimTime::ZERO, uid, a, 1500);
        }
        for uid in 100..102 {
            offer(&mut q, SimTime::ZERO, uid, b, 1500);
        }
        assert_eq!(
            offer(&mut q, SimTime::ZERO, 102, b, 1500),
            (Admission::Queued, vec![0, 1, 2, 3])
        );
        assert_eq!(q.packets(), 7);
        let ia = q.queues.classify(&packet(0, a, 1500));
        assert_eq!(q.queues.flow(ia).aqm.count, 4);
    }

    #[test]
    fn the_batch_stops_at_drop_batch_packets() {
        // As above with drop_batch 2: a loses only 0 and 1 (3000 B < 6000 B).
        let mut q = fq(FqCoDelConfig {
            limit: QueueLimit::Packets(10),
            drop_batch: 2,
            ..Default::default()
        });
        let (a, b) = two_flows(&q);
        for uid in 0..8 {
            offer(&mut q, SimTime::ZERO, uid, a, 1500);
        }
        for uid in 100..103 {
            offer(&mut q, SimTime::ZERO, uid, b, 1500);
        }
        assert_eq!(q.packets(), 9);
    }

    #[test]
    fn an_arrival_in_the_fattest_flow_can_be_the_packet_dropped() {
        // Limit 1 packet: a holds 100 B; b's 1500-B arrival makes 2 > 1. The fattest
        // is b (1500 B), threshold 750 B: its head — the arrival itself, queued first —
        // goes (1500 ≥ 750); nothing else does.
        let mut q = fq(FqCoDelConfig {
            limit: QueueLimit::Packets(1),
            ..Default::default()
        });
        let (a, b) = two_flows(&q);
        offer(&mut q, SimTime::ZERO, 0, a, 100);
        assert_eq!(
            offer(&mut q, SimTime::ZERO, 1, b, 1500),
            (Admission::Queued, vec![1])
        );
        assert_eq!((q.packets(), q.bytes()), (1, 100));
    }

    #[test]
    fn the_memory_limit_triggers_the_same_batch_drop() {
        // Memory limit 3000 B: a third 1500-B packet of one flow makes 4500 B; the
        // flow (the fattest) loses half of 4500 = 2250 B: two packets (1500, 3000 B).
        let mut q = fq(FqCoDelConfig {
            memory_limit: 3000,
            ..Default::default()
        });
        for uid in 0..2 {
            offer(&mut q, SimTime::ZERO, uid, 7, 1500);
        }
        assert_eq!(
            offer(&mut q, SimTime::ZERO, 2, 7, 1500),
            (Admission::Queued, vec![0, 1])
        );
    }

    #[test]
    fn each_flow_runs_its_own_codel() {
        // Flows a and b, 50 packets each, all arrived at 0; DRR++ alternates a, b.
        // a is first dequeued at 10 ms (first_above 110 ms), b at 50 ms (150 ms). At
        // 110 ms a drops its head; at 120 ms b, whose clock runs to 150 ms, does not.
        let mut q = fq(FqCoDelConfig::default());
        let (a, b) = two_flows(&q);
        for uid in 0..50 {
            offer(&mut q, SimTime::ZERO, uid, a, 1500);
            offer(&mut q, SimTime::ZERO, 100 + uid, b, 1500);
        }
        let ms = SimTime::from_millis;
        assert_eq!(next(&mut q, ms(10)), (Some(0), vec![]));
        assert_eq!(next(&mut q, ms(50)), (Some(100), vec![]));
        assert_eq!(next(&mut q, ms(110)), (Some(2), vec![1]));
        assert_eq!(next(&mut q, ms(120)), (Some(101), vec![]));
    }

    #[test]
    fn check_names_the_parameter_out_of_range() {
        let bad = |c: FqCoDelConfig| c.check().unwrap_err().0;
        let d = FqCoDelConfig::default();
        assert!(d.check().is_ok());
        assert_eq!(bad(FqCoDelConfig { quantum: 0, ..d }), "quantum");
        assert_eq!(bad(FqCoDelConfig { flows: 0, ..d }), "flows");
        assert_eq!(bad(FqCoDelConfig { flows: 65_537, ..d }), "flows");
        assert_eq!(
            bad(FqCoDelConfig {
                target: SimTime::ZERO,
                ..d
            }),
            "target"
        );
        assert_eq!(
            bad(FqCoDelConfig {
                memory_limit: 0,
                ..d
            }),
            "memory_limit"
        );
        assert_eq!(bad(FqCoDelConfig { drop_batch: 0, ..d }), "drop_batch");
    }
}

//! CoDel, Controlled Delay (K. Nichols, V. Jacobson, A. McGregor, J. Iyengar, RFC 8289,
//! 2018; Nichols & Jacobson, "Controlling Queue Delay", ACM Queue 10(5), 2012). CoDel
//! decides at dequeue, from the sojourn time of the packet at the head of the queue:
//!
//! ```text
//! dodequeue:  sojourn < target, or backlog ≤ mtu       → first_above = none, ok = no
//!             first above target (first_above = none)  → first_above = now + interval
//!             now ≥ first_above                        → ok to drop
//! dropping:   !ok                                      → leave the dropping state
//!             while now ≥ drop_next and dropping:  drop it, count += 1, dequeue the
//!                 next; !ok → leave; else drop_next = control_law(drop_next, count)
//! not dropping, ok: drop it, dequeue the next; dropping = true;
//!             δ = count − lastcount; count = δ if δ > 1 and now − drop_next < 16·interval,
//!             else 1 (the count memory); lastcount = count;
//!             drop_next = control_law(now, count)
//! control_law(t, count) = t + interval / √count
//! ```
//!
//! The RFC's pseudo-code (§5) is followed, with `interval / √count` computed in
//! floating point and rounded to the nanosecond. Where the RFC leaves room this file
//! follows Linux (include/net/codel_impl.h, net/sched/sch_codel.c), and says so:
//! the backlog test compares the bytes still queued after the head was taken out with
//! `mtu` (the RFC's MAXPACKET; Linux's `params->mtu`, the device MTU); an empty queue
//! ends the dropping state; the count memory is Linux's, which the RFC adopts.
//! Linux differs in two details kept out on purpose: it approximates 1/√count with
//! one Newton step per count increment in 16-bit fixed point (from 1 at count 1, so
//! its third drop comes interval × 0.5 = 50 ms after the second, not 100/√2 = 70.7
//! ms; ns-3's `CoDelQueueDisc` does the same), and it counts time in 1024-ns units;
//! here time is exact to the nanosecond.
//!
//! Parameters and defaults (Linux): target 5 ms, interval 100 ms, mtu 1500 B (Linux:
//! the device's, 1514 on Ethernet with its header: `qdisc/mod.rs`'s note on sizes), limit
//! 1000 packets. ns-3 3.44's `CoDelQueueDisc`: the same target and interval,
//! `MinBytes` 1500, but a limit of 1 500 000 bytes (1500 × 1000) rather than 1000
//! packets. No ECN yet: CoDel drops (Linux's `ecn` off, its default for `codel`).

use super::fifo::PacketFifo;
use super::{Admission, DropCause, Dropped, QueueDiscipline, Queued};
use crate::net::queue::QueueLimit;
use crate::packet::Packet;
use crate::time::SimTime;

/// CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoDelConfig {
    /// Acceptable standing queue delay.
    pub target: SimTime,
    /// The window over which the delay must stay above `target` before a drop; also
    /// the first drop spacing of the control law.
    pub interval: SimTime,
    /// Backlog (bytes) at or under which CoDel never drops: one packet's worth.
    pub mtu: u32,
    /// Arrivals beyond it are dropped (overflow).
    pub limit: QueueLimit,
}

impl Default for CoDelConfig {
    fn default() -> Self {
        CoDelConfig {
            target: SimTime::from_millis(5),
            interval: SimTime::from_millis(100),
            mtu: 1500,
            limit: QueueLimit::Packets(1000),
        }
    }
}

impl CoDelConfig {
    /// The first parameter out of its range, as (name, message).
    pub fn check(&self) -> Result<(), (String, String)> {
        self.params().check()?;
        check_limit(self.limit)
    }

    fn params(&self) -> CoDelParams {
        CoDelParams {
            target: self.target,
            interval: self.interval,
            mtu: self.mtu,
        }
    }
}

/// What CoDel's state machine reads (FQ-CoDel gives every flow the same).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct CoDelParams {
    pub target: SimTime,
    pub interval: SimTime,
    pub mtu: u32,
}

impl CoDelParams {
    /// Target and interval positive, mtu at least 1 B.
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.target == SimTime::ZERO {
            return Err((
                "target".into(),
                "0 s is not allowed; use more than 0 s".into(),
            ));
        }
        if self.interval == SimTime::ZERO {
            return Err((
                "interval".into(),
                "0 s is not allowed; use more than 0 s".into(),
            ));
        }
        if self.mtu == 0 {
            return Err(("mtu".into(), "0 B is not allowed; use 1 B or more".into()));
        }
        Ok(())
    }
}

/// A queue must hold at least one packet: the transmitter takes packets from it.
pub(super) fn check_limit(limit: QueueLimit) -> Result<(), (String, String)> {
    match limit {
        QueueLimit::Packets(0) => Err((
            "limit".into(),
            "0 packets is not allowed; use 1 packet or more".into(),
        )),
        QueueLimit::Bytes(0) => Err(("limit".into(), "0 B is not allowed; use 1 B or more".into())),
        _ => Ok(()),
    }
}

/// Where CoDel takes packets from: a FIFO, or one flow of FQ-CoDel (whose backlog
/// test counts the whole queue's bytes, as Linux's `sch_fq_codel.c` does).
pub(super) trait CoDelSource {
    /// The head packet, taken out.
    fn pop(&mut self) -> Option<Queued>;
    /// Bytes still queued (after the pop).
    fn backlog(&self) -> u64;
}

/// CoDel's state (Linux's `struct codel_vars`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CoDel {
    /// Drops since the dropping state was entered (with the count memory).
    pub count: u32,
    lastcount: u32,
    dropping: bool,
    /// When the sojourn time will have been above target for an interval.
    first_above: Option<SimTime>,
    drop_next: SimTime,
}

impl CoDel {
    /// RFC 8289's `dodequeue`: whether `head`, just taken out, may be dropped.
    fn ok_to_drop(
        &mut self,
        config: &CoDelParams,
        now: SimTime,
        head: Option<&Queued>,
        backlog: u64,
    ) -> bool {
        let Some(head) = head else {
            self.first_above = None;
            return false;
        };
        let sojourn = now.saturating_sub(head.arrived);
        if sojourn < config.target || backlog <= config.mtu as u64 {
            self.first_above = None;
            return false;
        }
        match self.first_above {
            None => {
                self.first_above = Some(now + config.interval);
                false
            }
            Some(at) => now >= at,
        }
    }

    /// RFC 8289's `dequeue`: the packet to send, dropping on the way (into `dropped`).
    pub fn dequeue(
        &mut self,
        config: &CoDelParams,
        now: SimTime,
        source: &mut impl CoDelSource,
        dropped: &mut Vec<Dropped>,
    ) -> Option<Queued> {
        let mut head = source.pop();
        if head.is_none() {
            self.dropping = false;
            return None;
        }
        let ok = self.ok_to_drop(config, now, head.as_ref(), source.backlog());
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count = self.count.wrapping_add(1);
                drop_packet(head, dropped);
                head = source.pop();
                if self.ok_to_drop(config, now, head.as_ref(), source.backlog()) {
                    self.drop_next = control_law(config, self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok {
            drop_packet(head, dropped);
            head = source.pop();
            // Run for its side effects on `first_above`, as Linux and the RFC do.
            self.ok_to_drop(config, now, head.as_ref(), source.backlog());
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            let recent = now.saturating_sub(self.drop_next) < config.interval.saturating_mul(16);
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.lastcount = self.count;
            self.drop_next = control_law(config, now, self.count);
        }
        head
    }
}

fn drop_packet(head: Option<Queued>, dropped: &mut Vec<Dropped>) {
    if let Some(q) = head {
        dropped.push(Dropped {
            packet: q.packet,
            cause: DropCause::Dequeue,
        });
    }
}

/// t + interval / √count, to the nanosecond.
fn control_law(config: &CoDelParams, t: SimTime, count: u32) -> SimTime {
    let spacing = config.interval.as_nanos() as f64 / (count.max(1) as f64).sqrt();
    t + SimTime(spacing.round() as u64)
}

/// CoDel in front of one FIFO (Linux's `codel` qdisc).
pub struct CoDelQueue {
    config: CoDelConfig,
    params: CoDelParams,
    codel: CoDel,
    fifo: PacketFifo,
}

impl CoDelQueue {
    pub fn new(config: CoDelConfig) -> Self {
        CoDelQueue {
            params: config.params(),
            config,
            codel: CoDel::default(),
            fifo: PacketFifo::default(),
        }
    }
}

impl CoDelSource for PacketFifo {
    fn pop(&mut self) -> Option<Queued> {
        PacketFifo::pop(self)
    }

    fn backlog(&self) -> u64 {
        self.bytes()
    }
}

impl QueueDiscipline for CoDelQueue {
    /// Linux's `codel_qdisc_enqueue`: the limit only.
    fn enqueue(
        &mut self,
        now: SimTime,
        packet: Packet,
        _idle_since: Option<SimTime>,
        _dropped: &mut Vec<Dropped>,
    ) -> Admission {
        if !self
            .config
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

    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Dropped>) -> Option<Queued> {
        self.codel
            .dequeue(&self.params, now, &mut self.fifo, dropped)
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

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    /// A CoDel queue holding `n` packets of 1500 B that all arrived at 0.
    fn standing_queue(n: u64) -> CoDelQueue {
        let mut q = CoDelQueue::new(CoDelConfig::default());
        for uid in 0..n {
            q.enqueue(SimTime::ZERO, packet(uid, 0, 1500), None, &mut Vec::new());
        }
        q
    }

    /// Dequeues at `t`: the packet sent (uid) and the uids dropped on the way.
    fn dequeue_at(q: &mut CoDelQueue, t: SimTime) -> (Option<u64>, Vec<u64>) {
        let mut dropped = Vec::new();
        let sent = q.dequeue(t, &mut dropped).map(|d| d.packet.uid);
        (sent, dropped.iter().map(|d| d.packet.uid).collect())
    }

    #[test]
    fn no_drop_until_the_delay_has_stayed_above_target_for_an_interval() {
        // Every packet arrived at 0. At 10 ms the head has waited 10 ms > 5 ms:
        // first_above = 10 + 100 = 110 ms. At 109 ms: not yet. At 110 ms (now ≥
        // first_above) the head is dropped and the next one sent: dropping, count 1.
        let mut q = standing_queue(100);
        assert_eq!(dequeue_at(&mut q, ms(10)), (Some(0), vec![]));
        assert_eq!(q.codel.first_above, Some(ms(110)));
        assert_eq!(dequeue_at(&mut q, ms(109)), (Some(1), vec![]));
        assert_eq!(dequeue_at(&mut q, ms(110)), (Some(3), vec![2]));
        assert!(q.codel.dropping);
        assert_eq!(q.codel.count, 1);
        // control_law(110 ms, 1) = 110 + 100/√1 = 210 ms.
        assert_eq!(q.codel.drop_next, ms(210));
    }

    #[test]
    fn drops_are_spaced_by_interval_over_the_square_root_of_count() {
        // Entering at 110 ms (dropping 1, sending 2) with count 1: drop_next = 210 ms.
        // At 210 ms: count 2, drop; next = 210 + 100/√2 = 210 + 70.710678 =
        // 280.710678 ms. At 280.710678 ms: count 3; next = 280.710678 + 100/√3
        // (57.735027) = 338.445705 ms.
        let mut q = standing_queue(100);
        dequeue_at(&mut q, ms(10));
        assert_eq!(dequeue_at(&mut q, ms(110)), (Some(2), vec![1]));
        assert_eq!(dequeue_at(&mut q, ms(209)), (Some(3), vec![]));
        assert_eq!(dequeue_at(&mut q, ms(210)), (Some(5), vec![4]));
        assert_eq!(q.codel.count, 2);
        assert_eq!(q.codel.drop_next, SimTime(280_710_678));
        assert_eq!(dequeue_at(&mut q, SimTime(280_710_678)), (Some(7), vec![6]));
        assert_eq!(q.codel.drop_next, SimTime(280_710_678 + 57_735_027));
    }

    #[test]
    fn a_late_dequeue_drops_every_packet_whose_time_has_come() {
        // In the dropping state with drop_next = 210 ms, a dequeue at 300 ms drops at
        // 210 (count 2, next 280.710678 ms), then again since 300 ≥ 280.7 (count 3,
        // next 338.4 ms), and sends the third packet it took out.
        let mut q = standing_queue(100);
        dequeue_at(&mut q, ms(10));
        dequeue_at(&mut q, ms(110));
        assert_eq!(dequeue_at(&mut q, ms(300)), (Some(5), vec![3, 4]));
        assert_eq!(q.codel.count, 3);
    }

    #[test]
    fn a_backlog_of_one_mtu_or_less_is_never_dropped() {
        // Two 1500-B packets waited 200 ms. The first dequeue leaves 1500 B ≤ mtu:
        // no drop, and first_above stays unset however long they waited.
        let mut q = standing_queue(2);
        assert_eq!(dequeue_at(&mut q, ms(200)), (Some(0), vec![]));
        assert_eq!(q.codel.first_above, None);
    }

    #[test]
    fn a_sojourn_under_target_leaves_the_dropping_state() {
        // Dropping since 110 ms; the old packets are taken away, three arrive at 300
        // ms, and the first leaves at 303 ms having waited 3 ms < 5 ms: the state
        // ends and nothing is dropped.
        let mut q = standing_queue(100);
        dequeue_at(&mut q, ms(10));
        dequeue_at(&mut q, ms(110));
        assert!(q.codel.dropping);
        while q.fifo.pop().is_some() {}
        for uid in 200..203 {
            q.enqueue(ms(300), packet(uid, 0, 1500), None, &mut Vec::new());
        }
        assert_eq!(dequeue_at(&mut q, ms(303)), (Some(200), vec![]));
        assert!(!q.codel.dropping);
    }

    #[test]
    fn the_count_memory_restarts_near_the_last_drop_rate() {
        // Dropping with count 3 (lastcount 1, drop_next 338.445705 ms) from 300 ms;
        // the queue drains at 301 ms (its last packets leave the state: backlog ≤
        // mtu). A new standing queue arrives at 360 ms: at 400 ms its head is 40 ms
        // late, first_above = 500 ms; at 500 ms a drop enters the state again.
        // δ = 3 − 1 = 2 > 1 and 500 − 338.4 = 161.6 ms < 16 × 100 ms: count = 2, and
        // drop_next = 500 + 100/√2 = 570.710678 ms.
        let mut q = standing_queue(100);
        dequeue_at(&mut q, ms(10));
        dequeue_at(&mut q, ms(110));
        dequeue_at(&mut q, ms(300));
        assert_eq!((q.codel.count, q.codel.lastcount), (3, 1));
        while dequeue_at(&mut q, ms(301)).0.is_some() {}
        assert!(!q.codel.dropping);
        for uid in 200..300 {
            q.enqueue(ms(360), packet(uid, 0, 1500), None, &mut Vec::new());
        }
        assert_eq!(dequeue_at(&mut q, ms(400)), (Some(200), vec![]));
        assert_eq!(q.codel.first_above, Some(ms(500)));
        assert_eq!(dequeue_at(&mut q, ms(500)), (Some(202), vec![201]));
        assert_eq!((q.codel.count, q.codel.lastcount), (2, 2));
        assert_eq!(q.codel.drop_next, SimTime(570_710_678));
    }

    #[test]
    fn the_limit_drops_arrivals_as_overflow() {
        let config = CoDelConfig {
            limit: QueueLimit::Bytes(3000),
            ..Default::default()
        };
        let mut q = CoDelQueue::new(config);
        let mut dropped = Vec::new();
        for uid in 0..2 {
            q.enqueue(SimTime::ZERO, packet(uid, 0, 1500), None, &mut dropped);
        }
        // 3000 + 40 > 3000 B.
        assert_eq!(
            q.enqueue(SimTime::ZERO, packet(2, 0, 40), None, &mut dropped),
            Admission::Dropped(DropCause::Overflow)
        );
    }

    #[test]
    fn check_names_the_parameter_out_of_range() {
        let bad = |c: CoDelConfig| c.check().unwrap_err().0;
        let d = CoDelConfig::default();
        assert!(d.check().is_ok());
        assert_eq!(
            bad(CoDelConfig {
                target: SimTime::ZERO,
                ..d
            }),
            "target"
        );
        assert_eq!(
            bad(CoDelConfig {
                interval: SimTime::ZERO,
                ..d
            }),
            "interval"
        );
        assert_eq!(bad(CoDelConfig { mtu: 0, ..d }), "mtu");
        assert_eq!(
            bad(CoDelConfig {
                limit: QueueLimit::Packets(0),
                ..d
            }),
            "limit"
        );
    }
}

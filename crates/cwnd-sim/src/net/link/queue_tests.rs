//! Link-level tests of the queue disciplines and capacities: one link direction
//! driven through the `Medium` trait as the world drives it (its events in time
//! order, stale ones refused; at an instant, the link's events before arrivals),
//! with synthetic arrivals.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::RngExt;

use super::*;
use crate::net::capacity::{parse_mm_trace, RateSchedule};
use crate::net::impair::AppliesTo;
use crate::net::impair::{Impairment, Outage, Window};
use crate::net::qdisc::test_packets::packet;
use crate::net::qdisc::{CoDelConfig, CoDelQueue, DropTail, FqCoDel, FqCoDelConfig};
use crate::net::red::RedParams;
use crate::rng;

/// A link direction (a medium on either path) and what happened on it.
struct Run {
    link: AnyMedium,
    events: BinaryHeap<Reverse<SimTime>>,
    /// (time, uid) of each delivery.
    delivered: Vec<(SimTime, u64)>,
    /// (time, uid, why) of each loss the link reported at an event.
    lost: Vec<(SimTime, u64, Loss)>,
    /// (time, uid) of each arrival the queue refused.
    refused: Vec<(SimTime, u64)>,
}

impl Run {
    fn new(link: AnyMedium) -> Self {
        Run {
            link,
            events: BinaryHeap::new(),
            delivered: Vec::new(),
            lost: Vec::new(),
            refused: Vec::new(),
        }
    }

    fn schedule(&mut self) {
        if let Some(t) = self.link.event_to_schedule() {
            self.events.push(Reverse(t));
        }
    }

    /// Processes the link's events up to `t` included.
    fn advance_to(&mut self, t: SimTime) {
        while let Some(&Reverse(e)) = self.events.peek() {
            if e > t {
                break;
            }
            self.events.pop();
            let mut lost = Vec::new();
            if !self.link.on_event(e, &mut lost) {
                continue;
            }
            self.lost
                .extend(lost.iter().map(|&(p, why)| (e, p.uid, why)));
            while let Some((_, p)) = self.link.next_delivery(e) {
                self.delivered.push((e, p.uid));
            }
            self.schedule();
        }
    }

    fn offer(&mut self, t: SimTime, packet: Packet) {
        self.advance_to(t);
        // As the world: the link's event is asked for after an accepted packet only.
        match self.link.send(t, 0, 1, packet) {
            SendOutcome::DroppedQueue => self.refused.push((t, packet.uid)),
            SendOutcome::DroppedImpairment => self.lost.push((t, packet.uid, Loss::Medium)),
            SendOutcome::Accepted => self.schedule(),
        }
    }

    /// Runs to `end` and returns the link's report.
    fn finish(&mut self, end: SimTime) -> MediumReport {
        self.advance_to(end);
        self.link.report(end)
    }

    /// The link's counters, on either path.
    fn stats(&self) -> LinkStats {
        match &self.link {
            AnyMedium::Link(l) => l.stats,
            AnyMedium::QueuedLink(q) => q.link.stats,
            _ => unreachable!("a link"),
        }
    }

    /// The uids of the packets lost.
    fn lost_uids(&self) -> Vec<u64> {
        self.lost.iter().map(|&(_, uid, _)| uid).collect()
    }
}

fn params(rate_bps: u64, limit: QueueLimit) -> LinkParams {
    LinkParams {
        rate_bps,
        delay: SimTime::ZERO,
        overhead: 0,
        queue: limit,
    }
}

fn ms(t: u64) -> SimTime {
    SimTime::from_millis(t)
}

fn us(t: u64) -> SimTime {
    SimTime::from_micros(t)
}

/// A packet of flow `flow` that left its source at `t`.
fn sent_at(uid: u64, flow: u32, size: u32, t: SimTime) -> Packet {
    Packet {
        created: t,
        ..packet(uid, flow, size)
    }
}

/// Pseudo-random arrivals that overload a 10 Mb/s link about 1.3×: sizes 40, 576 or
/// 1500 B (mean 705 B: 0.564 ms of service), exponential gaps of mean 0.43 ms.
fn overload(seed: u64, n: u64) -> Vec<(SimTime, Packet)> {
    let mut r = rng::stream(seed, "arrivals");
    let mut t = 0.0;
    (0..n)
        .map(|uid| {
            t -= 0.43e-3 * (1.0 - r.random::<f64>()).ln();
            let size = [40, 576, 1500][r.random_range(0..3)];
            (
                SimTime::from_secs_f64(t),
                sent_at(uid, 0, size, SimTime::ZERO),
            )
        })
        .collect()
}

/// Everything a run reports, to compare two runs.
fn outcome(run: &mut Run, end: SimTime) -> impl PartialEq + std::fmt::Debug {
    let MediumReport::Link {
        stats,
        queue,
        sojourn,
        ..
    } = run.finish(end)
    else {
        unreachable!("a link");
    };
    let q = queue.unwrap();
    (
        run.delivered.clone(),
        run.refused.clone(),
        stats,
        sojourn,
        (q.time, q.packets, q.bytes, q.departure, q.sojourn),
    )
}

#[test]
fn droptail_and_red_decide_alike_on_both_paths() {
    // The same arrivals through the fast path (fixed rate) and through the dequeue
    // path (a schedule of one step at the same rate): the same deliveries at the same
    // nanoseconds, the same refusals, counters, waits and queue trace. RED draws from
    // the same stream on both.
    for red in [false, true] {
        let make = |capacity: Capacity| {
            let limit = QueueLimit::Packets(20);
            let mut fifo = DropTail::new(limit);
            if red {
                let params = RedParams {
                    min_th: 3.0,
                    max_th: 9.0,
                    ..Default::default()
                };
                fifo = fifo.with_red(Red::new(params, 10_000_000, rng::stream(1, "red")));
            }
            let link = LinkDirection::new(0, 1, params(10_000_000, limit), true);
            Run::new(link.with_queue(Discipline::DropTail(fifo), capacity))
        };
        let mut fast = make(Capacity::Fixed);
        let one_step = RateSchedule::new(vec![(SimTime::ZERO, 10_000_000)]).unwrap();
        let mut dequeue = make(Capacity::Schedule(one_step));
        assert!(matches!(fast.link, AnyMedium::Link(_)));
        assert!(matches!(dequeue.link, AnyMedium::QueuedLink(_)));
        for (t, p) in overload(5, 3000) {
            fast.offer(t, p);
            dequeue.offer(t, p);
        }
        assert!(
            !fast.refused.is_empty(),
            "the queue overflowed (red: {red})"
        );
        assert_eq!(
            outcome(&mut fast, ms(3000)),
            outcome(&mut dequeue, ms(3000))
        );
    }
}

#[test]
fn codel_drops_at_the_dequeue_after_an_interval_above_target() {
    // 10 Mb/s, 1500-B packets (1.2 ms each), one arriving every 1 ms from 0: packet
    // k starts at 1.2k ms having waited 0.2k ms. Packet 25 (at 30 ms) is the first to
    // wait 5 ms (not under target): first_above = 130 ms. The first dequeue at or
    // after 130 ms is packet 109's at 130.8 ms: it is dropped and 110 sent; drop_next
    // = 230.8 ms. Each dequeue then takes the next uid, 1.2 ms apart: the first at or
    // after 230.8 ms is at 130.8 + 84 × 1.2 = 231.6 ms, uid 110 + 84 = 194: dropped.
    let link = LinkDirection::new(0, 1, params(10_000_000, QueueLimit::Packets(10_000)), false);
    let mut run = Run::new(link.with_queue(
        Discipline::CoDel(CoDelQueue::new(CoDelConfig::default())),
        Capacity::Fixed,
    ));
    for k in 0..232 {
        run.offer(ms(k), sent_at(k, 0, 1500, ms(k)));
    }
    run.advance_to(ms(232));
    assert_eq!(
        run.lost,
        vec![
            (us(130_800), 109, Loss::Queue),
            (us(231_600), 194, Loss::Queue)
        ]
    );
    // 110 was sent at 130.8 ms and arrives 1.2 ms later (no propagation delay).
    assert!(run.delivered.contains(&(us(132_000), 110)));
    assert_eq!(run.stats().drops_dequeue, 2);
    assert_eq!(run.stats().drops_queue, 2);
}

#[test]
fn fq_codel_keeps_a_sparse_flow_out_of_the_bulk_queue() {
    // A bulk flow sends 1500 B every 1 ms into 10 Mb/s (1.2 ms each: its queue grows);
    // a sparse flow sends 100 B every 50 ms. A sparse packet's queue is new: it goes
    // after the bulk packet being sent (at most 1.2 ms) and takes 0.08 ms itself, so
    // it arrives within 1.28 ms of being sent. The bulk flow's packets wait far longer.
    let config = FqCoDelConfig::default();
    let fq = FqCoDel::new(config, rng::stream(1, "links[0].queue.forward"));
    let link = LinkDirection::new(0, 1, params(10_000_000, QueueLimit::Packets(1)), false);
    let mut run = Run::new(link.with_queue(Discipline::FqCoDel(fq), Capacity::Fixed));
    let sparse = 1_000_000;
    let mut sparse_sent = Vec::new();
    for k in 0..2000 {
        run.offer(ms(k), sent_at(k, 0, 1500, ms(k)));
        if k % 50 == 25 {
            run.offer(ms(k), sent_at(sparse + k, 1, 100, ms(k)));
            sparse_sent.push((sparse + k, ms(k)));
        }
    }
    run.advance_to(ms(2100));
    for (uid, sent) in sparse_sent {
        let &(at, _) = run.delivered.iter().find(|d| d.1 == uid).unwrap();
        assert!(
            at - sent <= us(1280),
            "sparse packet {uid} took {}",
            at - sent
        );
    }
    // The bulk flow overloads the link by 1/6: CoDel drops it, never the sparse flow.
    assert!(run.lost_uids().iter().all(|&uid| uid < sparse));
    assert!(run.stats().drops_dequeue > 0);
}

#[test]
fn fq_codels_batch_drop_reaches_the_world_at_once() {
    // Limit 3 packets, the link busy with a first packet: three more wait, a fourth
    // makes 4 > 3, and the fattest (the only) queue loses half its 4 × 1500 B from
    // its head: uids 1 and 2 (3000 B). The link asks for an event at that instant and
    // hands them over as queue losses.
    let config = FqCoDelConfig {
        limit: QueueLimit::Packets(3),
        ..Default::default()
    };
    let fq = FqCoDel::new(config, rng::stream(1, "fq"));
    let link = LinkDirection::new(0, 1, params(10_000_000, QueueLimit::Packets(1)), false);
    let mut run = Run::new(link.with_queue(Discipline::FqCoDel(fq), Capacity::Fixed));
    for uid in 0..5 {
        run.offer(SimTime::ZERO, sent_at(uid, 0, 1500, SimTime::ZERO));
    }
    run.advance_to(SimTime::ZERO);
    assert_eq!(
        run.lost,
        vec![
            (SimTime::ZERO, 1, Loss::Queue),
            (SimTime::ZERO, 2, Loss::Queue)
        ]
    );
    assert_eq!(run.stats().drops_overflow, 2);
}

#[test]
fn a_saturated_trace_delivers_exactly_the_bytes_it_allows() {
    // Trace "0 2 2 5": a period of 5 ms with opportunities at 0, 2, 2 and 5 ms, then
    // 5, 7, 7, 10 ms, 10, 12, 12, 15 … 100 packets of 1000 B (1004 B with the TUN
    // header) arrive at 0: the opportunity at 0 comes before them (mm-link uses the
    // opportunities up to now before it enqueues) and is lost. Opportunities by
    // 20 ms: 2, 2, 5 │ 5, 7, 7, 10 │ 10, 12, 12, 15 │ 15, 17, 17, 20 │ 20: 16 × 1504
    // = 24 064 B, room for ⌊24 064 / 1004⌋ = 23 packets (23 092 B). Packet n leaves at
    // the opportunity where its last byte goes, the ⌈1004·n / 1504⌉-th: n = 1: 1st (2
    // ms); 2: ⌈1.335⌉ = 2nd (2 ms); 3: ⌈2.003⌉ = 3rd (5 ms); 4: ⌈2.67⌉ = 3rd (5 ms);
    // 5: ⌈3.34⌉ = 4th (5 ms); 6: ⌈4.005⌉ = 5th (7 ms); 7: ⌈4.67⌉ = 5th (7 ms); 8:
    // ⌈5.34⌉ = 6th (7 ms); 9: ⌈6.008⌉ = 7th (10 ms); 10: ⌈6.68⌉ = 7th (10 ms).
    let trace = parse_mm_trace("0\n2\n2\n5\n").unwrap();
    let link = LinkDirection::new(0, 1, params(1, QueueLimit::Packets(1)), false);
    let fifo = DropTail::new(QueueLimit::Packets(1000));
    let mut run = Run::new(link.with_queue(Discipline::DropTail(fifo), Capacity::Trace(trace)));
    for uid in 0..100 {
        run.offer(SimTime::ZERO, sent_at(uid, 0, 1000, SimTime::ZERO));
    }
    run.advance_to(ms(20));
    let first: Vec<(SimTime, u64)> = run.delivered.iter().copied().take(10).collect();
    let expected = [2, 2, 5, 5, 5, 7, 7, 7, 10, 10]
        .iter()
        .zip(0..)
        .map(|(&t, uid)| (ms(t), uid))
        .collect::<Vec<_>>();
    assert_eq!(first, expected);
    assert_eq!(run.delivered.len(), 23);
    assert_eq!(run.stats().bytes_sent, 23_000);
}

#[test]
fn a_trace_loses_the_opportunities_of_an_idle_link_and_loops() {
    // Same trace. A packet arriving at 2 ms misses both 2-ms opportunities (used, or
    // lost, before it is queued) and leaves at 5 ms; one arriving at 6 ms leaves at
    // 7 ms (the idle link's opportunity at 5 ms is gone); one at 1 000 003 ms leaves
    // in period 200 000 (from 1 000 000 ms) at 1 000 005 ms.
    let trace = parse_mm_trace("0\n2\n2\n5\n").unwrap();
    let link = LinkDirection::new(0, 1, params(1, QueueLimit::Packets(1)), false);
    let fifo = DropTail::new(QueueLimit::Packets(1000));
    let mut run = Run::new(link.with_queue(Discipline::DropTail(fifo), Capacity::Trace(trace)));
    for (uid, t) in [(0, 2), (1, 6), (2, 1_000_003)] {
        run.offer(ms(t), sent_at(uid, 0, 1500, ms(t)));
    }
    run.advance_to(ms(2_000_000));
    assert_eq!(
        run.delivered,
        vec![(ms(5), 0), (ms(7), 1), (ms(1_000_005), 2)]
    );
}

#[test]
fn small_packets_share_an_opportunity_and_a_large_one_spans_two() {
    // Trace "1 2 3" (period 3 ms). At 0: a 1500-B packet (1504 B: all of the 1-ms
    // opportunity) and three of 496 B (500 B each: 1500 B of the 2-ms one), then a
    // 1000-B one (1004 B): 4 B at 2 ms, the other 1000 at 3 ms.
    let trace = parse_mm_trace("1\n2\n3\n").unwrap();
    let link = LinkDirection::new(0, 1, params(1, QueueLimit::Packets(1)), false);
    let fifo = DropTail::new(QueueLimit::Packets(10));
    let mut run = Run::new(link.with_queue(Discipline::DropTail(fifo), Capacity::Trace(trace)));
    for (uid, size) in [(0, 1500), (1, 496), (2, 496), (3, 496), (4, 1000)] {
        run.offer(SimTime::ZERO, sent_at(uid, 0, size, SimTime::ZERO));
    }
    run.advance_to(ms(10));
    assert_eq!(
        run.delivered,
        vec![(ms(1), 0), (ms(2), 1), (ms(2), 2), (ms(2), 3), (ms(3), 4)]
    );
}

#[test]
fn a_rate_schedule_serves_each_packet_at_the_rates_it_spans() {
    // 12 Mb/s until 2 ms, then 1.2 Mb/s. Three 1500-B packets (12 000 bits) at 0:
    // the first takes 1 ms (ends 1 ms); the second sends 12 000 bits… 1 ms at
    // 12 Mb/s = all of it: ends 2 ms; the third, all at 1.2 Mb/s: 10 ms, ends 12 ms.
    let schedule =
        RateSchedule::new(vec![(SimTime::ZERO, 12_000_000), (ms(2), 1_200_000)]).unwrap();
    let link = LinkDirection::new(0, 1, params(12_000_000, QueueLimit::Packets(10)), false);
    let fifo = DropTail::new(QueueLimit::Packets(10));
    let mut run =
        Run::new(link.with_queue(Discipline::DropTail(fifo), Capacity::Schedule(schedule)));
    for uid in 0..3 {
        run.offer(SimTime::ZERO, sent_at(uid, 0, 1500, SimTime::ZERO));
    }
    run.advance_to(ms(20));
    assert_eq!(run.delivered, vec![(ms(1), 0), (ms(2), 1), (ms(12), 2)]);
}

#[test]
fn a_holding_outage_keeps_packets_in_the_discipline() {
    // An outage holding the line from 2 to 5 ms on a CoDel link at 12 Mb/s (1 ms per
    // 1500 B): packets at 0, 2.5 and 3 ms. The first is sent 0–1 ms; the second
    // arrives at an idle link but the line is held until 5 ms: it goes 5–6 ms, the
    // third 6–7 ms.
    let mut link = LinkDirection::new(0, 1, params(12_000_000, QueueLimit::Packets(10)), false);
    link.impairments.push(Impairment {
        applies_to: AppliesTo::All,
        window: Window::Between(ms(2), ms(5)),
        stage: Box::new(Outage { hold: true }),
    });
    let mut run = Run::new(link.with_queue(
        Discipline::CoDel(CoDelQueue::new(CoDelConfig::default())),
        Capacity::Fixed,
    ));
    for (uid, t) in [(0, us(0)), (1, us(2500)), (2, ms(3))] {
        run.offer(t, sent_at(uid, 0, 1500, t));
    }
    run.advance_to(ms(10));
    assert_eq!(run.delivered, vec![(ms(1), 0), (ms(6), 1), (ms(7), 2)]);
}

#[test]
fn the_report_gives_the_waits_of_the_packets_sent() {
    // 10 Mb/s, three 1500-B packets at 0: they wait 0, 1.2 and 2.4 ms. p50 is the
    // 2nd: 1 200 000 ns ∈ [2²⁰, 2²¹), buckets of 2¹⁵ = 32 768 ns, ⌊1 200 000 /
    // 32 768⌋ = 36: [1 179 648, 1 212 416), middle 1 196 032. p99 is the 3rd:
    // 2 400 000 ns, buckets of 65 536, ⌊36.6⌋ = 36: [2 359 296, 2 424 832), middle
    // 2 392 064.
    for capacity in [
        Capacity::Fixed,
        Capacity::Schedule(RateSchedule::new(vec![(SimTime::ZERO, 10_000_000)]).unwrap()),
    ] {
        let link = LinkDirection::new(0, 1, params(10_000_000, QueueLimit::Packets(10)), false);
        let fifo = DropTail::new(QueueLimit::Packets(10));
        let mut run = Run::new(link.with_queue(Discipline::DropTail(fifo), capacity));
        for uid in 0..3 {
            run.offer(SimTime::ZERO, sent_at(uid, 0, 1500, SimTime::ZERO));
        }
        let MediumReport::Link { sojourn, .. } = run.finish(ms(10)) else {
            unreachable!()
        };
        assert_eq!(
            sojourn.percentiles([0.5, 0.99]),
            [Some(SimTime(1_196_032)), Some(SimTime(2_392_064))]
        );
    }
}

//! Queue microbenchmark (BENCHMARKS.md, "Queue disciplines"): one 100 Mb/s link
//! direction, driven through the `Medium` trait as the world drives it, by a bulk flow
//! of 1500-B packets at 1.2 × its rate and a sparse flow of 100-B packets every 10 ms;
//! nanoseconds of this thread's CPU per packet offered, for each queue: DropTail on the
//! fast path, DropTail, CoDel, FQ-CoDel, PIE and FQ-PIE on the dequeue path, DropTail
//! on a 100-Mb/s-like delivery trace.
//! Run: `cargo bench -p cwnd-sim --bench queue [-- PACKETS]`.

mod common;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use common::cpu_seconds;
use cwnd_sim::net::capacity::{parse_mm_trace, Capacity, RateSchedule};
use cwnd_sim::net::link::{LinkDirection, LinkParams};
use cwnd_sim::net::medium::{AnyMedium, Medium, SendOutcome};
use cwnd_sim::net::qdisc::{
    CoDelConfig, CoDelQueue, Discipline, DropTail, FqCoDel, FqCoDelConfig, FqPie, FqPieConfig,
    PieConfig, PieQueue,
};
use cwnd_sim::net::queue::QueueLimit;
use cwnd_sim::packet::{Packet, Payload, TcpData};
use cwnd_sim::rng;
use cwnd_sim::time::SimTime;

const RATE: u64 = 100_000_000;

/// Builds a fresh link direction with one queue, for one measurement.
type MakeLink<'a> = Box<dyn Fn() -> AnyMedium + 'a>;

fn packet(uid: u64, flow: u32, size: u32, t: SimTime) -> Packet {
    Packet {
        uid,
        flow,
        src: 0,
        dst: 1,
        size,
        created: t,
        payload: Payload::TcpData(TcpData {
            seq: 0,
            len: size - 40,
            ts_val: None,
            retransmission: false,
            ecn: Default::default(),
            cwr: false,
        }),
    }
}

/// Offers `n` packets to `medium` and runs its events: (seconds, packets delivered).
fn drive(mut medium: AnyMedium, n: u64) -> (f64, u64) {
    // 1500 B at 100 Mb/s is 120 µs: the bulk flow sends every 100 µs.
    let mut events = BinaryHeap::new();
    let mut lost = Vec::new();
    let mut delivered = 0;
    let cpu = cpu_seconds();
    for uid in 0..n {
        let t = SimTime::from_micros(uid * 100);
        while let Some(&Reverse(e)) = events.peek() {
            if e > t {
                break;
            }
            events.pop();
            if medium.on_event(e, &mut lost) {
                lost.clear();
                while medium.next_delivery(e).is_some() {
                    delivered += 1;
                }
                events.extend(medium.event_to_schedule().map(Reverse));
            }
        }
        let (flow, size) = if uid % 100 == 0 { (1, 100) } else { (0, 1500) };
        if medium.send(t, 0, 1, packet(uid, flow, size, t)) == SendOutcome::Accepted {
            events.extend(medium.event_to_schedule().map(Reverse));
        }
    }
    (cpu_seconds() - cpu, delivered)
}

fn link() -> LinkDirection {
    let params = LinkParams {
        rate_bps: RATE,
        delay: SimTime::from_millis(10),
        overhead: 0,
        queue: QueueLimit::Packets(1000),
    };
    LinkDirection::new(0, 1, params, false)
}

fn main() {
    let n: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    // 100 Mb/s ≈ 8.3 opportunities per ms: 25 in every 3 ms.
    let trace_text: String = (1..=3000)
        .flat_map(|ms| {
            let k = if ms % 3 == 0 { 9 } else { 8 };
            std::iter::repeat_n(format!("{ms}\n"), k)
        })
        .collect();
    let limit = QueueLimit::Packets(1000);
    let queues: Vec<(&str, MakeLink)> = vec![
        (
            "droptail, fast path",
            Box::new(|| {
                link().with_queue(Discipline::DropTail(DropTail::new(limit)), Capacity::Fixed)
            }),
        ),
        (
            "droptail, dequeue path",
            Box::new(|| {
                let one = RateSchedule::new(vec![(SimTime::ZERO, RATE)]).expect("valid");
                link().with_queue(
                    Discipline::DropTail(DropTail::new(limit)),
                    Capacity::Schedule(one),
                )
            }),
        ),
        (
            "codel",
            Box::new(|| {
                link().with_queue(
                    Discipline::CoDel(CoDelQueue::new(CoDelConfig::default())),
                    Capacity::Fixed,
                )
            }),
        ),
        (
            "fq_codel",
            Box::new(|| {
                link().with_queue(
                    Discipline::FqCoDel(FqCoDel::new(
                        FqCoDelConfig::default(),
                        rng::stream(1, "q"),
                    )),
                    Capacity::Fixed,
                )
            }),
        ),
        (
            "pie",
            Box::new(|| {
                link().with_queue(
                    Discipline::Pie(PieQueue::new(PieConfig::default(), rng::stream(1, "q"))),
                    Capacity::Fixed,
                )
            }),
        ),
        (
            "fq_pie",
            Box::new(|| {
                link().with_queue(
                    Discipline::FqPie(FqPie::new(FqPieConfig::default(), rng::stream(1, "q"))),
                    Capacity::Fixed,
                )
            }),
        ),
        (
            "droptail, trace",
            Box::new(|| {
                let trace = parse_mm_trace(&trace_text).expect("valid");
                link().with_queue(
                    Discipline::DropTail(DropTail::new(limit)),
                    Capacity::Trace(trace),
                )
            }),
        ),
    ];
    for (name, make) in &queues {
        let (seconds, delivered) = drive(make(), n);
        println!(
            "{name:24} {n} packets offered, {delivered} delivered: {:.1} ns per packet",
            seconds * 1e9 / n as f64
        );
    }
}

//! Queue disciplines chosen in a scenario (`queue = { discipline = … }`) against what
//! their papers promise: CoDel holds a bulk flow's standing queue near its 5 ms target
//! whatever the buffer (Nichols & Jacobson, "Controlling Queue Delay", ACM Queue
//! 2012), where DropTail fills it; FQ-CoDel serves a sparse flow ahead of bulk flows,
//! so its packets wait about one packet's transmission (RFC 8290 §1.3, §4.1).

mod common;

use common::run;

/// Flows into a 10 Mb/s, 20 ms bottleneck r1–r2 whose queue table is `queue`:
/// `bulk` Cubic flows h<i> → d<i> (100 Mb/s, 1 ms access links), and, if `sparse`,
/// a UDP flow s → t of 200 B datagrams at 64 kb/s (one per 25 ms) from 1 s.
fn dumbbell(queue: &str, bulk: usize, sparse: bool) -> String {
    let mut s = format!(
        r#"
duration = "30s"
[[links]]
between = ["r1", "r2"]
bandwidth = "10Mbps"
delay = "20ms"
queue = {{ {queue} }}
"#
    );
    let mut hosts: Vec<(String, String)> = (0..bulk)
        .map(|i| (format!("h{i}"), format!("d{i}")))
        .collect();
    if sparse {
        hosts.push(("s".into(), "t".into()));
    }
    for (from, to) in &hosts {
        s += &format!(
            r#"
[[links]]
between = ["{from}", "r1"]
bandwidth = "100Mbps"
delay = "1ms"
[[links]]
between = ["r2", "{to}"]
bandwidth = "100Mbps"
delay = "1ms"
"#
        );
    }
    for i in 0..bulk {
        s += &format!("[[flows]]\nfrom = \"h{i}\"\nto = \"d{i}\"\ncc = \"cubic\"\n");
    }
    if sparse {
        s += r#"
[[flows]]
name = "sparse"
from = "s"
to = "t"
transport = "udp"
start = "1s"
source = { kind = "cbr", rate = "64kbps", packet_size = "200B" }
"#;
    }
    s
}

/// Median and 99th percentile of the bottleneck's queue delay (forward), in ms.
fn bottleneck_delay(toml: &str) -> (f64, f64) {
    let r = run(toml, 1);
    let q = r.links[0].queue_delay;
    let ms = |t: Option<cwnd_sim::time::SimTime>| t.expect("packets sent").as_secs_f64() * 1e3;
    (ms(q.p50), ms(q.p99))
}

#[test]
fn codel_holds_a_bulk_flows_queue_near_its_target_for_any_buffer() {
    // One Cubic flow; path RTT 2 × (1 + 20 + 1) = 44 ms, BDP 10 Mb/s × 44 ms = 55
    // packets of 1500 B. DropTail with 1000 packets lets Cubic fill it: a standing
    // queue of hundreds of packets, 1.2 ms each (1500 B × 8 / 10 Mb/s). CoDel drops
    // once the minimum sojourn over an interval (100 ms) exceeds 5 ms, so the median
    // sojourn stays of the order of the target, with 1000 or 10 000 packets of buffer.
    let (tail_p50, _) = bottleneck_delay(&dumbbell("packets = 1000", 1, false));
    println!("DropTail 1000: p50 {tail_p50:.1} ms");
    assert!(tail_p50 > 100.0, "DropTail's queue {tail_p50} ms");
    for packets in [1000, 10_000] {
        let (p50, p99) = bottleneck_delay(&dumbbell(
            &format!("discipline = \"codel\", packets = {packets}"),
            1,
            false,
        ));
        println!("CoDel {packets}: p50 {p50:.2} ms, p99 {p99:.2} ms");
        assert!(p50 <= 2.0 * 5.0, "median {p50} ms, target 5 ms");
        // Above target only while CoDel's interval runs (100 ms) and its drops take
        // a round trip to act: never a standing queue of a DropTail's size.
        assert!(p99 < 100.0, "p99 {p99} ms");
    }
}

#[test]
fn fq_codel_serves_a_sparse_flow_ahead_of_bulk_flows() {
    // The sparse flow's path without a queue: 200 B = 1600 bits, serialized at 100,
    // 10 and 100 Mb/s (16 + 160 + 16 µs) plus 1 + 20 + 1 ms of propagation: 22.192 ms.
    // Under FQ-CoDel its queue is empty at each arrival (one datagram per 25 ms), so
    // it joins the new-flow list and is sent next: it waits at most for the packet
    // on the wire, 1500 B × 8 / 10 Mb/s = 1.2 ms. Under CoDel alone it waits behind
    // the bulk flows' standing queue, near the 5 ms target.
    let base = 0.022_192;
    let sparse_wait = |queue: &str| {
        let r = run(&dumbbell(queue, 4, true), 1);
        let u = &r.udp_flow("sparse").unwrap().summary;
        assert!(
            u.sink.packets_delivered > 1000,
            "{}",
            u.sink.packets_delivered
        );
        (u.mean_delay() - base) * 1e3
    };
    let fq = sparse_wait(r#"discipline = "fq_codel""#);
    let codel = sparse_wait(r#"discipline = "codel""#);
    println!("sparse flow's mean wait: FQ-CoDel {fq:.3} ms, CoDel {codel:.3} ms");
    assert!((0.0..=1.2).contains(&fq), "FQ-CoDel: {fq} ms");
    assert!(codel > 2.5, "CoDel: {codel} ms");
}

#[test]
fn pie_steers_the_queue_delay_to_its_reference() {
    // PIE's controller moves its drop probability until the queueing delay sits at
    // QDELAY_REF, 15 ms (RFC 8033 §4.2); four Cubic flows keep the queue loaded. From
    // 1000 packets of buffer DropTail would let the delay grow to ~1.2 s
    // (1000 × 1.2 ms); PIE keeps the median within a factor 2 of 15 ms.
    let (p50, p99) = bottleneck_delay(&dumbbell(r#"discipline = "pie""#, 4, false));
    println!("PIE: p50 {p50:.2} ms, p99 {p99:.2} ms");
    assert!(
        (7.5..=30.0).contains(&p50),
        "median {p50} ms, reference 15 ms"
    );
}

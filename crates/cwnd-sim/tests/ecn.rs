//! ECN end to end: TCP flows that asked for ECN (`tcp.ecn`, or DCTCP's need of it)
//! through RED that marks (`red.ecn`), against hand-worked windows and DCTCP's
//! analytic model.

mod common;

use common::{run, single_path};
use cwnd_sim::results::RunResults;

/// Flows h1 → r → h2 (`common::single_path`, "rfc" profile: an ACK per segment, no
/// PRR, so cwnd = ssthresh at an echo), each with its line of `flows`: a 1 Gb/s
/// access link without delay, and a bottleneck of `mbps` Mb/s and `delay_ms` one
/// way whose 1000-packet queue, traced, has `red` in front.
fn marking_path(mbps: u32, delay_ms: f64, seconds: u32, red: &str, flows: &[&str]) -> String {
    let more: String = flows[1..]
        .iter()
        .enumerate()
        .map(|(i, f)| {
            format!(
                "[[flows]]\nname = \"f{}\"\nfrom = \"h1\"\nto = \"h2\"\n{f}\n",
                i + 1
            )
        })
        .collect();
    let bandwidth = format!("{mbps}Mbps");
    single_path(
        &bandwidth,
        delay_ms,
        1000,
        seconds,
        &format!("{}\n{more}", flows[0]),
        "",
    )
    .replace(
        "queue = { packets = 1000 }",
        &format!("queue = {{ packets = 1000, red = {{ {red} }} }}"),
    )
    .replacen(
        "[[flows]]",
        "[trace]\nqueues = true\nsampling = \"interval\"\ninterval = \"100ms\"\n[[flows]]",
        1,
    )
}

/// The bottleneck's direction r → h2.
fn bottleneck(r: &RunResults) -> &cwnd_sim::results::LinkResult {
    &r.links[2]
}

/// Time-weighted quantile `q` of a queue trace's packet count over [from, to) s.
fn queue_quantile(r: &RunResults, from_s: f64, to_s: f64, q: f64) -> f64 {
    let trace = bottleneck(r).queue.as_ref().expect("queue traced");
    let mut time_at = std::collections::BTreeMap::<u32, f64>::new();
    let (mut level, mut last) = (0u32, from_s);
    for (t, &n) in trace.time.iter().zip(&trace.packets) {
        let t = t.as_secs_f64().min(to_s);
        if t > from_s {
            *time_at.entry(level).or_default() += t - last;
            last = t;
        }
        level = n;
    }
    *time_at.entry(level).or_default() += (to_s - last).max(0.0);
    let mut seen = 0.0;
    for (&n, &dt) in time_at.iter().filter(|(_, &dt)| dt > 0.0) {
        seen += dt;
        if seen >= q * (to_s - from_s) {
            return n as f64;
        }
    }
    f64::NAN
}

#[test]
fn ecn_reno_through_a_marking_red_is_marked_not_dropped_and_reduces_once_per_window() {
    // RED as a step at K = 20 (min_th = max_th = 20, max_p 1, gentle, w_q 1): an ECT
    // arrival that finds 20 to 39 packets waiting is marked. 10 Mb/s: 1500 B take
    // 1.2 ms, so the 20 ms of propagation hold 16.67 packets. Reno in congestion
    // avoidance holds w − 16.67 − 1 (the one on the wire) waiting: marks begin at w
    // = 38. The first mark's echo returns after its wait, its serialization and the
    // propagation, 20·1.2 + 1.2 + 20 = 45.2 ms, in which the ACK clock sends 45.2/1.2
    // = 37.7 more, all finding 20 or more waiting: about 38 marks per echo, and one
    // reduction for all of them (RFC 3168 §6.1.2): ssthresh = 38/2 = 19 (cwnd =
    // ssthresh: no PRR on "rfc"). 19 > 16.67 + 1, so the queue never empties. A cycle:
    // w from 19 to 37, one RTT (w·1.2 ms) each, Σ 1.2·w = 1.2·(19 + 37)·19/2 =
    // 638.4 ms; the echo's 45.6 ms at w = 38; and CWR, in which cwnd does not grow
    // until data sent after the reduction is acknowledged (docs/tcp.md): the 19
    // ACKs that bring the flight down to 19 (22.8 ms), then that data's RTT with a
    // queue of about one (21.2 + 1.2 ms), 45.2 ms. 729 ms in all: 60/0.729 = 82.3
    // reductions in 60 s. rwnd = 50 segments keeps slow start's queue below 50 −
    // 17.67 = 33 < 2K, so RED's forced region (and any drop) is never reached.
    // Allowed: ±10 % on the count, ±15 % on the marks per reduction (the ACK clock's
    // phase against the queue's integer steps). Were each mark a reduction, the ratio
    // would be 1.
    let s = marking_path(
        10,
        10.0,
        60,
        "min_th = 20, max_th = 20, max_p = 1.0, w_q = 1.0, ecn = true",
        &["cc = \"reno\"\ntcp = { ecn = \"on\", rwnd = \"73000B\" }"],
    );
    let r = run(&s, 1);
    let (link, flow) = (&bottleneck(&r).stats, &r.flows[0].summary);
    let (reductions, marks) = (flow.sender.ecn_reductions, link.marks);
    let per = marks as f64 / reductions as f64;
    println!(
        "marks {marks}, ce_received {}, ecn_reductions {reductions} ({per:.1} marks each), \
         loss_reductions {}, drops {}, goodput {:.3} Mb/s",
        flow.receiver.ce_received,
        flow.sender.loss_reductions,
        link.drops_queue,
        flow.goodput_bps() / 1e6
    );
    assert_eq!(link.drops_queue, 0, "no drop, early or forced");
    assert_eq!(flow.sender.loss_reductions, 0);
    // Every mark reaches the receiver but those still queued at the end (< 2K).
    let queued = marks - flow.receiver.ce_received;
    assert!(queued < 40, "{queued} marked packets not received");
    assert!((74..=91).contains(&reductions), "{reductions} reductions");
    assert!((32.0..=44.0).contains(&per), "{per:.1} marks per reduction");
}

#[test]
fn dctcp_holds_the_queue_near_k_with_the_oscillation_of_its_model() {
    // Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, §3.3 (and Alizadeh,
    // Javanmard & Prabhakar, SIGMETRICS 2011, for its fluid model): N synchronized
    // flows behind a step marker at K, each window peaking at W* + 1 with W* = (C·RTT
    // + K)/N, α ≈ √(2/W*): the queue peaks at Q_max = K + N (eq. 10) and falls by A =
    // ½·√(2N·(C·RTT + K)) packets (eq. 9) to Q_min = Q_max − A (eq. 11) once per
    // cycle, a sawtooth whose time-weighted mean is Q_max − A/2.
    // Here N = 2 DCTCP flows, 100 Mb/s (1500 B in 0.12 ms), 12 ms of propagation:
    // C·RTT = 100 packets; K = 40 (above the paper's C·RTT/7 = 14.3, so the queue
    // never empties and the link stays busy). A = ½·√(2·2·140) = ½·√560 = 11.83,
    // Q_max = 42, Q_min = 30.17, mean 36.08. The marking queue is RED as a step at K
    // (min_th = max_th = 40, max_p 1, gentle, w_q 1: every ECT arrival that finds 40
    // to 79 waiting is marked). rwnd = 85 segments per flow keeps slow start's queue
    // below 2·85 − 100 = 70 < 2K: no drop. Measured over 5–30 s: the mean within
    // ±10 % of the model's; the time-weighted 5th and 95th percentiles, 0.9·A =
    // 10.6 apart on a sawtooth, within ±25 % of that (the model's flows are
    // synchronized and α constant; these are neither quite); the queue never empty.
    let red = "min_th = 40, max_th = 40, max_p = 1.0, w_q = 1.0, ecn = true";
    let flow = "cc = \"dctcp\"\ntcp = { rwnd = \"124100B\" }";
    let r = run(&marking_path(100, 6.0, 30, red, &[flow, flow]), 1);
    let link = &bottleneck(&r).stats;
    let mean = common::mean_queue(bottleneck(&r).queue.as_ref().unwrap(), 5.0, 30.0);
    let (p5, p95) = (
        queue_quantile(&r, 5.0, 30.0, 0.05),
        queue_quantile(&r, 5.0, 30.0, 0.95),
    );
    let (p0, goodput) = (
        queue_quantile(&r, 5.0, 30.0, 0.0),
        r.flows.iter().map(|f| f.summary.goodput_bps()).sum::<f64>(),
    );
    println!(
        "mean queue {mean:.2}, p5 {p5}, p95 {p95}, min {p0}; marks {}, drops {}, \
         goodput {:.2} Mb/s, ecn_reductions {:?}",
        link.marks,
        link.drops_queue,
        goodput / 1e6,
        r.flows
            .iter()
            .map(|f| f.summary.sender.ecn_reductions)
            .collect::<Vec<_>>()
    );
    assert_eq!(link.drops_queue, 0);
    assert!(link.marks > 0);
    let (c_rtt, k, n) = (100.0_f64, 40.0, 2.0);
    let amplitude = 0.5 * (2.0 * n * (c_rtt + k)).sqrt();
    let model_mean = k + n - amplitude / 2.0;
    assert!(
        (mean / model_mean - 1.0).abs() <= 0.10,
        "mean {mean:.2} vs {model_mean:.2}"
    );
    let spread = p95 - p5;
    assert!(
        (spread / (0.9 * amplitude) - 1.0).abs() <= 0.25,
        "p95 − p5 = {spread} vs {:.2}",
        0.9 * amplitude
    );
    assert!(p0 > 0.0, "the queue emptied");
}

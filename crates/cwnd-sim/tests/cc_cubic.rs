//! CUBIC on a whole network: the window after one loss follows W(t).

mod common;

use common::{goodput_between, run, single_path};

#[test]
fn cubic_window_after_one_loss_follows_w_of_t() {
    // 1 Gb/s, 100 ms RTT (BDP 8 333 packets), a queue that never fills: the only
    // loss is data packet 2000, dropped in slow start. After recovery the window
    // must follow RFC 9438 eq. 1, W(t) = C(t − K)³ + W_max with C = 0.4 and
    // K = ∛(W_max(1 − β)/C), t counted from the end of recovery (the start of the
    // congestion-avoidance epoch). W_max = ssthresh/β (ssthresh = β·W_max).
    let drop = "impairments = [{ kind = \"drop_list\", packets = [2000], direction = \"forward\", applies_to = \"data\" }]";
    let s = single_path("1Gbps", 49.0, 100_000, 30, "cc = \"cubic\"", drop);
    let r = run(&s, 1);
    let f = &r.flows[0];
    assert_eq!(f.summary.drops_impairment, 1);
    assert_eq!(f.summary.drops_queue, 0);
    let ser = &f.series;
    let loss = ser
        .ssthresh
        .iter()
        .position(|&s| s < 1 << 30)
        .expect("a loss");
    let ssthresh = ser.ssthresh[loss] as f64;
    let w_max = ssthresh / 0.7;
    let k = (w_max * 0.3 / 0.4).cbrt();
    // End of recovery: the first sample after the loss with cwnd back at ssthresh.
    let end = (loss..ser.len())
        .find(|&i| ser.cwnd[i] as f64 == ssthresh)
        .expect("recovery ends");
    let t_epoch = ser.time[end].as_secs_f64();
    println!("W_max {w_max:.1}, K {k:.3} s, epoch starts at {t_epoch:.3} s");
    for frac in [0.5, 1.0, 1.5] {
        let tau = frac * k;
        let at = t_epoch + tau;
        let i = ser.time.partition_point(|t| t.as_secs_f64() <= at) - 1;
        let cwnd = ser.cwnd[i] as f64;
        let expected = 0.4 * (tau - k).powi(3) + w_max;
        let err = (cwnd - expected) / expected;
        println!(
            "t = {tau:.3} s: cwnd {cwnd}, W(t) {expected:.1}, error {:+.2} %",
            100.0 * err
        );
        assert!(
            err.abs() <= 0.05,
            "t = {tau}: cwnd {cwnd} vs W(t) {expected}"
        );
    }
}

#[test]
fn cubic_fills_a_clean_path() {
    let s = single_path("10Mbps", 24.0, 42, 60, "cc = \"cubic\"", "");
    let r = run(&s, 1);
    let g = goodput_between(&r, &r.flows[0], 10.0, 60.0);
    assert!(g >= 0.95 * 10e6 * 1460.0 / 1500.0, "{g}");
}

#[test]
fn two_flows_of_reno_or_cubic_share_a_bottleneck_fairly() {
    // 10 Mb/s, 40 ms + access RTT, 1-BDP queue; the second flow starts 5 s later.
    // Goodput over 60–240 s; Jain index ≥ 0.95 and each within 20 % of the fair share.
    // A deterministic DropTail dumbbell with equal RTTs phase-locks (Floyd & Jacobson
    // 1992, "On traffic phase effects in packet-switched gateways"): one flow's packets
    // keep arriving when the queue is full. With CUBIC that locks a 3.3 : 6.4 Mb/s
    // split for 600 s. As those authors recommend, a little randomness breaks the
    // phase: 0.01 % random loss on the bottleneck.
    let noise = "queue = { packets = 40 }\nimpairments = [{ kind = \"bernoulli\", p = 0.0001, direction = \"forward\", applies_to = \"data\" }]";
    for cc in ["reno", "cubic"] {
        let s = common::two_flow_dumbbell("10Mbps", 20, 40, 240, &format!("\"{cc}\""), "5s")
            .replacen("queue = { packets = 40 }", noise, 1);
        let r = run(&s, 1);
        let g: Vec<f64> = r
            .flows
            .iter()
            .map(|f| goodput_between(&r, f, 60.0, 240.0))
            .collect();
        let j = common::jain(&g);
        println!(
            "{cc}: {:.3?} Mb/s, Jain {j:.4}",
            g.iter().map(|x| x / 1e6).collect::<Vec<_>>()
        );
        assert!(j >= 0.95, "{cc}: Jain {j}");
        let fair = g.iter().sum::<f64>() / 2.0;
        assert!(
            g.iter().all(|x| (x / fair - 1.0).abs() <= 0.2),
            "{cc}: {g:?}"
        );
    }
}

/// CUBIC with Linux-like options (SACK, timestamps, IW 10, delayed ACKs, slow start
/// counting every acknowledged segment) on 10 Mb/s × 50 ms with a 100-packet queue.
fn linux_like_cubic(hystart: &str) -> String {
    let flow = format!(
        "cc = {{ name = \"cubic\", hystart = \"{hystart}\" }}\nrecovery = \"sack\"\n\
         tcp = {{ sack = true, timestamps = true, initial_window = 10, abc_limit = 1000, \
         delayed_ack = true, delayed_ack_timeout = \"40ms\" }}"
    );
    single_path("10Mbps", 25.0, 100, 3, &flow, "")
}

#[test]
fn linux_hystart_ends_slow_start_in_the_first_round_that_starts_queued() {
    // Every ACK covers two segments and adds two (delayed ACKs, unlimited slow
    // start), so cwnd doubles per round: 10, 20, 40, 80, 160. The path holds
    // 10 Mb/s · 50 ms / 1500 B = 41.7 packets, so the round of 80 leaves about
    // 80 − 42 = 38 packets (46 ms) queued: every RTT of the round of 160 is
    // ≈ 96 ms > delay_min + clamp(50/8, 4, 16) = 56.25 ms (the round of 80 began with
    // an empty queue, so its minimum stayed at 50 ms). The delay test runs from the
    // 9th sample of the round (8 are only collected): after 8 ACKs cwnd = 160 + 2·8
    // = 176, and the 9th sets ssthresh = cwnd = 176. ACKs 2.4 ms apart (two segments
    // at 1.2 ms each) never form a 2 ms ACK train.
    let r = run(&linux_like_cubic("linux"), 1);
    let ser = &r.flows[0].series;
    let first = ser
        .ssthresh
        .iter()
        .position(|&s| s < 1 << 30)
        .expect("exit");
    assert_eq!(ser.ssthresh[first], 176);
    // Without HyStart slow start runs on until the 100-packet queue overflows.
    let plain = run(&linux_like_cubic("off"), 1);
    let (with, without) = (
        r.flows[0].summary.sender.segments_retransmitted,
        plain.flows[0].summary.sender.segments_retransmitted,
    );
    println!("retransmissions in 3 s: hystart {with}, standard slow start {without}");
    assert!(with < without / 4, "{with} vs {without}");
}

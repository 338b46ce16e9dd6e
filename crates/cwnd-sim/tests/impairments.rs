//! Impairment stages on whole networks: outages on a trigger, exact reordering,
//! delay steps and link-layer ARQ delays.

mod common;

use common::{run, single_path};
use cwnd_sim::scenario::Scenario;

fn one_flow(stage: &str, flow_extra: &str, seconds: u32) -> String {
    single_path(
        "10Mbps",
        24.0,
        100,
        seconds,
        &format!("{flow_extra}\n[flows.app]\nkind = \"bulk\""),
        &format!("impairments = [{stage}]"),
    )
    .replace(
        "[[flows]]\nname = \"f\"",
        "[trace]\nsegments = true\n[[flows]]\nname = \"f\"",
    )
}

#[test]
fn an_outage_triggered_by_a_segment_delivers_nothing_for_its_duration() {
    // Outage of both directions of the bottleneck for 2 s when segment 1000 is sent.
    let stage =
        "{ kind = \"outage\", start_on = { flow = \"f\", segment = 1000 }, duration = \"2s\" }";
    let r = run(&one_flow(stage, "", 30), 1);
    let f = &r.flows[0];
    let seg = f.segments.as_ref().unwrap();
    let i = seg.seq.iter().position(|&s| s == 999 * 1460).unwrap();
    let t0 = seg.time[i].as_secs_f64();
    // Bins of 100 ms: nothing delivered from the first full bin after the outage
    // starts (plus the 24 ms one-way delay) to the last full bin before it ends.
    let w = r.throughput_bin.as_secs_f64();
    let bins = f.delivered_bins.padded((30.0 / w) as usize);
    let (a, b) = (
        ((t0 + 0.1) / w).ceil() as usize,
        ((t0 + 2.0) / w).floor() as usize,
    );
    assert!(bins[a..b].iter().all(|&x| x == 0), "{:?}", &bins[a..b]);
    assert!(bins[..a].iter().sum::<u64>() > 0 && bins[b + 1..].iter().sum::<u64>() > 0);
    assert!(f.summary.drops_impairment > 0);
    assert!(f.summary.sender.timeouts >= 1);
}

#[test]
fn packet_n_arrives_exactly_k_positions_late() {
    // Data packet 100 delivered after the 4 that follow it: the receiver sends
    // exactly 4 duplicate ACKs before the jump. With dupthresh 4 (or less) that is
    // one spurious fast retransmit; with dupthresh 5 none, and then the 4 duplicates
    // are the only ones of the run. No packet is lost either way.
    let stage = "{ kind = \"reorder\", packet = 100, positions = 4, direction = \"forward\", applies_to = \"data\" }";
    for (dupthresh, fast_retransmits) in [(3, 1), (4, 1), (5, 0)] {
        let flow = format!(
            "tcp = {{ dupthresh = {dupthresh}, rwnd = \"{}B\" }}",
            20 * 1460
        );
        let r = run(&one_flow(stage, &flow, 5), 1);
        let s = &r.flows[0].summary;
        assert_eq!(
            s.sender.fast_retransmits, fast_retransmits,
            "dupthresh {dupthresh}"
        );
        if dupthresh == 5 {
            assert_eq!(s.sender.dup_acks, 4);
        }
        assert_eq!(s.drops_impairment + s.drops_queue, 0);
    }
}

#[test]
fn a_delay_step_raises_the_rtt_from_its_start() {
    // +50 ms on the forward direction from t = 5 s: the smoothed RTT moves from the
    // base (≈ 50.2 ms with serialization) to ≈ 100.2 ms.
    let stage =
        "{ kind = \"delay_step\", extra = \"50ms\", start = \"5s\", direction = \"forward\" }";
    let flow = format!("tcp = {{ rwnd = \"{}B\" }}", 20 * 1460);
    let r = run(&one_flow(stage, &flow, 10), 1);
    let s = &r.flows[0].series;
    let before = s.time.partition_point(|t| t.as_secs_f64() < 4.9) - 1;
    let srtt_before = s.srtt[before].as_secs_f64();
    let srtt_end = s.srtt[s.len() - 1].as_secs_f64();
    assert!(
        (srtt_end - srtt_before - 0.050).abs() < 0.002,
        "{srtt_before} → {srtt_end}"
    );
}

#[test]
fn arq_in_order_holds_the_line_out_of_order_reorders() {
    // 10 % of data packets retried for 30 ms. In order, the receiver never sees a
    // gap; out of order, later packets overtake the delayed ones.
    for (in_order, reordered) in [(true, false), (false, true)] {
        let stage = format!(
            "{{ kind = \"arq\", pv = 0.1, delay = {{ distribution = \"constant\", value = \"30ms\" }}, in_order = {in_order}, direction = \"forward\", applies_to = \"data\" }}"
        );
        let flow = format!("tcp = {{ rwnd = \"{}B\" }}", 30 * 1460);
        let r = run(&one_flow(&stage, &flow, 20), 1);
        let f = &r.flows[0];
        assert_eq!(f.summary.drops_impairment, 0);
        assert_eq!(
            f.summary.receiver.out_of_order_segments > 0,
            reordered,
            "in_order {in_order}"
        );
    }
}

#[test]
fn bad_impairments_are_refused_with_the_field() {
    let bad = |stage: &str| {
        Scenario::from_toml(&one_flow(stage, "", 5))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        bad("{ kind = \"outage\", start_on = { flow = \"nobody\", segment = 10 }, duration = \"1s\" }"),
        "links[1].impairments[0].start_on.flow: \"nobody\" is not a flow; known flows: f"
    );
    assert_eq!(
        bad("{ kind = \"outage\", start_on = { flow = \"f\", segment = 10 } }"),
        "links[1].impairments[0].duration: a stage started by `start_on` needs a duration, e.g. \"5s\""
    );
    assert_eq!(
        bad("{ kind = \"gilbert_elliott\", p_gb = 0.1, p_bg = 1.5 }"),
        "links[1].impairments[0].p_bg: 1.5 is not a probability; use a value in [0, 1]"
    );
    assert!(bad("{ kind = \"reorder\", r = 0.1 }").contains("either `r` and `delay`"));
    assert!(bad("{ kind = \"arq\", pv = 0.1, delay = \"1s\" }")
        .starts_with("links[1].impairments[0].delay"));
}

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
    // The issue's list: a probability outside [0, 1], a negative delay, an outage that
    // ends before it starts (a duration that is zero or negative), a trigger naming an
    // unknown flow (above); the WiMAX preset is in validate.rs.
    assert_eq!(
        bad("{ kind = \"bernoulli\", schedule = [[\"0s\", 0.1], [\"1s\", 2.0]] }"),
        "links[1].impairments[0].schedule[1]: 2 is not a probability; use a value in [0, 1]"
    );
    assert!(
        bad("{ kind = \"delay_step\", extra = \"-5ms\", start = \"1s\" }")
            .starts_with("links[1].impairments[0].extra: \"-5ms\" is not a duration")
    );
    assert_eq!(
        bad("{ kind = \"outage\", start = \"2s\", duration = \"0s\" }"),
        "links[1].impairments[0].duration: must be positive"
    );
    assert!(
        bad("{ kind = \"outage\", start = \"2s\", duration = \"-1s\" }")
            .starts_with("links[1].impairments[0].duration: \"-1s\" is not a duration")
    );
    assert!(
        bad("{ kind = \"outage\", start = \"-2s\", duration = \"1s\" }")
            .starts_with("links[1].impairments[0].start: \"-2s\" is not a duration")
    );
    assert_eq!(
        bad("{ kind = \"outage\", mode = \"hold\", start = \"2s\" }"),
        "links[1].impairments[0].duration: an outage that holds packets needs a duration, e.g. \"5s\""
    );
    assert!(
        bad("{ kind = \"outage\", mode = \"keep\", start = \"2s\", duration = \"1s\" }")
            .starts_with("links[1].impairments[0].mode: unknown variant \"keep\"")
    );
    let table = |extra: &str| {
        format!("{{ kind = \"reorder\", r = 0.1, delay = {{ distribution = \"empirical\", values = [\"1ms\", \"5ms\"]{extra} }} }}")
    };
    assert!(Scenario::from_toml(&one_flow(&table(""), "", 5)).is_ok());
    assert_eq!(
        bad(&table(", weights = [1.0]")),
        "links[1].impairments[0].delay.weights: has 1 entries for 2 values"
    );
    assert_eq!(
        bad(&table(", weights = [1.0, -1.0]")),
        "links[1].impairments[0].delay.weights[1]: -1 is not a weight; use a value ≥ 0"
    );
    assert!(
        bad("{ kind = \"bernoulli\", p_file = \"/nonexistent/loss.csv\" }")
            .starts_with("links[1].impairments[0].p_file: cannot read \"/nonexistent/loss.csv\"")
    );
    assert!(
        bad("{ kind = \"bernoulli\", p = 0.1, p_file = \"loss.csv\" }")
            .contains("exactly one of `p`, a non-empty `schedule` or a `p_file`")
    );
    assert!(bad("{ kind = \"arq\", pv = 0.1, delay = \"1s\" }")
        .starts_with("links[1].impairments[0].delay"));
}

#[test]
fn a_loss_trace_is_read_once_into_the_plan_which_needs_no_file() {
    let dir = std::env::temp_dir().join(format!("cwnd-plan-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("loss.csv"), "0, 0\n2, 1.0\n3s, 0\n").unwrap();
    let toml = one_flow("{ kind = \"bernoulli\", p_file = \"loss.csv\" }", "", 4);
    let plan = cwnd_sim::scenario::load(&toml, Some(&dir)).unwrap();
    // The file's steps are in the plan: 0 s → 0, 2 s → 1, 3 s → 0 (in ns).
    let json = plan.to_json().unwrap();
    assert!(
        json.contains(r#""schedule":[["0ns",0.0],["2000000000ns",1.0],["3000000000ns",0.0]]"#),
        "{json}"
    );
    assert!(
        !json.contains("p_file") && !json.contains("loss.csv"),
        "{json}"
    );
    // With the file gone, the plan still loads (no read) and runs the same.
    std::fs::remove_dir_all(&dir).unwrap();
    let again = cwnd_sim::scenario::load(&json, None).unwrap();
    assert_eq!(again.to_json().unwrap(), json);
    let (a, b) = (
        cwnd_sim::scenario::build(&plan, 1).run(),
        cwnd_sim::scenario::build(&again, 1).run(),
    );
    assert_eq!(a.fingerprint, b.fingerprint);
    assert!(a.flows[0].summary.drops_impairment > 0);
}

#[test]
fn a_loss_trace_file_is_read_relative_to_the_scenario() {
    // loss.csv beside the scenario: no loss, then every packet lost from 2 s to 3 s.
    let dir = std::env::temp_dir().join(format!("cwnd-loss-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("loss.csv"), "# time, p\n0, 0\n2, 1.0\n3s, 0\n").unwrap();
    let toml = one_flow(
        "{ kind = \"bernoulli\", p_file = \"loss.csv\", direction = \"forward\" }",
        "",
        6,
    );
    let plan = cwnd_sim::scenario::load(&toml, Some(&dir)).unwrap();
    let e = Scenario::from_toml(&toml).unwrap_err().to_string();
    assert!(
        e.starts_with("links[1].impairments[0].p_file: cannot read \"loss.csv\""),
        "{e}"
    );
    let r = cwnd_sim::scenario::build(&plan, 1).run();
    let f = &r.flows[0];
    // Nothing arrives between 2.024 s (the last packet sent before 2 s) and 3 s.
    let w = r.throughput_bin.as_secs_f64();
    let bins = f.delivered_bins.padded((6.0 / w) as usize);
    let (a, b) = ((2.1 / w).round() as usize, (3.0 / w).round() as usize);
    assert!(bins[a..b].iter().all(|&x| x == 0), "{:?}", &bins[a..b]);
    assert!(bins[..a].iter().sum::<u64>() > 0 && bins[b + 1..].iter().sum::<u64>() > 0);
    assert!(f.summary.drops_impairment > 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_outage_in_hold_mode_keeps_the_packets_in_the_queue() {
    // The data direction of the bottleneck is down from 5 s to 6 s. Dropping, the
    // packets sent meanwhile are lost; holding, they wait in the 100-packet queue
    // (those beyond it are queue drops) and leave when the link is back: only the
    // packet being serialized at 5 s is lost on the medium.
    let outage = |mode: &str| {
        format!("{{ kind = \"outage\", mode = \"{mode}\", start = \"5s\", duration = \"1s\", direction = \"forward\" }}")
    };
    let dropping = run(&one_flow(&outage("drop"), "", 12), 1);
    let holding = run(&one_flow(&outage("hold"), "", 12), 1);
    let (d, h) = (&dropping.flows[0].summary, &holding.flows[0].summary);
    println!(
        "drop: {} lost on the link, {} queue drops; hold: {} and {}",
        d.drops_impairment, d.drops_queue, h.drops_impairment, h.drops_queue
    );
    assert!(d.drops_impairment > 20);
    assert!(h.drops_impairment <= 1);
    // Nothing crosses the link during the outage in either mode (one-way delay 24 ms).
    for (name, r) in [("drop", &dropping), ("hold", &holding)] {
        let w = r.throughput_bin.as_secs_f64();
        let bins = r.flows[0].delivered_bins.padded((12.0 / w) as usize);
        let (a, b) = ((5.1 / w).round() as usize, (6.0 / w).round() as usize);
        assert!(
            bins[a..b].iter().all(|&x| x == 0),
            "{name}: {:?}",
            &bins[a..b]
        );
    }
    // Held packets arrive right after the outage: the queue drains at 10 Mb/s.
    let w = holding.throughput_bin.as_secs_f64();
    let after =
        holding.flows[0].delivered_bins.padded((12.0 / w) as usize)[(6.1 / w).round() as usize];
    assert!(after > 0);
}

#[test]
fn a_triggered_hold_keeps_what_was_queued_and_loses_what_was_on_the_medium() {
    // Triggered at segment 1000: the packets queued then (not yet started) are held;
    // those on the medium (at most 24 ms of propagation at 10 Mb/s = 20 packets, and
    // the one being serialized) are lost.
    let stage = "{ kind = \"outage\", mode = \"hold\", start_on = { flow = \"f\", segment = 1000 }, duration = \"1s\", direction = \"forward\" }";
    let r = run(&one_flow(stage, "", 20), 1);
    let f = &r.flows[0];
    println!(
        "{} lost on the medium, {} queue drops",
        f.summary.drops_impairment, f.summary.drops_queue
    );
    assert!((1..=21).contains(&f.summary.drops_impairment));
    let seg = f.segments.as_ref().unwrap();
    let t0 = seg.time[seg.seq.iter().position(|&s| s == 999 * 1460).unwrap()].as_secs_f64();
    let w = r.throughput_bin.as_secs_f64();
    let bins = f.delivered_bins.padded((20.0 / w) as usize);
    let (a, b) = (
        ((t0 + 0.1) / w).ceil() as usize,
        ((t0 + 1.0) / w).floor() as usize,
    );
    assert!(bins[a..b].iter().all(|&x| x == 0), "{:?}", &bins[a..b]);
}

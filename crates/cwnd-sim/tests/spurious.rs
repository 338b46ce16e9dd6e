//! A retransmission forced spurious: the ACKs are held back past the RTO.

mod common;

use common::{run, single_path};

/// One flow, 10 Mb/s, 50 ms RTT, RTO floor 200 ms. When segment 500 is sent, the
/// reverse link's ARQ holds every ACK for 1 s (in order, for 10 ms of ACKs): the
/// data all arrives, but the sender's timer expires. Returns (cwnd just before,
/// cwnd and ssthresh 150 ms after the ACKs return, spurious episodes undone).
fn held_acks(detector: &str) -> (u32, u32, u32, u64) {
    held_acks_with("newreno", detector)
}

fn held_acks_with(cc: &str, detector: &str) -> (u32, u32, u32, u64) {
    let flow = format!(
        "cc = \"{cc}\"\ntcp = {{ timestamps = true, {detector}rwnd = \"{}B\", rto = {{ min = \"200ms\" }} }}",
        30 * 1448
    );
    let stage = "impairments = [{ kind = \"arq\", pv = 1.0, delay = { distribution = \"constant\", value = \"1s\" }, direction = \"reverse\", applies_to = \"acks\", start_on = { flow = \"f\", segment = 500 }, duration = \"10ms\" }]";
    let s = single_path("10Mbps", 24.0, 100, 10, &flow, stage)
        .replace("[[flows]]", "[trace]\nsegments = true\n[[flows]]");
    let r = run(&s, 1);
    let f = &r.flows[0];
    let seg = f.segments.as_ref().unwrap();
    let t0 = seg.time[seg.seq.iter().position(|&x| x == 499 * 1448).unwrap()];
    let series = &f.series;
    let row = |t: f64| series.time.partition_point(|x| x.as_secs_f64() <= t) - 1;
    let t0 = t0.as_secs_f64();
    let (before, after) = (row(t0 - 0.001), row(t0 + 1.2));
    (
        series.cwnd[before],
        series.cwnd[after],
        series.ssthresh[after],
        f.summary.sender.spurious_undone,
    )
}

#[test]
fn eifel_and_frto_restore_the_window_after_a_spurious_timeout() {
    // RFC 3522/5682/4015: with Eifel or F-RTO the reduction is undone — cwnd at least where it
    // was, ssthresh back to its prior (still infinite: no loss before). Without it,
    // ssthresh is the halved flight and the flow slow-starts from one segment.
    for detector in ["eifel = true, ", "frto = true, "] {
        let (before, after, ssthresh, undone) = held_acks(detector);
        println!(
            "{detector}cwnd {before} before, {after} after, ssthresh {ssthresh}, {undone} undone"
        );
        assert!(undone >= 1, "{detector}");
        assert!(after >= before, "{detector}cwnd {after} < {before}");
        assert!(ssthresh > 1 << 20, "{detector}");
    }
    let (before, after, ssthresh, undone) = held_acks("");
    println!("no undo: cwnd {before} before, {after} after, ssthresh {ssthresh}");
    assert_eq!(undone, 0);
    assert!(
        ssthresh <= before / 2 + 1,
        "ssthresh {ssthresh} vs cwnd {before}"
    );
}

#[test]
fn every_variant_gets_its_window_back_after_a_spurious_timeout() {
    // The same held-ACK timeout with Eifel, for every controller: the episode is
    // found spurious and the controller's undo_cwnd gives back at least the window
    // it had before the timeout (Linux: every ops table has undo_cwnd).
    // (Tahoe is Reno's controller with another recovery.)
    let controllers = cwnd_sim::transport::tcp::cc::KNOWN
        .iter()
        .filter(|&&c| c != "tahoe");
    for &cc in controllers {
        let (before, after, _, undone) = held_acks_with(cc, "eifel = true, ");
        assert!(undone >= 1, "{cc}: not undone");
        assert!(after >= before, "{cc}: cwnd {after} < {before}");
    }
}

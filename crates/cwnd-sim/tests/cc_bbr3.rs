//! BBRv3 on whole networks (draft-ietf-ccwg-bbr-04): on a shallow buffer its loss
//! stays near its 2 % threshold where v1 loses more; on a clean path it fills the
//! link with a queue below a BDP; beside CUBIC, its share over 1–16 BDP of buffer
//! (docs/validation.md sets it beside Sarpkaya et al., IFIP Networking 2025).

mod common;

use common::{goodput_between, queue_after_startup, run, two_flow_dumbbell};

/// 50 Mb/s, 40 ms RTT (18 ms bottleneck + 2 × 1 ms access each way): BDP =
/// 50e6 × 0.040 / 12 000 bit = 166.7 packets of 1500 B.
const BDP_50: f64 = 50e6 * 0.040 / 12_000.0;

/// Two flows, `cc` then `other`, over 50 Mb/s, 40 ms RTT with a buffer of `buffer`
/// packets, `seconds` long, seed 1, on the default profile ("linux": SACK, as BBR
/// is meant to run — without it see docs/tcp.md — delayed ACKs, timestamps).
fn dumbbell(cc: &str, other: &str, buffer: u32, seconds: u32) -> cwnd_sim::results::RunResults {
    let s = two_flow_dumbbell("50Mbps", 18, buffer, seconds, &format!("\"{cc}\""), "0s")
        .replace("tcp.profile = \"rfc\"\n", "");
    let (head, tail) = s
        .rsplit_once(&format!("cc = \"{cc}\""))
        .expect("second flow");
    run(&format!("{head}cc = \"{other}\"{tail}"), 1)
}

/// Retransmitted segments as a fraction of segments sent, both flows.
fn retransmitted_fraction(r: &cwnd_sim::results::RunResults) -> f64 {
    let (retx, sent) = r.flows.iter().fold((0, 0), |(x, s), f| {
        (
            x + f.summary.sender.segments_retransmitted,
            s + f.summary.sender.segments_sent,
        )
    });
    retx as f64 / sent as f64
}

#[test]
fn on_a_shallow_buffer_v3_keeps_its_loss_near_2_percent_and_well_below_v1() {
    // Issue 32: two flows, 50 Mb/s, 40 ms, a buffer of 0.5 BDP (83 packets), 60 s.
    // v1 ignores loss (its model is max bandwidth × min RTT; two flows' max filters
    // add up to more than the link, and each probe at 5/4 overflows the half-BDP
    // buffer): the issue measured about 5 % retransmitted.
    // v3 ends a probe once a round's loss passes 2 % and then cuts inflight_hi
    // (× 0.7) and the short-term bounds: its loss must stay near that threshold —
    // at most 3 % (the threshold is per probing round; the rounds between probes
    // lose less) — and below half of v1's.
    let buffer = (BDP_50 / 2.0) as u32;
    let v1 = retransmitted_fraction(&dumbbell("bbr", "bbr", buffer, 60));
    let v3 = retransmitted_fraction(&dumbbell("bbr3", "bbr3", buffer, 60));
    println!(
        "0.5 BDP: retransmitted bbr {:.2} %, bbr3 {:.2} %",
        100.0 * v1,
        100.0 * v3
    );
    assert!(v3 <= 0.03, "bbr3 {:.2} %", 100.0 * v3);
    assert!(
        v3 < v1 / 2.0,
        "bbr3 {:.2} % vs bbr {:.2} %",
        100.0 * v3,
        100.0 * v1
    );
}

#[test]
fn on_a_clean_path_v1_and_v3_fill_the_link_with_a_queue_below_a_bdp() {
    // v3 paces at 0.99 × bw except in Up (1.25, until in flight reaches
    // inflight_hi or the bandwidth plateaus) and Down (0.90), and cruises 15 %
    // below inflight_hi; v1 probes at 5/4 for a round and drains at 3/4. Both keep
    // the queue after Startup's (5–30 s) below a BDP, on average and at its largest.
    // ProbeRTT (v3: BDP/2 for 200 ms + a round every 5 s; v1: 4 segments every
    // 10 s), v3's 1 % margin and the timestamp option (12/1460) cost a few per cent:
    // ≥ 90 % of the 50 × 1460/1500 Mb/s of payload.
    let capacity = 50e6 * 1460.0 / 1500.0;
    for cc in ["bbr", "bbr3"] {
        let (g, mean, max, _) = queue_after_startup("50Mbps", 20.0, (4.0 * BDP_50) as u32, cc);
        println!(
            "clean, {cc}: {:.2} Mb/s ({:.1} %), queue mean {mean:.1}, max {max} (BDP {BDP_50:.0})",
            g / 1e6,
            100.0 * g / capacity
        );
        assert!(g >= 0.90 * capacity, "{cc}: goodput {:.2} Mb/s", g / 1e6);
        assert!(mean < BDP_50, "{cc}: mean queue {mean:.1}");
        assert!(f64::from(max) < BDP_50, "{cc}: largest queue {max}");
    }
}

#[test]
fn beside_cubic_the_v3_share_over_1_to_16_bdp_of_buffer() {
    // One bbr3 and one CUBIC flow, 50 Mb/s, 40 ms, buffers of 1, 2, 4, 8, 16 BDP,
    // 60 s, shares over 10–60 s. Printed for docs/validation.md; the rule checked:
    // both flows get something at every size (neither starves: > 5 % each), and
    // the link stays full (≥ 90 % together).
    for bdps in [1.0, 2.0, 4.0, 8.0, 16.0] {
        let r = dumbbell("bbr3", "cubic", (bdps * BDP_50) as u32, 60);
        let v3 = goodput_between(&r, &r.flows[0], 10.0, 60.0);
        let cubic = goodput_between(&r, &r.flows[1], 10.0, 60.0);
        let capacity = 50e6 * 1460.0 / 1500.0;
        let share = v3 / (v3 + cubic);
        println!(
            "{bdps:>4} BDP: bbr3 {:.2} Mb/s, cubic {:.2} Mb/s, bbr3 share {:.2}, link {:.1} %",
            v3 / 1e6,
            cubic / 1e6,
            share,
            100.0 * (v3 + cubic) / capacity
        );
        assert!(share > 0.05 && share < 0.95, "{bdps} BDP: share {share:.2}");
        assert!(v3 + cubic >= 0.9 * capacity, "{bdps} BDP: link underused");
    }
}

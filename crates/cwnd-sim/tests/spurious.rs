//! Spurious retransmissions end to end: retransmissions forced spurious — the ACKs
//! held back past the RTO, or one data segment delivered four places late — and
//! undone by D-SACK (RFC 3708), Eifel (RFC 3522) or F-RTO (RFC 5682); with loss but
//! no reordering, D-SACK undo must change nothing. Also SACK recovery (RFC 6675)
//! against NewReno on a window with three losses.

mod common;

use common::{run, single_path};
use cwnd_sim::results::FlowResult;
use cwnd_sim::transport::tcp::sender::SenderStats;
use cwnd_sim::transport::tcp::tcb::INFINITE_SSTHRESH;

/// What a flow's trace shows around a spurious episode.
struct Episode {
    /// cwnd just before the episode began.
    before: u32,
    /// cwnd and ssthresh at `after` seconds past that instant.
    after: u32,
    ssthresh_after: u32,
    stats: SenderStats,
}

/// The row of the series at time `t` (the last change at or before it).
fn row(f: &FlowResult, t: f64) -> usize {
    f.series.time.partition_point(|x| x.as_secs_f64() <= t) - 1
}

/// One flow, 10 Mb/s, 48 ms RTT, 30-segment window, RTO floor 200 ms, timestamps on
/// (the MSS is 1448 B). When segment 500 is sent, the reverse link's ARQ holds every
/// ACK for 1 s (in order, for 10 ms of ACKs): the data all arrives, but the sender's
/// timer expires. `tcp` is added to the flow's TCP options.
fn held_acks_episode(cc: &str, tcp: &str) -> Episode {
    let flow = format!(
        "cc = \"{cc}\"\ntcp = {{ timestamps = true, {tcp}rwnd = \"{}B\", rto = {{ min = \"200ms\" }} }}",
        30 * 1448
    );
    let stage = "impairments = [{ kind = \"arq\", pv = 1.0, delay = { distribution = \"constant\", value = \"1s\" }, direction = \"reverse\", applies_to = \"acks\", start_on = { flow = \"f\", segment = 500 }, duration = \"10ms\" }]";
    let s = single_path("10Mbps", 24.0, 100, 10, &flow, stage)
        .replace("[[flows]]", "[trace]\nsegments = true\n[[flows]]");
    let r = run(&s, 1);
    let f = &r.flows[0];
    let seg = f.segments.as_ref().unwrap();
    let t0 = seg.time[seg.seq.iter().position(|&x| x == 499 * 1448).unwrap()].as_secs_f64();
    let (before, after) = (row(f, t0 - 0.001), row(f, t0 + 1.2));
    Episode {
        before: f.series.cwnd[before],
        after: f.series.cwnd[after],
        ssthresh_after: f.series.ssthresh[after],
        stats: f.summary.sender,
    }
}

/// (cwnd before, cwnd after, ssthresh after, spurious episodes undone).
fn held_acks(detector: &str) -> (u32, u32, u32, u64) {
    held_acks_with("newreno", detector)
}

fn held_acks_with(cc: &str, detector: &str) -> (u32, u32, u32, u64) {
    let e = held_acks_episode(cc, detector);
    (e.before, e.after, e.ssthresh_after, e.stats.spurious_undone)
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
    // (Tahoe is Reno's controller with another recovery.) CDG is undone too, but by
    // `after` it has backed off again: the held ACKs' 1 s RTT samples are a delay
    // gradient of +1 s, on which its rule backs off (cc/cdg.rs tests its undo_cwnd).
    let controllers = cwnd_sim::transport::tcp::cc::KNOWN
        .iter()
        .filter(|&&c| c != "tahoe");
    for &cc in controllers {
        let (before, after, _, undone) = held_acks_with(cc, "eifel = true, ");
        println!("{cc}: cwnd {before} before, {after} after, {undone} undone");
        assert!(undone >= 1, "{cc}: not undone");
        if cc != "cdg" {
            assert!(after >= before, "{cc}: cwnd {after} < {before}");
        }
    }
}

#[test]
fn dsack_undo_restores_the_window_after_acks_held_past_the_rto() {
    // The held-ACK timeout with SACK and D-SACK, no other detector. The timer fires
    // twice (the first retransmission's ACK is held too), then the held ACKs arrive
    // and, in loss recovery, each one clocks out retransmissions of segments the next
    // held ACKs acknowledge: every retransmission reaches the receiver as a
    // duplicate, and the D-SACKs report them all (RFC 3708: the timeout was
    // spurious). Undo: cwnd back to where it was (Reno: prior_cwnd), ssthresh back to
    // infinite. Without `dsack_undo` the same detection is counted, and the
    // reduction stays.
    let undo = held_acks_episode("newreno", "sack = true, dsack = true, dsack_undo = true, ");
    let s = undo.stats;
    println!(
        "dsack undo: cwnd {} before, {} after, ssthresh {}; {} timeouts, {} retransmissions, {} detected",
        undo.before, undo.after, undo.ssthresh_after, s.timeouts, s.segments_retransmitted,
        s.spurious_dsack
    );
    assert_eq!((s.timeouts, s.fast_retransmits), (2, 0));
    assert_eq!((s.spurious_dsack, s.spurious_undone), (1, 1));
    assert!(
        undo.after >= undo.before,
        "cwnd {} < {}",
        undo.after,
        undo.before
    );
    assert_eq!(undo.ssthresh_after, INFINITE_SSTHRESH);

    let kept = held_acks_episode("newreno", "sack = true, dsack = true, ");
    assert_eq!(
        (kept.stats.spurious_dsack, kept.stats.spurious_undone),
        (1, 0)
    );
    assert!(kept.ssthresh_after <= kept.before / 2 + 1);
}

/// One flow over 10 Mb/s, 48 ms RTT, 50-segment window; data packet 100 is
/// delivered after the 4 that follow it, which makes three duplicate ACKs and a
/// spurious fast retransmit. Returns (cwnd just before the fast retransmit, cwnd
/// when ssthresh is back to infinite — the undo —, stats).
fn reordered(tcp: &str) -> (u32, Option<u32>, SenderStats) {
    let flow = format!(
        "cc = \"newreno\"\ntcp = {{ {tcp}rwnd = \"{}B\" }}",
        50 * 1448
    );
    let stage = "impairments = [{ kind = \"reorder\", packet = 100, positions = 4, direction = \"forward\", applies_to = \"data\" }]";
    let s = single_path("10Mbps", 24.0, 100, 5, &flow, stage)
        .replace("[[flows]]", "[trace]\nsegments = true\n[[flows]]");
    let r = run(&s, 1);
    let f = &r.flows[0];
    let seg = f.segments.as_ref().unwrap();
    let first = seg.retransmission.iter().position(|&x| x).unwrap();
    let t_fr = seg.time[first];
    let before = f.series.cwnd[f.series.time.partition_point(|&x| x < t_fr) - 1];
    let undone = (0..f.series.len())
        .find(|&i| f.series.time[i] > t_fr && f.series.ssthresh[i] == INFINITE_SSTHRESH)
        .map(|i| f.series.cwnd[i]);
    (before, undone, f.summary.sender)
}

#[test]
fn a_fast_retransmit_made_spurious_by_reordering_is_undone_to_the_prior_cwnd() {
    // D-SACK: the copy of packet 100 arrives after the original and is reported in a
    // D-SACK block once recovery has ended; the undo happens on that duplicate ACK,
    // which grows nothing: cwnd is exactly the window before the fast retransmit.
    let (before, undone, s) = reordered("sack = true, dsack = true, dsack_undo = true, ");
    println!("dsack: cwnd {before} before, {undone:?} at undo");
    assert_eq!(
        (s.fast_retransmits, s.spurious_dsack, s.spurious_undone),
        (1, 1, 1)
    );
    assert_eq!(undone, Some(before));
    // Eifel, with SACK or NewReno recovery: the late original's ACK echoes an older
    // TSval than the retransmission's; undo on that ACK, which then adds one segment
    // in slow start (ssthresh is infinite again).
    for tcp in [
        "timestamps = true, eifel = true, sack = true, ",
        "timestamps = true, eifel = true, ",
    ] {
        let (before, undone, s) = reordered(tcp);
        println!("{tcp}: cwnd {before} before, {undone:?} at undo");
        assert_eq!(
            (s.fast_retransmits, s.spurious_eifel, s.spurious_undone),
            (1, 1, 1),
            "{tcp}"
        );
        assert_eq!(undone, Some(before + 1), "{tcp}");
    }
    // Without an undo option the reduction stands (D-SACK detection is still
    // counted when the receiver sends D-SACKs).
    let (_, undone, s) = reordered("sack = true, dsack = true, ");
    assert_eq!((s.spurious_dsack, s.spurious_undone, undone), (1, 0, None));
}

#[test]
fn with_loss_but_no_reordering_dsack_undo_changes_nothing() {
    // Random loss of data packets, nothing reordered or delayed: no retransmission is
    // unnecessary, so no D-SACK ever covers a whole episode, and turning D-SACK undo
    // on leaves the run identical, event for event (same fingerprint) — for SACK
    // recovery and for NewReno with SACK blocks.
    let impair = "impairments = [{ kind = \"bernoulli\", p = 0.01, direction = \"forward\", applies_to = \"data\" }]";
    for recovery in ["sack", "newreno"] {
        for seed in [3, 4, 5] {
            let flow = |undo: bool| {
                format!("cc = \"newreno\"\nrecovery = \"{recovery}\"\ntcp = {{ sack = true, dsack = true, dsack_undo = {undo} }}")
            };
            let off = run(
                &single_path("10Mbps", 24.0, 50, 60, &flow(false), impair),
                seed,
            );
            let on = run(
                &single_path("10Mbps", 24.0, 50, 60, &flow(true), impair),
                seed,
            );
            let (a, b) = (&off.flows[0].summary, &on.flows[0].summary);
            assert!(a.sender.fast_retransmits > 10, "{recovery} seed {seed}");
            assert_eq!(a.sender.spurious_dsack, 0, "{recovery} seed {seed}");
            assert_eq!(b.sender.spurious_undone, 0, "{recovery} seed {seed}");
            assert_eq!(off.fingerprint, on.fingerprint, "{recovery} seed {seed}");
        }
    }
}

/// A 400-segment transfer over 10 Mb/s, 100 ms RTT, 32-segment window, losing data
/// packets 100, 103 and 106 (one window). Returns (completion time, times of the
/// retransmissions, stats).
fn three_losses(tcp: &str) -> (f64, Vec<f64>, SenderStats) {
    let flow = format!(
        "cc = \"newreno\"\napp = {{ kind = \"transfer\", segments = 400 }}\ntcp = {{ {tcp}rwnd = \"{}B\" }}",
        32 * 1460
    );
    let impair = "impairments = [{ kind = \"drop_list\", packets = [100, 103, 106], direction = \"forward\", applies_to = \"data\" }]";
    let s = single_path("10Mbps", 50.0, 200, 30, &flow, impair)
        .replace("[[flows]]", "[trace]\nsegments = true\n[[flows]]");
    let r = run(&s, 1);
    let f = &r.flows[0];
    let seg = f.segments.as_ref().unwrap();
    let retx = (0..seg.time.len())
        .filter(|&i| seg.retransmission[i])
        .map(|i| seg.time[i].as_secs_f64())
        .collect();
    let done = f.summary.completion_time.unwrap().as_secs_f64();
    (done, retx, f.summary.sender)
}

#[test]
fn sack_repairs_three_losses_of_one_window_in_one_round_trip() {
    // Fall & Floyd (1996): NewReno retransmits one hole per round trip (each found by
    // a partial ACK); SACK recovery (RFC 6675) sees all three holes in the SACK
    // blocks and resends them within the first round trip of recovery. Both resend
    // exactly the three lost packets, with one fast retransmit and no timeout.
    let (newreno, nr_retx, nr) = three_losses("");
    let (sack, sack_retx, sk) = three_losses("sack = true, ");
    println!("three losses: newreno {newreno:.3} s {nr_retx:?}, sack {sack:.3} s {sack_retx:?}");
    for (name, s, retx) in [("newreno", nr, &nr_retx), ("sack", sk, &sack_retx)] {
        assert_eq!(retx.len(), 3, "{name}");
        assert_eq!((s.fast_retransmits, s.timeouts), (1, 0), "{name}");
    }
    let rtt = 0.1;
    assert!(sack_retx[2] - sack_retx[0] < rtt, "{sack_retx:?}");
    assert!(nr_retx[2] - nr_retx[0] > 2.0 * rtt, "{nr_retx:?}");
    assert!(sack < newreno, "sack {sack} vs newreno {newreno}");
}

//! Packet-script tests of SACK loss recovery (RFC 6675) and of spurious-retransmission
//! detection and undo (D-SACK RFC 3708, Eifel RFC 3522, F-RTO RFC 5682): segments
//! out, ACKs in, at chosen times, with the expected windows worked out by hand.
//! Sequence numbers are in segments of 1000 bytes; every segment sent at t = 0 has
//! TSval 0.

use super::cc::{CongestionControl, Reno};
use super::recovery::{Recovery, RepeatedTimeout};
use std::collections::VecDeque;

use super::cc_sample::CcSample;
use super::ecn::EcnConfig;
use super::rto::RtoConfig;
use super::sack::{Scoreboard, SentSegment};
use super::sender::{SenderConfig, TcpSender};
use super::tcb::{CaState, INFINITE_SSTHRESH};
use crate::packet::{Ecn, SackBlocks, TcpAck, TcpData};
use crate::time::SimTime;

pub(super) const MSS: u64 = 1000;

/// A Reno sender with the given recovery and initial window; `set` adjusts the rest.
pub(super) fn sender(
    recovery: Recovery,
    iw: u32,
    set: impl FnOnce(&mut SenderConfig),
) -> TcpSender {
    sender_cc(recovery, iw, Box::new(Reno), set)
}

/// The same with the controller `cc`.
pub(super) fn sender_cc(
    recovery: Recovery,
    iw: u32,
    cc: Box<dyn CongestionControl>,
    set: impl FnOnce(&mut SenderConfig),
) -> TcpSender {
    let mut cfg = SenderConfig {
        mss: MSS as u32,
        header: 40,
        initial_window: iw,
        dupthresh: 3,
        limited_transmit: false,
        prr: false,
        ecn: EcnConfig::default(),
        abc_limit: 1,
        recovery,
        repeated_timeout: RepeatedTimeout::Keep,
        timestamps: false,
        cc_sample: CcSample::Newest,
        sack: recovery == Recovery::Sack,
        dsack_undo: false,
        eifel: false,
        frto: false,
        rto: RtoConfig::default(),
        app_bytes: None,
        write_size: None,
        sndbuf: None,
        nagle: true,
        adapt_dupthresh: None,
        rack: false,
    };
    set(&mut cfg);
    TcpSender::new(cfg, cc)
}

pub(super) fn start(s: &mut TcpSender) -> Vec<u64> {
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    segs(&out)
}

fn segs(out: &[TcpData]) -> Vec<u64> {
    out.iter().map(|d| d.seq / MSS).collect()
}

/// An ACK at `t_ms`: cumulative ACK `cum`, SACK blocks, TSecr `echo_ms`, all in
/// segments and milliseconds. Returns the segments the sender emits.
pub(super) fn ack(
    s: &mut TcpSender,
    t_ms: u64,
    cum: u64,
    blocks: &[(u64, u64)],
    echo_ms: Option<u64>,
) -> Vec<u64> {
    let mut sack = SackBlocks::default();
    for &(a, b) in blocks {
        sack.push(a * MSS, b * MSS);
    }
    let a = TcpAck {
        ack: cum * MSS,
        window: u64::MAX,
        ts_ecr: echo_ms.map(SimTime::from_millis),
        sack,
        ecn: Ecn::NotEct,
        ece: false,
    };
    let mut out = Vec::new();
    s.on_ack(SimTime::from_millis(t_ms), &a, &mut out);
    segs(&out)
}

pub(super) fn timeout(s: &mut TcpSender, t_ms: u64) -> Vec<u64> {
    let mut out = Vec::new();
    s.on_timer(SimTime::from_millis(t_ms), &mut out);
    segs(&out)
}

// ---- SACK recovery (RFC 6675) ----

/// Segments 0..9 in flight, 0, 3 and 6 lost; the receiver's duplicate ACKs for
/// 1, 2, 4, 5, 7, 8, 9 (with SACK blocks when `sack`), then the cumulative ACKs the
/// repairs produce, one round trip (100 ms) apart. Returns (time, segment) of every
/// retransmission.
fn three_holes(recovery: Recovery) -> Vec<(u64, u64)> {
    let mut s = sender(recovery, 10, |_| {});
    start(&mut s);
    let sack = recovery == Recovery::Sack;
    let blocks: [&[(u64, u64)]; 7] = [
        &[(1, 2)],
        &[(1, 3)],
        &[(4, 5), (1, 3)],
        &[(4, 6), (1, 3)],
        &[(7, 8), (4, 6), (1, 3)],
        &[(7, 9), (4, 6), (1, 3)],
        &[(7, 10), (4, 6), (1, 3)],
    ];
    let mut retx = Vec::new();
    let mut note = |t: u64, sent: Vec<u64>, s: &TcpSender| {
        for n in sent {
            if n * MSS < s.high_water() && n < 10 {
                retx.push((t, n));
            }
        }
    };
    for (i, b) in blocks.iter().enumerate() {
        let t = 100 + i as u64;
        let sent = ack(&mut s, t, 0, if sack { b } else { &[] }, None);
        note(t, sent, &s);
    }
    // Each retransmission arrives one round trip after it was sent; the receiver
    // acknowledges up to the next hole (blocks above it as they stand).
    let mut t = 200;
    while s.tcb.ca_state == CaState::Recovery && t < 1000 {
        let cum = s.tcb.snd_una / MSS;
        let next = match cum {
            0 => 3,
            3 => 6,
            _ => s.high_water() / MSS,
        };
        let b: &[(u64, u64)] = match next {
            3 if sack => &[(4, 6), (7, 10)],
            6 if sack => &[(7, 10)],
            _ => &[],
        };
        let sent = ack(&mut s, t, next, b, None);
        note(t, sent, &s);
        t += if sack { 2 } else { 100 };
    }
    assert_eq!(
        s.tcb.ca_state,
        CaState::Open,
        "{recovery:?} never left recovery"
    );
    assert_eq!(s.stats.timeouts, 0);
    retx
}

#[test]
fn sack_repairs_every_hole_of_a_window_in_one_round_trip_newreno_one_per_round_trip() {
    // RFC 6675: 0 IsLost at the third duplicate (102 ms, 1, 2, 4 SACKed above it);
    // 3 when 4, 5, 7 are SACKed (104 ms); 6 when 7, 8, 9 are (106 ms) — all three
    // holes within the first round trip of recovery.
    assert_eq!(
        three_holes(Recovery::Sack),
        vec![(102, 0), (104, 3), (106, 6)]
    );
    // RFC 6582: one hole per round trip, each found by a partial ACK.
    assert_eq!(
        three_holes(Recovery::NewReno),
        vec![(102, 0), (200, 3), (300, 6)]
    );
}

/// A scoreboard set by hand: (length, SACKed) per segment, from sequence 0.
fn scoreboard(entries: &[(u32, bool)]) -> Scoreboard {
    let mut seq = 0;
    let mut segments = VecDeque::new();
    for &(len, sacked) in entries {
        segments.push_back(SentSegment {
            seq,
            len,
            sent: SimTime::ZERO,
            retransmitted: false,
            sacked,
            lost: false,
            rexmit: false,
            tx: Default::default(),
        });
        seq += u64::from(len);
    }
    Scoreboard::from_segments(segments)
}

/// IsLost of every segment, and pipe, after the scoreboard pass with DupThresh 3
/// and SMSS 1000 (`Scoreboard::mark_lost_and_pipe`).
fn lost_and_pipe(b: &mut Scoreboard) -> (Vec<bool>, u64) {
    let (pipe, _) = b.mark_lost_and_pipe(3, MSS as u32);
    let mut lost = Vec::new();
    let mut seq = 0;
    while let Some(x) = b.segment_at(seq) {
        lost.push(x.lost);
        seq = x.end();
    }
    (lost, pipe)
}

#[test]
fn islost_and_pipe_by_hand() {
    // RFC 6675 §4 IsLost, DupThresh 3, SMSS 1000: "more than (DupThresh − 1) * SMSS
    // bytes" SACKed above. Three full segments SACKed above the first (in two runs):
    // 3000 > 2000, lost; two above the third: 2000, not lost. SetPipe: a lost segment
    // counts 0, one not lost 1, and 1 more while a retransmission of it is in flight.
    let mut s = scoreboard(&[
        (1000, false),
        (1000, true),
        (1000, false),
        (1000, true),
        (1000, true),
    ]);
    assert_eq!(
        lost_and_pipe(&mut s),
        (vec![true, false, false, false, false], 1)
    );
    s.on_retransmitted(SimTime::ZERO, 0, Default::default());
    assert_eq!(lost_and_pipe(&mut s).1, 2);
    // "DupThresh discontiguous SACKed sequences": three SACKed runs of 300-byte
    // segments above the first (900 bytes, under the byte rule) make it lost; the
    // 300-byte holes between them have only two and one runs above. Pipe: 0 (lost)
    // + 1 + 1 for the two holes not lost.
    let mut t = scoreboard(&[
        (1000, false),
        (300, true),
        (300, false),
        (300, true),
        (300, false),
        (300, true),
    ]);
    assert_eq!(
        lost_and_pipe(&mut t),
        (vec![true, false, false, false, false, false], 2)
    );
}

#[test]
fn a_cumulative_ack_with_new_sack_information_is_a_duplicate_ack() {
    // RFC 6675 §2: an ACK that newly SACKs data is a duplicate acknowledgment "even if
    // it ... moves the cumulative acknowledgment point". 0..9 sent; 1 lost. An ACK
    // for 0 that also SACKs 2..4 (a delayed ACK covering four arrivals) resets
    // DupAcks and counts as the first duplicate; IsLost(1) holds (3 SACKed above,
    // step 2), so recovery starts at once: ssthresh = cwnd = FlightSize/2 = 9/2 → 4,
    // segment 1 retransmitted; pipe = 1 (retransmission) + 5 (5..9) = 6 > 4.
    let mut s = sender(Recovery::Sack, 10, |_| {});
    start(&mut s);
    assert_eq!(ack(&mut s, 100, 1, &[(2, 5)], None), vec![1]);
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (4, 4));
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn islost_starts_recovery_before_three_duplicates() {
    // RFC 6675 §5 step 2: 0 arrives, 1 is lost, 2 and 3 arrive (two duplicates),
    // then one ACK reports 4 and 5 together (a delayed ACK). DupAcks = 3 anyway here;
    // with DupThresh 4 the count alone would not do, but IsLost(1) does: 2..5
    // SACKed, 4000 > 3000 bytes.
    let mut s = sender(Recovery::Sack, 10, |c| c.dupthresh = 4);
    start(&mut s);
    ack(&mut s, 100, 1, &[], None);
    assert!(ack(&mut s, 101, 1, &[(2, 3)], None).is_empty());
    assert!(ack(&mut s, 102, 1, &[(2, 4)], None).is_empty());
    assert_eq!(s.tcb.ca_state, CaState::Disorder);
    assert_eq!(ack(&mut s, 103, 1, &[(2, 6)], None), vec![1]);
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
}

#[test]
fn after_a_timeout_sack_retransmits_only_what_was_not_sacked() {
    // 0..9 sent; 0 and 5 lost. Recovery starts at the third duplicate and resends 0,
    // later 5 (IsLost once 6, 7, 8 are SACKed); both retransmissions are lost too.
    let mut s = sender(Recovery::Sack, 10, |_| {});
    start(&mut s);
    let mut sent = Vec::new();
    for (i, hi) in [2, 3, 4, 5].into_iter().enumerate() {
        sent.extend(ack(&mut s, 100 + i as u64, 0, &[(1, hi)], None));
    }
    for (i, hi) in [7, 8, 9, 10].into_iter().enumerate() {
        sent.extend(ack(&mut s, 104 + i as u64, 0, &[(6, hi), (1, 5)], None));
    }
    assert!(sent.contains(&0) && sent.contains(&5), "{sent:?}");
    let high = s.high_water() / MSS;
    // The timer (armed at t = 0, RTO 1 s) fires: cwnd 1, every segment not SACKed is
    // presumed lost (RFC 6675 §5.1, Linux), the first one goes again.
    assert_eq!(timeout(&mut s, 1000), vec![0]);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (1, CaState::Loss));
    // 0 arrives: ACK up to 5 (1..4 were held). Slow start, cwnd 2: the next two
    // segments presumed lost — 5 and the first new one sent during recovery —
    // never 6..9, which the receiver holds.
    let out = ack(&mut s, 1100, 5, &[(6, 10)], None);
    assert_eq!(out, vec![5, 10]);
    assert!(high > 10);
    // 5 arrives: ACK up to 11 (10 arrived too); cwnd 3, one retransmission (10) was
    // acknowledged: the rest of the new data presumed lost goes, and never 6..9.
    let out = ack(&mut s, 1200, 11, &[], None);
    assert!(out.iter().all(|&n| n >= 11), "{out:?}");
}

#[test]
fn after_a_timeout_an_ack_over_a_sacked_run_grows_cwnd_by_what_it_delivers() {
    // Linux slow start (no per-ACK limit). 0..9 sent, the whole transfer; 0 lost.
    // The duplicates SACK 1..9; the third starts recovery (ssthresh = 10/2 = 5) and
    // resends 0, which is lost too. The timer fires at 1 s (no reduction: it
    // interrupts recovery of the same loss): cwnd 1, 0 goes again.
    let mut s = sender(Recovery::Sack, 10, |c| {
        c.abc_limit = u32::MAX;
        c.app_bytes = Some(10 * MSS);
    });
    start(&mut s);
    for hi in 2..=10 {
        ack(&mut s, 100 + hi, 0, &[(1, hi)], None);
    }
    assert_eq!((s.tcb.ca_state, s.tcb.ssthresh), (CaState::Recovery, 5));
    assert_eq!(timeout(&mut s, 1000), vec![0]);
    assert_eq!(s.tcb.cwnd, 1);
    // 0 arrives: ACK 10 delivers one segment (1..9 were delivered when SACKed), so
    // slow start adds one: cwnd 1 + 1 = 2 (Linux acked_sacked = 1). Counting the 10
    // segments the ACK covers would give min(1 + 10, ssthresh 5) = 5.
    ack(&mut s, 1100, 10, &[], None);
    assert_eq!((s.tcb.ca_state, s.tcb.cwnd), (CaState::Open, 2));
}

#[test]
fn a_timeout_deep_in_sack_loss_recovery_halves_the_data_in_flight() {
    // 0..19 sent (IW 20), no ACK: the timer fires at 1 s, ssthresh = 20/2 = 10,
    // cwnd 1, 0 goes again (RTO backed off to 2 s).
    let mut s = sender(Recovery::Sack, 20, |_| {});
    start(&mut s);
    assert_eq!(timeout(&mut s, 1000), vec![0]);
    assert_eq!(s.tcb.ssthresh, 10);
    // 0 arrives; 1 is still missing and 2..19 are held: ACK 1, SACK 2..20. Slow
    // start, cwnd 2: pipe 0 (1 is lost, not yet resent) → 1 again, then new data 20.
    assert_eq!(ack(&mut s, 1100, 1, &[(2, 20)], None), vec![1, 20]);
    // Both are lost; the timer (restarted at 1.1 s, 2 s) fires at 3.1 s. The ACK made
    // progress, so this is a new reduction. In flight: 1 (resent) and 20 → pipe 2,
    // ssthresh = max(2/2, 2) = 2 (Linux: cwnd 2 / 2 → 2). snd_nxt − snd_una = 20
    // segments would give 10, five times the window the flow had.
    timeout(&mut s, 3100);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (2, 1));
}

/// 20 segments in flight, 0–3 lost: the duplicate ACKs for segments 4..=19, each
/// SACKing [4, k + 1). Returns what the sender emits on each from segment 6 on.
fn burst_of_four(prr: bool) -> (TcpSender, Vec<Vec<u64>>) {
    let mut s = sender(Recovery::Sack, 20, |c| c.prr = prr);
    start(&mut s);
    assert!(ack(&mut s, 100, 0, &[(4, 5)], None).is_empty());
    assert!(ack(&mut s, 101, 0, &[(4, 6)], None).is_empty());
    let sent = (6..=19)
        .map(|k| ack(&mut s, 100 + k, 0, &[(4, k + 1)], None))
        .collect();
    (s, sent)
}

#[test]
fn prr_with_sack_spreads_the_repairs_and_ends_at_ssthresh() {
    // The third SACKed segment (6) starts recovery: ssthresh = 20/2 = 10, RecoverFS
    // = 20, 0–3 IsLost (3 SACKed segments above them), pipe = 20 − 3 − 4 = 13.
    // PRR (`prr.rs`), d = prr_delivered:
    //   seg 6:  d 1, pipe 13 > 10: ⌈1·10/20⌉ − 0 = 1 → resend 0 (pipe 14)
    //   seg 7:  d 2, pipe 13: ⌈1⌉ − 1 = 0
    //   seg 8:  d 3, pipe 12: ⌈1.5⌉ − 1 = 1 → resend 1 (NextSeg rule 1)
    //   seg 9:  d 4, pipe 12: ⌈2⌉ − 2 = 0
    //   seg 10: d 5, pipe 11: ⌈2.5⌉ − 2 = 1 → resend 2
    //   seg 11: d 6, pipe 11: ⌈3⌉ − 3 = 0
    //   seg 12: d 7, pipe 10, not above ssthresh: min(10 − 10, max(7 − 3, 1)) = 0
    //   seg 13: d 8, pipe 9: min(1, max(8 − 3, 1)) = 1 → resend 3
    //   seg 14..19: pipe 9: 1 each → new segments 20..25; pipe stays at 10.
    let (s, sent) = burst_of_four(true);
    let expected: Vec<Vec<u64>> = vec![
        vec![0],
        vec![],
        vec![1],
        vec![],
        vec![2],
        vec![],
        vec![],
        vec![3],
        vec![20],
        vec![21],
        vec![22],
        vec![23],
        vec![24],
        vec![25],
    ];
    assert_eq!(sent, expected);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (10, 10));
    // RFC 6675 alone: cwnd = ssthresh = 10 at once; the forced resend of 0 makes
    // pipe 14; pipe then falls by one per ACK (13, 12, 11, 10 at segs 7–10: nothing,
    // cwnd − pipe < 1) and from seg 11 (pipe 9) one segment per ACK: 1, 2, 3, then
    // 20..25 — the same segments, the repairs later and in a run.
    let (_, plain) = burst_of_four(false);
    let expected: Vec<Vec<u64>> = vec![
        vec![0],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![1],
        vec![2],
        vec![3],
        vec![20],
        vec![21],
        vec![22],
        vec![23],
        vec![24],
        vec![25],
    ];
    assert_eq!(plain, expected);
}

// ---- D-SACK (RFC 3708) ----

/// 0..9 sent with ssthresh 8 (congestion avoidance); segment 0 is delayed past 1, 2,
/// 3: the third duplicate retransmits it (ssthresh = cwnd = 10/2 = 5). Then 4..9 and
/// the original 0 arrive (ACK 10 ends recovery), and finally the copy of 0, which the
/// receiver reports with a D-SACK block below the cumulative ACK (RFC 2883 §4.1.1).
fn reordered_head(dsack_undo: bool) -> TcpSender {
    let mut s = sender(Recovery::Sack, 10, |c| c.dsack_undo = dsack_undo);
    s.tcb.ssthresh = 8;
    start(&mut s);
    ack(&mut s, 100, 0, &[(1, 2)], None);
    ack(&mut s, 101, 0, &[(1, 3)], None);
    assert_eq!(ack(&mut s, 102, 0, &[(1, 4)], None), vec![0]);
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (5, 5));
    assert_eq!((s.tcb.prior_cwnd, s.tcb.prior_ssthresh), (10, 8));
    for hi in 5..=10 {
        ack(&mut s, 100 + hi, 0, &[(1, hi)], None);
    }
    let high = s.high_water() / MSS;
    ack(&mut s, 111, 10, &[], None);
    assert_eq!((s.tcb.ca_state, s.tcb.cwnd), (CaState::Open, 5));
    assert!(high > 10);
    ack(&mut s, 150, 10, &[(0, 1)], None);
    s
}

#[test]
fn dsack_of_every_retransmission_undoes_the_reduction_exactly() {
    // RFC 3708: the one retransmission of the episode was a duplicate. Undo (Linux
    // `tcp_undo_cwnd_reduction`): cwnd = Reno's undo_cwnd = max(5, prior 10) = 10,
    // ssthresh = max(5, prior 8) = 8 — both back where they were.
    let s = reordered_head(true);
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (10, 8));
    assert_eq!((s.stats.spurious_dsack, s.stats.spurious_undone), (1, 1));
}

#[test]
fn dsack_detection_is_counted_without_undo_when_undo_is_off() {
    let s = reordered_head(false);
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (5, 5));
    assert_eq!((s.stats.spurious_dsack, s.stats.spurious_undone), (1, 0));
}

#[test]
fn a_real_loss_among_the_retransmissions_is_not_declared_spurious() {
    // As above, but 5 is really lost. The episode retransmits 0 (reordered) and 5
    // (IsLost once 6, 7, 8 are SACKed). The D-SACK for the copy of 0 discounts one of
    // the two retransmissions; the other was needed: no detection, no undo.
    let mut s = sender(Recovery::Sack, 10, |c| c.dsack_undo = true);
    start(&mut s);
    let acks: [&[(u64, u64)]; 8] = [
        &[(1, 2)],
        &[(1, 3)],
        &[(1, 4)],
        &[(1, 5)],
        &[(6, 7), (1, 5)],
        &[(6, 8), (1, 5)],
        &[(6, 9), (1, 5)],
        &[(6, 10), (1, 5)],
    ];
    let mut retx = Vec::new();
    for (i, blocks) in acks.iter().enumerate() {
        let sent = ack(&mut s, 100 + i as u64, 0, blocks, None);
        retx.extend(sent.into_iter().filter(|&n| n < 10));
    }
    assert_eq!(retx, vec![0, 5]);
    // The original 0 arrives: ACK 5 (5 missing). Then the copy of 0: D-SACK.
    ack(&mut s, 110, 5, &[(6, 10)], None);
    ack(&mut s, 150, 5, &[(0, 1), (6, 10)], None);
    assert_eq!(s.stats.spurious_dsack, 0);
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
    // The retransmission of 5 arrives: recovery ends, the reduction stands.
    let all = s.high_water() / MSS;
    ack(&mut s, 200, all, &[], None);
    assert_eq!(
        (s.tcb.ca_state, s.tcb.cwnd, s.tcb.ssthresh),
        (CaState::Open, 5, 5)
    );
    assert_eq!(s.stats.spurious_undone, 0);
}

// ---- Eifel (RFC 3522) ----

#[test]
fn eifel_finds_a_spurious_fast_retransmit_at_the_acceptable_ack() {
    // SACK flavour with timestamps; 0 is delayed, 1..3 trigger a fast retransmit of
    // 0 at 102 ms (RetransmitTS = 102 ms). The delayed original arrives first: the
    // ACK for 0..9 echoes its TSval, 0 < 102 ms (step 4): spurious (step 6). Undo in
    // recovery: back to Open, cwnd = max(5, 10), ssthresh back to infinite.
    let mut s = sender(Recovery::Sack, 10, |c| {
        c.timestamps = true;
        c.eifel = true;
    });
    start(&mut s);
    ack(&mut s, 100, 0, &[(1, 2)], Some(0));
    ack(&mut s, 101, 0, &[(1, 3)], Some(0));
    assert_eq!(ack(&mut s, 102, 0, &[(1, 4)], Some(0)), vec![0]);
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
    ack(&mut s, 110, 10, &[], Some(0));
    assert_eq!(s.stats.spurious_eifel, 1);
    assert_eq!(s.tcb.ca_state, CaState::Open);
    assert_eq!(s.tcb.ssthresh, INFINITE_SSTHRESH);
    assert!(s.tcb.cwnd >= 10);
}

#[test]
fn eifel_keeps_the_reduction_when_the_retransmission_is_acknowledged() {
    // Same, but 0 was lost: the ACK for 0..9 was sent for the retransmission and
    // echoes its TSval (102 ms), not older than RetransmitTS.
    let mut s = sender(Recovery::Sack, 10, |c| {
        c.timestamps = true;
        c.eifel = true;
    });
    start(&mut s);
    ack(&mut s, 100, 0, &[(1, 2)], Some(0));
    ack(&mut s, 101, 0, &[(1, 3)], Some(0));
    ack(&mut s, 102, 0, &[(1, 4)], Some(0));
    ack(&mut s, 202, 10, &[], Some(102));
    assert_eq!(s.stats.spurious_eifel, 0);
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (5, 5));
}

// ---- F-RTO (RFC 5682) ----

fn frto_after_timeout(recovery: Recovery) -> TcpSender {
    let mut s = sender(recovery, 10, |c| c.frto = true);
    start(&mut s);
    // Step 1: only the first unacknowledged segment is retransmitted.
    assert_eq!(timeout(&mut s, 1000), vec![0]);
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (1, 5));
    s
}

#[test]
fn frto_sack_enhanced_sends_two_new_segments_then_finds_the_timeout_spurious() {
    let mut s = frto_after_timeout(Recovery::Sack);
    // Step 2 (SACK-enhanced): a duplicate ACK only updates the scoreboard.
    assert!(ack(&mut s, 1005, 0, &[(3, 4)], None).is_empty());
    // The late ACK for 0..4 advances the window: step 2b, two new segments.
    assert_eq!(ack(&mut s, 1010, 5, &[], None), vec![10, 11]);
    // Step 3: the next ACK acknowledges 5..9 — sent before the timeout, never
    // retransmitted, below RecoveryPoint (10): spurious (3b). cwnd back to 10,
    // ssthresh infinite; the ACK then clocks out new data only.
    let out = ack(&mut s, 1011, 10, &[], None);
    assert_eq!(s.stats.spurious_frto, 1);
    assert_eq!(s.tcb.ca_state, CaState::Open);
    assert_eq!(s.tcb.ssthresh, INFINITE_SSTHRESH);
    assert!(s.tcb.cwnd >= 10);
    assert!(out.iter().all(|&n| n >= 12), "{out:?}");
    assert_eq!(s.stats.segments_retransmitted, 1);
}

#[test]
fn frto_sack_enhanced_falls_back_when_only_the_new_data_is_sacked() {
    let mut s = frto_after_timeout(Recovery::Sack);
    assert_eq!(ack(&mut s, 1010, 5, &[], None), vec![10, 11]);
    // Step 3a: the ACK SACKs 10 (above RecoveryPoint) and nothing below it: 5..9
    // were lost. cwnd = min(2, 3) = 2; conventional recovery resends what is
    // presumed lost: pipe = 1 (11), so one segment, 5.
    assert_eq!(ack(&mut s, 1011, 5, &[(10, 11)], None), vec![5]);
    assert_eq!(s.stats.spurious_frto, 0);
    assert_eq!(
        (s.tcb.cwnd, s.tcb.ssthresh, s.tcb.ca_state),
        (2, 5, CaState::Loss)
    );
}

#[test]
fn frto_basic_falls_back_on_a_duplicate_in_step_2() {
    // RFC 5682 §2.1 step 2a: a duplicate ACK after the timeout means conventional
    // recovery at once: go-back-N from 1 (0's retransmission is on its way), as far
    // as cwnd 1 allows — nothing more now.
    let mut s = frto_after_timeout(Recovery::NewReno);
    assert!(ack(&mut s, 1005, 0, &[], None).is_empty());
    assert_eq!(s.tcb.snd_nxt, MSS);
    // The retransmission arrives: slow start resends 1 and 2, not 0 again.
    assert_eq!(ack(&mut s, 1100, 1, &[], None), vec![1, 2]);
    assert_eq!(s.stats.spurious_frto, 0);
}

#[test]
fn frto_runs_again_when_the_timeout_recurs_without_progress() {
    // The first retransmission is lost too: the timer fires again (RTO 2 s). F-RTO
    // starts over from step 1 (RFC 5682 §3.1 step 2; Linux `tcp_enter_loss`), and the
    // late ACKs still show the first timeout spurious.
    let mut s = frto_after_timeout(Recovery::NewReno);
    assert_eq!(timeout(&mut s, 3000), vec![0]);
    assert_eq!(ack(&mut s, 3010, 5, &[], None), vec![10, 11]);
    ack(&mut s, 3011, 10, &[], None);
    assert_eq!(s.stats.spurious_frto, 1);
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (11, INFINITE_SSTHRESH));
}

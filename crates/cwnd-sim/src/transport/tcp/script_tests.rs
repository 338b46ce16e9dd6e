//! Packet-script tests of the sender's loss recovery: segments out, ACKs in, at
//! chosen times, with the expected windows worked out by hand from the RFCs.

use std::sync::{Arc, Mutex};

use super::cc::{AckSample, CongestionControl, Reno, Vegas, VegasConfig};
use super::cc_sample::CcSample;
use super::ecn::EcnConfig;
use super::recovery::{Recovery, RepeatedTimeout};
use super::rto::{RtoConfig, RttSample};
use super::sender::{SenderConfig, TcpSender};
use super::tcb::{CaState, Tcb};
use crate::packet::{Ecn, SackBlocks, TcpAck, TcpData};
use crate::time::SimTime;

const MSS: u64 = 1000;

fn sender(recovery: Recovery, initial_window: u32) -> TcpSender {
    sender_with(recovery, initial_window, false)
}

fn sender_with(recovery: Recovery, initial_window: u32, dsack_undo: bool) -> TcpSender {
    configured(recovery, initial_window, |c| c.dsack_undo = dsack_undo)
}

/// A Reno sender; `set` adjusts the configuration.
fn configured(
    recovery: Recovery,
    initial_window: u32,
    set: impl FnOnce(&mut SenderConfig),
) -> TcpSender {
    sender_cc(recovery, initial_window, Box::new(Reno), set)
}

fn sender_cc(
    recovery: Recovery,
    initial_window: u32,
    cc: Box<dyn CongestionControl>,
    set: impl FnOnce(&mut SenderConfig),
) -> TcpSender {
    let sack = recovery == Recovery::Sack;
    let mut cfg = SenderConfig {
        mss: MSS as u32,
        header: 40,
        initial_window,
        dupthresh: 3,
        limited_transmit: false,
        prr: false,
        ecn: EcnConfig::default(),
        abc_limit: 1,
        recovery,
        repeated_timeout: RepeatedTimeout::Keep,
        timestamps: false,
        cc_sample: CcSample::Newest,
        sack,
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

fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

/// Sequence numbers (in segments) of what the sender emits.
fn segs(out: &[TcpData]) -> Vec<u64> {
    out.iter().map(|d| d.seq / MSS).collect()
}

/// Delivers an ACK for `seg` segments at `t`; returns what the sender sends.
fn ack(s: &mut TcpSender, t: SimTime, seg: u64) -> Vec<TcpData> {
    let mut out = Vec::new();
    let a = TcpAck {
        ack: seg * MSS,
        window: u64::MAX,
        ts_ecr: None,
        sack: SackBlocks::default(),
        ecn: Ecn::NotEct,
        ece: false,
    };
    s.on_ack(t, &a, &mut out);
    out
}

fn start(s: &mut TcpSender) -> Vec<TcpData> {
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    out
}

#[test]
fn initial_window_goes_out_at_once() {
    let mut s = sender(Recovery::Reno, 4);
    assert_eq!(segs(&start(&mut s)), vec![0, 1, 2, 3]);
}

#[test]
fn each_ack_in_slow_start_releases_two_segments() {
    let mut s = sender(Recovery::Reno, 2);
    start(&mut s);
    // ACK of segment 0: cwnd 2 → 3, flight 1 → room for segments 2 and 3.
    assert_eq!(segs(&ack(&mut s, ms(100), 1)), vec![2, 3]);
    assert_eq!(s.tcb.cwnd, 3);
}

#[test]
fn reno_fast_retransmit_halves_and_recovery_deflates_to_ssthresh() {
    let mut s = sender(Recovery::Reno, 16);
    start(&mut s); // segments 0..15 in flight
                   // Segment 0 lost: segments 1, 2, 3 arrive and produce duplicate ACKs.
    assert!(ack(&mut s, ms(100), 0).is_empty());
    assert!(ack(&mut s, ms(101), 0).is_empty());
    assert_eq!(s.tcb.ca_state, CaState::Disorder);
    // Third duplicate: ssthresh = FlightSize/2 = 16/2 = 8; cwnd = 8 + 3 = 11
    // (RFC 5681 §3.2 steps 2–3); segment 0 is retransmitted; flight 16 > 11, so
    // nothing new goes out.
    assert_eq!(segs(&ack(&mut s, ms(102), 0)), vec![0]);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (8, 11));
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
    // Each further duplicate inflates cwnd by one; at 17 (six more) the flight of
    // 16 segments leaves room for new segment 16.
    for i in 0..5 {
        assert!(ack(&mut s, ms(103 + i), 0).is_empty());
    }
    assert_eq!(segs(&ack(&mut s, ms(108), 0)), vec![16]);
    assert_eq!(s.tcb.cwnd, 17);
    // The retransmission is acknowledged together with 1..15: cwnd = ssthresh.
    ack(&mut s, ms(200), 16);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (8, CaState::Open));
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn limited_transmit_sends_a_new_segment_on_each_of_the_first_two_duplicates() {
    let mut s = configured(Recovery::Reno, 4, |c| c.limited_transmit = true);
    start(&mut s); // segments 0..3 in flight, cwnd 4; segment 0 is lost
                   // RFC 3042 §2: the first two duplicates (for 1 and 2) each release one new
                   // segment, 4 then 5 (FlightSize 5 then 6 ≤ cwnd + 2 = 6); cwnd stays 4.
    assert_eq!(segs(&ack(&mut s, ms(100), 0)), vec![4]);
    assert_eq!(segs(&ack(&mut s, ms(101), 0)), vec![5]);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (4, CaState::Disorder));
    // Third duplicate (for 3): fast retransmit of 0. FlightSize without the two
    // limited-transmit segments (RFC 5681 §3.2 step 2) is 6 − 2 = 4: ssthresh =
    // 4/2 = 2, cwnd = 2 + 3 = 5 < flight 6: nothing new.
    assert_eq!(segs(&ack(&mut s, ms(102), 0)), vec![0]);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (2, 5));
    // Off (the default), the first two duplicates send nothing; the third
    // retransmits 0 with ssthresh = 4/2 = 2, cwnd = 2 + 3 = 5 > flight 4: new
    // segment 4 follows.
    let mut plain = sender(Recovery::Reno, 4);
    start(&mut plain);
    assert!(ack(&mut plain, ms(100), 0).is_empty());
    assert!(ack(&mut plain, ms(101), 0).is_empty());
    assert_eq!(segs(&ack(&mut plain, ms(102), 0)), vec![0, 4]);
    assert_eq!((plain.tcb.ssthresh, plain.tcb.cwnd), (2, 5));
}

/// A controller whose loss response is a fixed ssthresh, possibly above the window (as
/// Westwood's BWE·RTTmin can be); Reno's growth otherwise.
struct FixedSsthresh(u32);

impl CongestionControl for FixedSsthresh {
    fn name(&self) -> &'static str {
        "fixed"
    }

    fn ssthresh(&mut self, _tcb: &Tcb, _now: SimTime) -> u32 {
        self.0
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        Reno.cong_avoid(tcb, now, acked);
    }
}

#[test]
fn recovery_does_not_send_more_than_before_the_loss() {
    // cwnd 16, the controller's ssthresh 24. Third duplicate: cwnd = min(24, 16) + 3
    // = 19, not 24 + 3 = 27. Flight 16 (0..15), of which 3 have left the network:
    // the retransmission of 0 and 3 new segments (16, 17, 18) keep 16 in the
    // network, the window before the loss. Recovery ends with cwnd = ssthresh = 24.
    let mut s = sender_cc(Recovery::Reno, 16, Box::new(FixedSsthresh(24)), |_| {});
    start(&mut s);
    ack(&mut s, ms(100), 0);
    ack(&mut s, ms(101), 0);
    assert_eq!(segs(&ack(&mut s, ms(102), 0)), vec![0, 16, 17, 18]);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (24, 19));
    ack(&mut s, ms(200), 19);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (24, CaState::Open));
}

#[test]
fn tahoe_fast_retransmit_falls_to_one_segment() {
    let mut s = sender(Recovery::Tahoe, 16);
    start(&mut s);
    for i in 0..2 {
        ack(&mut s, ms(100 + i), 0);
    }
    assert_eq!(segs(&ack(&mut s, ms(102), 0)), vec![0]);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (8, 1));
    assert_eq!(s.tcb.ca_state, CaState::Loss);
}

#[test]
fn rto_sets_cwnd_to_one_and_ssthresh_to_half_the_flight() {
    let mut s = sender(Recovery::NewReno, 10);
    start(&mut s); // 10 segments in flight, RTO 1 s (RFC 6298 initial)
    assert_eq!(s.rto_deadline(), SimTime::from_secs(1));
    let mut out = Vec::new();
    s.on_timer(SimTime::from_secs(1), &mut out);
    // RFC 5681 eq. 4: ssthresh = max(10/2, 2) = 5; loss window 1; go-back-N from 0.
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5, 1));
    assert_eq!(segs(&out), vec![0]);
    assert!(out[0].retransmission);
    // RFC 6298 (5.5): the timer backs off to 2 s.
    assert_eq!(s.rto_deadline(), SimTime::from_secs(3));
    // A second expiry backs off again but does not reduce ssthresh again.
    out.clear();
    s.on_timer(SimTime::from_secs(3), &mut out);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5, 1));
    assert_eq!(s.rto_deadline(), SimTime::from_secs(7));
    assert_eq!(s.stats.timeouts, 2);
}

#[test]
fn karn_no_rtt_sample_from_a_retransmitted_segment() {
    let mut s = sender(Recovery::NewReno, 1);
    start(&mut s);
    let mut out = Vec::new();
    s.on_timer(SimTime::from_secs(1), &mut out);
    // The ACK of the retransmitted segment is ambiguous: no sample, RTO stays 2 s.
    ack(&mut s, SimTime::from_millis(1100), 1);
    assert_eq!(s.stats.rtt_samples, 0);
    assert_eq!(s.rto(), SimTime::from_secs(2));
    // Segment 1 was sent fresh at 1.1 s; its ACK at 1.2 s gives R = 100 ms.
    ack(&mut s, SimTime::from_millis(1200), 2);
    assert_eq!(s.stats.rtt_samples, 1);
    assert_eq!(s.tcb.srtt, Some(ms(100)));
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole_and_stays_in_recovery() {
    let mut s = sender(Recovery::NewReno, 10);
    start(&mut s); // 0..9; segments 0 and 5 lost
    for i in 0..3 {
        ack(&mut s, ms(100 + i), 0); // duplicates from 1, 2, 3
    }
    // ssthresh = 5, cwnd = 8, recover = 10 segments.
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5, 8));
    ack(&mut s, ms(103), 0); // from 4: cwnd 9
    for i in 0..4 {
        ack(&mut s, ms(104 + i), 0); // from 6..9: cwnd 13, new data 10, 11, 12
    }
    assert_eq!(s.tcb.cwnd, 13);
    // Retransmitted 0 arrives: partial ACK up to 5 (5 segments). RFC 6582 step 5:
    // retransmit 5; cwnd = 13 - 5 + 1 = 9; flight = 13 - 5 = 8 → one new (13).
    let out = ack(&mut s, ms(200), 5);
    assert_eq!(segs(&out), vec![5, 13]);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (9, CaState::Recovery));
    // Full ACK (covers recover = 10): cwnd = ssthresh = 5 (step 3, option 2).
    ack(&mut s, ms(300), 13);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (5, CaState::Open));
    assert_eq!(s.stats.fast_retransmits, 1);
}

#[test]
fn reno_waits_for_the_timer_on_a_second_hole_in_the_same_window() {
    let mut s = sender(Recovery::Reno, 10);
    start(&mut s); // segments 0 and 5 lost
    for i in 0..3 {
        ack(&mut s, ms(100 + i), 0);
    }
    // The partial ACK ends Reno's recovery with cwnd = ssthresh = 5.
    ack(&mut s, ms(200), 5);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (5, CaState::Open));
    // Duplicates for 5 (from 6..9) are for data sent before recovery began
    // (snd_una = 5 ≤ recover = 10): no second fast retransmit.
    for i in 0..4 {
        assert!(ack(&mut s, ms(201 + i), 5).is_empty());
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    // The timer (restarted by the ACK at 200 ms, RTO 1 s) recovers segment 5.
    let mut out = Vec::new();
    s.on_timer(ms(1200), &mut out);
    assert_eq!(segs(&out), vec![5]);
    assert_eq!(s.stats.timeouts, 1);
}

#[test]
fn vegas_resends_on_the_first_duplicate_and_checks_the_next_ack() {
    // Brakmo & Peterson's fine-grained retransmission (ns-2's Vegas), Reno recovery.
    // Ten segments at 0; the ACK of segment 0 at 100 ms is the first RTT sample:
    // fine-grained timeout (100·2 + 75)/2 · 17/16 = 146.09375 ms (vegas_timer.rs).
    // Segments 1 and 6 are lost.
    let vegas = Vegas::new(VegasConfig {
        fine_grained_retransmission: true,
        ..VegasConfig::default()
    });
    let mut s = sender_cc(Recovery::Reno, 10, Box::new(vegas), |_| {});
    start(&mut s);
    ack(&mut s, ms(100), 1);
    // The first duplicate, at 150 ms: segment 1, sent at 0, is 150 ≥ 146.09 ms old:
    // resent now (Reno would wait for the third). ssthresh = FlightSize/2 = 12 − 1 =
    // 11 segments → 5; cwnd = 5 + 1 duplicate = 6 < 11 outstanding: nothing new.
    assert_eq!(segs(&ack(&mut s, ms(150), 1)), vec![1]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5, 6));
    // The retransmission's ACK, at 250 ms, covers 1–5 and ends Reno's recovery
    // (cwnd = 5). It is the first ACK after the retransmission: segment 6, sent at
    // 0, has outlived the timeout (146.09 · 9/8 = 164.36 ms): resent at once,
    // where Reno waits for the coarse timer (the test above).
    let out = segs(&ack(&mut s, ms(250), 6));
    assert_eq!(out.first(), Some(&6), "{out:?}");
    assert_eq!((s.tcb.cwnd, s.stats.fast_retransmits), (5, 1));
}

/// An ACK for `seg` segments carrying SACK blocks given in segments [start, end).
fn sack_ack(s: &mut TcpSender, t: SimTime, seg: u64, blocks: &[(u64, u64)]) -> Vec<TcpData> {
    let mut sack = SackBlocks::default();
    for &(a, b) in blocks {
        sack.push(a * MSS, b * MSS);
    }
    let mut out = Vec::new();
    let a = TcpAck {
        ack: seg * MSS,
        window: u64::MAX,
        ts_ecr: None,
        sack,
        ecn: Ecn::NotEct,
        ece: false,
    };
    s.on_ack(t, &a, &mut out);
    out
}

#[test]
fn sack_recovery_repairs_every_hole_of_a_window_in_one_round_trip() {
    // Segments 0..9 sent; 0, 3 and 6 lost. The receiver's duplicate ACKs carry SACK
    // blocks (most recent first). Worked by hand with RFC 6675:
    let mut s = sender(Recovery::Sack, 10);
    start(&mut s);
    let mut sent = Vec::new();
    // From 1 and 2: two duplicates, no loss declared yet.
    sent.extend(segs(&sack_ack(&mut s, ms(100), 0, &[(1, 2)])));
    sent.extend(segs(&sack_ack(&mut s, ms(101), 0, &[(1, 3)])));
    assert!(sent.is_empty());
    // From 4: third duplicate; 1, 2, 4 SACKed → 0 IsLost. ssthresh = cwnd = 10/2 = 5;
    // 0 is retransmitted at once (pipe: 0 rexmit 1, 3, 5..9 = 7 > 5: nothing more).
    assert_eq!(
        segs(&sack_ack(&mut s, ms(102), 0, &[(4, 5), (1, 3)])),
        vec![0]
    );
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5, 5));
    // From 5: pipe = 1 + 1 (3) + 4 (6..9) = 6: nothing.
    assert!(sack_ack(&mut s, ms(103), 0, &[(4, 6), (1, 3)]).is_empty());
    // From 7: 3 has 4, 5, 7 above → lost; pipe = 1 + 0 + 1 (6) + 2 (8, 9) = 4 → send 3.
    assert_eq!(
        segs(&sack_ack(&mut s, ms(104), 0, &[(7, 8), (4, 6), (1, 3)])),
        vec![3]
    );
    // From 8: pipe = 1 + 1 + 1 (6) + 1 (9) = 4 → new segment 10.
    assert_eq!(
        segs(&sack_ack(&mut s, ms(105), 0, &[(7, 9), (4, 6), (1, 3)])),
        vec![10]
    );
    // From 9: 6 now lost; pipe = 1 + 1 + 0 + 1 (10) = 3 → retransmit 6, then new 11.
    assert_eq!(
        segs(&sack_ack(&mut s, ms(106), 0, &[(7, 10), (4, 6), (1, 3)])),
        vec![6, 11]
    );
    assert_eq!(s.stats.segments_retransmitted, 3);
    assert_eq!(s.stats.fast_retransmits, 1);
    // The retransmissions arrive: the cumulative ACK reaches RecoveryPoint (10).
    sack_ack(&mut s, ms(200), 12, &[]);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (5, CaState::Open));
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn dsack_of_every_retransmission_undoes_the_reduction() {
    // A reordered (not lost) segment 0 triggers a fast retransmit; then the original
    // and the copy both arrive, and the receiver reports the copy with a D-SACK
    // block below the cumulative ACK (RFC 2883 §4.2). RFC 3708: every
    // retransmission of the episode was unnecessary → cwnd and ssthresh restored.
    let mut s = sender_with(Recovery::Sack, 10, true);
    start(&mut s);
    sack_ack(&mut s, ms(100), 0, &[(1, 2)]);
    sack_ack(&mut s, ms(101), 0, &[(1, 3)]);
    sack_ack(&mut s, ms(102), 0, &[(1, 4)]);
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (5, 5));
    assert_eq!(s.tcb.prior_cwnd, 10);
    sack_ack(&mut s, ms(110), 10, &[]); // the delayed original completes the window
    sack_ack(&mut s, ms(150), 10, &[(0, 1)]); // D-SACK for the copy
    assert_eq!(s.stats.spurious_undone, 1);
    // Reno's undo_cwnd: max(cwnd, prior_cwnd) = 10; ssthresh back to its prior
    // (infinite) value.
    assert_eq!(s.tcb.cwnd, 10);
    assert!(s.tcb.ssthresh > 1000);
}

#[test]
fn a_real_loss_is_not_undone() {
    // Same episode, but the retransmission was needed: no D-SACK ever comes.
    let mut s = sender_with(Recovery::Sack, 10, true);
    start(&mut s);
    sack_ack(&mut s, ms(100), 0, &[(1, 2)]);
    sack_ack(&mut s, ms(101), 0, &[(1, 3)]);
    sack_ack(&mut s, ms(102), 0, &[(1, 4)]);
    sack_ack(&mut s, ms(200), 10, &[]);
    assert_eq!(s.stats.spurious_undone, 0);
    assert_eq!(s.tcb.cwnd, 5);
}

fn eifel_sender() -> TcpSender {
    TcpSender::new(
        SenderConfig {
            eifel: true,
            ..timestamps_config(10)
        },
        Box::new(Reno),
    )
}

/// NewReno without SACK, with RFC 7323 timestamps.
fn timestamps_config(initial_window: u32) -> SenderConfig {
    SenderConfig {
        mss: MSS as u32,
        header: 40,
        initial_window,
        dupthresh: 3,
        limited_transmit: false,
        prr: false,
        ecn: EcnConfig::default(),
        abc_limit: 1,
        recovery: Recovery::NewReno,
        repeated_timeout: RepeatedTimeout::Keep,
        timestamps: true,
        cc_sample: CcSample::Newest,
        sack: false,
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
    }
}

fn ts_ack(s: &mut TcpSender, t: SimTime, seg: u64, echo: SimTime) -> Vec<TcpData> {
    let mut out = Vec::new();
    let a = TcpAck {
        ack: seg * MSS,
        window: u64::MAX,
        ts_ecr: Some(echo),
        sack: SackBlocks::default(),
        ecn: Ecn::NotEct,
        ece: false,
    };
    s.on_ack(t, &a, &mut out);
    out
}

/// Reno that records the RTT sample the sender hands the controller on each ACK.
struct RttRecorder(Arc<Mutex<Vec<Option<SimTime>>>>);

impl CongestionControl for RttRecorder {
    fn name(&self) -> &'static str {
        "rtt-recorder"
    }

    fn ssthresh(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        Reno.ssthresh(tcb, now)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        Reno.cong_avoid(tcb, now, acked);
    }

    fn pkts_acked(&mut self, _tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        self.0.lock().expect("not poisoned").push(sample.rtt);
    }
}

#[test]
fn controller_rtt_with_timestamps_is_the_newest_segments_age_not_the_echo() {
    // Linux `tcp_ack_update_rtt` prefers ACK timing to TS-ECR; the controller gets
    // the age of the newest segment acknowledged (`ca_rtt_us`, `rs->rtt_us`), as
    // without timestamps. IW 2: segments 0, 1 at 0 ms. The ACK of 0 at 100 ms
    // (echo 0) gives 100 ms for both estimators; cwnd 3, so 2 and 3 leave at 100 ms.
    // A delayed ACK of 1..3 at 240 ms echoes TS.Recent = 0 ms (segment 1's TSval,
    // RFC 7323 §4.3): the RTO takes 240 − 0 = 240 ms (as Linux's `seq_rtt_us`, the
    // oldest, sent at 0), the controller 240 − 100 = 140 ms (segment 3).
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut s = TcpSender::new(timestamps_config(2), Box::new(RttRecorder(seen.clone())));
    assert_eq!(segs(&start(&mut s)), vec![0, 1]);
    assert_eq!(segs(&ts_ack(&mut s, ms(100), 1, ms(0))), vec![2, 3]);
    ts_ack(&mut s, ms(240), 4, ms(0));
    assert_eq!(
        *seen.lock().expect("not poisoned"),
        vec![Some(ms(100)), Some(ms(140))]
    );
    assert_eq!(s.tcb.min_rtt, ms(100));
    // RFC 6298 (2.3) on R = 240 ms after SRTT 100 ms: SRTT = 7/8·100 + 1/8·240 = 117.5 ms.
    assert_eq!(s.tcb.srtt, Some(SimTime::from_micros(117_500)));
}

/// The samples a controller is handed under `rule`, from a sender made by `make`
/// (given the recorder) and driven by `script`.
fn cc_samples(
    rule: CcSample,
    make: impl FnOnce(Box<dyn CongestionControl>, CcSample) -> TcpSender,
    script: impl FnOnce(&mut TcpSender),
) -> Vec<Option<SimTime>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut s = make(Box::new(RttRecorder(seen.clone())), rule);
    script(&mut s);
    let samples = seen.lock().expect("not poisoned").clone();
    samples
}

#[test]
fn a_delayed_ack_of_three_gives_the_newest_or_the_oldest_segments_age() {
    // IW 2: segments 0, 1 at 0 ms. The ACK of 0 at 100 ms gives 100 ms under both
    // rules; cwnd 3, so 2 and 3 leave at 100 ms. One ACK at 240 ms covers 1 (sent at
    // 0 ms), 2 and 3 (100 ms): newest 240 − 100 = 140 ms (Linux `last_ackt`),
    // oldest 240 − 0 = 240 ms (Linux 2.6.20: the first skb of the walk stamps `tv`).
    let script = |s: &mut TcpSender| {
        assert_eq!(segs(&start(s)), vec![0, 1]);
        assert_eq!(segs(&ack(s, ms(100), 1)), vec![2, 3]);
        ack(s, ms(240), 4);
    };
    let make = |cc, rule| sender_cc(Recovery::NewReno, 2, cc, |c| c.cc_sample = rule);
    let newest = cc_samples(CcSample::Newest, make, script);
    assert_eq!(newest, vec![Some(ms(100)), Some(ms(140))]);
    let oldest = cc_samples(CcSample::Oldest, make, script);
    assert_eq!(oldest, vec![Some(ms(100)), Some(ms(240))]);
}

#[test]
fn with_a_retransmitted_segment_among_three_oldest_gives_nothing_even_with_timestamps() {
    // IW 3 with timestamps: 0, 1, 2 at 0 ms (TSval 0). The RTO (1 s) resends 0 at
    // 1000 ms (TSval 1000); the ACK of all three at 1100 ms echoes 1000 ms. Karn:
    // no ACK timing. Newest takes the echo, 1100 − 1000 = 100 ms (Linux
    // `tcp_ack_update_rtt`); 2.6.20 does not call `rtt_sample` at all
    // (`FLAG_RETRANS_DATA_ACKED`) and never reads the echo.
    let script = |s: &mut TcpSender| {
        assert_eq!(segs(&start(s)), vec![0, 1, 2]);
        let mut out = Vec::new();
        s.on_timer(SimTime::from_secs(1), &mut out);
        assert_eq!(segs(&out), vec![0]);
        ts_ack(s, ms(1100), 3, ms(1000));
    };
    let make = |cc, cc_sample| {
        let cfg = SenderConfig {
            cc_sample,
            ..timestamps_config(3)
        };
        TcpSender::new(cfg, cc)
    };
    assert_eq!(
        cc_samples(CcSample::Newest, make, script),
        vec![Some(ms(100))]
    );
    assert_eq!(cc_samples(CcSample::Oldest, make, script), vec![None]);
}

#[test]
fn a_segment_sacked_earlier_does_not_change_either_rule() {
    // SACK, IW 1: 0 at 0 ms; its ACK at 100 ms (100 ms) opens cwnd to 2: 1, 2 at
    // 100 ms; the ACK of 1 at 200 ms (100 ms) opens it to 3: 3, 4 at 200 ms. A
    // duplicate ACK at 250 ms SACKs 3: no sample (it acknowledges nothing new;
    // 2.6.20: no `FLAG_ACKED`). The ACK at 300 ms covers 2 (sent at 100 ms), 3
    // (200 ms, SACKed) and 4 (200 ms): newest 300 − 200 = 100 ms, oldest
    // 300 − 100 = 200 ms (the SACKed skb is walked like any other in 2.6.20; it is
    // not the first).
    let script = |s: &mut TcpSender| {
        assert_eq!(segs(&start(s)), vec![0]);
        assert_eq!(segs(&ack(s, ms(100), 1)), vec![1, 2]);
        assert_eq!(segs(&ack(s, ms(200), 2)), vec![3, 4]);
        assert!(sack_ack(s, ms(250), 2, &[(3, 4)]).is_empty());
        ack(s, ms(300), 5);
    };
    let make = |cc, rule| sender_cc(Recovery::Sack, 1, cc, |c| c.cc_sample = rule);
    let hundred = Some(ms(100));
    let newest = cc_samples(CcSample::Newest, make, script);
    assert_eq!(newest, vec![hundred, hundred, hundred]);
    let oldest = cc_samples(CcSample::Oldest, make, script);
    assert_eq!(oldest, vec![hundred, hundred, Some(ms(200))]);
}

#[test]
fn eifel_undoes_a_timeout_whose_original_was_acknowledged() {
    // 10 segments sent at t = 0 (TSval 0); the ACKs are late, the RTO (1 s) fires
    // and retransmits segment 0 with TSval 1 s. The late ACK of all ten echoes
    // TSval 0 < 1 s: the original was acknowledged (RFC 3522), so cwnd and ssthresh
    // come back (cwnd 10, ssthresh infinite) and go-back-N stops: the next segments
    // are new data (10, 11, …), not 1..9 again.
    let mut s = eifel_sender();
    start(&mut s);
    let mut out = Vec::new();
    s.on_timer(SimTime::from_secs(1), &mut out);
    assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (1, 5));
    let out = ts_ack(&mut s, ms(1050), 10, SimTime::ZERO);
    assert_eq!(s.stats.spurious_undone, 1);
    assert_eq!(s.tcb.ca_state, CaState::Open);
    assert!(s.tcb.ssthresh > 1000);
    assert!(s.tcb.cwnd >= 10);
    assert!(segs(&out).iter().all(|&n| n >= 10), "{:?}", segs(&out));
}

#[test]
fn eifel_keeps_a_reduction_when_the_retransmission_was_needed() {
    // The ACK echoes the retransmission's TSval (1 s): it was the copy that arrived.
    let mut s = eifel_sender();
    start(&mut s);
    let mut out = Vec::new();
    s.on_timer(SimTime::from_secs(1), &mut out);
    ts_ack(&mut s, ms(1050), 1, SimTime::from_secs(1));
    assert_eq!(s.stats.spurious_undone, 0);
    assert_eq!(s.tcb.ssthresh, 5);
}

fn frto_sender() -> TcpSender {
    configured(Recovery::NewReno, 10, |c| c.frto = true)
}

#[test]
fn frto_declares_a_timeout_spurious_when_two_acks_bring_new_data() {
    // RFC 5682: after the RTO only segment 0 goes again. The first ACK (late, for
    // 0..4) acknowledges new data: two new segments (10, 11) go out. The second (for
    // 5..9) acknowledges new data too: the timeout was spurious, cwnd and ssthresh
    // come back (cwnd 10, ssthresh infinite).
    let mut s = frto_sender();
    start(&mut s);
    let mut out = Vec::new();
    s.on_timer(SimTime::from_secs(1), &mut out);
    assert_eq!(segs(&out), vec![0]);
    assert_eq!(segs(&ack(&mut s, ms(1010), 5)), vec![10, 11]);
    ack(&mut s, ms(1011), 10);
    assert_eq!(s.stats.spurious_undone, 1);
    assert!(s.tcb.cwnd >= 10 && s.tcb.ssthresh > 1000);
    assert_eq!(s.tcb.ca_state, CaState::Open);
}

#[test]
fn frto_falls_back_to_go_back_n_on_a_duplicate() {
    // Same start, but the second ACK is a duplicate (segment 5 really lost): cwnd
    // = min(2, 3) (slow start gave 2 on the first ACK) and go-back-N retransmits
    // from 5: segments 5 and 6.
    let mut s = frto_sender();
    start(&mut s);
    let mut out = Vec::new();
    s.on_timer(SimTime::from_secs(1), &mut out);
    ack(&mut s, ms(1010), 5);
    assert_eq!(segs(&ack(&mut s, ms(1011), 5)), vec![5, 6]);
    assert_eq!(s.stats.spurious_undone, 0);
    assert_eq!(s.tcb.cwnd, 2);
    assert_eq!(s.tcb.ssthresh, 5);
}

/// A SACK sender with RR-TCP's adaptation on: base dupthresh 3, pef 0.9, step 0.1.
fn rr_tcp_sender() -> TcpSender {
    configured(Recovery::Sack, 10, |c| {
        c.dsack_undo = true;
        c.adapt_dupthresh = Some((0.9, 0.1));
    })
}

/// Segment `late` (of ten outstanding from `late`) arrives after the next four: four
/// duplicate ACKs with growing SACK blocks, then the cumulative ACK of all ten.
/// Returns what the sender sent in between.
fn reorder_by_four(s: &mut TcpSender, t0: u64, late: u64) -> Vec<u64> {
    let mut sent = Vec::new();
    for k in 1..=4 {
        sent.extend(segs(&sack_ack(
            s,
            ms(t0 + k),
            late,
            &[(late + 1, late + 1 + k)],
        )));
    }
    sack_ack(s, ms(t0 + 10), late + 10, &[]);
    sent
}

#[test]
fn rr_tcp_learns_a_reordering_of_four_and_stops_retransmitting_it() {
    let mut s = rr_tcp_sender();
    start(&mut s);
    // Episode 1: segment 0 is four places late. The third duplicate ACK fast
    // retransmits it (dupthresh 3); the fourth comes; the original completes the
    // window (ACK 10) while 0's copy is in flight: a pending sample of 4 duplicates.
    assert_eq!(reorder_by_four(&mut s, 100, 0), vec![0]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.dupthresh(), 3);
    // The copy arrives as a duplicate: D-SACK [0, 1). The sample enters the
    // histogram ({4: 1}); pef 0.9 → c = 4, dupthresh c + 1 = 5; the episode was
    // spurious and began with a fast retransmit: pef rises by step / (1 + r).
    let pef_before = s.reordering().unwrap().adapter.pef();
    sack_ack(&mut s, ms(150), 10, &[(0, 1)]);
    assert_eq!(s.stats.spurious_dsack, 1);
    assert_eq!(s.dupthresh(), 5);
    let pef = s.reordering().unwrap().adapter.pef();
    assert!(pef > pef_before && pef < pef_before + 0.1, "pef {pef}");
    // Episode 2: segment 10 is four places late again. Four duplicates are below
    // dupthresh 5: no retransmission, and the late segment is a second sample of 4.
    let sent = reorder_by_four(&mut s, 200, 10);
    assert!(
        !sent.contains(&10),
        "retransmitted the late segment: {sent:?}"
    );
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.dupthresh(), 5);
}

#[test]
fn without_adaptation_the_same_reordering_is_retransmitted_every_time() {
    let mut s = sender_with(Recovery::Sack, 10, true);
    start(&mut s);
    reorder_by_four(&mut s, 100, 0);
    sack_ack(&mut s, ms(150), 10, &[(0, 1)]);
    assert!(reorder_by_four(&mut s, 200, 10).contains(&10));
    assert_eq!(s.stats.fast_retransmits, 2);
}

#[test]
fn a_timeout_a_base_dupthresh_would_have_avoided_lowers_the_percentile() {
    // dupthresh raised to 5 by one sample of 4; then segment 0 is really lost with
    // only four segments behind it: four duplicates (one short of 5), the RTO fires.
    // A base dupthresh of 3 would have fast retransmitted it: pef falls by
    // step · r / (1 + r), with r = C_to / C_fr = (RTO + SRTT·log2 W) / SRTT. No RTT
    // sample yet: SRTT is taken as the RTO (1 s), and W = cwnd = 10 when the timer
    // fires: r = 1 + log2 10 = 4.3219, pef = 0.9 − 0.1 · 4.3219 / 5.3219 = 0.81879.
    let mut s = rr_tcp_sender();
    s.reordering().unwrap().adapter.record(4);
    start(&mut s);
    for k in 1..=4 {
        assert!(sack_ack(&mut s, ms(100 + k), 0, &[(1, 1 + k)]).is_empty());
    }
    let mut out = Vec::new();
    s.on_timer(SimTime::from_secs(1), &mut out);
    assert_eq!(segs(&out), vec![0]);
    assert_eq!(s.stats.avoidable_timeouts, 1);
    let pef = s.reordering().unwrap().adapter.pef();
    assert!((pef - 0.81879).abs() < 1e-5, "pef {pef}");
}

#[test]
fn ns2_rule_sets_ssthresh_to_two_on_a_repeated_timeout() {
    let mut s = configured(Recovery::Reno, 10, |c| {
        c.repeated_timeout = RepeatedTimeout::Halve;
    });
    start(&mut s); // 10 segments in flight, RTO 1 s
    let mut out = Vec::new();
    s.on_timer(SimTime::from_secs(1), &mut out);
    // First expiry as RFC 5681: ssthresh = max(10/2, 2) = 5, cwnd = 1.
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (5, 1));
    // Second expiry (timer backed off to 2 s): ns-2's slowdown recomputes
    // ssthresh = max(⌊min(cwnd 1, rwnd)/2⌋, 2) = max(0, 2) = 2.
    s.on_timer(SimTime::from_secs(3), &mut out);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (2, 1));
    // And it stays at the floor of 2 on a third (timer 4 s).
    s.on_timer(SimTime::from_secs(7), &mut out);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (2, 1));
}

#[test]
fn prr_replaces_window_inflation_with_one_segment_per_two_delivered() {
    // RFC 6937 with NewReno, no SACK (`prr.rs`): 16 segments in flight, segment 0
    // lost, ssthresh = 16/2 = 8, RecoverFS = cwnd before = 16. Each duplicate ACK
    // delivers one segment (Linux's `sacked_out` emulation takes it out of pipe).
    let mut s = configured(Recovery::NewReno, 16, |c| c.prr = true);
    start(&mut s);
    assert!(ack(&mut s, ms(100), 0).is_empty());
    assert!(ack(&mut s, ms(101), 0).is_empty());
    // Third duplicate, d = prr_delivered = 1: pipe = 16 − 1 lost − 3 delivered = 12
    // > 8, sndcnt = ⌈1·8/16⌉ − 0 = 1: cwnd = 13 and the retransmission goes.
    assert_eq!(segs(&ack(&mut s, ms(102), 0)), vec![0]);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (8, 13));
    // d = 2: pipe 13 − 1 = 12, ⌈2·8/16⌉ − 1 = 0.  d = 3: pipe 11, ⌈1.5⌉ − 1 = 1.
    // d = 5: ⌈2.5⌉ − 2 = 1; d = 7: ⌈3.5⌉ − 3 = 1: one new segment per two
    // duplicates while pipe > 8:
    // d:     2   3    4   5    6   7    8   (pipe before: 12 11 11 10 10 9 9)
    // sent:  -   16   -   17   -   18   -
    // d = 9: pipe 8, not above ssthresh: min(8 − 8, max(9 − 4, 1)) = 0.
    // d = 10..13: pipe 7: min(1, max(d − 4, 1)) = 1: one segment per ACK, 19..22.
    let mut sent = Vec::new();
    for d in 2..=13 {
        sent.push(segs(&ack(&mut s, ms(101 + d), 0)));
    }
    let expected: Vec<Vec<u64>> = vec![
        vec![],
        vec![16],
        vec![],
        vec![17],
        vec![],
        vec![18],
        vec![],
        vec![],
        vec![19],
        vec![20],
        vec![21],
        vec![22],
    ];
    assert_eq!(sent, expected);
    assert_eq!(s.tcb.cwnd, 8);
    // The ACK of everything sent before recovery ends it: cwnd = ssthresh, and
    // the flight (16..22, 7 segments) leaves room for one more.
    assert_eq!(segs(&ack(&mut s, ms(200), 16)), vec![23]);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (8, CaState::Open));
}

/// SACK recovery taking RTT samples by `sample`, timestamps on or off.
fn rto_sample_sender(sample: RttSample, timestamps: bool) -> TcpSender {
    configured(Recovery::Sack, 10, |c| {
        c.rto = RtoConfig {
            sample,
            ..RtoConfig::default()
        };
        c.timestamps = timestamps;
    })
}

/// An ACK for `seg` segments with SACK blocks (in segments) and a TS echo.
fn sack_ts_ack(s: &mut TcpSender, t: SimTime, seg: u64, blocks: &[(u64, u64)], echo: SimTime) {
    let mut sack = SackBlocks::default();
    for &(a, b) in blocks {
        sack.push(a * MSS, b * MSS);
    }
    let a = TcpAck {
        ack: seg * MSS,
        window: u64::MAX,
        ts_ecr: Some(echo),
        sack,
        ecn: Ecn::NotEct,
        ece: false,
    };
    s.on_ack(t, &a, &mut Vec::new());
}

/// (time ms, cumulative ACK, SACK blocks, echoed TSval ms), in segments.
type ScriptAck = (u64, u64, &'static [(u64, u64)], u64);

/// The SRTTs (ns) after each ACK of a script: segments 0..9 sent at 0 ms, 0 lost.
/// Duplicate ACKs SACK 1 (100 ms), 2 (110 ms), 4 (120 ms: the third, 0 is resent
/// at 120 ms); at 220 ms the ACK of 0..3 (0's retransmission, 1 and 2 SACKed
/// before) newly SACKs 5. The receiver echoes 0's TSval until the retransmission
/// arrives, then the retransmission's (120 ms).
fn srtts(sample: RttSample, timestamps: bool) -> (Vec<Option<u64>>, u64) {
    let mut s = rto_sample_sender(sample, timestamps);
    start(&mut s);
    let script: [ScriptAck; 4] = [
        (100, 0, &[(1, 2)], 0),
        (110, 0, &[(1, 3)], 0),
        (120, 0, &[(4, 5), (1, 3)], 0),
        (220, 3, &[(4, 6)], 120),
    ];
    let mut out = Vec::new();
    for (t, seg, blocks, echo) in script {
        sack_ts_ack(&mut s, ms(t), seg, blocks, ms(echo));
        out.push(s.tcb.srtt.map(|v| v.as_nanos()));
    }
    (out, s.stats.rtt_samples)
}

#[test]
fn linux_rtt_sample_takes_the_sack_rtt_where_rfc_6298_has_none() {
    // Linux `tcp_ack_update_rtt`: seq_rtt_us, else sack_rtt_us, else the echo.
    // Duplicate ACKs: no seq RTT, a SACK RTT each: 100 − 0 = 100 ms (SRTT = R),
    // 110 ms (SRTT = (7 · 100 + 110) / 8 = 101.25 ms), 120 ms (SRTT = (7 · 101.25 +
    // 120) / 8 = 103.59375 ms). At 220 ms the ACK covers the retransmitted 0: no
    // seq RTT (FLAG_RETRANS_DATA_ACKED); 5 newly SACKed, sent at 0: 220 ms, SRTT =
    // (7 · 103.59375 + 220) / 8 = 118.14453125 ms, truncated to the nanosecond.
    let linux = vec![
        Some(100_000_000),
        Some(101_250_000),
        Some(103_593_750),
        Some(118_144_531),
    ];
    assert_eq!(srtts(RttSample::Linux, false), (linux.clone(), 4));
    // With timestamps the SACK RTT still wins over the echo (which would give
    // 220 − 120 = 100 ms at the last ACK).
    assert_eq!(srtts(RttSample::Linux, true), (linux, 4));
    // RFC 6298 without timestamps: duplicates give nothing, the last ACK covers a
    // retransmission (Karn's rule): no sample at all.
    assert_eq!(srtts(RttSample::Rfc7323, false), (vec![None; 4], 0));
    // RFC 7323 §4: only an ACK that advances the window is timed, by its echo:
    // 220 − 120 = 100 ms.
    let rfc_ts = vec![None, None, None, Some(100_000_000)];
    assert_eq!(srtts(RttSample::Rfc7323, true), (rfc_ts, 1));
}

//! Packet-script tests of ECN in the sender (RFC 3168 §6.1; Linux `tcp_enter_cwr`,
//! `tcp_ecn_send`) and between sender and receiver: segments out with their ECN
//! field and CWR flag, ACKs in with or without ECE, the windows worked out by hand.
//! Sequence numbers are in segments of 1000 bytes; the sender is Reno with NewReno
//! recovery and no delayed ACKs unless said.

use super::cc::{Dctcp, DctcpConfig};
use super::ecn::{EcnConfig, EcnSetting, SynFlags};
use super::receiver::{ReceiverConfig, TcpReceiver};
use super::recovery::Recovery;
use super::sack_tests::{sender, sender_cc, MSS};
use super::sender::TcpSender;
use super::tcb::{CaState, INFINITE_SSTHRESH};
use crate::packet::{Ecn, SackBlocks, TcpAck, TcpData};
use crate::time::SimTime;

const ON: EcnConfig = EcnConfig {
    setting: EcnSetting::On,
    needs_ecn: false,
};

/// A NewReno sender with initial window `iw` that agreed to ECN in its handshake;
/// `prr` for PRR.
fn ecn_sender(iw: u32, prr: bool) -> TcpSender {
    let mut s = sender(Recovery::NewReno, iw, |c| {
        c.ecn = ON;
        c.prr = prr;
    });
    agree(&mut s);
    s
}

/// The SYN's flags and an accepting receiver's answer.
fn agree(s: &mut TcpSender) {
    let syn = s.ecn_syn(true);
    assert_eq!(
        syn,
        SynFlags {
            ece: true,
            cwr: true
        }
    );
    s.ecn_syn_ack(SynFlags {
        ece: true,
        cwr: false,
    });
}

/// What the sender emits: (segment, ECN field, CWR).
type Sent = Vec<(u64, Ecn, bool)>;

fn sent(out: &[TcpData]) -> Sent {
    out.iter().map(|d| (d.seq / MSS, d.ecn, d.cwr)).collect()
}

fn start(s: &mut TcpSender) -> Sent {
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    sent(&out)
}

/// A cumulative ACK of `cum` segments at `t_ms`, echoing CE or not.
fn ack(s: &mut TcpSender, t_ms: u64, cum: u64, ece: bool) -> Sent {
    let a = TcpAck {
        ack: cum * MSS,
        window: u64::MAX,
        ts_ecr: None,
        sack: SackBlocks::default(),
        ecn: Ecn::NotEct,
        ece,
    };
    let mut out = Vec::new();
    s.on_ack(SimTime::from_millis(t_ms), &a, &mut out);
    sent(&out)
}

const NEW: Ecn = Ecn::Ect0;

#[test]
fn new_data_is_ect0_and_a_retransmission_not_ect() {
    // RFC 3168 §6.1.5: ECT on data, never on a retransmission. Segments 0..3 go out
    // ECT(0). Segment 0 lost: the third duplicate retransmits it Not-ECT, ssthresh =
    // 4/2 = 2, cwnd = 2 + 3 = 5 > flight 4, so new segment 4 goes too; the fast
    // retransmit is a window reduction (§6.1.2: "for any reason"), so it carries CWR.
    let mut s = ecn_sender(4, false);
    let first = start(&mut s);
    assert_eq!(first, [0, 1, 2, 3].map(|k| (k, NEW, false)));
    ack(&mut s, 100, 0, false);
    ack(&mut s, 101, 0, false);
    let third = ack(&mut s, 102, 0, false);
    assert_eq!(third, [(0, Ecn::NotEct, false), (4, NEW, true)]);
    assert_eq!((s.stats.loss_reductions, s.stats.ecn_reductions), (1, 0));
}

#[test]
fn an_echo_halves_the_window_once_per_window() {
    // RFC 3168 §6.1.2, without PRR: cwnd "halved" at once. Ten segments in flight.
    // The ACK of segment 0 echoes CE: ssthresh = Reno's FlightSize/2 = 9/2 = 4,
    // cwnd = 4, state CWR until data above segment 10 (the highest sent) is
    // acknowledged. Nothing goes while the flight (9, 8, …) is at least 4.
    let mut s = ecn_sender(10, false);
    start(&mut s);
    assert!(ack(&mut s, 100, 1, true).is_empty());
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (4, 4));
    assert_eq!(s.tcb.ca_state, CaState::Cwr);
    // Further echoes of the same window change nothing: once per window. The flight
    // falls to 3 at the ACK of 7: segment 10 goes, with CWR, then one segment per
    // ACK without (cwnd does not grow in CWR).
    for cum in 2..=6 {
        assert!(ack(&mut s, 100 + cum, cum, true).is_empty());
    }
    assert_eq!(ack(&mut s, 107, 7, true), [(10, NEW, true)]);
    assert_eq!(ack(&mut s, 108, 8, true), [(11, NEW, false)]);
    assert_eq!(ack(&mut s, 109, 9, false), [(12, NEW, false)]);
    // The ACK of 10 (= where CWR began) keeps CWR; the ACK of 11 ends it: cwnd =
    // ssthresh = 4, back to Open, and Reno's congestion avoidance counts that ACK.
    assert_eq!(ack(&mut s, 110, 10, false), [(13, NEW, false)]);
    assert_eq!(s.tcb.ca_state, CaState::Cwr);
    assert_eq!(ack(&mut s, 200, 11, false), [(14, NEW, false)]);
    assert_eq!(
        (s.tcb.ca_state, s.tcb.cwnd, s.tcb.cwnd_cnt),
        (CaState::Open, 4, 1)
    );
    assert_eq!(s.stats.ecn_reductions, 1);
    // An echo of the next window reduces again: at the ACK of 12, segments 12..14
    // are in flight, ssthresh = max(3/2, 2) = 2, cwnd 4 → 2.
    ack(&mut s, 201, 12, true);
    assert_eq!(
        (s.stats.ecn_reductions, s.tcb.ssthresh, s.tcb.cwnd),
        (2, 2, 2)
    );
}

#[test]
fn with_prr_the_window_comes_down_over_the_window() {
    // Linux reduces CWR with PRR (tcp_cwnd_reduction). RecoverFS = cwnd 10,
    // ssthresh 4; on the ACK of the k-th segment (prr_delivered = k) while pipe >
    // ssthresh, sndcnt = ⌈k·4/10⌉ − prr_out:
    //   k=1: ⌈0.4⌉ − 0 = 1 (10);  k=2: ⌈0.8⌉ − 1 = 0;  k=3: ⌈1.2⌉ − 1 = 1 (11);
    //   k=4: ⌈1.6⌉ − 2 = 0;  k=5: ⌈2⌉ − 2 = 0;  k=6: ⌈2.4⌉ − 2 = 1 (12);
    //   k=7: ⌈2.8⌉ − 3 = 0;  k=8: ⌈3.2⌉ − 3 = 1 (13);  k=9: pipe 10 + 4 − 9 = 5:
    //   ⌈3.6⌉ − 4 = 0;  k=10: pipe 4, not above ssthresh: min(4 − 4, …) = 0.
    // Four segments for ten delivered: the flight ends at ssthresh.
    let mut s = ecn_sender(10, true);
    start(&mut s);
    let sends: Vec<Vec<u64>> = (1..=10)
        .map(|k| {
            ack(&mut s, 100 + k, k, k == 1)
                .iter()
                .map(|&(seg, _, _)| seg)
                .collect()
        })
        .collect();
    let expected: [&[u64]; 10] = [&[10], &[], &[11], &[], &[], &[12], &[], &[13], &[], &[]];
    assert_eq!(sends, expected);
    assert_eq!((s.tcb.cwnd, s.tcb.ca_state), (4, CaState::Cwr));
}

#[test]
fn a_loss_in_cwr_carries_the_reduction_on() {
    // Linux tcp_enter_recovery from CWR: no new ssthresh. Echo on the ACK of 1
    // (ssthresh 4, cwnd 4); segment 1 then lost: three duplicates of 1 start fast
    // recovery with ssthresh still 4: one reduction for the window, an echo's.
    let mut s = ecn_sender(10, false);
    start(&mut s);
    ack(&mut s, 100, 1, true);
    for t in 0..3 {
        ack(&mut s, 101 + t, 1, false);
    }
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
    assert_eq!(s.tcb.ssthresh, 4);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!((s.stats.ecn_reductions, s.stats.loss_reductions), (1, 0));
}

#[test]
fn an_echo_in_recovery_is_part_of_its_window() {
    // Segment 0 lost: three duplicates start fast recovery (ssthresh 10/2 = 5, cwnd
    // 5 + 3 = 8); echoes on two more duplicates change nothing. The ACK that ends
    // recovery (of everything, 10) echoes too: that window is over (cwnd = ssthresh
    // 5), so CWR starts (Linux tcp_try_to_open after the recovery): nothing in
    // flight, ssthresh = max(0/2, 2) = 2, cwnd 2: segments 10 (with CWR) and 11.
    let mut s = ecn_sender(10, false);
    start(&mut s);
    for t in 0..5 {
        ack(&mut s, 100 + t, 0, t >= 3);
    }
    assert_eq!((s.tcb.ca_state, s.tcb.ssthresh), (CaState::Recovery, 5));
    assert_eq!(s.stats.ecn_reductions, 0);
    let after = ack(&mut s, 200, 10, true);
    assert_eq!(after, [(10, NEW, true), (11, NEW, false)]);
    assert_eq!((s.tcb.ca_state, s.tcb.ssthresh), (CaState::Cwr, 2));
    assert_eq!((s.stats.ecn_reductions, s.stats.loss_reductions), (1, 1));
}

#[test]
fn a_timeout_in_cwr_keeps_its_ssthresh_and_queues_cwr() {
    // Linux tcp_enter_loss: no new ssthresh inside the window CWR reduced; every
    // timeout queues CWR. The echo on the ACK of 1 gives ssthresh 4, cwnd 4; the
    // ACK of 7 lets segment 10 go with CWR. The timer then expires with 7..10
    // outstanding: segment 7 again, Not-ECT; ssthresh stays 4, cwnd 1. The ACK of
    // everything (11) ends Loss; slow start makes cwnd 2: segments 11, carrying the
    // timeout's CWR, and 12.
    let mut s = ecn_sender(10, false);
    start(&mut s);
    ack(&mut s, 100, 1, true);
    for cum in 2..=6 {
        ack(&mut s, 100 + cum, cum, false);
    }
    assert_eq!(ack(&mut s, 107, 7, false), [(10, NEW, true)]);
    let mut out = Vec::new();
    s.on_timer(s.timer_deadline(), &mut out);
    assert_eq!(sent(&out), [(7, Ecn::NotEct, false)]);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (4, 1));
    assert_eq!(s.stats.loss_reductions, 0);
    let after = ack(&mut s, 5000, 11, false);
    assert_eq!(after, [(11, NEW, true), (12, NEW, false)]);
}

#[test]
fn an_echo_disables_the_undo_of_the_loss_it_arrives_with() {
    // Eifel (RFC 3522, timestamps) finds a fast retransmit spurious at the acceptable
    // ACK and gives the reduction back: ssthresh as before (infinite). But an echo
    // on the third duplicate, the one that started recovery, proved congestion
    // (Linux `tcp_enter_recovery(sk, ece_ack)` leaves prior_ssthresh 0), so the
    // reduction stays: ssthresh 10/2 = 5.
    for (echo, ssthresh) in [(false, INFINITE_SSTHRESH), (true, 5)] {
        let mut s = sender(Recovery::NewReno, 10, |c| {
            c.ecn = ON;
            c.timestamps = true;
            c.eifel = true;
        });
        agree(&mut s);
        let mut out = Vec::new();
        s.start(SimTime::ZERO, &mut out);
        let ts_ack = |s: &mut TcpSender, t: u64, cum: u64, ece: bool, echo_ms: u64| {
            let a = TcpAck {
                ack: cum * MSS,
                window: u64::MAX,
                ts_ecr: Some(SimTime::from_millis(echo_ms)),
                sack: SackBlocks::default(),
                ecn: Ecn::NotEct,
                ece,
            };
            let mut out = Vec::new();
            s.on_ack(SimTime::from_millis(t), &a, &mut out);
        };
        for t in 0..3 {
            ts_ack(&mut s, 100 + t, 0, echo && t == 2, 0);
        }
        assert_eq!(s.tcb.ssthresh, 5);
        // The original segment 0 arrives (delayed, not lost): its ACK echoes TSval 0,
        // before the retransmission's (102 ms).
        ts_ack(&mut s, 150, 10, false, 0);
        assert_eq!(s.stats.spurious_undone, 1);
        assert_eq!(s.tcb.ssthresh, ssthresh, "echo {echo}");
    }
}

#[test]
fn without_agreement_an_echo_is_ignored_and_nothing_is_marked() {
    // Linux tcp_ecn_rcv_ecn_echo: ECE counts only once ECN is agreed. A sender set
    // to 2 (accept, never ask) sends Not-ECT and ignores a stray ECE.
    let mut s = sender(Recovery::NewReno, 4, |c| {
        c.ecn = EcnConfig {
            setting: EcnSetting::Accept,
            needs_ecn: false,
        }
    });
    assert_eq!(s.ecn_syn(true), SynFlags::default());
    s.ecn_syn_ack(SynFlags::default());
    assert_eq!(start(&mut s)[0], (0, Ecn::NotEct, false));
    ack(&mut s, 100, 1, true);
    assert_eq!((s.tcb.ca_state, s.stats.ecn_reductions), (CaState::Open, 0));
}

/// A receiver without delayed ACKs (RFC 3168's rules, no quick-ACK model).
fn receiver(ecn: EcnConfig) -> TcpReceiver {
    TcpReceiver::new(ReceiverConfig {
        buffer: 1 << 20,
        delayed_ack: None,
        quickack: false,
        mss: MSS as u32,
        sack: false,
        dsack: false,
        timestamps: false,
        ecn,
    })
}

#[test]
fn a_ce_mark_comes_back_as_ece_until_the_sender_sends_cwr() {
    // The whole loop of RFC 3168 §6.1, each segment delivered and acknowledged in
    // turn: segments 0..3, the second marked CE on the way. The ACK of 0 grows cwnd
    // to 5: segments 4 and 5 go. The receiver echoes from segment 1 on; the sender
    // reduces at the ACK of 1 (FlightSize 4: ssthresh 2, cwnd 2) and ignores the
    // echoes that follow; the ACK of 4 leaves one segment in flight: segment 6 goes,
    // with CWR; the receiver's ACK of it no longer echoes.
    let mut s = ecn_sender(4, false);
    let mut r = receiver(EcnConfig {
        setting: EcnSetting::Accept,
        needs_ecn: false,
    });
    assert!(
        r.on_syn(SynFlags {
            ece: true,
            cwr: true
        })
        .ece
    );
    let mut out = Vec::new();
    s.start(SimTime::ZERO, &mut out);
    out[1].ecn = Ecn::Ce;
    let mut eces = Vec::new();
    let mut t = 100;
    while let Some(seg) = (!out.is_empty()).then(|| out.remove(0)) {
        let (a, _) = r.on_segment(SimTime::from_millis(t), &seg);
        let a = a.unwrap();
        eces.push((seg.seq / MSS, seg.cwr, a.ece));
        let mut more = Vec::new();
        s.on_ack(SimTime::from_millis(t), &a, &mut more);
        out.extend(more);
        t += 1;
        if seg.seq / MSS == 6 {
            break;
        }
    }
    assert_eq!(
        eces,
        [
            (0, false, false),
            (1, false, true),
            (2, false, true),
            (3, false, true),
            (4, false, true),
            (5, false, true),
            (6, true, false),
        ]
    );
    assert_eq!((s.stats.ecn_reductions, r.stats.ce_received), (1, 1));
}

#[test]
fn dctcp_cuts_by_half_alpha_and_the_window_ends_there() {
    // DCTCP, α starting at 1024 (α = 1), ten segments in flight. The ACK of 1 (no
    // echo) ends the opening observation window: α = 1024 − (1024 >> 4) = 960;
    // slow start makes cwnd 11 (segments 10, 11 go). The ACK of 2 echoes: CWR,
    // ssthresh = 11 − (11·960 >> 11) = 11 − 5 = 6 (11·(1 − 0.47) = 5.8 in real
    // numbers), cwnd 6 at once without PRR. CWR holds until data above segment 12
    // (the highest sent then) is acknowledged: at the ACK of 13, cwnd = ssthresh 6.
    let dctcp = Box::new(Dctcp::new(DctcpConfig::default()));
    let mut s = sender_cc(Recovery::NewReno, 10, dctcp, |c| c.ecn = ON);
    agree(&mut s);
    start(&mut s);
    ack(&mut s, 100, 1, false);
    assert_eq!(s.tcb.cwnd, 11);
    ack(&mut s, 101, 2, true);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (6, 6));
    for cum in 3..=12 {
        ack(&mut s, 100 + cum, cum, false);
    }
    assert_eq!(s.tcb.ca_state, CaState::Cwr);
    ack(&mut s, 113, 13, false);
    assert_eq!((s.tcb.ca_state, s.tcb.ssthresh), (CaState::Open, 6));
    assert_eq!(s.tcb.cwnd, 6);
}

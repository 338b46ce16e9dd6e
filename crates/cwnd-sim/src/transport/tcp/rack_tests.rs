//! Packet-script tests of RACK-TLP (RFC 8985) in the sender: segments out, ACKs in,
//! at chosen times, with the timers worked out by hand from the RFC's rules.
//! Sequence numbers in segments of 1000 bytes; RTO by RFC 6298's defaults (1 s
//! minimum), so every RTO below is 1 s.

use super::recovery::Recovery;
use super::sack_tests::{ack, sender, start, timeout, MSS};
use super::sender::TcpSender;
use super::tcb::CaState;
use crate::time::SimTime;

/// A SACK sender of a 10-segment transfer, initial window 10, RACK-TLP on or off.
fn ten_segments(rack: bool) -> TcpSender {
    let mut s = sender(Recovery::Sack, 10, |c| {
        c.rack = rack;
        c.app_bytes = Some(10 * MSS);
    });
    assert_eq!(start(&mut s), (0..10).collect::<Vec<_>>());
    s
}

fn ms(t: u64) -> SimTime {
    SimTime::from_millis(t)
}

#[test]
fn tail_loss_of_two_segments_is_repaired_by_a_probe_at_two_srtt_not_an_rto() {
    // Segments 0..9 sent at 0; 8 and 9 lost; ACKs for 0..7 at 100 ms.
    let mut s = ten_segments(true);
    for cum in 1..=8 {
        assert!(ack(&mut s, 100, cum, &[], None).is_empty());
    }
    // SRTT = 100 ms (every sample is 100 ms). The last ACK arms the PTO with two
    // segments in flight: 100 + 2 × 100 = 300 ms, before the RTO at 100 + 1000.
    assert_eq!(s.rto_deadline(), ms(1100));
    assert_eq!(s.timer_deadline(), ms(300));
    // At 300 ms the probe: no new data, so the highest segment, 9, again; the RTO
    // is re-armed at 300 + 1000 ms.
    assert_eq!(timeout(&mut s, 300), vec![9]);
    assert_eq!((s.stats.loss_probes, s.rto_deadline()), (1, ms(1300)));
    // At 400 ms its ACK: cumulative 8, SACK 9. RACK: RACK.xmit_ts = 300 ms, RACK.rtt
    // = 400 − 300 = 100 ms (≥ min_RTT 100 ms: not ambiguous). Segment 8, sent at 0,
    // is lost since 0 + 100 + reo_wnd (min_RTT/4 = 25 ms) = 125 ms ≤ 400 ms: fast
    // recovery, ssthresh = max(FlightSize/2, 2) = max(2/2, 2) = 2, segment 8 resent.
    assert_eq!(ack(&mut s, 400, 8, &[(9, 10)], None), vec![8]);
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (2, 2));
    // At 500 ms everything is acknowledged: done without a timeout.
    ack(&mut s, 500, 10, &[], None);
    assert_eq!(s.finished_at(), Some(ms(500)));
    assert_eq!((s.stats.timeouts, s.stats.fast_retransmits), (0, 1));
}

#[test]
fn without_rack_tlp_the_same_tail_loss_waits_for_the_rto() {
    let mut s = ten_segments(false);
    for cum in 1..=8 {
        ack(&mut s, 100, cum, &[], None);
    }
    // Only the retransmission timer: 100 + 1000 ms; then 8 goes again, cwnd 1.
    assert_eq!(s.timer_deadline(), ms(1100));
    assert_eq!(timeout(&mut s, 1100), vec![8]);
    assert_eq!((s.stats.timeouts, s.stats.loss_probes), (1, 0));
}

#[test]
fn the_reordering_timer_repairs_a_loss_that_one_sack_reports() {
    // Segment 0 lost; the ACK of segment 1 at 100 ms SACKs it. One SACKed segment
    // is below DupThresh (3) and no reordering was seen: reo_wnd = min_RTT/4 =
    // 100/4 = 25 ms. Segment 0 (sent at 0, before segment 1 by sequence) is lost at
    // 0 + RACK.rtt 100 + 25 = 125 ms: the reordering timer.
    let mut s = ten_segments(true);
    assert!(ack(&mut s, 100, 0, &[(1, 2)], None).is_empty());
    assert_eq!(s.tcb.ca_state, CaState::Disorder);
    assert_eq!(s.timer_deadline(), ms(125));
    assert_eq!(timeout(&mut s, 125), vec![0]);
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
    // DupThresh counting would still be waiting for two more duplicates.
    let mut d = ten_segments(false);
    assert!(ack(&mut d, 100, 0, &[(1, 2)], None).is_empty());
    assert_eq!(d.timer_deadline(), ms(1000));
}

#[test]
fn a_segment_only_late_by_less_than_the_reordering_window_is_not_resent() {
    // As above, but segment 0 arrives at 110 ms (< 125 ms): the timer is stopped,
    // nothing is resent and the sender is back in Open.
    let mut s = ten_segments(true);
    ack(&mut s, 100, 0, &[(1, 2)], None);
    assert!(ack(&mut s, 110, 2, &[], None).is_empty());
    assert_eq!(s.tcb.ca_state, CaState::Open);
    assert_eq!(s.stats.segments_retransmitted, 0);
    // What remains is the PTO, armed by this ACK of new data: 110 + 2 × SRTT, with
    // SRTT = 110 ms, the first RTT sample (segment 0, sent at 0; the ACK at 100 ms
    // only SACKed) → 110 + 220 = 330 ms.
    assert_eq!(s.timer_deadline(), ms(330));
}

#[test]
fn the_probe_sends_new_data_when_there_is_some_and_its_sack_starts_recovery() {
    // A bulk sender, initial window 2: 0 and 1 at 0 ms; the ACK of 0 at 100 ms grows
    // cwnd to 3 (slow start) and sends 2, 3. Segments 1, 2, 3 are lost.
    let mut s = sender(Recovery::Sack, 2, |c| c.rack = true);
    assert_eq!(start(&mut s), vec![0, 1]);
    assert_eq!(ack(&mut s, 100, 1, &[], None), vec![2, 3]);
    // PTO = 100 + 2 × SRTT (100 ms) = 300 ms. The probe is new data, segment 4,
    // although cwnd (3) is full (RFC 8985 §7.3); the RTO is re-armed at 1300 ms.
    assert_eq!(s.timer_deadline(), ms(300));
    assert_eq!(timeout(&mut s, 300), vec![4]);
    assert_eq!((s.stats.loss_probes, s.rto_deadline()), (1, ms(1300)));
    // Its ACK at 400 ms SACKs 4: RACK.xmit_ts = 300 ms, RACK.rtt = 100 ms; 1 (sent at
    // 0) and 2, 3 (sent at 100) are lost, 100 + 100 + 25 = 225 ms ≤ 400 ms. Fast
    // recovery: ssthresh = max(FlightSize 4 / 2, 2) = 2 = cwnd; 1 goes at once
    // (pipe 1: its retransmission), then 2 by NextSeg while pipe 1 < cwnd 2.
    assert_eq!(ack(&mut s, 400, 1, &[(4, 5)], None), vec![1, 2]);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (2, 2));
}

#[test]
fn rack_marks_the_losses_and_prr_paces_their_retransmissions() {
    // RACK and PRR together, as the "linux" profile runs them. Reno, SACK, initial
    // window 16: segments 0..15 sent at 0 ms; 0, 1 and 2 lost.
    let mut s = sender(Recovery::Sack, 16, |c| {
        c.rack = true;
        c.prr = true;
    });
    assert_eq!(start(&mut s), (0..16).collect::<Vec<_>>());
    // 100 ms: one ACK SACKs 3, 4, 5. RFC 8985 §6.2: RACK.rtt = 100 ms (segment 5,
    // the most recently sent delivered one: same send time, highest sequence);
    // DupThresh = 3 segments SACKed and no reordering seen, so reo_wnd = 0; 0, 1, 2
    // (sent at 0, before 5) are lost since 0 + 100 + 0 ≤ 100 ms: fast recovery.
    // ssthresh = max(FlightSize 16 / 2, 2) = 8; RFC 6937: RecoverFS = 16 (cwnd
    // before), prr_delivered = 3, prr_out = 0; pipe = 16 − 3 SACKed − 3 lost = 10 >
    // ssthresh, so sndcnt = ⌈3 · 8 / 16⌉ − 0 = ⌈1.5⌉ = 2: cwnd = 10 + 2 = 12, and
    // 0 and 1 go (RFC 6675's cwnd = ssthresh = 8 < pipe would let only the fast
    // retransmission of 0 go; checked below).
    assert_eq!(ack(&mut s, 100, 0, &[(3, 6)], None), vec![0, 1]);
    assert_eq!(s.tcb.ca_state, CaState::Recovery);
    assert_eq!((s.tcb.ssthresh, s.tcb.cwnd), (8, 12));
    // Each further ACK SACKs one more original (6, 7, 8, 9), delivering 1: pipe
    // falls 12 → 11 → 10 (with 2 resent, 11) → 10, still above 8.
    //   prr_delivered 4: ⌈4 · 8 / 16⌉ − 2 = 2 − 2 = 0: nothing.
    //   prr_delivered 5: ⌈2.5⌉ − 2 = 1: 2, the last segment RACK marked lost.
    //   prr_delivered 6: ⌈3⌉ − 3 = 0: nothing.
    //   prr_delivered 7: ⌈3.5⌉ − 3 = 1: new data, 16.
    // So the three retransmissions leave at 2 for 5 delivered, half the rate the
    // ACKs arrive, not in one burst. RACK marks nothing else: the retransmissions
    // were sent at 100 ms, and 100 + RACK.rtt (≥ 100 ms) > 104 ms.
    let sent: Vec<Vec<u64>> = (6..10)
        .map(|k| ack(&mut s, 95 + k, 0, &[(3, k + 1)], None))
        .collect();
    assert_eq!(sent, vec![vec![], vec![2], vec![], vec![16]]);
    assert_eq!(s.stats.segments_retransmitted, 3);
    assert_eq!(s.stats.fast_retransmits, 1);
    // Without PRR the same RACK marks give RFC 6675's cwnd = ssthresh = 8 < pipe
    // 10: only the fast retransmission of 0 goes at once.
    let mut no_prr = sender(Recovery::Sack, 16, |c| c.rack = true);
    start(&mut no_prr);
    assert_eq!(ack(&mut no_prr, 100, 0, &[(3, 6)], None), vec![0]);
    assert_eq!((no_prr.tcb.ssthresh, no_prr.tcb.cwnd), (8, 8));
}

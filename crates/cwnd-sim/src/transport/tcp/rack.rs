//! RACK, the time-based half of RACK-TLP (RFC 8985 §6; Linux `tcp_recovery.c`):
//! a segment is lost when a segment sent sufficiently later has been delivered,
//! instead of when DupThresh segments above it were SACKed. The sender turns it on
//! with `tcp.rack` (it needs SACK and the `sack` recovery, RFC 8985 §4) together
//! with the tail loss probe (`tlp.rs`).
//!
//! Per ACK (§6.2):
//! * **Step 1–2** (`on_delivered`): for every segment newly delivered (SACKed, or
//!   cumulatively acknowledged and not SACKed before), RACK.rtt = now − its latest
//!   transmission time, and RACK.xmit_ts/RACK.end_seq follow the most recently sent
//!   one (`RACK_sent_after`). A retransmitted segment gives no sample when the ACK
//!   echoes a TSval older than the retransmission, or when the sample is below
//!   RACK.min_RTT (it must be the original's ACK). RACK.min_RTT is the smallest
//!   sample taken here over the last 300 s (`MinRtt`; step 1 allows any RFC
//!   6298/7323 measurement).
//!   Among the segments one ACK delivers, RACK.rtt is that of the most recently
//!   sent: the RFC's loop "in ascending order of Segment.xmit_ts" ends there.
//! * **Step 3**: a never-retransmitted segment delivered below RACK.fack (the
//!   highest end ever delivered) was reordered: `reordering_seen`. Segments of one
//!   ACK are compared with the RACK.fack from before it, which is what the RFC's
//!   ascending-order loop amounts to.
//! * **Step 4** (`reo_wnd`): 0 while no reordering was seen and either the sender is
//!   recovering or DupThresh segments are SACKed (so, without reordering, RACK
//!   reacts where DupThresh would); otherwise min(mult · min_RTT/4, SRTT). The
//!   multiplier grows by one per round trip that brings a D-SACK and falls back to
//!   1 after 16 recoveries without one (`on_dsack`, `on_recovery_exit`).
//! * **Step 5** (`detect_loss`): every segment not delivered and sent before
//!   RACK.xmit_ts/end_seq is lost once xmit_ts + RACK.rtt + reo_wnd ≤ now; for
//!   the others the reordering timer is armed at the latest such deadline
//!   (`RACK_detect_loss_and_arm_timer`). A segment marked lost and not yet resent
//!   is skipped (the RFC sets its xmit_ts to infinity); a lost retransmission is
//!   marked lost again and goes back to the retransmission queue, which RFC
//!   6675's single HighRxt could not do (§9.2) — the scoreboard keeps a
//!   per-segment "retransmission in flight" mark, as Linux does.
//!
//! On a timeout (§6.3 `RACK_mark_losses_on_RTO`) the first unacknowledged segment
//! and those whose RACK deadline has passed are lost; the others stay in flight.
//!
//! RACK.min_RTT is a windowed minimum as Linux's (`MinRtt`). Simplified: Linux's
//! filter (`tcp_min_rtt`) is the connection's, fed once per ACK with the newest
//! (S)ACKed segment's RTT and skipping samples of suspected delayed ACKs
//! (`tcp_update_rtt_min`, `FLAG_ACK_MAYBE_DELAYED`); here it takes RACK's own
//! per-segment samples. Both give the path's smallest RTT.

use super::cc::windowed_max::WindowedMax;
use super::sack::SentSegment;
use crate::time::SimTime;

/// Recoveries without a D-SACK after which the multiplier returns to 1 (§6.2 step 4).
const REO_WND_PERSIST: u32 = 16;

/// `sysctl_tcp_min_rtt_wlen`: Linux's min-RTT window, 300 s (net/ipv4/tcp_input.c,
/// Documentation/networking/ip-sysctl.rst `tcp_min_rtt_wlen`).
const MIN_RTT_WINDOW: SimTime = SimTime::from_secs(300);

/// RACK.min_RTT as Linux keeps it: the smallest RTT sample of the last 300 s
/// (`tcp_update_rtt_min`: `minmax_running_min`, lib/win_minmax.c, Kathleen
/// Nichols' three-choice filter). It is the windowed maximum (`WindowedMax`, the
/// same algorithm) of u64::MAX − RTT: `minmax_running_min` is
/// `minmax_running_max` with the comparisons reversed, which the complement does.
/// Within a run shorter than the window it is the connection's minimum.
#[derive(Clone, Copy, Debug, Default)]
struct MinRtt(WindowedMax);

impl MinRtt {
    /// The minimum (`SimTime::MAX` before the first sample).
    fn get(&self) -> SimTime {
        match self.0.get() {
            0 => SimTime::MAX,
            v => SimTime(u64::MAX - v),
        }
    }

    fn update(&mut self, now: SimTime, rtt: SimTime) {
        self.0.update(MIN_RTT_WINDOW.0, now.0, u64::MAX - rtt.0);
    }
}

/// RACK's per-connection state (RFC 8985 §6.1).
#[derive(Clone, Debug)]
pub(super) struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent delivered segment.
    xmit_ts: SimTime,
    end_seq: u64,
    /// RACK.rtt: the RTT of that segment (zero before the first delivery).
    rtt: SimTime,
    /// RACK.min_RTT.
    min_rtt: MinRtt,
    /// RACK.fack: the highest end of a delivered segment.
    fack: u64,
    /// RACK.fack before the ACK being processed, and the newest segment it delivered.
    prior_fack: u64,
    ack_newest: Option<(SimTime, u64)>,
    reordering_seen: bool,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    /// RACK.dsack_round: SND.NXT when the multiplier last grew.
    dsack_round: Option<u64>,
    /// When the reordering timer fires (`SimTime::MAX`: stopped).
    deadline: SimTime,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit_ts: SimTime::ZERO,
            end_seq: 0,
            rtt: SimTime::ZERO,
            min_rtt: MinRtt::default(),
            fack: 0,
            prior_fack: 0,
            ack_newest: None,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: REO_WND_PERSIST,
            dsack_round: None,
            deadline: SimTime::MAX,
        }
    }
}

/// `RACK_sent_after`: (t1, seq1) was sent after (t2, seq2); equal times are ordered
/// by sequence (segments of one burst share a timestamp).
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// When the reordering timer fires (`SimTime::MAX`: stopped).
    pub(super) fn deadline(&self) -> SimTime {
        self.deadline
    }

    /// Whether the reordering timer is due at `now`; if so it stops (the loss
    /// detection it calls for may arm it again).
    pub(super) fn timer_due(&mut self, now: SimTime) -> bool {
        let due = self.deadline <= now;
        if due {
            self.deadline = SimTime::MAX;
        }
        due
    }

    /// An ACK arrives: its deliveries are compared with the state before it.
    pub(super) fn begin_ack(&mut self) {
        self.prior_fack = self.fack;
        self.ack_newest = None;
    }

    /// Steps 1–3 for one newly delivered segment; `echo` is the ACK's TSecr.
    pub(super) fn on_delivered(&mut self, now: SimTime, s: &SentSegment, echo: Option<SimTime>) {
        let end = s.end();
        if end < self.prior_fack && !s.retransmitted {
            self.reordering_seen = true;
        }
        self.fack = self.fack.max(end);
        let rtt = now - s.sent;
        if s.retransmitted && (echo.is_some_and(|e| e < s.sent) || rtt < self.min_rtt.get()) {
            return;
        }
        self.min_rtt.update(now, rtt);
        if self
            .ack_newest
            .is_none_or(|(t, e)| sent_after(s.sent, end, t, e))
        {
            self.ack_newest = Some((s.sent, end));
            self.rtt = rtt;
        }
        if sent_after(s.sent, end, self.xmit_ts, self.end_seq) {
            self.xmit_ts = s.sent;
            self.end_seq = end;
        }
    }

    /// Step 4's D-SACK part, on every ACK: a D-SACK in a new round trip widens the
    /// window by one more min_RTT/4 for the next 16 recoveries.
    pub(super) fn on_ack_dsack(&mut self, snd_una: u64, snd_nxt: u64, dsack: bool) {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if dsack && self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// Step 4, "exiting Fast or RTO recovery".
    pub(super) fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// Step 4: the reordering window.
    pub(super) fn reo_wnd(
        &self,
        recovering: bool,
        segs_sacked: u32,
        dupthresh: u32,
        srtt: Option<SimTime>,
    ) -> SimTime {
        if !self.reordering_seen && (recovering || segs_sacked >= dupthresh) {
            return SimTime::ZERO;
        }
        let min_rtt = self.min_rtt.get();
        if min_rtt == SimTime::MAX {
            return SimTime::ZERO;
        }
        let wnd =
            SimTime::from_nanos(min_rtt.as_nanos() / 4).saturating_mul(self.reo_wnd_mult.into());
        srtt.map_or(wnd, |s| wnd.min(s))
    }

    /// Step 5 with the timer: marks lost the segments RACK's rule condemns; arms
    /// (or stops) the reordering timer. Returns how many were marked.
    pub(super) fn detect_loss<'a>(
        &mut self,
        now: SimTime,
        reo_wnd: SimTime,
        segments: impl IntoIterator<Item = &'a mut SentSegment>,
    ) -> u64 {
        let mut marked = 0;
        let mut latest = SimTime::ZERO;
        for s in segments {
            if s.sacked || (s.lost && !s.rexmit) {
                continue;
            }
            if !sent_after(self.xmit_ts, self.end_seq, s.sent, s.end()) {
                continue;
            }
            let deadline = s.sent + self.rtt + reo_wnd;
            if deadline <= now {
                s.lost = true;
                s.rexmit = false;
                marked += 1;
            } else {
                latest = latest.max(deadline);
            }
        }
        self.deadline = if latest > now { latest } else { SimTime::MAX };
        marked
    }

    /// §6.3: on a timeout, the first unacknowledged segment and every segment whose
    /// RACK deadline has passed are lost. Returns how many were newly marked.
    pub(super) fn mark_losses_on_rto<'a>(
        &mut self,
        now: SimTime,
        reo_wnd: SimTime,
        segments: impl IntoIterator<Item = &'a mut SentSegment>,
    ) -> u64 {
        self.deadline = SimTime::MAX;
        let mut marked = 0;
        for (i, s) in segments.into_iter().enumerate() {
            if s.sacked {
                continue;
            }
            if i == 0 || s.sent + self.rtt + reo_wnd <= now {
                marked += u64::from(!s.lost || s.rexmit);
                s.lost = true;
                s.rexmit = false;
            }
        }
        marked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::rate::TxStamp;
    use std::collections::VecDeque;

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    /// Segment `n` (1000 bytes from n·1000) last sent at `t_ms`.
    fn seg(n: u64, t_ms: u64, retransmitted: bool) -> SentSegment {
        SentSegment {
            seq: n * 1000,
            len: 1000,
            sent: ms(t_ms),
            retransmitted,
            sacked: false,
            lost: false,
            rexmit: retransmitted,
            tx: TxStamp::default(),
        }
    }

    #[test]
    fn min_rtt_forgets_a_sample_older_than_300_s_as_linux() {
        // A 100 ms sample at 0.1 s, then 150 ms every 10 s (the path got slower).
        // Nichols' filter (Linux `minmax_running_min`, window 300 s): the 150 ms
        // samples become the second and third choices once a quarter window (75 s)
        // has passed; the best, 100 ms from 0.1 s, is kept while it is at most
        // 300 s old, so at 300 s min_RTT is still 100 ms; at 310 s it is 309.9 s
        // old and the 150 ms choice takes over. (The connection's minimum would
        // stay 100 ms.)
        let mut rack = Rack::default();
        rack.on_delivered(ms(100), &seg(0, 0, false), None);
        for k in 1..=30 {
            let t = 10_000 * k;
            rack.on_delivered(ms(t), &seg(k, t - 150, false), None);
        }
        assert_eq!(rack.min_rtt.get(), ms(100));
        rack.on_delivered(ms(310_000), &seg(31, 310_000 - 150, false), None);
        assert_eq!(rack.min_rtt.get(), ms(150));
    }

    #[test]
    fn a_segment_sent_before_a_delivered_one_is_lost_after_rtt_plus_reo_wnd() {
        // Segments 0..4 sent at 0, 1, 2, 3 ms; 1, 2, 3 SACKed at 101, 102, 103 ms.
        let mut sent: VecDeque<_> = (0..4).map(|n| seg(n, n, false)).collect();
        let mut rack = Rack::default();
        for (n, t) in [(1, 101), (2, 102), (3, 103)] {
            rack.begin_ack();
            sent[n].sacked = true;
            rack.on_delivered(ms(t), &sent[n], None);
        }
        // RACK.rtt = 103 − 3 = 100 ms; min_RTT = 100 ms; no reordering seen.
        assert_eq!(
            (rack.rtt, rack.min_rtt.get(), rack.xmit_ts),
            (ms(100), ms(100), ms(3))
        );
        // One SACKed segment (< DupThresh 3): reo_wnd = min_RTT/4 = 25 ms (< SRTT).
        assert_eq!(rack.reo_wnd(false, 1, 3, Some(ms(100))), ms(25));
        // Segment 0's deadline: 0 + 100 + 25 = 125 ms. At 103 ms: not yet, the
        // timer is armed for 125 ms.
        assert_eq!(rack.detect_loss(ms(103), ms(25), &mut sent), 0);
        assert_eq!(rack.deadline, ms(125));
        assert_eq!(rack.detect_loss(ms(125), ms(25), &mut sent), 1);
        assert!(sent[0].lost && rack.deadline == SimTime::MAX);
        // Three SACKed and no reordering: reo_wnd = 0, lost at 0 + 100 = 100 ms.
        assert_eq!(rack.reo_wnd(false, 3, 3, Some(ms(100))), SimTime::ZERO);
        assert_eq!(rack.reo_wnd(true, 1, 3, Some(ms(100))), SimTime::ZERO);
    }

    #[test]
    fn reordering_and_dsack_widen_the_window_up_to_srtt() {
        let mut rack = Rack::default();
        let late = seg(0, 0, false);
        let early = seg(1, 0, false);
        rack.begin_ack();
        rack.on_delivered(ms(40), &early, None);
        // Segment 0 delivered after segment 1 (end 1000 < fack 2000): reordering.
        rack.begin_ack();
        rack.on_delivered(ms(41), &late, None);
        assert!(rack.reordering_seen);
        // min_RTT = 40 ms: reo_wnd = 10 ms even with 3 SACKed and in recovery.
        assert_eq!(rack.reo_wnd(true, 3, 3, Some(ms(50))), ms(10));
        // A D-SACK: mult 2 → 20 ms; another in the same round (snd_una 0 < 5000)
        // changes nothing; after the round (snd_una ≥ 5000) one more: 30 ms.
        rack.on_ack_dsack(0, 5000, true);
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(ms(50))), ms(20));
        rack.on_ack_dsack(1000, 6000, true);
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(ms(50))), ms(20));
        rack.on_ack_dsack(5000, 9000, true);
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(ms(50))), ms(30));
        // mult 6 would be 60 ms: capped at SRTT 50 ms.
        for r in 0..3 {
            rack.on_ack_dsack(10_000 * (r + 1), 10_000 * (r + 2), true);
        }
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(ms(50))), ms(50));
        // 16 recoveries without a D-SACK: back to min_RTT/4.
        for _ in 0..16 {
            rack.on_recovery_exit();
        }
        assert_eq!(rack.reo_wnd(false, 0, 3, Some(ms(50))), ms(10));
    }

    #[test]
    fn an_ambiguous_retransmission_gives_no_sample_and_a_lost_one_is_found() {
        let mut rack = Rack::default();
        rack.begin_ack();
        rack.on_delivered(ms(100), &seg(5, 0, false), None);
        // Segment 2 resent at 150 ms and acknowledged at 160 ms: 10 ms < min_RTT
        // 100 ms, so the ACK was for the original: no sample.
        rack.begin_ack();
        rack.on_delivered(ms(160), &seg(2, 150, true), None);
        assert_eq!((rack.rtt, rack.xmit_ts), (ms(100), ms(0)));
        // With timestamps, TSecr 0 < 150 ms says the same.
        rack.on_delivered(ms(260), &seg(2, 150, true), Some(ms(0)));
        assert_eq!(rack.xmit_ts, ms(0));
        // Segment 3 resent at 150 ms, segment 4 (new) sent at 160 ms and SACKed at
        // 260 ms: RACK.rtt = 100 ms, RACK.xmit_ts = 160 ms. The retransmission of
        // 3 is lost by 150 + 100 = 250 ms ≤ 260 ms (reo_wnd 0): marked lost again,
        // its in-flight mark cleared.
        let mut sent: VecDeque<_> = [seg(3, 150, true), seg(4, 160, false)].into();
        rack.begin_ack();
        sent[1].sacked = true;
        rack.on_delivered(ms(260), &sent[1], None);
        assert_eq!(rack.detect_loss(ms(260), SimTime::ZERO, &mut sent), 1);
        assert!(sent[0].lost && !sent[0].rexmit);
        // Already lost and not resent: not counted again.
        assert_eq!(rack.detect_loss(ms(300), SimTime::ZERO, &mut sent), 0);
    }

    #[test]
    fn a_timeout_marks_the_head_and_the_expired_segments_only() {
        // RACK.rtt 100 ms from segment 1 (sent at 10 ms, SACKed at 110 ms).
        let mut sent: VecDeque<_> =
            [seg(0, 0, false), seg(1, 10, false), seg(2, 900, false)].into();
        let mut rack = Rack::default();
        rack.begin_ack();
        sent[1].sacked = true;
        rack.on_delivered(ms(110), &sent[1], None);
        // Timeout at 1000 ms, reo_wnd 25 ms: segment 0 (head) lost; segment 2's
        // deadline 900 + 100 + 25 = 1025 ms has not passed: still in flight.
        assert_eq!(rack.mark_losses_on_rto(ms(1000), ms(25), &mut sent), 1);
        assert!(sent[0].lost && !sent[1].lost && !sent[2].lost);
    }
}

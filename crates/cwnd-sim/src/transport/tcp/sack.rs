//! The SACK scoreboard (RFC 2018) and SACK-based loss recovery (RFC 6675), the
//! `Recovery::Sack` flavour.
//!
//! Scoreboard: one entry per segment sent and not cumulatively acknowledged
//! (`Scoreboard`, owned here), with flags `sacked`, `lost` and `rexmit` (a retransmission of
//! it is in flight).
//!
//! * **Update** (RFC 6675 §4; RFC 2018 §4): a segment at or above the cumulative ACK
//!   lying wholly inside a SACK block is marked SACKed. The first block is a D-SACK block (RFC 2883 §4; detection as
//!   Linux `tcp_check_dsack`) when it starts below the cumulative ACK or lies inside the
//!   second block; it marks nothing and goes to the spurious-retransmission detector
//!   (`spurious.rs`). Other blocks at or below the cumulative ACK are stale and ignored.
//! * **IsLost** (§4): "DupThresh discontiguous SACKed sequences have arrived above
//!   'SeqNum' or more than (DupThresh − 1) * SMSS bytes with sequence numbers greater
//!   than 'SeqNum' have been SACKed". Marks are kept once set (SACK information only
//!   grows: the receiver never reneges).
//! * **SetPipe** (§4, computed in the same pass as IsLost): over the un-SACKed segments, 1 if not IsLost, plus 1 if its
//!   retransmission is in flight. HighRxt is kept per segment (the `rexmit` flag, as
//!   Linux's `TCPCB_SACKED_RETRANS`) rather than as one sequence number, so a segment
//!   found lost after a later one went out under rule (3) is still repaired by rule (1).
//! * **NextSeg** (§4): (1) the first segment IsLost, not SACKed, not being
//!   retransmitted; (2) new data, if the application and the receive window allow;
//!   (3) the first segment below the highest SACKed one neither SACKed nor being
//!   retransmitted. Rule (4), the optional rescue retransmission, is not modelled.
//!
//! **Recovery** (§5):
//! * Duplicate acknowledgment (§2): "a segment that arrives carrying a SACK block that
//!   identifies previously unacknowledged and un-SACKed octets between HighACK and
//!   HighData" — even if it also advances the cumulative ACK. A cumulative ACK resets
//!   DupAcks first.
//! * Outside recovery, each duplicate acknowledgment increments DupAcks; recovery starts
//!   when DupAcks ≥ DupThresh (step 1) or IsLost(HighACK + 1) (step 2). Limited
//!   Transmit (step 3, MAY) with `limited_transmit`, as for the other flavours
//!   (RFC 3042; `recovery.rs`).
//! * Entry (step 4): RecoveryPoint = HighData (`recover`); ssthresh from the controller
//!   and cwnd = ssthresh (4.2); the first unacknowledged segment is marked lost and
//!   retransmitted at once, whatever pipe says (4.3) — unless its retransmission from
//!   an earlier episode is still in flight (Linux `tcp_xmit_retransmit_queue` skips it;
//!   RFC 6675 would send it again); then (C): while cwnd − pipe ≥ 1 segment, send
//!   NextSeg.
//! * During recovery (A)–(C): every ACK updates the scoreboard, pipe is recomputed and
//!   NextSeg sent while cwnd − pipe ≥ 1 segment. No window inflation, no growth. A
//!   cumulative ACK at or beyond RecoveryPoint ends recovery (A).
//! * Timeout (§5.1 and Linux `tcp_enter_loss`): recovery ends, RecoveryPoint =
//!   HighData, and no new recovery starts before the cumulative ACK reaches it (the
//!   sender stays in `Loss` until then). RFC 6675 §5.1 recalls RFC 2018's SHOULD to
//!   discard SACK information on a timeout (the receiver may have reneged) and notes
//!   that it may be kept "as long as robust tests for reneging are present"; like Linux
//!   (and ns-3) we keep the SACKed marks — this receiver never reneges — and mark every
//!   other segment lost, clearing the in-flight retransmission marks. Loss recovery then
//!   runs NextSeg under the slow-start cwnd, so only un-SACKed data is retransmitted.
//!
//! Cost: the scoreboard update visits the segments the blocks newly cover (the
//! previous ACK's blocks are remembered, as Linux's `recv_sack_cache`); IsLost, SetPipe
//! and one round of NextSeg are each one pass over the window (NextSeg keeps cursors
//! within a round). No allocation per ACK.

use std::collections::vec_deque::IterMut;
use std::collections::VecDeque;

use super::rate::TxStamp;
use crate::packet::SackBlocks;
use crate::time::SimTime;

/// What an ACK's SACK blocks newly reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackUpdate {
    /// First and last byte (exclusive) of the segments newly marked SACKed.
    pub newly_sacked: Option<(u64, u64)>,
    /// End of the ACK's D-SACK block, if it has one (RACK-TLP, RFC 8985 §6.2
    /// step 4 and §7.4.2).
    pub dsack_end: Option<u64>,
    /// (sequence, send time) of the lowest newly SACKed segment never
    /// retransmitted: Linux's `first_sackt` (`tcp_sacktag_one`), the SACK RTT.
    pub first_sacked: Option<(u64, SimTime)>,
}

impl SackUpdate {
    /// RFC 6675 §2: the ACK is a duplicate acknowledgment.
    pub fn is_dupack(&self) -> bool {
        self.newly_sacked.is_some()
    }
}

/// A sent, not yet acknowledged segment.
#[derive(Clone, Copy, Debug)]
pub(super) struct SentSegment {
    pub seq: u64,
    pub len: u32,
    /// Time of the latest transmission.
    pub sent: SimTime,
    pub retransmitted: bool,
    /// Reported received by a SACK block.
    pub sacked: bool,
    /// Presumed lost: by the SACK scoreboard (RFC 6675 IsLost), or after a timeout.
    pub lost: bool,
    /// A retransmission of it is in flight (RFC 6675 "S1 <= HighRxt", per segment as
    /// Linux's `TCPCB_SACKED_RETRANS`): set when resent, cleared by a timeout or a
    /// D-SACK reporting the copy redundant.
    pub rexmit: bool,
    /// Delivery-rate stamp of the latest transmission (`rate.rs`).
    pub tx: TxStamp,
}

impl SentSegment {
    pub(super) fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

/// The scoreboard itself: the segments sent and not cumulatively acknowledged with
/// their SACKed / lost / retransmitted marks, HighData, and the count of segments
/// ever marked lost. Its one owner is this file; the rest of the sender reads it
/// and changes it through the operations below, each named for an RFC 6675 (or
/// RACK, RFC 8985) step.
#[derive(Debug, Default)]
pub(super) struct Scoreboard {
    /// Segments in [snd_una, high_water), in sequence order.
    segments: VecDeque<SentSegment>,
    /// One past the highest byte ever sent (snd_max, RFC 6675's HighData).
    high_water: u64,
    /// The SACK blocks of the previous ACK (D-SACK block excluded), already applied.
    sack_cache: SackBlocks,
    /// Segments ever marked lost (Linux `tp->lost`), for the rate sample's losses.
    marked_lost: u64,
}

impl Scoreboard {
    /// Segments outstanding (Linux `packets_out`).
    pub fn outstanding(&self) -> u32 {
        self.segments.len() as u32
    }

    /// Nothing is outstanding.
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// The first unacknowledged segment (at SND.UNA).
    pub fn first_unacked(&self) -> Option<&SentSegment> {
        self.segments.front()
    }

    /// The highest segment sent.
    pub fn last_sent(&self) -> Option<&SentSegment> {
        self.segments.back()
    }

    /// One past the highest byte ever sent.
    pub fn high_water(&self) -> u64 {
        self.high_water
    }

    /// Segments ever marked lost.
    pub fn marked_lost(&self) -> u64 {
        self.marked_lost
    }

    /// Outstanding segments SACKed.
    pub fn sacked_count(&self) -> u32 {
        self.segments.iter().filter(|s| s.sacked).count() as u32
    }

    /// Some outstanding segment is SACKed.
    pub fn any_sacked(&self) -> bool {
        self.segments.iter().any(|s| s.sacked)
    }

    /// Some outstanding segment is marked lost.
    pub fn any_lost(&self) -> bool {
        self.segments.iter().any(|s| s.lost)
    }

    /// Every segment marked lost has been resent or SACKed since (rate estimation's
    /// "lost segments retransmitted", Linux `tcp_rate_check_app_limited`).
    pub fn losses_repaired(&self) -> bool {
        self.segments
            .iter()
            .all(|s| !s.lost || s.rexmit || s.sacked)
    }

    /// The first segment marked lost whose retransmission is not in flight.
    pub fn first_lost_not_resent(&self) -> Option<&SentSegment> {
        self.segments.iter().find(|s| s.lost && !s.rexmit)
    }

    /// Retransmissions in flight of segments not SACKed (Linux `retrans_out`).
    pub fn retransmissions_in_flight(&self) -> u32 {
        self.segments
            .iter()
            .filter(|s| s.rexmit && !s.sacked)
            .count() as u32
    }

    /// Segments in the network by the marks alone: neither SACKed nor lost, plus
    /// retransmissions in flight (Linux `tcp_packets_in_flight`: packets_out −
    /// sacked_out − lost_out + retrans_out).
    pub fn in_flight(&self) -> u32 {
        self.segments
            .iter()
            .map(|s| u32::from(!s.sacked && !s.lost) + u32::from(s.rexmit))
            .sum()
    }

    /// The segments the cumulative ACK `ack` covers wholly, in sequence order.
    pub fn acked_by(&self, ack: u64) -> impl Iterator<Item = &SentSegment> {
        self.segments.iter().take_while(move |s| s.end() <= ack)
    }

    /// The outstanding segment starting at `seq`.
    pub fn segment_at(&self, seq: u64) -> Option<&SentSegment> {
        let i = self.segments.partition_point(|s| s.end() <= seq);
        self.segments.get(i).filter(|s| s.seq == seq)
    }

    /// Segments sent below `seq`. Sending new data (`seq` at the high-water mark)
    /// counts them all without a binary search per segment sent (which made a
    /// 10-flow run 7 % slower).
    pub fn segments_below(&self, seq: u64) -> u32 {
        if seq >= self.high_water {
            self.segments.len() as u32
        } else {
            self.segments.partition_point(|s| s.seq < seq) as u32
        }
    }

    /// New data [seq, seq + len) left at `now`; it raises HighData.
    pub fn on_new_data(&mut self, now: SimTime, seq: u64, len: u32, tx: TxStamp) {
        self.segments.push_back(SentSegment {
            seq,
            len,
            sent: now,
            retransmitted: false,
            sacked: false,
            lost: false,
            rexmit: false,
            tx,
        });
        self.high_water = seq + len as u64;
    }

    /// The segment at `seq` was sent again at `now`: its retransmission is in flight
    /// (RFC 6675 HighRxt, kept per segment).
    pub fn on_retransmitted(&mut self, now: SimTime, seq: u64, tx: TxStamp) {
        let i = self.segments.partition_point(|s| s.end() <= seq);
        if let Some(s) = self.segments.get_mut(i) {
            s.sent = now;
            s.retransmitted = true;
            s.rexmit = true;
            s.tx = tx;
        }
    }

    /// The cumulative ACK `ack` arrived: removes the first segment if it lies wholly
    /// below `ack` and returns it; otherwise trims a partially acknowledged first
    /// segment to its unacknowledged rest and returns `None`.
    pub fn pop_acked(&mut self, ack: u64) -> Option<SentSegment> {
        let front = self.segments.front_mut()?;
        if front.end() <= ack {
            return self.segments.pop_front();
        }
        if front.seq < ack {
            let cut = (ack - front.seq) as u32;
            front.seq = ack;
            front.len -= cut;
        }
        None
    }

    /// Update() for the ACK's SACK blocks other than a D-SACK block, `cumulative`
    /// being the ACK's cumulative acknowledgment: marks what they cover and calls
    /// `on_sacked` for each segment newly SACKed (it is delivered then). Parts of a
    /// block that the previous ACK's blocks already covered are skipped (their
    /// segments are marked; as Linux `recv_sack_cache`), so an ACK that only extends
    /// a block costs the new segments, not the whole block. Returns what was newly
    /// SACKed (the D-SACK block is the caller's).
    pub fn apply_sack(
        &mut self,
        blocks: &[(u64, u64)],
        cumulative: u64,
        mut on_sacked: impl FnMut(&SentSegment),
    ) -> SackUpdate {
        let previous = std::mem::take(&mut self.sack_cache);
        let mut update = SackUpdate::default();
        for &(start, end) in blocks {
            self.sack_cache.push(start, end);
            // Only what lies between HighACK and HighData counts (RFC 6675 §2).
            let mut from = start.max(cumulative);
            while from < end {
                // The next stretch of [from, end) that no previous block covered.
                if let Some(&(_, e)) = previous
                    .as_slice()
                    .iter()
                    .find(|&&(s, e)| s <= from && from < e)
                {
                    from = e;
                    continue;
                }
                let upto = previous
                    .as_slice()
                    .iter()
                    .filter(|&&(s, _)| s > from)
                    .map(|&(s, _)| s)
                    .min()
                    .unwrap_or(end)
                    .min(end);
                self.mark_sacked(from, upto, (start, end), &mut on_sacked, &mut update);
                from = upto;
            }
        }
        update
    }

    /// Marks the segments overlapping [from, upto) that lie wholly inside `block`.
    fn mark_sacked(
        &mut self,
        from: u64,
        upto: u64,
        block: (u64, u64),
        on_sacked: &mut impl FnMut(&SentSegment),
        update: &mut SackUpdate,
    ) {
        let first = self.segments.partition_point(|s| s.end() <= from);
        for s in self.segments.iter_mut().skip(first) {
            let s_end = s.end();
            if s.seq >= upto {
                break;
            }
            if !s.sacked && s.seq >= block.0 && s_end <= block.1 {
                s.sacked = true;
                let lowest = update.first_sacked.is_none_or(|(seq, _)| s.seq < seq);
                if !s.retransmitted && lowest {
                    update.first_sacked = Some((s.seq, s.sent));
                }
                on_sacked(s);
                let (lo, hi) = update.newly_sacked.unwrap_or((s.seq, s_end));
                update.newly_sacked = Some((lo.min(s.seq), hi.max(s_end)));
            }
        }
    }

    /// IsLost for every segment and SetPipe (RFC 6675 §4), in one pass from the top
    /// of the window; `dupthresh` `u64::MAX` leaves the marking to RACK. Returns
    /// pipe (in segments) and a NextSeg round over the marks just set (the same pass
    /// finds the highest SACKed segment, rule (3)'s bound).
    pub fn mark_lost_and_pipe(&mut self, dupthresh: u64, mss: u32) -> (u64, NextSegRound) {
        let byte_limit = (dupthresh - 1).saturating_mul(u64::from(mss));
        let (mut sacked_bytes, mut runs, mut in_run) = (0u64, 0u64, false);
        let (mut pipe, mut highest_sacked) = (0u64, None);
        let mut newly_lost = 0;
        for (i, s) in self.segments.iter_mut().enumerate().rev() {
            if s.sacked {
                sacked_bytes += u64::from(s.len);
                runs += u64::from(!in_run);
                in_run = true;
                highest_sacked = highest_sacked.or(Some(i));
            } else {
                in_run = false;
                if !s.lost && (runs >= dupthresh || sacked_bytes > byte_limit) {
                    s.lost = true;
                    newly_lost += 1;
                }
                pipe += u64::from(!s.lost) + u64::from(s.rexmit);
            }
        }
        self.marked_lost += newly_lost;
        let round = NextSegRound {
            rule1: 0,
            rule3: 0,
            highest_sacked: highest_sacked.unwrap_or(0),
        };
        (pipe, round)
    }

    /// NextSeg (RFC 6675 §4), the next segment to send in loss recovery:
    ///
    /// 1. "the first sequence number 'S2' that meets the following criteria:
    ///    (1.a) S2 is greater than HighRxt. (1.b) S2 is less than the highest octet
    ///    covered by any received SACK. (1.c) IsLost(S2) returns true." — here the
    ///    first segment marked lost, not SACKed, whose retransmission is not in
    ///    flight (HighRxt per segment). (1.b) is not checked: IsLost implies it,
    ///    except after a timeout, when every un-SACKed segment is marked lost and
    ///    should be resent (§5.1).
    /// 2. Else, "if there exists available unsent data and the receiver's
    ///    advertised window allows", one segment of new data at HighData:
    ///    `new_data` gives its length if the application, the receive window and
    ///    Nagle allow one (asked only when rule (1) finds nothing).
    /// 3. Else, an un-SACKed segment meeting (1.a) and (1.b) but not (1.c): the
    ///    first below the highest SACKed one, neither SACKed nor being
    ///    retransmitted.
    ///
    /// Rule (4), the rescue retransmission, is not modelled. `None`: nothing to
    /// send. `round` keeps the rules' cursors between calls (see `NextSegRound`).
    pub fn next_seg(
        &self,
        round: &mut NextSegRound,
        new_data: impl FnOnce() -> Option<u32>,
    ) -> Option<NextSeg> {
        let segments = &self.segments;
        while segments
            .get(round.rule1)
            .is_some_and(|s| !s.lost || s.sacked || s.rexmit)
        {
            round.rule1 += 1;
        }
        if let Some(s) = segments.get(round.rule1) {
            return Some(NextSeg::Retransmit {
                seq: s.seq,
                len: s.len,
            });
        }
        if let Some(len) = new_data() {
            return Some(NextSeg::NewData {
                seq: self.high_water,
                len,
            });
        }
        let below = round.highest_sacked;
        while round.rule3 < below && (segments[round.rule3].sacked | segments[round.rule3].rexmit) {
            round.rule3 += 1;
        }
        let s = segments.get(round.rule3).filter(|_| round.rule3 < below)?;
        Some(NextSeg::Retransmit {
            seq: s.seq,
            len: s.len,
        })
    }

    /// RFC 6675 §5 step 4.3: the segment fast recovery resends at once, whatever
    /// pipe says: the first unacknowledged one, marked lost (not if a retransmission
    /// of it is still in flight, as Linux). With RACK (RFC 8985 §6.2 leaves the
    /// marking to it; Linux's PRR likewise always lets the first retransmission of
    /// an episode out), the first segment RACK marked lost and not yet resent.
    pub fn first_retransmission(&mut self, rack: bool) -> Option<(u64, u32)> {
        let first = if rack {
            self.first_lost_not_resent()
        } else {
            self.mark_head_lost();
            self.first_unacked().filter(|h| !h.sacked && !h.rexmit)
        };
        first.map(|s| (s.seq, s.len))
    }

    /// Marks the first unacknowledged segment lost.
    pub fn mark_head_lost(&mut self) {
        if let Some(head) = self.segments.front_mut() {
            self.marked_lost += u64::from(!head.lost);
            head.lost = true;
        }
    }

    /// After a timeout (RFC 6675 §5.1 as Linux `tcp_timeout_mark_lost`): every
    /// segment not SACKed is lost, and no retransmission is in flight any more.
    pub fn mark_unsacked_lost(&mut self) {
        for s in &mut self.segments {
            s.rexmit = false;
            self.marked_lost += u64::from(!s.sacked && !s.lost);
            s.lost = !s.sacked;
        }
    }

    /// Lets RACK (RFC 8985) mark losses among the segments the cumulative ACK `ack`
    /// does not cover wholly; `mark` returns how many it newly marked, which is also
    /// returned.
    pub fn mark_lost_by(
        &mut self,
        ack: u64,
        mark: impl FnOnce(IterMut<'_, SentSegment>) -> u64,
    ) -> u64 {
        let first = self.segments.partition_point(|s| s.end() <= ack);
        let marked = mark(self.segments.range_mut(first..));
        self.marked_lost += marked;
        marked
    }

    /// A spurious episode is undone: no segment is presumed lost any more.
    pub fn clear_lost(&mut self) {
        for s in &mut self.segments {
            s.lost = false;
        }
    }

    /// A D-SACK block [start, end) above snd_una reports copies received twice:
    /// the retransmissions it wholly covers that were sent after `marker` (the
    /// episode's start) are no longer in flight. Returns how many.
    pub fn on_dsack_above_una(&mut self, start: u64, end: u64, marker: u64) -> u32 {
        let mut shown = 0;
        let first = self.segments.partition_point(|s| s.end() <= start);
        for s in self.segments.iter_mut().skip(first) {
            let s_end = s.end();
            if s.seq >= end {
                break;
            }
            if s.seq >= start && s_end <= end && s.retransmitted && s_end > marker {
                s.rexmit = false;
                shown += 1;
            }
        }
        shown
    }

    /// A scoreboard set by hand, for tests.
    #[cfg(test)]
    pub fn from_segments(segments: VecDeque<SentSegment>) -> Self {
        let high_water = segments.back().map_or(0, |s| s.end());
        Scoreboard {
            segments,
            high_water,
            ..Scoreboard::default()
        }
    }
}

/// Where one round of NextSeg has got to. A round is the segments one
/// `sack_transmit` sends after SetPipe: meanwhile segments are only marked
/// retransmitted and new ones appended above the highest SACKed one, so rules (1)
/// and (3) resume their scans where the previous call left them, and a round costs
/// one pass over the window, not one per segment sent. A round must not outlive
/// an ACK (which removes segments and moves the indices).
#[derive(Debug)]
pub(super) struct NextSegRound {
    /// Index of the next candidate for rule (1).
    rule1: usize,
    /// Index of the next candidate for rule (3).
    rule3: usize,
    /// Index of the highest SACKed segment (0 if none): rule (3) looks below it.
    highest_sacked: usize,
}

/// The segment NextSeg names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NextSeg {
    /// Rules (1) and (3): an outstanding segment, sent again.
    Retransmit { seq: u64, len: u32 },
    /// Rule (2): new data, at HighData.
    NewData { seq: u64, len: u32 },
}

/// A SACK block: [first byte, one past the last).
type Block = (u64, u64);

/// An ACK's SACK blocks with `cumulative` its cumulative ACK: its D-SACK block, if
/// it has one, and the others (RFC 2883 §4; `is_dsack`).
pub(super) fn split_dsack(blocks: &[Block], cumulative: u64) -> (Option<Block>, &[Block]) {
    if is_dsack(blocks, cumulative) {
        (Some(blocks[0]), &blocks[1..])
    } else {
        (None, blocks)
    }
}

/// RFC 2883 §4 (sender side, as Linux `tcp_check_dsack`): the first block is a D-SACK
/// block if it starts below the cumulative ACK, or lies within the second block.
fn is_dsack(blocks: &[(u64, u64)], cumulative: u64) -> bool {
    let Some(&(start, end)) = blocks.first() else {
        return false;
    };
    start < cumulative || blocks.get(1).is_some_and(|&(s, e)| s <= start && end <= e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` segments of 1000 bytes from sequence 0, sent at 0; `sacked` lists the
    /// SACKed ones by index.
    fn board(n: u64, sacked: &[u64]) -> Scoreboard {
        let segments = (0..n)
            .map(|i| SentSegment {
                seq: i * 1000,
                len: 1000,
                sent: SimTime::ZERO,
                retransmitted: false,
                sacked: sacked.contains(&i),
                lost: false,
                rexmit: false,
                tx: TxStamp::default(),
            })
            .collect();
        Scoreboard::from_segments(segments)
    }

    /// Sends the segment at `seq` again.
    fn resend(b: &mut Scoreboard, seq: u64) {
        b.on_retransmitted(SimTime::from_millis(1), seq, TxStamp::default());
    }

    fn resend_of(seq: u64) -> Option<NextSeg> {
        Some(NextSeg::Retransmit { seq, len: 1000 })
    }

    #[test]
    fn nextseg_rule_1_resends_what_islost_marked_above_highrxt_before_new_data() {
        // Segments 0–5, 3–5 SACKed, 0's retransmission already in flight.
        // DupThresh 3, SMSS 1000: 3000 bytes SACKed above segments 0–2 exceed
        // (3 − 1) · 1000 = 2000, so IsLost marks 0, 1 and 2. Pipe = 1 (segment 0's
        // retransmission; 1 and 2 are lost, 3–5 SACKed).
        let mut b = board(6, &[3, 4, 5]);
        resend(&mut b, 0);
        let (pipe, mut round) = b.mark_lost_and_pipe(3, 1000);
        assert_eq!(pipe, 1);
        // (1.a) skips segment 0 (S2 > HighRxt); 1 goes first, new data waits.
        assert_eq!(b.next_seg(&mut round, || Some(1000)), resend_of(1000));
        resend(&mut b, 1000);
        assert_eq!(b.next_seg(&mut round, || Some(1000)), resend_of(2000));
        resend(&mut b, 2000);
        // Every lost segment is being resent: rule (2), new data at HighData 6000.
        assert_eq!(
            b.next_seg(&mut round, || Some(1000)),
            Some(NextSeg::NewData {
                seq: 6000,
                len: 1000
            })
        );
    }

    #[test]
    fn nextseg_rule_1_after_a_timeout_resends_every_unsacked_segment() {
        // Segments 0–3, 2 SACKed; a timeout marks 0, 1 and 3 lost (§5.1), none in
        // flight: pipe 0. Rule (1) resends 0, 1, then 3 although it lies above the
        // highest SACKed segment ((1.b) not checked; see `next_seg`).
        let mut b = board(4, &[2]);
        b.mark_unsacked_lost();
        let (pipe, mut round) = b.mark_lost_and_pipe(3, 1000);
        assert_eq!(pipe, 0);
        for seq in [0, 1000, 3000] {
            assert_eq!(b.next_seg(&mut round, || None), resend_of(seq));
            resend(&mut b, seq);
        }
        assert_eq!(b.next_seg(&mut round, || None), None);
    }

    #[test]
    fn nextseg_rule_2_sends_new_data_before_rule_3() {
        // Segments 0–3, 2 SACKed: 1000 bytes and one run above 0 and 1, under
        // DupThresh's 2000 bytes and 3 runs, so nothing IsLost; pipe = 3 (0, 1, 3).
        let mut b = board(4, &[2]);
        let (pipe, mut round) = b.mark_lost_and_pipe(3, 1000);
        assert_eq!(pipe, 3);
        // Rule (2): one segment at HighData = 4000, of the length allowed.
        assert_eq!(
            b.next_seg(&mut round, || Some(700)),
            Some(NextSeg::NewData {
                seq: 4000,
                len: 700
            })
        );
    }

    #[test]
    fn nextseg_rule_3_resends_unsacked_segments_below_the_highest_sack_last() {
        // As above, with no new data: rule (3) takes the un-SACKed segments below
        // the highest SACKed one (2), in order: 0, then 1. Segment 3 lies above it
        // ((1.b) fails): nothing more.
        let mut b = board(4, &[2]);
        let (_, mut round) = b.mark_lost_and_pipe(3, 1000);
        assert_eq!(b.next_seg(&mut round, || None), resend_of(0));
        resend(&mut b, 0);
        assert_eq!(b.next_seg(&mut round, || None), resend_of(1000));
        resend(&mut b, 1000);
        assert_eq!(b.next_seg(&mut round, || None), None);
    }

    #[test]
    fn in_flight_counts_linux_packets_in_flight() {
        // Segments 0–4: 1 SACKed, 2 lost, 3 lost and resent. packets_out 5 −
        // sacked_out 1 − lost_out 2 + retrans_out 1 = 3 (segments 0, 4 and 3's
        // retransmission).
        let mut b = board(5, &[1]);
        for s in &mut b.segments {
            s.lost = s.seq == 2000 || s.seq == 3000;
        }
        resend(&mut b, 3000);
        assert_eq!(b.in_flight(), 3);
        assert_eq!(b.retransmissions_in_flight(), 1);
        assert!(!b.losses_repaired(), "segment 2 is lost and not resent");
        resend(&mut b, 2000);
        assert!(b.losses_repaired());
    }

    #[test]
    fn fast_recovery_resends_the_head_at_once_or_racks_first_loss() {
        // Segments 0–3, 1 SACKed. RFC 6675 step 4.3: the head (0) is marked lost
        // and resent; not again while that retransmission is in flight.
        let mut b = board(4, &[1]);
        assert_eq!(b.first_retransmission(false), Some((0, 1000)));
        assert!(b.first_unacked().is_some_and(|h| h.lost));
        resend(&mut b, 0);
        assert_eq!(b.first_retransmission(false), None);
        // RACK (RFC 8985): the first segment it marked lost (2), head untouched.
        let mut r = board(4, &[1]);
        r.mark_lost_by(0, |segments| {
            segments
                .filter(|s| s.seq == 2000)
                .for_each(|s| s.lost = true);
            1
        });
        assert_eq!(r.first_retransmission(true), Some((2000, 1000)));
        assert!(r.first_unacked().is_some_and(|h| !h.lost));
    }

    #[test]
    fn dsack_is_the_first_block_below_the_ack_or_inside_the_second() {
        // RFC 2883 §4.1.1/§4.1.2: below the cumulative ACK.
        assert!(is_dsack(&[(3000, 3500)], 4000));
        assert!(is_dsack(&[(3000, 3500), (4500, 5000)], 4000));
        // §4.1.3: above it, inside the second block.
        assert!(is_dsack(&[(5000, 5500), (4500, 5500)], 4000));
        // Ordinary SACK blocks.
        assert!(!is_dsack(&[(4500, 5000)], 4000));
        assert!(!is_dsack(&[(6000, 6500), (4500, 5500)], 4000));
        assert!(!is_dsack(&[], 4000));
        // Split off: the D-SACK block and the rest, or nothing and all.
        let blocks = [(3000, 3500), (4500, 5000)];
        assert_eq!(
            split_dsack(&blocks, 4000),
            (Some((3000, 3500)), &blocks[1..])
        );
        assert_eq!(split_dsack(&blocks[1..], 4000), (None, &blocks[1..]));
    }
}

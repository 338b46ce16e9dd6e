//! Spurious retransmissions: three detectors and one response. Each detector is a
//! per-flow option, off by default (`tcp.dsack_undo`, `tcp.eifel`, `tcp.frto`); what
//! each detects is counted in `SenderStats` (`spurious_dsack`, `spurious_eifel`,
//! `spurious_frto`) and every undo in `spurious_undone`.
//!
//! **D-SACK** (RFC 3708 §3; counting as Linux `tcp_check_dsack`/`tcp_sacktag_one`).
//! When a loss episode begins — a fast retransmit, or a timeout that reduces ssthresh
//! (not one that interrupts fast recovery or repeats) — its start is remembered
//! (`undo_marker`, Linux's name) and its retransmissions are counted (`undo_retrans`,
//! starting from the retransmissions still in flight, as Linux `tcp_init_undo`). Each
//! D-SACK block discounts the retransmissions it reports: for data still queued, each
//! segment it covers that was retransmitted and ends above the marker (its in-flight
//! mark is cleared: the copy was redundant); for data already cumulatively acknowledged,
//! the segments it spans, if it ends above the marker ("dumb counting"). When every
//! retransmission of the episode has been reported duplicate, the episode was spurious
//! (RFC 3708 §3: every retransmission of the loss event was unnecessary). This
//! detection runs
//! whenever the receiver sends D-SACKs (`tcp.dsack`) and is counted; the reduction is
//! undone only with `tcp.dsack_undo`. RFC 3708 is silent on how long to wait for the
//! D-SACKs; like Linux, detection stays possible until the next episode begins.
//!
//! **Eifel** (RFC 3522 §3.2, needs timestamps). At the start of an episode — a fast
//! retransmit, or a timeout outside recovery — and not again within it (§3.2: it "MUST
//! NOT be reinitiated after loss recovery has already started", nor upon later timeouts
//! for the same segment) the TSval of the first retransmission is remembered
//! (RetransmitTS, step 2). The
//! first ACK that acknowledges the retransmitted segment is the "acceptable ACK"
//! (step 3); if its TSecr is smaller than RetransmitTS (step 4), the original
//! transmission was acknowledged, not the retransmission: spurious (step 6). Step 5 —
//! no verdict when the acceptable ACK carries a D-SACK, or acknowledges everything
//! while the peer never sent a D-SACK — is not applied, as in Linux
//! (`tcp_packet_delayed`): it guards against receivers that echo an old TSval for a
//! duplicate segment, and this receiver takes TS.Recent from any segment at or below
//! Last.ACK.sent before answering (RFC 7323 §4.3), so a duplicate's ACK echoes the
//! retransmission's own TSval.
//!
//! **F-RTO** (RFC 5682). Step 1: after a timeout that starts a loss episode, or that
//! recurs before any progress (the first retransmission was lost too; §3.1 step 2
//! returns to step 1 then), only the first unacknowledged segment is retransmitted;
//! nothing else is sent until F-RTO decides. Not after a timeout that interrupts fast
//! recovery, nor one in timeout recovery after progress (§2.1 step 1 excludes a sender
//! already in RTO recovery), as Linux `tcp_enter_loss`.
//! Step 2, on the first ACK that advances the window: if it acknowledges everything
//! sent ("covers recover") or not all of the retransmission, conventional recovery
//! (2a); otherwise up to two new segments go out (2b) — none possible, conventional
//! recovery. Step 3, on the next duplicate or window-advancing ACK: spurious (3b) or
//! conventional recovery with cwnd ≤ 3 (3a). Two variants, chosen by the flavour:
//! * basic (§2.1, Tahoe/Reno/NewReno): a duplicate ACK in step 2 means conventional
//!   recovery (2a); in step 3 an ACK that advances the window means spurious, a
//!   duplicate means a real loss;
//! * SACK-enhanced (§3.1, `Recovery::Sack`): duplicate ACKs in step 2 only update the
//!   scoreboard; in step 3 the timeout is spurious if the ACK acknowledges, by the
//!   cumulative ACK or by SACK, data below RecoveryPoint (the highest byte sent when
//!   step 2 began) not acknowledged before — data sent before the timeout and never
//!   retransmitted (RFC 4138 App. B: "an acknowledgment for non-retransmitted segment
//!   between SND.UNA and RecoveryPoint") — and real if it only SACKs the new data above
//!   RecoveryPoint, or is a duplicate without such information. An ACK that does both
//!   counts as spurious, as in Linux (`tcp_process_loss` tests FLAG_ORIG_SACK_ACKED
//!   first). Linux's extra early verdict in step 2 is not modelled.
//!   "Conventional recovery" is go-back-N slow start for the basic variant and the
//!   SACK-based loss recovery (NextSeg over the segments marked lost) for the other.
//!
//! **Response** (RFC 4015 semantics through the controller, as Linux
//! `tcp_undo_cwnd_reduction`): cwnd = the controller's `undo_cwnd` (Reno: the cwnd
//! before the reduction, `prior_cwnd`), ssthresh = max(ssthresh, `prior_ssthresh`).
//! If the sender is still recovering it returns to `Open`: the lost marks are cleared
//! and transmission resumes with new data (RFC 4015 step 2, SND.NXT = SND.MAX: no
//! more go-back-N). Fast recovery's window inflation is recovery's, not the
//! controller's, so it is removed (cwnd = ssthresh) before `undo_cwnd` is asked (not
//! for a controller with `cong_control`, whose cwnd recovery never inflates). RFC
//! 4015's own window (cwnd = FlightSize + min(bytes_acked, IW), ssthresh = pipe_prev)
//! and its RTO adaptation are not used; the RTT estimator carries on with its samples.

use super::sack::Scoreboard;
use crate::time::SimTime;

/// The state of this file's detectors and which of them are on, owned here: the
/// sender reaches it only through the methods below, and makes the response
/// (the undo itself) when one of them finds an episode spurious.
#[derive(Clone, Debug)]
pub struct UndoState {
    /// D-SACK detection undoes the reduction (`tcp.dsack_undo`; detection always runs).
    dsack_undo: bool,
    /// Eifel detection is on (`tcp.eifel`).
    eifel_on: bool,
    /// F-RTO is on (`tcp.frto`).
    frto_on: bool,
    /// snd_una when the current loss episode began (Linux `undo_marker`).
    marker: Option<u64>,
    /// Retransmissions of the episode not yet shown unnecessary by a D-SACK (`None`:
    /// none sent yet; Linux's −1).
    retrans: Option<u32>,
    eifel: Eifel,
    /// F-RTO: which ACK after a timeout is awaited.
    frto: Frto,
}

/// Where F-RTO stands after a timeout (RFC 5682).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frto {
    Off,
    /// Step 1 done: waiting for the first ACK that advances the window (step 2).
    /// `rexmit_end`: one past the retransmitted segment.
    FirstAck {
        rexmit_end: u64,
    },
    /// Step 2b done: waiting for the next ACK (step 3). `recover`: the highest byte
    /// sent when step 2 began (exclusive).
    SecondAck {
        recover: u64,
    },
}

/// Eifel detection (RFC 3522 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Eifel {
    Idle,
    /// An episode began; its first retransmission is still to be sent.
    Armed,
    /// The first retransmission (of the segment at `seq`) was sent with TSval
    /// `retransmit_ts`; waiting for the acceptable ACK.
    Waiting {
        retransmit_ts: SimTime,
        seq: u64,
    },
}

/// What F-RTO makes of an ACK after the timeout (RFC 5682 steps 2 and 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FrtoStep {
    /// Not F-RTO's to decide, or no decision yet: the ACK is processed as usual.
    Pass,
    /// Conventional recovery from here (basic 2a on a duplicate ACK; 3a with cwnd
    /// ≤ 3), then the ACK is processed as usual.
    Conventional {
        /// Step 3a: "set the congestion window to no more than 3 * MSS".
        cap_cwnd: bool,
    },
    /// Step 2a on an ACK that advances the window: F-RTO ends and the ACK is
    /// processed as usual; `go_back_n`: from snd_una (the basic variant, when not
    /// everything was acknowledged).
    Ended { go_back_n: bool },
    /// Step 2b: the ACK is processed, then up to two new segments probe the path
    /// (none: conventional recovery).
    Probe,
    /// Step 3b: the timeout was spurious.
    Spurious,
}

/// An ACK as F-RTO reads it.
#[derive(Clone, Copy, Debug)]
pub(super) struct FrtoAck {
    /// Its cumulative acknowledgment.
    pub ack: u64,
    /// snd_una before it.
    pub snd_una: u64,
    /// One past the highest byte sent.
    pub high_water: u64,
    /// It changed the advertised window (then it is no duplicate).
    pub window_changed: bool,
    /// First and last byte the segments it newly SACKed span.
    pub newly_sacked: Option<(u64, u64)>,
    /// The SACK-enhanced variant (`Recovery::Sack`) runs.
    pub enhanced: bool,
}

impl UndoState {
    pub fn new(dsack_undo: bool, eifel: bool, frto: bool) -> Self {
        UndoState {
            dsack_undo,
            eifel_on: eifel,
            frto_on: frto,
            marker: None,
            retrans: None,
            eifel: Eifel::Idle,
            frto: Frto::Off,
        }
    }

    /// Whether a spurious episode found by D-SACKs is undone (`tcp.dsack_undo`).
    pub fn dsack_undo(&self) -> bool {
        self.dsack_undo
    }

    /// Whether F-RTO runs after timeouts (`tcp.frto`).
    pub fn frto_on(&self) -> bool {
        self.frto_on
    }

    /// F-RTO has not decided yet: nothing but its probes may be sent.
    pub fn frto_waiting(&self) -> bool {
        self.frto != Frto::Off
    }

    /// A new timeout: F-RTO starts over (RFC 5682 §3.1 step 2 returns to step 1).
    pub fn cancel_frto(&mut self) {
        self.frto = Frto::Off;
    }

    /// A loss episode begins at `snd_una` with `retrans_in_flight` retransmissions
    /// still in flight (Linux `tcp_init_undo`: `undo_retrans = retrans_out ?: -1`).
    pub fn on_episode(&mut self, snd_una: u64, retrans_in_flight: u32) {
        self.marker = Some(snd_una);
        self.retrans = (retrans_in_flight > 0).then_some(retrans_in_flight);
    }

    /// A retransmission of the segment at `seq` is sent at `now`: one more to be
    /// shown unnecessary, and the first of an episode gives Eifel its RetransmitTS.
    pub fn on_retransmission(&mut self, now: SimTime, seq: u64) {
        if self.marker.is_some() {
            self.retrans = Some(self.retrans.unwrap_or(0) + 1);
        }
        if self.eifel == Eifel::Armed {
            self.eifel = Eifel::Waiting {
                retransmit_ts: now,
                seq,
            };
        }
    }

    /// A D-SACK block [start, end) arrived (`snd_una` not yet advanced by this ACK;
    /// `mss` counts the segments of a block below it). Returns whether it showed the
    /// last retransmission of the episode unnecessary: the episode was spurious
    /// (then detection ends until the next episode).
    pub fn on_dsack(
        &mut self,
        start: u64,
        end: u64,
        snd_una: u64,
        mss: u32,
        scoreboard: &mut Scoreboard,
    ) -> bool {
        let Some(marker) = self.marker else {
            return false;
        };
        let Some(pending) = self.retrans.filter(|&n| n > 0) else {
            return false;
        };
        let mut shown = 0u32;
        if end <= snd_una {
            if end > marker {
                shown = (end - start).div_ceil(u64::from(mss)).max(1) as u32;
            }
        } else {
            shown = scoreboard.on_dsack_above_una(start, end, marker);
        }
        let left = pending.saturating_sub(shown);
        self.retrans = Some(left);
        if left == 0 {
            self.marker = None;
        }
        left == 0
    }

    /// Eifel, step 2: an episode begins.
    pub fn arm_eifel(&mut self) {
        if self.eifel_on {
            self.eifel = Eifel::Armed;
        }
    }

    /// Eifel, steps 3–6, on an ACK of `ack` that advances the window with TSecr
    /// `echo`: whether it shows the episode's first retransmission unnecessary.
    pub fn eifel_spurious(&mut self, ack: u64, echo: Option<SimTime>) -> bool {
        let Eifel::Waiting { retransmit_ts, seq } = self.eifel else {
            return false;
        };
        if ack <= seq {
            return false;
        }
        self.eifel = Eifel::Idle;
        echo.is_some_and(|e| e < retransmit_ts)
    }

    /// The reduction is undone: every detector starts afresh.
    pub fn on_undo(&mut self) {
        self.forget_episode();
        self.frto = Frto::Off;
    }

    /// An ECN echo proved congestion (Linux `tcp_enter_cwr`: `undo_marker = 0`): the
    /// episode under way can no longer be found spurious.
    pub fn forget_episode(&mut self) {
        self.marker = None;
        self.retrans = None;
        self.eifel = Eifel::Idle;
    }

    /// F-RTO step 1 (RFC 5682 §2.1/§3.1): the first unacknowledged segment, ending
    /// at `head_end`, is resent alone.
    pub fn start_frto(&mut self, head_end: u64) {
        self.frto = Frto::FirstAck {
            rexmit_end: head_end,
        };
    }

    /// F-RTO's steps 2 and 3 on an ACK after the timeout (see the module header).
    pub fn frto_on_ack(&mut self, a: FrtoAck) -> FrtoStep {
        let advanced = a.ack > a.snd_una;
        let duplicate = a.ack == a.snd_una && !a.window_changed;
        match self.frto {
            Frto::Off => FrtoStep::Pass,
            Frto::FirstAck { rexmit_end } => {
                if !advanced {
                    // Basic 2a: a duplicate ACK means conventional recovery. SACK-
                    // enhanced step 2: the scoreboard is updated; stay in step 2.
                    if duplicate && !a.enhanced {
                        self.frto = Frto::Off;
                        return FrtoStep::Conventional { cap_cwnd: false };
                    }
                    return FrtoStep::Pass;
                }
                let recover = a.high_water;
                if a.ack >= recover || a.ack < rexmit_end {
                    // 2a: everything acknowledged, or not all of the retransmission.
                    self.frto = Frto::Off;
                    let go_back_n = a.ack < recover && !a.enhanced;
                    return FrtoStep::Ended { go_back_n };
                }
                // 2b (cwnd grows as in slow start; nothing is sent meanwhile).
                self.frto = Frto::SecondAck { recover };
                FrtoStep::Probe
            }
            Frto::SecondAck { recover } => {
                let (spurious, real) = if a.enhanced {
                    let below = (advanced && a.snd_una < recover)
                        || a.newly_sacked.is_some_and(|(lo, _)| lo < recover);
                    let above = a.newly_sacked.is_some_and(|(_, hi)| hi > recover);
                    (below, !below && (above || duplicate))
                } else {
                    (advanced, duplicate)
                };
                if spurious {
                    self.frto = Frto::Off;
                    FrtoStep::Spurious
                } else if real {
                    self.frto = Frto::Off;
                    FrtoStep::Conventional { cap_cwnd: true }
                } else {
                    FrtoStep::Pass
                }
            }
        }
    }

    /// Step 2b could send no new segment: conventional recovery.
    pub fn end_frto(&mut self) {
        self.frto = Frto::Off;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    #[test]
    fn dsacks_for_every_retransmission_make_the_episode_spurious() {
        // An episode at snd_una 5000 with two retransmissions. D-SACKs below snd_una
        // 7000 count the segments they span ("dumb counting"): [5000, 6000) is one
        // of two, [6000, 7000) the second: spurious; detection then ends.
        let mut u = UndoState::new(true, false, false);
        let mut board = Scoreboard::default();
        u.on_episode(5000, 0);
        u.on_retransmission(ms(1), 5000);
        u.on_retransmission(ms(2), 6000);
        assert!(!u.on_dsack(5000, 6000, 7000, 1000, &mut board));
        assert!(u.on_dsack(6000, 7000, 7000, 1000, &mut board));
        assert!(!u.on_dsack(6000, 7000, 7000, 1000, &mut board));
        // A D-SACK ending at or below the episode's start says nothing of it.
        u.on_episode(8000, 0);
        u.on_retransmission(ms(3), 8000);
        assert!(!u.on_dsack(7000, 8000, 9000, 1000, &mut board));
    }

    #[test]
    fn eifel_finds_the_original_acknowledged_by_its_echo() {
        // The first retransmission (segment at 0) leaves at 1000 ms. An ACK that
        // does not pass it is not the acceptable ACK; the one that does echoes
        // 500 ms < 1000 ms: the original arrived, spurious (RFC 3522 step 4).
        let mut u = UndoState::new(false, true, false);
        u.arm_eifel();
        u.on_retransmission(ms(1000), 0);
        u.on_retransmission(ms(1001), 1000);
        assert!(!u.eifel_spurious(0, Some(ms(500))));
        assert!(u.eifel_spurious(1000, Some(ms(500))));
        // One verdict per episode; and an echo of the retransmission is no proof.
        assert!(!u.eifel_spurious(2000, Some(ms(500))));
        u.arm_eifel();
        u.on_retransmission(ms(2000), 2000);
        assert!(!u.eifel_spurious(3000, Some(ms(2000))));
        // Off, it never arms.
        let mut off = UndoState::new(false, false, false);
        off.arm_eifel();
        off.on_retransmission(ms(1000), 0);
        assert!(!off.eifel_spurious(1000, Some(ms(500))));
    }

    /// An ACK of `ack` with snd_una `una`, 10 000 bytes sent, basic F-RTO.
    fn basic(ack: u64, una: u64) -> FrtoAck {
        FrtoAck {
            ack,
            snd_una: una,
            high_water: 10_000,
            window_changed: false,
            newly_sacked: None,
            enhanced: false,
        }
    }

    #[test]
    fn frto_probes_after_a_first_advance_and_decides_on_the_second() {
        // RFC 5682 §2.1: the retransmission covers [0, 1000). ACK 5000 passes it
        // without covering everything: 2b, probe. A second advance: spurious (3b);
        // a duplicate instead: conventional recovery with cwnd ≤ 3 (3a).
        let mut u = UndoState::new(false, false, true);
        u.start_frto(1000);
        assert!(u.frto_waiting());
        assert_eq!(u.frto_on_ack(basic(5000, 0)), FrtoStep::Probe);
        assert_eq!(u.frto_on_ack(basic(6000, 5000)), FrtoStep::Spurious);
        assert!(!u.frto_waiting());
        u.start_frto(1000);
        u.frto_on_ack(basic(5000, 0));
        let real = FrtoStep::Conventional { cap_cwnd: true };
        assert_eq!(u.frto_on_ack(basic(5000, 5000)), real);
    }

    #[test]
    fn frto_gives_way_at_once_in_step_two_by_rule_2a() {
        let mut u = UndoState::new(false, false, true);
        // A duplicate: conventional recovery (basic); the SACK-enhanced variant waits.
        u.start_frto(1000);
        let dup = FrtoStep::Conventional { cap_cwnd: false };
        assert_eq!(u.frto_on_ack(basic(0, 0)), dup);
        u.start_frto(1000);
        let enhanced = FrtoAck {
            enhanced: true,
            ..basic(0, 0)
        };
        assert_eq!(u.frto_on_ack(enhanced), FrtoStep::Pass);
        // Everything acknowledged: F-RTO ends, nothing to resend; only part of the
        // retransmission (ACK 500 of [0, 1000)): go-back-N from snd_una.
        let mut all = UndoState::new(false, false, true);
        all.start_frto(1000);
        let ended = FrtoStep::Ended { go_back_n: false };
        assert_eq!(all.frto_on_ack(basic(10_000, 0)), ended);
        let mut part = UndoState::new(false, false, true);
        part.start_frto(1000);
        let ended = FrtoStep::Ended { go_back_n: true };
        assert_eq!(part.frto_on_ack(basic(500, 0)), ended);
    }
}

//! Loss recovery: what the sender does on duplicate ACKs, on partial ACKs during
//! recovery, and when the retransmission timer expires. Separate from congestion
//! control (as in Linux): the controller says how far ssthresh falls; this file
//! decides when, what is retransmitted, and how cwnd moves during recovery.
//!
//! * **Tahoe** (Jacobson 1988; as simulated by Fall & Floyd 1996 and ns-2): after
//!   `dupthresh` duplicate ACKs, ssthresh = controller's value, cwnd = 1 and
//!   slow start from the first unacknowledged segment, go-back-N (segments the
//!   receiver already holds are sent again). No fast recovery.
//! * **Reno** (RFC 5681 §3.2): fast retransmit, then fast recovery with window
//!   inflation: cwnd = ssthresh + dupthresh, +1 per further duplicate ACK; the
//!   first ACK of new data deflates cwnd to ssthresh and ends recovery. A second
//!   loss in the same window waits for the timer (see below).
//!   The inflation starts from min(ssthresh, cwnd before the loss). RFC 5681 §3.2
//!   (step 2) and RFC 6582 §3.2 take ssthresh = FlightSize/2, always below the
//!   window, and step 3's cwnd = ssthresh + 3·SMSS then keeps ssthresh segments in
//!   the network. A controller's ssthresh may exceed the window (Westwood's
//!   BWE·RTTmin when the pipe was not full); ssthresh + 3 would then release a burst
//!   above the pre-loss window at once. Linux never does: recovery runs PRR
//!   (RFC 6937; `tcp_cwnd_reduction` in tcp_input.c), which with pipe below ssthresh
//!   sends only as much as is delivered (plus one on an ACK that advances snd_una
//!   without a new loss), and sets cwnd = ssthresh only when recovery completes
//!   (`tcp_end_cwnd_reduction`). Linux Westwood's own `.ssthresh` is
//!   `tcp_reno_ssthresh`; it applies BWE·RTTmin on `CA_EVENT_COMPLETE_CWR`, and
//!   Mascolo et al. 2001 §3 likewise never raise cwnd on loss ("if (cwnd > ssthresh)
//!   cwnd = ssthresh"). So recovery here keeps the pre-loss window in the network
//!   (packet conservation, as PRR) and the end of recovery sets cwnd = ssthresh. The
//!   SACK flavour's cwnd = ssthresh takes the same min.
//! * **NewReno** (RFC 6582 §3.2): as Reno, but recovery lasts until the ACK covers
//!   `recover` (everything outstanding when it began). A partial ACK retransmits
//!   the next hole, deflates cwnd by the segments it acknowledged and adds one
//!   back; the first partial ACK restarts the timer ("Impatient" variant). A full
//!   ACK sets cwnd = ssthresh (option 2 of step 3, as ns-2 and Reno do, so that
//!   with one loss NewReno and Reno behave identically). Option 1,
//!   min(ssthresh, FlightSize + 1), avoids a burst but falls back to slow start
//!   whenever the window was receiver-limited during recovery.
//!
//! For all three, fast retransmit is entered only when the duplicate ACKs are for
//! data sent after the previous episode began (snd_una > `recover`; RFC 6582
//! §3.2 step 2, as ns-2's `bug_fix_`, on by default there, applies it to Tahoe,
//! Reno and NewReno alike). Without it, the duplicates that go-back-N provokes
//! would start false fast retransmits, and Reno would halve twice for one window.
//!
//! * **SACK** (RFC 6675, `Recovery::Sack`, needs `tcp.sack`): scoreboard, IsLost,
//!   pipe and NextSeg; entered on DupThresh duplicate acknowledgments (RFC 6675's
//!   definition: ACKs bringing new SACK information) or as soon as the first
//!   unacknowledged segment IsLost; ends when the cumulative ACK reaches
//!   RecoveryPoint. No `recover` gate beyond RFC 6675 §5.1's (none while in `Loss`).
//!   See `sack.rs`.
//!
//! Timeout (RFC 5681 §3.1, RFC 6298 §5): ssthresh from the controller (with SACK,
//! FlightSize is the data in flight then: see `Tcb::flight_size`) on the first expiry for a segment only (repeated expiries only back off) and not when
//! the timeout interrupts fast recovery of the same losses (as Linux), cwnd = 1,
//! state `Loss` until everything outstanding at the timeout is acknowledged; every
//! segment not SACKed is presumed lost. Tahoe, Reno and NewReno resend by go-back-N
//! from snd_una (skipping SACKed segments when `tcp.sack` is on); the SACK flavour
//! resends only what its scoreboard marks lost (RFC 6675 §5.1, see `sack.rs`).
//! Duplicate ACKs in `Loss` do not start fast retransmit, which keeps go-back-N from
//! triggering false fast retransmits (as Linux does); with SACK they still clock out
//! NextSeg as pipe falls.
//!
//! `tcp.ssthresh_on_repeated_timeout = "halve"` instead does what ns-2 does
//! (`TcpAgent::timeout` → `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)` in
//! ns-2's tcp.cc): every expiry sets ssthresh = max(⌊window/2⌋, 2) with window =
//! min(cwnd, rwnd); on a repeated expiry cwnd is the loss window of 1, so ssthresh
//! falls to 2 (`RepeatedTimeout`).
//!
//! Limited transmit (RFC 3042, `limited_transmit`, all flavours): one new segment on
//! each of the first two duplicate ACKs, cwnd unchanged; those segments do not count
//! in the FlightSize of the ssthresh that follows (RFC 5681 §3.2 step 2).
//!
//! Each reduction (a fast retransmit, or a timeout that reduces ssthresh) starts the
//! spurious-retransmission detectors that are enabled (`spurious.rs`).
//!
//! A controller with `cong_control` (BBR) owns cwnd: recovery then neither sets cwnd
//! to ssthresh (+ dupthresh), nor inflates or deflates it; only a timeout (and Tahoe's
//! fast retransmit, which is one) sets cwnd = 1, as Linux (see `cc/mod.rs`).
//!
//! On loss detection the controller is asked for ssthresh before the state changes,
//! as Linux `tcp_enter_recovery`/`tcp_enter_loss` do.
//!
//! Counting is in segments (see `tcb.rs`); "one SMSS" is one segment.

use super::tcb::CaState;

/// The loss-recovery algorithm of a flow. The default a controller implies is
/// `CcConfig::default_recovery` (cc/mod.rs), derived from the one controller table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    Tahoe,
    Reno,
    NewReno,
    /// RFC 6675 SACK-based recovery (needs `tcp.sack`); see `sack.rs`.
    Sack,
}

impl Recovery {
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// The loss episode's counters, owned here and moved only through these methods:
/// duplicate ACKs (RFC 5681 §2, RFC 6675 §2's DupAcks), RFC 6582's `recover`,
/// the timer's consecutive expiries (RFC 6298 §5.5: ssthresh is reduced once per
/// episode), and NewReno's first partial ACK (RFC 6582 §3.2 step 5 restarts the
/// timer on the first only, the "impatient" variant).
#[derive(Clone, Debug, Default)]
struct LossEpisode {
    dupacks: u32,
    /// `recover` as an exclusive bound: high_water when the last episode began;
    /// `None` before the first.
    recover: Option<u64>,
    /// Expiries of the timer since new data was last acknowledged.
    consecutive_timeouts: u32,
    /// NewReno: whether a partial ACK has already restarted the timer.
    partial_ack_seen: bool,
}

impl LossEpisode {
    fn dupacks(&self) -> u32 {
        self.dupacks
    }

    fn count_dupack(&mut self) {
        self.dupacks += 1;
    }

    fn clear_dupacks(&mut self) {
        self.dupacks = 0;
    }

    /// Whether duplicates at `snd_una` may start a new episode (RFC 6582 §3.2 step
    /// 2, with ns-2's `bug_fix_` reading: the ACK covers data beyond `recover`).
    fn is_new(&self, snd_una: u64) -> bool {
        self.recover.is_none_or(|r| snd_una > r)
    }

    /// Whether a cumulative ACK of `ack` completes the episode.
    fn reaches_recover(&self, ack: u64) -> bool {
        self.recover.is_none_or(|r| ack >= r)
    }

    /// A fast retransmit begins an episode ending at `high_water`.
    fn on_fast_retransmit(&mut self, high_water: u64) {
        self.recover = Some(high_water);
        self.partial_ack_seen = false;
    }

    /// NewReno's partial ACK: whether it is the episode's first.
    fn first_partial_ack(&mut self) -> bool {
        !std::mem::replace(&mut self.partial_ack_seen, true)
    }

    /// New data was acknowledged: the next expiry is a first one again.
    fn on_progress(&mut self) {
        self.consecutive_timeouts = 0;
    }

    /// The timer expired: the episode now ends at `high_water` and the duplicates
    /// are forgotten. Returns (whether this is the first expiry since progress,
    /// the duplicate ACKs counted before it).
    fn on_timeout(&mut self, high_water: u64) -> (bool, u32) {
        let first = self.consecutive_timeouts == 0;
        self.consecutive_timeouts += 1;
        self.recover = Some(high_water);
        (first, std::mem::take(&mut self.dupacks))
    }

    /// A reduction was undone: the sender is back in `Open` with no episode pending.
    fn on_undo(&mut self) {
        self.dupacks = 0;
        self.consecutive_timeouts = 0;
    }
}

/// What a repeated expiry of the retransmission timer (no new data acknowledged
/// since the last one) does to ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepeatedTimeout {
    /// Keep it (RFC 5681 §3.1: "the value of ssthresh is held constant").
    Keep,
    /// ns-2's rule: ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2), which after the first
    /// expiry's cwnd = 1 is 2 (ns-2 tcp.cc `slowdown`).
    Halve,
}

/// The flow's loss recovery: its flavour and options, the episode's counters, and
/// the rules of the module header that decide what an ACK or a timeout does. The
/// sender acts on the verdicts (sends, moves cwnd, asks the controller).
#[derive(Clone, Debug)]
pub(super) struct LossRecovery {
    flavour: Recovery,
    /// RFC 3042 limited transmit is on.
    limited_transmit: bool,
    repeated_timeout: RepeatedTimeout,
    episode: LossEpisode,
    /// Segments limited transmit sent since the sender was last `Open`.
    limited_sent: u32,
}

/// What a duplicate ACK does outside recovery (Tahoe, Reno, NewReno).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DupAckVerdict {
    /// Fewer than dupthresh: `Disorder` (and limited transmit).
    Disorder,
    /// Fast retransmit: a new episode begins.
    FastRetransmit,
    /// Nothing: the duplicates belong to an episode already handled.
    Ignore,
}

/// What an ACK of new data does to the recovery under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NewAckVerdict {
    /// SACK: a partial ACK; the scoreboard says what to send (RFC 6675).
    SackPartial,
    /// NewReno's partial ACK (RFC 6582 step 5): resend the next hole; the timer
    /// restarts on the episode's first only.
    NewRenoPartial { restart_timer: bool },
    /// The ACK ends fast recovery: cwnd = ssthresh.
    RecoveryEnds,
    /// In `Loss`: `ends` once the ACK covers everything outstanding at the timeout.
    Loss { ends: bool },
    /// `Open`, `Disorder` or `Cwr`: the sender is (back) in `Open`, or in CWR until
    /// that reduction ends.
    Open,
}

impl LossRecovery {
    pub fn new(
        flavour: Recovery,
        limited_transmit: bool,
        repeated_timeout: RepeatedTimeout,
    ) -> Self {
        LossRecovery {
            flavour,
            limited_transmit,
            repeated_timeout,
            episode: LossEpisode::default(),
            limited_sent: 0,
        }
    }

    pub fn flavour(&self) -> Recovery {
        self.flavour
    }

    /// Duplicate ACKs counted in the current episode.
    pub fn dupacks(&self) -> u32 {
        self.episode.dupacks()
    }

    /// One more duplicate ACK.
    pub fn count_dupack(&mut self) {
        self.episode.count_dupack();
    }

    /// A duplicate ACK at `snd_una` outside recovery, already counted, with
    /// `dupthresh` in force (RFC 5681 §3.2, RFC 6582 §3.2 step 2). `early`: whether
    /// the controller's fine-grained timer (Vegas) fast-retransmits before
    /// dupthresh; asked only below dupthresh and for a new episode.
    pub fn dupack_verdict(
        &self,
        snd_una: u64,
        dupthresh: u32,
        early: impl FnOnce() -> bool,
    ) -> DupAckVerdict {
        let dupacks = self.episode.dupacks();
        // Only duplicates for data sent after the last episode began start a new
        // one (RFC 6582 §3.2 step 2, with ns-2's `bug_fix_` reading: the ACK must
        // cover a segment beyond `recover`).
        let new_episode = self.episode.is_new(snd_una);
        let early = dupacks < dupthresh && new_episode && early();
        if dupacks < dupthresh && !early {
            DupAckVerdict::Disorder
        } else if new_episode && (early || dupacks == dupthresh) {
            DupAckVerdict::FastRetransmit
        } else {
            DupAckVerdict::Ignore
        }
    }

    /// A fast retransmit begins an episode ending at `high_water`.
    pub fn on_fast_retransmit(&mut self, high_water: u64) {
        self.episode.on_fast_retransmit(high_water);
    }

    /// cwnd on entering fast recovery without PRR, for a controller that does not
    /// own cwnd: min(ssthresh, the window before the loss) (see the module header),
    /// inflated by the duplicates so far for Reno and NewReno (RFC 5681 §3.2 step
    /// 3: dupthresh, or fewer when Vegas's fine-grained timer started the
    /// retransmit). Tahoe's is the loss window.
    pub fn entry_cwnd(&self, ssthresh: u32, prior_cwnd: u32, dupthresh: u32) -> u32 {
        let base = ssthresh.min(prior_cwnd);
        match self.flavour {
            Recovery::Tahoe => 1,
            Recovery::Reno | Recovery::NewReno => base + self.episode.dupacks().min(dupthresh),
            Recovery::Sack => base,
        }
    }

    /// An ACK of new data up to `ack`, in `state`.
    pub fn on_new_ack(&mut self, state: CaState, ack: u64) -> NewAckVerdict {
        self.episode.on_progress();
        let full = self.episode.reaches_recover(ack);
        match state {
            CaState::Recovery if !full && self.flavour == Recovery::Sack => {
                NewAckVerdict::SackPartial
            }
            CaState::Recovery if !full && self.flavour == Recovery::NewReno => {
                NewAckVerdict::NewRenoPartial {
                    restart_timer: self.episode.first_partial_ack(),
                }
            }
            CaState::Recovery => {
                self.episode.clear_dupacks();
                NewAckVerdict::RecoveryEnds
            }
            CaState::Loss => {
                self.episode.clear_dupacks();
                NewAckVerdict::Loss { ends: full }
            }
            CaState::Open | CaState::Disorder | CaState::Cwr => {
                self.episode.clear_dupacks();
                NewAckVerdict::Open
            }
        }
    }

    /// The timer expired: the episode now ends at `high_water`. Returns (whether
    /// this is the first expiry since progress, the duplicate ACKs counted before).
    pub fn on_timeout(&mut self, high_water: u64) -> (bool, u32) {
        self.episode.on_timeout(high_water)
    }

    /// ssthresh on a repeated expiry (`first_expiry` false) with the window at
    /// `cwnd` and the receiver's at `rwnd` segments: ns-2's max(⌊min(cwnd,
    /// rwnd)/2⌋, 2) under `RepeatedTimeout::Halve`; `None`: unchanged.
    pub fn timeout_ssthresh(&self, first_expiry: bool, cwnd: u32, rwnd: u64) -> Option<u32> {
        if first_expiry || self.repeated_timeout != RepeatedTimeout::Halve {
            return None;
        }
        let window = u64::from(cwnd).min(rwnd) as u32;
        Some((window / 2).max(2))
    }

    /// Whether limited transmit may send a new segment now (RFC 3042 §2): it is on,
    /// the sender is in `Disorder` on one of the first two duplicates, and nothing
    /// below the high-water mark waits to be resent (`at_high_water`).
    pub fn limited_transmit_allowed(&self, state: CaState, at_high_water: bool) -> bool {
        self.limited_transmit
            && state == CaState::Disorder
            && self.episode.dupacks() <= 2
            && at_high_water
    }

    /// A segment limited transmit sent.
    pub fn on_limited_sent(&mut self) {
        self.limited_sent += 1;
    }

    /// FlightSize for the ssthresh of a reduction from `flight` segments: without
    /// the segments limited transmit sent (RFC 5681 §3.2 step 2), `None` when it
    /// sent none.
    pub fn flight_without_limited(&self, flight: u32) -> Option<u32> {
        (self.limited_sent > 0).then(|| flight.saturating_sub(self.limited_sent))
    }

    /// A reduction took ssthresh, or the sender is back in `Open`: the segments
    /// limited transmit sent are forgotten.
    pub fn forget_limited(&mut self) {
        self.limited_sent = 0;
    }

    /// A reduction was undone: the sender is back in `Open` with no episode pending.
    pub fn on_undo(&mut self) {
        self.episode.on_undo();
    }
}

/// RFC 3042 §2: a new segment of `len` bytes keeps FlightSize (`flight` bytes
/// before it) at or below cwnd + 2 segments of `mss` bytes.
pub(super) fn limited_transmit_fits(cwnd: u32, mss: u32, flight: u64, len: u32) -> bool {
    flight + u64::from(len) <= (u64::from(cwnd) + 2) * u64::from(mss)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn newreno() -> LossRecovery {
        LossRecovery::new(Recovery::NewReno, false, RepeatedTimeout::Keep)
    }

    #[test]
    fn the_third_duplicate_starts_an_episode_only_above_recover() {
        // dupthresh 3: duplicates 1 and 2 are Disorder, the third retransmits.
        let mut r = newreno();
        let mut verdicts = Vec::new();
        for _ in 0..3 {
            r.count_dupack();
            verdicts.push(r.dupack_verdict(0, 3, || false));
        }
        use DupAckVerdict::*;
        assert_eq!(verdicts, [Disorder, Disorder, FastRetransmit]);
        // A fourth is no new episode; the episode ends at HighData 10 000.
        r.count_dupack();
        assert_eq!(r.dupack_verdict(0, 3, || false), Ignore);
        r.on_fast_retransmit(10_000);
        // After a timeout, three duplicates at snd_una 8 000 ≤ recover 10 000 are
        // for data sent before the episode (RFC 6582 step 2): no fast retransmit;
        // at snd_una 10 001 they start one.
        r.on_timeout(10_000);
        for _ in 0..3 {
            r.count_dupack();
        }
        assert_eq!(r.dupack_verdict(8_000, 3, || false), Ignore);
        assert_eq!(r.dupack_verdict(10_001, 3, || false), FastRetransmit);
    }

    #[test]
    fn a_fine_grained_expiry_retransmits_before_dupthresh_and_is_asked_only_then() {
        let mut r = newreno();
        r.count_dupack();
        assert_eq!(
            r.dupack_verdict(0, 3, || true),
            DupAckVerdict::FastRetransmit
        );
        // At dupthresh the timer is not consulted.
        r.count_dupack();
        r.count_dupack();
        let verdict = r.dupack_verdict(0, 3, || panic!("asked at dupthresh"));
        assert_eq!(verdict, DupAckVerdict::FastRetransmit);
    }

    #[test]
    fn entry_window_keeps_the_window_before_the_loss() {
        // ssthresh 24 above the window of 16 (Westwood's BWE·RTTmin): Reno and
        // NewReno inflate min(24, 16) = 16 by 3 duplicates: 19; SACK takes 16;
        // Tahoe falls to 1. With ssthresh 8: 8 + 3 = 11.
        let mut reno = LossRecovery::new(Recovery::Reno, false, RepeatedTimeout::Keep);
        for _ in 0..3 {
            reno.count_dupack();
        }
        assert_eq!(reno.entry_cwnd(24, 16, 3), 19);
        assert_eq!(reno.entry_cwnd(8, 16, 3), 11);
        let sack = LossRecovery::new(Recovery::Sack, false, RepeatedTimeout::Keep);
        assert_eq!(sack.entry_cwnd(24, 16, 3), 16);
        let tahoe = LossRecovery::new(Recovery::Tahoe, false, RepeatedTimeout::Keep);
        assert_eq!(tahoe.entry_cwnd(8, 16, 3), 1);
    }

    #[test]
    fn a_partial_ack_ends_reno_recovery_but_not_newreno_or_sack() {
        // Episode up to 10 000; an ACK of 4 000 is partial.
        let partial = |flavour| {
            let mut r = LossRecovery::new(flavour, false, RepeatedTimeout::Keep);
            r.on_fast_retransmit(10_000);
            r.on_new_ack(CaState::Recovery, 4_000)
        };
        assert_eq!(partial(Recovery::Reno), NewAckVerdict::RecoveryEnds);
        assert_eq!(partial(Recovery::Sack), NewAckVerdict::SackPartial);
        // NewReno restarts the timer on the first partial ACK only ("impatient").
        let mut r = newreno();
        r.on_fast_retransmit(10_000);
        let first = r.on_new_ack(CaState::Recovery, 4_000);
        let second = r.on_new_ack(CaState::Recovery, 6_000);
        assert_eq!(
            (first, second),
            (
                NewAckVerdict::NewRenoPartial {
                    restart_timer: true
                },
                NewAckVerdict::NewRenoPartial {
                    restart_timer: false
                }
            )
        );
        assert_eq!(
            r.on_new_ack(CaState::Recovery, 10_000),
            NewAckVerdict::RecoveryEnds
        );
    }

    #[test]
    fn timeout_recovery_lasts_until_everything_outstanding_is_acknowledged() {
        let mut r = newreno();
        r.on_timeout(10_000);
        assert_eq!(
            r.on_new_ack(CaState::Loss, 5_000),
            NewAckVerdict::Loss { ends: false }
        );
        assert_eq!(
            r.on_new_ack(CaState::Loss, 10_000),
            NewAckVerdict::Loss { ends: true }
        );
    }

    #[test]
    fn ns2_halves_the_window_on_a_repeated_timeout_only() {
        // cwnd 1 after the first expiry, rwnd 20: max(⌊1/2⌋, 2) = 2; cwnd 30 with
        // rwnd 20: ⌊20/2⌋ = 10. Never on a first expiry, never under `Keep`.
        let halve = LossRecovery::new(Recovery::Reno, false, RepeatedTimeout::Halve);
        assert_eq!(halve.timeout_ssthresh(false, 1, 20), Some(2));
        assert_eq!(halve.timeout_ssthresh(false, 30, 20), Some(10));
        assert_eq!(halve.timeout_ssthresh(true, 30, 20), None);
        assert_eq!(newreno().timeout_ssthresh(false, 30, 20), None);
    }

    #[test]
    fn limited_transmit_sends_on_two_duplicates_within_cwnd_plus_two() {
        let mut r = LossRecovery::new(Recovery::Reno, true, RepeatedTimeout::Keep);
        r.count_dupack();
        assert!(r.limited_transmit_allowed(CaState::Disorder, true));
        assert!(!r.limited_transmit_allowed(CaState::Disorder, false));
        r.count_dupack();
        r.count_dupack();
        assert!(!r.limited_transmit_allowed(CaState::Disorder, true));
        // cwnd 4, MSS 1000: FlightSize 5000 + 1000 ≤ 6000 fits; 6000 + 1000 not.
        assert!(limited_transmit_fits(4, 1000, 5000, 1000));
        assert!(!limited_transmit_fits(4, 1000, 6000, 1000));
        // Two sent: FlightSize 6 segments counts 4 for ssthresh; none once reduced.
        r.on_limited_sent();
        r.on_limited_sent();
        assert_eq!(r.flight_without_limited(6), Some(4));
        r.forget_limited();
        assert_eq!(r.flight_without_limited(6), None);
    }
}

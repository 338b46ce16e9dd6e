//! TLP, the tail loss probe of RACK-TLP (RFC 8985 §7; Linux `tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe`, `tcp_process_tlp_ack`): when the ACK clock stops at the end
//! of a flight, one segment is sent after a probe timeout (PTO) so that the losses
//! at the tail are reported by SACK and repaired by RACK and fast recovery instead
//! of waiting for the retransmission timer.
//!
//! * **Scheduling** (§7.2): after new data is sent (not a probe) and on an ACK that
//!   acknowledges new data, when the connection is in `Open`, nothing is SACKed and
//!   data is in flight: PTO = 2·SRTT, plus `MAX_ACK_DELAY` when one segment is in
//!   flight (its ACK may be delayed), 1 s without an SRTT; never later than the
//!   retransmission timer.
//! * **Probe** (§7.3): at most one probe outstanding (`end_seq`), and only after an
//!   RTT sample since the last one; a new segment if the application and the
//!   receive window have one (cwnd does not limit it), else the highest segment sent
//!   again (`is_retrans`). Then the retransmission timer is re-armed, not the PTO.
//! * **Episode** (§7.4.2, `on_ack`): once the cumulative ACK reaches the probe's end,
//!   the episode ends; a retransmitted probe that the ACK passes without a D-SACK
//!   for it repaired a loss, and the controller reduces the window once (Linux
//!   enters CWR and completes it: ssthresh from the controller, cwnd = ssthresh).
//!   A duplicate ACK without SACK blocks ends it too. Fast recovery and a timeout
//!   reset it (§7.1).

use crate::time::SimTime;

/// TLP.max_ack_delay: the longest a receiver may delay the ACK of a lone segment;
/// RFC 8985 §7.2 recommends 200 ms, the delayed-ACK limit of RFC 1122 §4.2.3.2
/// as Linux and this simulator's receiver implement it.
pub(super) const MAX_ACK_DELAY: SimTime = SimTime::from_millis(200);

/// PTO without an SRTT (§7.2).
const PTO_WITHOUT_SRTT: SimTime = SimTime::from_secs(1);

/// What an ACK does to a probe episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TlpVerdict {
    /// Nothing to do (no episode, or the ACK has not reached the probe).
    None,
    /// The episode ended without a loss.
    Ended,
    /// The probe repaired a loss: the congestion controller reacts.
    RepairedLoss,
}

/// TLP's per-connection state (RFC 8985 §7.1).
#[derive(Clone, Debug)]
pub(super) struct Tlp {
    /// TLP.end_seq: SND.NXT after the outstanding probe.
    end_seq: Option<u64>,
    /// TLP.is_retrans: the outstanding probe resent data.
    is_retrans: bool,
    /// An RTT sample arrived since the last probe (or the start).
    rtt_sampled: bool,
    /// When the PTO fires (`SimTime::MAX`: not armed).
    deadline: SimTime,
}

impl Default for Tlp {
    fn default() -> Self {
        Tlp {
            end_seq: None,
            is_retrans: false,
            rtt_sampled: false,
            deadline: SimTime::MAX,
        }
    }
}

/// `TLP_calc_PTO` (§7.2): 2·SRTT (+ max_ack_delay with one segment in flight), 1 s
/// without SRTT, capped at the retransmission timer's expiry.
fn pto_deadline(
    now: SimTime,
    srtt: Option<SimTime>,
    one_segment: bool,
    rto_deadline: SimTime,
) -> SimTime {
    let pto = match srtt {
        Some(s) if one_segment => s.saturating_mul(2) + MAX_ACK_DELAY,
        Some(s) => s.saturating_mul(2),
        None => PTO_WITHOUT_SRTT,
    };
    (now + pto).min(rto_deadline)
}

impl Tlp {
    /// When the PTO fires (`SimTime::MAX`: not armed).
    pub(super) fn deadline(&self) -> SimTime {
        self.deadline
    }

    /// §7.2 `TLP_calc_PTO`, when a probe is schedulable (`armable`) and the
    /// retransmission timer runs (`rto_deadline`): arms the PTO; else stops it.
    pub(super) fn schedule(
        &mut self,
        now: SimTime,
        armable: bool,
        srtt: Option<SimTime>,
        one_segment: bool,
        rto_deadline: Option<SimTime>,
    ) {
        self.deadline = match rto_deadline.filter(|_| armable) {
            Some(rto) => pto_deadline(now, srtt, one_segment, rto),
            None => SimTime::MAX,
        };
    }

    /// The PTO stops (it fired, or no probe is wanted).
    pub(super) fn stop(&mut self) {
        self.deadline = SimTime::MAX;
    }

    /// An RTT sample was taken.
    pub(super) fn on_rtt_sample(&mut self) {
        self.rtt_sampled = true;
    }

    /// Whether a probe may go now (§7.3's two conditions).
    pub(super) fn may_probe(&self) -> bool {
        self.end_seq.is_none() && self.rtt_sampled
    }

    /// A probe was sent; `end_seq` is SND.NXT after it.
    pub(super) fn on_probe(&mut self, end_seq: u64, is_retrans: bool) {
        self.end_seq = Some(end_seq);
        self.is_retrans = is_retrans;
        self.rtt_sampled = false;
    }

    /// Fast recovery or a timeout begins (§7.1): no episode, no PTO.
    pub(super) fn reset(&mut self) {
        self.end_seq = None;
        self.is_retrans = false;
        self.deadline = SimTime::MAX;
    }

    /// `TLP_process_ack` (§7.4.2). `dsack_end`: the end of the ACK's D-SACK block;
    /// `pure_dupack`: a duplicate ACK without SACK blocks.
    pub(super) fn on_ack(
        &mut self,
        ack: u64,
        dsack_end: Option<u64>,
        pure_dupack: bool,
    ) -> TlpVerdict {
        let Some(end) = self.end_seq.filter(|&e| ack >= e) else {
            return TlpVerdict::None;
        };
        if !self.is_retrans || dsack_end == Some(end) {
            self.end_seq = None;
            TlpVerdict::Ended
        } else if ack > end {
            self.end_seq = None;
            TlpVerdict::RepairedLoss
        } else if pure_dupack {
            self.end_seq = None;
            TlpVerdict::Ended
        } else {
            TlpVerdict::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    #[test]
    fn pto_is_two_srtt_plus_the_ack_delay_for_a_lone_segment_capped_by_the_rto() {
        // SRTT 100 ms: 2 × 100 = 200 ms after now = 1000 ms.
        assert_eq!(
            pto_deadline(ms(1000), Some(ms(100)), false, SimTime::MAX),
            ms(1200)
        );
        // One segment in flight: 200 + 200 = 400 ms.
        assert_eq!(
            pto_deadline(ms(1000), Some(ms(100)), true, SimTime::MAX),
            ms(1400)
        );
        // Without SRTT: 1 s.
        assert_eq!(pto_deadline(ms(1000), None, false, SimTime::MAX), ms(2000));
        // The RTO expires at 1300 ms: the PTO is not later.
        assert_eq!(
            pto_deadline(ms(1000), Some(ms(100)), true, ms(1300)),
            ms(1300)
        );
    }

    #[test]
    fn one_probe_at_a_time_and_only_after_an_rtt_sample() {
        // None before the first RTT sample of the connection.
        let mut t = Tlp::default();
        assert!(!t.may_probe());
        t.on_rtt_sample();
        assert!(t.may_probe());
        t.on_probe(10_000, true);
        assert!(!t.may_probe());
        // The episode ends (ACK of new data beyond a new-data probe would too)...
        assert_eq!(t.on_ack(10_000, None, true), TlpVerdict::Ended);
        // ...but no RTT sample yet since the probe.
        assert!(!t.may_probe());
        t.on_rtt_sample();
        assert!(t.may_probe());
    }

    #[test]
    fn the_episode_ends_by_the_rules_of_section_7_4_2() {
        // A probe of new data: any ACK reaching its end ends the episode.
        let mut t = Tlp::default();
        t.on_probe(10_000, false);
        assert_eq!(t.on_ack(9_000, None, false), TlpVerdict::None);
        assert_eq!(t.on_ack(10_000, None, false), TlpVerdict::Ended);
        // A retransmitted probe reported duplicate by a D-SACK: no loss.
        t.on_probe(10_000, true);
        assert_eq!(t.on_ack(10_000, Some(10_000), false), TlpVerdict::Ended);
        // An ACK beyond the probe without that D-SACK: a loss was repaired.
        t.on_probe(10_000, true);
        assert_eq!(t.on_ack(10_000, None, false), TlpVerdict::None);
        assert_eq!(t.on_ack(11_000, None, false), TlpVerdict::RepairedLoss);
        assert_eq!(t.on_ack(12_000, None, false), TlpVerdict::None);
        // A duplicate ACK without SACK at the probe's end: ended.
        t.on_probe(10_000, true);
        assert_eq!(t.on_ack(10_000, None, true), TlpVerdict::Ended);
    }
}

//! The congestion controller's RTT sample from an ACK of new data (`tcp.cc_sample`):
//! which newly acknowledged segment's age the controller is given
//! (`AckSample::rtt`, `RateSample::rtt`, and the sender's `Tcb::min_rtt`).
//!
//! `Newest` (the default): the newest segment's, the one that triggered the ACK,
//! free of the receiver's delayed-ACK wait: Linux `tcp_clean_rtx_queue`'s
//! `last_ackt` (after 2.6.20; today `ca_rtt_us`, which `tcp_ack_update_rtt` puts in
//! `rs->rtt_us` and `pkts_acked` gets as `sample->rtt_us`). With timestamps the
//! echo (now − TSecr) stands in only where Karn's rule leaves no ACK timing
//! (`tcp_ack_update_rtt`: "Prefer RTT measured from ACK's timing to TS-ECR").
//! Simplified against today's Linux, which times only segments not SACKed before
//! and prefers the newest segment this ACK newly SACKs (`last_sackt`): here a
//! segment SACKed earlier can be the newest, and an ACK that only SACKs gives the
//! controller nothing.
//!
//! `Oldest`: Linux 2.6.20's `rtt_sample` hook (the 2006 patch "TCP: Fix and
//! simplify microsecond rtt sampling"; net/ipv4/tcp_input.c,
//! `tcp_clean_rtx_queue`). Walking the retransmission queue from its head, the
//! first segment with `seq_rtt < 0` (the first one never retransmitted, SACKed or
//! not) stores its transmit stamp (`skb_get_timestamp(skb, &tv)`); after the walk,
//! `if (rtt_sample && !(acked & FLAG_RETRANS_DATA_ACKED))
//! (*rtt_sample)(sk, tcp_usrtt(&tv))`. So: the age of the oldest newly acknowledged
//! segment, stamped at its (only) transmission by `tcp_transmit_skb`
//! (`__net_timestamp`); none at all when any acknowledged segment was ever
//! retransmitted (`TCPCB_RETRANS`, Karn), timestamps or not — the hook never reads
//! the echo; none on an ACK that acknowledges nothing new (`FLAG_ACKED`). Its users
//! in 2.6.20: Vegas (`tcp_vegas_rtt_calc`), Veno (`tcp_veno_rtt_calc`) and LP
//! (which ignores the value). Here every controller that reads the sample gets it.

use serde::{Deserialize, Serialize};

use super::rto::Acked;
use crate::time::SimTime;

/// Which newly acknowledged segment's age the congestion controller takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CcSample {
    /// The newest segment's (Linux after 2.6.20, `last_ackt`).
    #[default]
    Newest,
    /// The oldest segment's (Linux 2.6.20's `rtt_sample`).
    Oldest,
}

impl CcSample {
    /// The controller's sample from an ACK of new data received at `now` that
    /// acknowledged `a`; `echo_rtt` is now − TSecr when timestamps are on.
    pub(super) fn rtt(self, now: SimTime, a: &Acked, echo_rtt: Option<SimTime>) -> Option<SimTime> {
        match self {
            CcSample::Newest if a.retransmitted => echo_rtt,
            CcSample::Newest => a.newest.map(|t| now - t).or(echo_rtt),
            CcSample::Oldest if a.retransmitted => None,
            CcSample::Oldest => a.oldest.map(|t| now - t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime::from_millis(n)
    }

    /// Three segments sent at 100, 200 and 210 ms, acknowledged together at 300 ms.
    fn three(retransmitted: bool) -> Acked {
        Acked {
            count: 3,
            oldest: Some(ms(100)),
            oldest_unsacked: Some(ms(100)),
            newest: Some(ms(210)),
            retransmitted,
        }
    }

    #[test]
    fn newest_is_the_last_segments_age_oldest_the_first_ones() {
        // Newest: 300 − 210 = 90 ms; oldest: 300 − 100 = 200 ms. The echo (here
        // 300 − 100 = 200 ms, TS.Recent of a delayed ACK) is not used by either.
        let echo = Some(ms(200));
        for e in [None, echo] {
            assert_eq!(
                CcSample::Newest.rtt(ms(300), &three(false), e),
                Some(ms(90))
            );
            assert_eq!(
                CcSample::Oldest.rtt(ms(300), &three(false), e),
                Some(ms(200))
            );
        }
    }

    #[test]
    fn a_retransmitted_segment_leaves_oldest_without_a_sample_even_with_an_echo() {
        // Karn: no ACK timing. Newest falls back on the echo (40 ms), 2.6.20's hook
        // is not called at all (`FLAG_RETRANS_DATA_ACKED`).
        let echo = Some(ms(40));
        assert_eq!(CcSample::Newest.rtt(ms(300), &three(true), echo), echo);
        assert_eq!(CcSample::Newest.rtt(ms(300), &three(true), None), None);
        assert_eq!(CcSample::Oldest.rtt(ms(300), &three(true), echo), None);
    }
}

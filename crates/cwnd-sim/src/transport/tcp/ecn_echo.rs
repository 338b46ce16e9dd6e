//! The receiver's ECN echo, as Linux runs it (net/ipv4/tcp_input.c
//! `__tcp_ecn_check_ce`, `tcp_ecn_accept_cwr`; net/ipv4/tcp_dctcp.h
//! `dctcp_ece_ack_update`).
//!
//! * **RFC 3168 §6.1.3.** Once a data segment arrives CE, every ACK carries ECE
//!   until a data segment arrives with CWR (`TCP_ECN_DEMAND_CWR`). CWR is read
//!   before the segment's own mark, so a segment with both keeps ECE on (the RFC's
//!   "if the CE and CWR arrive together"). Only data ECN-capable connections take
//!   part; a segment carrying nothing new (wholly below rcv_nxt) is not checked, as
//!   Linux checks in-order and out-of-order data only.
//! * **Linux's ACK rules** (with the quick-ACK model, `quickack.rs`): the first CE of
//!   an episode, and a Not-ECT segment after ECT ones (a retransmission, most
//!   likely), enter quick-ACK mode for two ACKs (`tcp_enter_quickack_mode(sk, 2)`);
//!   a data segment with CWR is acknowledged at once (the sender's window may be
//!   one segment).
//! * **DCTCP** (RFC 8257 §3.2), for a receiver whose controller needs ECN: ECE on
//!   an ACK says exactly whether the last data segment was CE. When the CE state
//!   changes the segment is acknowledged at once; if a delayed ACK was pending, an
//!   ACK of the data before it, with the old state, goes first (the RFC's "MAY
//!   choose to send two ACKs", which Linux does: `__tcp_send_ack(sk,
//!   prior_rcv_nxt)`), so that the sender counts every byte under the mark it had.
//!   Such a receiver's ACKs are ECT(0), as Linux's for DCTCP.

use super::ecn::{syn_ack_flags, EcnConfig, SynFlags};
use crate::packet::Ecn;

/// What a data segment's ECN field and CWR flag ask of the receiver's ACKs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct EchoVerdict {
    /// Linux enters its quick-ACK mode for two ACKs.
    pub quickack: bool,
    /// The segment brought CWR: Linux acknowledges it at once.
    pub cwr_ack: bool,
    /// DCTCP: the CE state changed, acknowledge the segment at once.
    pub ce_changed: bool,
    /// DCTCP: first acknowledge up to this sequence number with this ECE (the data
    /// before a change of the CE state, while a delayed ACK was pending).
    pub ack_before: Option<(u64, bool)>,
}

/// The receiver's ECN state: Linux's `TCP_ECN_OK`, `TCP_ECN_DEMAND_CWR`,
/// `TCP_ECN_SEEN`, and DCTCP's `ce_state` and `prior_rcv_nxt`.
#[derive(Clone, Copy, Debug)]
pub(super) struct EcnEcho {
    config: EcnConfig,
    /// Both ends agreed to ECN.
    ok: bool,
    /// The SYN that decided `ok` has been answered (Linux's request socket).
    answered: bool,
    /// ACKs carry ECE (`TCP_ECN_DEMAND_CWR`).
    demand_cwr: bool,
    /// An ECT or CE data segment has arrived (`TCP_ECN_SEEN`).
    seen: bool,
    /// DCTCP: the last checked segment was CE.
    ce_state: bool,
    /// DCTCP: rcv_nxt after the last checked segment.
    prior_rcv_nxt: u64,
}

impl EcnEcho {
    pub fn new(config: EcnConfig) -> Self {
        EcnEcho {
            config,
            ok: false,
            answered: false,
            demand_cwr: false,
            seen: false,
            ce_state: false,
            prior_rcv_nxt: 0,
        }
    }

    /// A SYN with `syn`'s flags arrived: the SYN-ACK's flags. The first SYN
    /// decides; later ones get the same answer.
    pub fn on_syn(&mut self, syn: SynFlags) -> SynFlags {
        if !self.answered {
            self.answered = true;
            self.ok = syn_ack_flags(&self.config, syn).ece;
        }
        SynFlags {
            ece: self.ok,
            cwr: false,
        }
    }

    /// Both ends agreed to ECN.
    pub fn agreed(&self) -> bool {
        self.ok
    }

    /// ECE on the next ACK.
    pub fn ece(&self) -> bool {
        self.demand_cwr
    }

    /// The ECN field of the receiver's ACKs: ECT(0) when its controller needs ECN
    /// (Linux leaves the socket's ECT set for it), else Not-ECT (RFC 3168 §6.1.4).
    pub fn ack_ecn(&self) -> Ecn {
        if self.ok && self.config.needs_ecn {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        }
    }

    /// A data segment with the ECN field `ecn` and the CWR flag `cwr` arrived;
    /// `checked`: it carries data not received before (Linux checks its mark);
    /// `rcv_nxt`: after the segment; `ack_pending`: a delayed ACK was waiting.
    pub fn on_data(
        &mut self,
        ecn: Ecn,
        cwr: bool,
        checked: bool,
        rcv_nxt: u64,
        ack_pending: bool,
    ) -> EchoVerdict {
        let mut verdict = EchoVerdict::default();
        if cwr {
            // Linux `tcp_ecn_accept_cwr`, whatever the segment's sequence number.
            self.demand_cwr = false;
            verdict.cwr_ack = true;
        }
        if !self.ok || !checked {
            return verdict;
        }
        match ecn {
            Ecn::NotEct => verdict.quickack = self.seen,
            Ecn::Ce => {
                if self.config.needs_ecn {
                    self.dctcp_update(true, rcv_nxt, ack_pending, &mut verdict);
                }
                if !self.demand_cwr {
                    verdict.quickack = true;
                    self.demand_cwr = true;
                }
                self.seen = true;
            }
            Ecn::Ect0 | Ecn::Ect1 => {
                if self.config.needs_ecn {
                    self.dctcp_update(false, rcv_nxt, ack_pending, &mut verdict);
                }
                self.seen = true;
            }
        }
        verdict
    }

    /// RFC 8257 §3.2's state machine (Linux `dctcp_ece_ack_update`).
    fn dctcp_update(&mut self, ce: bool, rcv_nxt: u64, ack_pending: bool, v: &mut EchoVerdict) {
        if self.ce_state != ce {
            if ack_pending {
                v.ack_before = Some((self.prior_rcv_nxt, self.ce_state));
            }
            v.ce_changed = true;
        }
        self.prior_rcv_nxt = rcv_nxt;
        self.ce_state = ce;
        self.demand_cwr = ce;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::ecn::EcnSetting;

    const SETUP: SynFlags = SynFlags {
        ece: true,
        cwr: true,
    };

    /// A receiver that answered an ECN-setup SYN, its controller needing ECN or not.
    fn echo(needs_ecn: bool) -> EcnEcho {
        let mut e = EcnEcho::new(EcnConfig {
            setting: EcnSetting::Accept,
            needs_ecn,
        });
        assert!(e.on_syn(SETUP).ece);
        e
    }

    /// The ECE of the ACK after each (ECN field, CWR) segment, in order.
    fn eces(e: &mut EcnEcho, segments: &[(Ecn, bool)]) -> Vec<bool> {
        let mut rcv_nxt = 0;
        segments
            .iter()
            .map(|&(ecn, cwr)| {
                rcv_nxt += 1000;
                e.on_data(ecn, cwr, true, rcv_nxt, false);
                e.ece()
            })
            .collect()
    }

    #[test]
    fn ece_from_the_first_ce_until_cwr() {
        // RFC 3168 §6.1.3: CE on segment 2 → ECE on every ACK (segments 2, 3, 4)
        // until segment 5 brings CWR; segment 6 arrives with CWR *and* CE: CWR is
        // read first, the CE sets ECE again.
        use Ecn::*;
        let segments = [
            (Ect0, false),
            (Ce, false),
            (Ect0, false),
            (Ect0, false),
            (Ect0, true),
            (Ce, true),
            (Ect0, false),
        ];
        let expected = [false, true, true, true, false, true, true];
        assert_eq!(eces(&mut echo(false), &segments), expected);
    }

    #[test]
    fn linux_acks_the_first_ce_and_cwr_at_once() {
        // The first CE of an episode enters quick-ACK mode for two ACKs; a second
        // CE while ECE is already on does not; CWR asks for an ACK now; a Not-ECT
        // segment after ECT ones (a retransmission) enters quick-ACK mode too.
        let mut e = echo(false);
        let first = e.on_data(Ecn::Ce, false, true, 1000, true);
        assert!(first.quickack && !first.cwr_ack && !first.ce_changed);
        assert!(!e.on_data(Ecn::Ce, false, true, 2000, true).quickack);
        assert!(e.on_data(Ecn::Ect0, true, true, 3000, true).cwr_ack);
        assert!(e.on_data(Ecn::NotEct, false, true, 4000, true).quickack);
        // Not-ECT before any ECT segment: nothing.
        let mut fresh = echo(false);
        assert_eq!(
            fresh.on_data(Ecn::NotEct, false, true, 1000, false),
            EchoVerdict::default()
        );
    }

    #[test]
    fn a_repeated_segment_is_not_checked_and_a_non_ecn_connection_never_echoes() {
        // Data wholly below rcv_nxt (Linux drops it before the check): its CE is not
        // echoed. Without agreement, a CE (which a queue cannot set on a Not-ECT
        // packet) would be ignored too.
        let mut e = echo(false);
        e.on_data(Ecn::Ce, false, false, 1000, false);
        assert!(!e.ece());
        let mut off = EcnEcho::new(EcnConfig::default());
        assert!(!off.on_syn(SETUP).ece);
        off.on_data(Ecn::Ce, false, true, 1000, false);
        assert!(!off.ece());
        assert_eq!(off.ack_ecn(), Ecn::NotEct);
    }

    #[test]
    fn dctcp_echoes_each_segments_mark_exactly() {
        // RFC 8257 §3.2: ECE follows the last segment's CE, CWR or not.
        use Ecn::*;
        let segments = [
            (Ect0, false),
            (Ce, false),
            (Ce, false),
            (Ect0, false),
            (Ce, true),
            (Ect0, true),
        ];
        let expected = [false, true, true, false, true, false];
        let mut e = echo(true);
        assert_eq!(eces(&mut e, &segments), expected);
        assert_eq!(e.ack_ecn(), Ect0);
    }

    #[test]
    fn dctcp_acks_a_change_at_once_and_the_data_before_it_first() {
        // Segments of 1000 B: segment 1 (ECT, rcv_nxt 1000) waits for the delayed
        // ACK. Segment 2 arrives CE (rcv_nxt 2000): the state changes, so an ACK of
        // 1000 with the old state (no ECE) goes first, then the ACK of 2000 with
        // ECE, now. Segment 3 CE: no change, nothing forced. Segment 4 ECT with no
        // ACK pending: only the immediate ACK, no ACK before.
        let mut e = echo(true);
        let v1 = e.on_data(Ecn::Ect0, false, true, 1000, false);
        assert_eq!(v1, EchoVerdict::default());
        let v2 = e.on_data(Ecn::Ce, false, true, 2000, true);
        assert_eq!(v2.ack_before, Some((1000, false)));
        assert!(v2.ce_changed && e.ece());
        let v3 = e.on_data(Ecn::Ce, false, true, 3000, true);
        assert_eq!((v3.ack_before, v3.ce_changed), (None, false));
        let v4 = e.on_data(Ecn::Ect0, false, true, 4000, false);
        assert_eq!((v4.ack_before, v4.ce_changed), (None, true));
        assert!(!e.ece());
    }

    #[test]
    fn the_first_syn_decides_and_later_ones_get_the_same_answer() {
        let mut e = EcnEcho::new(EcnConfig {
            setting: EcnSetting::Accept,
            needs_ecn: false,
        });
        assert!(e.on_syn(SETUP).ece);
        // The SYN sent again carries no flags (the sender's fallback); the answer
        // stays ECE, as Linux's request socket keeps `ecn_ok`.
        assert!(e.on_syn(SynFlags::default()).ece);
        let mut lost_first = EcnEcho::new(EcnConfig {
            setting: EcnSetting::Accept,
            needs_ecn: false,
        });
        assert!(!lost_first.on_syn(SynFlags::default()).ece);
    }
}

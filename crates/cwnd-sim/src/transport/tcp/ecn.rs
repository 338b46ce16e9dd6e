//! ECN in TCP (RFC 3168 §6.1), the sending side, as Linux runs it: what each end
//! asks for and accepts in the handshake, and how the sender marks what it sends.
//! The receiver's echo is `ecn_echo.rs`; the sender's response to an echo (the
//! CWR state) is `sender/loss.rs`'s.
//!
//! * **Settings.** Each end has Linux's `net.ipv4.tcp_ecn` (ip-sysctl.rst): 0 never
//!   asks and refuses, 2 (Linux's default) accepts when asked but never asks, 1 asks
//!   and accepts. A controller that needs ECN (Linux's `TCP_CONG_NEEDS_ECN`, DCTCP's
//!   flag) asks and accepts whatever the setting (`tcp_ecn_send_syn`,
//!   `tcp_ecn_create_request`).
//! * **Negotiation** (§6.1.1): the active opener's SYN carries ECE and CWR when it
//!   asks; the passive end answers with ECE alone on its SYN-ACK when it accepts, and
//!   both then use ECN (`tcp_ecn_rcv_synack`: ECE without CWR). A SYN sent again
//!   carries neither (§6.1.1.1's fallback for middleboxes that drop ECN-setup SYNs;
//!   Linux `tcp_ecn_clear_syn` with `tcp_ecn_fallback` = 1, its default), so after
//!   a lost SYN the connection goes without ECN unless the first SYN reached the
//!   receiver, whose answer is kept (Linux's request socket). Without a handshake
//!   (`tcp.handshake = false`) the two ends exchange the same flags at the start, as
//!   a handshake without losses would (`world/tcp.rs`), and agree or not alike.
//! * **Marks on what is sent** (§6.1.2, §6.1.5; Linux `tcp_ecn_send`): new data is
//!   ECT(0); retransmissions are Not-ECT, and so are pure ACKs and SYNs; the first new
//!   data segment after a window reduction of any kind (an echo, a fast retransmit, a
//!   timeout: `tcp_init_cwnd_reduction`, `tcp_enter_loss`) carries CWR. A sender whose
//!   controller needs ECN marks its retransmissions ECT(0) too, as Linux does for
//!   DCTCP, so that a queue that marks rather than drops keeps them (its receiver's
//!   ACKs likewise, `ecn_echo.rs`).
//!
//! Simplified, and why: SYNs are always Not-ECT. Linux's DCTCP sends its SYN ECT(0),
//! and a Linux listener whose own controller does not need ECN then refuses ECN
//! (`tcp_ecn_create_request` accepts an ECT SYN only for such a controller); here
//! negotiation follows the two ends' settings alone. A SYN-ACK sent again keeps ECE.

use serde::{Deserialize, Serialize};

use crate::packet::Ecn;

/// A host's ECN setting: Linux's `net.ipv4.tcp_ecn`, in scenarios (`tcp.ecn`) by
/// name or by the sysctl's value: "off" or 0, "on" or 1, "accept" or 2; written
/// back by name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EcnSetting {
    /// 0: never asks, refuses when asked.
    #[default]
    Off,
    /// 2, Linux's default: accepts when asked, never asks.
    Accept,
    /// 1: asks on its SYN, accepts when asked.
    On,
}

/// What `tcp.ecn` may be, for errors.
const ECN_SETTINGS: &str = "\"off\" (0), \"on\" (1) or \"accept\" (2)";

impl<'de> Deserialize<'de> for EcnSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Setting;
        impl serde::de::Visitor<'_> for Setting {
            type Value = EcnSetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "{ECN_SETTINGS}")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<EcnSetting, E> {
                match v {
                    "off" => Ok(EcnSetting::Off),
                    "on" => Ok(EcnSetting::On),
                    "accept" => Ok(EcnSetting::Accept),
                    _ => Err(E::custom(format!("\"{v}\" is not one of {ECN_SETTINGS}"))),
                }
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<EcnSetting, E> {
                match v {
                    0 => Ok(EcnSetting::Off),
                    1 => Ok(EcnSetting::On),
                    2 => Ok(EcnSetting::Accept),
                    _ => Err(E::custom(format!("{v} is not one of {ECN_SETTINGS}"))),
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<EcnSetting, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
            }
        }
        d.deserialize_any(Setting)
    }
}

/// How one end of a connection takes part in ECN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnConfig {
    pub setting: EcnSetting,
    /// The end's controller needs ECN (Linux `TCP_CONG_NEEDS_ECN`: DCTCP). It asks
    /// and accepts whatever `setting` says, marks all it sends ECT(0) once ECN is
    /// agreed, and as a receiver echoes CE exactly (RFC 8257 §3.2, `ecn_echo.rs`).
    pub needs_ecn: bool,
}

impl EcnConfig {
    /// Whether this end's SYN asks for ECN (Linux `tcp_ecn_send_syn`: tcp_ecn = 1 or
    /// a controller that needs ECN).
    pub fn asks(&self) -> bool {
        self.setting == EcnSetting::On || self.needs_ecn
    }

    /// Whether this end accepts ECN when a SYN asks (Linux `tcp_ecn_create_request`:
    /// tcp_ecn ≠ 0 or a controller that needs ECN).
    pub fn accepts(&self) -> bool {
        self.setting != EcnSetting::Off || self.needs_ecn
    }
}

/// The ECN flags of a SYN or SYN-ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynFlags {
    pub ece: bool,
    pub cwr: bool,
}

/// The passive end's answer to a SYN with `syn`'s flags (RFC 3168 §6.1.1): ECE alone
/// when the SYN is an ECN-setup SYN (ECE and CWR) and `receiver` accepts.
pub fn syn_ack_flags(receiver: &EcnConfig, syn: SynFlags) -> SynFlags {
    SynFlags {
        ece: syn.ece && syn.cwr && receiver.accepts(),
        cwr: false,
    }
}

/// The sender's ECN state: Linux's `tp->ecn_flags` bits `TCP_ECN_OK` and
/// `TCP_ECN_QUEUE_CWR`, and where the CWR state ends (its `high_seq`).
#[derive(Clone, Copy, Debug)]
pub(super) struct SenderEcn {
    config: EcnConfig,
    /// Both ends agreed to ECN (`TCP_ECN_OK`).
    ok: bool,
    /// The window was reduced and the next new data segment carries CWR
    /// (`TCP_ECN_QUEUE_CWR`).
    queue_cwr: bool,
    /// One past the highest byte sent when the echo's reduction began.
    cwr_from: u64,
}

impl SenderEcn {
    pub fn new(config: EcnConfig) -> Self {
        SenderEcn {
            config,
            ok: false,
            queue_cwr: false,
            cwr_from: 0,
        }
    }

    /// The connection uses ECN.
    pub fn ok(&self) -> bool {
        self.ok
    }

    /// The flags of a SYN, the `first` or one sent again (Linux `tcp_ecn_send_syn`,
    /// `tcp_ecn_clear_syn`). Asking marks the connection ECN-capable until the
    /// SYN-ACK says otherwise.
    pub fn syn(&mut self, first: bool) -> SynFlags {
        if first {
            self.ok = self.config.asks();
        }
        let ask = self.ok && first;
        SynFlags { ece: ask, cwr: ask }
    }

    /// The SYN-ACK's flags (Linux `tcp_ecn_rcv_synack`): ECN stays agreed only on
    /// ECE without CWR.
    pub fn on_syn_ack(&mut self, flags: SynFlags) {
        self.ok &= flags.ece && !flags.cwr;
    }

    /// Whether an ACK with the ECE flag `ece` echoes congestion (Linux
    /// `tcp_ecn_rcv_ecn_echo`): only once ECN is agreed.
    pub fn echoed(&self, ece: bool) -> bool {
        self.ok && ece
    }

    /// The window was reduced (Linux `tcp_ecn_queue_cwr`): the next new data segment
    /// carries CWR.
    pub fn queue_cwr(&mut self) {
        self.queue_cwr = self.ok;
    }

    /// An echo's reduction begins with `high_water` bytes sent (Linux
    /// `tcp_init_cwnd_reduction`: `high_seq = snd_nxt`, and CWR queued).
    pub fn enter_cwr(&mut self, high_water: u64) {
        self.cwr_from = high_water;
        self.queue_cwr();
    }

    /// Whether the CWR state ends with `snd_una` acknowledged: once data above where
    /// it began is, so that the CWR flag has reached the receiver (Linux
    /// `tcp_fastretrans_alert`: `snd_una != high_seq` after `!before(snd_una,
    /// high_seq)`).
    pub fn cwr_over(&self, snd_una: u64) -> bool {
        snd_una > self.cwr_from
    }

    /// Whether, in CWR, the window `snd_una` starts was already reduced: a timeout
    /// then takes no new ssthresh (Linux `tcp_enter_loss`: `after(high_seq,
    /// snd_una)`).
    pub fn cwr_covers(&self, snd_una: u64) -> bool {
        self.cwr_from > snd_una
    }

    /// A reduction was undone with its ssthresh restored (Linux
    /// `tcp_ecn_withdraw_cwr`): no CWR for it.
    pub fn withdraw_cwr(&mut self) {
        self.queue_cwr = false;
    }

    /// The ECN field and CWR flag of a data segment (Linux `tcp_ecn_send`): new data
    /// is ECT(0) and takes a queued CWR; a retransmission is Not-ECT, unless the
    /// controller needs ECN.
    #[inline]
    pub fn marks(&mut self, retransmission: bool) -> (Ecn, bool) {
        if !self.ok {
            return (Ecn::NotEct, false);
        }
        if retransmission {
            let ecn = if self.config.needs_ecn {
                Ecn::Ect0
            } else {
                Ecn::NotEct
            };
            return (ecn, false);
        }
        (Ecn::Ect0, std::mem::take(&mut self.queue_cwr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(setting: EcnSetting, needs_ecn: bool) -> EcnConfig {
        EcnConfig { setting, needs_ecn }
    }

    /// A first SYN and its SYN-ACK between the two ends: whether ECN is agreed.
    fn agreed(sender: EcnConfig, receiver: EcnConfig) -> bool {
        let mut s = SenderEcn::new(sender);
        let syn = s.syn(true);
        s.on_syn_ack(syn_ack_flags(&receiver, syn));
        s.ok()
    }

    /// A sender that agreed to ECN, its controller needing it or not.
    fn agreed_sender(needs_ecn: bool) -> SenderEcn {
        let mut s = SenderEcn::new(config(EcnSetting::On, needs_ecn));
        let syn = s.syn(true);
        s.on_syn_ack(syn_ack_flags(&config(EcnSetting::Accept, false), syn));
        s
    }

    #[test]
    fn only_an_asking_sender_and_an_accepting_receiver_agree() {
        // RFC 3168 §6.1.1 with Linux's settings: the sender asks with tcp_ecn = 1
        // (or a controller that needs ECN); the receiver accepts with 1 or 2 (or
        // such a controller). Linux's default 2 at both ends never agrees.
        use EcnSetting::*;
        for (sender, receiver, expected) in [
            (On, On, true),
            (On, Accept, true),
            (On, Off, false),
            (Accept, On, false),
            (Accept, Accept, false),
            (Off, On, false),
        ] {
            let (s, r) = (config(sender, false), config(receiver, false));
            assert_eq!(agreed(s, r), expected, "{sender:?} → {receiver:?}");
        }
        // DCTCP's flag asks from a sender set to 2, and accepts at a receiver set to 0.
        assert!(agreed(config(Accept, true), config(Accept, false)));
        assert!(agreed(config(On, false), config(Off, true)));
    }

    #[test]
    fn the_setup_syn_has_ece_and_cwr_its_answer_ece_alone() {
        // RFC 3168 §6.1.1: ECN-setup SYN = ECE + CWR; ECN-setup SYN-ACK = ECE, no CWR.
        let mut s = SenderEcn::new(config(EcnSetting::On, false));
        let syn = s.syn(true);
        assert_eq!(
            syn,
            SynFlags {
                ece: true,
                cwr: true
            }
        );
        let answer = syn_ack_flags(&config(EcnSetting::Accept, false), syn);
        assert_eq!(
            answer,
            SynFlags {
                ece: true,
                cwr: false
            }
        );
        s.on_syn_ack(answer);
        assert!(s.ok());
        // A SYN-ACK with both flags set (a reflector echoing the SYN's flags) or none
        // turns ECN off (Linux `tcp_ecn_rcv_synack`).
        for bad in [
            SynFlags {
                ece: true,
                cwr: true,
            },
            SynFlags::default(),
        ] {
            let mut s = SenderEcn::new(config(EcnSetting::On, false));
            s.syn(true);
            s.on_syn_ack(bad);
            assert!(!s.ok(), "{bad:?}");
        }
        // A receiver asked by a SYN with ECE alone (not a setup SYN) does not accept.
        let half = SynFlags {
            ece: true,
            cwr: false,
        };
        assert!(!syn_ack_flags(&config(EcnSetting::On, false), half).ece);
    }

    #[test]
    fn a_syn_sent_again_does_not_ask() {
        // RFC 3168 §6.1.1.1, Linux tcp_ecn_fallback = 1: the retransmitted SYN carries
        // neither flag. If the first SYN was lost, the receiver answers the second
        // without ECE and ECN is off; if the first reached it (its SYN-ACK was lost),
        // its answer to the second still has ECE and ECN stays on.
        let mut s = SenderEcn::new(config(EcnSetting::On, false));
        s.syn(true);
        assert_eq!(s.syn(false), SynFlags::default());
        let mut lost_first = s;
        lost_first.on_syn_ack(syn_ack_flags(
            &config(EcnSetting::Accept, false),
            SynFlags::default(),
        ));
        assert!(!lost_first.ok());
        s.on_syn_ack(SynFlags {
            ece: true,
            cwr: false,
        });
        assert!(s.ok());
    }

    #[test]
    fn new_data_is_ect0_and_carries_the_queued_cwr_once() {
        // RFC 3168 §6.1.2, §6.1.5; Linux tcp_ecn_send.
        let mut s = agreed_sender(false);
        assert_eq!(s.marks(false), (Ecn::Ect0, false));
        s.queue_cwr();
        // A retransmission is Not-ECT and does not take the CWR...
        assert_eq!(s.marks(true), (Ecn::NotEct, false));
        // ...the next new segment does, once.
        assert_eq!(s.marks(false), (Ecn::Ect0, true));
        assert_eq!(s.marks(false), (Ecn::Ect0, false));
        // Withdrawn (an undo restored ssthresh): no CWR.
        s.queue_cwr();
        s.withdraw_cwr();
        assert_eq!(s.marks(false), (Ecn::Ect0, false));
    }

    #[test]
    fn without_agreement_nothing_is_marked_and_a_needy_controller_marks_all() {
        // DCTCP asking a receiver set to 0 (no controller of its own that needs ECN):
        // refused, and nothing is marked, CWR included.
        let mut off = SenderEcn::new(config(EcnSetting::Accept, true));
        let syn = off.syn(true);
        off.on_syn_ack(syn_ack_flags(&config(EcnSetting::Off, false), syn));
        off.queue_cwr();
        assert_eq!(off.marks(false), (Ecn::NotEct, false));
        assert_eq!(off.marks(true), (Ecn::NotEct, false));
        // Agreed, DCTCP's flag (Linux leaves the socket's ECT set for such a
        // controller) marks retransmissions ECT(0) too.
        assert_eq!(agreed_sender(true).marks(true), (Ecn::Ect0, false));
    }

    #[test]
    fn cwr_holds_until_data_above_its_start_is_acknowledged() {
        // Entered with 20 000 bytes sent: an ACK of 20 000 keeps it (and a timeout
        // there reduces again: the window is new); 20 001 ends it.
        let mut s = agreed_sender(false);
        s.enter_cwr(20_000);
        assert!(!s.cwr_over(19_000) && s.cwr_covers(19_000));
        assert!(!s.cwr_over(20_000) && !s.cwr_covers(20_000));
        assert!(s.cwr_over(20_001));
        // Entering CWR queues the CWR flag for the next new segment.
        assert_eq!(s.marks(false), (Ecn::Ect0, true));
    }
}

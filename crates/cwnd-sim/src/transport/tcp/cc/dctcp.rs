//! DCTCP: RFC 8257 (Bensley, Thaler, Balasubramanian, Eggert, Judd 2017; Alizadeh et
//! al., SIGCOMM 2010), in Linux's fixed point (`net/ipv4/tcp_dctcp.c`).
//!
//! ```text
//! per ACK (§3.3):            BytesAcked += SEG.ACK − SND.UNA;  if ECE: BytesMarked += same
//! once per window, when SND.UNA ≥ WindowEnd:
//!     α ← (1 − g)·α + g·BytesMarked/BytesAcked,  g = 1/16;  WindowEnd ← SND.NXT
//! on an echo, once per window (CWR): ssthresh = cwnd·(1 − α/2)
//! on a loss (fast retransmit, timeout):  ssthresh = cwnd/2           (§3.5)
//! growth: Reno's
//! ```
//! α is kept as Linux keeps it, in 1/1024 (`DCTCP_MAX_ALPHA` = 1024 is α = 1) with g
//! = 2^−`shift_g`: each window `α −= max(α >> shift_g, α if that is 0)`
//! (`min_not_zero`), then `α = min(α + (BytesMarked << (10 − shift_g)) / BytesAcked,
//! 1024)` when anything was marked; the reduction is `ssthresh = max(cwnd −
//! (cwnd·α >> 11), 2)` (`dctcp_ssthresh`). α starts at 1 (`dctcp_alpha_on_init`,
//! RFC 8257 §3.3), so the first echo halves the window. The window ends when
//! SND.UNA reaches WindowEnd (Linux's `!before(snd_una, next_seq)`; the RFC's
//! step 4 waits for one byte more), and the first window ends with the first ACK
//! (WindowEnd starts at the SND.NXT of an idle connection).
//!
//! A loss halves cwnd whatever α (`dctcp_react_to_loss`, since Linux 5.1's "tcp:
//! Ensure DCTCP reacts to losses", 2019; RFC 8257 §3.5: "in the same way as
//! conventional TCP"): the sender tells this controller that a reduction is an
//! echo's (`EcnEvent::EnterCwr`), any other is a loss's. Linux
//! before 5.1 took the α reduction for losses too and could set α to 1 on a timeout
//! (`dctcp_clamp_alpha_on_loss`, off by default). A loss a tail loss probe repaired
//! enters and completes CWR in Linux (`tcp_process_tlp_ack`), so it takes the α
//! reduction, as here. A loss found while CWR is under way halves the window then
//! (`EcnEvent::LossInCwr`, Linux's `dctcp_state` on entering Recovery from CWR).
//!
//! Bytes, as RFC 8257 counts them (SEG.ACK − SND.UNA, SACK ignored, a duplicate ACK
//! 0): Linux's first version (3.18) counted bytes too, a duplicate ACK as one MSS;
//! its current one counts segments delivered, SACKed ones included (`tp->delivered`,
//! `delivered_ce`). Without losses and with full-sized segments the three agree.
//! Without ECN agreed, DCTCP gets no echo and is Reno with ssthresh = cwnd/2 (Linux
//! switches such a connection to `dctcp_reno`).
//!
//! The receiver's half (RFC 8257 §3.2, ECE exactly per segment) is the receiver
//! agent's, for a flow whose receiver needs ECN (`ecn_echo.rs`); and a DCTCP sender
//! marks its retransmissions ECT(0) too (`ecn.rs`).

use serde::Deserialize;

use super::{CongestionControl, EcnEvent, Reno};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

/// α = 1 in Linux's fixed point (`DCTCP_MAX_ALPHA`).
const MAX_ALPHA: u32 = 1024;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// g = 2^−shift_g (Linux module parameter `dctcp_shift_g`, 0 to 10; 4: g = 1/16).
    pub shift_g: u32,
    /// α at the start, in 1/1024 (Linux `dctcp_alpha_on_init`, 0 to 1024).
    pub alpha_on_init: u32,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            shift_g: 4,
            alpha_on_init: MAX_ALPHA,
        }
    }
}

impl DctcpConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.shift_g > 10 {
            return Err((
                "shift_g".into(),
                format!("{} is not in 0 to 10", self.shift_g),
            ));
        }
        if self.alpha_on_init > MAX_ALPHA {
            let msg = format!("{} is not in 0 to {MAX_ALPHA}", self.alpha_on_init);
            return Err(("alpha_on_init".into(), msg));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    shift_g: u32,
    /// α in 1/1024.
    alpha: u32,
    /// The current observation window ends when SND.UNA reaches this.
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    /// cwnd when ssthresh was last asked, for undo (Linux `loss_cwnd`).
    loss_cwnd: u32,
    /// The next `ssthresh` is an echo's reduction, not a loss's.
    echo_reduction: bool,
}

impl Dctcp {
    pub fn new(cfg: DctcpConfig) -> Self {
        Dctcp {
            shift_g: cfg.shift_g,
            alpha: cfg.alpha_on_init,
            window_end: 0,
            bytes_acked: 0,
            bytes_marked: 0,
            loss_cwnd: 0,
            echo_reduction: false,
        }
    }

    /// RFC 8257 §3.3 steps 1–8 (Linux `dctcp_update_alpha`) on an ACK that
    /// acknowledged `acked_bytes`, echoing CE or not, with `snd_una` after it and
    /// `sent` one past the highest byte sent.
    fn on_ack(&mut self, acked_bytes: u64, ece: bool, snd_una: u64, sent: u64) {
        self.bytes_acked += acked_bytes;
        if ece {
            self.bytes_marked += acked_bytes;
        }
        if snd_una < self.window_end {
            return;
        }
        let decay = self.alpha >> self.shift_g;
        self.alpha -= if decay == 0 { self.alpha } else { decay };
        if self.bytes_marked > 0 {
            let scaled = (self.bytes_marked << (10 - self.shift_g)) / self.bytes_acked.max(1);
            self.alpha = (u64::from(self.alpha) + scaled).min(u64::from(MAX_ALPHA)) as u32;
        }
        self.window_end = sent;
        self.bytes_acked = 0;
        self.bytes_marked = 0;
    }

    /// α as a fraction.
    fn alpha(&self) -> f64 {
        f64::from(self.alpha) / f64::from(MAX_ALPHA)
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    /// An echo's: cwnd − cwnd·α/2 (`dctcp_ssthresh`); a loss's: cwnd/2
    /// (`dctcp_react_to_loss`).
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        self.loss_cwnd = tcb.cwnd;
        let ssthresh = if std::mem::take(&mut self.echo_reduction) {
            let cut = (u64::from(tcb.cwnd) * u64::from(self.alpha)) >> 11;
            tcb.cwnd - cut as u32
        } else {
            tcb.cwnd >> 1
        };
        ssthresh.max(2)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        Reno.cong_avoid(tcb, now, acked);
    }

    /// Linux `dctcp_cwnd_undo`.
    fn undo_cwnd(&mut self, tcb: &Tcb) -> u32 {
        tcb.cwnd.max(self.loss_cwnd)
    }

    fn ecn_event(&mut self, tcb: &mut Tcb, _now: SimTime, event: EcnEvent) {
        match event {
            EcnEvent::Ack {
                acked_bytes,
                ece,
                sent,
            } => self.on_ack(acked_bytes, ece, tcb.snd_una, sent),
            EcnEvent::EnterCwr => self.echo_reduction = true,
            EcnEvent::LossInCwr => {
                self.loss_cwnd = tcb.cwnd;
                tcb.ssthresh = (tcb.cwnd >> 1).max(2);
            }
        }
    }

    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        out.push(("alpha", self.alpha()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn dctcp(alpha_on_init: u32) -> Dctcp {
        Dctcp::new(DctcpConfig {
            shift_g: 4,
            alpha_on_init,
        })
    }

    /// One observation window of `segments` segments, each acknowledged alone,
    /// `marked` of them with ECE; `una` is SND.UNA before it. The sender keeps 10
    /// segments ahead, so the window that follows ends 10 segments after this one.
    /// Returns SND.UNA after.
    fn window(d: &mut Dctcp, una: u64, segments: u64, marked: u64) -> u64 {
        let mut t = Tcb::new(MSS as u32, 10);
        let end = una + segments * MSS;
        for k in 1..=segments {
            t.snd_una = una + k * MSS;
            let event = EcnEvent::Ack {
                acked_bytes: MSS,
                ece: k <= marked,
                sent: end + 10 * MSS,
            };
            d.ecn_event(&mut t, SimTime::ZERO, event);
        }
        end
    }

    #[test]
    fn alpha_after_windows_marked_1_0_and_one_half() {
        // Windows of 10 segments; each ends with the ACK that reaches WindowEnd. The
        // first ACK ends the first window (WindowEnd starts at 0), so an opening
        // window of one segment, marked, comes first.
        // From α = 1024 (α = 1):
        //   F = 1:   1024 − (1024 >> 4 = 64) = 960; + (1 << 6) = 64 → 1024 (min 1024)
        //   F = 0:   1024 − 64 = 960                          (15/16 = 0.9375)
        //   F = 1/2: 960 − (960 >> 4 = 60) = 900; + (5000 << 6)/10 000 = 32 → 932
        //            (0.9375² + 0.5/16 = 0.91015625 = 932/1024, exact)
        let mut d = dctcp(1024);
        let una = window(&mut d, 0, 1, 1);
        assert_eq!(d.alpha, 1024);
        let una = window(&mut d, una, 10, 10);
        assert_eq!(d.alpha, 1024);
        let una = window(&mut d, una, 10, 0);
        assert_eq!(d.alpha, 960);
        window(&mut d, una, 10, 5);
        assert_eq!(d.alpha, 932);
        // From α = 0, where the fixed point shows:
        //   F = 1:   0 − min_not_zero(0, 0) = 0; + 64 → 64       (1/16 = 0.0625 = 64/1024)
        //   F = 0:   64 − 4 = 60                                  (0.05859375 = 60/1024)
        //   F = 1/2: 60 − (60 >> 4 = 3) = 57; + 32 → 89
        //            (exactly, 0.05859375 · 15/16 + 1/32 = 0.0861816… = 88.25/1024:
        //            the shift's truncation decays α slower)
        let mut z = dctcp(0);
        let una = window(&mut z, 0, 1, 1);
        assert_eq!(z.alpha, 64);
        let una = window(&mut z, una, 10, 0);
        assert_eq!(z.alpha, 60);
        window(&mut z, una, 10, 5);
        assert_eq!(z.alpha, 89);
    }

    #[test]
    fn below_sixteen_alpha_decays_to_zero_at_once() {
        // α = 15: 15 >> 4 = 0, so min_not_zero(15, 0) = 15 is taken off: α = 0.
        let mut d = dctcp(15);
        window(&mut d, 0, 1, 0);
        assert_eq!(d.alpha, 0);
    }

    #[test]
    fn the_window_waits_for_snd_una_to_reach_its_end() {
        // After the opening window, WindowEnd = SND.NXT = 20 000 (the `sent` given).
        // ACKs up to 19 000 change nothing; the ACK of 20 000 ends the window.
        let mut d = dctcp(1024);
        let mut t = Tcb::new(MSS as u32, 10);
        t.snd_una = 1000;
        let ack = |ece| EcnEvent::Ack {
            acked_bytes: 1000,
            ece,
            sent: 20_000,
        };
        d.ecn_event(&mut t, SimTime::ZERO, ack(false));
        assert_eq!((d.alpha, d.window_end), (960, 20_000));
        t.snd_una = 19_000;
        d.ecn_event(&mut t, SimTime::ZERO, ack(true));
        assert_eq!((d.alpha, d.bytes_marked), (960, 1000));
        t.snd_una = 20_000;
        d.ecn_event(&mut t, SimTime::ZERO, ack(false));
        // 960 − 60 = 900, + (1000 << 6) / 2000 = 32 → 932.
        assert_eq!((d.alpha, d.bytes_acked), (932, 0));
    }

    #[test]
    fn an_echo_cuts_by_half_alpha_and_a_loss_by_half() {
        // cwnd 100, α = 932: ssthresh = 100 − (100·932 >> 11) = 100 − 45 = 55
        // (cwnd·(1 − 0.91/2) = 54.5 in real numbers). A loss: 100 >> 1 = 50.
        let mut d = dctcp(932);
        let mut t = Tcb::new(MSS as u32, 100);
        d.ecn_event(&mut t, SimTime::ZERO, EcnEvent::EnterCwr);
        assert_eq!(d.ssthresh(&t, SimTime::ZERO), 55);
        assert_eq!(d.ssthresh(&t, SimTime::ZERO), 50);
        // The floor of 2: cwnd 3, α = 1: 3 − (3·1024 >> 11 = 1) = 2; cwnd 2 → 2 − 1 = 1
        // → 2.
        let mut full = dctcp(1024);
        t.cwnd = 2;
        full.ecn_event(&mut t, SimTime::ZERO, EcnEvent::EnterCwr);
        assert_eq!(full.ssthresh(&t, SimTime::ZERO), 2);
    }

    #[test]
    fn a_loss_in_cwr_halves_the_window_then_and_undo_restores_it() {
        // CWR cut cwnd 100 → ssthresh 55; PRR brought cwnd to 70 when a loss is found:
        // ssthresh = 70 >> 1 = 35 (`dctcp_react_to_loss` from `dctcp_state`). Undo
        // gives back max(cwnd, loss_cwnd = 70).
        let mut d = dctcp(932);
        let mut t = Tcb::new(MSS as u32, 100);
        d.ecn_event(&mut t, SimTime::ZERO, EcnEvent::EnterCwr);
        t.ssthresh = d.ssthresh(&t, SimTime::ZERO);
        t.cwnd = 70;
        d.ecn_event(&mut t, SimTime::ZERO, EcnEvent::LossInCwr);
        assert_eq!(t.ssthresh, 35);
        t.cwnd = 35;
        assert_eq!(d.undo_cwnd(&t), 70);
    }

    #[test]
    fn growth_is_renos() {
        // Congestion avoidance at cwnd 10: one segment per 10 acknowledged.
        let mut d = dctcp(1024);
        let mut t = Tcb::new(MSS as u32, 10);
        t.ssthresh = 5;
        for _ in 0..10 {
            d.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 11);
    }

    #[test]
    fn parameters_outside_linuxs_ranges_are_refused() {
        let bad_g = DctcpConfig {
            shift_g: 11,
            ..DctcpConfig::default()
        };
        assert_eq!(bad_g.check().unwrap_err().0, "shift_g");
        let bad_alpha = DctcpConfig {
            alpha_on_init: 1025,
            ..DctcpConfig::default()
        };
        let err = bad_alpha.check().unwrap_err();
        assert_eq!(
            err,
            ("alpha_on_init".into(), "1025 is not in 0 to 1024".into())
        );
    }
}

//! Gilbert–Elliott bursty loss: a two-state Markov chain (Gilbert 1960, Elliott
//! 1963). In the Good state a packet is lost with probability `loss_good`, in the Bad
//! state with `loss_bad`. Before each packet the chain moves Good → Bad with
//! probability `p_gb` and Bad → Good with `p_bg`.
//!
//! ```text
//! mean sojourn in Bad (packets) = 1 / p_bg;   in Good = 1 / p_gb
//! stationary P(Bad) = p_gb / (p_gb + p_bg)
//! mean loss rate = P(Good)·loss_good + P(Bad)·loss_bad
//! ```
//! With loss_good = 0 and loss_bad = 1 (the Gilbert model) the mean loss-burst length
//! is 1/p_bg packets. The chain starts in Good and steps once per packet seen.

use rand::RngExt;

use super::{ImpairmentStage, PacketMeta, Verdict};
use crate::rng::RngStream;

pub struct GilbertElliott {
    p_gb: f64,
    p_bg: f64,
    loss_good: f64,
    loss_bad: f64,
    bad: bool,
    rng: RngStream,
}

impl GilbertElliott {
    pub fn new(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, rng: RngStream) -> Self {
        GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
            bad: false,
            rng,
        }
    }
}

impl ImpairmentStage for GilbertElliott {
    fn apply(&mut self, _packet: &PacketMeta) -> Verdict {
        let flip = if self.bad { self.p_bg } else { self.p_gb };
        if self.rng.random::<f64>() < flip {
            self.bad = !self.bad;
        }
        let loss = if self.bad {
            self.loss_bad
        } else {
            self.loss_good
        };
        if self.rng.random::<f64>() < loss {
            Verdict::Drop
        } else {
            Verdict::PASS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::data_meta as meta;
    use super::*;
    use crate::rng::stream;

    #[test]
    fn burst_lengths_have_mean_one_over_p_bg_and_the_loss_rate_is_stationary() {
        // Gilbert model, p_gb = 0.01, p_bg = 0.25: mean burst 4 packets, loss rate
        // 0.01/0.26 = 3.85 %. 2·10⁶ packets: about 19 000 bursts. The burst length is
        // geometric with sd √(1 − p)/p = 3.46, so the mean's standard error is
        // 3.46/√19000 = 0.025; allow 5 of them (0.125). The loss rate's relative error
        // is about √(burst variance…) — allow 3 %.
        let mut g = GilbertElliott::new(0.01, 0.25, 0.0, 1.0, stream(9, "ge"));
        let (mut lost, mut bursts, mut run) = (0u64, 0u64, 0u64);
        let n = 2_000_000;
        for _ in 0..n {
            if g.apply(&meta()) == Verdict::Drop {
                lost += 1;
                run += 1;
            } else if run > 0 {
                bursts += 1;
                run = 0;
            }
        }
        let mean_burst = lost as f64 / bursts as f64;
        assert!((mean_burst - 4.0).abs() < 0.125, "mean burst {mean_burst}");
        let rate = lost as f64 / n as f64;
        assert!(
            (rate / (0.01 / 0.26) - 1.0).abs() < 0.03,
            "loss rate {rate}"
        );
    }
}

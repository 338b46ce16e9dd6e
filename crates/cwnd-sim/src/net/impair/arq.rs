//! Link-layer ARQ delay: what a reliable MAC (802.11, 802.16 ARQ) does to the packets
//! it has to retransmit. A fraction Pv of packets is delayed by D — fixed, or drawn
//! from an exponential distribution with mean D (the `arq` study's "random long
//! delays") — and, optionally, lost anyway with a residual probability (the retry
//! limit was reached).
//!
//! In order (the default, `in_order = true`): the link layer delivers in sequence,
//! so the transmitter is busy for the extra time and the packets behind wait
//! (head-of-line blocking). Out of order: only the delayed packet is late.
//! Pv may follow a schedule of (time, Pv) steps (the study changes it every 10 s).

use rand::RngExt;

use super::reorder::DelayDistribution;
use super::{ImpairmentStage, PacketMeta, Schedule, Verdict};
use crate::rng::RngStream;

pub struct ArqDelay {
    /// Fraction of packets delayed, possibly stepping in time.
    pub pv: Schedule,
    pub delay: DelayDistribution,
    pub in_order: bool,
    pub residual_loss: f64,
    pub rng: RngStream,
}

impl ImpairmentStage for ArqDelay {
    fn apply(&mut self, packet: &PacketMeta) -> Verdict {
        if self.rng.random::<f64>() >= self.pv.at(packet.sent) {
            return Verdict::PASS;
        }
        if self.residual_loss > 0.0 && self.rng.random::<f64>() < self.residual_loss {
            return Verdict::Drop;
        }
        Verdict::Pass {
            extra: self.delay.draw(&mut self.rng),
            hold: self.in_order,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::data_meta as meta;
    use super::*;
    use crate::rng::stream;
    use crate::time::SimTime;

    #[test]
    fn a_fraction_pv_is_delayed_by_d_on_average() {
        // Pv = 0.2, exponential D with mean 1 s: 100 000 packets → about 20 000
        // delayed (binomial sd 126), mean delay 1 s (standard error 7 ms).
        let mut arq = ArqDelay {
            pv: Schedule::constant(0.2),
            delay: DelayDistribution::Exponential {
                mean: SimTime::from_secs(1),
            },
            in_order: true,
            residual_loss: 0.0,
            rng: stream(5, "arq"),
        };
        let (mut n, mut total) = (0u64, 0.0);
        for _ in 0..100_000 {
            if let Verdict::Pass { extra, hold } = arq.apply(&meta()) {
                if extra > SimTime::ZERO {
                    assert!(hold);
                    n += 1;
                    total += extra.as_secs_f64();
                }
            }
        }
        assert!((n as f64 - 20_000.0).abs() < 630.0, "{n}");
        assert!(
            (total / n as f64 - 1.0).abs() < 0.035,
            "{}",
            total / n as f64
        );
    }
}

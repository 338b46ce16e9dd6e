//! Bernoulli (independent, identically distributed) packet loss.
//!
//! Each packet the stage sees is lost with probability `p`, independently of all
//! others. This is the random-loss model of the Mathis et al. (1997) and Padhye et
//! al. (1998) analyses and of ns-2's `ErrorModel` with `unit_ pkt`. The probability
//! may follow a schedule of (time, p) steps (the `arq` study changes it every 1000 s):
//! a packet uses the step in force when its transmission ends.

use rand::RngExt;

use super::{ImpairmentStage, PacketMeta, Schedule, Verdict};
use crate::rng::RngStream;

pub struct BernoulliLoss {
    p: Schedule,
    rng: RngStream,
}

impl BernoulliLoss {
    /// `p` must lie in [0, 1]; the scenario validator guarantees it.
    pub fn new(p: f64, rng: RngStream) -> Self {
        Self::scheduled(Schedule::constant(p), rng)
    }

    /// A probability that steps at given times.
    pub fn scheduled(p: Schedule, rng: RngStream) -> Self {
        BernoulliLoss { p, rng }
    }
}

impl ImpairmentStage for BernoulliLoss {
    fn apply(&mut self, packet: &PacketMeta) -> Verdict {
        let p = self.p.at(packet.sent);
        // random::<f64>() is uniform on [0, 1): p = 0 never drops, p = 1 always does.
        if self.rng.random::<f64>() < p {
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
    use crate::time::SimTime;

    #[test]
    fn loss_rate_converges_to_p_within_binomial_bound() {
        let n = 200_000;
        for p in [0.005, 0.01, 0.1] {
            let mut stage = BernoulliLoss::new(p, stream(42, "test"));
            let drops = (0..n)
                .filter(|_| stage.apply(&meta()) == Verdict::Drop)
                .count() as f64;
            // 4.5 standard deviations of Binomial(n, p): fails with probability < 1e-5.
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (drops - n as f64 * p).abs() < 4.5 * sd,
                "p={p}: {drops} drops of {n}"
            );
        }
    }

    #[test]
    fn a_schedule_changes_p_at_its_steps() {
        let mut stage = BernoulliLoss::scheduled(
            Schedule::new(vec![(SimTime::ZERO, 0.0), (SimTime::from_secs(10), 1.0)]),
            stream(1, "s"),
        );
        let at = |s: u64| PacketMeta {
            sent: SimTime::from_secs(s),
            ..meta()
        };
        assert_eq!(stage.apply(&at(9)), Verdict::PASS);
        assert_eq!(stage.apply(&at(10)), Verdict::Drop);
    }

    #[test]
    fn extremes_are_exact() {
        let mut never = BernoulliLoss::new(0.0, stream(1, "a"));
        let mut always = BernoulliLoss::new(1.0, stream(1, "b"));
        for _ in 0..1000 {
            assert_eq!(never.apply(&meta()), Verdict::PASS);
            assert_eq!(always.apply(&meta()), Verdict::Drop);
        }
    }
}

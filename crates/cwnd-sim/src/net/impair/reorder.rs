//! Reordering: a packet is held back so that later packets overtake it.
//!
//! Two forms:
//! * random: with probability `r` a packet gets an extra delay drawn from a
//!   distribution (constant, uniform, normal truncated at zero, exponential);
//! * exact: the N-th packet (counted from 1, per flow, among those the stage sees) is
//!   delivered after the k packets of its flow that follow it on this link — the link
//!   holds it and releases it 1 ns after the k-th later packet arrives. (If the flow
//!   sends fewer than k more packets, it stays held: a sender retransmits it.)
//!
//! The extra delay does not hold the line: the packets behind go on (the link's
//! in-flight list keeps arrival order).

use std::collections::HashMap;

use rand::RngExt;

use super::{ImpairmentStage, PacketMeta, Verdict};
use crate::packet::FlowId;
use crate::rng::RngStream;
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub enum DelayDistribution {
    Constant(SimTime),
    Uniform {
        min: SimTime,
        max: SimTime,
    },
    /// Normal, negative draws cut to zero.
    Normal {
        mean: SimTime,
        sd: SimTime,
    },
    Exponential {
        mean: SimTime,
    },
    /// One of `values`, value i with probability `cumulative[i] − cumulative[i − 1]`
    /// (`cumulative` rises to 1).
    Empirical {
        values: Vec<SimTime>,
        cumulative: Vec<f64>,
    },
}

impl DelayDistribution {
    pub fn draw(&self, rng: &mut RngStream) -> SimTime {
        match *self {
            DelayDistribution::Constant(d) => d,
            DelayDistribution::Uniform { min, max } => {
                SimTime(rng.random_range(min.as_nanos()..=max.as_nanos()))
            }
            DelayDistribution::Normal { mean, sd } => {
                // Box–Muller: two uniforms give one standard normal.
                let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                SimTime::from_secs_f64(mean.as_secs_f64() + sd.as_secs_f64() * z)
            }
            DelayDistribution::Exponential { mean } => {
                let u: f64 = rng.random::<f64>();
                SimTime::from_secs_f64(-mean.as_secs_f64() * (1.0 - u).ln())
            }
            DelayDistribution::Empirical {
                ref values,
                ref cumulative,
            } => {
                let u: f64 = rng.random();
                let i = cumulative.partition_point(|&c| c <= u);
                values[i.min(values.len() - 1)]
            }
        }
    }

    /// The table distribution of `values` with `weights` (equal when `None`).
    pub fn empirical(values: Vec<SimTime>, weights: Option<&[f64]>) -> DelayDistribution {
        let w: Vec<f64> = weights.map_or_else(|| vec![1.0; values.len()], <[f64]>::to_vec);
        let total: f64 = w.iter().sum();
        let cumulative = w
            .iter()
            .scan(0.0, |acc, x| {
                *acc += x / total;
                Some(*acc)
            })
            .collect();
        DelayDistribution::Empirical { values, cumulative }
    }
}

pub enum Reorder {
    Random {
        r: f64,
        delay: DelayDistribution,
        rng: RngStream,
    },
    Exact {
        packet: u64,
        positions: u64,
        seen: HashMap<FlowId, u64>,
    },
}

impl ImpairmentStage for Reorder {
    fn apply(&mut self, packet: &PacketMeta) -> Verdict {
        match self {
            Reorder::Random { r, delay, rng } => {
                if rng.random::<f64>() < *r {
                    Verdict::delay(delay.draw(rng))
                } else {
                    Verdict::PASS
                }
            }
            Reorder::Exact {
                packet: n,
                positions,
                seen,
            } => {
                let k = seen.entry(packet.flow).or_insert(0);
                *k += 1;
                if *k == *n {
                    Verdict::After(*positions)
                } else {
                    Verdict::PASS
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn distributions_have_their_means() {
        let mut rng = stream(3, "d");
        let n = 100_000;
        let mean = |d: DelayDistribution, rng: &mut RngStream| {
            (0..n).map(|_| d.draw(rng).as_secs_f64()).sum::<f64>() / n as f64
        };
        let ms = SimTime::from_millis;
        // Exponential mean 30 ms: sd 30 ms, standard error 0.095 ms.
        let e = mean(DelayDistribution::Exponential { mean: ms(30) }, &mut rng);
        assert!((e - 0.030).abs() < 0.0005, "{e}");
        // Uniform 10..50 ms: mean 30 ms, sd 11.5 ms.
        let u = mean(
            DelayDistribution::Uniform {
                min: ms(10),
                max: ms(50),
            },
            &mut rng,
        );
        assert!((u - 0.030).abs() < 0.0002, "{u}");
        // Normal 30 ± 15 ms truncated at 0: P(z < −2) = 2.3 % of draws become 0, which
        // raises the mean by E[−X; X < 0] = 15·φ(2) − 30·Φ(−2) = 0.127 ms.
        let g = mean(
            DelayDistribution::Normal {
                mean: ms(30),
                sd: ms(15),
            },
            &mut rng,
        );
        assert!((g - 0.030127).abs() < 0.0003, "{g}");
        assert_eq!(DelayDistribution::Constant(ms(7)).draw(&mut rng), ms(7));
        // Table {10, 20, 100} ms with weights 1, 2, 1: mean (10 + 40 + 100)/4 = 37.5 ms,
        // sd √((100 + 2·400 + 10000)/4 − 37.5²) = 36.4 ms: standard error 0.115 ms.
        let table =
            DelayDistribution::empirical(vec![ms(10), ms(20), ms(100)], Some(&[1.0, 2.0, 1.0]));
        let t = mean(table.clone(), &mut rng);
        assert!((t - 0.0375).abs() < 0.0005, "{t}");
        let draws: Vec<SimTime> = (0..1000).map(|_| table.draw(&mut rng)).collect();
        assert!(draws.iter().all(|d| [ms(10), ms(20), ms(100)].contains(d)));
    }
}

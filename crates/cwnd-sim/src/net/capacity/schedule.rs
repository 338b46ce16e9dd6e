//! A rate that steps at given times: `[(0, r₀), (t₁, r₁), …]`, each rate holding until
//! the next step and the last one for ever. A packet's serialization integrates the
//! rate over time — the bits of a packet sent while a step happens go at the rates
//! before and after it — so a schedule of one step is exactly the fixed rate
//! (`SimTime::transmission`: ⌈bits × 10⁹ / rate⌉ ns). A rate of 0 holds the packet
//! being sent (and the queue) until a later step; a last step of 0 sends nothing more.

use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateSchedule {
    /// (from, bits per second), from 0 in increasing time.
    steps: Vec<(SimTime, u64)>,
}

impl RateSchedule {
    /// The schedule, or the first step out of order as (`schedule[i]`, message).
    pub fn new(steps: Vec<(SimTime, u64)>) -> Result<Self, (String, String)> {
        match steps.first() {
            None => {
                return Err((
                    "schedule".into(),
                    "is empty; give at least one step [time, rate], the first at 0 s".into(),
                ))
            }
            Some(&(t, _)) if t != SimTime::ZERO => {
                return Err((
                    "schedule[0]".into(),
                    format!("starts at {t}; the first step must be at 0 s"),
                ))
            }
            Some(_) => {}
        }
        for (i, pair) in steps.windows(2).enumerate() {
            if pair[1].0 <= pair[0].0 {
                return Err((
                    format!("schedule[{}]", i + 1),
                    format!(
                        "at {} is not after the step before ({}); steps must be in increasing time",
                        pair[1].0, pair[0].0
                    ),
                ));
            }
        }
        Ok(RateSchedule { steps })
    }

    /// When the last bit of `bytes` leaves if the first leaves at `start`
    /// (`SimTime::MAX` if the rate stays 0 from some point on).
    pub fn finish(&self, start: SimTime, bytes: u64) -> SimTime {
        const NS_PER_S: u128 = 1_000_000_000;
        // Bit-nanoseconds to serve: a rate of r b/s serves r of them per ns.
        let mut need = bytes as u128 * 8 * NS_PER_S;
        let mut k = self.steps.partition_point(|&(t, _)| t <= start) - 1;
        let mut t = start;
        loop {
            let rate = self.steps[k].1 as u128;
            let Some(&(next, _)) = self.steps.get(k + 1) else {
                return if rate == 0 {
                    SimTime::MAX
                } else {
                    end(t, need, rate)
                };
            };
            let capacity = rate * (next - t).as_nanos() as u128;
            if rate > 0 && capacity >= need {
                return end(t, need, rate);
            }
            need -= capacity;
            t = next;
            k += 1;
        }
    }
}

/// t + ⌈need / rate⌉ ns.
fn end(t: SimTime, need: u128, rate: u128) -> SimTime {
    let ns = need.div_ceil(rate).min(u64::MAX as u128) as u64;
    SimTime(t.as_nanos().saturating_add(ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> SimTime {
        SimTime::from_millis(t)
    }

    #[test]
    fn one_step_is_the_fixed_rate() {
        // 1514 B at 10 Mb/s: 1514·8/10⁷ s = 1 211 200 ns; at 3 Mb/s ⌈4 037 333.3⌉ ns.
        let s = RateSchedule::new(vec![(SimTime::ZERO, 10_000_000)]).unwrap();
        assert_eq!(s.finish(ms(5), 1514), ms(5) + SimTime(1_211_200));
        let s = RateSchedule::new(vec![(SimTime::ZERO, 3_000_000)]).unwrap();
        assert_eq!(s.finish(SimTime::ZERO, 1514), SimTime(4_037_334));
        assert_eq!(
            s.finish(SimTime::ZERO, 1514),
            SimTime::transmission(1514, 3_000_000)
        );
    }

    #[test]
    fn a_step_during_a_packet_changes_the_rest_of_it() {
        // 8 Mb/s until 1 ms, then 2 Mb/s. 1500 B = 12 000 bits from 0.5 ms: 0.5 ms at
        // 8 Mb/s sends 4000 bits; the other 8000 at 2 Mb/s take 4 ms: end 5 ms.
        let s = RateSchedule::new(vec![(SimTime::ZERO, 8_000_000), (ms(1), 2_000_000)]).unwrap();
        assert_eq!(s.finish(SimTime::from_micros(500), 1500), ms(5));
        // Started after the step: 12 000 bits at 2 Mb/s = 6 ms.
        assert_eq!(s.finish(ms(2), 1500), ms(8));
    }

    #[test]
    fn a_zero_rate_holds_the_packet_until_the_next_step() {
        // 0 from 1 ms to 3 ms: 1500 B at 8 Mb/s from 0.5 ms sends 4000 bits by 1 ms,
        // waits, and sends the last 8000 from 3 ms: 1 ms more → 4 ms. A last step of 0
        // never finishes.
        let s = RateSchedule::new(vec![
            (SimTime::ZERO, 8_000_000),
            (ms(1), 0),
            (ms(3), 8_000_000),
        ])
        .unwrap();
        assert_eq!(s.finish(SimTime::from_micros(500), 1500), ms(4));
        let dead = RateSchedule::new(vec![(SimTime::ZERO, 8_000_000), (ms(1), 0)]).unwrap();
        assert_eq!(dead.finish(SimTime::from_micros(500), 1500), SimTime::MAX);
    }

    #[test]
    fn steps_must_start_at_zero_and_increase() {
        let err = |steps| RateSchedule::new(steps).unwrap_err().0;
        assert_eq!(err(vec![]), "schedule");
        assert_eq!(err(vec![(ms(1), 1)]), "schedule[0]");
        assert_eq!(
            err(vec![(SimTime::ZERO, 1), (ms(2), 1), (ms(2), 5)]),
            "schedule[2]"
        );
    }
}

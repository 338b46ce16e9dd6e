//! A value that steps at given times: (from, value) pairs sorted by time; before the
//! first step the first value applies. Used for loss probabilities and ARQ fractions
//! that a study changes during a run.

use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub struct Schedule(Vec<(SimTime, f64)>);

impl Schedule {
    /// `steps` must be non-empty and sorted by time (the validator checks both).
    pub fn new(steps: Vec<(SimTime, f64)>) -> Self {
        debug_assert!(!steps.is_empty());
        Schedule(steps)
    }

    pub fn constant(value: f64) -> Self {
        Schedule(vec![(SimTime::ZERO, value)])
    }

    /// The value in force at `t`.
    pub fn at(&self, t: SimTime) -> f64 {
        let i = self.0.partition_point(|&(from, _)| from <= t);
        self.0[i.saturating_sub(1)].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_take_effect_at_their_time() {
        let s = Schedule::new(vec![(SimTime(10), 0.5), (SimTime(20), 0.1)]);
        assert_eq!(s.at(SimTime(0)), 0.5); // before the first step
        assert_eq!(s.at(SimTime(19)), 0.5);
        assert_eq!(s.at(SimTime(20)), 0.1);
        assert_eq!(Schedule::constant(0.3).at(SimTime::MAX), 0.3);
    }
}

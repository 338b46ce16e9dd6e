//! A windowed maximum: the largest value seen over the last `window` units of time
//! (BBR's bottleneck-bandwidth filter, with time counted in round trips).
//!
//! Kathleen Nichols' algorithm as Linux implements it (`lib/win_minmax.c`,
//! `minmax_running_max`), cited by draft-cardwell-iccrg-bbr-congestion-control-00
//! §4.1.1.2: it keeps the best, second-best and third-best values from successive
//! sub-windows, so that when the best one ages out the next best in the window is
//! already known, in constant time and space.
//!
//! * A value at least the best, or a value when even the third choice has aged out,
//!   resets all three choices to it.
//! * Otherwise it replaces the second and third choices if at least the second, or
//!   the third if at least the third.
//! * Then the sub-window update: if the best is older than the window, the choices
//!   shift down (second → best, third → second, the new value → third), twice if the
//!   new best is also too old; if a quarter of the window has passed with the
//!   second choice still the best's sample, the new value becomes second and third;
//!   if half has passed with the third still the second's, it becomes third.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    time: u64,
    value: u64,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    /// The maximum over the window (0 before the first sample).
    pub fn get(&self) -> u64 {
        self.s[0].value
    }

    /// Adds `value` measured at `time` with a window of `window`; returns the max.
    pub fn update(&mut self, window: u64, time: u64, value: u64) -> u64 {
        let new = Sample { time, value };
        if value >= self.s[0].value || time - self.s[2].time > window {
            self.s = [new; 3];
            return value;
        }
        if value >= self.s[1].value {
            self.s[1] = new;
            self.s[2] = new;
        } else if value >= self.s[2].value {
            self.s[2] = new;
        }
        self.subwindow_update(window, new)
    }

    fn subwindow_update(&mut self, window: u64, new: Sample) -> u64 {
        let dt = new.time - self.s[0].time;
        if dt > window {
            self.s = [self.s[1], self.s[2], new];
            if new.time - self.s[0].time > window {
                self.s = [self.s[1], self.s[2], new];
            }
        } else if self.s[1].time == self.s[0].time && dt > window / 4 {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].time == self.s[1].time && dt > window / 2 {
            self.s[2] = new;
        }
        self.s[0].value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_value_ages_out_and_the_next_best_takes_over() {
        // Window 10. (0, 100) resets the filter. (1, 80) becomes second and third.
        // (5, 90) ≥ second → second and third; dt = 5 is not over 10/2 → no shift.
        // (11, 70): best is 11 old > 10 → shift: best (5, 90), second (5, 90),
        // third (11, 70); 11 − 5 = 6 ≤ 10, no second shift → 90.
        let mut f = WindowedMax::default();
        assert_eq!(f.update(10, 0, 100), 100);
        assert_eq!(f.update(10, 1, 80), 100);
        assert_eq!(f.update(10, 5, 90), 100);
        assert_eq!(f.update(10, 11, 70), 90);
        // (16, 60): best (5, 90) is 11 old → shift to best (5, 90) [the old second],
        // second (11, 70), third (16, 60); still 11 old → shift again: best (11, 70),
        // second (16, 60), third (16, 60) → 70.
        assert_eq!(f.update(10, 16, 60), 70);
    }

    #[test]
    fn a_new_max_or_an_empty_window_resets_the_filter() {
        let mut f = WindowedMax::default();
        f.update(10, 0, 100);
        assert_eq!(f.update(10, 3, 120), 120);
        // Nothing from the last 10 rounds left (third choice at 3, now 14): 50 wins.
        assert_eq!(f.update(10, 14, 50), 50);
    }

    #[test]
    fn quarter_and_half_windows_refresh_the_lower_choices() {
        // Window 8. (0, 100); (3, 50): 50 ≥ second (0, 100)? no; ≥ third? no. Then
        // dt = 3 > 8/4 with second still the best's sample → second = third = (3, 50).
        // (5, 40): dt = 5 > 8/2 with third == second → third = (5, 40).
        // (9, 30): best is 9 old → best (3, 50), second (5, 40), third (9, 30).
        let mut f = WindowedMax::default();
        f.update(8, 0, 100);
        f.update(8, 3, 50);
        f.update(8, 5, 40);
        assert_eq!(f.update(8, 9, 30), 50);
        // (12, 20): best 9 old → (5, 40), (9, 30), (12, 20).
        assert_eq!(f.update(8, 12, 20), 40);
    }
}

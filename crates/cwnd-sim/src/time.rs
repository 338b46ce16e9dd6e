//! Simulated time: an integer count of nanoseconds.
//!
//! Integer time makes runs bit-for-bit reproducible (no floating-point drift when
//! many small delays are added) and gives 584 years of range at 1 ns resolution.
//! The same type is used for instants and for durations, as ns-3's `Time` does;
//! arithmetic saturates instead of wrapping so that "never" (`SimTime::MAX`) stays
//! "never" when a delay is added to it.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A simulated instant or duration, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    /// "Never": timers that are not armed sit here.
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimTime::ZERO
        } else if s >= u64::MAX as f64 / 1e9 {
            SimTime::MAX
        } else {
            SimTime((s * 1e9).round() as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
    /// Multiplies a duration by an integer factor (RTO backoff), saturating.
    pub fn saturating_mul(self, k: u64) -> SimTime {
        SimTime(self.0.saturating_mul(k))
    }
    /// Time to serialize `bytes` at `bits_per_second`, rounded up to the next
    /// nanosecond so that a link is never faster than its nominal rate.
    /// Any packet (under 2.3 GB) takes the 64-bit division; only larger byte
    /// counts need 128-bit arithmetic, a library call several times slower.
    pub fn transmission(bytes: u64, bits_per_second: u64) -> SimTime {
        const NS_PER_BYTE_AT_1BPS: u64 = 8 * 1_000_000_000;
        if let Some(ns_bits) = bytes.checked_mul(NS_PER_BYTE_AT_1BPS) {
            return SimTime(ns_bits.div_ceil(bits_per_second));
        }
        let bits = bytes as u128 * NS_PER_BYTE_AT_1BPS as u128;
        let rate = bits_per_second as u128;
        SimTime(bits.div_ceil(rate).min(u64::MAX as u128) as u64)
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        *self = *self + rhs;
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    /// Saturates at zero: a duration is never negative.
    fn sub(self, rhs: SimTime) -> SimTime {
        self.saturating_sub(rhs)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transmission_time_is_exact_for_round_numbers() {
        // 1500 B at 10 Mb/s: 12000 bits / 1e7 b/s = 1.2 ms.
        assert_eq!(SimTime::transmission(1500, 10_000_000), SimTime(1_200_000));
        // 40 B at 1 Gb/s: 320 bits = 320 ns.
        assert_eq!(SimTime::transmission(40, 1_000_000_000), SimTime(320));
    }

    #[test]
    fn transmission_time_of_huge_byte_counts_takes_the_wide_path() {
        // 3e9 B at 1 Gb/s: 3e9·8e9 = 2.4e19 > u64::MAX (1.8e19), so 128-bit:
        // 2.4e19 / 1e9 = 2.4e10 ns = 24 s.
        assert_eq!(
            SimTime::transmission(3_000_000_000, 1_000_000_000),
            SimTime(24_000_000_000)
        );
        // The largest count on the 64-bit path, u64::MAX / 8e9 = 2 305 843 009 B,
        // at 3 b/s: ceil(2 305 843 009 · 8e9 / 3) = ceil(1.8446744072e19 / 3)
        // = 6 148 914 690 666 666 667 ns.
        assert_eq!(
            SimTime::transmission(2_305_843_009, 3),
            SimTime(6_148_914_690_666_666_667)
        );
    }

    #[test]
    fn transmission_time_rounds_up() {
        // 1 B at 3 b/s = 8/3 s = 2.666...s, rounded up to ...667 ns.
        assert_eq!(SimTime::transmission(1, 3), SimTime(2_666_666_667));
    }

    #[test]
    fn arithmetic_saturates() {
        assert_eq!(SimTime::MAX + SimTime(1), SimTime::MAX);
        assert_eq!(SimTime(1) - SimTime(5), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64(-1.0), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64(0.0025), SimTime::from_micros(2500));
    }
}

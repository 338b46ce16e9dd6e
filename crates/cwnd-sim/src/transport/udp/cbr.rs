//! Constant bit rate, as ns-2's `Application/Traffic/CBR` (tools/cbr_traffic.cc).
//!
//! The first datagram leaves at the start (`CBR_Traffic::start` sends at once),
//! then one every interval I = packet size × 8 / rate. Without jitter datagram k
//! (from 0) leaves at start + ⌊k · size · 8 · 10⁹ / rate⌋ ns: no rounding error
//! builds up, so a source delivers rate × time to the datagram. With `jitter`
//! (ns-2's `random_`) each gap is I · (1 + U), U uniform in [−½, ½), drawn anew for
//! every datagram (`next_interval`), so the mean rate is kept.

use rand::RngExt;

use crate::rng::RngStream;
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Cbr {
    start: SimTime,
    /// Bits of one datagram, times 10⁹ (numerator of the interval in ns).
    bit_nanos: u128,
    rate_bps: u64,
    jitter: bool,
    /// Datagrams scheduled so far, and the time of the last.
    scheduled: u64,
    last: SimTime,
}

impl Cbr {
    pub fn new(start: SimTime, packet_size: u32, rate_bps: u64, jitter: bool) -> Self {
        Cbr {
            start,
            bit_nanos: packet_size as u128 * 8 * 1_000_000_000,
            rate_bps,
            jitter,
            scheduled: 0,
            last: start,
        }
    }

    /// The time of the next datagram.
    pub fn next_send(&mut self, rng: &mut RngStream) -> SimTime {
        let k = self.scheduled;
        self.scheduled += 1;
        let t = if k == 0 {
            self.start
        } else if self.jitter {
            let interval = self.bit_nanos as f64 / self.rate_bps as f64;
            let u: f64 = rng.random::<f64>() - 0.5;
            self.last + SimTime::from_nanos((interval * (1.0 + u)).round() as u64)
        } else {
            let offset = k as u128 * self.bit_nanos / self.rate_bps as u128;
            self.start + SimTime::from_nanos(offset.min(u64::MAX as u128) as u64)
        };
        self.last = t;
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    #[test]
    fn datagrams_leave_every_size_over_rate_from_the_start() {
        // 500 B at 2 Mb/s: 4000 bits / 2e6 b/s = 2 ms; at 3 Mb/s: 4000/3e6 s =
        // 1 333 333.3 ns, so datagram 3 leaves at ⌊3 · 4e12 / 3e6⌋ = 4 000 000 ns
        // (no drift from rounding each gap to 1 333 333 ns).
        let mut r = rng::stream(1, "t");
        let mut cbr = Cbr::new(SimTime::from_secs(1), 500, 2_000_000, false);
        let times: Vec<u64> = (0..3).map(|_| cbr.next_send(&mut r).as_nanos()).collect();
        assert_eq!(times, vec![1_000_000_000, 1_002_000_000, 1_004_000_000]);
        let mut cbr = Cbr::new(SimTime::ZERO, 500, 3_000_000, false);
        let times: Vec<u64> = (0..4).map(|_| cbr.next_send(&mut r).as_nanos()).collect();
        assert_eq!(times, vec![0, 1_333_333, 2_666_666, 4_000_000]);
    }

    #[test]
    fn jitter_keeps_gaps_within_half_an_interval_and_the_mean_rate() {
        // I = 2 ms; each gap in [1 ms, 3 ms]. 100 000 gaps of mean 2 ms and sd
        // 2 ms / √12 = 0.577 ms: the mean's sd is 0.577 / √1e5 = 1.8 µs; 6 sd = 11 µs.
        let mut r = rng::stream(7, "t");
        let mut cbr = Cbr::new(SimTime::ZERO, 500, 2_000_000, true);
        let mut prev = cbr.next_send(&mut r);
        let first = prev;
        let n = 100_000;
        for _ in 0..n {
            let t = cbr.next_send(&mut r);
            let gap = (t - prev).as_nanos();
            assert!((1_000_000..=3_000_000).contains(&gap), "{gap}");
            prev = t;
        }
        let mean = (prev - first).as_nanos() as f64 / n as f64;
        assert!((mean - 2_000_000.0).abs() < 11_000.0, "{mean}");
    }
}

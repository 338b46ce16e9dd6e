//! FTP-like traffic: files of exponentially distributed size arriving as a
//! Poisson process, one connection per file (the M/M/· file-transfer workload of
//! ns-2 era studies, e.g. STUDIES.md study 2's FTP mix).

use super::poisson::PoissonArrivals;
use super::sizes::ExponentialSizes;
use super::Arrival;
use crate::rng::RngStream;
use crate::time::SimTime;

pub struct FtpGenerator {
    arrivals: PoissonArrivals,
    sizes: ExponentialSizes,
    size_rng: RngStream,
}

impl FtpGenerator {
    /// Files of mean `mean_bytes` at `rate` per second from `start`; arrival times
    /// and sizes from separate streams, so changing one leaves the other's draws.
    pub fn new(
        start: SimTime,
        rate: f64,
        mean_bytes: f64,
        arrival_rng: RngStream,
        size_rng: RngStream,
    ) -> Self {
        FtpGenerator {
            arrivals: PoissonArrivals::new(start, rate, arrival_rng),
            sizes: ExponentialSizes { mean: mean_bytes },
            size_rng,
        }
    }

    pub fn next_arrival(&mut self) -> Arrival {
        Arrival {
            at: self.arrivals.take(),
            bytes: self.sizes.sample(&mut self.size_rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;
    use crate::traffic::arrival_rate;

    /// Load 0.5 of 10 Mb/s with files of mean 100 kB: λ = 0.5·10⁷/(8·10⁵) =
    /// 6.25 files/s, offering 5 Mb/s. Over T = 4 000 s the offered bits are a
    /// compound Poisson sum with variance λT·E[S²]·64 = λT·2·E[S]²·64 (E[S²] = 2E[S]²
    /// for the exponential), so the rate's standard error is
    /// √(2λT)·E[S]·8/T = √50 000·8·10⁵/4 000 = 44 721 bit/s: 5σ = 224 kbit/s.
    #[test]
    fn offered_load_half_of_ten_megabits_is_five_megabits() {
        let rate = arrival_rate(0.5, 10e6, 100_000.0);
        assert!((rate - 6.25).abs() < 1e-12);
        let mut g = FtpGenerator::new(
            SimTime::ZERO,
            rate,
            100_000.0,
            rng::stream(5, "test.ftp.arrivals"),
            rng::stream(5, "test.ftp.sizes"),
        );
        let horizon = SimTime::from_secs(4_000);
        let mut bits = 0.0;
        loop {
            let a = g.next_arrival();
            if a.at >= horizon {
                break;
            }
            bits += a.bytes as f64 * 8.0;
        }
        let offered = bits / horizon.as_secs_f64();
        assert!((offered - 5e6).abs() < 224e3, "offered {offered} bit/s");
    }
}

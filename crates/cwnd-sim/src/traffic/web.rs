//! Web-like traffic: sessions of pages of objects.
//!
//! * Sessions arrive as a Poisson process (rate from the target load, `mod.rs`).
//! * A session has a geometric number of pages (mean `pages_per_session`, at
//!   least one): users leave after each page with probability 1/mean.
//! * A page has ⌊X⌋ objects, X ~ Pareto(k = 1, α = 2.43): SURGE's embedded
//!   references (Barford & Crovella 1998, Table 2); the mean is
//!   E⌊X⌋ = Σ_{n≥1} P(X ≥ n) = Σ n^(−α) = ζ(α) (ζ(2.43) = 1.370).
//! * Object sizes follow SURGE's hybrid lognormal/Pareto model (`sizes.rs`).
//! * Think (OFF) time between the starts of two pages of a session: Pareto
//!   (k = 1 s, α = 1.5), SURGE's inactive OFF time.
//!
//! One connection per object, all objects of a page opened at the page's start
//! (HTTP/1.0 with parallel connections, as SURGE's clients and browsers of the
//! paper's time). Open loop: the next page's time does not wait for the previous
//! page to finish downloading, so the offered load is exactly what the formula
//! says whatever the network does (as PackMime-HTTP's connection arrivals); a
//! closed-loop user who reads after the download would offer less under
//! congestion. SURGE's active OFF time between the objects of a page is not
//! modelled (objects open together). Mean bytes per session:
//! E[pages]·ζ(α)·E[object].

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::poisson::PoissonArrivals;
use super::sizes::HybridSizes;
use super::{open_unit, Arrival};
use crate::rng::RngStream;
use crate::time::SimTime;

/// The model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WebParams {
    pub pages_per_session: f64,
    /// Shape of the Pareto whose floor is the number of objects of a page.
    pub objects_alpha: f64,
    pub object_sizes: HybridSizes,
    /// Think time between page starts: Pareto of this scale (s) and shape.
    pub think_scale_s: f64,
    pub think_alpha: f64,
}

impl WebParams {
    /// SURGE's distributions (Barford & Crovella 1998, Table 2); five pages per
    /// session is this model's default, not SURGE's (which has no sessions).
    pub const SURGE: WebParams = WebParams {
        pages_per_session: 5.0,
        objects_alpha: 2.43,
        object_sizes: HybridSizes::SURGE,
        think_scale_s: 1.0,
        think_alpha: 1.5,
    };

    /// Mean objects of a page: ζ(objects_alpha).
    pub fn mean_objects(&self) -> f64 {
        zeta(self.objects_alpha)
    }

    /// E[S] of a session in bytes: E[pages]·E[objects]·E[object size].
    pub fn mean_session_bytes(&self) -> f64 {
        self.pages_per_session * self.mean_objects() * self.object_sizes.mean()
    }
}

/// Riemann ζ(s) for s > 1: the first N terms and the Euler–Maclaurin remainder
/// Σ_{n>N} n^(−s) ≈ N^(1−s)/(s − 1) − N^(−s)/2 + s·N^(−s−1)/12 (error O(N^(−s−3))).
pub fn zeta(s: f64) -> f64 {
    const N: u32 = 1_000;
    let head: f64 = (1..=N).map(|n| (n as f64).powf(-s)).sum();
    let n = N as f64;
    head + n.powf(1.0 - s) / (s - 1.0) - n.powf(-s) / 2.0 + s * n.powf(-s - 1.0) / 12.0
}

pub struct WebGenerator {
    params: WebParams,
    sessions: PoissonArrivals,
    /// Pages not yet started: (start, order, pages left in the session after it).
    pages: BinaryHeap<Reverse<(SimTime, u64, u32)>>,
    page_order: u64,
    /// The page being emitted: its start and the objects still to open.
    page_at: SimTime,
    objects_left: u32,
    page_rng: RngStream,
    size_rng: RngStream,
}

impl WebGenerator {
    /// Sessions at `rate` per second from `start`. Streams: session arrivals; page
    /// structure (pages, objects, think times); object sizes.
    pub fn new(
        start: SimTime,
        rate: f64,
        params: WebParams,
        session_rng: RngStream,
        page_rng: RngStream,
        size_rng: RngStream,
    ) -> Self {
        WebGenerator {
            params,
            sessions: PoissonArrivals::new(start, rate, session_rng),
            pages: BinaryHeap::new(),
            page_order: 0,
            page_at: start,
            objects_left: 0,
            page_rng,
            size_rng,
        }
    }

    /// Sessions whose later pages are still to come: what the generator holds.
    pub fn pending_pages(&self) -> usize {
        self.pages.len()
    }

    pub fn next_arrival(&mut self) -> Arrival {
        while self.objects_left == 0 {
            let next_page = self.pages.peek().map(|Reverse((t, _, _))| *t);
            if next_page.is_some_and(|t| t < self.sessions.peek()) {
                let Reverse((t, _, left)) = self.pages.pop().expect("peeked");
                self.start_page(t, left);
            } else {
                let t = self.sessions.take();
                let pages = self.session_pages();
                self.start_page(t, pages - 1);
            }
        }
        self.objects_left -= 1;
        Arrival {
            at: self.page_at,
            bytes: self.params.object_sizes.sample(&mut self.size_rng),
        }
    }

    fn start_page(&mut self, at: SimTime, pages_after: u32) {
        self.page_at = at;
        self.objects_left = self.page_objects();
        if pages_after > 0 {
            let p = &self.params;
            let think = p.think_scale_s * open_unit(&mut self.page_rng).powf(-1.0 / p.think_alpha);
            self.page_order += 1;
            let next = at + SimTime::from_secs_f64(think);
            self.pages
                .push(Reverse((next, self.page_order, pages_after - 1)));
        }
    }

    /// Geometric on {1, 2, …} of mean m: 1 + ⌊ln U / ln(1 − 1/m)⌋.
    fn session_pages(&mut self) -> u32 {
        let m = self.params.pages_per_session;
        if m <= 1.0 {
            return 1;
        }
        let u = open_unit(&mut self.page_rng);
        1 + (u.ln() / (1.0 - 1.0 / m).ln())
            .floor()
            .min(u32::MAX as f64 / 2.0) as u32
    }

    /// ⌊X⌋, X ~ Pareto(1, α) = U^(−1/α).
    fn page_objects(&mut self) -> u32 {
        let x = open_unit(&mut self.page_rng).powf(-1.0 / self.params.objects_alpha);
        x.floor().min(u32::MAX as f64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    /// ζ(2) = π²/6 = 1.644934 (Euler), ζ(4) = π⁴/90 = 1.082323.
    #[test]
    fn zeta_matches_eulers_values() {
        assert!((zeta(2.0) - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-9);
        assert!((zeta(4.0) - std::f64::consts::PI.powi(4) / 90.0).abs() < 1e-9);
    }

    /// With one page per session and no tail-heavy sizes in the way, the objects
    /// per page average ζ(2.43) = 1.3700 (Σ n^(−2.43): 1 + 0.18556 + 0.06924 +
    /// 0.03441 + … to 1.370). E⌊X⌋² = Σ(2n − 1)·n^(−2.43) = 4.484, so the count's
    /// standard deviation is √(4.484 − 1.370²) = 1.615 and over 200 000 pages the
    /// mean's standard error is 0.0036: 5σ = 0.018.
    #[test]
    fn objects_per_page_average_zeta_alpha() {
        let params = WebParams {
            pages_per_session: 1.0,
            ..WebParams::SURGE
        };
        assert!((params.mean_objects() - 1.370).abs() < 1e-3);
        let mut g = WebGenerator::new(
            SimTime::ZERO,
            10.0,
            params,
            rng::stream(6, "s"),
            rng::stream(6, "p"),
            rng::stream(6, "z"),
        );
        let pages = 200_000u64;
        let horizon = SimTime::from_secs(pages / 10);
        let (mut objects, mut page_times) = (0u64, 0u64);
        let mut last = None;
        loop {
            let a = g.next_arrival();
            if a.at >= horizon {
                break;
            }
            objects += 1;
            if last != Some(a.at) {
                page_times += 1;
                last = Some(a.at);
            }
        }
        let mean = objects as f64 / page_times as f64;
        assert!((mean - params.mean_objects()).abs() < 0.018, "{mean}");
    }

    /// Arrivals come in time order, and sessions of several pages hold only the
    /// pages still to come: with 5 pages per session at 2 sessions/s and a mean
    /// think time of 3 s (Pareto k = 1, α = 1.5), a session lasts 4·3 = 12 s on
    /// average; sessions in progress form an M/G/∞ system, whose count is Poisson
    /// of mean 2·12 = 24, so a bound of 200 is never reached (P < 10⁻⁸⁰) unless
    /// the table grows with the run's length, which is what this checks.
    #[test]
    fn arrivals_are_ordered_and_pending_pages_stay_bounded() {
        let mut g = WebGenerator::new(
            SimTime::ZERO,
            2.0,
            WebParams::SURGE,
            rng::stream(7, "s"),
            rng::stream(7, "p"),
            rng::stream(7, "z"),
        );
        let mut last = SimTime::ZERO;
        let mut peak = 0;
        let mut late_peak = 0;
        while last < SimTime::from_secs(20_000) {
            let a = g.next_arrival();
            assert!(a.at >= last);
            last = a.at;
            peak = peak.max(g.pending_pages());
            if last > SimTime::from_secs(10_000) {
                late_peak = late_peak.max(g.pending_pages());
            }
        }
        assert!(peak < 200, "peak {peak}");
        assert!(late_peak < 200, "late peak {late_peak}");
    }
}

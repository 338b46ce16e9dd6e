//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), with the "gentle" variant (Floyd,
//! "Recommendations on using the gentle variant of RED", 2000). RED decides, for each
//! arriving packet, whether to drop it early; the queue's own limit still applies
//! after it (a forced drop when full).
//!
//! On every arrival (paper, Fig. 2):
//! ```text
//! avg ← (1 − w_q)·avg + w_q·q                          q: packets waiting       (1)
//! after an idle period:  avg ← (1 − w_q)^(m+1)·avg,     m = idle time × ptc      (2)
//! min_th ≤ avg < max_th:  count ← count + 1
//!     p_b ← max_p·(avg − min_th)/(max_th − min_th)                             (3)
//!     p_a ← p_b / (1 − count·p_b)   (1 when count·p_b ≥ 1)                     (4)
//!     drop with probability p_a; after a drop, count ← 0
//! gentle, max_th ≤ avg < 2·max_th:
//!     p_b ← max_p + (1 − max_p)·(avg − max_th)/max_th, then (4)                (5)
//! avg ≥ max_th (≥ 2·max_th when gentle): drop, count ← 0
//! avg < min_th: count ← −1
//! ```
//! (4) spreads drops evenly: the number of packets between drops is uniform (on
//! 1 … 1/p_b − 1 with the count kept as the paper's pseudo-code and ns-2 keep it).
//!
//! `wait` is ns-2's `Queue/RED set wait_ true` (`REDQueue::modify_p` in ns-2.35's
//! `queue/red.cc`, on in its `ns-default.tcl`), which waits 1/p_b packets after a drop
//! before the next may fall:
//! ```text
//! count·p_b < 1: p_a ← 0;   count·p_b < 2: p_a ← p_b / (2 − count·p_b);   else p_a ← 1   (4′)
//! ```
//! so gaps are uniform on 1/p_b … 2/p_b − 1: half as many early drops at the same
//! average, and a longer queue at the operating point. Off by default (the paper).
//!
//! ptc is the link's rate in packets of `mean_packet` bytes per second,
//! as ns-2's `ptc_`; (2) is ns-2's form of the paper's f(time − q_time), with the
//! arriving packet's own zero sample included.
//!
//! **ECN** (`ecn`; RFC 3168 §5 and §7, ns-2's `setbit_`, Linux `sch_red`'s
//! `TC_RED_ECN`): an ECN-capable (ECT) packet that the rules above would drop early
//! — between the thresholds, or in the gentle region — is marked CE and queued
//! instead, the count restarting as after a drop (ns-2's `drop_early` returns "no
//! drop" after setting CE; Linux's `RED_PROB_MARK`); a Not-ECT packet is dropped as
//! before. Forced drops stay drops: the average beyond max_th (2·max_th when gentle)
//! drops whatever the packet carries, as ns-2's `DTYPE_FORCED` and Linux's
//! `harddrop` flag do (Linux without `harddrop` marks ECT packets there too:
//! `RED_HARD_MARK`), and so does the queue's own limit. ns-2.35's `use_mark_p_`
//! (mark only while p_b < `mark_p_`) is not modelled: every early decision marks, as
//! ns-2 with `mark_p_` = 1, the setting of DCTCP's ns-2 scripts.
//!
//! Defaults follow Floyd's recommendations (1997, "RED: Discussions of Setting
//! Parameters"): min_th 5, max_th 15 (3·min_th), max_p 0.1, w_q 0.002, gentle on;
//! mean packet 500 B (ns-2's `mean_pktsize_`); ECN off. Simplified: thresholds count
//! packets, not bytes (no byte mode).

use rand::RngExt;

use crate::packet::Ecn;
use crate::rng::RngStream;
use crate::time::SimTime;

/// RED's parameters (thresholds in packets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    /// ns-2's `wait_`: (4′) instead of (4).
    pub wait: bool,
    /// Mean packet size used to count idle time in packets (ns-2's `mean_pktsize_`).
    pub mean_packet: u32,
    /// Mark ECT packets CE instead of dropping them early (ns-2's `setbit_`).
    pub ecn: bool,
}

/// What RED does with an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedVerdict {
    Admit,
    /// Admitted with its ECN field set to CE.
    Mark,
    Drop,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            wait: false,
            mean_packet: 500,
            ecn: false,
        }
    }
}

pub struct Red {
    params: RedParams,
    /// Packets of `mean_packet` bytes the link sends per second.
    ptc: f64,
    avg: f64,
    count: i64,
    rng: RngStream,
    /// Arrivals dropped early (not counting forced drops of a full queue).
    pub early_drops: u64,
    /// ECT arrivals marked CE instead of dropped early.
    pub marks: u64,
}

impl Red {
    pub fn new(params: RedParams, rate_bps: u64, rng: RngStream) -> Self {
        Red {
            params,
            ptc: rate_bps as f64 / (8.0 * params.mean_packet as f64),
            avg: 0.0,
            count: -1,
            rng,
            early_drops: 0,
            marks: 0,
        }
    }

    /// The average queue length (packets).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// An arrival of a Not-ECT packet finds `waiting` packets queued; `idle_since`
    /// is when the link went idle, if it is idle now. Returns true to drop it early.
    /// (The dequeue path's DropTail asks this: it marks nothing yet.)
    pub fn on_arrival(
        &mut self,
        now: SimTime,
        waiting: usize,
        idle_since: Option<SimTime>,
    ) -> bool {
        self.verdict(now, waiting, idle_since, Ecn::NotEct) == RedVerdict::Drop
    }

    /// An arrival whose ECN field is `ecn` finds `waiting` packets queued;
    /// `idle_since` is when the link went idle, if it is idle now: admit it, mark it
    /// (an early drop of an ECT packet with `ecn` on), or drop it.
    pub fn verdict(
        &mut self,
        now: SimTime,
        waiting: usize,
        idle_since: Option<SimTime>,
        ecn: Ecn,
    ) -> RedVerdict {
        self.update_average(now, waiting, idle_since);
        let p = self.params;
        let p_b = if self.avg < p.min_th {
            self.count = -1;
            return RedVerdict::Admit;
        } else if self.avg < p.max_th {
            p.max_p * (self.avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && self.avg < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (self.avg - p.max_th) / p.max_th
        } else {
            return self.drop();
        };
        self.count += 1;
        if self.rng.random::<f64>() >= self.spread(p_b) {
            return RedVerdict::Admit;
        }
        if p.ecn && ecn.ecn_capable() {
            self.count = 0;
            self.marks += 1;
            return RedVerdict::Mark;
        }
        self.drop()
    }

    /// p_a from p_b and the count: (4), or (4′) when waiting.
    fn spread(&self, p_b: f64) -> f64 {
        let since = self.count as f64 * p_b;
        match self.params.wait {
            false if since < 1.0 => p_b / (1.0 - since),
            true if since < 1.0 => 0.0,
            true if since < 2.0 => p_b / (2.0 - since),
            _ => 1.0,
        }
    }

    fn drop(&mut self) -> RedVerdict {
        self.count = 0;
        self.early_drops += 1;
        RedVerdict::Drop
    }

    /// (1), or (2) after an idle period.
    fn update_average(&mut self, now: SimTime, waiting: usize, idle_since: Option<SimTime>) {
        let w = self.params.w_q;
        match idle_since {
            Some(since) => {
                let m = (now.saturating_sub(since)).as_secs_f64() * self.ptc;
                self.avg *= (1.0 - w).powf(m + 1.0);
            }
            None => self.avg = (1.0 - w) * self.avg + w * waiting as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    fn red(params: RedParams) -> Red {
        // 4 Mb/s with 500-byte packets: ptc = 1000 packets per second.
        Red::new(params, 4_000_000, rng::stream(1, "red"))
    }

    #[test]
    fn average_follows_the_ewma() {
        // w_q = 1/2: avg = 0 → 2/2 = 1 → (1 + 4)/2 = 2.5 → (2.5 + 0)/2 = 1.25.
        let mut r = red(RedParams {
            w_q: 0.5,
            min_th: 100.0,
            max_th: 200.0,
            ..Default::default()
        });
        for (q, expected) in [(2, 1.0), (4, 2.5), (0, 1.25)] {
            assert!(!r.on_arrival(SimTime::ZERO, q, None));
            assert_eq!(r.avg(), expected);
        }
    }

    #[test]
    fn idle_time_decays_the_average() {
        // avg 2.5; idle 3 ms at ptc = 1000/s: m = 3, avg × (1/2)^(3+1) = 0.15625.
        let mut r = red(RedParams {
            w_q: 0.5,
            min_th: 100.0,
            max_th: 200.0,
            ..Default::default()
        });
        r.on_arrival(SimTime::ZERO, 2, None);
        r.on_arrival(SimTime::ZERO, 4, None);
        r.on_arrival(SimTime::from_millis(5), 0, Some(SimTime::from_millis(2)));
        assert_eq!(r.avg(), 0.15625);
    }

    #[test]
    fn drops_follow_the_three_regions() {
        // w_q = 1: avg is the instantaneous queue.
        let params = RedParams {
            w_q: 1.0,
            max_p: 0.0,
            gentle: false,
            ..Default::default()
        };
        let mut r = red(params);
        // Below min_th never; between the thresholds with max_p = 0 never; above, always.
        assert!(!r.on_arrival(SimTime::ZERO, 4, None));
        assert!(!r.on_arrival(SimTime::ZERO, 14, None));
        assert!(r.on_arrival(SimTime::ZERO, 15, None));
        // Gentle: at max_th the probability is max_p, reaching 1 at 2·max_th.
        let mut g = red(RedParams {
            w_q: 1.0,
            max_p: 0.0,
            ..Default::default()
        });
        assert!(!g.on_arrival(SimTime::ZERO, 15, None));
        assert!(g.on_arrival(SimTime::ZERO, 30, None));
        assert_eq!(g.early_drops, 1);
    }

    #[test]
    fn with_ecn_an_early_drop_of_an_ect_packet_is_a_mark_and_a_forced_drop_stays() {
        // A step at K = 5 (DCTCP's marking on RED): min_th = max_th = 5, max_p = 1,
        // gentle, w_q = 1 (avg = the queue). Queue 4 < min_th: admitted. Queue 5 to
        // 9 is the gentle region: p_b = 1 + (1 − 1)·(q − 5)/5 = 1, and by (4) p_a =
        // 1/(1 − count·1) = 1 at count 0, and 1 (count·p_b ≥ 1) after: every ECT
        // arrival is marked, every Not-ECT one dropped. Queue 10 = 2·max_th is
        // forced: dropped, ECT or not.
        let mut r = red(RedParams {
            min_th: 5.0,
            max_th: 5.0,
            max_p: 1.0,
            w_q: 1.0,
            ecn: true,
            ..Default::default()
        });
        let t = SimTime::ZERO;
        assert_eq!(r.verdict(t, 4, None, Ecn::Ect0), RedVerdict::Admit);
        for q in 5..10 {
            assert_eq!(r.verdict(t, q, None, Ecn::Ect0), RedVerdict::Mark, "{q}");
            assert_eq!(r.verdict(t, q, None, Ecn::Ce), RedVerdict::Mark, "{q}");
            assert_eq!(r.verdict(t, q, None, Ecn::NotEct), RedVerdict::Drop, "{q}");
        }
        assert_eq!(r.verdict(t, 10, None, Ecn::Ect0), RedVerdict::Drop);
        // 5 × 2 marks; 5 early drops of Not-ECT packets and the forced one.
        assert_eq!((r.marks, r.early_drops), (10, 6));
        // Without `ecn` the same ECT arrival is dropped.
        let mut off = red(RedParams {
            min_th: 5.0,
            max_th: 5.0,
            max_p: 1.0,
            w_q: 1.0,
            ..Default::default()
        });
        assert_eq!(off.verdict(t, 5, None, Ecn::Ect0), RedVerdict::Drop);
    }

    #[test]
    fn a_mark_restarts_the_count_as_a_drop_does() {
        // The same stream, avg held at 10 (p_b = 0.05, as below): marking ECT
        // arrivals with `ecn` falls on exactly the arrivals that dropping them
        // without it does, so the count restarts at a mark as at a drop (ns-2's
        // `drop_early`, Linux `RED_PROB_MARK`).
        let params = RedParams {
            w_q: 1.0,
            ..Default::default()
        };
        let mut marking = red(RedParams {
            ecn: true,
            ..params
        });
        let mut dropping = red(params);
        let t = SimTime::ZERO;
        for _ in 0..2_000 {
            let mark = marking.verdict(t, 10, None, Ecn::Ect0);
            let drop = dropping.verdict(t, 10, None, Ecn::Ect0);
            assert_eq!(mark == RedVerdict::Mark, drop == RedVerdict::Drop);
            assert_ne!(mark, RedVerdict::Drop);
        }
        assert_eq!(marking.marks, dropping.early_drops);
        assert!(marking.marks > 100, "{} marks", marking.marks);
    }

    #[test]
    fn gaps_between_drops_are_uniform_below_one_over_p_b() {
        // avg held at 10 (w_q = 1) with min_th 5, max_th 15, max_p 0.1: p_b = 0.05 by
        // (3). The n-th packet after a drop has count = n, so by (4)
        // P(gap = n) = p_b/(1 − n·p_b) · Π_{i<n} (1 − p_b/(1 − i·p_b)) = p_b/(1 − p_b):
        // uniform on 1..19 (the paper's pseudo-code; its analysis, with count = n − 1,
        // gives 1..20), mean 10, sd √30 = 5.48. 20 000 drops: standard error 0.039;
        // allow ±0.15 (3.9 standard errors).
        let mut r = red(RedParams {
            w_q: 1.0,
            ..Default::default()
        });
        let (mut gaps, mut since, mut longest) = (Vec::new(), 0u32, 0u32);
        while gaps.len() < 20_000 {
            since += 1;
            if r.on_arrival(SimTime::ZERO, 10, None) {
                gaps.push(since as f64);
                longest = longest.max(since);
                since = 0;
            }
        }
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.15, "mean gap {mean}");
        assert_eq!(longest, 19);
    }

    #[test]
    fn waiting_gaps_are_uniform_from_one_over_p_b() {
        // The same p_b = 0.05 with ns-2's wait: by (4′) no drop while count < 20; at
        // count n ∈ 20..39, p_a = 0.05/(2 − 0.05·n) = 1/(40 − n), so
        // P(gap = n) = 1/(40 − n) · Π_{i=20}^{n−1} (39 − i)/(40 − i) = 1/20: uniform on
        // 20..39, mean 29.5, sd √33.25 = 5.77. 20 000 drops: standard error 0.041;
        // allow ±0.15 (3.7 standard errors). p_a reaches 1 at n = 39.
        let mut r = red(RedParams {
            w_q: 1.0,
            wait: true,
            ..Default::default()
        });
        let (mut gaps, mut since) = (Vec::new(), 0u32);
        while gaps.len() < 20_000 {
            since += 1;
            if r.on_arrival(SimTime::ZERO, 10, None) {
                gaps.push(since);
                since = 0;
            }
        }
        let mean = gaps.iter().sum::<u32>() as f64 / gaps.len() as f64;
        assert!((mean - 29.5).abs() < 0.15, "mean gap {mean}");
        // The first drop's gap counts from the crossing (count 0), one more than later ones.
        let later = &gaps[1..];
        assert_eq!(later.iter().min(), Some(&20));
        assert_eq!(later.iter().max(), Some(&39));
    }
}

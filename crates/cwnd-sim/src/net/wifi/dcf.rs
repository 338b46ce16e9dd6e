//! The 802.11 distributed coordination function (DCF): binary exponential backoff
//! among the stations of one collision domain.
//!
//! Time advances in *virtual slots* (Bianchi 2000): an idle slot σ, a successful
//! exchange T_s or a collision T_c. A station with a frame draws a backoff counter
//! uniformly in [0, W_i − 1], W_i = 2^min(i, m)·W, W = CWmin + 1 and 2^m·W =
//! CWmax + 1 (802.11b: W = 32, m = 5; 802.11a/g: W = 16, m = 6); the
//! counter is decremented once per virtual slot in which the station does not
//! transmit (frozen during a busy period, resuming after DIFS); the station transmits
//! when it reaches zero. A collision moves every colliding station to the next backoff
//! stage. Failures count against the short retry limit (7: frames sent without
//! RTS/CTS, and RTS frames) or, for a data frame sent after an RTS/CTS handshake,
//! the long retry limit (4) (802.11-2016 §10.3.4.4, dot11ShortRetryLimit and
//! dot11LongRetryLimit); when a count *reaches* its limit the frame is dropped and
//! the station starts over, so a frame is tried at most 7 (or 4) times in all: the
//! standard's "retries ... shall continue until the SRC ... is equal to
//! dot11ShortRetryLimit", ns-2.35's `Mac802_11::RetransmitDATA`/`RetransmitRTS`
//! (`if (*rcount >= thresh)` discard, "IEEE Spec section 9.2.3.5 says this should
//! be greater than or equal") and ns-3's `NeedRetransmission` (`ssrc < MaxSsrc`).
//! A success resets the stage and both counts.
//!
//! Simplifications: one collision domain (no hidden terminals), no capture, ideal
//! channel unless an error model drops a frame (then it counts as a failure for its
//! sender, as a missing ACK does).

use rand::RngExt;

use super::timing::CW_MAX;
use crate::rng::RngStream;

pub const SHORT_RETRY_LIMIT: u32 = 7;
pub const LONG_RETRY_LIMIT: u32 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Backoff {
    stage: u32,
    short_retries: u32,
    long_retries: u32,
    counter: u32,
}

/// Which retry count a failure counts against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    Short,
    Long,
}

/// What the next virtual slot holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NextSlot {
    /// Nobody transmits for this many idle slots (counters already decremented).
    Idle(u32),
    /// These stations transmit now (one: a success unless the frame is corrupted;
    /// several: a collision).
    Transmit(Vec<usize>),
}

/// Backoff state of every station that has a frame to send.
pub struct Contention {
    /// `None` for a station with nothing to send.
    stations: Vec<Option<Backoff>>,
    /// W = CWmin + 1.
    window: u32,
    /// m: the backoff stage at which the window reaches CWmax + 1.
    max_stage: u32,
    rng: RngStream,
}

impl Contention {
    /// `stations` contending with the PHY's `cw_min` (15 or 31; CWmax is 1023).
    pub fn new(stations: usize, cw_min: u32, rng: RngStream) -> Self {
        let window = cw_min + 1;
        Contention {
            stations: vec![None; stations],
            window,
            max_stage: ((CW_MAX + 1) / window).ilog2(),
            rng,
        }
    }

    fn draw(&mut self, stage: u32) -> u32 {
        let w = self.window << stage.min(self.max_stage);
        self.rng.random_range(0..w)
    }

    /// Station `i` has a new frame at the head of its queue.
    pub fn ready(&mut self, i: usize) {
        if self.stations[i].is_none() {
            let counter = self.draw(0);
            self.stations[i] = Some(Backoff {
                stage: 0,
                short_retries: 0,
                long_retries: 0,
                counter,
            });
        }
    }

    /// Whether station `i` contends.
    pub fn contending(&self, i: usize) -> bool {
        self.stations[i].is_some()
    }

    /// Whether any station contends.
    pub fn busy(&self) -> bool {
        self.stations.iter().any(Option::is_some)
    }

    /// The next virtual slot. Idle slots are taken in one step (up to the smallest
    /// counter); a transmission slot decrements the counters of the others by one.
    pub fn next_slot(&mut self) -> NextSlot {
        let min = self.stations.iter().flatten().map(|b| b.counter).min();
        match min {
            None => NextSlot::Idle(0),
            Some(k) if k > 0 => {
                for b in self.stations.iter_mut().flatten() {
                    b.counter -= k;
                }
                NextSlot::Idle(k)
            }
            Some(_) => {
                let transmitting: Vec<usize> = self
                    .stations
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.is_some_and(|b| b.counter == 0))
                    .map(|(i, _)| i)
                    .collect();
                for b in self.stations.iter_mut().flatten() {
                    if b.counter > 0 {
                        b.counter -= 1;
                    }
                }
                NextSlot::Transmit(transmitting)
            }
        }
    }

    /// Station `i` is done with its frame (acknowledged, or discarded because its
    /// lifetime passed); `more`: another frame is queued, with a fresh backoff.
    pub fn done(&mut self, i: usize, more: bool) {
        self.stations[i] = None;
        if more {
            self.ready(i);
        }
    }

    /// Station `i`'s frame was not acknowledged (collision or corruption), counting
    /// against `retry`. Returns true when a retry limit drops it; `more` then says
    /// whether another frame is queued behind it.
    pub fn failure(&mut self, i: usize, retry: Retry, more: impl FnOnce() -> bool) -> bool {
        let mut b = self.stations[i].unwrap_or_else(|| unreachable!("only contenders fail"));
        match retry {
            Retry::Short => b.short_retries += 1,
            Retry::Long => b.long_retries += 1,
        }
        if b.short_retries >= SHORT_RETRY_LIMIT || b.long_retries >= LONG_RETRY_LIMIT {
            self.stations[i] = None;
            if more() {
                self.ready(i);
            }
            return true;
        }
        b.stage = (b.stage + 1).min(self.max_stage);
        b.counter = self.draw(b.stage);
        self.stations[i] = Some(b);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame_errors::DsssRate;
    use super::super::ofdm::OfdmRate;
    use super::super::saturation::saturation_throughput;
    use super::super::timing::{Access, Phy};
    use super::*;
    use crate::rng::stream;

    /// Bianchi (2000), "Performance Analysis of the IEEE 802.11 Distributed
    /// Coordination Function", JSAC 18(3): eqs. (9), (13), solved by bisection on τ —
    /// written from the paper, independently of the simulator — with its chain cut
    /// at the retry limit, as Wu et al. (INFOCOM 2002) and Chatzimisios et al. do: a
    /// frame has stages 0 … L − 1 (L = 7 tries: saturated stations fail only by
    /// collisions, of data frames or of RTS frames, all on the short limit), so
    /// τ = Σ pⁱ / Σ pⁱ·(Wᵢ + 1)/2 (transmissions per frame over slots per frame),
    /// Wᵢ = 2^min(i, m)·W. With unlimited stages the sums give Bianchi's eq. (7),
    /// 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m)).
    fn bianchi(n: usize, phy: &Phy, access: Access) -> f64 {
        // W = CWmin + 1; m such that 2^m·W = CWmax + 1 = 1024.
        let w = phy.cw_min as f64 + 1.0;
        let m = (1024.0 / w).log2().round() as i32;
        let tau_of_p = |p: f64| {
            let (mut tries, mut slots) = (0.0, 0.0);
            for i in 0..SHORT_RETRY_LIMIT as i32 {
                let w_i = w * 2f64.powi(i.min(m));
                tries += p.powi(i);
                slots += p.powi(i) * (w_i + 1.0) / 2.0;
            }
            tries / slots
        };
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let tau = (lo + hi) / 2.0;
            let p = 1.0 - (1.0 - tau).powi(n as i32 - 1);
            if tau_of_p(p) > tau {
                lo = tau;
            } else {
                hi = tau;
            }
        }
        let tau = (lo + hi) / 2.0;
        let p_tr = 1.0 - (1.0 - tau).powi(n as i32);
        let p_s = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / p_tr;
        let (sigma, ts, tc) = (
            phy.slot.as_secs_f64(),
            phy.success_time(1500, access).as_secs_f64(),
            phy.collision_time(1500, access).as_secs_f64(),
        );
        p_s * p_tr * 1500.0 * 8.0
            / ((1.0 - p_tr) * sigma + p_tr * p_s * ts + p_tr * (1.0 - p_s) * tc)
    }

    #[test]
    fn saturation_throughput_matches_bianchi_within_five_percent() {
        // 802.11b, 11 Mb/s data, 1 Mb/s ACKs, long preamble, 1500-byte packets.
        // With RTS/CTS too: collisions then cost only an RTS (Bianchi's Fig. 6 case).
        let phy = Phy::dsss(DsssRate::Mbps11, DsssRate::Mbps1);
        for access in [Access::Basic, Access::RtsCts] {
            for n in [1, 5, 10, 20] {
                let sim = saturation_throughput(n, &phy, access, 200, 11);
                let model = bianchi(n, &phy, access);
                let err = sim / model - 1.0;
                println!(
                    "{access:?} n = {n:2}: simulated {:.3} Mb/s, Bianchi {:.3} Mb/s ({:+.2} %)",
                    sim / 1e6,
                    model / 1e6,
                    100.0 * err
                );
                assert!(err.abs() < 0.05, "{access:?} n = {n}: {sim} vs {model}");
            }
        }
    }

    #[test]
    fn ofdm_saturation_throughput_matches_bianchi_within_one_percent() {
        // 802.11a/g at 54 Mb/s with 6 Mb/s control frames and at 6 Mb/s: slot 9 µs,
        // SIFS 16 µs, CWmin 15 (W = 16, m = 6), T_s and T_c from timing.rs
        // (344 and 283 µs at 54 Mb/s, by hand there). A lone station: τ = 2/(W + 1)
        // = 2/17, so S = 12000 / (7.5·9 + 344) µs = 29.16 Mb/s; at 6 Mb/s T_s = 2072 +
        // 16 + 1 + 44 + 34 + 1 = 2168 µs: S = 12000 / 2235.5 µs = 5.368 Mb/s.
        for (rate, expected_lone) in [
            (OfdmRate::Mbps54, 12_000.0 / 411.5e-6),
            (OfdmRate::Mbps6, 12_000.0 / 2235.5e-6),
        ] {
            let phy = Phy::ofdm(rate, OfdmRate::Mbps6);
            assert!((bianchi(1, &phy, Access::Basic) / expected_lone - 1.0).abs() < 1e-9);
        }
        for rate in [OfdmRate::Mbps54, OfdmRate::Mbps6] {
            let phy = Phy::ofdm(rate, OfdmRate::Mbps6);
            for access in [Access::Basic, Access::RtsCts] {
                for n in [1, 5, 10, 20] {
                    let sim = saturation_throughput(n, &phy, access, 100, 11);
                    let model = bianchi(n, &phy, access);
                    let err = sim / model - 1.0;
                    println!(
                        "{rate:?} {access:?} n = {n:2}: simulated {:.3} Mb/s, Bianchi {:.3} Mb/s ({:+.2} %)",
                        sim / 1e6,
                        model / 1e6,
                        100.0 * err
                    );
                    assert!(
                        err.abs() < 0.01,
                        "{rate:?} {access:?} n = {n}: {sim} vs {model}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_window_doubles_up_to_cw_max() {
        // 802.11b: 32 · 2^5 = 1024; 802.11a/g: 16 · 2^6 = 1024.
        assert_eq!(Contention::new(1, 31, stream(1, "m")).max_stage, 5);
        assert_eq!(Contention::new(1, 15, stream(1, "m")).max_stage, 6);
    }

    #[test]
    fn a_lone_station_never_collides() {
        let mut c = Contention::new(1, 31, stream(1, "x"));
        c.ready(0);
        for _ in 0..10_000 {
            if let NextSlot::Transmit(tx) = c.next_slot() {
                assert_eq!(tx, vec![0]);
                c.done(0, true);
            }
        }
    }

    #[test]
    fn a_frame_is_dropped_after_the_retry_limit() {
        // Two stations forced to collide every time: the 7th collision (the short
        // count reaching dot11ShortRetryLimit = 7) drops both frames, so 6 collisions
        // end in a retry and the 7th in a drop.
        let mut c = Contention::new(2, 31, stream(1, "y"));
        c.ready(0);
        c.ready(1);
        let mut collisions = 0;
        loop {
            for b in c.stations.iter_mut().flatten() {
                b.counter = 0;
            }
            assert_eq!(c.next_slot(), NextSlot::Transmit(vec![0, 1]));
            let dropped: Vec<bool> = [0, 1]
                .iter()
                .map(|&i| c.failure(i, Retry::Short, || false))
                .collect();
            if dropped.iter().all(|&d| d) {
                break;
            }
            assert_eq!(dropped, vec![false, false]);
            collisions += 1;
        }
        assert_eq!(collisions, 6);
        assert!(!c.busy());
    }

    #[test]
    fn a_data_frame_after_rts_cts_is_dropped_after_the_long_limit() {
        // dot11LongRetryLimit = 4: three failed data frames are retried; the fourth
        // failure drops the frame (4 tries in all).
        let mut c = Contention::new(1, 31, stream(1, "z"));
        c.ready(0);
        for _ in 0..3 {
            assert!(!c.failure(0, Retry::Long, || false));
        }
        assert!(c.failure(0, Retry::Long, || false));
    }
}

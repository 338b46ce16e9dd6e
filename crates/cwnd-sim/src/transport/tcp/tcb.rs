//! The sender state that congestion controllers read and write (Linux's
//! `struct tcp_sock` fields used by `tcp_congestion_ops`, ns-3's `TcpSocketState`).
//!
//! The window is counted in segments plus a fractional counter (`cwnd_cnt`,
//! Linux's `snd_cwnd_cnt`), because every variant the studies use was specified
//! or implemented that way (Linux, ns-2). The sender turns it into bytes with
//! `cwnd × mss`.

use crate::time::SimTime;

/// Linux's `TCP_INFINITE_SSTHRESH`: ssthresh before the first loss.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// Congestion-avoidance state (Linux `enum tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// Normal: no loss suspected.
    Open,
    /// Duplicate ACKs seen, fewer than dupthresh.
    Disorder,
    /// Reducing the window for an ECN echo (RFC 3168 §6.1.2, Linux `tcp_enter_cwr`)
    /// until data sent after the echo's reduction began is acknowledged; loss
    /// detection runs as in `Open`.
    Cwr,
    /// Fast recovery after a fast retransmit.
    Recovery,
    /// After a retransmission timeout (or Tahoe's fast retransmit): slow start
    /// until everything sent before the loss is acknowledged.
    Loss,
}

#[derive(Clone, Debug)]
pub struct Tcb {
    pub mss: u32,
    /// TCP/IP header bytes of a data segment, options included: `mss + header` is
    /// the IP packet (Linux `tcp_mss_to_mtu`), for rates in bytes on the wire.
    pub header: u32,
    /// Congestion window in segments.
    pub cwnd: u32,
    /// Fraction of a segment accumulated towards the next increment.
    pub cwnd_cnt: u32,
    pub ssthresh: u32,
    /// Upper bound on cwnd (Linux `snd_cwnd_clamp`).
    pub cwnd_clamp: u32,
    /// Most segments one ACK may add in slow start (RFC 3465 "L"; RFC 5681
    /// §3.1 allows one SMSS per ACK, Linux does not limit it).
    pub abc_limit: u32,
    pub ca_state: CaState,
    /// Oldest unacknowledged byte.
    pub snd_una: u64,
    /// Next byte to send.
    pub snd_nxt: u64,
    /// cwnd and ssthresh before the last reduction, for undo.
    pub prior_cwnd: u32,
    pub prior_ssthresh: u32,
    /// Smoothed RTT from the RTO estimator, once measured.
    pub srtt: Option<SimTime>,
    /// Smallest RTT sample ever seen (SimTime::MAX before the first).
    pub min_rtt: SimTime,
    /// Segments delivered so far: cumulatively acknowledged or SACKed, each counted
    /// once (Linux `tp->delivered`; see `rate.rs`).
    pub delivered: u64,
    /// When `delivered` last grew (Linux `delivered_mstamp`).
    pub delivered_time: SimTime,
    /// Application-limited until `delivered` passes this mark (Linux
    /// `tp->app_limited`, 0 there meaning `None`; see `rate.rs`).
    pub app_limited: Option<u64>,
    /// Whether the sender was limited by cwnd (not by the application or the
    /// receiver window) the last time it stopped sending: controllers grow cwnd
    /// only when it is really in use (RFC 7661, Linux `tcp_is_cwnd_limited`).
    pub cwnd_limited: bool,
    /// FlightSize for RFC 5681 eq. (4) when it is not snd_nxt − snd_una, set only
    /// while the sender asks for ssthresh (see `flight_size`).
    pub loss_flight: Option<u32>,
}

impl Tcb {
    pub fn new(mss: u32, initial_window: u32) -> Self {
        Tcb {
            mss,
            header: 0,
            cwnd: initial_window,
            cwnd_cnt: 0,
            ssthresh: INFINITE_SSTHRESH,
            cwnd_clamp: u32::MAX / 2,
            abc_limit: 1,
            ca_state: CaState::Open,
            snd_una: 0,
            snd_nxt: 0,
            prior_cwnd: initial_window,
            prior_ssthresh: INFINITE_SSTHRESH,
            srtt: None,
            min_rtt: SimTime::MAX,
            delivered: 0,
            delivered_time: SimTime::ZERO,
            app_limited: Some(0),
            cwnd_limited: true,
            loss_flight: None,
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Bytes sent and not yet acknowledged (RFC 5681 FlightSize).
    pub fn flight_bytes(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }

    /// FlightSize in segments, rounded up.
    pub fn flight_segments(&self) -> u32 {
        self.flight_bytes().div_ceil(self.mss as u64) as u32
    }

    /// FlightSize for the ssthresh rule, RFC 5681 eq. (4). On a fast retransmit, and
    /// on any timeout without SACK, everything sent and not cumulatively acknowledged
    /// (RFC 5681 §3.1; RFC 6675 §5 step 4.2 takes the same), less the segments
    /// limited transmit sent (RFC 5681 §3.2 step 2: they "MUST NOT be included in
    /// this calculation"). On a timeout with SACK,
    /// the data actually in flight: after a first timeout the sender can be deep in
    /// loss recovery with most of [snd_una, snd_nxt) SACKed, and half of all of it
    /// was once 262 segments with cwnd 28 (issue 12). Linux `tcp_enter_loss` takes
    /// ssthresh from cwnd, which pipe then tracks; ns-3 passes `BytesInFlight`
    /// (SACKed and lost excluded) to `GetSsThresh`.
    pub fn flight_size(&self) -> u32 {
        self.loss_flight.unwrap_or_else(|| self.flight_segments())
    }

    /// Slow start (RFC 5681 §3.1 with RFC 3465 byte counting, Linux
    /// `tcp_slow_start`): cwnd grows by one segment per segment acknowledged, at
    /// most `abc_limit` per ACK, up to ssthresh. Returns the acknowledged segments
    /// left over for congestion avoidance once ssthresh is reached (0 otherwise).
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let increase = acked.min(self.abc_limit);
        let cwnd = self.cwnd.saturating_add(increase).min(self.ssthresh);
        let used = cwnd - self.cwnd;
        self.cwnd = cwnd.min(self.cwnd_clamp);
        if self.cwnd < self.ssthresh {
            0
        } else {
            acked - used
        }
    }

    /// The common start of a window-growth hook: nothing while cwnd is not in use;
    /// in slow start, grow and return the acknowledged segments left for congestion
    /// avoidance (`None` when none are).
    pub fn slow_start_then(&mut self, acked: u32) -> Option<u32> {
        if !self.cwnd_limited {
            return None;
        }
        if !self.in_slow_start() {
            return Some(acked);
        }
        let left = self.slow_start(acked);
        (left > 0).then_some(left)
    }

    /// Additive increase (Linux `tcp_cong_avoid_ai`): one segment per `w` segments
    /// acknowledged, i.e. one segment per RTT when `w = cwnd`.
    pub fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
        self.cwnd = self.cwnd.min(self.cwnd_clamp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut t = Tcb::new(1000, 10);
        t.ssthresh = 12;
        t.abc_limit = u32::MAX;
        assert_eq!(t.slow_start(5), 3);
        assert_eq!(t.cwnd, 12);
    }

    #[test]
    fn slow_start_adds_at_most_l_segments_per_ack() {
        // RFC 3465 L = 2: an ACK of 5 segments adds 2; the other 3 are not
        // carried over while cwnd stays below ssthresh.
        let mut t = Tcb::new(1000, 10);
        t.ssthresh = 100;
        t.abc_limit = 2;
        assert_eq!(t.slow_start(5), 0);
        assert_eq!(t.cwnd, 12);
        // L = 1 (RFC 5681): one segment per ACK however much it covers.
        t.abc_limit = 1;
        t.slow_start(30);
        assert_eq!(t.cwnd, 13);
    }

    #[test]
    fn additive_increase_is_one_segment_per_window() {
        let mut t = Tcb::new(1000, 10);
        for _ in 0..9 {
            t.cong_avoid_ai(10, 1);
        }
        assert_eq!(t.cwnd, 10);
        t.cong_avoid_ai(10, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt), (11, 0));
        // 25 segments acknowledged at once with w = 11: two increments, 3 left.
        t.cong_avoid_ai(11, 25);
        assert_eq!((t.cwnd, t.cwnd_cnt), (13, 3));
    }
}

//! Delivery-rate estimation, for model-based congestion control (BBR): one rate
//! sample per ACK, from the segments it newly acknowledges or SACKs.
//!
//! Reference: draft-cheng-iccrg-delivery-rate-estimation-00 (§3), as Linux implements
//! it in `tcp_rate.c` (4.9–4.19, the kernels of BBR v1). Counting is in segments, as
//! Linux (the draft counts bytes).
//!
//! * **On transmission** (§3.2, `tcp_rate_skb_sent`): if nothing is outstanding, the
//!   send and delivery clocks restart (`first_sent_time = delivered_time = now`); the
//!   segment is stamped with the connection's `delivered`, `delivered_time`,
//!   `first_sent_time` and whether it is application-limited. Retransmissions are
//!   stamped again.
//! * **On delivery** (§3.3 UpdateRateSample, `tcp_rate_skb_delivered`), for every
//!   segment newly SACKed or cumulatively acknowledged (a SACKed one counts once, when
//!   SACKed): `delivered += 1`, `delivered_time = now`; the sample takes its "prior"
//!   values from the delivered segment with the largest stamped `delivered` (the first
//!   such one on a tie, draft and Linux `after()`): prior_delivered, prior_time = its
//!   `delivered_time`, app-limited flag, send_elapsed = its send time − its
//!   `first_sent_time`; then `first_sent_time` = its send time.
//!   Without SACK, Linux counts deliveries from the duplicate ACKs instead
//!   (`tcp_add_reno_sack`: "some out-of-order packet is delivered", one per duplicate
//!   ACK), and a cumulative ACK of n segments then delivers max(n − those, 1)
//!   (`tcp_remove_reno_sacks`); the acknowledged segments still give the sample its
//!   prior. The sender does that counting (`count_delivered`). Two departures from
//!   Linux, so that no segment is counted twice (§3: one ACK must not claim what was
//!   delivered earlier): duplicates in `Loss` count nothing (Linux caps them at
//!   packets_out − lost_out, 0 after a timeout), and a timeout does not forget the
//!   segments duplicates counted before it (Linux resets `sacked_out`, and the
//!   cumulative ACK after the retransmission then counts them again: a sample of a
//!   whole window over about one RTT, far above the link, that BBR's max filter keeps).
//! * **Per ACK** (§3.3 GenerateRateSample, `tcp_rate_gen`): the app-limited mark is
//!   cleared once `delivered` passes it; delivered = delivered − prior_delivered,
//!   interval = max(send_elapsed, ack_elapsed = now − prior_time) ("to be safe we use
//!   the longer phase"); the sample is invalid if no stamped segment was delivered or
//!   if interval < min_rtt (§3.3: an interval shorter than the minimum RTT would
//!   overestimate the rate; Linux `tcp_rate_gen`), which includes every sample
//!   before the first RTT measurement. `delivered` is still reported then.
//! * **Application-limited** (§3.4, `tcp_rate_check_app_limited`): when the sender has
//!   less than a segment of new data, is not limited by cwnd and has no lost segment
//!   left to resend, `app_limited = delivered + in_flight` (1 if that is 0); samples
//!   from segments sent until that much is delivered are marked app-limited. Linux
//!   also starts a connection app-limited (`tp->app_limited = ~0U`, cleared by the
//!   first delivery); so does this.
//!
//! Not modelled: SACK reneging (this receiver never reneges), ECN counts.

use super::tcb::Tcb;
use crate::time::SimTime;

/// What a segment remembers of the connection when it was (re)transmitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxStamp {
    pub delivered: u64,
    pub delivered_time: SimTime,
    pub first_sent_time: SimTime,
    pub app_limited: bool,
}

/// The rate sample of one ACK (the part of Linux's `struct rate_sample` that comes
/// from the estimator).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    /// Segments delivered since the sampled segment was sent (0 when no segment
    /// with a stamp was delivered).
    pub delivered: u64,
    /// `None`: no valid sample on this ACK.
    pub interval: Option<SimTime>,
    /// The connection's `delivered` when the sampled segment was sent.
    pub prior_delivered: u64,
    pub is_app_limited: bool,
    /// Segments newly acknowledged or SACKed by this ACK.
    pub acked_sacked: u32,
}

/// The estimator's own state: the send clock, and the sample being built for the
/// ACK in progress.
#[derive(Clone, Copy, Debug, Default)]
pub struct RateEstimator {
    first_sent_time: SimTime,
    prior: Option<Prior>,
    acked_sacked: u32,
}

/// The sampled segment of the ACK in progress.
#[derive(Clone, Copy, Debug)]
struct Prior {
    delivered: u64,
    time: SimTime,
    app_limited: bool,
    send_elapsed: SimTime,
}

impl RateEstimator {
    /// A segment goes out at `now`; `nothing_outstanding`: no segment was in flight.
    pub fn on_send(&mut self, tcb: &mut Tcb, now: SimTime, nothing_outstanding: bool) -> TxStamp {
        if nothing_outstanding {
            self.first_sent_time = now;
            tcb.delivered_time = now;
        }
        TxStamp {
            delivered: tcb.delivered,
            delivered_time: tcb.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: tcb.app_limited.is_some(),
        }
    }

    /// A segment sent at `sent` with stamp `tx` is delivered (newly SACKed or
    /// cumulatively acknowledged) by the ACK arriving at `now`.
    pub fn on_delivered(&mut self, tcb: &mut Tcb, now: SimTime, tx: &TxStamp, sent: SimTime) {
        self.count_delivered(tcb, now, 1);
        self.sample(tx, sent);
    }

    /// `n` more segments delivered at `now`.
    pub fn count_delivered(&mut self, tcb: &mut Tcb, now: SimTime, n: u32) {
        if n > 0 {
            tcb.delivered += u64::from(n);
            tcb.delivered_time = now;
            self.acked_sacked += n;
        }
    }

    /// The prior of the sample from a delivered segment (sent at `sent`, stamp `tx`).
    pub fn sample(&mut self, tx: &TxStamp, sent: SimTime) {
        if self.prior.is_none_or(|p| tx.delivered > p.delivered) {
            self.prior = Some(Prior {
                delivered: tx.delivered,
                time: tx.delivered_time,
                app_limited: tx.app_limited,
                send_elapsed: sent - tx.first_sent_time,
            });
            self.first_sent_time = sent;
        }
    }

    /// Ends the ACK: its rate sample.
    pub fn take_sample(&mut self, tcb: &mut Tcb, now: SimTime) -> Delivery {
        if tcb.app_limited.is_some_and(|mark| tcb.delivered > mark) {
            tcb.app_limited = None;
        }
        let acked_sacked = std::mem::take(&mut self.acked_sacked);
        let Some(p) = self.prior.take() else {
            return Delivery {
                acked_sacked,
                ..Delivery::default()
            };
        };
        let interval = p.send_elapsed.max(now - p.time);
        // Before the first RTT sample min_rtt is infinite: no sample is valid (Linux).
        let valid = interval > SimTime::ZERO && interval >= tcb.min_rtt;
        Delivery {
            delivered: tcb.delivered - p.delivered,
            interval: valid.then_some(interval),
            prior_delivered: p.delivered,
            is_app_limited: p.app_limited,
            acked_sacked,
        }
    }
}

/// §3.4: marks the connection application-limited (`in_flight` in segments).
pub fn mark_app_limited(tcb: &mut Tcb, in_flight: u32) {
    tcb.app_limited = Some((tcb.delivered + u64::from(in_flight)).max(1));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn tcb() -> Tcb {
        let mut t = Tcb::new(1000, 10);
        t.app_limited = None;
        t.min_rtt = ms(100);
        t
    }

    #[test]
    fn a_window_sent_back_to_back_gives_its_ack_rate() {
        // Four segments at t = 0, 1, 2, 3 ms on an idle connection, each acknowledged
        // 100 ms after it was sent. The clocks restart at the first send: every stamp
        // is (delivered 0, delivered_time 0, first_sent_time 0).
        let (mut r, mut t) = (RateEstimator::default(), tcb());
        let stamps: Vec<TxStamp> = (0..4).map(|i| r.on_send(&mut t, ms(i), i == 0)).collect();
        assert!(stamps.iter().all(|s| *s == stamps[0]));
        // The ACK of segment 0 at 100 ms: delivered 1 over max(0 − 0, 100 − 0) ms.
        r.on_delivered(&mut t, ms(100), &stamps[0], ms(0));
        let d = r.take_sample(&mut t, ms(100));
        assert_eq!((d.delivered, d.interval), (1, Some(ms(100))));
        // first_sent_time is now segment 0's send time (0): the ACK of segment 3 at
        // 103 ms samples the same prior (delivered 0 at 0 ms): 4 segments over
        // max(3 − 0, 103 − 0) = 103 ms.
        for i in 1..4 {
            r.on_delivered(&mut t, ms(100 + i), &stamps[i as usize], ms(i));
            if i < 3 {
                r.take_sample(&mut t, ms(100 + i));
            }
        }
        let d = r.take_sample(&mut t, ms(103));
        assert_eq!((d.delivered, d.interval), (4, Some(ms(103))));
        assert_eq!((t.delivered, t.delivered_time), (4, ms(103)));
    }

    #[test]
    fn the_send_phase_wins_when_acks_arrive_compressed() {
        // A is sent at 0 ms on an idle connection, B at 50 ms (no ACK in between: both
        // stamped delivered 0, delivered_time 0, first_sent_time 0). One stretch ACK at
        // 120 ms covers both: the prior is A (the first with delivered 0), send_elapsed
        // 0, ack_elapsed 120 → 2 segments over 120 ms; first_sent_time becomes A's
        // send time, 0. C goes out at 130 ms while another segment is still
        // outstanding (no restart): stamp (delivered 2, delivered_time 120,
        // first_sent_time 0). Its ACK at 135 ms: send_elapsed 130 − 0 = 130 beats
        // ack_elapsed 135 − 120 = 15: 1 segment over 130 ms.
        let (mut r, mut t) = (RateEstimator::default(), tcb());
        let a = r.on_send(&mut t, ms(0), true);
        let b = r.on_send(&mut t, ms(50), false);
        r.on_delivered(&mut t, ms(120), &a, ms(0));
        r.on_delivered(&mut t, ms(120), &b, ms(50));
        let d = r.take_sample(&mut t, ms(120));
        assert_eq!(
            (d.delivered, d.interval, d.acked_sacked),
            (2, Some(ms(120)), 2)
        );
        let c = r.on_send(&mut t, ms(130), false);
        assert_eq!(
            (c.delivered, c.delivered_time, c.first_sent_time),
            (2, ms(120), ms(0))
        );
        r.on_delivered(&mut t, ms(135), &c, ms(130));
        let d = r.take_sample(&mut t, ms(135));
        assert_eq!((d.delivered, d.interval), (1, Some(ms(130))));
    }

    #[test]
    fn a_sample_shorter_than_min_rtt_is_invalid() {
        // min_rtt 100 ms; a segment acknowledged 60 ms after it was sent on an idle
        // connection gives interval 60 ms < 100 ms: no rate, though it is delivered.
        let (mut r, mut t) = (RateEstimator::default(), tcb());
        let s = r.on_send(&mut t, ms(0), true);
        r.on_delivered(&mut t, ms(60), &s, ms(0));
        let d = r.take_sample(&mut t, ms(60));
        assert_eq!((d.interval, d.delivered, d.acked_sacked), (None, 1, 1));
        assert_eq!(t.delivered, 1);
        // An ACK that delivers nothing has no sample either.
        assert_eq!(r.take_sample(&mut t, ms(70)).interval, None);
        // Nor any ACK before the first RTT measurement (min_rtt infinite).
        t.min_rtt = SimTime::MAX;
        let s = r.on_send(&mut t, ms(80), true);
        r.on_delivered(&mut t, ms(500), &s, ms(80));
        assert_eq!(r.take_sample(&mut t, ms(500)).interval, None);
    }

    #[test]
    fn app_limited_marks_last_until_the_bubble_is_delivered() {
        // delivered 5, 3 in flight: the mark is 8. Segments sent now are app-limited;
        // the mark clears once delivered exceeds 8, at the fourth delivery.
        let (mut r, mut t) = (RateEstimator::default(), tcb());
        t.delivered = 5;
        mark_app_limited(&mut t, 3);
        assert_eq!(t.app_limited, Some(8));
        let s = r.on_send(&mut t, ms(0), true);
        assert!(s.app_limited);
        for i in 0..3 {
            r.on_delivered(&mut t, ms(200 + i), &s, ms(0));
        }
        assert!(r.take_sample(&mut t, ms(202)).is_app_limited);
        assert_eq!(t.app_limited, Some(8), "delivered 8 is not past 8");
        r.on_delivered(&mut t, ms(203), &s, ms(0));
        r.take_sample(&mut t, ms(203));
        assert_eq!(t.app_limited, None);
        assert!(!r.on_send(&mut t, ms(204), false).app_limited);
        // Nothing delivered and nothing in flight: the mark is 1, not 0.
        let mut fresh = tcb();
        mark_app_limited(&mut fresh, 0);
        assert_eq!(fresh.app_limited, Some(1));
    }

    #[test]
    fn a_connection_starts_app_limited_until_the_first_delivery() {
        // Linux tcp_init_sock: app_limited = ~0U, cleared when delivered passes it
        // (the first delivery, in u32 sequence arithmetic): mark 0 here.
        let t = Tcb::new(1000, 10);
        assert_eq!(t.app_limited, Some(0));
    }
}

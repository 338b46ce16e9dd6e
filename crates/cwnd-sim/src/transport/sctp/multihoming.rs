//! Multihoming (RFC 9260 §6.4, §8.1–§8.3): which destination carries new data and
//! which carries retransmissions, path and association failure, and heartbeats.
//!
//! * New data goes to the primary destination while it is active, otherwise to the
//!   first active destination in the order the peer's addresses are listed (failover,
//!   §6.4.1); when the primary becomes active again, data returns to it. With no
//!   active destination the primary is used.
//! * An alternate destination for a retransmission is the first active one other
//!   than the chunk's last destination (§6.4; `RetransmitTo` says when).
//! * Error counters (§8.2): a T3-rtx expiry, or a heartbeat unanswered within one RTO,
//!   adds one to the destination's counter; the destination becomes inactive when
//!   its counter exceeds Path.Max.Retrans (RFC 9260 settles on "exceeds" where RFC
//!   4960 §8.3 said "reaches"). The association counter (§8.1) counts T3 expiries on
//!   any destination and unanswered heartbeats on the destination carrying data; when
//!   it exceeds Association.Max.Retrans the peer is unreachable and the association
//!   stops. An acknowledged chunk or heartbeat clears the counters and makes its
//!   destination active.
//! * Heartbeats (§8.3): a destination is idle when no chunk that can measure its RTT
//!   — a first transmission of DATA; retransmissions cannot (Karn) — went to it in its
//!   heartbeat period, RTO + HB.interval jittered uniformly by ±RTO/2; an idle
//!   destination gets a HEARTBEAT at the end of the period; its
//!   HEARTBEAT ACK gives an RTT sample. Active or not, every idle destination is
//!   probed. Only the data sender heartbeats: the receiver has no data to place and
//!   answers to the address it heard from (§6.4), which is a simplification.

use rand::RngExt;

use super::chunk::Control;
use super::sender::{Outgoing, SctpSender};
use super::store::PacketStore;
use crate::time::SimTime;

impl SctpSender {
    /// The destination for new data.
    pub fn data_path(&self) -> usize {
        if self.paths[self.primary].active {
            return self.primary;
        }
        self.paths
            .iter()
            .position(|p| p.active)
            .unwrap_or(self.primary)
    }

    /// An active destination other than `last`.
    pub fn alternate_path(&self, last: usize) -> Option<usize> {
        (0..self.paths.len()).find(|&i| i != last && self.paths[i].active)
    }

    /// One more error on path `p`; `association` also counts it for the association.
    pub(super) fn on_path_error(&mut self, p: usize, association: bool) {
        let limit = self.cfg.path_max_retrans;
        let path = &mut self.paths[p];
        path.errors += 1;
        if path.errors > limit && path.active {
            path.active = false;
            path.stats.failures += 1;
        }
        if association {
            self.errors += 1;
            if self.errors > self.cfg.association_max_retrans {
                self.failed = true;
            }
        }
    }

    /// The next heartbeat event (send or loss), if heartbeats are on.
    pub fn heartbeat_deadline(&self) -> SimTime {
        if self.cfg.heartbeat_interval.is_none() {
            return SimTime::MAX;
        }
        self.paths
            .iter()
            .map(|p| match p.heartbeat_pending {
                Some((_, lost_at)) => lost_at.min(p.heartbeat_due),
                None => p.heartbeat_due,
            })
            .min()
            .unwrap_or(SimTime::MAX)
    }

    /// Starts the heartbeat period of every destination (at association set-up).
    pub fn start_heartbeats(&mut self, now: SimTime) {
        for p in 0..self.paths.len() {
            self.schedule_heartbeat(now, p);
        }
    }

    /// The next heartbeat of path `p` counted from `from`: RTO + HB.interval +
    /// (jitter − RTO/2), jitter uniform in [0, RTO].
    fn schedule_heartbeat(&mut self, from: SimTime, p: usize) {
        let Some(interval) = self.cfg.heartbeat_interval else {
            return;
        };
        let rto = self.paths[p].rto.rto();
        let jitter = self.rng.random_range(0..=rto.as_nanos());
        self.paths[p].heartbeat_period_start = from;
        self.paths[p].heartbeat_due = from + interval + SimTime(rto.as_nanos() / 2 + jitter);
    }

    /// Heartbeats due at `now`: lost ones are counted, idle destinations probed.
    pub fn on_heartbeat_timer(
        &mut self,
        now: SimTime,
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
    ) {
        for p in 0..self.paths.len() {
            if let Some((_, lost_at)) = self.paths[p].heartbeat_pending {
                if lost_at <= now {
                    self.paths[p].heartbeat_pending = None;
                    self.paths[p].rto.back_off();
                    let carries_data = self.data_path() == p;
                    self.on_path_error(p, carries_data);
                }
            }
            if self.paths[p].heartbeat_due > now {
                continue;
            }
            let start = self.paths[p].heartbeat_period_start;
            if let Some(last) = self.paths[p].last_new_data.filter(|&t| t >= start) {
                // New DATA went out within the period: not idle. The next period runs
                // from that transmission, and only DATA after it counts in it.
                self.schedule_heartbeat(last, p);
                self.paths[p].heartbeat_period_start = last + SimTime(1);
                continue;
            }
            self.schedule_heartbeat(now, p);
            if self.paths[p].heartbeat_pending.is_some() {
                continue;
            }
            let path = &mut self.paths[p];
            path.heartbeat_pending = Some((now, now + path.rto.rto()));
            path.stats.heartbeats_sent += 1;
            let body = store.alloc();
            store.get_mut(body).control.push(Control::Heartbeat {
                path: p as u8,
                sent: now,
            });
            out.push(Outgoing {
                body,
                path: p as u8,
                src: path.src,
                dst: path.dst,
            });
        }
    }

    /// A HEARTBEAT ACK for path `p`, echoing the heartbeat's sending time.
    pub fn on_heartbeat_ack(&mut self, now: SimTime, p: usize, sent: SimTime) {
        let Some(path) = self.paths.get_mut(p) else {
            return;
        };
        if path.heartbeat_pending.is_some_and(|(s, _)| s == sent) {
            path.heartbeat_pending = None;
        }
        path.rtt_sample(now - sent);
        path.stats.heartbeat_acks += 1;
        path.errors = 0;
        path.active = true;
        self.errors = 0;
    }
}

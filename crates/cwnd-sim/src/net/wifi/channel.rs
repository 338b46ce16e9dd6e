//! An 802.11 channel: the stations of one collision domain, each with a DropTail
//! interface queue (default 50 packets, ns-2's IFQ), contending with the DCF
//! (`dcf.rs`) for a shared medium.
//!
//! The channel advances from one virtual slot to the next. In a transmission slot:
//! one transmitter → the data frame reaches its destination `data_airtime + δ` after
//! the slot starts, unless the frame-error model corrupts it; the exchange occupies
//! the medium for T_s (data, SIFS, ACK, DIFS). Several transmitters → a collision,
//! T_c. A corrupted or collided frame is retried with a doubled window; after the
//! retry limit it is dropped. A frame that arrives at an empty station is subject to
//! a fresh backoff (no immediate access after an idle DIFS).
//!
//! Frame errors come from a configured packet error rate per data frame (ACK frames
//! are short and sent at the basic rate; they are not corrupted), and from the
//! channel's impairment stages: a frame a stage drops (an outage: the peer is out of
//! reach) is not acknowledged, so the MAC retries it like a corrupted one. Delay
//! stages do not apply to the air.

use std::collections::VecDeque;

use rand::RngExt;

use super::dcf::{Contention, NextSlot};
use super::timing::{Phy, SLOT};
use crate::net::impair::{ImpairmentChain, PacketMeta, Verdict};
use crate::packet::{NodeId, Packet};
use crate::rng::RngStream;
use crate::time::SimTime;
use crate::timer::LazyTimer;

/// Counters of a channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelStats {
    pub frames_delivered: u64,
    pub collisions: u64,
    pub corrupted: u64,
    pub retry_drops: u64,
    pub queue_drops: u64,
}

/// What became of a packet handed to a station.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueued {
    Accepted,
    QueueFull,
}

pub struct WifiChannel {
    pub name: String,
    /// The node of each station.
    pub stations: Vec<NodeId>,
    phy: Phy,
    queue_limit: usize,
    /// Per station: packets waiting, with the index of the destination station.
    queues: Vec<VecDeque<(Packet, usize)>>,
    contention: Contention,
    per: f64,
    rng: RngStream,
    /// When the medium is free for the next decision; `None` while nobody contends.
    next_decision: Option<SimTime>,
    /// A data frame on its way: (arrival time, receiving node, packet).
    arriving: Option<(SimTime, NodeId, Packet)>,
    timer: LazyTimer,
    /// Stages applied to each data frame sent (loss stages and outages).
    pub impairments: ImpairmentChain,
    pub stats: ChannelStats,
    /// Flows of the packets dropped since the owner last looked (retry limit).
    pub dropped: Vec<Packet>,
}

impl WifiChannel {
    pub fn new(
        name: String,
        stations: Vec<NodeId>,
        phy: Phy,
        queue_limit: usize,
        per: f64,
        contention_rng: RngStream,
        error_rng: RngStream,
    ) -> Self {
        let n = stations.len();
        WifiChannel {
            name,
            stations,
            phy,
            queue_limit,
            queues: vec![VecDeque::new(); n],
            contention: Contention::new(n, contention_rng),
            per,
            rng: error_rng,
            next_decision: None,
            arriving: None,
            timer: LazyTimer::default(),
            impairments: ImpairmentChain::default(),
            stats: ChannelStats::default(),
            dropped: Vec::new(),
        }
    }

    fn station_of(&self, node: NodeId) -> Option<usize> {
        self.stations.iter().position(|&n| n == node)
    }

    /// Station `from` (a node) sends `packet` to station `to` over the air.
    pub fn enqueue(&mut self, now: SimTime, from: NodeId, to: NodeId, packet: Packet) -> Enqueued {
        let (Some(i), Some(j)) = (self.station_of(from), self.station_of(to)) else {
            unreachable!("routing sends only between stations of the channel");
        };
        if self.queues[i].len() >= self.queue_limit {
            self.stats.queue_drops += 1;
            return Enqueued::QueueFull;
        }
        self.queues[i].push_back((packet, j));
        if !self.contention.contending(i) {
            self.contention.ready(i);
        }
        if self.next_decision.is_none() {
            // The medium was idle: contention starts after DIFS.
            self.next_decision = Some(now + super::timing::DIFS);
        }
        Enqueued::Accepted
    }

    /// The time of the next thing the channel has to do, if an event is needed
    /// earlier than the one pending.
    pub fn event_to_schedule(&mut self) -> Option<SimTime> {
        let next = match (self.arriving.as_ref().map(|a| a.0), self.next_decision) {
            (Some(a), Some(d)) => a.min(d),
            (a, d) => a.or(d)?,
        };
        self.timer.arm(next)
    }

    /// Processes everything due at `now`; received packets are pushed to `delivered`
    /// as (receiving node, packet).
    pub fn on_event(&mut self, now: SimTime, delivered: &mut Vec<(NodeId, Packet)>) {
        if !self.timer.fire(now) {
            return;
        }
        if self.arriving.as_ref().is_some_and(|a| a.0 <= now) {
            let (_, node, packet) = self.arriving.take().unwrap_or_else(|| unreachable!());
            self.stats.frames_delivered += 1;
            delivered.push((node, packet));
        }
        while let Some(t) = self.next_decision.filter(|&t| t <= now) {
            self.decide(t);
        }
    }

    /// Resolves the virtual slot starting at `t` and sets the next decision time.
    fn decide(&mut self, t: SimTime) {
        if !self.contention.busy() {
            self.next_decision = None;
            return;
        }
        match self.contention.next_slot() {
            NextSlot::Idle(k) => {
                self.next_decision = Some(t + SLOT.saturating_mul(k as u64));
            }
            NextSlot::Transmit(tx) if tx.len() == 1 => {
                let i = tx[0];
                let (size, lost) = match self.queues[i].front() {
                    Some((p, _)) => {
                        let meta = PacketMeta {
                            flow: p.flow,
                            class: p.class(),
                            size: p.size,
                            sent: t + self.phy.data_airtime(p.size),
                        };
                        (p.size, self.impairments.apply(&meta) == Verdict::Drop)
                    }
                    None => (0, false),
                };
                if lost || (self.per > 0.0 && self.rng.random::<f64>() < self.per) {
                    self.stats.corrupted += 1;
                    self.fail(i);
                    self.next_decision = Some(t + self.phy.collision_time(size));
                } else {
                    let (packet, j) = self.queues[i].pop_front().unwrap_or_else(|| unreachable!());
                    let arrival = t + self.phy.data_airtime(size) + self.phy.propagation;
                    self.arriving = Some((arrival, self.stations[j], packet));
                    let more = !self.queues[i].is_empty();
                    self.contention.success(i, more);
                    self.next_decision = Some(t + self.phy.success_time(size));
                }
            }
            NextSlot::Transmit(tx) => {
                self.stats.collisions += 1;
                let longest = tx
                    .iter()
                    .filter_map(|&i| self.queues[i].front().map(|(p, _)| p.size))
                    .max()
                    .unwrap_or(0);
                for i in tx {
                    self.fail(i);
                }
                self.next_decision = Some(t + self.phy.collision_time(longest));
            }
        }
    }

    fn fail(&mut self, i: usize) {
        let queues = &self.queues;
        let more_after_drop = || queues[i].len() > 1;
        if self.contention.failure(i, more_after_drop) {
            self.stats.retry_drops += 1;
            if let Some((p, _)) = self.queues[i].pop_front() {
                self.dropped.push(p);
            }
        }
    }
}

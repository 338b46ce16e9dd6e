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
//! Frames larger than the RTS threshold are preceded by an RTS/CTS handshake
//! (collisions then involve RTS frames only; the data frame's failures count against
//! the long retry limit).
//!
//! Frame errors come from a configured packet error rate per data frame, or from the
//! SNR between the stations (`propagation`, `frame_errors`: the rate depends on the
//! frame's size and data rate); ACK, RTS and CTS frames are short and sent at the
//! basic rate: they are not corrupted. A frame a stage of the channel's impairment
//! chain drops (an outage: the peer is out of reach) is not acknowledged either, so
//! the MAC retries it like a corrupted one. Delay stages do not apply to the air.

use std::collections::VecDeque;

use rand::RngExt;

use super::dcf::{Contention, NextSlot, Retry};
use super::frame_errors::frame_error_rate;
use super::propagation::RadioLink;
use super::timing::{Access, Phy, MAC_OVERHEAD, SLOT};
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
    /// Frames sent again after a collision or a corruption.
    pub retries: u64,
    /// Frames dropped after the retry limit.
    pub retry_drops: u64,
    pub queue_drops: u64,
}

impl ChannelStats {
    /// The counters by name, for results.
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("frames_delivered", self.frames_delivered),
            ("collisions", self.collisions),
            ("corrupted", self.corrupted),
            ("retries", self.retries),
            ("retry_drops", self.retry_drops),
            ("queue_drops", self.queue_drops),
        ]
    }
}

/// Where data frame errors come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameErrors {
    /// This probability per transmission.
    Fixed(f64),
    /// The frame error rate at the SNR of this radio link.
    Snr(RadioLink),
}

/// How a channel is set up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelConfig {
    pub phy: Phy,
    /// Interface queue of each station, packets.
    pub queue_limit: usize,
    pub errors: FrameErrors,
    /// Frames whose MPDU is longer than this many bytes use RTS/CTS.
    pub rts_threshold: Option<u32>,
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
    errors: FrameErrors,
    /// Frames whose MPDU is longer than this many bytes use RTS/CTS.
    rts_threshold: Option<u32>,
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
        config: ChannelConfig,
        contention_rng: RngStream,
        error_rng: RngStream,
    ) -> Self {
        let ChannelConfig {
            phy,
            queue_limit,
            errors,
            rts_threshold,
        } = config;
        let n = stations.len();
        WifiChannel {
            name,
            stations,
            phy,
            queue_limit,
            queues: vec![VecDeque::new(); n],
            contention: Contention::new(n, contention_rng),
            errors,
            rts_threshold,
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
                let size = self.queues[i].front().map_or(0, |(p, _)| p.size);
                let access = self.access(size);
                let lost = self.queues[i].front().is_some_and(|(p, _)| {
                    let meta = PacketMeta {
                        flow: p.flow,
                        class: p.class(),
                        size: p.size,
                        sent: t + self.phy.data_arrival(p.size, access),
                    };
                    self.impairments.apply(&meta) == Verdict::Drop
                });
                let per = match self.errors {
                    FrameErrors::Fixed(per) => per,
                    FrameErrors::Snr(radio) => frame_error_rate(
                        self.phy.rate,
                        self.phy.header_rate,
                        size + MAC_OVERHEAD,
                        radio.snr(),
                    ),
                };
                if lost || (per > 0.0 && self.rng.random::<f64>() < per) {
                    self.stats.corrupted += 1;
                    let retry = match access {
                        Access::Basic => Retry::Short,
                        Access::RtsCts => Retry::Long,
                    };
                    self.fail(i, retry);
                    self.next_decision = Some(t + self.phy.failure_time(size, access));
                } else {
                    let (packet, j) = self.queues[i].pop_front().unwrap_or_else(|| unreachable!());
                    let arrival = t + self.phy.data_arrival(size, access);
                    self.arriving = Some((arrival, self.stations[j], packet));
                    let more = !self.queues[i].is_empty();
                    self.contention.success(i, more);
                    self.next_decision = Some(t + self.phy.success_time(size, access));
                }
            }
            NextSlot::Transmit(tx) => {
                self.stats.collisions += 1;
                let busy = tx
                    .iter()
                    .filter_map(|&i| self.queues[i].front().map(|(p, _)| p.size))
                    .map(|size| self.phy.collision_time(size, self.access(size)))
                    .max()
                    .unwrap_or_default();
                for i in tx {
                    self.fail(i, Retry::Short);
                }
                self.next_decision = Some(t + busy);
            }
        }
    }

    /// Whether a frame carrying `ip_bytes` is preceded by RTS/CTS.
    fn access(&self, ip_bytes: u32) -> Access {
        match self.rts_threshold {
            Some(limit) if ip_bytes + MAC_OVERHEAD > limit => Access::RtsCts,
            _ => Access::Basic,
        }
    }

    fn fail(&mut self, i: usize, retry: Retry) {
        let queues = &self.queues;
        let more_after_drop = || queues[i].len() > 1;
        if self.contention.failure(i, retry, more_after_drop) {
            self.stats.retry_drops += 1;
            if let Some((p, _)) = self.queues[i].pop_front() {
                self.dropped.push(p);
            }
        } else {
            self.stats.retries += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame_errors::DsssRate;
    use super::super::propagation::PathLoss;
    use super::*;
    use crate::packet::{Payload, TcpData};
    use crate::rng::stream;

    fn packet(uid: u64) -> Packet {
        Packet {
            uid,
            flow: 0,
            src: 0,
            dst: 1,
            size: 1500,
            created: SimTime::ZERO,
            payload: Payload::TcpData(TcpData {
                seq: 0,
                len: 1460,
                ts_val: None,
                retransmission: false,
            }),
        }
    }

    /// One station sends `n` 1500-byte packets to the other; returns the stats.
    fn send_all(errors: FrameErrors, rts_threshold: Option<u32>, n: u64) -> ChannelStats {
        let config = ChannelConfig {
            phy: Phy::dsss(DsssRate::Mbps11, DsssRate::Mbps1),
            queue_limit: n as usize,
            errors,
            rts_threshold,
        };
        let mut c = WifiChannel::new(
            "w".into(),
            vec![0, 1],
            config,
            stream(3, "c"),
            stream(3, "e"),
        );
        for uid in 0..n {
            c.enqueue(SimTime::ZERO, 0, 1, packet(uid));
        }
        let mut out = Vec::new();
        while let Some(t) = c.event_to_schedule() {
            c.on_event(t, &mut out);
        }
        assert_eq!(out.len() as u64 + c.stats.retry_drops, n);
        c.stats
    }

    #[test]
    fn frame_errors_follow_the_snr_at_1000_m() {
        // ns-2's radio, two-ray ground, 1000 m: Pr = 0.28183815 · 1.5⁴ / 1000⁴ =
        // 1.42681e-12 W; noise kTB·F = 4.41473e-13 W: SNR 3.2319. CCK 11 Eb/N0 = 6.4639:
        // Pb = 2.2185e-6; FER of a 1536-byte MPDU = 1 − (1 − Pb)^12288 = 0.026892.
        // 40 000 frames: corrupted/attempts within 4 binomial standard errors (0.0032).
        let radio = RadioLink::ns2(PathLoss::TwoRayGround, 1000.0);
        let s = send_all(FrameErrors::Snr(radio), None, 40_000);
        let attempts = s.frames_delivered + s.corrupted;
        let fer = s.corrupted as f64 / attempts as f64;
        let se = (0.026_892f64 * (1.0 - 0.026_892) / attempts as f64).sqrt();
        assert!((fer - 0.026_892).abs() < 4.0 * se, "{fer}");
        assert_eq!(s.collisions, 0, "a lone sender never collides");
        assert_eq!(s.retries, s.corrupted, "every corrupted frame is retried");
        // At 500 m the SNR is 16 times higher: no frame is lost.
        let near = RadioLink::ns2(PathLoss::TwoRayGround, 500.0);
        assert_eq!(send_all(FrameErrors::Snr(near), None, 5_000).corrupted, 0);
    }

    #[test]
    fn data_frames_after_rts_cts_give_up_after_four_retries() {
        // Every frame corrupted: with RTS/CTS each packet is tried 1 + 4 times (long
        // retry limit), without it 1 + 7 times (short limit).
        let s = send_all(FrameErrors::Fixed(1.0), Some(500), 10);
        assert_eq!((s.corrupted, s.retries, s.retry_drops), (50, 40, 10));
        let s = send_all(FrameErrors::Fixed(1.0), None, 10);
        assert_eq!((s.corrupted, s.retries, s.retry_drops), (80, 70, 10));
    }
}

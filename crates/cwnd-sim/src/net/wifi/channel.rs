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
//! With RTS/CTS, a peer out of reach (an outage stage is active) answers no CTS:
//! the RTS fails, costs what an RTS collision costs and counts against the short
//! retry limit (802.11-2016 §10.3.4.4, dot11ShortRetryLimit 7 for RTS frames; ns-2's
//! `Mac802_11::RetransmitRTS` and ns-3's `WifiRemoteStationManager` count it so);
//! the data frame and its long retry count are not reached.
//!
//! MSDU lifetime (dot11MaxTransmitMSDULifetime, default 512 TU = 524.288 ms): when
//! a station wins a transmission slot, the frames at the head of its queue older
//! than the lifetime are discarded; the station sends nothing in that slot and
//! starts over with a fresh backoff for the next frame. A frame's age is counted from its arrival at the MAC
//! queue, as ns-3's `WifiMacQueue` does (`MaxDelay`, 500 ms: "MPDU dropped because
//! its lifetime expired"); the standard's DCF text starts the timer at the first
//! transmission attempt, which the retry limits almost always end first. ns-2's
//! `Mac/802_11` has no lifetime (`msdu_lifetime = "off"`).

use std::collections::VecDeque;

use rand::RngExt;

use super::dcf::{Contention, NextSlot, Retry};
use super::frame_errors::{frame_error_rate, DsssRate};
use super::propagation::RadioLink;
use super::timing::{Access, Modulation, Phy, MAC_OVERHEAD};
use crate::net::impair::{ImpairmentChain, PacketMeta, Verdict};
use crate::net::medium::{Loss, Medium, MediumReport, SendOutcome};
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
    /// RTS frames a peer out of reach did not answer.
    pub rts_failures: u64,
    /// Frames discarded because their lifetime had passed.
    pub lifetime_drops: u64,
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
            ("rts_failures", self.rts_failures),
            ("lifetime_drops", self.lifetime_drops),
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

/// A channel's PHY with its data frames' errors. The SNR model is 802.11b's
/// (`frame_errors.rs` has the DSSS and CCK error rates only): `new` refuses it on
/// an 802.11a/g PHY, so no channel holds that combination and every frame's error
/// rate has an answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhyErrors {
    phy: Phy,
    errors: DataErrors,
}

/// Data frame errors resolved against the PHY.
#[derive(Clone, Copy, Debug, PartialEq)]
enum DataErrors {
    /// This probability per transmission.
    Fixed(f64),
    /// 802.11b's frame error rate at the SNR of `link`, for data at `rate` after a
    /// PLCP header at `header_rate`.
    DsssSnr {
        link: RadioLink,
        rate: DsssRate,
        header_rate: DsssRate,
    },
}

impl PhyErrors {
    /// `phy` with its data frames' errors from `errors`; `None` for frame errors
    /// from the SNR on an 802.11a/g PHY, which has no such model here.
    pub fn new(phy: Phy, errors: FrameErrors) -> Option<PhyErrors> {
        let errors = match (errors, phy.modulation) {
            (FrameErrors::Fixed(per), _) => DataErrors::Fixed(per),
            (
                FrameErrors::Snr(link),
                Modulation::Dsss {
                    rate, header_rate, ..
                },
            ) => DataErrors::DsssSnr {
                link,
                rate,
                header_rate,
            },
            (FrameErrors::Snr(_), Modulation::Ofdm { .. }) => return None,
        };
        Some(PhyErrors { phy, errors })
    }

    pub fn phy(&self) -> Phy {
        self.phy
    }

    /// Where the data frames' errors come from.
    pub fn errors(&self) -> FrameErrors {
        match self.errors {
            DataErrors::Fixed(per) => FrameErrors::Fixed(per),
            DataErrors::DsssSnr { link, .. } => FrameErrors::Snr(link),
        }
    }
}

impl DataErrors {
    /// The probability that a data frame whose MPDU is `mpdu` bytes is corrupted.
    fn rate(self, mpdu: u32) -> f64 {
        match self {
            DataErrors::Fixed(per) => per,
            DataErrors::DsssSnr {
                link,
                rate,
                header_rate,
            } => frame_error_rate(rate, header_rate, mpdu, link.snr()),
        }
    }
}

/// How a channel is set up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelConfig {
    /// The PHY and its data frames' errors.
    pub phy: PhyErrors,
    /// Interface queue of each station, packets.
    pub queue_limit: usize,
    /// Frames whose MPDU is longer than this many bytes use RTS/CTS.
    pub rts_threshold: Option<u32>,
    /// Frames older than this when their turn comes are discarded (`None`: never).
    pub msdu_lifetime: Option<SimTime>,
}

/// The MSDU lifetime the standard sets by default: dot11MaxTransmitMSDULifetime =
/// 512 TU, 1 TU = 1024 µs (802.11-2016 Annex C), 512 · 1024 µs = 524.288 ms.
pub const DEFAULT_MSDU_LIFETIME: SimTime = SimTime::from_micros(512 * 1024);

/// A packet waiting in a station's queue.
struct Queued {
    packet: Packet,
    /// Index of the destination station.
    to: usize,
    /// When it reached the MAC.
    since: SimTime,
}

pub struct WifiChannel {
    pub name: String,
    /// The node of each station.
    pub stations: Vec<NodeId>,
    phy: Phy,
    queue_limit: usize,
    /// Per station: packets waiting.
    queues: Vec<VecDeque<Queued>>,
    contention: Contention,
    errors: DataErrors,
    /// Frames whose MPDU is longer than this many bytes use RTS/CTS.
    rts_threshold: Option<u32>,
    msdu_lifetime: Option<SimTime>,
    rng: RngStream,
    /// When the medium is free for the next decision; `None` while nobody contends.
    next_decision: Option<SimTime>,
    /// A data frame on its way: (arrival time, receiving node, packet).
    arriving: Option<(SimTime, NodeId, Packet)>,
    timer: LazyTimer,
    /// Stages applied to each data frame sent (loss stages and outages).
    pub impairments: ImpairmentChain,
    pub stats: ChannelStats,
    /// Packets dropped (retry limit, lifetime) since the world last looked.
    dropped: Vec<Packet>,
    /// The frame that reached its station in the event being handled.
    delivered: Option<(NodeId, Packet)>,
}

impl WifiChannel {
    /// The standard's name for the channel's PHY, for results.
    pub fn standard(&self) -> &'static str {
        self.phy.standard()
    }

    pub fn new(
        name: String,
        stations: Vec<NodeId>,
        config: ChannelConfig,
        contention_rng: RngStream,
        error_rng: RngStream,
    ) -> Self {
        let ChannelConfig {
            phy: PhyErrors { phy, errors },
            queue_limit,
            rts_threshold,
            msdu_lifetime,
        } = config;
        let n = stations.len();
        WifiChannel {
            name,
            stations,
            phy,
            queue_limit,
            queues: (0..n).map(|_| VecDeque::new()).collect(),
            contention: Contention::new(n, phy.cw_min, contention_rng),
            errors,
            rts_threshold,
            msdu_lifetime,
            rng: error_rng,
            next_decision: None,
            arriving: None,
            timer: LazyTimer::default(),
            impairments: ImpairmentChain::default(),
            stats: ChannelStats::default(),
            dropped: Vec::new(),
            delivered: None,
        }
    }

    fn station_of(&self, node: NodeId) -> Option<usize> {
        self.stations.iter().position(|&n| n == node)
    }

    /// Resolves the virtual slot starting at `t` and sets the next decision time.
    fn decide(&mut self, t: SimTime) {
        if !self.contention.busy() {
            self.next_decision = None;
            return;
        }
        match self.contention.next_slot() {
            NextSlot::Idle(k) => {
                self.next_decision = Some(t + self.phy.slot.saturating_mul(k as u64));
            }
            NextSlot::Transmit(mut tx) => {
                tx.retain(|&i| !self.discard_expired(i, t));
                self.next_decision = Some(match tx[..] {
                    [] => t + self.phy.slot,
                    [i] => self.attempt(i, t),
                    _ => self.collide(&tx, t),
                });
            }
        }
    }

    /// Station `i` alone transmits its head frame at `t`; returns when the medium
    /// is free again.
    fn attempt(&mut self, i: usize, t: SimTime) -> SimTime {
        let Some(head) = self.queues[i].front() else {
            unreachable!("only stations with a frame contend");
        };
        let size = head.packet.size;
        let access = self.access(size);
        let meta = |sent| PacketMeta {
            flow: head.packet.flow,
            class: head.packet.class(),
            size,
            sent,
        };
        if access == Access::RtsCts && self.impairments.cuts(&meta(t + self.phy.rts_arrival())) {
            self.stats.rts_failures += 1;
            self.fail(i, Retry::Short);
            return t + self.phy.collision_time(size, access);
        }
        let lost = self
            .impairments
            .apply(&meta(t + self.phy.data_arrival(size, access)))
            == Verdict::Drop;
        let per = self.errors.rate(size + MAC_OVERHEAD);
        if lost || (per > 0.0 && self.rng.random::<f64>() < per) {
            self.stats.corrupted += 1;
            let retry = match access {
                Access::Basic => Retry::Short,
                Access::RtsCts => Retry::Long,
            };
            self.fail(i, retry);
            return t + self.phy.failure_time(size, access);
        }
        let sent = self.queues[i].pop_front().unwrap_or_else(|| unreachable!());
        let arrival = t + self.phy.data_arrival(size, access);
        self.arriving = Some((arrival, self.stations[sent.to], sent.packet));
        let more = !self.queues[i].is_empty();
        self.contention.done(i, more);
        t + self.phy.success_time(size, access)
    }

    /// Several stations transmit at `t`: their frames (or RTS frames) collide.
    fn collide(&mut self, tx: &[usize], t: SimTime) -> SimTime {
        self.stats.collisions += 1;
        let busy = tx
            .iter()
            .filter_map(|&i| self.queues[i].front().map(|q| q.packet.size))
            .map(|size| self.phy.collision_time(size, self.access(size)))
            .max()
            .unwrap_or_default();
        for &i in tx {
            self.fail(i, Retry::Short);
        }
        t + busy
    }

    /// Discards the frames at the head of station `i`'s queue whose lifetime has
    /// passed at `t`; the station then starts over with a fresh backoff. Returns
    /// whether any was discarded.
    fn discard_expired(&mut self, i: usize, t: SimTime) -> bool {
        let Some(lifetime) = self.msdu_lifetime else {
            return false;
        };
        let mut discarded = false;
        while self.queues[i]
            .front()
            .is_some_and(|q| t - q.since > lifetime)
        {
            let q = self.queues[i].pop_front().unwrap_or_else(|| unreachable!());
            self.stats.lifetime_drops += 1;
            self.dropped.push(q.packet);
            discarded = true;
        }
        if discarded {
            let more = !self.queues[i].is_empty();
            self.contention.done(i, more);
        }
        discarded
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
            if let Some(q) = self.queues[i].pop_front() {
                self.dropped.push(q.packet);
            }
        } else {
            self.stats.retries += 1;
        }
    }
}

impl Medium for WifiChannel {
    fn fingerprint_kind(&self) -> u64 {
        7
    }

    /// Station `from` (a node) sends `packet` to station `to` over the air.
    fn send(&mut self, now: SimTime, from: NodeId, to: NodeId, packet: Packet) -> SendOutcome {
        let (Some(i), Some(j)) = (self.station_of(from), self.station_of(to)) else {
            unreachable!("routing sends only between stations of the channel");
        };
        if self.queues[i].len() >= self.queue_limit {
            self.stats.queue_drops += 1;
            return SendOutcome::DroppedQueue;
        }
        self.queues[i].push_back(Queued {
            packet,
            to: j,
            since: now,
        });
        if !self.contention.contending(i) {
            self.contention.ready(i);
        }
        if self.next_decision.is_none() {
            // The medium was idle: contention starts after DIFS.
            self.next_decision = Some(now + self.phy.difs());
        }
        SendOutcome::Accepted
    }

    /// The time of the next thing the channel has to do, if an event is needed
    /// earlier than the one pending.
    fn event_to_schedule(&mut self) -> Option<SimTime> {
        let next = match (self.arriving.as_ref().map(|a| a.0), self.next_decision) {
            (Some(a), Some(d)) => a.min(d),
            (a, d) => a.or(d)?,
        };
        self.timer.arm(next)
    }

    /// Processes everything due at `now`: the frame on its way arrives (kept for
    /// `next_delivery`), then the slots up to `now` are decided.
    fn on_event(&mut self, now: SimTime, lost: &mut Vec<(Packet, Loss)>) -> bool {
        if !self.timer.fire(now) {
            return false;
        }
        if self.arriving.as_ref().is_some_and(|a| a.0 <= now) {
            let (_, node, packet) = self.arriving.take().unwrap_or_else(|| unreachable!());
            self.stats.frames_delivered += 1;
            self.delivered = Some((node, packet));
        }
        while let Some(t) = self.next_decision.filter(|&t| t <= now) {
            self.decide(t);
        }
        lost.extend(self.dropped.drain(..).map(|p| (p, Loss::Medium)));
        true
    }

    fn next_delivery(&mut self, _now: SimTime) -> Option<(NodeId, Packet)> {
        self.delivered.take()
    }

    /// Frames on their way are not cut: the MAC retries what the stage then loses.
    fn trigger(&mut self, stage: usize, now: SimTime, _lost: &mut Vec<(Packet, Loss)>) {
        self.impairments.trigger(stage, now);
    }

    fn report(&mut self, _end: SimTime) -> MediumReport {
        MediumReport::Shared {
            name: self.name.clone(),
            kind: self.standard(),
            counters: self.stats.counters(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame_errors::DsssRate;
    use super::super::propagation::PathLoss;
    use super::*;
    use crate::net::impair::{AppliesTo, Impairment, Outage, Window};
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
                ecn: Default::default(),
                cwr: false,
            }),
        }
    }

    /// Two stations at 11 Mb/s, 1 Mb/s ACKs, long preamble, room for `queue` packets.
    fn channel(
        errors: FrameErrors,
        rts_threshold: Option<u32>,
        msdu_lifetime: Option<SimTime>,
        queue: usize,
    ) -> WifiChannel {
        let phy = Phy::dsss(DsssRate::Mbps11, DsssRate::Mbps1);
        let config = ChannelConfig {
            phy: PhyErrors::new(phy, errors).unwrap(),
            queue_limit: queue,
            rts_threshold,
            msdu_lifetime,
        };
        WifiChannel::new(
            "w".into(),
            vec![0, 1],
            config,
            stream(3, "c"),
            stream(3, "e"),
        )
    }

    /// Station 0 sends `n` 1500-byte packets, all queued at time 0, to station 1;
    /// returns the stats once the channel is idle.
    fn drain(mut c: WifiChannel, n: u64) -> ChannelStats {
        for uid in 0..n {
            c.send(SimTime::ZERO, 0, 1, packet(uid));
        }
        let (mut delivered, mut lost) = (0, Vec::new());
        while let Some(t) = c.event_to_schedule() {
            assert!(c.on_event(t, &mut lost));
            while c.next_delivery(t).is_some() {
                delivered += 1;
            }
        }
        let s = c.stats;
        assert_eq!(delivered, s.frames_delivered);
        // Every frame the MAC gave up on is handed to the world as lost.
        assert_eq!(lost.len() as u64, s.retry_drops + s.lifetime_drops);
        assert!(lost.iter().all(|&(_, why)| why == Loss::Medium));
        assert_eq!(s.frames_delivered + s.retry_drops + s.lifetime_drops, n);
        s
    }

    fn send_all(errors: FrameErrors, rts_threshold: Option<u32>, n: u64) -> ChannelStats {
        drain(channel(errors, rts_threshold, None, n as usize), n)
    }

    /// A channel whose peer is out of reach for good: an outage stage always active.
    fn out_of_reach(mut c: WifiChannel) -> WifiChannel {
        c.impairments.push(Impairment {
            applies_to: AppliesTo::All,
            window: Window::Always,
            stage: Box::new(Outage::default()),
        });
        c
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
    fn the_snr_model_comes_with_an_802_11b_phy_only() {
        // frame_errors.rs has DSSS and CCK bit error rates, none for OFDM: the pair
        // cannot be made, so no channel meets it.
        let radio = RadioLink::ns2(PathLoss::TwoRayGround, 1000.0);
        let ofdm = Phy::ofdm(
            super::super::ofdm::OfdmRate::Mbps54,
            super::super::ofdm::OfdmRate::Mbps6,
        );
        assert_eq!(PhyErrors::new(ofdm, FrameErrors::Snr(radio)), None);
        let fixed = PhyErrors::new(ofdm, FrameErrors::Fixed(0.1)).unwrap();
        assert_eq!(fixed.errors(), FrameErrors::Fixed(0.1));
        let dsss = Phy::dsss(DsssRate::Mbps11, DsssRate::Mbps1);
        let snr = PhyErrors::new(dsss, FrameErrors::Snr(radio)).unwrap();
        assert_eq!((snr.phy(), snr.errors()), (dsss, FrameErrors::Snr(radio)));
        // The rate at the SNR of 1000 m for a 1536-byte MPDU at 11 Mb/s after a long
        // preamble's header: 0.026892 (`frame_errors_follow_the_snr_at_1000_m`).
        assert!((snr.errors.rate(1536) - 0.026_892).abs() < 1e-5);
    }

    #[test]
    fn data_frames_after_rts_cts_give_up_after_four_tries() {
        // Every frame corrupted: with RTS/CTS each of the 10 packets is tried 4 times
        // (long retry limit: 40 corrupted, 3 · 10 = 30 retries), without it 7 times
        // (short limit: 70 corrupted, 60 retries).
        let s = send_all(FrameErrors::Fixed(1.0), Some(500), 10);
        assert_eq!((s.corrupted, s.retries, s.retry_drops), (40, 30, 10));
        let s = send_all(FrameErrors::Fixed(1.0), None, 10);
        assert_eq!((s.corrupted, s.retries, s.retry_drops), (70, 60, 10));
    }

    #[test]
    fn an_rts_to_a_peer_out_of_reach_fails_against_the_short_limit() {
        // No CTS comes back: each attempt is a failed RTS, counted against the short
        // retry limit (7): 7 RTS frames, 6 retries, then the frame is dropped. The
        // data frame is never sent, so nothing counts as corrupted and the long
        // limit (which would drop it after 4 data frames) is not reached.
        let c = out_of_reach(channel(FrameErrors::Fixed(0.0), Some(500), None, 1));
        let s = drain(c, 1);
        assert_eq!(
            (s.rts_failures, s.corrupted, s.retries, s.retry_drops),
            (7, 0, 6, 1)
        );
        // Without RTS/CTS the data frame itself is lost: 7 tries, short limit too.
        let c = out_of_reach(channel(FrameErrors::Fixed(0.0), None, None, 1));
        let s = drain(c, 1);
        assert_eq!(
            (s.rts_failures, s.corrupted, s.retries, s.retry_drops),
            (0, 7, 6, 1)
        );
    }

    #[test]
    fn a_failed_rts_holds_the_medium_for_an_rts_collision() {
        // 802.11b at 11 Mb/s, 1 Mb/s control frames: RTS 192 + 160 = 352 µs, then
        // the CTS timeout, taken as DIFS (50 µs) + δ (1 µs): 403 µs, what an RTS
        // collision costs (timing.rs), not the 2038.091 µs of a failed data frame
        // after a handshake. The first decision is at DIFS (50 µs) after the
        // enqueue; the first attempt is after k idle slots (20 µs each), so the
        // next decision is 50 + 20k + 403 µs.
        let mut c = out_of_reach(channel(FrameErrors::Fixed(0.0), Some(500), None, 1));
        c.send(SimTime::ZERO, 0, 1, packet(0));
        let mut lost = Vec::new();
        let first = c.event_to_schedule().unwrap();
        assert_eq!(first, SimTime::from_micros(50));
        c.on_event(first, &mut lost);
        let mut t = c.event_to_schedule().unwrap();
        let idle = t - first;
        assert_eq!(idle.as_nanos() % 20_000, 0, "{idle}");
        c.on_event(t, &mut lost);
        t = c.event_to_schedule().unwrap();
        assert_eq!(c.stats.rts_failures, 1);
        assert_eq!(t - first - idle, SimTime::from_micros(403));
    }

    #[test]
    fn a_frame_older_than_its_lifetime_is_discarded_when_its_turn_comes() {
        // Two frames queued at 0. The first goes at 50 µs (DIFS) + k₁ slots,
        // k₁ ≤ 31: at most 50 + 620 = 670 µs, within a 1 ms lifetime. The second's
        // turn is after the first exchange, T_s = 1675.091 µs (timing.rs), plus
        // k₂ ≤ 31 slots: between 50 + 1675.091 = 1725.091 µs (past 1 ms, so it is
        // discarded) and 670 + 1675.091 + 620 = 2965.091 µs (within 3 ms, so with a
        // 3 ms lifetime it is sent).
        let one_ms = channel(
            FrameErrors::Fixed(0.0),
            None,
            Some(SimTime::from_millis(1)),
            2,
        );
        let s = drain(one_ms, 2);
        assert_eq!((s.frames_delivered, s.lifetime_drops), (1, 1));
        let three_ms = channel(
            FrameErrors::Fixed(0.0),
            None,
            Some(SimTime::from_millis(3)),
            2,
        );
        let s = drain(three_ms, 2);
        assert_eq!((s.frames_delivered, s.lifetime_drops), (2, 0));
    }

    #[test]
    fn the_default_lifetime_is_512_time_units() {
        // 802.11-2016 Annex C: dot11MaxTransmitMSDULifetime 512 TU; 1 TU = 1024 µs.
        assert_eq!(DEFAULT_MSDU_LIFETIME, SimTime(524_288_000));
    }

    #[test]
    fn during_an_outage_the_lifetime_empties_the_queue_before_the_retry_limits() {
        // 50 frames queued at 0, peer out of reach, basic access: each frame takes
        // 8 tries of 1360.091 µs (data 1309.091 + DIFS 50 + δ 1) plus its backoff,
        // on average (31 + 63 + 127 + 255 + 511 + 1023·3)/2 = 2028 slots = 40.56 ms:
        // ~51.4 ms a frame, so about 524.288 / 51.4 ≈ 10 frames reach their retry
        // limit within the lifetime and the other ~40 are discarded by it.
        let c = out_of_reach(channel(
            FrameErrors::Fixed(0.0),
            None,
            Some(DEFAULT_MSDU_LIFETIME),
            50,
        ));
        let s = drain(c, 50);
        println!(
            "{} retry drops, {} lifetime drops",
            s.retry_drops, s.lifetime_drops
        );
        assert!((6..=15).contains(&s.retry_drops), "{s:?}");
        assert_eq!(s.lifetime_drops, 50 - s.retry_drops);
    }
}

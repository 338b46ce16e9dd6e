//! A point-to-multipoint 802.16 cell: one base station (BS), its subscriber
//! stations (SS), and the TDD frames that carry packets between them.
//!
//! Each subscriber has a downlink queue at the BS and an uplink queue at the SS
//! (DropTail, `queue_packets`). A packet becomes a MAC PDU of its IP size plus 10 B
//! (generic MAC header 6 B + CRC-32 4 B, §6.3.2.1); the queue is served as a byte
//! stream, so a PDU that does not fit in a frame is fragmented and continues in the
//! next one (fragmentation subheaders are not counted: simplification).
//!
//! At the start of every frame the BS schedules both subframes:
//! 1. each subscriber's channel gets a fading gain for the frame, its SNR and, by
//!    AMC, a scheme (`mcs`);
//! 2. downlink: the subscribers with queued data get one burst each, in
//!    round-robin order starting one further every frame, of as many symbols as
//!    their data needs at their scheme, until the region is full; the downlink
//!    rate cap limits the PDU bytes per frame (cap × frame / 8);
//! 3. uplink: the same, with one preamble symbol per burst; a packet can be granted
//!    only if it was queued before the previous frame's uplink contention slots,
//!    where the SS asks for bandwidth (request, then grant in the next UL-MAP).
//!
//! A packet arrives when the symbol carrying its last byte ends (plus the
//! propagation delay). Each FEC block (one symbol of a burst) is in error with
//! the block error rate of the burst's scheme at its SNR (`block_errors`); a PDU
//! with a block in error is lost — or, with ARQ, sent again `arq.delay` after its
//! failed attempt, ahead of new data, up to `arq.retries` times. ARQ delivers out
//! of order (the packets behind a retransmitted one are not held back).

use std::collections::VecDeque;

use rand::RngExt;

use super::block_errors::BlockErrorModel;
use super::fading::Fading;
use super::frame::{FrameLayout, UL_BURST_PREAMBLE_SYMBOLS};
use super::mcs::Mcs;
use crate::net::medium::{Loss, Medium, MediumReport, SendOutcome};
use crate::packet::{NodeId, Packet};
use crate::rng::RngStream;
use crate::time::SimTime;
use crate::timer::LazyTimer;

/// Generic MAC header (6 B) and CRC-32 (4 B) of a MAC PDU.
pub const MAC_OVERHEAD: u32 = 10;

/// Link-layer retransmission of PDUs with a block in error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arq {
    /// Retransmissions after the first attempt before the PDU is dropped.
    pub retries: u32,
    /// From the end of a failed attempt to the earliest retransmission (feedback).
    pub delay: SimTime,
}

/// Everything that describes a cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellParams {
    pub layout: FrameLayout,
    /// Mean SNR of every subscriber's channel (dB).
    pub snr_db: f64,
    /// `None`: a constant channel at `snr_db`.
    pub fading: Option<Fading>,
    pub amc_margin_db: f64,
    /// A fixed scheme instead of AMC.
    pub fixed_mcs: Option<Mcs>,
    pub downlink_cap_bps: Option<u64>,
    pub uplink_cap_bps: Option<u64>,
    pub queue_packets: usize,
    pub arq: Option<Arq>,
    pub propagation: SimTime,
}

/// Counters of a cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CellStats {
    pub frames: u64,
    pub packets_delivered: u64,
    /// PDUs lost to block errors (after ARQ, if any).
    pub packets_lost: u64,
    pub arq_retransmissions: u64,
    pub queue_drops: u64,
    pub blocks: u64,
    pub blocks_in_error: u64,
    /// Bursts sent with each scheme, from BPSK 1/2 to 64-QAM 3/4.
    pub bursts_per_mcs: [u64; 7],
}

impl CellStats {
    /// The counters by name, for results.
    pub fn counters(&self) -> Vec<(&'static str, u64)> {
        let mut v = vec![
            ("frames", self.frames),
            ("packets_delivered", self.packets_delivered),
            ("packets_lost", self.packets_lost),
            ("arq_retransmissions", self.arq_retransmissions),
            ("queue_drops", self.queue_drops),
            ("blocks", self.blocks),
            ("blocks_in_error", self.blocks_in_error),
        ];
        const BURSTS: [&str; 7] = [
            "bursts_bpsk_1_2",
            "bursts_qpsk_1_2",
            "bursts_qpsk_3_4",
            "bursts_16qam_1_2",
            "bursts_16qam_3_4",
            "bursts_64qam_2_3",
            "bursts_64qam_3_4",
        ];
        v.extend(BURSTS.iter().copied().zip(self.bursts_per_mcs));
        v
    }
}

struct Pdu {
    packet: Packet,
    enqueued: SimTime,
    /// PDU bytes still to send in this attempt.
    remaining: u32,
    corrupted: bool,
    attempts: u32,
    /// Earliest time a retransmission may be scheduled.
    retry_at: SimTime,
}

impl Pdu {
    fn size(&self) -> u32 {
        self.packet.size + MAC_OVERHEAD
    }
}

/// One direction of one subscriber's traffic.
#[derive(Default)]
struct Connection {
    queue: VecDeque<Pdu>,
    retransmit: VecDeque<Pdu>,
}

impl Connection {
    /// PDU bytes that may be sent in a frame starting at `start`, counting new
    /// packets queued at or before `cutoff`, up to `limit` (the queue is not walked
    /// further than a burst can reach).
    fn eligible_bytes(&self, start: SimTime, cutoff: Option<SimTime>, limit: u64) -> u64 {
        let retx = self.retransmit.iter().take_while(|p| p.retry_at <= start);
        let new = self
            .queue
            .iter()
            .take_while(|p| cutoff.is_some_and(|c| p.enqueued <= c));
        let mut sum = 0;
        for p in retx.chain(new) {
            sum += p.remaining as u64;
            if sum >= limit {
                return limit;
            }
        }
        sum
    }

    fn is_empty(&self) -> bool {
        self.queue.is_empty() && self.retransmit.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    Down,
    Up,
}

/// A subscriber's channel during the current frame.
#[derive(Clone, Copy, Debug)]
struct ChannelState {
    mcs: Mcs,
    bler: f64,
}

pub struct WimaxCell {
    pub name: String,
    pub base_station: NodeId,
    pub subscribers: Vec<NodeId>,
    params: CellParams,
    errors: BlockErrorModel,
    down: Vec<Connection>,
    up: Vec<Connection>,
    state: Vec<ChannelState>,
    /// Index of the next frame to schedule, if any traffic waits.
    next_frame: Option<u64>,
    /// Frames before this index have been scheduled.
    frames_done: u64,
    round_robin: usize,
    /// Packets on their way: (arrival, receiving node, packet), by arrival.
    arriving: VecDeque<(SimTime, NodeId, Packet)>,
    timer: LazyTimer,
    fading_rng: RngStream,
    error_rng: RngStream,
    pub stats: CellStats,
    /// Packets lost since the world last looked.
    dropped: Vec<Packet>,
}

impl WimaxCell {
    pub fn new(
        name: String,
        base_station: NodeId,
        subscribers: Vec<NodeId>,
        params: CellParams,
        fading_rng: RngStream,
        error_rng: RngStream,
    ) -> Self {
        let n = subscribers.len();
        let clear = ChannelState {
            mcs: Mcs::Bpsk1_2,
            bler: 0.0,
        };
        WimaxCell {
            name,
            base_station,
            subscribers,
            params,
            errors: BlockErrorModel::default(),
            down: (0..n).map(|_| Connection::default()).collect(),
            up: (0..n).map(|_| Connection::default()).collect(),
            state: vec![clear; n],
            next_frame: None,
            frames_done: 0,
            round_robin: 0,
            arriving: VecDeque::new(),
            timer: LazyTimer::default(),
            fading_rng,
            error_rng,
            stats: CellStats::default(),
            dropped: Vec::new(),
        }
    }

    fn frame_start(&self, k: u64) -> SimTime {
        self.params.layout.duration.saturating_mul(k)
    }

    /// Builds frame `k`: channel states, then the downlink and uplink bursts.
    fn schedule_frame(&mut self, k: u64) {
        let p = self.params;
        let start = self.frame_start(k);
        for s in 0..self.subscribers.len() {
            let gain = p.fading.map_or(1.0, |f| f.draw(&mut self.fading_rng));
            let snr_db = p.snr_db + 10.0 * gain.max(1e-30).log10();
            let mcs = p
                .fixed_mcs
                .unwrap_or_else(|| Mcs::adaptive(snr_db, p.amc_margin_db));
            let bler = self.errors.bler(mcs, snr_db);
            self.state[s] = ChannelState { mcs, bler };
        }
        let layout = p.layout;
        let frame = layout.duration;
        self.subframe(Way::Down, start, Some(start), p.downlink_cap_bps, frame);
        // Uplink grants cover what was queued before the previous frame's requests.
        let requests = start + layout.phy.symbol_offset(layout.ul_start);
        let cutoff = (requests >= frame).then(|| requests - frame);
        self.subframe(Way::Up, start, cutoff, p.uplink_cap_bps, frame);
        self.round_robin = (self.round_robin + 1) % self.subscribers.len();
        self.stats.frames += 1;
        self.frames_done = k + 1;
        let waiting = self.down.iter().chain(&self.up).any(|c| !c.is_empty());
        self.next_frame = waiting.then_some(k + 1);
    }

    fn subframe(
        &mut self,
        way: Way,
        start: SimTime,
        cutoff: Option<SimTime>,
        cap_bps: Option<u64>,
        frame: SimTime,
    ) {
        let layout = self.params.layout;
        let (mut symbol, end, preamble) = match way {
            Way::Down => (layout.dl_data_start, layout.dl_symbols, 0),
            Way::Up => (
                layout.ul_data_start,
                layout.ul_start + layout.ul_symbols,
                UL_BURST_PREAMBLE_SYMBOLS,
            ),
        };
        let mut budget = cap_bps.map_or(u64::MAX, |c| {
            (c as u128 * frame.as_nanos() as u128 / 8_000_000_000) as u64
        });
        let n = self.subscribers.len();
        for j in 0..n {
            let s = (self.round_robin + j) % n;
            let conn = match way {
                Way::Down => &self.down[s],
                Way::Up => &self.up[s],
            };
            if symbol + preamble >= end {
                break;
            }
            let per_symbol = self.state[s].mcs.bytes_per_symbol() as u64;
            let room = (end - symbol - preamble) * per_symbol;
            let want = conn.eligible_bytes(start, cutoff, room.min(budget));
            if want == 0 {
                continue;
            }
            let data_symbols = want.div_ceil(per_symbol).min(end - symbol - preamble);
            let bytes = want.min(data_symbols * per_symbol);
            budget -= bytes;
            self.stats.bursts_per_mcs[self.state[s].mcs as usize] += 1;
            self.burst(way, s, start, symbol + preamble, bytes);
            symbol += preamble + data_symbols;
        }
    }

    /// Sends `bytes` of subscriber `s`'s PDUs in a burst whose data starts at
    /// symbol `first` of the frame starting at `start`.
    fn burst(&mut self, way: Way, s: usize, start: SimTime, first: u64, bytes: u64) {
        let ChannelState { mcs, bler } = self.state[s];
        let per_symbol = mcs.bytes_per_symbol() as u64;
        let (mut offset, mut drawn): (u64, Option<(u64, bool)>) = (0, None);
        while offset < bytes {
            let conn = match way {
                Way::Down => &mut self.down[s],
                Way::Up => &mut self.up[s],
            };
            let from_retransmit = conn.retransmit.front().is_some_and(|p| p.retry_at <= start);
            let pdu = if from_retransmit {
                conn.retransmit.front_mut()
            } else {
                conn.queue.front_mut()
            };
            let Some(pdu) = pdu else {
                unreachable!("the burst was sized to the eligible bytes")
            };
            let take = (pdu.remaining as u64).min(bytes - offset);
            // Blocks this piece touches; each block's error is drawn once.
            let (a, b) = (offset / per_symbol, (offset + take - 1) / per_symbol);
            for block in a..=b {
                let in_error = match drawn {
                    Some((k, e)) if k == block => e,
                    _ => {
                        let e = self.error_rng.random::<f64>() < bler;
                        self.stats.blocks += 1;
                        self.stats.blocks_in_error += u64::from(e);
                        drawn = Some((block, e));
                        e
                    }
                };
                pdu.corrupted |= in_error;
            }
            pdu.remaining -= take as u32;
            offset += take;
            if pdu.remaining > 0 {
                continue;
            }
            let pdu = if from_retransmit {
                conn.retransmit.pop_front()
            } else {
                conn.queue.pop_front()
            };
            let pdu = pdu.unwrap_or_else(|| unreachable!());
            let layout = self.params.layout;
            let done = start + layout.end_of_symbol(first + b);
            self.complete(way, s, pdu, done);
        }
    }

    /// The last byte of `pdu` was sent at `done`.
    fn complete(&mut self, way: Way, s: usize, mut pdu: Pdu, done: SimTime) {
        if !pdu.corrupted {
            let to = match way {
                Way::Down => self.subscribers[s],
                Way::Up => self.base_station,
            };
            let arrival = done + self.params.propagation;
            let pos = if self.arriving.back().is_none_or(|b| b.0 <= arrival) {
                self.arriving.len()
            } else {
                self.arriving.partition_point(|x| x.0 <= arrival)
            };
            self.arriving.insert(pos, (arrival, to, pdu.packet));
            return;
        }
        match self.params.arq {
            Some(arq) if pdu.attempts < arq.retries => {
                self.stats.arq_retransmissions += 1;
                pdu.attempts += 1;
                pdu.corrupted = false;
                pdu.remaining = pdu.size();
                pdu.retry_at = done + arq.delay;
                let conn = match way {
                    Way::Down => &mut self.down[s],
                    Way::Up => &mut self.up[s],
                };
                conn.retransmit.push_back(pdu);
            }
            _ => {
                self.stats.packets_lost += 1;
                self.dropped.push(pdu.packet);
            }
        }
    }
}

impl Medium for WimaxCell {
    fn fingerprint_kind(&self) -> u64 {
        12
    }

    /// Station `from` sends `packet` to station `to` (one of them is the BS).
    fn send(&mut self, now: SimTime, from: NodeId, to: NodeId, packet: Packet) -> SendOutcome {
        let (way, peer) = if from == self.base_station {
            (Way::Down, to)
        } else {
            (Way::Up, from)
        };
        let Some(s) = self.subscribers.iter().position(|&n| n == peer) else {
            unreachable!("routing sends only between the BS and its subscribers");
        };
        let limit = self.params.queue_packets;
        let conn = match way {
            Way::Down => &mut self.down[s],
            Way::Up => &mut self.up[s],
        };
        if conn.queue.len() >= limit {
            self.stats.queue_drops += 1;
            return SendOutcome::DroppedQueue;
        }
        let remaining = packet.size + MAC_OVERHEAD;
        conn.queue.push_back(Pdu {
            packet,
            enqueued: now,
            remaining,
            corrupted: false,
            attempts: 0,
            retry_at: SimTime::ZERO,
        });
        if self.next_frame.is_none() {
            let frame = self.params.layout.duration.as_nanos();
            let k = now.as_nanos().div_ceil(frame).max(self.frames_done);
            self.next_frame = Some(k);
        }
        SendOutcome::Accepted
    }

    /// The time of the next thing the cell has to do, if an event is needed earlier
    /// than the one pending.
    fn event_to_schedule(&mut self) -> Option<SimTime> {
        let frame = self.next_frame.map(|k| self.frame_start(k));
        let next = match (self.arriving.front().map(|a| a.0), frame) {
            (Some(a), Some(f)) => a.min(f),
            (a, f) => a.or(f)?,
        };
        self.timer.arm(next)
    }

    /// Schedules the frames that start by `now`; the packets they lose go to `lost`,
    /// those that arrive by `now` wait for `next_delivery`.
    fn on_event(&mut self, now: SimTime, lost: &mut Vec<(Packet, Loss)>) -> bool {
        if !self.timer.fire(now) {
            return false;
        }
        while let Some(k) = self.next_frame.filter(|&k| self.frame_start(k) <= now) {
            self.schedule_frame(k);
        }
        lost.extend(self.dropped.drain(..).map(|p| (p, Loss::Medium)));
        true
    }

    fn next_delivery(&mut self, now: SimTime) -> Option<(NodeId, Packet)> {
        if self.arriving.front()?.0 > now {
            return None;
        }
        let (_, node, packet) = self.arriving.pop_front()?;
        self.stats.packets_delivered += 1;
        Some((node, packet))
    }

    fn report(&mut self, _end: SimTime) -> MediumReport {
        MediumReport::Shared {
            name: self.name.clone(),
            kind: "802.16",
            counters: self.stats.counters(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ofdm::OfdmPhy;
    use super::*;
    use crate::packet::{Payload, TcpData};
    use crate::rng::stream;

    const BS: NodeId = 0;
    const SS: NodeId = 1;

    fn packet(uid: u64, size: u32) -> Packet {
        Packet {
            uid,
            flow: 0,
            src: BS,
            dst: SS,
            size,
            created: SimTime::ZERO,
            payload: Payload::TcpData(TcpData {
                seq: 0,
                len: size - 40,
                ts_val: None,
                retransmission: false,
                ecn: Default::default(),
                cwr: false,
            }),
        }
    }

    /// 20 MHz, G = 1/4, 5 ms frames split evenly, one subscriber (see frame.rs:
    /// 170 downlink and 177 uplink data symbols).
    fn params(mcs: Option<Mcs>, snr_db: f64) -> CellParams {
        let phy = OfdmPhy {
            bandwidth_khz: 20_000,
            cp_divisor: 4,
        };
        CellParams {
            layout: FrameLayout::new(phy, SimTime::from_millis(5), 0.5, 1).unwrap(),
            snr_db,
            fading: None,
            amc_margin_db: 0.0,
            fixed_mcs: mcs,
            downlink_cap_bps: None,
            uplink_cap_bps: None,
            queue_packets: 100_000,
            arq: None,
            propagation: SimTime::ZERO,
        }
    }

    fn cell(p: CellParams) -> WimaxCell {
        WimaxCell::new("c".into(), BS, vec![SS], p, stream(1, "f"), stream(1, "e"))
    }

    /// Runs the cell up to `horizon`, returning the arrivals (time, node).
    fn run(c: &mut WimaxCell, horizon: SimTime) -> Vec<(SimTime, NodeId)> {
        let (mut got, mut lost) = (Vec::new(), Vec::new());
        let mut next = c.event_to_schedule();
        while let Some(t) = next.filter(|&t| t <= horizon) {
            c.on_event(t, &mut lost);
            while let Some((n, _)) = c.next_delivery(t) {
                got.push((t, n));
            }
            next = c.event_to_schedule();
        }
        got
    }

    #[test]
    fn downlink_throughput_per_scheme_is_the_frame_arithmetic() {
        // A saturated downlink moves 170 symbols × B bytes of PDUs per frame; 1500-byte
        // packets are 1510-byte PDUs sent back to back (fragmented across frames), so
        // after 200 frames floor(200 · 170 · B / 1510) packets have arrived.
        for mcs in Mcs::ALL {
            let mut c = cell(params(Some(mcs), 60.0));
            for uid in 0..5000 {
                c.send(SimTime::ZERO, BS, SS, packet(uid, 1500));
            }
            let got = run(&mut c, SimTime::from_millis(1000) - SimTime(1));
            let b = mcs.bytes_per_symbol() as u64;
            assert_eq!(got.len() as u64, 200 * 170 * b / 1510, "{mcs:?}");
            assert_eq!(c.stats.frames, 200);
            assert_eq!(c.stats.packets_lost, 0);
        }
    }

    #[test]
    fn the_first_packet_arrives_when_its_last_symbol_ends() {
        // 64-QAM 3/4 (108 B/symbol): the 1510-byte PDU fills blocks 0..=13 of the
        // burst, which starts at symbol 9: it ends with symbol 22, at
        // ceil(23 · 320 / 23.04 MHz) = 319 445 ns, plus 8 µs of propagation.
        let mut p = params(Some(Mcs::Qam64_3_4), 60.0);
        p.propagation = SimTime::from_micros(8);
        let mut c = cell(p);
        c.send(SimTime::ZERO, BS, SS, packet(1, 1500));
        assert_eq!(
            run(&mut c, SimTime::from_secs(1)),
            vec![(SimTime(327_445), SS)]
        );
    }

    #[test]
    fn uplink_is_granted_one_frame_later_and_capped() {
        // 26.4 Mb/s × 5 ms / 8 = 16 500 PDU bytes per frame, below the 177 − 1 = 176
        // symbols × 108 B = 19 008 the subframe holds. Packets queued at 0 are
        // granted from frame 1 (requested in frame 0): 199 frames by 1 s.
        let mut p = params(Some(Mcs::Qam64_3_4), 60.0);
        p.uplink_cap_bps = Some(26_400_000);
        let mut c = cell(p);
        for uid in 0..5000 {
            let mut up = packet(uid, 1500);
            (up.src, up.dst) = (SS, BS);
            c.send(SimTime::ZERO, SS, BS, up);
        }
        let got = run(&mut c, SimTime::from_millis(1000) - SimTime(1));
        assert_eq!(got.len() as u64, 199 * 16_500 / 1510);
        assert!(got
            .iter()
            .all(|&(t, n)| n == BS && t > SimTime::from_millis(5)));
    }

    #[test]
    fn arq_resends_what_errors_destroyed() {
        // QPSK 1/2 forced at 7.4 dB, 2 dB below its threshold: most 1510-byte PDUs
        // (63 blocks) are hit. Without ARQ they are lost; with 50 retries nothing is,
        // and every loss shows up as retransmissions.
        let lossy = params(Some(Mcs::Qpsk1_2), 7.4);
        let mut c = cell(lossy);
        for uid in 0..500 {
            c.send(SimTime::ZERO, BS, SS, packet(uid, 1500));
        }
        let got = run(&mut c, SimTime::from_secs(10));
        assert!(c.stats.packets_lost > 100, "{:?}", c.stats);
        assert_eq!(got.len() as u64 + c.stats.packets_lost, 500);
        let mut with_arq = lossy;
        with_arq.arq = Some(Arq {
            retries: 50,
            delay: SimTime::from_millis(5),
        });
        let mut c = cell(with_arq);
        for uid in 0..500 {
            c.send(SimTime::ZERO, BS, SS, packet(uid, 1500));
        }
        let got = run(&mut c, SimTime::from_secs(10));
        assert_eq!(got.len(), 500);
        assert_eq!(c.stats.packets_lost, 0);
        assert!(c.stats.arq_retransmissions > 100);
    }

    #[test]
    fn a_full_queue_drops() {
        let mut p = params(None, 30.0);
        p.queue_packets = 2;
        let mut c = cell(p);
        let outcomes: Vec<SendOutcome> = (0..3)
            .map(|uid| c.send(SimTime::ZERO, BS, SS, packet(uid, 1500)))
            .collect();
        assert_eq!(outcomes[2], SendOutcome::DroppedQueue);
        assert_eq!(c.stats.queue_drops, 1);
    }
}

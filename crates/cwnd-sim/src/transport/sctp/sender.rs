//! The data sender of an association (RFC 9260 §6.1–§6.3, §7.2): what to send and
//! where, SACK processing, fast retransmit with HTNA miss counting, T3-rtx expiry.
//! Window rules are in `cc`, path choice and heartbeats in `multihoming`, RR-SCTP
//! in `rr`.
//!
//! Sending (§6.1): chunks marked for retransmission go first (rule C), each packet
//! to its retransmission destination while that destination's flight size is below
//! its cwnd; then new data to the current data destination while its flight size is
//! below cwnd — a packet may take the flight up to one packet beyond cwnd (rule B)
//! — and the peer's window allows (rule A: the next chunk fits the peer's rwnd, or
//! nothing is outstanding), at most Max.Burst packets per opportunity (rule D, as a
//! packet count). Chunks are bundled up to the path MTU.
//!
//! SACK processing (§6.2.1 D, §6.3.2, §7.2.4): a SACK older than the cumulative TSN
//! ack point is ignored. Chunks newly acknowledged (by the cumulative ack or a gap
//! block) leave their path's flight size, clear the error counters (§8.1, §8.2),
//! give an RTT sample if they were being timed and never retransmitted (C5, Karn),
//! and feed their path's window (`cc`). rwnd = a_rwnd − user bytes still in flight.
//! Miss indications follow HTNA: each missing TSN below the highest TSN newly
//! acknowledged gets one; in Fast Recovery a SACK that advances the cumulative ack
//! gives one to every TSN it reports missing. A chunk in flight, not fast
//! retransmitted before, whose miss indications reach dupthresh is marked.
//!
//! Fast retransmit (§7.2.4): outside Fast Recovery, the window of every destination
//! the marked chunks were last sent to is reduced (§7.2.3), Fast Recovery begins
//! with the highest TSN sent as exit point, and the earliest marked chunks that fit
//! one packet are retransmitted at once whatever cwnd says; the rest wait for cwnd.
//! In Fast Recovery newly marked chunks change no window and wait for cwnd. T3-rtx
//! on that packet's destination is restarted when it carries the earliest chunk in
//! flight there (step 4). Fast Recovery ends when the cumulative ack reaches the exit
//! point.
//!
//! T3-rtx expiry on a destination (§6.3.3): its window goes to one chunk (§7.2.3),
//! its RTO doubles (E2), every chunk in flight to it is marked (and may be fast
//! retransmitted again, with its miss count reset, as Linux does), its and the
//! association's error counters grow (§8.1–§8.2), the earliest marked chunks that fit
//! one packet go out at once (E3) and the timer starts where they went (E4). Fast
//! Recovery ends, as in Linux (the timeout is a new loss episode).
//!
//! Flight sizes count DATA chunk bytes; a chunk marked for retransmission leaves the
//! flight (and its user bytes return to rwnd, §6.2.1 C) until it is sent again.

use super::app::AppSource;
use super::chunk::Sack;
use super::chunk::{padded, COMMON_HEADER, DATA_CHUNK_HEADER, IPV4_HEADER};
use super::config::{RetransmitTo, SenderConfig};
use super::outstanding::{ChunkState, EventId, Outstanding, Reason, SentChunk};
use super::path::Path;
use super::rr::{Detected, Rr};
use super::store::{BodyId, PacketStore};
use crate::packet::NodeId;
use crate::rng::RngStream;
use crate::time::SimTime;
use crate::transport::dupthresh::DupthreshAdapter;

/// A packet an endpoint wants sent: its body in the store, and where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outgoing {
    pub body: BodyId,
    /// Path index (for the data sender's packets; the receiver's replies use 0).
    pub path: u8,
    pub src: NodeId,
    pub dst: NodeId,
}

/// Counters of the data sender (each a column of the run summary, `results`, under
/// TCP's name where the meaning is the same).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct SenderStats {
    /// DATA chunks sent, retransmissions included, and their user bytes.
    #[serde(rename = "segments_sent")]
    pub chunks_sent: u64,
    pub bytes_sent: u64,
    #[serde(rename = "segments_retransmitted")]
    pub chunks_retransmitted: u64,
    pub bytes_retransmitted: u64,
    #[serde(rename = "acks_received")]
    pub sacks_received: u64,
    /// Duplicate TSNs reported by SACKs.
    pub duplicate_reports: u64,
    /// Entries into Fast Recovery.
    pub fast_retransmits: u64,
    /// Chunks marked by fast retransmit.
    pub chunks_fast_retransmitted: u64,
    /// T3-rtx expiries with data outstanding.
    pub timeouts: u64,
    /// Retransmission events RR-SCTP detection found spurious.
    pub spurious_detected: u64,
    /// Of those, the ones whose window Recovery raised.
    #[serde(rename = "spurious_undone")]
    pub spurious_recovered: u64,
    /// Timeouts the dupthresh adaptation counted as avoidable.
    pub avoidable_timeouts: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    FastRetransmit,
    Timeout,
}

impl EventKind {
    pub fn name(self) -> &'static str {
        match self {
            EventKind::FastRetransmit => "fast_retransmit",
            EventKind::Timeout => "timeout",
        }
    }
}

/// A retransmission event (RR-SCTP's unit: one per destination per Fast Recovery,
/// or one T3-rtx expiry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetransmissionEvent {
    pub time: SimTime,
    pub kind: EventKind,
    pub path: u8,
    /// When RR-SCTP detection found it spurious.
    pub detected: Option<SimTime>,
}

pub struct SctpSender {
    pub cfg: SenderConfig,
    pub paths: Vec<Path>,
    pub primary: usize,
    pub(super) queue: Outstanding,
    pub(super) next_tsn: u64,
    app: AppSource,
    /// Cumulative TSN ack point.
    pub(super) cumulative: u64,
    pub(super) peer_rwnd: u64,
    /// User bytes in flight (for rwnd).
    outstanding_bytes: u64,
    /// Chunks marked for retransmission.
    marked: usize,
    /// Fast Recovery exit point.
    pub(super) fast_recovery: Option<u64>,
    /// This Fast Recovery's event on each destination.
    recovery_events: Vec<Option<EventId>>,
    /// Association error counter (§8.1).
    pub(super) errors: u32,
    /// Association.Max.Retrans was exceeded: the peer is unreachable.
    pub failed: bool,
    pub rr: Rr,
    pub events: Vec<RetransmissionEvent>,
    /// Every retransmission made for an event: (event, TSN, copy).
    pub event_chunks: Vec<(EventId, u64, u8)>,
    pub(super) rng: RngStream,
    finished_at: Option<SimTime>,
    pub stats: SenderStats,
    // Per-SACK scratch, one entry per path (kept to avoid allocation).
    flight_before: Vec<u64>,
    acked: Vec<u64>,
    earliest: Vec<u64>,
    restart: Vec<bool>,
    fr_marked: Vec<u64>,
}

impl SctpSender {
    /// `paths`: (local address, peer address) per destination; `ssthresh` the initial
    /// threshold (the peer's a_rwnd, §7.2.1).
    pub fn new(
        cfg: SenderConfig,
        paths: &[(NodeId, NodeId)],
        primary: usize,
        ssthresh: u64,
        rng: RngStream,
    ) -> Self {
        let n = paths.len();
        let pmdcs = cfg.pmdcs();
        SctpSender {
            paths: paths
                .iter()
                .map(|&(s, d)| Path::new(s, d, pmdcs, cfg.rto, ssthresh))
                .collect(),
            primary,
            queue: Outstanding::new(1),
            next_tsn: 1,
            app: AppSource::new(
                cfg.message_size,
                cfg.max_user_data(),
                cfg.streams,
                cfg.unordered,
                cfg.app_bytes,
            ),
            cumulative: 0,
            peer_rwnd: ssthresh,
            outstanding_bytes: 0,
            marked: 0,
            fast_recovery: None,
            recovery_events: vec![None; n],
            errors: 0,
            failed: false,
            rr: Rr::new(cfg.rr, n, cfg.dupthresh),
            events: Vec::new(),
            event_chunks: Vec::new(),
            rng,
            finished_at: None,
            stats: SenderStats::default(),
            flight_before: vec![0; n],
            acked: vec![0; n],
            earliest: vec![0; n],
            restart: vec![false; n],
            fr_marked: Vec::new(),
            cfg,
        }
    }

    /// The peer's receive window (from INIT ACK): initial rwnd and ssthresh.
    pub fn set_peer_window(&mut self, a_rwnd: u64) {
        self.peer_rwnd = a_rwnd;
        for p in &mut self.paths {
            p.ssthresh = a_rwnd;
        }
    }

    pub fn cumulative_tsn(&self) -> u64 {
        self.cumulative
    }

    /// Highest TSN sent so far (0 before any).
    pub fn highest_tsn_sent(&self) -> u64 {
        self.next_tsn - 1
    }

    pub fn in_fast_recovery(&self) -> bool {
        self.fast_recovery.is_some()
    }

    /// The dupthresh in use (adapted by RR-SCTP when on).
    pub fn dupthresh(&self) -> u32 {
        self.rr.dupthresh(self.cfg.dupthresh)
    }

    /// When every byte of a finite transfer was acknowledged.
    pub fn finished_at(&self) -> Option<SimTime> {
        self.finished_at
    }

    /// No new data from now on.
    pub fn stop(&mut self) {
        self.app.stop();
    }

    /// Everything written was sent and acknowledged.
    pub fn all_acknowledged(&self) -> bool {
        self.app.exhausted() && self.queue.is_empty()
    }

    fn max_packet(&self) -> u32 {
        self.cfg.mtu
    }

    /// Sends what the rules allow: retransmissions, then new data.
    pub fn transmit(&mut self, now: SimTime, store: &mut PacketStore, out: &mut Vec<Outgoing>) {
        if self.failed {
            return;
        }
        if self.marked > 0 {
            self.send_marked(now, store, out, false);
        }
        let mut burst = 0;
        loop {
            if self.cfg.max_burst > 0 && burst >= self.cfg.max_burst {
                break;
            }
            let p = self.data_path();
            self.paths[p].decay_if_idle(now);
            if self.paths[p].flight >= self.paths[p].cwnd || !self.rwnd_allows() {
                break;
            }
            let body = store.alloc();
            let mut size = IPV4_HEADER + COMMON_HEADER;
            while let Some(len) = self.app.peek_len() {
                let wire = padded(DATA_CHUNK_HEADER + len);
                if size + wire > self.max_packet() || !self.rwnd_allows() {
                    break;
                }
                let chunk = self.app.next_chunk(self.next_tsn);
                self.next_tsn += 1;
                size += wire;
                store.get_mut(body).data.push(chunk);
                self.on_new_chunk(now, p, chunk);
            }
            if store.get(body).data.is_empty() {
                store.release(body);
                break;
            }
            self.finish_packet(now, p, body, out);
            burst += 1;
        }
    }

    /// Rule A: the next chunk fits the peer's window, or nothing is outstanding.
    fn rwnd_allows(&self) -> bool {
        match self.app.peek_len() {
            None => false,
            Some(len) => self.peer_rwnd >= len as u64 || self.outstanding_bytes == 0,
        }
    }

    fn on_new_chunk(&mut self, now: SimTime, p: usize, chunk: super::chunk::DataChunk) {
        let c = SentChunk {
            chunk,
            path: p as u8,
            sent: now,
            state: ChunkState::InFlight,
            misses: 0,
            fast_retransmitted: false,
            event: None,
        };
        let path = &mut self.paths[p];
        path.flight += c.size();
        path.stats.chunks_sent += 1;
        path.stats.bytes_sent += chunk.len as u64;
        if path.timed.is_none() {
            path.timed = Some((chunk.tsn, now));
        }
        path.last_new_data = Some(now);
        self.peer_rwnd = self.peer_rwnd.saturating_sub(chunk.len as u64);
        self.outstanding_bytes += chunk.len as u64;
        self.stats.chunks_sent += 1;
        self.stats.bytes_sent += chunk.len as u64;
        self.queue.push(c);
    }

    /// A packet with DATA leaves on path `p`: T3-rtx (R1) and idle state, then out.
    fn finish_packet(&mut self, now: SimTime, p: usize, body: BodyId, out: &mut Vec<Outgoing>) {
        let path = &mut self.paths[p];
        path.start_t3(now);
        path.last_data = Some(now);
        out.push(Outgoing {
            body,
            path: p as u8,
            src: path.src,
            dst: path.dst,
        });
    }

    /// Where a marked chunk is retransmitted (§6.4).
    fn retransmission_path(&self, c: &SentChunk) -> usize {
        let last = c.path as usize;
        let elsewhere = match self.cfg.retransmit_to {
            RetransmitTo::Same => false,
            RetransmitTo::Alternate => true,
            RetransmitTo::AlternateOnTimeout => c.state == ChunkState::Marked(Reason::Timeout),
        };
        if elsewhere {
            if let Some(a) = self.alternate_path(last) {
                return a;
            }
        }
        if self.paths[last].active {
            last
        } else {
            self.data_path()
        }
    }

    /// Retransmits marked chunks in TSN order, bundled per destination. `one_packet`:
    /// only the first packet, whatever cwnd says (fast retransmit step 3, T3 E3);
    /// otherwise while each destination's cwnd allows (rule C).
    fn send_marked(
        &mut self,
        now: SimTime,
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
        one_packet: bool,
    ) {
        let end = self.next_tsn;
        let mut tsn = self.cumulative + 1;
        while self.marked > 0 && tsn < end {
            let Some(&c) = self.queue.get(tsn) else {
                break;
            };
            if !matches!(c.state, ChunkState::Marked(_)) {
                tsn += 1;
                continue;
            }
            let d = self.retransmission_path(&c);
            if !one_packet && self.paths[d].flight >= self.paths[d].cwnd {
                tsn += 1;
                continue;
            }
            let body = store.alloc();
            let mut size = IPV4_HEADER + COMMON_HEADER;
            let mut t = tsn;
            while t < end && size < self.max_packet() {
                let Some(&c) = self.queue.get(t) else {
                    break;
                };
                t += 1;
                if !matches!(c.state, ChunkState::Marked(_)) || self.retransmission_path(&c) != d {
                    continue;
                }
                let wire = c.chunk.wire_size();
                if size + wire > self.max_packet() {
                    break;
                }
                size += wire;
                let chunk = self.retransmit(now, c.chunk.tsn, d);
                store.get_mut(body).data.push(chunk);
            }
            let first = store.get(body).data[0].tsn;
            self.finish_packet(now, d, body, out);
            if one_packet {
                // Step 4 / E4: the timer restarts if this packet carries the earliest
                // chunk in flight on its destination.
                if self.lowest_in_flight(d) == Some(first) {
                    self.paths[d].restart_t3(now);
                }
                return;
            }
            tsn += 1;
        }
    }

    /// Bookkeeping of one retransmission of `tsn` to path `d`; returns the chunk as sent.
    fn retransmit(&mut self, now: SimTime, tsn: u64, d: usize) -> super::chunk::DataChunk {
        let Some(c) = self.queue.get_mut(tsn) else {
            unreachable!("marked chunks are in the queue")
        };
        c.chunk.copy = c.chunk.copy.saturating_add(1).min(u8::MAX - 1);
        c.state = ChunkState::InFlight;
        c.path = d as u8;
        c.sent = now;
        let c = *c;
        self.marked -= 1;
        let len = c.chunk.len as u64;
        self.paths[d].flight += c.size();
        self.paths[d].stats.chunks_sent += 1;
        self.paths[d].stats.bytes_sent += len;
        self.paths[d].stats.chunks_retransmitted += 1;
        self.peer_rwnd = self.peer_rwnd.saturating_sub(len);
        self.outstanding_bytes += len;
        self.stats.chunks_sent += 1;
        self.stats.bytes_sent += len;
        self.stats.chunks_retransmitted += 1;
        self.stats.bytes_retransmitted += len;
        // C5: no RTT from a chunk sent after a retransmission of a lower TSN.
        for p in &mut self.paths {
            if p.timed.is_some_and(|(t, _)| t >= tsn) {
                p.timed = None;
            }
        }
        if let Some(e) = c.event {
            self.rr
                .on_retransmitted(self.events[e as usize].path as usize, e, tsn);
            self.event_chunks.push((e, tsn, c.chunk.copy));
        }
        c.chunk
    }

    /// The lowest TSN in flight on path `p`.
    fn lowest_in_flight(&self, p: usize) -> Option<u64> {
        self.queue
            .iter()
            .find(|c| c.path as usize == p && c.state == ChunkState::InFlight)
            .map(|c| c.chunk.tsn)
    }

    /// Marks a chunk for retransmission; it leaves the flight.
    fn mark(&mut self, tsn: u64, reason: Reason) {
        let Some(c) = self.queue.get_mut(tsn) else {
            return;
        };
        match c.state {
            ChunkState::InFlight => {
                let (p, size, len) = (c.path as usize, c.size(), c.chunk.len as u64);
                c.state = ChunkState::Marked(reason);
                self.marked += 1;
                self.paths[p].flight -= size;
                self.outstanding_bytes -= len;
                self.peer_rwnd += len;
            }
            ChunkState::Marked(_) => c.state = ChunkState::Marked(reason),
            ChunkState::GapAcked => {}
        }
    }

    fn new_event(&mut self, now: SimTime, kind: EventKind, p: usize) -> EventId {
        let id = self.events.len() as EventId;
        self.events.push(RetransmissionEvent {
            time: now,
            kind,
            path: p as u8,
            detected: None,
        });
        self.rr.on_event(p, id, self.cumulative, self.paths[p].cwnd);
        id
    }

    /// Processes a SACK chunk with its gap blocks and duplicate TSNs.
    pub fn on_sack(
        &mut self,
        now: SimTime,
        sack: &Sack,
        gaps: &[(u64, u64)],
        duplicates: &[u64],
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
    ) {
        self.stats.sacks_received += 1;
        if sack.cumulative_tsn < self.cumulative || sack.cumulative_tsn >= self.next_tsn {
            return;
        }
        self.begin_sack();
        let cumulative_advanced = sack.cumulative_tsn > self.cumulative;
        let mut htna = 0;
        while let Some(c) = self.queue.pop_through(sack.cumulative_tsn) {
            if c.state != ChunkState::GapAcked {
                self.on_chunk_acked(now, &c);
                htna = c.chunk.tsn;
            }
        }
        self.cumulative = sack.cumulative_tsn;
        for &(from, to) in gaps {
            if self.queue.is_empty() {
                break;
            }
            for tsn in self.queue.range(from, to) {
                let Some(c) = self.queue.get_mut(tsn) else {
                    break;
                };
                if c.state == ChunkState::GapAcked {
                    continue;
                }
                let acked = *c;
                c.state = ChunkState::GapAcked;
                self.on_chunk_acked(now, &acked);
                htna = htna.max(tsn);
            }
        }
        self.peer_rwnd = sack.a_rwnd.saturating_sub(self.outstanding_bytes);
        for &tsn in duplicates {
            self.stats.duplicate_reports += 1;
            if let Some(found) = self.rr.on_duplicate(tsn) {
                self.on_spurious(now, found);
            }
        }
        if self
            .fast_recovery
            .is_some_and(|exit| self.cumulative >= exit)
        {
            self.fast_recovery = None;
            self.recovery_events.fill(None);
        }
        let limit = match gaps.last() {
            Some(&(_, top)) if self.fast_recovery.is_some() && cumulative_advanced => top,
            _ => htna,
        };
        self.count_misses(limit);
        let in_recovery = self.fast_recovery.is_some();
        for p in 0..self.paths.len() {
            let l = self.cfg.abc_limit;
            let path = &mut self.paths[p];
            path.on_acked(self.acked[p], self.flight_before[p], in_recovery, l);
            if path.flight == 0 {
                path.on_all_acked();
                path.t3 = SimTime::MAX;
            } else if self.restart[p] {
                path.restart_t3(now);
            }
        }
        if !self.fr_marked.is_empty() {
            self.fast_retransmit(now, store, out);
        }
        if self.finished_at.is_none() && self.all_acknowledged() {
            self.finished_at = Some(now);
        }
        self.transmit(now, store, out);
    }

    /// Fills the per-path scratch before a SACK: flight sizes and the earliest TSN in
    /// flight on each path (R3).
    fn begin_sack(&mut self) {
        for p in 0..self.paths.len() {
            self.flight_before[p] = self.paths[p].flight;
            self.acked[p] = 0;
            self.earliest[p] = u64::MAX;
            self.restart[p] = false;
        }
        self.fr_marked.clear();
        let mut missing = self.paths.iter().filter(|p| p.flight > 0).count();
        for c in self.queue.iter() {
            if missing == 0 {
                break;
            }
            let p = c.path as usize;
            if c.state == ChunkState::InFlight && self.earliest[p] == u64::MAX {
                self.earliest[p] = c.chunk.tsn;
                missing -= 1;
            }
        }
    }

    fn on_chunk_acked(&mut self, now: SimTime, c: &SentChunk) {
        let p = c.path as usize;
        match c.state {
            ChunkState::InFlight => {
                self.paths[p].flight -= c.size();
                self.outstanding_bytes -= c.chunk.len as u64;
            }
            ChunkState::Marked(_) => {
                self.marked -= 1;
                if let Some(e) = c.event {
                    let path = self.events[e as usize].path as usize;
                    if let Some(found) = self.rr.on_acked_unsent(path, e) {
                        self.on_spurious(now, found);
                    }
                }
            }
            ChunkState::GapAcked => return,
        }
        self.acked[p] += c.size();
        if c.chunk.tsn == self.earliest[p] {
            self.restart[p] = true;
        }
        let path = &mut self.paths[p];
        if let Some((tsn, sent)) = path.timed {
            if tsn == c.chunk.tsn {
                path.timed = None;
                if c.chunk.copy == 0 {
                    path.rtt_sample(now - sent);
                }
            }
        }
        path.errors = 0;
        path.active = true;
        self.errors = 0;
        let event_path = c
            .event
            .filter(|_| c.chunk.copy > 0)
            .map(|e| self.events[e as usize].path as usize);
        self.rr.on_acked(c.chunk.tsn, c.misses, event_path);
    }

    /// HTNA: one miss indication for each missing TSN below `limit`; marks those that
    /// reach dupthresh.
    fn count_misses(&mut self, limit: u64) {
        if limit <= self.cumulative + 1 {
            return;
        }
        let dupthresh = self.dupthresh();
        for tsn in self.cumulative + 1..limit {
            let Some(c) = self.queue.get_mut(tsn) else {
                break;
            };
            if c.state == ChunkState::GapAcked {
                continue;
            }
            c.misses += 1;
            if c.state == ChunkState::InFlight && !c.fast_retransmitted && c.misses >= dupthresh {
                c.fast_retransmitted = true;
                self.fr_marked.push(tsn);
            }
        }
        for i in 0..self.fr_marked.len() {
            self.mark(self.fr_marked[i], Reason::FastRetransmit);
        }
    }

    /// §7.2.4 steps 2–6 for the chunks just marked.
    fn fast_retransmit(&mut self, now: SimTime, store: &mut PacketStore, out: &mut Vec<Outgoing>) {
        let entering = self.fast_recovery.is_none();
        for i in 0..self.fr_marked.len() {
            let tsn = self.fr_marked[i];
            let Some(p) = self.queue.get(tsn).map(|c| c.path as usize) else {
                continue;
            };
            let event = match self.recovery_events[p] {
                Some(e) => e,
                None => {
                    let e = self.new_event(now, EventKind::FastRetransmit, p);
                    self.recovery_events[p] = Some(e);
                    if entering {
                        self.paths[p].reduce_for_fast_retransmit();
                        self.paths[p].stats.fast_retransmits += 1;
                    }
                    e
                }
            };
            if let Some(c) = self.queue.get_mut(tsn) {
                c.event = Some(event);
            }
            self.rr.on_marked(p, event);
        }
        self.stats.chunks_fast_retransmitted += self.fr_marked.len() as u64;
        if entering {
            self.fast_recovery = Some(self.highest_tsn_sent());
            self.stats.fast_retransmits += 1;
            self.send_marked(now, store, out, true);
        }
    }

    /// T3-rtx of path `p` expired at `now`.
    pub fn on_t3_expiry(
        &mut self,
        now: SimTime,
        p: usize,
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
    ) {
        self.paths[p].t3 = SimTime::MAX;
        if self.paths[p].flight == 0 {
            return;
        }
        self.stats.timeouts += 1;
        self.paths[p].stats.timeouts += 1;
        let event = self.new_event(now, EventKind::Timeout, p);
        if self.rr.cfg.adapt_dupthresh && self.timeout_was_avoidable(p) {
            let r = self.cost_ratio(p, self.paths[p].cwnd);
            self.rr.adapter.on_avoidable_timeout(r);
            self.stats.avoidable_timeouts += 1;
        }
        self.paths[p].reduce_for_timeout();
        self.paths[p].rto.back_off();
        self.fast_recovery = None;
        self.recovery_events.fill(None);
        for tsn in self.cumulative + 1..self.next_tsn {
            let Some(c) = self.queue.get_mut(tsn) else {
                break;
            };
            if c.path as usize != p || c.state == ChunkState::GapAcked {
                continue;
            }
            c.event = Some(event);
            c.misses = 0;
            c.fast_retransmitted = false;
            self.mark(tsn, Reason::Timeout);
            self.rr.on_marked(p, event);
        }
        self.on_path_error(p, true);
        if !self.failed {
            self.send_marked(now, store, out, true);
            self.transmit(now, store, out);
        }
    }

    /// A chunk in flight on `p` had enough miss indications for the base dupthresh
    /// but not for the adapted one.
    fn timeout_was_avoidable(&self, p: usize) -> bool {
        self.queue.iter().any(|c| {
            c.path as usize == p
                && c.state == ChunkState::InFlight
                && !c.fast_retransmitted
                && c.misses >= self.cfg.dupthresh
        })
    }

    /// RR-SCTP's relative cost of a timeout on path `p` with window `cwnd`.
    fn cost_ratio(&self, p: usize, cwnd: u64) -> f64 {
        let path = &self.paths[p];
        let rto = path.rto.rto().as_nanos() as f64;
        let srtt = path.rto.srtt().map_or(rto, |s| s.as_nanos() as f64);
        DupthreshAdapter::cost_ratio(srtt, rto, cwnd as f64 / path.pmdcs as f64)
    }

    /// RR-SCTP found an event spurious: Recovery and the dupthresh adaptation.
    fn on_spurious(&mut self, now: SimTime, found: Detected) {
        self.stats.spurious_detected += 1;
        let event = &mut self.events[found.event as usize];
        event.detected = Some(now);
        let kind = event.kind;
        if self.rr.cfg.recovery && self.paths[found.path].cwnd < found.saved_cwnd {
            self.paths[found.path].ssthresh = found.saved_cwnd;
            self.stats.spurious_recovered += 1;
        }
        if self.rr.cfg.adapt_dupthresh && kind == EventKind::FastRetransmit {
            let r = self.cost_ratio(found.path, found.saved_cwnd);
            self.rr.adapter.on_spurious_fast_retransmit(r);
        }
    }
}

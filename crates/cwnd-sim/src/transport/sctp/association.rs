//! An SCTP association between a data sender (endpoint A, which opens and closes
//! it) and a data receiver (endpoint Z): the set-up and shutdown state machines
//! (RFC 9260 §5.1, §9.2), the timers, and the routing of chunks to the two ends.
//!
//! Set-up: A sends INIT to its primary destination and starts T1-init; Z answers
//! INIT ACK with a cookie and keeps no state; A sends COOKIE ECHO (T1-cookie); Z
//! becomes ESTABLISHED and answers COOKIE ACK; then A is ESTABLISHED and sends data.
//! T1 starts at RTO.Initial and doubles at each expiry; after Max.Init.Retransmits
//! retransmissions the set-up is abandoned. INIT and COOKIE ECHO go to the primary
//! only (RFC 9260 lets a multihomed endpoint try other addresses), no DATA is bundled
//! with COOKIE ECHO, and the INIT→INIT ACK and COOKIE ECHO→COOKIE ACK exchanges give
//! RTT samples when not retransmitted (§8.3 counts INIT and COOKIE ECHO among the
//! chunks that measure a path).
//!
//! Shutdown: once a finite transfer (or one stopped by the application) is fully
//! acknowledged, A sends SHUTDOWN (T2-shutdown, backed off like T1, each expiry an
//! association error); Z answers SHUTDOWN ACK (and repeats it on its own T2); A
//! answers SHUTDOWN COMPLETE and both are CLOSED. A closed A answers a stray
//! SHUTDOWN ACK with SHUTDOWN COMPLETE (§8.4 item 5).
//!
//! Replies go back to the address the chunk came from, from the address it reached
//! (§6.4). The association also keeps the ground truth of which retransmissions were
//! needed (`truth`).

use super::chunk::{Control, SctpPacket};
use super::receiver::SctpReceiver;
use super::sender::{Outgoing, SctpSender};
use super::store::PacketStore;
use super::truth::Ledger;
use crate::packet::NodeId;
use crate::time::SimTime;

/// State of the opening endpoint A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    CookieWait,
    CookieEchoed,
    Established,
    ShutdownSent,
    /// Closed after a complete shutdown.
    Done,
    /// Set-up abandoned or peer unreachable.
    Aborted,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Closed => "closed",
            State::CookieWait => "cookie_wait",
            State::CookieEchoed => "cookie_echoed",
            State::Established => "established",
            State::ShutdownSent => "shutdown_sent",
            State::Done => "shut_down",
            State::Aborted => "aborted",
        }
    }
}

/// A control-chunk timer with exponential backoff (T1-init, T1-cookie, T2-shutdown).
#[derive(Clone, Copy, Debug)]
struct ControlTimer {
    deadline: SimTime,
    timeout: SimTime,
    expiries: u32,
    /// When the chunk it guards was first sent (for the RTT sample).
    first_sent: SimTime,
}

impl ControlTimer {
    const OFF: ControlTimer = ControlTimer {
        deadline: SimTime::MAX,
        timeout: SimTime::ZERO,
        expiries: 0,
        first_sent: SimTime::ZERO,
    };

    fn start(now: SimTime, timeout: SimTime) -> Self {
        ControlTimer {
            deadline: now + timeout,
            timeout,
            expiries: 0,
            first_sent: now,
        }
    }

    /// Backs off after an expiry at `now`.
    fn expire(&mut self, now: SimTime, max: SimTime) {
        self.expiries += 1;
        self.timeout = SimTime(self.timeout.as_nanos().saturating_mul(2)).min(max);
        self.deadline = now + self.timeout;
    }
}

pub struct Association {
    pub sender: SctpSender,
    pub receiver: SctpReceiver,
    pub state: State,
    /// Whether Z holds the association (after a valid COOKIE ECHO, until shutdown).
    peer_established: bool,
    /// Addresses of A, for INIT's address parameters.
    local_addresses: u8,
    peer_addresses: u8,
    t1: ControlTimer,
    t2: ControlTimer,
    /// Z's T2 for SHUTDOWN ACK and where it goes.
    peer_t2: ControlTimer,
    peer_reply: (NodeId, NodeId),
    /// Where Z sends a delayed SACK: (from, to).
    sack_route: (NodeId, NodeId),
    pub established_at: Option<SimTime>,
    pub closed_at: Option<SimTime>,
    pub truth: Ledger,
}

impl Association {
    pub fn new(sender: SctpSender, receiver: SctpReceiver, local: u8, peer: u8) -> Self {
        Association {
            sender,
            receiver,
            state: State::Closed,
            peer_established: false,
            local_addresses: if local > 1 { local } else { 0 },
            peer_addresses: if peer > 1 { peer } else { 0 },
            t1: ControlTimer::OFF,
            t2: ControlTimer::OFF,
            peer_t2: ControlTimer::OFF,
            peer_reply: (0, 0),
            sack_route: (0, 0),
            established_at: None,
            closed_at: None,
            truth: Ledger::default(),
        }
    }

    fn primary(&self) -> (NodeId, NodeId) {
        let p = &self.sender.paths[self.sender.primary];
        (p.src, p.dst)
    }

    fn rto_initial(&self) -> SimTime {
        self.sender.cfg.rto.initial
    }

    fn control(
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
        (src, dst): (NodeId, NodeId),
        chunk: Control,
    ) {
        let body = store.alloc();
        store.get_mut(body).control.push(chunk);
        out.push(Outgoing {
            body,
            path: 0,
            src,
            dst,
        });
    }

    /// The application starts: A sends INIT.
    pub fn start(&mut self, now: SimTime, store: &mut PacketStore, out: &mut Vec<Outgoing>) {
        if self.state != State::Closed {
            return;
        }
        self.state = State::CookieWait;
        self.t1 = ControlTimer::start(now, self.rto_initial());
        let init = Control::Init {
            addresses: self.local_addresses,
        };
        Self::control(store, out, self.primary(), init);
    }

    /// The application stops writing.
    pub fn stop(&mut self, now: SimTime, store: &mut PacketStore, out: &mut Vec<Outgoing>) {
        self.sender.stop();
        self.maybe_shutdown(now, store, out);
    }

    /// The earliest timer of either end.
    pub fn deadline(&self) -> SimTime {
        let mut t = self
            .t1
            .deadline
            .min(self.t2.deadline)
            .min(self.peer_t2.deadline);
        t = t.min(self.receiver.sack_deadline());
        if self.state == State::Established || self.state == State::ShutdownSent {
            for p in &self.sender.paths {
                t = t.min(p.t3);
            }
            t = t.min(self.sender.heartbeat_deadline());
        }
        t
    }

    /// Runs every timer due at `now`.
    pub fn on_timer(&mut self, now: SimTime, store: &mut PacketStore, out: &mut Vec<Outgoing>) {
        if self.receiver.sack_timer_expired(now) {
            self.send_sack(store, out, self.sack_route);
        }
        if self.peer_t2.deadline <= now {
            let max = self.sender.cfg.rto.max;
            self.peer_t2.expire(now, max);
            if self.peer_t2.expiries > self.sender.cfg.association_max_retrans {
                self.peer_t2 = ControlTimer::OFF;
                self.peer_established = false;
            } else {
                Self::control(store, out, self.peer_reply, Control::ShutdownAck);
            }
        }
        if self.t1.deadline <= now {
            self.on_t1_expiry(now, store, out);
        }
        if self.t2.deadline <= now {
            let max = self.sender.cfg.rto.max;
            self.t2.expire(now, max);
            self.sender.errors += 1;
            if self.sender.errors > self.sender.cfg.association_max_retrans {
                self.abort(now);
            } else {
                let p = &self.sender.paths[self.sender.data_path()];
                let shutdown = Control::Shutdown { cumulative_tsn: 0 };
                Self::control(store, out, (p.src, p.dst), shutdown);
            }
        }
        if !matches!(self.state, State::Established | State::ShutdownSent) {
            return;
        }
        for p in 0..self.sender.paths.len() {
            if self.sender.paths[p].t3 <= now {
                self.sender.on_t3_expiry(now, p, store, out);
            }
        }
        if self.sender.heartbeat_deadline() <= now {
            self.sender.on_heartbeat_timer(now, store, out);
        }
        if self.sender.failed {
            self.abort(now);
        }
    }

    fn on_t1_expiry(&mut self, now: SimTime, store: &mut PacketStore, out: &mut Vec<Outgoing>) {
        let max = self.sender.cfg.rto.max;
        self.t1.expire(now, max);
        if self.t1.expiries > self.sender.cfg.max_init_retransmits {
            self.abort(now);
            return;
        }
        let chunk = match self.state {
            State::CookieWait => Control::Init {
                addresses: self.local_addresses,
            },
            State::CookieEchoed => Control::CookieEcho,
            _ => return,
        };
        Self::control(store, out, self.primary(), chunk);
    }

    fn abort(&mut self, now: SimTime) {
        self.state = State::Aborted;
        self.closed_at = Some(now);
        self.t1 = ControlTimer::OFF;
        self.t2 = ControlTimer::OFF;
        self.sender.failed = true;
        for p in &mut self.sender.paths {
            p.t3 = SimTime::MAX;
        }
    }

    /// A packet reaches endpoint A (`to_sender`) or Z at `at`, from `from`.
    /// Returns the user bytes delivered to Z's application.
    #[allow(clippy::too_many_arguments)]
    pub fn on_packet(
        &mut self,
        now: SimTime,
        to_sender: bool,
        at: NodeId,
        from: NodeId,
        packet: &SctpPacket,
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
    ) -> u64 {
        if to_sender {
            self.at_sender(now, packet, store, out);
            0
        } else {
            self.at_receiver(now, (at, from), packet, store, out)
        }
    }

    fn at_sender(
        &mut self,
        now: SimTime,
        packet: &SctpPacket,
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
    ) {
        for &chunk in &packet.control {
            match chunk {
                Control::InitAck { .. } if self.state == State::CookieWait => {
                    if self.t1.expiries == 0 {
                        let p = self.sender.primary;
                        self.sender.paths[p].rtt_sample(now - self.t1.first_sent);
                    }
                    self.sender.set_peer_window(self.receiver_window());
                    self.state = State::CookieEchoed;
                    let timeout = self.sender.paths[self.sender.primary].rto.rto();
                    self.t1 = ControlTimer::start(now, timeout);
                    Self::control(store, out, self.primary(), Control::CookieEcho);
                }
                Control::CookieAck if self.state == State::CookieEchoed => {
                    if self.t1.expiries == 0 {
                        let p = self.sender.primary;
                        self.sender.paths[p].rtt_sample(now - self.t1.first_sent);
                    }
                    self.t1 = ControlTimer::OFF;
                    self.state = State::Established;
                    self.established_at = Some(now);
                    self.sender.start_heartbeats(now);
                    self.sender.transmit(now, store, out);
                    self.maybe_shutdown(now, store, out);
                }
                Control::HeartbeatAck { path, sent } => {
                    self.sender.on_heartbeat_ack(now, path as usize, sent);
                }
                Control::ShutdownAck => {
                    if self.state == State::ShutdownSent {
                        self.state = State::Done;
                        self.closed_at = Some(now);
                        self.t2 = ControlTimer::OFF;
                    }
                    if matches!(self.state, State::Done | State::Closed | State::Aborted) {
                        let p = &self.sender.paths[self.sender.data_path()];
                        Self::control(store, out, (p.src, p.dst), Control::ShutdownComplete);
                    }
                }
                _ => {}
            }
        }
        if let Some(sack) = packet.sack {
            if matches!(self.state, State::Established | State::ShutdownSent) {
                self.sender
                    .on_sack(now, &sack, &packet.gaps, &packet.duplicates, store, out);
                if self.sender.failed {
                    self.abort(now);
                }
                self.maybe_shutdown(now, store, out);
            }
        }
    }

    /// Z's receive buffer, as its INIT ACK advertises it.
    fn receiver_window(&self) -> u64 {
        self.receiver.initial_window()
    }

    /// A sends SHUTDOWN once everything written is acknowledged.
    fn maybe_shutdown(&mut self, now: SimTime, store: &mut PacketStore, out: &mut Vec<Outgoing>) {
        if self.state != State::Established || !self.sender.all_acknowledged() {
            return;
        }
        self.state = State::ShutdownSent;
        let p = self.sender.data_path();
        let rto = self.sender.paths[p].rto.rto();
        self.t2 = ControlTimer::start(now, rto);
        for path in &mut self.sender.paths {
            path.t3 = SimTime::MAX;
        }
        let route = (self.sender.paths[p].src, self.sender.paths[p].dst);
        let shutdown = Control::Shutdown { cumulative_tsn: 0 };
        Self::control(store, out, route, shutdown);
    }

    fn at_receiver(
        &mut self,
        now: SimTime,
        (at, from): (NodeId, NodeId),
        packet: &SctpPacket,
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
    ) -> u64 {
        let reply = (at, from);
        for &chunk in &packet.control {
            match chunk {
                Control::Init { .. } => {
                    let ack = Control::InitAck {
                        addresses: self.peer_addresses,
                    };
                    Self::control(store, out, reply, ack);
                }
                Control::CookieEcho => {
                    self.peer_established = true;
                    Self::control(store, out, reply, Control::CookieAck);
                }
                Control::Heartbeat { path, sent } => {
                    Self::control(store, out, reply, Control::HeartbeatAck { path, sent });
                }
                Control::Shutdown { .. } if self.peer_established => {
                    self.peer_established = false;
                    self.peer_reply = reply;
                    let rto = self.sender.cfg.rto.initial;
                    self.peer_t2 = ControlTimer::start(now, rto);
                    Self::control(store, out, reply, Control::ShutdownAck);
                }
                Control::ShutdownComplete => self.peer_t2 = ControlTimer::OFF,
                _ => {}
            }
        }
        if packet.data.is_empty() || !self.peer_established {
            return 0;
        }
        for c in &packet.data {
            self.truth.arrived(c.tsn, c.copy);
        }
        let (due, delivered) = self.receiver.on_data(now, &packet.data);
        self.sack_route = reply;
        if due {
            self.send_sack(store, out, reply);
        }
        delivered
    }

    fn send_sack(
        &mut self,
        store: &mut PacketStore,
        out: &mut Vec<Outgoing>,
        (src, dst): (NodeId, NodeId),
    ) {
        let body = store.alloc();
        self.receiver.write_sack(store.get_mut(body));
        out.push(Outgoing {
            body,
            path: 0,
            src,
            dst,
        });
    }

    /// Records the retransmissions among A's outgoing packets in the truth ledger.
    pub fn note_sent(&mut self, store: &PacketStore, sent: &[Outgoing]) {
        for o in sent {
            for c in &store.get(o.body).data {
                if c.copy > 0 {
                    self.truth
                        .retransmitted(c.tsn, c.copy, self.receiver.holds(c.tsn));
                }
            }
        }
    }
}

//! The relay's event loop: TUN devices in, cwnd's world in the middle, TUN
//! devices out, against the wall clock.
//!
//! Each turn reads every packet waiting on the TUN devices and injects it at its
//! host's node at the time it was read, runs the world up to now, writes every
//! packet the model delivered to its destination host's device (with the CE mark a
//! queue gave it, RFC 3168 §5, written into its IP header) and records how late it
//! left, then sleeps until the world's next event or the next input
//! (`clock::wait_until`). A packet the model delivers at model time `t` should
//! leave at `epoch + t`; the difference is the relay's timing error, reported
//! with the rate it carried, so that a host too slow for a scenario shows it.
//!
//! Every IPv4 packet from one of the run's hosts to another crosses the model: a
//! scenario flow's connection under its flow (drop counters, triggers), anything
//! else (`cwnd shell`'s traffic: any TCP, UDP, ICMP) under a passthrough flow per
//! 5-tuple (`passthrough`). Nothing else is relayed: a packet to an address the
//! run did not make goes nowhere.

use std::os::fd::RawFd;

use cwnd_sim::packet::{ipv4_ecn, set_ipv4_ecn, Ecn, ExternalRef, FlowId, NodeId};
use cwnd_sim::results::RunResults;
use cwnd_sim::time::SimTime;
use cwnd_sim::world::{passthrough_index, Injection, World};
use serde::Serialize;

use crate::clock::{self, monotonic_ns};
use crate::ipv4;
use crate::lateness::Lateness;
use crate::passthrough::{FiveTuple, Passthrough, TupleRow};
use crate::pool::{PacketPool, SLOT_BYTES};
use crate::stream::StreamPosition;

/// An end host: its node in the scenario, its TUN device and its address.
#[derive(Clone, Copy, Debug)]
pub struct Host {
    pub node: NodeId,
    pub tun: RawFd,
    pub addr: [u8; 4],
}

/// How a scenario flow's kernel connection is recognised: the sender's and the
/// receiver's addresses and the receiver's listening port.
#[derive(Clone, Copy, Debug)]
pub struct FlowPorts {
    pub flow: FlowId,
    pub sender: [u8; 4],
    pub receiver: [u8; 4],
    pub port: u16,
}

pub struct Config {
    pub hosts: Vec<Host>,
    pub flows: Vec<FlowPorts>,
    /// `CLOCK_MONOTONIC` time of model time 0.
    pub epoch_ns: u64,
    /// Readable when the relay must stop early (the read end of a pipe).
    pub stop: RawFd,
    /// CPU to pin the relay's thread to.
    pub pin_cpu: Option<usize>,
    /// Packet buffers (`pool::PacketPool`).
    pub pool_slots: usize,
    /// Model time at which the relay stops by itself (`cwnd live`: the scenario's
    /// end; `cwnd shell`: `SimTime::MAX`, only `stop` ends it).
    pub end: SimTime,
}

/// Packets and bytes of one flow as the relay saw them (a row of the bindings'
/// `relay["flows"]`, one key per field).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct FlowCounts {
    pub injected_packets: u64,
    pub injected_bytes: u64,
    /// Data-carrying packets (the class data-loss stages see).
    pub injected_data_packets: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub delivered_data_packets: u64,
}

/// What the relay did and how precisely.
pub struct Report {
    /// The world's own results: links, channels and the flows' drop counters.
    pub results: RunResults,
    pub flows: Vec<FlowCounts>,
    /// Packets of no scenario flow, per 5-tuple.
    pub tuples: Vec<TupleRow>,
    /// IP bytes written to the hosts, every flow and 5-tuple.
    pub delivered_bytes: u64,
    /// Packets read that were not relayed: not IPv4, or not from one of the run's
    /// hosts to another.
    pub unmatched: u64,
    /// Packets whose buffer was reused before the model delivered them.
    pub overruns: u64,
    /// Packets seen at a captured node whose buffer was reused before they were
    /// written to the capture.
    pub uncaptured: u64,
    pub write_errors: u64,
    pub lateness: Lateness,
    /// Model time run, and CPU time the relay's thread used, in seconds.
    pub seconds: f64,
    pub cpu_seconds: f64,
    /// Seconds from the first packet read to the last written: the span the
    /// carried rate is over (a shell's session has idle time before and after).
    pub active_seconds: f64,
    pub pinned: bool,
    /// The relay ran in the real-time scheduling class (`clock::realtime_priority`).
    pub realtime: bool,
    /// The run was stopped before its end time.
    pub stopped: bool,
}

/// The report's numbers as one record (the bindings' `relay` dict, one key per
/// field): the counters, the lateness quantiles in seconds, the carried rate.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ReportRow {
    pub unmatched: u64,
    pub overruns: u64,
    pub uncaptured: u64,
    pub write_errors: u64,
    pub packets_timed: u64,
    pub late_p50: f64,
    pub late_p99: f64,
    pub late_max: f64,
    pub seconds: f64,
    pub cpu_seconds: f64,
    pub active_seconds: f64,
    pub carried_bps: f64,
    pub pinned: bool,
    pub realtime: bool,
    pub stopped: bool,
}

impl Report {
    pub fn row(&self) -> ReportRow {
        ReportRow {
            unmatched: self.unmatched,
            overruns: self.overruns,
            uncaptured: self.uncaptured,
            write_errors: self.write_errors,
            packets_timed: self.lateness.samples(),
            late_p50: self.lateness.quantile_ns(0.5) as f64 / 1e9,
            late_p99: self.lateness.quantile_ns(0.99) as f64 / 1e9,
            late_max: self.lateness.max_ns() as f64 / 1e9,
            seconds: self.seconds,
            cpu_seconds: self.cpu_seconds,
            active_seconds: self.active_seconds,
            carried_bps: self.carried_bps(),
            pinned: self.pinned,
            realtime: self.realtime,
            stopped: self.stopped,
        }
    }

    /// IP bytes per second delivered to the hosts, both directions, from the
    /// first packet read to the last written.
    pub fn carried_bps(&self) -> f64 {
        if self.active_seconds > 0.0 {
            self.delivered_bytes as f64 * 8.0 / self.active_seconds
        } else {
            0.0
        }
    }
}

/// The scenario flow a TCP packet belongs to, and whether it comes from the
/// flow's sender.
fn scenario_flow(cfg: &Config, header: &ipv4::Header) -> Option<(FlowId, bool)> {
    if header.protocol != ipv4::PROTO_TCP {
        return None;
    }
    let (sport, dport) = header.ports?;
    let to_receiver =
        |f: &&FlowPorts| f.sender == header.src && f.receiver == header.dst && dport == f.port;
    let to_sender =
        |f: &&FlowPorts| f.receiver == header.src && f.sender == header.dst && sport == f.port;
    match cfg.flows.iter().find(to_receiver) {
        Some(f) => Some((f.flow, true)),
        None => Some((cfg.flows.iter().find(to_sender)?.flow, false)),
    }
}

/// Where a packet read from a TUN device goes in the model: None unless it is
/// from one of the run's hosts to another. A data packet from a flow's sender is
/// placed in its stream (`streams`, by flow) for the triggers; a packet of no
/// flow is counted sent on its 5-tuple.
fn classify(
    cfg: &Config,
    header: &ipv4::Header,
    streams: &mut [StreamPosition],
    passthrough: &mut Passthrough,
) -> Option<Injection> {
    let host = |addr: [u8; 4]| cfg.hosts.iter().find(|h| h.addr == addr).map(|h| h.node);
    let (src, dst) = (host(header.src)?, host(header.dst)?);
    let (flow, stream_bytes) = match scenario_flow(cfg, header) {
        Some((flow, true)) => (
            flow,
            streams[flow as usize].on_sender_packet(header.syn, header.seq, header.payload),
        ),
        Some((flow, false)) => (flow, None),
        None => {
            let tuple = FiveTuple::of(header);
            (passthrough.on_sent(tuple, header.total_len as u64), None)
        }
    };
    Some(Injection {
        flow,
        src,
        dst,
        size: header.total_len as u32,
        external: ExternalRef {
            handle: 0,
            data: header.data,
            ecn: header.ecn,
        },
        stream_bytes,
    })
}

fn model_time(epoch_ns: u64) -> SimTime {
    SimTime::from_nanos(monotonic_ns().saturating_sub(epoch_ns))
}

/// Runs `world` against the wall clock from `cfg.epoch_ns` until its end time or
/// until `cfg.stop` becomes readable.
pub fn run(mut world: World, cfg: &Config) -> Report {
    world.detach_agents();
    clock::tighten_timer_slack();
    let pinned = cfg.pin_cpu.is_some_and(clock::pin_to_cpu);
    let realtime = clock::realtime_priority();
    let cpu_start = clock::thread_cpu_ns();
    let mut pool = PacketPool::new(cfg.pool_slots);
    let mut tun_of_node: Vec<Option<RawFd>> = vec![None; world.node_names.len()];
    for h in &cfg.hosts {
        tun_of_node[h.node as usize] = Some(h.tun);
    }
    let mut report_flows = vec![FlowCounts::default(); world.flows.len()];
    let mut streams = vec![StreamPosition::default(); world.flows.len()];
    let mut passthrough = Passthrough::default();
    let (mut unmatched, mut overruns, mut write_errors, mut uncaptured) = (0u64, 0u64, 0u64, 0u64);
    let mut delivered_bytes = 0u64;
    // Monotonic times of the first packet read and the last written.
    let (mut first_read, mut last_write) = (None::<u64>, 0u64);
    let mut lateness = Lateness::default();
    let mut polled: Vec<libc::pollfd> = cfg.hosts.iter().map(|h| clock::readable(h.tun)).collect();
    polled.push(clock::readable(cfg.stop));
    let stop_requested = |polled: &[libc::pollfd]| polled.last().is_some_and(|p| p.revents != 0);

    // Until the epoch only a stop request counts.
    let mut stopped = false;
    while monotonic_ns() < cfg.epoch_ns && !stopped {
        let stop = polled.last_mut().expect("the stop entry");
        stop.revents = 0;
        clock::wait_until(cfg.epoch_ns, std::slice::from_mut(stop));
        stopped = stop.revents != 0;
    }
    let end = cfg.end;
    while !stopped && model_time(cfg.epoch_ns) <= end {
        for h in &cfg.hosts {
            loop {
                let buf = pool.vacant();
                // SAFETY: `buf` is a writable slot of SLOT_BYTES bytes.
                let n = unsafe { libc::read(h.tun, buf.as_mut_ptr().cast(), SLOT_BYTES) };
                if n <= 0 {
                    break; // EAGAIN: nothing more waiting
                }
                let Some(mut packet) = ipv4::parse(&buf[..n as usize])
                    .and_then(|hd| classify(cfg, &hd, &mut streams, &mut passthrough))
                else {
                    unmatched += 1;
                    continue;
                };
                packet.external.handle = pool.commit(n as usize);
                first_read.get_or_insert_with(monotonic_ns);
                if passthrough_index(packet.flow).is_none() {
                    let counts = &mut report_flows[packet.flow as usize];
                    counts.injected_packets += 1;
                    counts.injected_bytes += packet.size as u64;
                    counts.injected_data_packets += packet.external.data as u64;
                }
                world.inject(model_time(cfg.epoch_ns), packet);
            }
        }
        world.run_until(model_time(cfg.epoch_ns));
        for drop in world.drain_dropped() {
            // A scenario flow's drops are counted by the world.
            if let Some(i) = passthrough_index(drop.flow) {
                passthrough.on_dropped(i, drop.queue);
            }
        }
        // Before the delivered packets' slots can be reused.
        uncaptured += world.write_external_captures(|h| pool.get(h));
        for d in world.drain_delivered() {
            let (Some(fd), Some(bytes)) = (tun_of_node[d.node as usize], pool.get_mut(d.handle))
            else {
                overruns += 1;
                continue;
            };
            // A queue marked it (RFC 3168 §5): the real header says so, checksum
            // updated, as a router's would.
            if d.ecn == Ecn::Ce && ipv4_ecn(bytes) != Ecn::Ce {
                set_ipv4_ecn(bytes, Ecn::Ce);
            }
            // SAFETY: `bytes` is a valid slice for the duration of the call.
            let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
            last_write = monotonic_ns();
            lateness.record(last_write.saturating_sub(cfg.epoch_ns + d.time.as_nanos()));
            if written != bytes.len() as isize {
                write_errors += 1;
                continue;
            }
            delivered_bytes += bytes.len() as u64;
            if let Some(i) = passthrough_index(d.flow) {
                let delay = d.time.as_nanos() - d.sent.as_nanos();
                passthrough.on_delivered(i, bytes.len() as u64, delay);
                continue;
            }
            let counts = &mut report_flows[d.flow as usize];
            counts.delivered_packets += 1;
            counts.delivered_bytes += bytes.len() as u64;
            counts.delivered_data_packets += ipv4::parse(bytes).is_some_and(|h| h.data) as u64;
        }
        let next = world.next_event_time().map_or(end, |t| t.min(end));
        for p in &mut polled {
            p.revents = 0;
        }
        // `end` may be SimTime::MAX: wait for input then.
        clock::wait_until(cfg.epoch_ns.saturating_add(next.as_nanos()), &mut polled);
        stopped = stop_requested(&polled);
    }
    let seconds = model_time(cfg.epoch_ns).min(end).as_secs_f64();
    Report {
        results: world.finish(),
        flows: report_flows,
        tuples: passthrough.rows(),
        delivered_bytes,
        unmatched,
        overruns,
        uncaptured,
        write_errors,
        lateness,
        seconds,
        cpu_seconds: (clock::thread_cpu_ns() - cpu_start) as f64 / 1e9,
        active_seconds: first_read.map_or(0.0, |t| last_write.saturating_sub(t) as f64 / 1e9),
        pinned,
        realtime,
        stopped,
    }
}

//! Packets of no scenario flow: everything `cwnd shell` carries (TCP, UDP, ICMP
//! between the run's hosts), and in `cwnd live` anything besides the flows'
//! connections. Each 5-tuple (protocol, addresses, ports; ports 0 for ICMP and
//! other protocols) gets a passthrough flow id of its own
//! (`cwnd_sim::world::passthrough_flow`), so that stages that act per flow
//! (reordering, holding outages) see it as a flow, and a summary of what crossed:
//! packets and bytes sent and delivered, drops by cause, one-way delay through
//! the model (delivery minus injection, model time) as quantiles.

use std::collections::HashMap;

use cwnd_sim::packet::FlowId;
use cwnd_sim::world::passthrough_flow;
use serde::Serialize;

use crate::delay::DelayHistogram;
use crate::ipv4::{self, Header};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FiveTuple {
    pub protocol: u8,
    pub src: [u8; 4],
    pub sport: u16,
    pub dst: [u8; 4],
    pub dport: u16,
}

impl FiveTuple {
    pub fn of(h: &Header) -> Self {
        let (sport, dport) = h.ports.unwrap_or((0, 0));
        FiveTuple {
            protocol: h.protocol,
            src: h.src,
            sport,
            dst: h.dst,
            dport,
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Counts {
    packets_sent: u64,
    bytes_sent: u64,
    packets_delivered: u64,
    bytes_delivered: u64,
    drops_queue: u64,
    drops_medium: u64,
    delay: DelayHistogram,
}

/// A 5-tuple's summary (a row of the bindings' `relay["tuples"]`); delays in
/// seconds, NaN when nothing was delivered.
#[derive(Clone, Debug, Serialize)]
pub struct TupleRow {
    pub protocol: String,
    pub src: String,
    pub sport: u16,
    pub dst: String,
    pub dport: u16,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    pub drops_queue: u64,
    pub drops_medium: u64,
    pub delay_min: f64,
    pub delay_p50: f64,
    pub delay_p90: f64,
    pub delay_p99: f64,
    pub delay_max: f64,
}

#[derive(Default)]
pub struct Passthrough {
    index: HashMap<FiveTuple, u32>,
    tuples: Vec<(FiveTuple, Counts)>,
}

impl Passthrough {
    /// The flow id of `tuple`'s packets, counting one more sent of `bytes`.
    pub fn on_sent(&mut self, tuple: FiveTuple, bytes: u64) -> FlowId {
        let next = self.tuples.len() as u32;
        let i = *self.index.entry(tuple).or_insert(next);
        if i == next {
            self.tuples.push((tuple, Counts::default()));
        }
        let c = &mut self.tuples[i as usize].1;
        c.packets_sent += 1;
        c.bytes_sent += bytes;
        passthrough_flow(i)
    }

    /// Passthrough flow `index` delivered `bytes` after `delay_ns` in the model.
    pub fn on_delivered(&mut self, index: u32, bytes: u64, delay_ns: u64) {
        let c = &mut self.tuples[index as usize].1;
        c.packets_delivered += 1;
        c.bytes_delivered += bytes;
        c.delay.record(delay_ns);
    }

    /// Passthrough flow `index` lost a packet to a full queue (`queue`) or on a
    /// medium.
    pub fn on_dropped(&mut self, index: u32, queue: bool) {
        let c = &mut self.tuples[index as usize].1;
        if queue {
            c.drops_queue += 1;
        } else {
            c.drops_medium += 1;
        }
    }

    /// One row per 5-tuple, in order of first appearance.
    pub fn rows(&self) -> Vec<TupleRow> {
        self.tuples.iter().map(|(t, c)| row(t, c)).collect()
    }
}

fn row(t: &FiveTuple, c: &Counts) -> TupleRow {
    let seconds = |ns: u64| match c.delay.samples() {
        0 => f64::NAN,
        _ => ns as f64 / 1e9,
    };
    TupleRow {
        protocol: ipv4::protocol_name(t.protocol),
        src: dotted(t.src),
        sport: t.sport,
        dst: dotted(t.dst),
        dport: t.dport,
        packets_sent: c.packets_sent,
        bytes_sent: c.bytes_sent,
        packets_delivered: c.packets_delivered,
        bytes_delivered: c.bytes_delivered,
        drops_queue: c.drops_queue,
        drops_medium: c.drops_medium,
        delay_min: seconds(c.delay.min_ns()),
        delay_p50: seconds(c.delay.quantile_ns(0.5)),
        delay_p90: seconds(c.delay.quantile_ns(0.9)),
        delay_p99: seconds(c.delay.quantile_ns(0.99)),
        delay_max: seconds(c.delay.max_ns()),
    }
}

fn dotted(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

#[cfg(test)]
mod tests {
    use super::*;
    use cwnd_sim::world::passthrough_index;

    fn udp(sport: u16) -> FiveTuple {
        FiveTuple {
            protocol: ipv4::PROTO_UDP,
            src: [10, 0, 0, 1],
            sport,
            dst: [10, 0, 0, 2],
            dport: 53,
        }
    }

    #[test]
    fn each_tuple_gets_its_own_flow_and_counts() {
        let mut p = Passthrough::default();
        let a = p.on_sent(udp(1000), 100);
        let b = p.on_sent(udp(1001), 60);
        assert_eq!(p.on_sent(udp(1000), 100), a);
        assert_ne!(a, b);
        let ia = passthrough_index(a).unwrap();
        p.on_delivered(ia, 100, 20_000_000);
        p.on_dropped(ia, false);
        p.on_dropped(passthrough_index(b).unwrap(), true);
        let rows = p.rows();
        let r = &rows[0];
        assert_eq!(
            (r.protocol.as_str(), r.src.as_str(), r.sport),
            ("udp", "10.0.0.1", 1000)
        );
        assert_eq!(
            (r.packets_sent, r.bytes_sent, r.packets_delivered),
            (2, 200, 1)
        );
        assert_eq!((r.drops_queue, r.drops_medium), (0, 1));
        assert_eq!((r.delay_p50, r.delay_max), (0.02, 0.02));
        assert_eq!((rows[1].drops_queue, rows[1].packets_delivered), (1, 0));
        assert!(rows[1].delay_p50.is_nan(), "nothing delivered: no delay");
    }
}

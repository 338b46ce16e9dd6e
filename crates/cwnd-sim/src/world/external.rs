//! External packets: packets that enter the world from outside and leave it at
//! their destination node. This is how live mode (`cwnd live`) puts real kernel TCP
//! on the very links, queues, impairments and wireless models a simulated run uses:
//! one model, two clocks. The idea is ns-3's `RealtimeSimulatorImpl` with a
//! `TapBridge`: a driver follows the wall clock, and packets cross the boundary at
//! the nodes where the outside world attaches.
//!
//! A driver (crate `cwnd-live`) detaches the world's own TCP agents
//! (`detach_agents`), then in a loop injects the packets read from outside at their
//! source node (`inject`, which first runs the event loop up to the injection
//! time), runs the loop up to the current time (`World::run_until`), learns when
//! the next event is due (`next_event_time`) and takes the packets that reached
//! their destination (`drain_delivered`). The world moves only a reference to the
//! packet's bytes (`ExternalRef`) and its real IP size; drops are counted on the
//! flow the driver names, as for simulated packets.

use super::World;
use crate::engine::EventQueue;
use crate::packet::{ExternalRef, FlowId, NodeId, Payload};
use crate::results::RunResults;
use crate::time::SimTime;

/// A packet handed to the world from outside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injection {
    /// The scenario flow it belongs to (drop counters, per-flow impairments).
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// The real IP datagram size in bytes.
    pub size: u32,
    pub external: ExternalRef,
}

/// An external packet that reached its destination node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// When the model delivered it: the time it should leave the world.
    pub time: SimTime,
    pub node: NodeId,
    pub flow: FlowId,
    /// The handle given at injection.
    pub handle: u64,
}

impl Delivery {
    pub(super) fn new(time: SimTime, node: NodeId, flow: FlowId, external: ExternalRef) -> Self {
        Delivery {
            time,
            node,
            flow,
            handle: external.handle,
        }
    }
}

impl World {
    /// Removes every pending event (flow starts and stops, sampling), so that the
    /// world's own TCP agents never run and only injected packets make events.
    /// The flow table stays: its names, nodes and drop counters serve the packets
    /// injected for each flow. Call it before the first `run_until`.
    pub fn detach_agents(&mut self) {
        self.queue = EventQueue::new();
    }

    /// Runs the world up to `time`, then puts the packet on the network at its
    /// source node as that node's own traffic.
    pub fn inject(&mut self, time: SimTime, packet: Injection) {
        self.run_until(time);
        let now = time.max(self.queue.now());
        let Injection {
            flow,
            src,
            dst,
            size,
            external,
        } = packet;
        let packet = self.new_packet(now, flow, src, dst, size, Payload::External(external));
        self.receive(now, src, packet);
    }

    /// When the next event is due, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.queue.peek_time()
    }

    /// The external packets delivered since the last call, in delivery order.
    pub fn drain_delivered(&mut self) -> std::vec::Drain<'_, Delivery> {
        self.delivered_out.drain(..)
    }

    /// The run's results (links, channels, drop counters) once the driver stops.
    pub fn finish(self) -> RunResults {
        self.into_results()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{build, load};

    /// h1 — h2 over one 10 Mb/s × 20 ms link without link-layer overhead, one flow.
    fn world(impairments: &str) -> World {
        let toml = format!(
            r#"
            name = "external"
            duration = "10s"
            [[links]]
            between = ["h1", "h2"]
            bandwidth = "10Mbps"
            delay = "20ms"
            queue = {{ packets = 100000 }}
            impairments = [{impairments}]
            [[flows]]
            name = "f"
            from = "h1"
            to = "h2"
            "#
        );
        let plan = load(&toml, None).expect("scenario");
        let mut w = build(&plan, 7);
        w.detach_agents();
        w
    }

    fn packet(handle: u64, size: u32, data: bool) -> Injection {
        Injection {
            flow: 0,
            src: 0,
            dst: 1,
            size,
            external: ExternalRef { handle, data },
        }
    }

    /// Runs past every delivery (the last injections below are at 9.999 s).
    fn run_all(w: &mut World) -> Vec<Delivery> {
        w.run_until(SimTime::from_secs(11));
        w.drain_delivered().collect()
    }

    #[test]
    fn detached_world_has_no_events_of_its_own() {
        let mut w = world("");
        assert_eq!(w.next_event_time(), None);
        assert!(run_all(&mut w).is_empty());
        assert_eq!(w.flows[0].sender.tcb.snd_nxt, 0);
    }

    #[test]
    fn injected_packets_cross_the_link_at_its_rate_and_delay() {
        let mut w = world("");
        // 1500 B at 10 Mb/s: 1500 × 8 / 1e7 s = 1.2 ms on the wire, then 20 ms of
        // propagation: the first arrives at 21.2 ms; the second, queued behind it,
        // 1.2 ms later (22.4 ms); one injected at 5 ms finds the link idle again
        // (busy until 2.4 ms): 5 + 1.2 + 20 = 26.2 ms.
        w.inject(SimTime::ZERO, packet(10, 1500, true));
        w.inject(SimTime::ZERO, packet(11, 1500, true));
        w.inject(SimTime::from_millis(5), packet(12, 1500, true));
        assert_eq!(w.next_event_time(), Some(SimTime::from_micros(21_200)));
        let got: Vec<(u64, u64, NodeId)> = run_all(&mut w)
            .iter()
            .map(|d| (d.handle, d.time.as_nanos(), d.node))
            .collect();
        assert_eq!(
            got,
            vec![
                (10, 21_200_000, 1),
                (11, 22_400_000, 1),
                (12, 26_200_000, 1)
            ]
        );
    }

    #[test]
    fn injection_first_runs_the_world_up_to_its_time() {
        let mut w = world("");
        w.inject(SimTime::ZERO, packet(1, 1500, true));
        // Injecting at 30 ms delivers the first packet (due at 21.2 ms) on the way.
        w.inject(SimTime::from_millis(30), packet(2, 1500, true));
        let first: Vec<u64> = w.drain_delivered().map(|d| d.handle).collect();
        assert_eq!(first, vec![1]);
    }

    #[test]
    fn a_data_loss_stage_drops_data_and_counts_it_on_the_flow() {
        let mut w = world(r#"{ kind = "bernoulli", p = 0.01, applies_to = "data" }"#);
        // 10 000 data packets of 100 B, 1 ms apart (80 µs each on the wire: no
        // queueing), and 10 000 ACK-class packets. Dropped data ~ Binomial(10 000,
        // 0.01): mean 100, sd √(10 000 × 0.01 × 0.99) ≈ 9.95; ±4 sd is 60..140.
        for i in 0..10_000u64 {
            w.inject(SimTime::from_millis(i), packet(2 * i, 100, true));
            w.inject(SimTime::from_millis(i), packet(2 * i + 1, 40, false));
        }
        let delivered = run_all(&mut w);
        let acks = delivered.iter().filter(|d| d.handle % 2 == 1).count();
        let data = delivered.len() - acks;
        assert_eq!(acks, 10_000, "the stage applies to data only");
        let dropped = 10_000 - data as u64;
        assert!((60..=140).contains(&dropped), "dropped {dropped}");
        assert_eq!(w.flows[0].drops_impairment, dropped);
    }
}

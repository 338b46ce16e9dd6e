//! An SCTP flow checked into a plan: its sender's and receiver's configuration
//! (RFC 9260 §16 defaults with the `sctp` table's options applied), its
//! addresses and the paths chosen for them (`Topology::sctp_paths` in `plan.rs`).
//! `build.rs` makes the association from the plan alone.

use super::spec::{RetransmitToSpec, SCTP_DATA_OVERHEAD};
use crate::packet::NodeId;
use crate::scenario::spec::Scenario;
use crate::transport::sctp::config::{RetransmitTo, RrConfig, SenderConfig};
use crate::transport::sctp::receiver::{DelayedSack, ReceiverConfig};

/// The two agents' configuration of an SCTP flow.
#[derive(Clone, Debug)]
pub struct SctpConfigs {
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
}

/// An SCTP flow's transport, ready to build (its name, start and stop are the
/// flow's: `FlowPlan`).
#[derive(Clone, Debug)]
pub struct SctpPlan {
    /// Address (node) names of the data sender and of the receiver.
    pub from: Vec<String>,
    pub to: Vec<String>,
    /// The sender's address nodes.
    pub local: Vec<NodeId>,
    /// Per destination address (the first is the primary), the (local, remote)
    /// node pair of its path.
    pub paths: Vec<(NodeId, NodeId)>,
    pub configs: SctpConfigs,
}

impl Scenario {
    /// The configuration of SCTP flow `i` (its options already checked).
    pub(super) fn sctp_configs(&self, i: usize) -> SctpConfigs {
        let f = &self.flows[i];
        let s = &f.sctp;
        let user = (s.mtu.0 - SCTP_DATA_OVERHEAD) as u32;
        let mut cfg = SenderConfig::rfc9260(s.mtu.0 as u32);
        cfg.message_size = s.message_size.map_or(user, |m| m.0 as u32);
        cfg.streams = s.streams as u16;
        cfg.unordered = s.unordered;
        cfg.dupthresh = s.dupthresh;
        cfg.max_burst = s.max_burst;
        cfg.abc_limit = s.abc_limit;
        cfg.rto = s.rto.config();
        cfg.path_max_retrans = s.path_max_retrans;
        cfg.association_max_retrans = s.association_max_retrans;
        cfg.max_init_retransmits = s.max_init_retransmits;
        cfg.heartbeat_interval = s.heartbeat.then_some(s.heartbeat_interval.0);
        cfg.retransmit_to = match s.retransmit_to {
            RetransmitToSpec::Same => RetransmitTo::Same,
            RetransmitToSpec::Alternate => RetransmitTo::Alternate,
            RetransmitToSpec::AlternateOnTimeout => RetransmitTo::AlternateOnTimeout,
        };
        cfg.rr = RrConfig {
            detection: s.rr.detection,
            recovery: s.rr.recovery,
            adapt_dupthresh: s.rr.adapt_dupthresh,
            pef: s.rr.pef,
            pef_step: s.rr.pef_step,
        };
        cfg.app_bytes = f.app.bytes(u64::from(user));
        let receiver = ReceiverConfig {
            buffer: s.rwnd.0,
            delayed_sack: s.delayed_sack.then_some(DelayedSack {
                timeout: s.delayed_sack_timeout.0,
                every: s.delayed_sack_every,
            }),
            streams: cfg.streams,
            mtu: cfg.mtu,
        };
        SctpConfigs {
            sender: cfg,
            receiver,
        }
    }

    /// The plan of SCTP flow `i` with its configuration and its paths.
    pub fn sctp_plan(
        &self,
        i: usize,
        configs: SctpConfigs,
        local: Vec<NodeId>,
        paths: Vec<(NodeId, NodeId)>,
    ) -> SctpPlan {
        let f = &self.flows[i];
        SctpPlan {
            from: f.from.addresses().to_vec(),
            to: f.to.addresses().to_vec(),
            local,
            paths,
            configs,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::load;
    use crate::scenario::plan::TransportPlan;
    use crate::time::SimTime;

    #[test]
    fn an_sctp_plan_holds_both_agents_configuration_and_its_paths() {
        let text = r#"
            duration = "2s"
            [[links]]
            between = ["s0", "r0"]
            bandwidth = "10Mbps"
            delay = "10ms"
            [[links]]
            between = ["s1", "r1"]
            bandwidth = "10Mbps"
            delay = "10ms"
            [[flows]]
            transport = "sctp"
            from = ["s0", "s1"]
            to = ["r0", "r1"]
            stop = "5s"
            app = { kind = "transfer", segments = 10 }
            sctp = { mtu = "1000B", rwnd = "40000B", heartbeat = false }
        "#;
        let plan = load(text, None).unwrap();
        let TransportPlan::Sctp(sctp) = &plan.flows[0].transport else {
            panic!("an SCTP flow");
        };
        // Nodes in order of appearance: s0 = 0, r0 = 1, s1 = 2, r1 = 3; address i of
        // the sender reaches address i of the receiver.
        assert_eq!(sctp.local, vec![0, 2]);
        assert_eq!(sctp.paths, vec![(0, 1), (2, 3)]);
        assert_eq!(sctp.from, vec!["s0", "s1"]);
        let (sender, receiver) = (&sctp.configs.sender, &sctp.configs.receiver);
        // User bytes per packet: 1000 − 48 (IPv4 20 + common header 12 + DATA 16) = 952.
        assert_eq!(sender.message_size, 952);
        // Ten "segments" of the application: 10 × 952 = 9520 B.
        assert_eq!(sender.app_bytes, Some(9520));
        assert_eq!(sender.heartbeat_interval, None);
        assert_eq!(receiver.buffer, 40_000);
        assert_eq!(receiver.mtu, 1000);
        // The stop is clamped to the end of the run (2 s).
        assert_eq!(plan.flows[0].stop, Some(SimTime::from_secs(2)));
    }
}

//! From an SCTP flow of a plan to an association in the world. Its paths (one
//! per address of the receiver, the first the primary) were chosen and checked
//! when the plan was made (`Topology::sctp_paths` in `plan.rs`).

use std::collections::HashMap;

use super::sctp_spec::{RetransmitToSpec, SCTP_DATA_OVERHEAD};
use super::spec::{AppSpec, Scenario};
use crate::packet::NodeId;
use crate::rng;
use crate::transport::sctp::association::Association;
use crate::transport::sctp::config::{RetransmitTo, RrConfig, SenderConfig};
use crate::transport::sctp::receiver::{DelayedSack, ReceiverConfig, SctpReceiver};
use crate::transport::sctp::sender::SctpSender;
use crate::world::SctpFlow;

/// Builds flow `i` over `paths` ((local, remote) node pairs).
pub(super) fn sctp_flow(
    spec: &Scenario,
    seed: u64,
    i: usize,
    ids: &HashMap<String, NodeId>,
    paths: &[(NodeId, NodeId)],
) -> SctpFlow {
    let f = &spec.flows[i];
    let s = &f.sctp;
    let local: Vec<NodeId> = f.from.addresses().iter().map(|a| ids[a]).collect();
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
    cfg.app_bytes = match &f.app {
        AppSpec::Bulk => None,
        AppSpec::Transfer { bytes, segments } => {
            bytes.map(|b| b.0).or(segments.map(|n| n * user as u64))
        }
    };
    let receiver = SctpReceiver::new(ReceiverConfig {
        buffer: s.rwnd.0,
        delayed_sack: s.delayed_sack.then_some(DelayedSack {
            timeout: s.delayed_sack_timeout.0,
            every: s.delayed_sack_every,
        }),
        streams: cfg.streams,
        mtu: cfg.mtu,
    });
    let heartbeat_rng = rng::stream(seed, &format!("flows[{i}].heartbeat"));
    let sender = SctpSender::new(cfg, paths, 0, s.rwnd.0, heartbeat_rng);
    let association = Association::new(
        sender,
        receiver,
        f.from.addresses().len() as u8,
        f.to.addresses().len() as u8,
    );
    SctpFlow::new(
        spec.flow_name(i),
        f.from.addresses().to_vec(),
        f.to.addresses().to_vec(),
        local,
        association,
        f.start.0,
        f.stop.map(|t| t.0.min(spec.duration.0)),
    )
}

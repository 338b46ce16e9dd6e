//! From an SCTP flow's plan to an association in the world. Its configuration
//! and paths (one per address of the receiver, the first the primary) were made
//! and checked with the plan (`sctp_plan.rs`, `Topology::sctp_paths` in
//! `plan.rs`); only the heartbeat stream, `flows[i].heartbeat`, depends on the seed.

use super::plan::FlowPlan;
use super::sctp_plan::SctpPlan;
use crate::rng;
use crate::transport::sctp::association::Association;
use crate::transport::sctp::receiver::SctpReceiver;
use crate::transport::sctp::sender::SctpSender;
use crate::world::SctpFlow;

/// Builds flow `i` (`f`) from its transport's plan.
pub(super) fn sctp_flow(seed: u64, i: usize, f: &FlowPlan, plan: &SctpPlan) -> SctpFlow {
    let configs = &plan.configs;
    let receiver = SctpReceiver::new(configs.receiver.clone());
    let heartbeat_rng = rng::stream(seed, &format!("flows[{i}].heartbeat"));
    // RFC 9260 §7.2.1: the initial ssthresh is the peer's advertised window.
    let ssthresh = configs.receiver.buffer;
    let sender = SctpSender::new(
        configs.sender.clone(),
        &plan.paths,
        0,
        ssthresh,
        heartbeat_rng,
    );
    let association =
        Association::new(sender, receiver, plan.from.len() as u8, plan.to.len() as u8);
    SctpFlow::new(
        f.name.clone(),
        plan.from.clone(),
        plan.to.clone(),
        plan.local.clone(),
        association,
        f.start,
        f.stop,
    )
}

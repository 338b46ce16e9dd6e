//! From an SCTP flow's plan to an association in the world. Its configuration
//! and paths (one per address of the receiver, the first the primary) were made
//! and checked with the plan (`plan.rs`, `Topology::sctp_paths` in
//! `topology.rs`); only the heartbeat stream, `flows[i].heartbeat`, depends on the seed.

use super::SctpPlan;
use crate::rng;
use crate::time::SimTime;
use crate::transport::sctp::association::Association;
use crate::transport::sctp::receiver::SctpReceiver;
use crate::transport::sctp::sender::SctpSender;
use crate::world::SctpFlow;

/// Builds flow `i` (its name, start and stop) from its transport's plan.
pub fn flow(
    seed: u64,
    i: usize,
    (name, start, stop): (&str, SimTime, Option<SimTime>),
    plan: &SctpPlan,
) -> SctpFlow {
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
        name.to_string(),
        plan.from.clone(),
        plan.to.clone(),
        plan.local.clone(),
        association,
        start,
        stop,
    )
}

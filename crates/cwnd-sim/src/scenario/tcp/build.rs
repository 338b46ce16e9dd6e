//! A TCP sender's plan into its agents: the sender's and receiver's
//! configuration, and a flow (with its handshake when asked for).

use super::{tcp_agents, TcpPlan};
use crate::packet::NodeId;
use crate::rng;
use crate::time::SimTime;
use crate::transport::tcp::handshake::Handshake;
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;
use crate::world::Flow;

/// TCP flow `i` (its name, start and stop), sending `app_bytes` (`None`: bulk)
/// from `src` to `dst`; its controller draws from `flows[i].cc`.
pub fn flow(
    seed: u64,
    i: usize,
    (name, start, stop): (&str, SimTime, Option<SimTime>),
    tcp: &TcpPlan,
    app_bytes: Option<u64>,
    (src, dst): (NodeId, NodeId),
) -> Flow {
    let t = &tcp.options;
    let (sender_cfg, receiver_cfg) = tcp_agents(t, tcp.recovery, tcp.cc.needs_ecn(), app_bytes);
    let rng = rng::stream(seed, &format!("flows[{i}].cc"));
    let cc = &tcp.cc;
    let controller = cc.build(rng);
    let flow = Flow::new(
        name.to_string(),
        cc.name().to_string(),
        src,
        dst,
        TcpSender::new(sender_cfg, controller),
        TcpReceiver::new(receiver_cfg),
        start,
        stop,
        t.timestamps,
    );
    if t.handshake {
        flow.with_handshake(Handshake::new(t.rto))
    } else {
        flow
    }
}

//! A TCP sender's plan into its agents: the sender's and receiver's
//! configuration, and a flow (with its handshake when asked for).

use super::{RepeatedTimeoutSpec, TcpOptions, TcpPlan};
use crate::packet::{NodeId, TCP_IP_HEADER, TCP_TIMESTAMP_OPTION};
use crate::rng;
use crate::time::SimTime;
use crate::transport::tcp::handshake::Handshake;
use crate::transport::tcp::receiver::{DelayedAck, ReceiverConfig, TcpReceiver};
use crate::transport::tcp::recovery::{Recovery, RepeatedTimeout};
use crate::transport::tcp::sender::{SenderConfig, TcpSender};
use crate::transport::tcp::socket_options::kernel_sndbuf;
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
    let (sender_cfg, receiver_cfg) = tcp_agents(t, tcp.recovery, app_bytes);
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

/// The sender's and receiver's configuration from a flow's (or a generator's) TCP
/// options, its loss recovery and the bytes its application sends (`None`: bulk).
pub fn tcp_agents(
    t: &TcpOptions,
    recovery: Recovery,
    app_bytes: Option<u64>,
) -> (SenderConfig, ReceiverConfig) {
    // The MSS asked for, clamped to the MTU, less the timestamp option.
    let mss = t.payload_mss();
    let sender_cfg = SenderConfig {
        mss,
        header: TCP_IP_HEADER
            + if t.timestamps {
                TCP_TIMESTAMP_OPTION
            } else {
                0
            },
        initial_window: t.initial_window,
        dupthresh: t.dupthresh,
        limited_transmit: t.limited_transmit,
        abc_limit: t.abc_limit,
        recovery,
        repeated_timeout: match t.ssthresh_on_repeated_timeout {
            RepeatedTimeoutSpec::Keep => RepeatedTimeout::Keep,
            RepeatedTimeoutSpec::Halve => RepeatedTimeout::Halve,
        },
        timestamps: t.timestamps,
        cc_sample: t.cc_sample,
        sack: t.sack,
        dsack_undo: t.dsack_undo,
        eifel: t.eifel,
        frto: t.frto,
        adapt_dupthresh: t.adapt_dupthresh.then_some((t.pef, t.pef_step)),
        rack: t.rack,
        rto: t.rto,
        app_bytes,
        write_size: t.write_size.map(|w| w.0),
        sndbuf: t.sndbuf.map(|b| kernel_sndbuf(b.0)),
        nagle: t.nagle,
        prr: t.prr,
    };
    let receiver_cfg = ReceiverConfig {
        buffer: t.receive_window,
        delayed_ack: t.delayed_ack.then_some(DelayedAck {
            timeout: t.delayed_ack_timeout,
            every: t.delayed_ack_every,
        }),
        quickack: t.quickack,
        mss,
        sack: t.sack,
        dsack: t.dsack,
        timestamps: t.timestamps,
    };
    (sender_cfg, receiver_cfg)
}

//! From a UDP flow of a plan to a UDP flow in the world: its source placed at the
//! flow's start, sending until its stop or the end of the run. The source draws
//! from the stream `flows[i].source`.

use super::{SourceKind, SourcePlan};
use crate::packet::NodeId;
use crate::rng;
use crate::time::SimTime;
use crate::transport::udp::cbr::Cbr;
use crate::transport::udp::on_off::OnOff;
use crate::transport::udp::sender::UdpSender;
use crate::transport::udp::source::Source;
use crate::world::UdpFlow;

/// Builds UDP flow `i` (its name, start and stop) from `src` to `dst` in a run
/// that ends at `end`; its received rate is binned by `throughput_bin`
/// (`trace.throughput_bin`).
pub fn flow(
    seed: u64,
    i: usize,
    (name, start, stop): (&str, SimTime, Option<SimTime>),
    plan: &SourcePlan,
    (src, dst): (NodeId, NodeId),
    (end, throughput_bin): (SimTime, SimTime),
) -> UdpFlow {
    let stop = stop.unwrap_or(end);
    let source = match plan.kind {
        SourceKind::Cbr { jitter } => {
            Source::Cbr(Cbr::new(start, plan.packet_size, plan.rate_bps, jitter))
        }
        SourceKind::OnOff {
            law,
            burst_time,
            idle_time,
        } => Source::OnOff(OnOff::new(
            law,
            start,
            plan.packet_size,
            plan.rate_bps,
            burst_time,
            idle_time,
        )),
    };
    let stream = rng::stream(seed, &format!("flows[{i}].source"));
    UdpFlow::new(
        name.to_string(),
        plan.name(),
        src,
        dst,
        UdpSender::new(source, plan.packet_size, stop, stream),
        start,
        stop,
        throughput_bin,
    )
}

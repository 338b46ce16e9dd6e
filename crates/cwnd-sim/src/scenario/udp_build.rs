//! From a UDP flow of a plan to a UDP flow in the world: its source placed at the
//! flow's start, sending until its stop or the end of the run. The source draws
//! from the stream `flows[i].source`.

use super::plan::FlowPlan;
use super::udp_spec::{SourceKind, SourcePlan};
use crate::packet::NodeId;
use crate::rng;
use crate::time::SimTime;
use crate::transport::udp::cbr::Cbr;
use crate::transport::udp::on_off::OnOff;
use crate::transport::udp::sender::UdpSender;
use crate::transport::udp::source::Source;
use crate::world::UdpFlow;

/// Builds UDP flow `i` (`f`) from `src` to `dst` in a run that ends at `end`; its
/// received rate is binned by `throughput_bin` (`trace.throughput_bin`).
pub(super) fn udp_flow(
    seed: u64,
    i: usize,
    f: &FlowPlan,
    plan: &SourcePlan,
    (src, dst): (NodeId, NodeId),
    (end, throughput_bin): (SimTime, SimTime),
) -> UdpFlow {
    let start = f.start;
    let stop = f.stop.unwrap_or(end);
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
        f.name.clone(),
        plan.name(),
        src,
        dst,
        UdpSender::new(source, plan.packet_size, stop, stream),
        start,
        stop,
        throughput_bin,
    )
}

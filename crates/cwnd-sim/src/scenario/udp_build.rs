//! From a UDP flow of a plan to a UDP flow in the world: its source placed at the
//! flow's start, sending until its stop or the end of the run. The source draws
//! from the stream `flows[i].source`.

use super::spec::Scenario;
use super::udp_spec::{SourceKind, SourcePlan};
use crate::packet::NodeId;
use crate::rng;
use crate::time::SimTime;
use crate::transport::udp::cbr::Cbr;
use crate::transport::udp::on_off::OnOff;
use crate::transport::udp::sender::UdpSender;
use crate::transport::udp::source::Source;
use crate::world::UdpFlow;

/// Builds UDP flow `i` from `src` to `dst`; its received rate is binned by
/// `throughput_bin` (`trace.throughput_bin`).
pub(super) fn udp_flow(
    spec: &Scenario,
    seed: u64,
    i: usize,
    plan: &SourcePlan,
    (src, dst): (NodeId, NodeId),
    throughput_bin: SimTime,
) -> UdpFlow {
    let f = &spec.flows[i];
    let start = f.start.0;
    let stop = f.stop.map_or(spec.duration.0, |s| s.0.min(spec.duration.0));
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
        spec.flow_name(i),
        plan.name(),
        src,
        dst,
        UdpSender::new(source, plan.packet_size, stop, stream),
        start,
        stop,
        throughput_bin,
    )
}

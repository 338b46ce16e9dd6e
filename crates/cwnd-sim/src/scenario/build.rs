//! From a checked `Scenario` to a runnable `World`.
//!
//! Ids: nodes in `Scenario::node_names` order; link `i` gives direction `2i`
//! (forward, first node to second) and `2i + 1` (reverse); flows in file order.
//! Random streams are named after the component's place in the scenario
//! (`links[0].impairments[1].forward`), so adding a component elsewhere leaves
//! every other draw unchanged.

use std::collections::HashMap;

use super::impairment_spec::{DelaySpec, ReorderSpec, StageSpec};
use super::spec::{
    AppSpec, Direction, ImpairmentSpec, LinkSpec, PathLossSpec, PreambleSpec, RecoverySpec,
    RepeatedTimeoutSpec, Scenario,
};
use super::validate::ScenarioError;
use crate::net::impair::{
    AppliesTo, ArqDelay, BernoulliLoss, DelayDistribution, DelayStep, DropList, GilbertElliott,
    Impairment, ImpairmentChain, ImpairmentStage, Outage, Reorder, Schedule, Window,
};
use crate::net::link::{LinkDirection, LinkParams};
use crate::net::queue::QueueLimit;
use crate::net::red::Red;
use crate::net::routing::RoutingTable;
use crate::net::wifi::channel::{ChannelConfig, FrameErrors, WifiChannel};
use crate::net::wifi::propagation::{PathLoss, RadioLink};
use crate::net::wifi::timing::Phy;
use crate::net::wimax::cell::WimaxCell;
use crate::packet::{FlowId, NodeId, TCP_IP_HEADER, TCP_TIMESTAMP_OPTION};
use crate::rng;
use crate::scenario::spec::{AppliesToSpec, FlowSpec, TransportSpec};
use crate::time::SimTime;
use crate::trace::pcap::Captures;
use crate::trace::Recorder;
use crate::transport::tcp::cc;
use crate::transport::tcp::receiver::{DelayedAck, ReceiverConfig, TcpReceiver};
use crate::transport::tcp::recovery::{Recovery, RepeatedTimeout};
use crate::transport::tcp::sender::{SenderConfig, TcpSender};
use crate::world::{Flow, Hop, LinkInfo, Trigger, TriggerTarget, World};

/// Builds the world for one run of `spec` with `seed`.
pub fn build(spec: &Scenario, seed: u64) -> Result<World, ScenarioError> {
    let node_names = spec.node_names();
    let ids: HashMap<&str, NodeId> = node_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as NodeId))
        .collect();
    let captured: Vec<NodeId> = spec.trace.pcap.iter().map(|n| ids[n.as_str()]).collect();
    let node_count = node_names.len();

    let mut links = Vec::with_capacity(2 * spec.links.len());
    let mut link_info = Vec::with_capacity(2 * spec.links.len());
    let mut triggers = Vec::new();
    for (i, l) in spec.links.iter().enumerate() {
        let (a, b) = (ids[l.between[0].as_str()], ids[l.between[1].as_str()]);
        for (dir, from, to) in [(Direction::Forward, a, b), (Direction::Reverse, b, a)] {
            let (link, link_triggers) = link_direction(spec, seed, i, l, dir, from, to);
            for (flow, segment, stage) in link_triggers {
                triggers.push(Trigger {
                    flow,
                    segment,
                    target: TriggerTarget::Link(links.len()),
                    stage,
                });
            }
            links.push(link);
            link_info.push(LinkInfo {
                name: spec.link_name(i),
                direction: if dir == Direction::Forward {
                    "forward"
                } else {
                    "reverse"
                },
            });
        }
    }

    // Route edges: every link direction, then every ordered pair of stations of
    // each wireless channel.
    let mut edges: Vec<(NodeId, NodeId, u32)> = Vec::new();
    let mut hops = Vec::new();
    for (i, l) in links.iter().enumerate() {
        edges.push((l.from, l.to, hops.len() as u32));
        hops.push(Hop::Link(i as u32));
    }
    let mut channels = Vec::new();
    for (c, w) in spec.wireless.iter().enumerate() {
        let stations: Vec<NodeId> = w.stations.iter().map(|s| ids[s.as_str()]).collect();
        for &a in &stations {
            for &b in stations.iter().filter(|&&b| b != a) {
                edges.push((a, b, hops.len() as u32));
                hops.push(Hop::Air {
                    channel: c as u32,
                    to: b,
                });
            }
        }
        let name = spec.wireless_name(c);
        let (chain, channel_triggers) =
            build_stages(spec, seed, &w.impairments, &format!("wireless[{c}]"), None);
        for (flow, segment, stage) in channel_triggers {
            triggers.push(Trigger {
                flow,
                segment,
                target: TriggerTarget::Channel(c),
                stage,
            });
        }
        let mut phy = Phy::dsss(w.rate.0, w.basic_rate.0);
        if w.preamble == PreambleSpec::Short {
            phy = phy.with_short_preamble();
        }
        let errors = match &w.radio {
            None => FrameErrors::Fixed(w.per),
            Some(r) => FrameErrors::Snr(RadioLink {
                path_loss: match r.path_loss {
                    PathLossSpec::FreeSpace => PathLoss::FreeSpace,
                    PathLossSpec::TwoRayGround => PathLoss::TwoRayGround,
                },
                distance_m: r.distance_m,
                tx_power_w: 10f64.powf(r.tx_power_dbm / 10.0) / 1000.0,
                frequency_hz: r.frequency_mhz * 1e6,
                antenna_height_m: r.antenna_height_m,
                system_loss: 1.0,
                noise_figure_db: r.noise_figure_db,
            }),
        };
        let config = ChannelConfig {
            phy,
            queue_limit: w.queue_packets as usize,
            errors,
            rts_threshold: w.rts_threshold.map(|s| s.0.min(u32::MAX as u64) as u32),
        };
        let mut channel = WifiChannel::new(
            name,
            stations,
            config,
            rng::stream(seed, &format!("wireless[{c}].contention")),
            rng::stream(seed, &format!("wireless[{c}].errors")),
        );
        channel.impairments = chain;
        channels.push(channel);
    }
    // 802.16 cells: each subscriber reaches the base station and back in one hop.
    let mut cells = Vec::with_capacity(spec.wimax.len());
    for (c, w) in spec.wimax.iter().enumerate() {
        let params = w.resolve(&format!("wimax[{c}]"))?;
        let bs = ids[w.base_station.as_str()];
        let subscribers: Vec<NodeId> = w.subscribers.iter().map(|s| ids[s.as_str()]).collect();
        for &ss in &subscribers {
            for (a, b) in [(bs, ss), (ss, bs)] {
                edges.push((a, b, hops.len() as u32));
                hops.push(Hop::Wimax {
                    cell: c as u32,
                    to: b,
                });
            }
        }
        cells.push(WimaxCell::new(
            spec.wimax_name(c),
            bs,
            subscribers,
            params,
            rng::stream(seed, &format!("wimax[{c}].fading")),
            rng::stream(seed, &format!("wimax[{c}].errors")),
        ));
    }
    let mut routes = RoutingTable::shortest_paths(node_names.len(), &edges);
    for (k, r) in spec.routes.iter().enumerate() {
        let (at, to, via) = (ids[r.at.as_str()], ids[r.to.as_str()], ids[r.via.as_str()]);
        if !routes.set_route(at, to, via) {
            return Err(ScenarioError::new(
                format!("routes[{k}].via"),
                format!("\"{}\" is not a neighbour of \"{}\"", r.via, r.at),
            ));
        }
    }
    let link_to = |e: u32| edges[e as usize].1;

    let mut flows = Vec::with_capacity(spec.flows.len());
    let mut associations = Vec::new();
    for (i, f) in spec.flows.iter().enumerate() {
        if f.transport == TransportSpec::Sctp {
            let routed = |a: NodeId, b: NodeId| {
                let forth = routes.path(a, b, link_to)?;
                routes.path(b, a, link_to).map(|_| forth.len())
            };
            associations.push(super::sctp_build::sctp_flow(spec, seed, i, &ids, routed)?);
            continue;
        }
        let (src, dst) = (ids[f.from.primary()], ids[f.to.primary()]);
        for (a, b, what) in [(src, dst, "data"), (dst, src, "ACKs")] {
            if routes.path(a, b, link_to).is_none() {
                return Err(ScenarioError::new(
                    format!("flows[{i}]"),
                    format!(
                        "no route for {what} from \"{}\" to \"{}\"; check links and routes",
                        node_names[a as usize], node_names[b as usize]
                    ),
                ));
            }
        }
        flows.push(tcp_flow(spec, seed, i, f, src, dst));
    }

    let tcp_flows = flows.len();
    let mut world = World::new(
        spec.name.clone().unwrap_or_else(|| "scenario".to_string()),
        seed,
        spec.duration.0,
        node_names,
        links,
        link_info,
        routes,
        hops,
        channels,
        cells,
        flows,
        Recorder::new(&spec.trace, tcp_flows),
        triggers,
    )
    .with_captures(Captures::new(node_count, &captured));
    world.add_associations(associations);
    Ok(world)
}

/// Flow ids in scenario order: TCP flows are numbered first, in order, then SCTP
/// associations (the world keeps them in two tables).
pub fn flow_ids(spec: &Scenario) -> Vec<FlowId> {
    let tcp = spec
        .flows
        .iter()
        .filter(|f| f.transport == TransportSpec::Tcp)
        .count();
    let (mut next_tcp, mut next_sctp) = (0, tcp);
    spec.flows
        .iter()
        .map(|f| {
            let next = match f.transport {
                TransportSpec::Tcp => &mut next_tcp,
                TransportSpec::Sctp => &mut next_sctp,
            };
            *next += 1;
            (*next - 1) as FlowId
        })
        .collect()
}

fn link_direction(
    spec: &Scenario,
    seed: u64,
    i: usize,
    l: &LinkSpec,
    dir: Direction,
    from: NodeId,
    to: NodeId,
) -> (LinkDirection, Vec<(FlowId, u64, usize)>) {
    let queue = match (l.queue.packets, l.queue.bytes) {
        (_, Some(bytes)) => QueueLimit::Bytes(bytes.0),
        (Some(n), None) => QueueLimit::Packets(n),
        (None, None) => QueueLimit::Packets(super::spec::DEFAULT_QUEUE_PACKETS),
    };
    let params = LinkParams {
        rate_bps: l.bandwidth.0,
        delay: l.delay.0,
        overhead: l.overhead.0 as u32,
        queue,
    };
    let mut link = LinkDirection::new(from, to, params, spec.trace.queues);
    let prefix = format!("links[{i}]");
    if let Some(red) = &l.queue.red {
        let dir_name = if dir == Direction::Forward {
            "forward"
        } else {
            "reverse"
        };
        let stream = rng::stream(seed, &format!("{prefix}.queue.red.{dir_name}"));
        link = link.with_red(Red::new(red.params(), l.bandwidth.0, stream));
    }
    let (chain, triggers) = build_stages(spec, seed, &l.impairments, &prefix, Some(dir));
    link.impairments = chain;
    (link, triggers)
}

/// The impairment chain of a link direction (`dir`) or of a wireless channel
/// (`None`: no direction), and its triggers as (flow, segment, stage index).
/// Random streams are named `<prefix>.impairments[<j>][.<direction>]`.
fn build_stages(
    spec: &Scenario,
    seed: u64,
    impairments: &[ImpairmentSpec],
    prefix: &str,
    dir: Option<Direction>,
) -> (ImpairmentChain, Vec<(FlowId, u64, usize)>) {
    let mut chain = ImpairmentChain::default();
    let mut triggers = Vec::new();
    let ids = flow_ids(spec);
    let dir_name = match dir {
        Some(Direction::Forward) => ".forward",
        Some(Direction::Reverse) => ".reverse",
        _ => "",
    };
    for (j, imp) in impairments.iter().enumerate() {
        let (common, stage) = imp.parse().unwrap_or_else(|_| unreachable!("validated"));
        if dir.is_some_and(|d| common.direction != Direction::Both && common.direction != d) {
            continue;
        }
        let stream = rng::stream(seed, &format!("{prefix}.impairments[{j}]{dir_name}"));
        let flow_id = |name: &String| {
            (0..spec.flows.len())
                .position(|k| spec.flow_name(k) == *name)
                .map(|k| ids[k])
        };
        let stage: Box<dyn ImpairmentStage> = match stage {
            StageSpec::Bernoulli { schedule } => Box::new(BernoulliLoss::scheduled(
                Schedule::new(schedule.iter().map(|&(t, p)| (t.0, p)).collect()),
                stream,
            )),
            StageSpec::DropList { packets, flow } => {
                Box::new(DropList::new(flow.as_ref().and_then(flow_id), packets))
            }
            StageSpec::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => Box::new(GilbertElliott::new(p_gb, p_bg, loss_good, loss_bad, stream)),
            StageSpec::Outage { hold } => Box::new(Outage { hold }),
            StageSpec::Reorder(ReorderSpec::Random { r, delay }) => Box::new(Reorder::Random {
                r,
                delay: distribution(&delay),
                rng: stream,
            }),
            StageSpec::Reorder(ReorderSpec::Exact { packet, positions }) => {
                Box::new(Reorder::Exact {
                    packet,
                    positions,
                    seen: Default::default(),
                })
            }
            StageSpec::DelayStep { extra } => Box::new(DelayStep { extra: extra.0 }),
            StageSpec::Arq(a) => Box::new(ArqDelay {
                pv: match (a.pv, &a.pv_schedule) {
                    (Some(pv), _) => Schedule::constant(pv),
                    (None, Some(s)) => Schedule::new(s.iter().map(|&(t, pv)| (t.0, pv)).collect()),
                    (None, None) => unreachable!("validated"),
                },
                delay: distribution(&a.delay),
                in_order: a.in_order,
                residual_loss: a.residual_loss,
                rng: stream,
            }),
        };
        let applies_to = match common.applies_to {
            AppliesToSpec::Data => AppliesTo::Data,
            AppliesToSpec::Acks => AppliesTo::Acks,
            AppliesToSpec::All => AppliesTo::All,
        };
        let window = match (&common.start_on, common.start, common.duration) {
            (Some(t), _, Some(duration)) => {
                let index = chain.len();
                if let Some(f) = flow_id(&t.flow) {
                    triggers.push((f, t.segment, index));
                }
                Window::OnTrigger {
                    duration: duration.0,
                }
            }
            (None, None, None) => Window::Always,
            (None, start, duration) => {
                let start = start.map_or(SimTime::ZERO, |s| s.0);
                Window::Between(start, duration.map_or(SimTime::MAX, |d| start + d.0))
            }
            (Some(_), _, None) => unreachable!("validated: a trigger needs a duration"),
        };
        chain.push(Impairment {
            applies_to,
            window,
            stage,
        });
    }
    (chain, triggers)
}

fn distribution(d: &DelaySpec) -> DelayDistribution {
    match *d {
        DelaySpec::Constant { value } => DelayDistribution::Constant(value.0),
        DelaySpec::Uniform { min, max } => DelayDistribution::Uniform {
            min: min.0,
            max: max.0,
        },
        DelaySpec::Normal { mean, sd } => DelayDistribution::Normal {
            mean: mean.0,
            sd: sd.0,
        },
        DelaySpec::Exponential { mean } => DelayDistribution::Exponential { mean: mean.0 },
        DelaySpec::Empirical {
            ref values,
            ref weights,
        } => DelayDistribution::empirical(values.iter().map(|v| v.0).collect(), weights.as_deref()),
    }
}

/// RFC 3390 / RFC 5681 §3.1 initial window: min(4·MSS, max(2·MSS, 4380 B)), in segments.
fn rfc3390_initial_window(mss: u32) -> u32 {
    ((4 * mss).min((2 * mss).max(4380)) / mss).max(1)
}

fn tcp_flow(spec: &Scenario, seed: u64, i: usize, f: &FlowSpec, src: NodeId, dst: NodeId) -> Flow {
    let t = &f.tcp;
    // With timestamps the option takes 12 B of each segment (the MTU is kept).
    let mss = if t.timestamps {
        (t.mss.0 as u32).saturating_sub(TCP_TIMESTAMP_OPTION).max(1)
    } else {
        t.mss.0 as u32
    };
    let recovery = match f.recovery {
        Some(RecoverySpec::Tahoe) => Recovery::Tahoe,
        Some(RecoverySpec::Reno) => Recovery::Reno,
        Some(RecoverySpec::Newreno) => Recovery::NewReno,
        Some(RecoverySpec::Sack) => Recovery::Sack,
        None if t.sack => Recovery::Sack,
        None => Recovery::default_for(&f.cc.name),
    };
    let app_bytes = match &f.app {
        AppSpec::Bulk => None,
        AppSpec::Transfer { bytes, segments } => {
            bytes.map(|b| b.0).or(segments.map(|n| n * mss as u64))
        }
    };
    let sender_cfg = SenderConfig {
        mss,
        header: TCP_IP_HEADER
            + if t.timestamps {
                TCP_TIMESTAMP_OPTION
            } else {
                0
            },
        initial_window: t
            .initial_window
            .unwrap_or_else(|| rfc3390_initial_window(mss)),
        dupthresh: t.dupthresh,
        limited_transmit: t.limited_transmit,
        abc_limit: t.abc_limit,
        recovery,
        repeated_timeout: match t.ssthresh_on_repeated_timeout {
            RepeatedTimeoutSpec::Keep => RepeatedTimeout::Keep,
            RepeatedTimeoutSpec::Halve => RepeatedTimeout::Halve,
        },
        timestamps: t.timestamps,
        sack: t.sack,
        dsack_undo: t.dsack_undo,
        eifel: t.eifel,
        frto: t.frto,
        adapt_dupthresh: t.adapt_dupthresh.then_some((t.pef, t.pef_step)),
        rto: t.rto.config(),
        app_bytes,
    };
    let rng = rng::stream(seed, &format!("flows[{i}].cc"));
    let controller = cc::build(&f.cc, rng).unwrap_or_else(|_| unreachable!("validated"));
    let receiver_cfg = ReceiverConfig {
        buffer: t.rwnd.0,
        delayed_ack: t.delayed_ack.then_some(DelayedAck {
            timeout: t.delayed_ack_timeout.0,
            every: t.delayed_ack_every,
        }),
        mss,
        sack: t.sack,
        dsack: t.dsack,
        timestamps: t.timestamps,
    };
    Flow::new(
        spec.flow_name(i),
        f.cc.name.clone(),
        src,
        dst,
        TcpSender::new(sender_cfg, controller),
        TcpReceiver::new(receiver_cfg),
        f.start.0,
        f.stop.map(|s| s.0.min(spec.duration.0)),
        t.timestamps,
    )
}

/// Parses, checks, builds and runs a scenario given as TOML.
pub fn run_toml(text: &str, seed: u64) -> Result<crate::results::RunResults, ScenarioError> {
    let spec = Scenario::from_toml(text)?;
    Ok(build(&spec, seed)?.run())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_window_follows_rfc3390() {
        assert_eq!(rfc3390_initial_window(1460), 3);
        assert_eq!(rfc3390_initial_window(1000), 4);
        assert_eq!(rfc3390_initial_window(2190), 2);
        assert_eq!(rfc3390_initial_window(536), 4);
    }
}

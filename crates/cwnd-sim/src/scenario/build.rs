//! From a checked `Plan` to a runnable `World`.
//!
//! Ids: nodes in `Scenario::node_names` order; link `i` gives direction `2i`
//! (forward, first node to second) and `2i + 1` (reverse); flows in file order.
//! Random streams are named after the component's place in the scenario
//! (`links[0].impairments[1].forward`), so adding a component elsewhere leaves
//! every other draw unchanged.

use super::impairment_spec::{DelaySpec, PvSpec, ReorderSpec, StageSpec};
use super::plan::{FlowPlan, Plan, StagePlan, StageWindow};
use super::spec::{AppSpec, Direction, LinkSpec, PathLossSpec, RepeatedTimeoutSpec, Scenario};
use super::tcp_options::TcpOptions;
use super::validate::{ScenarioError, TcpPlan};
use crate::net::impair::{
    ArqDelay, BernoulliLoss, DelayDistribution, DelayStep, DropList, GilbertElliott, Impairment,
    ImpairmentChain, ImpairmentStage, Outage, Reorder, Schedule, Window,
};
use crate::net::link::{LinkDirection, LinkParams};
use crate::net::queue::QueueLimit;
use crate::net::red::Red;
use crate::net::wifi::channel::{ChannelConfig, FrameErrors, WifiChannel};
use crate::net::wifi::propagation::{PathLoss, RadioLink};
use crate::net::wimax::cell::WimaxCell;
use crate::packet::{FlowId, NodeId, TCP_IP_HEADER, TCP_TIMESTAMP_OPTION};
use crate::rng;
use crate::scenario::spec::FlowSpec;
use crate::trace::pcap::Captures;
use crate::trace::Recorder;
use crate::transport::tcp::handshake::Handshake;
use crate::transport::tcp::receiver::{DelayedAck, ReceiverConfig, TcpReceiver};
use crate::transport::tcp::recovery::{Recovery, RepeatedTimeout};
use crate::transport::tcp::sender::{SenderConfig, TcpSender};
use crate::transport::tcp::socket_options::kernel_sndbuf;
use crate::world::{Flow, LinkInfo, Trigger, TriggerTarget, World};

/// Builds the world for one run of `plan` with `seed`. Everything that could be
/// wrong was found when the plan was made, so this cannot fail.
pub fn build(plan: &Plan, seed: u64) -> World {
    let spec = plan.spec();
    let topology = &plan.topology;
    let ids = &topology.ids;
    let captured: Vec<NodeId> = spec.trace.pcap.iter().map(|n| ids[n]).collect();
    let node_count = topology.node_names.len();

    let mut links = Vec::with_capacity(2 * spec.links.len());
    let mut link_info = Vec::with_capacity(2 * spec.links.len());
    let mut triggers = Vec::new();
    for (i, (l, stages)) in spec.links.iter().zip(&plan.link_stages).enumerate() {
        let (a, b) = (ids[&l.between[0]], ids[&l.between[1]]);
        for (dir, from, to) in [(Direction::Forward, a, b), (Direction::Reverse, b, a)] {
            let (link, link_triggers) = link_direction(spec, seed, i, l, stages, dir, from, to);
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

    let mut channels = Vec::new();
    for (c, (w, wplan)) in spec.wireless.iter().zip(&plan.wireless).enumerate() {
        let stations: Vec<NodeId> = w.stations.iter().map(|s| ids[s]).collect();
        let (chain, channel_triggers) =
            build_stages(seed, &wplan.stages, &format!("wireless[{c}]"), None);
        for (flow, segment, stage) in channel_triggers {
            triggers.push(Trigger {
                flow,
                segment,
                target: TriggerTarget::Channel(c),
                stage,
            });
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
            phy: wplan.phy,
            queue_limit: w.queue_packets as usize,
            errors,
            rts_threshold: w.rts_threshold.map(|s| s.0.min(u32::MAX as u64) as u32),
            msdu_lifetime: w.msdu_lifetime.0,
        };
        let mut channel = WifiChannel::new(
            spec.wireless_name(c),
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
    for (c, (w, params)) in spec.wimax.iter().zip(&plan.cells).enumerate() {
        cells.push(WimaxCell::new(
            spec.wimax_name(c),
            ids[&w.base_station],
            w.subscribers.iter().map(|s| ids[s]).collect(),
            *params,
            rng::stream(seed, &format!("wimax[{c}].fading")),
            rng::stream(seed, &format!("wimax[{c}].errors")),
        ));
    }

    let mut flows = Vec::with_capacity(spec.flows.len());
    let mut associations = Vec::new();
    let mut udp = Vec::new();
    for (i, (f, fplan)) in spec.flows.iter().zip(&plan.flows).enumerate() {
        match fplan {
            FlowPlan::Tcp { tcp, src, dst } => {
                flows.push(tcp_flow(spec, seed, i, f, tcp, *src, *dst))
            }
            FlowPlan::Sctp { paths } => {
                associations.push(super::sctp_build::sctp_flow(spec, seed, i, ids, paths))
            }
            FlowPlan::Udp { source, src, dst } => udp.push(super::udp_build::udp_flow(
                spec, seed, i, source, *src, *dst,
            )),
        }
    }

    let tcp_flows = flows.len();
    let mut world = World::new(
        spec.name.clone().unwrap_or_else(|| "scenario".to_string()),
        seed,
        spec.duration.0,
        topology.node_names.clone(),
        links,
        link_info,
        topology.routes.clone(),
        topology.hops.clone(),
        channels,
        cells,
        flows,
        Recorder::new(&spec.trace.config(), tcp_flows),
        triggers,
    )
    .with_captures(Captures::new(node_count, &captured))
    .with_memory_budget(
        spec.memory_budget
            .map_or(super::budget::DEFAULT_BUDGET, |b| b.0),
    );
    world.add_associations(associations);
    world.add_generators(super::generator_build::generators(plan, seed));
    world.add_udp_flows(udp);
    world
}

#[allow(clippy::too_many_arguments)]
fn link_direction(
    spec: &Scenario,
    seed: u64,
    i: usize,
    l: &LinkSpec,
    stages: &[StagePlan],
    dir: Direction,
    from: NodeId,
    to: NodeId,
) -> (LinkDirection, Vec<(FlowId, u64, usize)>) {
    let queue = match l.queue.bytes {
        Some(bytes) => QueueLimit::Bytes(bytes.0),
        None => QueueLimit::Packets(
            l.queue
                .packets
                .unwrap_or(super::spec::DEFAULT_QUEUE_PACKETS),
        ),
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
    let (chain, triggers) = build_stages(seed, stages, &prefix, Some(dir));
    link.impairments = chain;
    (link, triggers)
}

/// The impairment chain of a link direction (`dir`) or of a wireless channel
/// (`None`: no direction), and its triggers as (flow, segment, stage index).
/// Random streams are named `<prefix>.impairments[<j>][.<direction>]`.
fn build_stages(
    seed: u64,
    stages: &[StagePlan],
    prefix: &str,
    dir: Option<Direction>,
) -> (ImpairmentChain, Vec<(FlowId, u64, usize)>) {
    let mut chain = ImpairmentChain::default();
    let mut triggers = Vec::new();
    let dir_name = match dir {
        Some(Direction::Forward) => ".forward",
        Some(Direction::Reverse) => ".reverse",
        _ => "",
    };
    for (j, plan) in stages.iter().enumerate() {
        if dir.is_some_and(|d| plan.direction != Direction::Both && plan.direction != d) {
            continue;
        }
        let stream = rng::stream(seed, &format!("{prefix}.impairments[{j}]{dir_name}"));
        let stage: Box<dyn ImpairmentStage> = match &plan.stage {
            StageSpec::Bernoulli { schedule } => Box::new(BernoulliLoss::scheduled(
                Schedule::new(schedule.iter().map(|&(t, p)| (t.0, p)).collect()),
                stream,
            )),
            StageSpec::DropList { packets, flow } => {
                Box::new(DropList::new(*flow, packets.clone()))
            }
            &StageSpec::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => Box::new(GilbertElliott::new(p_gb, p_bg, loss_good, loss_bad, stream)),
            &StageSpec::Outage { hold } => Box::new(Outage { hold }),
            StageSpec::Reorder(ReorderSpec::Random { r, delay }) => Box::new(Reorder::Random {
                r: *r,
                delay: distribution(delay),
                rng: stream,
            }),
            &StageSpec::Reorder(ReorderSpec::Exact { packet, positions }) => {
                Box::new(Reorder::Exact {
                    packet,
                    positions,
                    seen: Default::default(),
                })
            }
            StageSpec::DelayStep { extra } => Box::new(DelayStep { extra: extra.0 }),
            StageSpec::Arq(a) => Box::new(ArqDelay {
                pv: match &a.pv {
                    PvSpec::Constant(pv) => Schedule::constant(*pv),
                    PvSpec::Schedule(s) => {
                        Schedule::new(s.iter().map(|&(t, pv)| (t.0, pv)).collect())
                    }
                },
                delay: distribution(&a.delay),
                in_order: a.in_order,
                residual_loss: a.residual_loss,
                rng: stream,
            }),
        };
        let window = match plan.window {
            StageWindow::Always => Window::Always,
            StageWindow::Between(start, end) => Window::Between(start, end),
            StageWindow::OnTrigger {
                flow,
                segment,
                duration,
            } => {
                triggers.push((flow, segment, chain.len()));
                Window::OnTrigger { duration }
            }
        };
        chain.push(Impairment {
            applies_to: plan.applies_to,
            window,
            stage,
        });
    }
    (chain, triggers)
}

fn distribution(d: &DelaySpec) -> DelayDistribution {
    match d {
        DelaySpec::Constant(c) => DelayDistribution::Constant(c.value.0),
        DelaySpec::Uniform(u) => DelayDistribution::Uniform {
            min: u.min.0,
            max: u.max.0,
        },
        DelaySpec::Normal(n) => DelayDistribution::Normal {
            mean: n.mean.0,
            sd: n.sd.0,
        },
        DelaySpec::Exponential(e) => DelayDistribution::Exponential { mean: e.mean.0 },
        DelaySpec::Empirical(e) => DelayDistribution::empirical(
            e.values.iter().map(|v| v.0).collect(),
            e.weights.as_deref(),
        ),
    }
}

fn tcp_flow(
    spec: &Scenario,
    seed: u64,
    i: usize,
    f: &FlowSpec,
    tcp: &TcpPlan,
    src: NodeId,
    dst: NodeId,
) -> Flow {
    let t = &tcp.options;
    let (sender_cfg, receiver_cfg) = tcp_agents(t, tcp.recovery, &f.app);
    let rng = rng::stream(seed, &format!("flows[{i}].cc"));
    let cc = &tcp.cc;
    let controller = cc.build(rng);
    let flow = Flow::new(
        spec.flow_name(i),
        cc.name().to_string(),
        src,
        dst,
        TcpSender::new(sender_cfg, controller),
        TcpReceiver::new(receiver_cfg),
        f.start.0,
        f.stop.map(|s| s.0.min(spec.duration.0)),
        t.timestamps,
    );
    if t.handshake {
        flow.with_handshake(Handshake::new(t.rto))
    } else {
        flow
    }
}

/// The sender's and receiver's configuration from a flow's (or a generator's) TCP
/// options, its loss recovery and what its application sends.
pub(super) fn tcp_agents(
    t: &TcpOptions,
    recovery: Recovery,
    app: &AppSpec,
) -> (SenderConfig, ReceiverConfig) {
    // The MSS asked for, clamped to the MTU, less the timestamp option.
    let mss = t.payload_mss();
    let app_bytes = match app {
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
    };
    let receiver_cfg = ReceiverConfig {
        buffer: t.receive_window,
        delayed_ack: t.delayed_ack.then_some(DelayedAck {
            timeout: t.delayed_ack_timeout,
            every: t.delayed_ack_every,
        }),
        mss,
        sack: t.sack,
        dsack: t.dsack,
        timestamps: t.timestamps,
    };
    (sender_cfg, receiver_cfg)
}

/// Loads (files relative to the working directory), builds and runs a scenario
/// given as TOML or JSON.
pub fn run_toml(text: &str, seed: u64) -> Result<crate::results::RunResults, ScenarioError> {
    Ok(build(&super::load::load(text, None)?, seed).run())
}

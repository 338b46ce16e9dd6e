//! Checked stages into the kernel's impairment chain of a link direction or a
//! wireless channel, each stage on its own random stream.

use super::check::{StagePlan, StageWindow};
use super::spec::{Direction, PvSpec, ReorderSpec, StageSpec};
use crate::net::impair::{
    ArqDelay, BernoulliLoss, DelayStep, DropList, GilbertElliott, Impairment, ImpairmentChain,
    ImpairmentStage, Outage, Reorder, Schedule, Window,
};
use crate::packet::FlowId;
use crate::rng::{self, RngStream};

/// The impairment chain of a link direction (`dir`) or of a wireless channel
/// (`None`: no direction), and its triggers as (flow, segment, stage index).
/// Random streams are named `<prefix>.impairments[<j>][.<direction>]`.
pub fn chain(
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
        let stage = kernel_stage(&plan.stage, stream);
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

/// The kernel's stage for a checked one; `stream` is its random stream (the stages
/// that draw take it).
fn kernel_stage(stage: &StageSpec<FlowId>, stream: RngStream) -> Box<dyn ImpairmentStage> {
    match stage {
        StageSpec::Bernoulli { schedule } => Box::new(BernoulliLoss::scheduled(
            Schedule::new(schedule.iter().map(|&(t, p)| (t.0, p)).collect()),
            stream,
        )),
        StageSpec::DropList { packets, flow } => Box::new(DropList::new(*flow, packets.clone())),
        &StageSpec::GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
        } => Box::new(GilbertElliott::new(p_gb, p_bg, loss_good, loss_bad, stream)),
        &StageSpec::Outage { hold } => Box::new(Outage { hold }),
        StageSpec::Reorder(ReorderSpec::Random { r, delay }) => Box::new(Reorder::Random {
            r: *r,
            delay: delay.distribution(),
            rng: stream,
        }),
        &StageSpec::Reorder(ReorderSpec::Exact { packet, positions }) => Box::new(Reorder::Exact {
            packet,
            positions,
            seen: Default::default(),
        }),
        StageSpec::DelayStep { extra } => Box::new(DelayStep { extra: extra.0 }),
        StageSpec::Arq(a) => Box::new(ArqDelay {
            pv: match &a.pv {
                PvSpec::Constant(pv) => Schedule::constant(*pv),
                PvSpec::Schedule(s) => Schedule::new(s.iter().map(|&(t, pv)| (t.0, pv)).collect()),
            },
            delay: a.delay.distribution(),
            in_order: a.in_order,
            residual_loss: a.residual_loss,
            rng: stream,
        }),
    }
}

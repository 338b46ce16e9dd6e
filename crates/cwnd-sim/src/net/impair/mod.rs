//! Impairment stages: composable effects applied to the packets leaving one link
//! direction: loss (Bernoulli, scheduled, Gilbert–Elliott, drop lists), outages,
//! reordering, delay steps and link-layer ARQ delays.
//!
//! A stage sees only time and packet metadata, never engine types, so that the
//! same stage can run inside the simulator and inside the live emulator. Each
//! stage owns its random stream (see `rng`). Stages are applied in the order the
//! scenario lists them, when the packet has been serialized onto the medium; the
//! first stage that drops a packet ends the chain.
//!
//! Every stage can be limited to a window of time: from a start time or from a
//! trigger (a flow event, fired by the world), for a duration. Outside its window
//! a stage passes packets untouched and draws no random numbers.

mod arq;
mod bernoulli;
mod delay_step;
mod drop_list;
mod gilbert_elliott;
mod outage;
mod reorder;
mod schedule;

pub use arq::ArqDelay;
pub use bernoulli::BernoulliLoss;
pub use delay_step::DelayStep;
pub use drop_list::DropList;
pub use gilbert_elliott::GilbertElliott;
pub use outage::Outage;
pub use reorder::{DelayDistribution, Reorder};
pub use schedule::Schedule;

use crate::packet::{FlowId, PacketClass};
use crate::time::SimTime;

/// What a stage is told about a packet.
#[derive(Clone, Copy, Debug)]
pub struct PacketMeta {
    pub flow: FlowId,
    pub class: PacketClass,
    pub size: u32,
    /// When the last bit leaves the transmitter.
    pub sent: SimTime,
}

/// A stage's decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Deliver after the link's propagation delay plus `extra`. With `hold`, the
    /// direction's transmitter is busy for `extra` as well (an in-order link layer
    /// retransmitting: the packets behind wait).
    Pass { extra: SimTime, hold: bool },
    /// Deliver the packet just after the next `n` packets of its flow on this link
    /// (exact reordering).
    After(u64),
    /// The packet is lost on the medium.
    Drop,
}

impl Verdict {
    pub const PASS: Verdict = Verdict::Pass {
        extra: SimTime::ZERO,
        hold: false,
    };

    pub fn delay(extra: SimTime) -> Verdict {
        Verdict::Pass { extra, hold: false }
    }
}

/// One impairment on one link direction.
pub trait ImpairmentStage: Send {
    fn apply(&mut self, packet: &PacketMeta) -> Verdict;

    /// Whether switching the stage on also loses the packets already on their way
    /// across the medium (an outage does; a loss process does not).
    fn cuts_the_medium(&self) -> bool {
        false
    }

    /// Whether, while active, no transmission may start (the sender holds its
    /// packets: an outage in hold mode).
    fn holds_the_line(&self) -> bool {
        false
    }
}

/// What switching a stage on by a trigger does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriggerEffect {
    pub from: SimTime,
    pub until: SimTime,
    /// Packets in flight arriving in [from, until) are lost.
    pub cuts: bool,
    /// Transmissions may not start in [from, until).
    pub holds: bool,
}

/// When a stage is active: packets whose transmission ends inside the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    Always,
    Between(SimTime, SimTime),
    /// Waits for a trigger; then active for `duration` from the trigger's time.
    OnTrigger {
        duration: SimTime,
    },
}

impl Window {
    fn contains(&self, t: SimTime) -> bool {
        match *self {
            Window::Always => true,
            Window::Between(start, end) => start <= t && t < end,
            Window::OnTrigger { .. } => false,
        }
    }
}

/// Which classes of packets a stage sees; the others pass untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppliesTo {
    Data,
    Acks,
    All,
}

impl AppliesTo {
    pub fn matches(self, class: PacketClass) -> bool {
        match self {
            AppliesTo::All => true,
            AppliesTo::Data => class == PacketClass::Data,
            AppliesTo::Acks => class == PacketClass::Ack,
        }
    }
}

/// A stage together with its packet filter and its window.
pub struct Impairment {
    pub applies_to: AppliesTo,
    pub window: Window,
    pub stage: Box<dyn ImpairmentStage>,
}

/// The ordered stages of one link direction.
#[derive(Default)]
pub struct ImpairmentChain {
    stages: Vec<Impairment>,
}

impl ImpairmentChain {
    pub fn push(&mut self, impairment: Impairment) {
        self.stages.push(impairment);
    }

    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    pub fn len(&self) -> usize {
        self.stages.len()
    }

    /// Runs the packet through every active stage that applies to it; extra delays
    /// add up, and one holding stage holds the line.
    pub fn apply(&mut self, packet: &PacketMeta) -> Verdict {
        let (mut extra, mut hold) = (SimTime::ZERO, false);
        for imp in &mut self.stages {
            if !imp.applies_to.matches(packet.class) || !imp.window.contains(packet.sent) {
                continue;
            }
            match imp.stage.apply(packet) {
                v @ (Verdict::Drop | Verdict::After(_)) => return v,
                Verdict::Pass { extra: e, hold: h } => {
                    extra += e;
                    hold |= h;
                }
            }
        }
        Verdict::Pass { extra, hold }
    }

    /// Whether a stage that cuts the medium (an outage: the peer is out of reach)
    /// is active for this packet. An 802.11 sender asks before its RTS: an absent
    /// peer answers no CTS. Draws no random numbers.
    pub fn cuts(&self, packet: &PacketMeta) -> bool {
        self.stages.iter().any(|imp| {
            imp.stage.cuts_the_medium()
                && imp.applies_to.matches(packet.class)
                && imp.window.contains(packet.sent)
        })
    }

    /// If a holding stage is active at `t`, the end of its window: no transmission
    /// may start before then.
    pub fn held_until(&self, t: SimTime) -> Option<SimTime> {
        self.stages.iter().find_map(|imp| match imp.window {
            Window::Between(start, end) if imp.stage.holds_the_line() && start <= t && t < end => {
                Some(end)
            }
            _ => None,
        })
    }

    /// Fires the trigger of stage `i` at `now`: it becomes active for its duration.
    pub fn trigger(&mut self, i: usize, now: SimTime) -> Option<TriggerEffect> {
        let imp = self.stages.get_mut(i)?;
        let Window::OnTrigger { duration } = imp.window else {
            return None;
        };
        let until = now + duration;
        imp.window = Window::Between(now, until);
        Some(TriggerEffect {
            from: now,
            until,
            cuts: imp.stage.cuts_the_medium(),
            holds: imp.stage.holds_the_line(),
        })
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::PacketMeta;
    use crate::packet::PacketClass;
    use crate::time::SimTime;

    /// A full-sized data packet of flow 0 sent at time 0.
    pub fn data_meta() -> PacketMeta {
        PacketMeta {
            flow: 0,
            class: PacketClass::Data,
            size: 1500,
            sent: SimTime::ZERO,
        }
    }
}

//! Impairment stages: composable effects applied to the packets leaving one link
//! direction (loss, and in later stages outages, reordering, delay changes, ARQ delays).
//!
//! A stage sees only time and packet metadata, never engine types, so that the
//! same stage can run inside the simulator and inside the live emulator. Each
//! stage owns its random stream (see `rng`). Stages are applied in the order the
//! scenario lists them, when the packet has been serialized onto the medium; the
//! first stage that drops a packet ends the chain.

mod bernoulli;
mod drop_list;

pub use bernoulli::BernoulliLoss;
pub use drop_list::DropList;

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
    /// Deliver after the link's propagation delay plus `extra`.
    Pass { extra: SimTime },
    /// The packet is lost on the medium.
    Drop,
}

impl Verdict {
    pub const PASS: Verdict = Verdict::Pass {
        extra: SimTime::ZERO,
    };
}

/// One impairment on one link direction.
pub trait ImpairmentStage: Send {
    fn apply(&mut self, packet: &PacketMeta) -> Verdict;
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

/// A stage together with its packet filter.
pub struct Impairment {
    pub applies_to: AppliesTo,
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

    /// Runs the packet through every stage that applies to it; extra delays add up.
    pub fn apply(&mut self, packet: &PacketMeta) -> Verdict {
        let mut extra = SimTime::ZERO;
        for imp in &mut self.stages {
            if !imp.applies_to.matches(packet.class) {
                continue;
            }
            match imp.stage.apply(packet) {
                Verdict::Drop => return Verdict::Drop,
                Verdict::Pass { extra: e } => extra += e,
            }
        }
        Verdict::Pass { extra }
    }
}

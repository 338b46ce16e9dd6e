//! Delay step: from a given time on, every packet takes `extra` longer to cross
//! the link — the propagation delay steps up (the `reorder` study doubles the RTT at
//! t = 5 s). Applied through the stage's window (`start`), so packets whose
//! transmission ended before the step keep their arrival time.
//!
//! Simplification: only increases; a decrease would let later packets overtake
//! earlier ones, which a real path change does not do either way.

use super::{ImpairmentStage, PacketMeta, Verdict};
use crate::time::SimTime;

pub struct DelayStep {
    pub extra: SimTime,
}

impl ImpairmentStage for DelayStep {
    fn apply(&mut self, _packet: &PacketMeta) -> Verdict {
        Verdict::delay(self.extra)
    }
}

//! Outage (disconnection): while active, the link direction delivers nothing.
//!
//! Two modes:
//! * drop (default): every packet whose transmission ends inside the outage window is
//!   lost, and when the outage is switched on by a trigger, so are the packets already
//!   on their way whose arrival falls inside it (`cuts_the_medium`). Packets keep
//!   being serialized at the link rate during the outage (the sender's interface does
//!   not know the far end is gone), which is what a wireless hop whose peer moved
//!   away looks like to its queue.
//! * hold: the sender's link layer knows the link is down and keeps its packets: no
//!   transmission starts inside the window; packets wait in the direction's queue
//!   (whose limit applies: beyond it they are dropped) and go out back to back when
//!   the window ends. What is already on the medium when the outage begins is lost,
//!   as in the drop mode. When a trigger starts the outage, packets queued but not yet
//!   started are taken back and offered again (their impairment stages are drawn
//!   again).

use super::{ImpairmentStage, PacketMeta, Verdict};

#[derive(Clone, Copy, Debug, Default)]
pub struct Outage {
    /// Hold packets in the sender's queue instead of losing them.
    pub hold: bool,
}

impl ImpairmentStage for Outage {
    fn apply(&mut self, _packet: &PacketMeta) -> Verdict {
        Verdict::Drop
    }

    fn cuts_the_medium(&self) -> bool {
        true
    }

    fn holds_the_line(&self) -> bool {
        self.hold
    }
}

//! Outage (disconnection): while active, the link direction delivers nothing.
//!
//! Every packet whose transmission ends inside the outage window is lost, and when
//! the outage is switched on by a trigger, so are the packets already on their way
//! whose arrival falls inside it (`cuts_the_medium`). Packets keep being
//! serialized at the link rate during the outage (the sender's interface does not
//! know the far end is gone), which is what a wireless hop whose peer moved away
//! looks like to its queue.
//!
//! Simplification: the option to hold packets in the sender's queue until the link
//! returns is not modelled; an outage always loses what it covers.

use super::{ImpairmentStage, PacketMeta, Verdict};

#[derive(Clone, Copy, Debug, Default)]
pub struct Outage;

impl ImpairmentStage for Outage {
    fn apply(&mut self, _packet: &PacketMeta) -> Verdict {
        Verdict::Drop
    }

    fn cuts_the_medium(&self) -> bool {
        true
    }
}

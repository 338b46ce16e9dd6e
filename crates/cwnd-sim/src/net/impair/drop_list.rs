//! Deterministic drops: the k-th packets (1-based) of one flow that this stage
//! sees, e.g. "drop data packets 20, 22 and 25 of flow f1". Retransmissions are
//! packets too and are counted. Used to build exact loss patterns (several losses
//! in one window) that random loss produces only by chance.

use std::collections::HashMap;

use super::{ImpairmentStage, PacketMeta, Verdict};
use crate::packet::FlowId;

pub struct DropList {
    /// Only this flow's packets are counted and dropped (`None`: every flow's,
    /// each counted separately).
    flow: Option<FlowId>,
    /// Sorted packet indices to drop.
    drops: Vec<u64>,
    seen: HashMap<FlowId, u64>,
}

impl DropList {
    pub fn new(flow: Option<FlowId>, mut drops: Vec<u64>) -> Self {
        drops.sort_unstable();
        drops.dedup();
        DropList {
            flow,
            drops,
            seen: HashMap::new(),
        }
    }
}

impl ImpairmentStage for DropList {
    fn apply(&mut self, packet: &PacketMeta) -> Verdict {
        if self.flow.is_some_and(|f| f != packet.flow) {
            return Verdict::PASS;
        }
        let k = self.seen.entry(packet.flow).or_insert(0);
        *k += 1;
        if self.drops.binary_search(k).is_ok() {
            Verdict::Drop
        } else {
            Verdict::PASS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketClass;
    use crate::time::SimTime;

    fn meta(flow: FlowId) -> PacketMeta {
        PacketMeta {
            flow,
            class: PacketClass::Data,
            size: 1000,
            sent: SimTime::ZERO,
        }
    }

    #[test]
    fn drops_exactly_the_listed_packets_of_the_flow() {
        let mut d = DropList::new(Some(1), vec![5, 2]);
        let dropped: Vec<u64> = (1..=6)
            .filter(|_| {
                d.apply(&meta(0)); // other flow: neither counted nor dropped
                d.apply(&meta(1)) == Verdict::Drop
            })
            .collect();
        assert_eq!(dropped, vec![2, 5]);
    }

    #[test]
    fn without_a_flow_each_flow_is_counted_on_its_own() {
        let mut d = DropList::new(None, vec![1]);
        assert_eq!(d.apply(&meta(0)), Verdict::Drop);
        assert_eq!(d.apply(&meta(1)), Verdict::Drop);
        assert_eq!(d.apply(&meta(0)), Verdict::PASS);
    }
}

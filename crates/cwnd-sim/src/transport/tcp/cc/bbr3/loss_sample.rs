//! The two loss numbers of a rate sample that BBRv3 reads and the sender does not
//! give: `lost`, the segments marked lost between the sampled segment's
//! transmission and its acknowledgement, and `tx_in_flight`, the segments in flight
//! when it was sent (Linux `struct rate_sample`'s `lost` and `tx_in_flight`, from
//! the skb's `tx.lost` and `tx.in_flight` stamps; draft-ietf-ccwg-bbr-04 §4.5.2
//! `RS.lost`, `RS.tx_in_flight`).
//!
//! Simplified, because the `CongestionControl` trait stamps nothing per segment:
//! * `lost`: the controller counts the losses the ACKs report (`RateSample::losses`,
//!   Linux's `tp->lost` in the same units) and remembers, after each ACK, the pair
//!   (connection's `delivered`, losses so far). The sampled segment was sent while
//!   `delivered` stood at the sample's `prior_delivered`: the losses counted then
//!   are the last pair's with `delivered ≤ prior_delivered`, and `lost` is the count
//!   now minus that.
//! * `tx_in_flight`: what was in flight at its transmission has, by its ACK, been
//!   either delivered or marked lost (in order, on a path that does not reorder):
//!   `delivered + lost` of the sample.
//!
//! The history starts with (delivered at the model's start, 0). The pairs older
//! than the one a sample finds are dropped: the next samples' `prior_delivered`
//! hardly go back (a retransmission is stamped anew; one that does go back takes the
//! oldest pair kept), so the history holds about one round of ACKs.

use std::collections::VecDeque;

/// A rate sample's loss view (Linux `rs->lost`, `rs->tx_in_flight`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossSample {
    pub lost: u32,
    pub tx_in_flight: u32,
}

#[derive(Clone, Debug)]
pub struct LossHistory {
    /// Losses reported so far (Linux `tp->lost`).
    lost_total: u64,
    /// (delivered, lost_total) after each ACK, oldest first.
    marks: VecDeque<(u64, u64)>,
}

impl LossHistory {
    /// A history starting when the connection has delivered `delivered`.
    pub fn new(delivered: u64) -> Self {
        LossHistory {
            lost_total: 0,
            marks: VecDeque::from([(delivered, 0)]),
        }
    }

    /// An ACK reports `losses` new losses; the connection has now delivered
    /// `delivered`. The sample's segment was sent at `prior_delivered` and the ACK
    /// delivered `sample_delivered` since (0: no sample).
    pub fn on_ack(
        &mut self,
        losses: u32,
        delivered: u64,
        prior_delivered: u64,
        sample_delivered: u64,
    ) -> LossSample {
        self.lost_total += u64::from(losses);
        let sample = if sample_delivered == 0 {
            LossSample::default()
        } else {
            let at_send = self.losses_at(prior_delivered);
            let lost = (self.lost_total - at_send) as u32;
            LossSample {
                lost,
                tx_in_flight: sample_delivered as u32 + lost,
            }
        };
        self.marks.push_back((delivered, self.lost_total));
        sample
    }

    /// Losses counted when `delivered` stood at `prior_delivered`; drops older pairs.
    fn losses_at(&mut self, prior_delivered: u64) -> u64 {
        let found = self
            .marks
            .iter()
            .rposition(|&(delivered, _)| delivered <= prior_delivered);
        self.marks.drain(..found.unwrap_or(0));
        self.marks.front().map_or(0, |&(_, lost)| lost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_counts_the_losses_since_the_sampled_segment_was_sent() {
        // ACKs leave delivered at 10, 20, 30 with 0, 2, 5 losses so far. A segment
        // sent when delivered was 20 (losses then: 2) is acknowledged by an ACK that
        // reports 1 more loss (6 in all) with 12 delivered since: lost = 6 − 2 = 4,
        // tx_in_flight = 12 + 4 = 16.
        let mut h = LossHistory::new(0);
        h.on_ack(0, 10, 0, 0);
        h.on_ack(2, 20, 0, 0);
        h.on_ack(3, 30, 0, 0);
        let s = h.on_ack(1, 32, 20, 12);
        assert_eq!(
            s,
            LossSample {
                lost: 4,
                tx_in_flight: 16
            }
        );
        // The pairs before (20, 2) are gone; a segment sent at 25 finds (20, 2) too.
        assert_eq!(h.marks.front(), Some(&(20, 2)));
        let s = h.on_ack(0, 40, 25, 15);
        assert_eq!(s.lost, 4);
    }

    #[test]
    fn a_segment_sent_before_any_ack_counts_every_loss_and_no_sample_counts_none() {
        // The model starts at delivered 5. First ACK: 3 losses, a sample of 8
        // delivered from a segment sent at delivered 5, before any ACK: lost 3,
        // tx_in_flight 11. An ACK without a sample reports nothing. A later sample
        // from a segment sent at delivered 2 (before the start) takes the oldest
        // pair kept, (5, 0): lost = 4 − 0 = 4.
        let mut h = LossHistory::new(5);
        let s = h.on_ack(3, 13, 5, 8);
        assert_eq!((s.lost, s.tx_in_flight), (3, 11));
        assert_eq!(h.on_ack(1, 13, 0, 0), LossSample::default());
        assert_eq!(h.on_ack(0, 14, 2, 1).lost, 4);
    }
}

//! RR-SCTP detection of spurious retransmission events (Barletta, Righetti, Veiga,
//! §4.1): the TSN retransmission list (Trl) of one destination.
//!
//! A retransmission event is a fast retransmit or a T3-rtx timeout; every fast
//! retransmit made during one Fast Recovery belongs to the same event. The rules:
//! * every retransmitted TSN is added to the Trl of the destination the event
//!   happened on, marked as belonging to the latest event;
//! * when a new event begins, the marks of the older entries are cleared and the
//!   entries at or below the cumulative TSN ack point are pruned (they will not be
//!   retransmitted again, so they cannot matter for this or a later event; pruning
//!   only at events keeps the list bounded by what one event retransmits plus what
//!   is still outstanding);
//! * a duplicate TSN report removes one entry of that TSN, an unmarked copy first
//!   (a duplicate cannot say which transmission it reports, and older events are no
//!   longer judged);
//! * when the entries of the latest event are all gone, every TSN it retransmitted
//!   was received twice: no original was lost, and the event was spurious.
//!
//! One refinement the paper does not spell out: an event is judged only once every
//! chunk it marked for retransmission has been retransmitted (or acknowledged before
//! it was). A fast retransmit sends at once only what fits one packet and a timeout
//! only one packet; the other marked chunks wait for cwnd. Without this, a window
//! with a reordered TSN (retransmitted at once, soon reported duplicate) and a lost
//! one (still waiting) would be called spurious by the first duplicate.
//!
//! Each entry keeps the TSN's missing-report count (crf) for the dupthresh
//! adaptation: a retransmitted TSN's crf is used only once its duplicate report
//! shows that it was reordered, not lost (§4.3).

use crate::transport::sctp::outstanding::EventId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    tsn: u64,
    /// Belongs to the latest event.
    marked: bool,
    /// Missing reports of the TSN when it was acknowledged (0 until then).
    crf: u32,
}

/// What a duplicate report did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuplicateOutcome {
    /// The TSN was not in the list (pruned, or never retransmitted to this path).
    Unknown,
    /// An entry of an older event was removed.
    Old,
    /// An entry of the latest event was removed; its crf is given, and `spurious`
    /// says whether that was the event's last entry.
    Latest { crf: u32, spurious: bool },
}

#[derive(Clone, Debug, Default)]
pub struct Trl {
    entries: Vec<Entry>,
    /// The latest event of this destination, and whether it was found spurious.
    event: Option<EventId>,
    decided: bool,
    /// Chunks the latest event marked that are neither retransmitted nor acknowledged.
    pending: u32,
    /// Whether a duplicate report removed an entry of the latest event.
    confirmed: bool,
}

impl Trl {
    pub fn latest_event(&self) -> Option<EventId> {
        self.event
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }

    /// A new event begins; `cumulative` is the cumulative TSN ack point.
    pub fn begin_event(&mut self, event: EventId, cumulative: u64) {
        self.entries.retain(|e| e.tsn > cumulative);
        for e in &mut self.entries {
            e.marked = false;
        }
        self.event = Some(event);
        self.decided = false;
        self.pending = 0;
        self.confirmed = false;
    }

    /// `event` marked one more chunk for retransmission.
    pub fn mark(&mut self, event: EventId) {
        if self.event == Some(event) {
            self.pending += 1;
        }
    }

    /// `tsn` was retransmitted for `event`; only the latest event's count.
    pub fn add(&mut self, event: EventId, tsn: u64) {
        if self.event == Some(event) {
            self.pending = self.pending.saturating_sub(1);
            self.entries.push(Entry {
                tsn,
                marked: true,
                crf: 0,
            });
        }
    }

    /// A chunk `event` marked was acknowledged before it was retransmitted; returns
    /// whether that completes a spurious verdict.
    pub fn unmark(&mut self, event: EventId) -> bool {
        if self.event != Some(event) {
            return false;
        }
        self.pending = self.pending.saturating_sub(1);
        self.judge()
    }

    /// Spurious, once: duplicates came back, nothing of the event is left.
    fn judge(&mut self) -> bool {
        let spurious = !self.decided
            && self.confirmed
            && self.pending == 0
            && !self.entries.iter().any(|e| e.marked);
        self.decided |= spurious;
        spurious
    }

    /// `tsn` was acknowledged after `crf` missing reports.
    pub fn set_crf(&mut self, tsn: u64, crf: u32) {
        for e in self.entries.iter_mut().filter(|e| e.tsn == tsn && e.marked) {
            e.crf = crf;
        }
    }

    /// A SACK reported `tsn` as a duplicate.
    pub fn on_duplicate(&mut self, tsn: u64) -> DuplicateOutcome {
        let find = |marked: bool| {
            self.entries
                .iter()
                .position(|e| e.tsn == tsn && e.marked == marked)
        };
        if let Some(i) = find(false) {
            self.entries.swap_remove(i);
            return DuplicateOutcome::Old;
        }
        let Some(i) = find(true) else {
            return DuplicateOutcome::Unknown;
        };
        let crf = self.entries.swap_remove(i).crf;
        self.confirmed = true;
        let spurious = self.judge();
        DuplicateOutcome::Latest { crf, spurious }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spurious_fast_retransmit_is_detected_when_its_duplicate_arrives() {
        // TSN 100 retransmitted by event 0; the original arrives late, the
        // retransmission is reported duplicate: the event was spurious.
        let mut t = Trl::default();
        t.begin_event(0, 99);
        t.add(0, 100);
        t.set_crf(100, 4);
        assert_eq!(
            t.on_duplicate(100),
            DuplicateOutcome::Latest {
                crf: 4,
                spurious: true
            }
        );
        // Decided once only.
        t.add(0, 100);
        assert_eq!(
            t.on_duplicate(100),
            DuplicateOutcome::Latest {
                crf: 0,
                spurious: false
            }
        );
    }

    #[test]
    fn a_real_loss_is_not_declared_spurious() {
        // TSN 100 was lost: its retransmission is the only copy, no duplicate report
        // ever comes. A duplicate of another TSN does not count.
        let mut t = Trl::default();
        t.begin_event(0, 99);
        t.add(0, 100);
        assert_eq!(t.on_duplicate(97), DuplicateOutcome::Unknown);
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn a_mixed_window_is_not_declared_spurious() {
        // One event retransmitted 100 (reordered) and 103 (lost): only 100 comes back
        // as a duplicate.
        let mut t = Trl::default();
        t.begin_event(0, 99);
        t.add(0, 100);
        t.add(0, 103);
        assert_eq!(
            t.on_duplicate(100),
            DuplicateOutcome::Latest {
                crf: 0,
                spurious: false
            }
        );
    }

    #[test]
    fn older_copies_are_removed_first_and_a_new_event_clears_marks() {
        // Event 0 retransmits 50; event 1 retransmits 50 again and 60. A duplicate of
        // 50 takes the old copy; the event is spurious only after 50 and 60 both
        // come back twice more.
        let mut t = Trl::default();
        t.begin_event(0, 40);
        t.add(0, 50);
        t.begin_event(1, 40);
        t.add(1, 50);
        t.add(1, 60);
        t.add(0, 70); // an older event's retransmission is not recorded
        assert_eq!(t.len(), 3);
        assert_eq!(t.on_duplicate(50), DuplicateOutcome::Old);
        assert!(matches!(
            t.on_duplicate(50),
            DuplicateOutcome::Latest {
                spurious: false,
                ..
            }
        ));
        assert!(matches!(
            t.on_duplicate(60),
            DuplicateOutcome::Latest { spurious: true, .. }
        ));
    }

    #[test]
    fn an_event_is_judged_only_once_every_marked_chunk_is_resolved() {
        // Event 0 marks 100 and 103; only 100 fits the first packet. Its duplicate
        // alone decides nothing; 103 acknowledged before being retransmitted (its
        // original arrived too) completes the verdict: spurious.
        let mut t = Trl::default();
        t.begin_event(0, 99);
        t.mark(0);
        t.mark(0);
        t.add(0, 100);
        assert_eq!(
            t.on_duplicate(100),
            DuplicateOutcome::Latest {
                crf: 0,
                spurious: false
            }
        );
        assert!(t.unmark(0));
        // Had 103 been retransmitted instead, its own duplicate would be needed.
        let mut u = Trl::default();
        u.begin_event(0, 99);
        u.mark(0);
        u.mark(0);
        u.add(0, 100);
        u.add(0, 103);
        u.on_duplicate(100);
        assert!(!u.unmark(1)); // another event's chunk: no effect
        assert_eq!(
            u.on_duplicate(103),
            DuplicateOutcome::Latest {
                crf: 0,
                spurious: true
            }
        );
    }

    #[test]
    fn the_list_stays_bounded_by_pruning_at_each_event() {
        // 1000 events, each retransmitting 3 lost TSNs that are never reported
        // duplicate; the cumulative ack passes them before the next event. Only the
        // latest event's 3 entries remain.
        let mut t = Trl::default();
        for e in 0..1000u32 {
            let base = e as u64 * 10;
            t.begin_event(e, base);
            for k in 1..=3 {
                t.add(e, base + k);
            }
        }
        assert_eq!(t.len(), 3);
    }
}

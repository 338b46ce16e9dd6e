//! A lazily re-armed timer: at most one engine event pending per timer.
//!
//! Components keep their own deadline (an RTO restarted on every ACK, a link's
//! next arrival) and ask the timer whether the engine needs a new event for it.
//! An event is scheduled only when the deadline moves earlier than the pending
//! one; when a later event fires early, the owner finds its deadline still in the
//! future and asks again. A fired event that is not the pending one is stale.

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, Default)]
pub struct LazyTimer {
    pending: Option<SimTime>,
}

impl LazyTimer {
    /// The time at which a new event must be scheduled for `deadline`, if any.
    pub fn arm(&mut self, deadline: SimTime) -> Option<SimTime> {
        if deadline == SimTime::MAX {
            return None;
        }
        if self.pending.is_none_or(|p| deadline < p) {
            self.pending = Some(deadline);
            Some(deadline)
        } else {
            None
        }
    }

    /// Accepts the event firing at `now` if it is the pending one.
    pub fn fire(&mut self, now: SimTime) -> bool {
        if self.pending == Some(now) {
            self.pending = None;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_only_when_the_deadline_moves_earlier() {
        let mut t = LazyTimer::default();
        assert_eq!(t.arm(SimTime(100)), Some(SimTime(100)));
        assert_eq!(t.arm(SimTime(200)), None);
        assert_eq!(t.arm(SimTime(50)), Some(SimTime(50)));
        assert_eq!(t.arm(SimTime::MAX), None);
    }

    #[test]
    fn stale_events_are_refused() {
        let mut t = LazyTimer::default();
        t.arm(SimTime(100));
        t.arm(SimTime(50));
        assert!(t.fire(SimTime(50)));
        assert!(!t.fire(SimTime(100)));
        assert_eq!(t.arm(SimTime(100)), Some(SimTime(100)));
    }
}

//! The world's media table holds `AnyMedium`: every medium type as one arm, so that
//! a call is a `match` the compiler inlines rather than a call through a vtable (the
//! loop calls a medium several times per packet and hop; BENCHMARKS.md). A new
//! medium adds one arm here and its `impl Medium`.

use super::link::{LinkDirection, QueuedLink};
use super::medium::{Loss, Medium, MediumReport, SendOutcome};
use super::wifi::channel::WifiChannel;
use super::wimax::cell::WimaxCell;
use crate::packet::{NodeId, Packet};
use crate::time::SimTime;

/// Links are most of a table and every packet's hop: they sit in it unboxed. The
/// shared media are larger (a station's queues, a cell's connections) and boxed, so
/// that they do not widen every link's slot (456 B instead of 624 B). Boxing the
/// link too, as clippy would have it, would put a pointer chase on every hop. A link
/// on the dequeue path (a queue discipline or a capacity that moves) is an arm of its
/// own, boxed, so that the fast path's link tests nothing for it.
#[allow(clippy::large_enum_variant)]
#[repr(u8)]
pub enum AnyMedium {
    Link(LinkDirection),
    QueuedLink(Box<QueuedLink>),
    Wifi(Box<WifiChannel>),
    Wimax(Box<WimaxCell>),
}

/// `$body` with `$m` bound to the medium inside whichever arm `$self` is. A link on
/// the fast path is tested first and alone: one compare and branch on every hop,
/// whatever the other arms (BENCHMARKS.md).
macro_rules! each {
    ($self:expr, $m:ident => $body:expr) => {
        if let AnyMedium::Link($m) = $self {
            $body
        } else {
            match $self {
                AnyMedium::Link(_) => unreachable!("tested above"),
                AnyMedium::QueuedLink(boxed) => {
                    let $m = &mut **boxed;
                    $body
                }
                AnyMedium::Wifi(boxed) => {
                    let $m = &mut **boxed;
                    $body
                }
                AnyMedium::Wimax(boxed) => {
                    let $m = &mut **boxed;
                    $body
                }
            }
        }
    };
}

/// `each!` for methods that only read the medium.
macro_rules! each_ref {
    ($self:expr, $m:ident => $body:expr) => {
        match $self {
            AnyMedium::Link($m) => $body,
            AnyMedium::QueuedLink(boxed) => {
                let $m = &**boxed;
                $body
            }
            AnyMedium::Wifi(boxed) => {
                let $m = &**boxed;
                $body
            }
            AnyMedium::Wimax(boxed) => {
                let $m = &**boxed;
                $body
            }
        }
    };
}

impl Medium for AnyMedium {
    #[inline]
    fn fingerprint_kind(&self) -> u64 {
        each_ref!(self, m => m.fingerprint_kind())
    }

    #[inline]
    fn send(&mut self, now: SimTime, from: NodeId, to: NodeId, packet: Packet) -> SendOutcome {
        each!(self, m => Medium::send(m, now, from, to, packet))
    }

    /// Always inlined into the world's `schedule_medium` (BENCHMARKS.md).
    #[inline(always)]
    fn event_to_schedule(&mut self) -> Option<SimTime> {
        each!(self, m => m.event_to_schedule())
    }

    #[inline]
    fn on_event(&mut self, now: SimTime, lost: &mut Vec<(Packet, Loss)>) -> bool {
        each!(self, m => m.on_event(now, lost))
    }

    #[inline]
    fn next_delivery(&mut self, now: SimTime) -> Option<(NodeId, Packet)> {
        each!(self, m => m.next_delivery(now))
    }

    fn trigger(&mut self, stage: usize, now: SimTime, lost: &mut Vec<(Packet, Loss)>) {
        each!(self, m => m.trigger(stage, now, lost))
    }

    fn trace_bytes(&self) -> u64 {
        each_ref!(self, m => m.trace_bytes())
    }

    fn report(&mut self, end: SimTime) -> MediumReport {
        each!(self, m => m.report(end))
    }
}

//! UDP: a datagram transport without feedback, driven by a traffic source.
//!
//! The sender (`sender`) asks its source (`source`: constant bit rate, `cbr`, or
//! exponential / Pareto on/off, `on_off`) when the next datagram goes out and emits
//! datagrams of a fixed size; the sink (`sink`) counts what arrives. Nothing comes
//! back: losses are counted by the world where they happen (a queue or an
//! impairment). Sans-IO like the TCP agents: the agents take `now` and return
//! datagrams and their next deadline.
//!
//! The sources follow ns-2's traffic generators (tools/cbr_traffic.cc,
//! tools/expoo.cc, tools/pareto.cc, tools/trafgen.cc) so that studies written for
//! ns-2's `Application/Traffic/*` over `Agent/UDP` mean the same here.

pub mod cbr;
pub mod on_off;
pub mod sender;
pub mod sink;
pub mod source;

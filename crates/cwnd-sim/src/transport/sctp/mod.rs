//! SCTP (RFC 9260, which obsoletes RFC 4960) with multihoming, and the RR-SCTP
//! extension. One association has a data sender (endpoint A) and a data receiver
//! (endpoint Z); docs/sctp.md describes the model and every default.
//!
//! Files: `chunk` (wire format and sizes), `store` (packet bodies in flight),
//! `association` (set-up, shutdown, timers, routing of chunks), `sender` (sending
//! rules, SACK processing, fast retransmit, T3-rtx), `cc` (window rules per
//! destination), `path` (a destination's state), `multihoming` (destination choice,
//! failure detection, heartbeats), `outstanding` (retransmission queue), `app` (the
//! sending application), `receiver` (SACK generation), `tsn_set` (received TSNs),
//! `streams` (ordered and unordered delivery), `rr` (RR-SCTP), `truth` (which
//! retransmissions were needed, known to the simulator only).

pub mod app;
pub mod association;
mod cc;
pub mod chunk;
pub mod config;
mod multihoming;
pub mod outstanding;
pub mod path;
pub mod receiver;
pub mod rr;
pub mod sender;
pub mod store;
pub mod streams;
pub mod truth;
pub mod tsn_set;

#[cfg(test)]
mod script_tests;

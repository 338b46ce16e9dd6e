//! Transport protocols.

pub mod dupthresh;
pub mod sctp;
pub mod tcp;
pub mod udp;

//! Transport protocols.

pub mod sctp;
pub mod tcp;

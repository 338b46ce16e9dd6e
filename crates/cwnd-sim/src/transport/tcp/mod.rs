//! TCP: sender and receiver agents, RTO estimation, loss recovery and congestion
//! control.

pub mod cc;
pub mod cc_sample;
pub mod ecn;
mod ecn_echo;
pub mod handshake;
mod nagle;
mod pacing;
mod prr;
mod quickack;
mod rack;
pub mod rate;
pub mod receiver;
pub mod recovery;
mod reno_sack;
mod reordering;
pub mod rto;
mod sack;
mod send_buffer;
pub mod sender;
pub mod socket_options;
mod spurious;
pub mod tcb;
mod tlp;

#[cfg(test)]
mod app_tests;
#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod layering_tests;
#[cfg(test)]
mod rack_tests;
#[cfg(test)]
mod sack_tests;
#[cfg(test)]
mod script_tests;

//! cwnd-live: the real-time driver of live mode (`cwnd live`, docs/live.md).
//!
//! Real Linux TCP runs in network namespaces, one per end host; each namespace
//! reaches the others only through a TUN device whose other end is this relay.
//! The relay reads the kernel's IP packets, injects them into cwnd's own `World`
//! at the wall-clock time they arrived (`cwnd_sim::world::external`), runs the
//! world's event loop against the wall clock and writes every packet the model
//! delivers to the TUN device of its destination host, when the model says so.
//! There is no second model of any link, queue or impairment: one model, two
//! clocks (after ns-3's `RealtimeSimulatorImpl` and `TapBridge`).
//!
//! Linux only: TUN devices, `ppoll`, `CLOCK_MONOTONIC`.

pub mod clock;
pub mod delay;
pub mod ipv4;
pub mod lateness;
pub mod passthrough;
pub mod pool;
pub mod relay;
pub mod stream;
pub mod tun;

//! Saturation throughput of the DCF alone (every station always has a 1500-byte
//! packet to send, ideal channel): the quantity Bianchi (2000) models. Used by the
//! DCF's check against the model and by `examples/dcf_saturation.rs` for the figure
//! in docs/links.md.

use super::dcf::{Contention, NextSlot, Retry};
use super::timing::{Access, Phy};
use crate::rng::stream;
use crate::time::SimTime;

/// Bit/s of IP payload delivered by `n` saturated stations over `seconds` of
/// channel time.
pub fn saturation_throughput(n: usize, phy: &Phy, access: Access, seconds: u64, seed: u64) -> f64 {
    let mut c = Contention::new(n, phy.cw_min, stream(seed, "dcf"));
    for i in 0..n {
        c.ready(i);
    }
    let (ts, tc) = (
        phy.success_time(1500, access),
        phy.collision_time(1500, access),
    );
    let (mut t, mut delivered) = (SimTime::ZERO, 0u64);
    while t < SimTime::from_secs(seconds) {
        match c.next_slot() {
            NextSlot::Idle(k) => t += phy.slot.saturating_mul(k as u64),
            NextSlot::Transmit(tx) if tx.len() == 1 => {
                c.done(tx[0], true);
                t += ts;
                delivered += 1500;
            }
            NextSlot::Transmit(tx) => {
                for i in tx {
                    c.failure(i, Retry::Short, || true);
                }
                t += tc;
            }
        }
    }
    delivered as f64 * 8.0 / t.as_secs_f64()
}

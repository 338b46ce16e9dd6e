//! BBR's fixed-point units and the conversions v1 (`bbr.rs`) and v3 (`bbr3/`) share,
//! as Linux's `tcp_bbr.c` has them in both versions.
//!
//! Gains are in 1/256 (`BBR_SCALE` 8); bandwidth in segments per µs × 2^24
//! (`BW_SCALE` 24), computed here from nanosecond intervals.

use crate::transport::tcp::tcb::Tcb;

/// Fixed point of gains: 1.0 = 256 (Linux `BBR_SCALE` 8).
pub(super) const BBR_UNIT: u32 = 256;
/// Fixed point of bandwidth: segments per µs × 2^24 (Linux `BW_SCALE` 24).
pub(super) const BW_UNIT: u128 = 1 << 24;

/// `bw` (BW_UNIT) × `gain` (BBR_UNIT) × (100 − `margin_percent`) % in bytes per
/// second of IP packets (MSS + headers, Linux `tcp_mss_to_mtu`: what the pacer
/// counts), with Linux's order of truncations (`bbr_rate_bytes_per_sec`; v1 has no
/// margin, v3 paces 1 % below).
pub(super) fn rate_bytes_per_sec(tcb: &Tcb, bw: u64, gain: u32, margin_percent: u64) -> u64 {
    let mtu = u128::from(tcb.mss + tcb.header);
    let rate = (u128::from(bw) * mtu * u128::from(gain)) >> 8;
    ((rate * u128::from(1_000_000 / 100 * (100 - margin_percent))) / BW_UNIT) as u64
}

/// cwnd / SRTT in `BW_UNIT` (1 ms before any RTT sample), for the first pacing
/// rate (Linux `bbr_init_pacing_rate_from_rtt`); and whether an RTT was known.
pub(super) fn initial_bw(tcb: &Tcb) -> (u64, bool) {
    let (rtt, seen) = match tcb.srtt {
        Some(srtt) => (srtt.as_nanos().max(1), true),
        None => (1_000_000, false),
    };
    let bw = u128::from(tcb.cwnd) * BW_UNIT * 1000 / u128::from(rtt);
    (bw as u64, seen)
}

/// The draft's send quantum (§4.2.2 of draft-cardwell-iccrg-bbr-congestion-control-00,
/// kept by draft-ietf-ccwg-bbr), in segments: 1 below 1.2 Mb/s of pacing, 2 below
/// 24 Mb/s, else 1 ms of data up to 64 KB (Linux's `tso_segs_goal` without TSO).
pub(super) fn send_quantum(pacing_rate: Option<u64>, mss: u32) -> u32 {
    let rate = pacing_rate.unwrap_or(0);
    if rate < 150_000 {
        1
    } else if rate < 3_000_000 {
        2
    } else {
        ((rate / 1000).min(65_536) / u64::from(mss)).max(2) as u32
    }
}

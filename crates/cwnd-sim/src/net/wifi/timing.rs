//! IEEE 802.11b (DSSS/CCK, clause 16/17 of IEEE 802.11-2016) timing and frame sizes.
//!
//! ```text
//! slot σ = 20 µs, SIFS = 10 µs, DIFS = SIFS + 2σ = 50 µs
//! PLCP preamble + header: 192 µs (long), 96 µs (short), sent at 1 Mb/s
//! MAC data frame: 24 B header + 4 B FCS + 8 B LLC/SNAP around the IP packet
//! ACK frame: 14 B, at the basic rate; CWmin = 31, CWmax = 1023 (m = 5 doublings)
//! ```
//! A data exchange (basic access) takes
//! `T_s = PLCP + (MAC + payload)·8/rate + SIFS + δ + PLCP + ACK·8/basic + DIFS + δ`;
//! a collision `T_c = PLCP + (MAC + payload)·8/rate + DIFS + δ` (Bianchi 2000, §IV),
//! δ the propagation delay.

use crate::time::SimTime;

pub const SLOT: SimTime = SimTime::from_micros(20);
pub const SIFS: SimTime = SimTime::from_micros(10);
pub const DIFS: SimTime = SimTime::from_micros(50);
pub const CW_MIN: u32 = 31;
pub const CW_MAX: u32 = 1023;
/// MAC header (24 B) + FCS (4 B) + LLC/SNAP (8 B) added to each IP packet.
pub const MAC_OVERHEAD: u32 = 36;
pub const ACK_BYTES: u32 = 14;

/// PHY configuration of a channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phy {
    /// Data rate in bit/s (1, 2, 5.5 or 11 Mb/s).
    pub rate_bps: u64,
    /// Rate of control frames (ACK), bit/s.
    pub basic_rate_bps: u64,
    /// PLCP preamble + header duration.
    pub plcp: SimTime,
    /// Propagation delay δ.
    pub propagation: SimTime,
}

impl Phy {
    /// 802.11b with the long preamble, ACKs at `basic` rate.
    pub fn dsss(rate_bps: u64, basic_rate_bps: u64) -> Phy {
        Phy {
            rate_bps,
            basic_rate_bps,
            plcp: SimTime::from_micros(192),
            propagation: SimTime::from_micros(1),
        }
    }

    /// Airtime of a data frame carrying an IP packet of `ip_bytes`.
    pub fn data_airtime(&self, ip_bytes: u32) -> SimTime {
        self.plcp + SimTime::transmission((ip_bytes + MAC_OVERHEAD) as u64, self.rate_bps)
    }

    pub fn ack_airtime(&self) -> SimTime {
        self.plcp + SimTime::transmission(ACK_BYTES as u64, self.basic_rate_bps)
    }

    /// Busy time of a successful exchange, up to the end of the following DIFS.
    pub fn success_time(&self, ip_bytes: u32) -> SimTime {
        self.data_airtime(ip_bytes)
            + SIFS
            + self.propagation
            + self.ack_airtime()
            + DIFS
            + self.propagation
    }

    /// Busy time of a collision, up to the end of the following DIFS.
    pub fn collision_time(&self, ip_bytes: u32) -> SimTime {
        self.data_airtime(ip_bytes) + DIFS + self.propagation
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1500_byte_exchange_at_11_mbps_by_hand() {
        // Data: 192 µs + (1536 B · 8)/11 Mb/s = 192 + 1117.09 = 1309.09 µs (rounded up
        // to the ns: 1117091 ns). ACK at 1 Mb/s: 192 + 112 = 304 µs.
        // T_s = 1309.091 + 10 + 1 + 304 + 50 + 1 = 1675.091 µs.
        let phy = Phy::dsss(11_000_000, 1_000_000);
        assert_eq!(phy.data_airtime(1500), SimTime(1_309_091));
        assert_eq!(phy.ack_airtime(), SimTime::from_micros(304));
        assert_eq!(phy.success_time(1500), SimTime(1_675_091));
        assert_eq!(phy.collision_time(1500), SimTime(1_360_091));
    }
}

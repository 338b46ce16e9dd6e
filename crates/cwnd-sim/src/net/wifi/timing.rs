//! 802.11 timing and frame sizes, for the two PHYs the channel models:
//!
//! ```text
//!                     802.11b (DSSS/CCK, clauses 15–16)   802.11a/g (OFDM, clause 17)
//! slot σ              20 µs                                9 µs
//! SIFS                10 µs                                16 µs
//! DIFS = SIFS + 2σ    50 µs                                34 µs
//! CWmin, CWmax        31, 1023                             15, 1023
//! PLCP                192 µs (long), 96 µs (short),         20 µs preamble + SIGNAL,
//!                     then the frame at its rate           then 4 µs symbols (ofdm.rs)
//! ```
//! (IEEE 802.11-2016 Tables 15-5, 16-4 and 17-21.) MAC data frame: 24 B header + 4 B
//! FCS + 8 B LLC/SNAP around the IP packet; ACK 14 B, RTS 20 B, CTS 14 B, sent at the
//! basic rate. The 802.11b short preamble (72 µs of preamble at 1 Mb/s and the header
//! at 2 Mb/s) is not allowed with 1 Mb/s frames.
//!
//! A data exchange with basic access takes `T_s = DATA + SIFS + δ + ACK + DIFS + δ`,
//! a collision `T_c = DATA + DIFS + δ`; with RTS/CTS the exchange is preceded by
//! `RTS + SIFS + δ + CTS + SIFS + δ` and a collision is `T_c = RTS + DIFS + δ`
//! (Bianchi 2000, §IV), δ the propagation delay, each frame counted with its PLCP
//! preamble and header. A frame that is sent but not acknowledged (corrupted) costs
//! what a collision of it costs, after the RTS/CTS handshake when there is one (the
//! ACK timeout is taken as DIFS, as for collisions).

use super::frame_errors::DsssRate;
use super::ofdm::OfdmRate;
use crate::time::SimTime;

/// CWmax of both PHYs.
pub const CW_MAX: u32 = 1023;
/// MAC header (24 B) + FCS (4 B) + LLC/SNAP (8 B) added to each IP packet.
pub const MAC_OVERHEAD: u32 = 36;
pub const ACK_BYTES: u32 = 14;
pub const RTS_BYTES: u32 = 20;
pub const CTS_BYTES: u32 = 14;

/// Whether a frame is preceded by an RTS/CTS handshake.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Basic,
    RtsCts,
}

/// How frames are put on the air: the PHY and its rates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Modulation {
    /// 802.11b.
    Dsss {
        /// Data rate.
        rate: DsssRate,
        /// Rate of control frames (ACK, RTS, CTS).
        basic_rate: DsssRate,
        /// PLCP preamble + header duration.
        plcp: SimTime,
        /// Rate of the PLCP header (1 Mb/s long preamble, 2 Mb/s short).
        header_rate: DsssRate,
    },
    /// 802.11a, or 802.11g's ERP-OFDM with the short slot.
    Ofdm {
        rate: OfdmRate,
        basic_rate: OfdmRate,
    },
}

/// PHY configuration of a channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phy {
    pub modulation: Modulation,
    pub slot: SimTime,
    pub sifs: SimTime,
    /// CWmin: the first backoff is drawn in [0, CWmin].
    pub cw_min: u32,
    /// Propagation delay δ.
    pub propagation: SimTime,
}

impl Phy {
    /// 802.11b with the long preamble, control frames at `basic` rate.
    pub fn dsss(rate: DsssRate, basic_rate: DsssRate) -> Phy {
        Phy {
            modulation: Modulation::Dsss {
                rate,
                basic_rate,
                plcp: SimTime::from_micros(192),
                header_rate: DsssRate::Mbps1,
            },
            slot: SimTime::from_micros(20),
            sifs: SimTime::from_micros(10),
            cw_min: 31,
            propagation: SimTime::from_micros(1),
        }
    }

    /// 802.11a/g OFDM, control frames at `basic` rate.
    pub fn ofdm(rate: OfdmRate, basic_rate: OfdmRate) -> Phy {
        Phy {
            modulation: Modulation::Ofdm { rate, basic_rate },
            slot: SimTime::from_micros(9),
            sifs: SimTime::from_micros(16),
            cw_min: 15,
            propagation: SimTime::from_micros(1),
        }
    }

    /// The same with the 802.11b short preamble (96 µs, header at 2 Mb/s); an OFDM
    /// PHY has one preamble and is returned unchanged.
    pub fn with_short_preamble(self) -> Phy {
        match self.modulation {
            Modulation::Dsss {
                rate, basic_rate, ..
            } => Phy {
                modulation: Modulation::Dsss {
                    rate,
                    basic_rate,
                    plcp: SimTime::from_micros(96),
                    header_rate: DsssRate::Mbps2,
                },
                ..self
            },
            Modulation::Ofdm { .. } => self,
        }
    }

    /// The standard's name for the PHY, for results.
    pub fn standard(&self) -> &'static str {
        match self.modulation {
            Modulation::Dsss { .. } => "802.11b",
            Modulation::Ofdm { .. } => "802.11a/g",
        }
    }

    /// DIFS = SIFS + 2 slots.
    pub fn difs(&self) -> SimTime {
        self.sifs + self.slot.saturating_mul(2)
    }

    /// Airtime of a frame of `bytes` (MAC frame) at the data rate, or at the basic
    /// rate for `control` frames.
    fn airtime(&self, bytes: u32, control: bool) -> SimTime {
        match self.modulation {
            Modulation::Dsss {
                rate,
                basic_rate,
                plcp,
                ..
            } => {
                let r = if control { basic_rate } else { rate };
                plcp + SimTime::transmission(bytes as u64, r.bps())
            }
            Modulation::Ofdm { rate, basic_rate } => {
                if control { basic_rate } else { rate }.txtime(bytes)
            }
        }
    }

    /// Airtime of a data frame carrying an IP packet of `ip_bytes`.
    pub fn data_airtime(&self, ip_bytes: u32) -> SimTime {
        self.airtime(ip_bytes + MAC_OVERHEAD, false)
    }

    fn control_airtime(&self, bytes: u32) -> SimTime {
        self.airtime(bytes, true)
    }

    pub fn ack_airtime(&self) -> SimTime {
        self.control_airtime(ACK_BYTES)
    }

    /// RTS, SIFS, CTS, SIFS before the data frame (zero with basic access).
    fn handshake(&self, access: Access) -> SimTime {
        match access {
            Access::Basic => SimTime::ZERO,
            Access::RtsCts => {
                self.control_airtime(RTS_BYTES)
                    + self.sifs
                    + self.propagation
                    + self.control_airtime(CTS_BYTES)
                    + self.sifs
                    + self.propagation
            }
        }
    }

    /// From the start of an RTS/CTS exchange to the RTS frame's arrival.
    pub fn rts_arrival(&self) -> SimTime {
        self.control_airtime(RTS_BYTES) + self.propagation
    }

    /// From the start of the exchange to the data frame's arrival.
    pub fn data_arrival(&self, ip_bytes: u32, access: Access) -> SimTime {
        self.handshake(access) + self.data_airtime(ip_bytes) + self.propagation
    }

    /// Busy time of a successful exchange, up to the end of the following DIFS.
    pub fn success_time(&self, ip_bytes: u32, access: Access) -> SimTime {
        self.handshake(access)
            + self.data_airtime(ip_bytes)
            + self.sifs
            + self.propagation
            + self.ack_airtime()
            + self.difs()
            + self.propagation
    }

    /// Busy time of a collision, up to the end of the following DIFS (with RTS/CTS
    /// only the RTS frames collide).
    pub fn collision_time(&self, ip_bytes: u32, access: Access) -> SimTime {
        let first = match access {
            Access::Basic => self.data_airtime(ip_bytes),
            Access::RtsCts => self.control_airtime(RTS_BYTES),
        };
        first + self.difs() + self.propagation
    }

    /// Busy time of a data frame sent but not acknowledged (corrupted).
    pub fn failure_time(&self, ip_bytes: u32, access: Access) -> SimTime {
        self.handshake(access) + self.data_airtime(ip_bytes) + self.difs() + self.propagation
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
        let phy = Phy::dsss(DsssRate::Mbps11, DsssRate::Mbps1);
        assert_eq!(phy.data_airtime(1500), SimTime(1_309_091));
        assert_eq!(phy.ack_airtime(), SimTime::from_micros(304));
        assert_eq!(phy.success_time(1500, Access::Basic), SimTime(1_675_091));
        assert_eq!(phy.collision_time(1500, Access::Basic), SimTime(1_360_091));
    }

    #[test]
    fn rts_cts_and_short_preamble_by_hand() {
        // RTS 20 B at 1 Mb/s: 192 + 160 = 352 µs; CTS: 192 + 112 = 304 µs.
        // Handshake: 352 + 10 + 1 + 304 + 10 + 1 = 678 µs, so T_s = 678 + 1675.091;
        // T_c = 352 + 50 + 1 = 403 µs.
        let phy = Phy::dsss(DsssRate::Mbps11, DsssRate::Mbps1);
        assert_eq!(phy.success_time(1500, Access::RtsCts), SimTime(2_353_091));
        assert_eq!(phy.collision_time(1500, Access::RtsCts), SimTime(403_000));
        assert_eq!(phy.failure_time(1500, Access::RtsCts), SimTime(2_038_091));
        assert_eq!(phy.data_arrival(1500, Access::RtsCts), SimTime(1_988_091));
        // Short preamble at 2 Mb/s with 2 Mb/s ACKs: data 96 + 1536·8/2 = 6240 µs,
        // ACK 96 + 56 = 152 µs: T_s = 6240 + 10 + 1 + 152 + 50 + 1 = 6454 µs.
        let short = Phy::dsss(DsssRate::Mbps2, DsssRate::Mbps2).with_short_preamble();
        assert_eq!(
            short.success_time(1500, Access::Basic),
            SimTime::from_micros(6_454)
        );
    }

    #[test]
    fn an_802_11a_exchange_at_54_mbps_by_hand() {
        // Data (1536-byte MPDU) 248 µs, ACK at 6 Mb/s 44 µs (ofdm.rs); SIFS 16 µs,
        // DIFS 16 + 2·9 = 34 µs: T_s = 248 + 16 + 1 + 44 + 34 + 1 = 344 µs,
        // T_c = 248 + 34 + 1 = 283 µs.
        let phy = Phy::ofdm(OfdmRate::Mbps54, OfdmRate::Mbps6);
        assert_eq!(phy.difs(), SimTime::from_micros(34));
        assert_eq!(
            phy.success_time(1500, Access::Basic),
            SimTime::from_micros(344)
        );
        assert_eq!(
            phy.collision_time(1500, Access::Basic),
            SimTime::from_micros(283)
        );
        // RTS (20 B: 182 bits, ⌈7.58⌉ = 8 symbols) 52 µs, CTS (134 bits) 44 µs:
        // handshake 52 + 16 + 1 + 44 + 16 + 1 = 130 µs; RTS collision 52 + 35 = 87 µs.
        assert_eq!(
            phy.success_time(1500, Access::RtsCts),
            SimTime::from_micros(474)
        );
        assert_eq!(
            phy.collision_time(1500, Access::RtsCts),
            SimTime::from_micros(87)
        );
        assert_eq!(phy.with_short_preamble(), phy);
    }
}

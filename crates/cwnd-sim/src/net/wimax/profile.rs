//! Named link profiles of the `wimax` study (a pre-WiMAX OFDM radio link at
//! 5.8 GHz over 2.5 km, capped at 30 Mb/s down and 26.4 Mb/s up; four profiles,
//! line of sight or not × SNR 30 or 10 dB; at SNR 10 without line of sight more
//! than 10 % of the packets were lost, at SNR 30 none).
//!
//! The radio settings every profile shares: a 20 MHz channel (the 5.8 GHz
//! license-exempt band's channel width), cyclic prefix 1/4, 5 ms frames split
//! evenly, AMC with a 2 dB margin, 8.3 µs propagation (2.5 km), the two caps.
//!
//! The fading: line of sight is Rician with K = 10 (10 dB, a strong direct path);
//! no line of sight is Rayleigh (K = 0). Both with two diversity branches, without
//! which Rayleigh fading at SNR 30 would lose about 0.3 % of the packets in deep
//! fades (below the most robust scheme's reach), contrary to the study's
//! observation; two branches make such fades about 200 times rarer. This choice is
//! a calibration against that observation, not a measured property of the radio.
//!
//! Loss of 1500-byte packets each profile gives (docs/links.md has the numbers and
//! how they were computed independently): under 10⁻⁶ for `los_snr30`, about 0.2 %
//! for `los_snr10`, about 10⁻⁵ for `nlos_snr30` and about 12 % for `nlos_snr10`.

use super::fading::Fading;
use crate::time::SimTime;

/// A profile: the mean SNR and the fading; the rest is `RADIO`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    pub snr_db: f64,
    pub fading: Fading,
}

/// Settings every profile shares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radio {
    pub bandwidth_khz: u64,
    pub cp_divisor: u64,
    pub frame: SimTime,
    pub dl_ratio: f64,
    pub amc_margin_db: f64,
    pub downlink_cap_bps: u64,
    pub uplink_cap_bps: u64,
    pub propagation: SimTime,
}

pub const RADIO: Radio = Radio {
    bandwidth_khz: 20_000,
    cp_divisor: 4,
    frame: SimTime::from_millis(5),
    dl_ratio: 0.5,
    amc_margin_db: 2.0,
    downlink_cap_bps: 30_000_000,
    uplink_cap_bps: 26_400_000,
    propagation: SimTime::from_nanos(8_340),
};

const LOS: Fading = Fading {
    k_factor: 10.0,
    branches: 2,
};
const NLOS: Fading = Fading {
    k_factor: 0.0,
    branches: 2,
};

pub const PROFILES: [Profile; 4] = [
    Profile {
        name: "los_snr30",
        snr_db: 30.0,
        fading: LOS,
    },
    Profile {
        name: "los_snr10",
        snr_db: 10.0,
        fading: LOS,
    },
    Profile {
        name: "nlos_snr30",
        snr_db: 30.0,
        fading: NLOS,
    },
    Profile {
        name: "nlos_snr10",
        snr_db: 10.0,
        fading: NLOS,
    },
];

pub fn profile(name: &str) -> Option<Profile> {
    PROFILES.iter().find(|p| p.name == name).copied()
}

/// The names, for error messages.
pub fn names() -> String {
    PROFILES.map(|p| p.name).join(", ")
}

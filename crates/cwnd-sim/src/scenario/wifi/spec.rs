//! The `[[wireless]]` entries as a scenario writes them: an 802.11 channel's
//! stations, rates, queue, frame errors (`per`, or `radio`: from the SNR), preamble,
//! RTS threshold, MSDU lifetime and stages. Defaults are ns-2's.

use serde::{Deserialize, Serialize};

use crate::net::wifi::channel::DEFAULT_MSDU_LIFETIME;
use crate::scenario::impairment::ImpairmentSpec;
use crate::units::{DurationOrOff, Rate, Size};

/// One 802.11 collision domain (DCF): 802.11b or 802.11a/g, by its rate.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WirelessSpec {
    #[serde(default)]
    pub name: Option<String>,
    /// The nodes that share the channel (at least two).
    pub stations: Vec<String>,
    /// Data rate: 1, 2, 5.5 or 11 Mb/s (802.11b) or 6, 9, 12, 18, 24, 36, 48 or
    /// 54 Mb/s (802.11a/g).
    pub rate: Rate,
    /// Rate of MAC ACKs, RTS and CTS, of the same PHY (default 1 Mb/s for 802.11b,
    /// 6 Mb/s for 802.11a/g).
    #[serde(default)]
    pub basic_rate: Option<Rate>,
    /// Interface queue of each station, in packets (default 50, as ns-2's IFQ).
    #[serde(default = "ifq_packets")]
    pub queue_packets: u32,
    /// Probability that a data frame is corrupted (each try).
    #[serde(default)]
    pub per: f64,
    /// Frame errors from the SNR between the stations instead of `per`.
    #[serde(default)]
    pub radio: Option<RadioSpec>,
    /// PLCP preamble: "long" (192 µs, default) or "short" (96 µs; not with 1 Mb/s).
    #[serde(default)]
    pub preamble: PreambleSpec,
    /// Frames whose MPDU (IP packet + 36 B) is longer use RTS/CTS; off by default.
    #[serde(default)]
    pub rts_threshold: Option<Size>,
    /// A frame still queued this long after it reached the MAC is discarded
    /// (dot11MaxTransmitMSDULifetime, default 512 TU = 524.288 ms); "off" for never.
    #[serde(default = "msdu_lifetime")]
    pub msdu_lifetime: DurationOrOff,
    /// Stages applied to the frames sent over the air (`bernoulli`,
    /// `gilbert_elliott`, `drop_list`, `outage`; a dropped frame is retried by the MAC).
    #[serde(default)]
    pub impairments: Vec<ImpairmentSpec>,
}

/// The 802.11b PLCP preamble.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PreambleSpec {
    #[default]
    Long,
    Short,
}

/// The propagation model of the SNR (`net::wifi::propagation`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PathLossSpec {
    FreeSpace,
    #[default]
    TwoRayGround,
}

/// The radio between the stations of a channel (defaults: ns-2's WirelessPhy).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RadioSpec {
    /// Distance between any two stations, metres.
    pub distance_m: f64,
    #[serde(default)]
    pub path_loss: PathLossSpec,
    /// Transmit power, dBm (default 24.5, ns-2's 0.28183815 W).
    #[serde(default = "ns2_tx_power_dbm")]
    pub tx_power_dbm: f64,
    /// Carrier frequency, MHz (default 914, ns-2's).
    #[serde(default = "ns2_frequency_mhz")]
    pub frequency_mhz: f64,
    /// Antenna height of every station, metres (default 1.5).
    #[serde(default = "ns2_antenna_height_m")]
    pub antenna_height_m: f64,
    /// Receiver noise figure, dB (default 7).
    #[serde(default = "seven")]
    pub noise_figure_db: f64,
}

fn ns2_tx_power_dbm() -> f64 {
    10.0 * (0.281_838_15f64 * 1000.0).log10()
}

fn ns2_frequency_mhz() -> f64 {
    914.0
}

fn ns2_antenna_height_m() -> f64 {
    1.5
}

fn seven() -> f64 {
    7.0
}

fn ifq_packets() -> u32 {
    50
}

fn msdu_lifetime() -> DurationOrOff {
    DurationOrOff(Some(DEFAULT_MSDU_LIFETIME))
}

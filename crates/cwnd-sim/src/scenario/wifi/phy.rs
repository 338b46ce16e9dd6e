//! A channel's PHY and its frame errors from what `[[wireless]]` says: its rate picks
//! 802.11b or 802.11a/g and `basic_rate` must be a rate of the same PHY; `per`, or
//! `radio` (the SNR model, 802.11b only: `PhyErrors`), gives the data frames' errors.

use super::spec::{PathLossSpec, PreambleSpec, RadioSpec, WirelessSpec};
use crate::net::wifi::channel::{FrameErrors, PhyErrors};
use crate::net::wifi::frame_errors::DsssRate;
use crate::net::wifi::ofdm::OfdmRate;
use crate::net::wifi::propagation::{PathLoss, RadioLink};
use crate::net::wifi::timing::Phy;
use crate::scenario::checks::probability;
use crate::scenario::error::ScenarioError;

/// The PHY of a `[[wireless]]` entry: 802.11b if `rate` is one of its rates,
/// 802.11a/g if it is an OFDM rate; `basic_rate` (default 1 or 6 Mb/s, the lowest
/// rate of each) must be a rate of the same PHY. Errors: (field, message).
pub fn phy(w: &WirelessSpec) -> Result<Phy, (&'static str, String)> {
    const DSSS: &str = "1, 2, 5.5 or 11 Mbps";
    const OFDM: &str = "6, 9, 12, 18, 24, 36, 48 or 54 Mbps";
    let rate = w.rate.0;
    let basic = |default: u64| w.basic_rate.map_or(default, |r| r.0);
    if let Some(data) = DsssRate::from_bps(rate) {
        let basic_bps = basic(1_000_000);
        let control = DsssRate::from_bps(basic_bps).ok_or_else(|| {
            let msg = format!("{basic_bps} bit/s is not an 802.11b rate, as `rate` is; use {DSSS}");
            ("basic_rate", msg)
        })?;
        let phy = Phy::dsss(data, control);
        if w.preamble == PreambleSpec::Long {
            return Ok(phy);
        }
        for (field, bps) in [("rate", rate), ("basic_rate", basic_bps)] {
            if bps == 1_000_000 {
                let msg = "1 Mb/s frames need the long preamble; use 2, 5.5 or 11 Mbps with preamble = \"short\"";
                return Err((field, msg.into()));
            }
        }
        return Ok(phy.with_short_preamble());
    }
    if let Some(data) = OfdmRate::from_bps(rate) {
        let basic_bps = basic(6_000_000);
        let control = OfdmRate::from_bps(basic_bps).ok_or_else(|| {
            let msg =
                format!("{basic_bps} bit/s is not an 802.11a/g rate, as `rate` is; use {OFDM}");
            ("basic_rate", msg)
        })?;
        if w.preamble == PreambleSpec::Short {
            let msg = "802.11a/g has one preamble (20 µs); \"short\" is 802.11b's (use an 802.11b rate or leave `preamble` out)";
            return Err(("preamble", msg.into()));
        }
        return Ok(Phy::ofdm(data, control));
    }
    Err((
        "rate",
        format!("{rate} bit/s is not an 802.11 rate; use {DSSS} (802.11b) or {OFDM} (802.11a/g)"),
    ))
}

/// The data frames' errors of channel `w` (at `path`, `wireless[0]`) on `phy`: `per`,
/// or from the SNR of its `radio` (802.11b only, not with `per`, its fields in range).
pub fn errors(path: &str, w: &WirelessSpec, phy: Phy) -> Result<PhyErrors, ScenarioError> {
    let at = |f: &str| format!("{path}.{f}");
    probability(&at("per"), w.per)?;
    let errors = match &w.radio {
        None => FrameErrors::Fixed(w.per),
        Some(r) => FrameErrors::Snr(radio_link(r)),
    };
    let phy = PhyErrors::new(phy, errors).ok_or_else(|| {
        ScenarioError::new(
            at("radio"),
            "frame errors from the SNR are modelled for 802.11b rates only; use `per` with an 802.11a/g rate",
        )
    })?;
    let Some(r) = &w.radio else {
        return Ok(phy);
    };
    if w.per != 0.0 {
        return Err(ScenarioError::new(
            at("per"),
            "give either `per` or `radio` (frame errors from the SNR), not both",
        ));
    }
    for (field, value, lo, hi) in [
        ("distance_m", r.distance_m, 0.1, 100_000.0),
        ("tx_power_dbm", r.tx_power_dbm, -30.0, 40.0),
        ("frequency_mhz", r.frequency_mhz, 100.0, 10_000.0),
        ("antenna_height_m", r.antenna_height_m, 0.01, 1000.0),
        ("noise_figure_db", r.noise_figure_db, 0.0, 30.0),
    ] {
        if !(lo..=hi).contains(&value) {
            return Err(ScenarioError::new(
                at(&format!("radio.{field}")),
                format!("{value} is outside the allowed range [{lo}, {hi}]"),
            ));
        }
    }
    Ok(phy)
}

/// The radio link between the stations of a channel, as `radio` gives it.
fn radio_link(r: &RadioSpec) -> RadioLink {
    RadioLink {
        path_loss: match r.path_loss {
            PathLossSpec::FreeSpace => PathLoss::FreeSpace,
            PathLossSpec::TwoRayGround => PathLoss::TwoRayGround,
        },
        distance_m: r.distance_m,
        tx_power_w: 10f64.powf(r.tx_power_dbm / 10.0) / 1000.0,
        frequency_hz: r.frequency_mhz * 1e6,
        antenna_height_m: r.antenna_height_m,
        system_loss: 1.0,
        noise_figure_db: r.noise_figure_db,
    }
}

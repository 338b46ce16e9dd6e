//! The wimax topic: `[[wimax]]` entries, 802.16 cells (a base station and its
//! subscribers, `net::wimax`), either from a named profile of the `wimax` study
//! (`preset`) with optional overrides, or described field by field. `resolve` checks
//! the entry's parameters into the cell's; `check` makes the cell's plan (nodes by
//! id) and `build` the world's cell. Every error names the field.

use serde::{Deserialize, Serialize};

use super::checks::{listed_once, NodeIds};
use super::error::ScenarioError;
use super::shown::quoted;
use crate::net::wimax::cell::{Arq, CellParams, WimaxCell};
use crate::net::wimax::fading::Fading;
use crate::net::wimax::frame::{FrameLayout, FRAME_DURATIONS_US};
use crate::net::wimax::mcs::Mcs;
use crate::net::wimax::ofdm::OfdmPhy;
use crate::net::wimax::profile::{self, Profile, RADIO};
use crate::packet::NodeId;
use crate::rng;
use crate::time::SimTime;
use crate::units::{Duration, Rate};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WimaxSpec {
    #[serde(default)]
    pub name: Option<String>,
    pub base_station: String,
    pub subscribers: Vec<String>,
    /// One of the `wimax` study's profiles (`los_snr30`, `los_snr10`, `nlos_snr30`,
    /// `nlos_snr10`); the fields below override it.
    #[serde(default)]
    pub preset: Option<String>,
    /// Mean SNR of each subscriber's channel, dB (required without a preset).
    #[serde(default)]
    pub snr_db: Option<f64>,
    /// Per-frame fading; none (a constant SNR) unless a preset or this sets it.
    #[serde(default)]
    pub fading: Option<FadingSpec>,
    /// Channel bandwidth in MHz (default 20).
    #[serde(default)]
    pub bandwidth_mhz: Option<f64>,
    /// Cyclic prefix as a fraction of the useful symbol: "1/4" (default), "1/8",
    /// "1/16", "1/32".
    #[serde(default)]
    pub cyclic_prefix: Option<String>,
    /// Frame duration (default 5 ms).
    #[serde(default)]
    pub frame: Option<Duration>,
    /// Share of the frame's symbols given to the downlink (default 0.5).
    #[serde(default)]
    pub dl_ratio: Option<f64>,
    /// AMC margin above the standard's receiver SNR, dB (default 2).
    #[serde(default)]
    pub amc_margin_db: Option<f64>,
    /// A fixed scheme instead of AMC ("bpsk_1_2" … "64qam_3_4").
    #[serde(default)]
    pub mcs: Option<String>,
    #[serde(default)]
    pub downlink_cap: Option<Rate>,
    #[serde(default)]
    pub uplink_cap: Option<Rate>,
    /// Queue per subscriber and direction, packets (default 100).
    #[serde(default)]
    pub queue_packets: Option<u32>,
    /// Link-layer retransmissions; off unless given.
    #[serde(default)]
    pub arq: Option<ArqSpec>,
    /// Propagation delay (default 0; the presets use 8.34 µs, 2.5 km).
    #[serde(default)]
    pub delay: Option<Duration>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FadingSpec {
    /// Rician K factor, linear (0 = Rayleigh).
    pub k_factor: f64,
    /// Diversity branches (default 1).
    #[serde(default = "one_branch")]
    pub branches: u32,
}

fn one_branch() -> u32 {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArqSpec {
    /// Retransmissions before a PDU is dropped.
    pub retries: u32,
    /// From a failed attempt to its retransmission (default one frame).
    #[serde(default)]
    pub delay: Option<Duration>,
}

pub const DEFAULT_QUEUE_PACKETS: u32 = 100;
const CYCLIC_PREFIXES: [(&str, u64); 4] = [("1/4", 4), ("1/8", 8), ("1/16", 16), ("1/32", 32)];

fn range_error(path: String, value: f64, unit: &str, lo: f64, hi: f64) -> ScenarioError {
    ScenarioError::new(
        path,
        format!("{value}{unit} is outside the allowed range [{lo}, {hi}]"),
    )
}

impl WimaxSpec {
    /// Checks the entry (at `path`, e.g. `wimax[0]`) and gives the cell's parameters.
    pub fn resolve(&self, path: &str) -> Result<CellParams, ScenarioError> {
        let at = |field: &str| format!("{path}.{field}");
        let preset = self.preset(&at)?;
        let snr_db = match (self.snr_db, preset) {
            (Some(s), _) => s,
            (None, Some(p)) => p.snr_db,
            (None, None) => {
                return Err(ScenarioError::new(
                    at("snr_db"),
                    "is required without a preset, e.g. snr_db = 25",
                ))
            }
        };
        if !(-20.0..=60.0).contains(&snr_db) {
            return Err(range_error(at("snr_db"), snr_db, " dB", -20.0, 60.0));
        }
        let fading = match &self.fading {
            Some(f) => Some(f.check(&at)?),
            None => preset.map(|p| p.fading),
        };
        let (layout, frame) = self.layout(&at)?;
        let amc_margin_db = self.amc_margin_db.unwrap_or(RADIO.amc_margin_db);
        if !(0.0..=20.0).contains(&amc_margin_db) {
            return Err(range_error(
                at("amc_margin_db"),
                amc_margin_db,
                " dB",
                0.0,
                20.0,
            ));
        }
        let fixed_mcs = match &self.mcs {
            None => None,
            Some(name) => Some(Mcs::from_name(name).ok_or_else(|| {
                ScenarioError::new(
                    at("mcs"),
                    format!(
                        "\"{name}\" is not a scheme; use one of {}",
                        Mcs::NAMES.join(", ")
                    ),
                )
            })?),
        };
        let cap = |field: &str, given: Option<Rate>, preset_cap: u64| match given {
            Some(Rate(0)) => Err(ScenarioError::new(
                at(field),
                "must be positive, e.g. \"30Mbps\"",
            )),
            Some(r) => Ok(Some(r.0)),
            None => Ok(preset.map(|_| preset_cap)),
        };
        let downlink_cap_bps = cap("downlink_cap", self.downlink_cap, RADIO.downlink_cap_bps)?;
        let uplink_cap_bps = cap("uplink_cap", self.uplink_cap, RADIO.uplink_cap_bps)?;
        let (queue_packets, arq) = self.link_layer(&at, frame)?;
        let propagation = match (self.delay, preset) {
            (Some(d), _) => d.0,
            (None, Some(_)) => RADIO.propagation,
            (None, None) => SimTime::ZERO,
        };
        Ok(CellParams {
            layout,
            snr_db,
            fading,
            amc_margin_db,
            fixed_mcs,
            downlink_cap_bps,
            uplink_cap_bps,
            queue_packets,
            arq,
            propagation,
        })
    }

    /// The study's profile the entry names, if any.
    fn preset(&self, at: &dyn Fn(&str) -> String) -> Result<Option<Profile>, ScenarioError> {
        let Some(name) = &self.preset else {
            return Ok(None);
        };
        let preset = profile::profile(name).ok_or_else(|| {
            ScenarioError::new(
                at("preset"),
                format!(
                    "\"{name}\" is not a preset; use one of {}",
                    profile::names()
                ),
            )
        })?;
        Ok(Some(preset))
    }

    /// The frame: its OFDM PHY (bandwidth, cyclic prefix), duration and split between
    /// downlink and uplink, which must leave room for data in both; and its duration.
    fn layout(&self, at: &dyn Fn(&str) -> String) -> Result<(FrameLayout, SimTime), ScenarioError> {
        let bandwidth_mhz = self
            .bandwidth_mhz
            .unwrap_or(RADIO.bandwidth_khz as f64 / 1e3);
        if !(1.25..=28.0).contains(&bandwidth_mhz) {
            return Err(range_error(
                at("bandwidth_mhz"),
                bandwidth_mhz,
                " MHz",
                1.25,
                28.0,
            ));
        }
        let cp_divisor = match &self.cyclic_prefix {
            None => RADIO.cp_divisor,
            Some(g) => CYCLIC_PREFIXES
                .iter()
                .find(|(name, _)| name == g)
                .map(|&(_, d)| d)
                .ok_or_else(|| {
                    ScenarioError::new(
                        at("cyclic_prefix"),
                        format!("\"{g}\" is not a cyclic prefix; use \"1/4\", \"1/8\", \"1/16\" or \"1/32\""),
                    )
                })?,
        };
        let frame = self.frame.map_or(RADIO.frame, |f| f.0);
        if !FRAME_DURATIONS_US.contains(&(frame.as_nanos() / 1000)) || frame.as_nanos() % 1000 != 0
        {
            return Err(ScenarioError::new(
                at("frame"),
                format!(
                    "{frame} is not an 802.16 OFDM frame duration; use 2.5, 4, 5, 8, 10, 12.5 or 20 ms"
                ),
            ));
        }
        let dl_ratio = self.dl_ratio.unwrap_or(RADIO.dl_ratio);
        if !(dl_ratio > 0.0 && dl_ratio < 1.0) {
            return Err(ScenarioError::new(
                at("dl_ratio"),
                format!("{dl_ratio} is outside (0, 1)"),
            ));
        }
        let phy = OfdmPhy {
            bandwidth_khz: (bandwidth_mhz * 1000.0).round() as u64,
            cp_divisor,
        };
        let subscribers = self.subscribers.len() as u64;
        let layout = FrameLayout::new(phy, frame, dl_ratio, subscribers).ok_or_else(|| {
            ScenarioError::new(
                at("dl_ratio"),
                format!(
                    "{dl_ratio} leaves no room for data in one of the subframes of a {frame} frame with {subscribers} subscriber(s)"
                ),
            )
        })?;
        Ok((layout, frame))
    }

    /// The queue of each subscriber and direction, and ARQ (a retransmission one
    /// frame after a failure unless `arq.delay` says otherwise).
    fn link_layer(
        &self,
        at: &dyn Fn(&str) -> String,
        frame: SimTime,
    ) -> Result<(usize, Option<Arq>), ScenarioError> {
        let queue_packets = self.queue_packets.unwrap_or(DEFAULT_QUEUE_PACKETS);
        if queue_packets == 0 {
            return Err(ScenarioError::new(
                at("queue_packets"),
                "must be at least 1",
            ));
        }
        let arq = match &self.arq {
            None => None,
            Some(a) if a.retries == 0 => {
                return Err(ScenarioError::new(
                    at("arq.retries"),
                    "must be at least 1 (leave `arq` out for no retransmissions)",
                ))
            }
            Some(a) => Some(Arq {
                retries: a.retries,
                delay: a.delay.map_or(frame, |d| d.0),
            }),
        };
        Ok((queue_packets as usize, arq))
    }
}

impl FadingSpec {
    /// The fading at `fading` under the entry (`at`): K ≥ 0, 1 to 4 branches.
    fn check(&self, at: &dyn Fn(&str) -> String) -> Result<Fading, ScenarioError> {
        if !(self.k_factor.is_finite() && self.k_factor >= 0.0) {
            return Err(ScenarioError::new(
                at("fading.k_factor"),
                format!("{} is not a K factor; use a value ≥ 0", self.k_factor),
            ));
        }
        if !(1..=4).contains(&self.branches) {
            return Err(ScenarioError::new(
                at("fading.branches"),
                format!("{} is outside 1 ..= 4", self.branches),
            ));
        }
        Ok(Fading {
            k_factor: self.k_factor,
            branches: self.branches,
        })
    }
}

/// An 802.16 cell: its name, base station, subscriber stations and parameters
/// (`WimaxSpec::resolve`).
#[derive(Clone, Debug)]
pub struct CellPlan {
    pub name: String,
    pub base_station: NodeId,
    pub subscribers: Vec<NodeId>,
    pub params: CellParams,
}

/// Checks every `[[wimax]]` entry into its cell's plan; node ids from `nodes`.
pub fn check(cells: &[WimaxSpec], nodes: &NodeIds) -> Result<Vec<CellPlan>, ScenarioError> {
    let mut plans = Vec::with_capacity(cells.len());
    for (i, w) in cells.iter().enumerate() {
        let at = |f: &str| format!("wimax[{i}].{f}");
        if w.subscribers.is_empty() {
            return Err(ScenarioError::new(
                at("subscribers"),
                "a cell needs at least one subscriber station",
            ));
        }
        for (k, s) in w.subscribers.iter().enumerate() {
            if *s == w.base_station {
                return Err(ScenarioError::new(
                    at(&format!("subscribers[{k}]")),
                    format!("{} is the base station", quoted(s)),
                ));
            }
        }
        listed_once(&at("subscribers"), &w.subscribers)?;
        plans.push(CellPlan {
            name: w.name.clone().unwrap_or_else(|| format!("wimax{i}")),
            base_station: nodes[&w.base_station] as NodeId,
            subscribers: w.subscribers.iter().map(|s| nodes[s] as NodeId).collect(),
            params: w.resolve(&format!("wimax[{i}]"))?,
        });
    }
    Ok(plans)
}

/// Cell `c` from its plan: each subscriber reaches the base station and back in one
/// hop. Streams: `wimax[c].fading`, `.errors`.
pub fn build(seed: u64, c: usize, cell: &CellPlan) -> WimaxCell {
    WimaxCell::new(
        cell.name.clone(),
        cell.base_station,
        cell.subscribers.clone(),
        cell.params,
        rng::stream(seed, &format!("wimax[{c}].fading")),
        rng::stream(seed, &format!("wimax[{c}].errors")),
    )
}

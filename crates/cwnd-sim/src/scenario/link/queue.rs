//! A link direction's queue as a scenario writes it (`queue = { … }`): its limit in
//! packets or bytes (DropTail), and RED in front of it. Both directions of a link
//! get the same queue. A queue discipline (`queue = { discipline = … }`) is checked
//! here into the link's plan, beside the limit it works within.

use serde::{Deserialize, Serialize};

use crate::net::queue::QueueLimit;
use crate::net::red::RedParams;
use crate::scenario::error::ScenarioError;
use crate::units::Size;

/// Output queue: its limit, `{ packets = 100 }` or `{ bytes = "64KB" }` (default 100
/// packets), and optionally RED in front of it (`red = { min_th = 5, ... }`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub packets: Option<u32>,
    #[serde(default)]
    pub bytes: Option<Size>,
    #[serde(default)]
    pub red: Option<RedSpec>,
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            packets: Some(DEFAULT_QUEUE_PACKETS),
            bytes: None,
            red: None,
        }
    }
}

impl QueueSpec {
    /// Checks the queue at `path` (`links[0].queue`): exactly one limit, and RED's
    /// parameters in range.
    pub fn check(&self, path: &str) -> Result<(), ScenarioError> {
        match (self.packets, self.bytes) {
            (Some(0), None) => {
                return Err(ScenarioError::new(
                    format!("{path}.packets"),
                    "must be at least 1",
                ))
            }
            (None, Some(b)) if b.0 == 0 => {
                return Err(ScenarioError::new(
                    format!("{path}.bytes"),
                    "must be positive",
                ))
            }
            (Some(_), None) | (None, Some(_)) => {}
            _ => {
                return Err(ScenarioError::new(
                    path,
                    "give exactly one of `packets` or `bytes`",
                ))
            }
        }
        if let Some(red) = &self.red {
            check_red(&format!("{path}.red"), red)?;
        }
        Ok(())
    }

    /// The DropTail limit: `bytes` when given, else `packets` (default
    /// `DEFAULT_QUEUE_PACKETS`); the check lets exactly one through.
    pub fn limit(&self) -> QueueLimit {
        match self.bytes {
            Some(bytes) => QueueLimit::Bytes(bytes.0),
            None => QueueLimit::Packets(self.packets.unwrap_or(DEFAULT_QUEUE_PACKETS)),
        }
    }
}

/// Random Early Detection (see `net::red` for the equations); thresholds in packets.
/// Defaults are Floyd's recommendations.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedSpec {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    /// ns-2's `wait_`: no early drop until 1/p_b packets after the last one.
    pub wait: bool,
    pub mean_packet: Size,
    /// Mark ECT packets CE instead of dropping them early (RFC 3168 §5; default
    /// false).
    pub ecn: bool,
}

impl Default for RedSpec {
    fn default() -> Self {
        let d = RedParams::default();
        RedSpec {
            min_th: d.min_th,
            max_th: d.max_th,
            max_p: d.max_p,
            w_q: d.w_q,
            gentle: d.gentle,
            wait: d.wait,
            mean_packet: Size(d.mean_packet as u64),
            ecn: d.ecn,
        }
    }
}

impl RedSpec {
    /// The parameters as `net::red` takes them.
    pub fn params(&self) -> RedParams {
        RedParams {
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            w_q: self.w_q,
            gentle: self.gentle,
            wait: self.wait,
            mean_packet: self.mean_packet.0 as u32,
            ecn: self.ecn,
        }
    }
}

/// A link direction's queue when the scenario gives none, in packets.
pub const DEFAULT_QUEUE_PACKETS: u32 = 100;

/// RED's parameters at `path` (`links[0].queue.red`) in range.
fn check_red(path: &str, red: &RedSpec) -> Result<(), ScenarioError> {
    let err =
        |field: &str, message: String| Err(ScenarioError::new(format!("{path}.{field}"), message));
    if !(red.min_th >= 0.0 && red.min_th.is_finite()) {
        return err(
            "min_th",
            format!("{} must be a number of packets ≥ 0", red.min_th),
        );
    }
    // Equal thresholds (Linux allows them) make a step: with `gentle` and max_p 1,
    // every arrival from max_th on is dropped early, or marked (DCTCP's K).
    if !(red.max_th >= red.min_th && red.max_th > 0.0 && red.max_th.is_finite()) {
        return err(
            "max_th",
            format!(
                "{} must be above 0 and at least min_th ({})",
                red.max_th, red.min_th
            ),
        );
    }
    if !(red.max_p > 0.0 && red.max_p <= 1.0) {
        return err(
            "max_p",
            format!("{} is not a probability in (0, 1]", red.max_p),
        );
    }
    if !(red.w_q > 0.0 && red.w_q <= 1.0) {
        return err(
            "w_q",
            format!("{} must be in (0, 1] (Floyd recommends 0.002)", red.w_q),
        );
    }
    if red.mean_packet.0 == 0 {
        return err("mean_packet", "must be positive, e.g. \"500B\"".to_string());
    }
    Ok(())
}

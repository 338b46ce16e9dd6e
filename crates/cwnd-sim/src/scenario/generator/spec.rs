//! A `[[generators]]` entry as written, and as checked (`GeneratorPlan`). Its
//! connections' `cc`, `recovery` and `tcp` are the flow's own spec types.
//!
//! ```toml
//! [[generators]]
//! kind = "web"            # or "ftp" (with mean_size = "500KB")
//! from = "s1"
//! to = "d1"
//! link = "r1-r2"          # the load is a fraction of this link's bandwidth
//! load = 0.3
//! cc = "reno"
//! ```

use serde::{Deserialize, Serialize};

use crate::packet::NodeId;
use crate::scenario::cc_spec::CcSpec;
use crate::scenario::spec::RecoverySpec;
use crate::scenario::tcp::{TcpPlan, TcpSpec};
use crate::time::SimTime;
use crate::traffic::sizes::HybridSizes;
use crate::traffic::WebParams;
use crate::units::{Duration, Size};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorSpec {
    #[serde(default)]
    pub name: Option<String>,
    pub kind: GeneratorKind,
    /// The node whose connections send the data, and the receiving node.
    pub from: String,
    pub to: String,
    /// The link (its name, by default "a-b") whose bandwidth `load` is a fraction of.
    pub link: String,
    /// Target offered load: payload bit rate / the link's bandwidth, in (0, 1].
    pub load: f64,
    #[serde(default)]
    pub cc: CcSpec,
    #[serde(default)]
    pub recovery: Option<RecoverySpec>,
    #[serde(default)]
    pub tcp: TcpSpec,
    /// No connection opens before `start`, nor from `stop` on.
    #[serde(default)]
    pub start: Duration,
    #[serde(default)]
    pub stop: Option<Duration>,
    /// FTP: the mean of the exponential file sizes (required for "ftp").
    #[serde(default)]
    pub mean_size: Option<Size>,
    /// Web: the model's parameters (default SURGE's; only for "web").
    #[serde(default)]
    pub web: Option<WebSpec>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum GeneratorKind {
    Ftp,
    Web,
}

/// Parameters of the Web model (`traffic/web.rs`); defaults are SURGE's
/// (Barford & Crovella 1998) but for pages per session, this model's own.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WebSpec {
    /// Mean pages of a session (geometric, at least 1).
    pub pages_per_session: f64,
    /// Shape of the Pareto (scale 1) whose floor is the objects of a page.
    pub objects_alpha: f64,
    /// Object sizes: lognormal body (μ, σ of ln bytes) up to `size_cutoff`, Pareto
    /// tail of shape `size_alpha` above it.
    pub size_mu: f64,
    pub size_sigma: f64,
    pub size_cutoff: Size,
    pub size_alpha: f64,
    /// Largest object: bounds the Pareto tail (none by default, as SURGE's).
    pub size_max: Option<Size>,
    /// Think time between the starts of two pages: Pareto of this scale and shape.
    pub think_scale: Duration,
    pub think_alpha: f64,
}

impl Default for WebSpec {
    fn default() -> Self {
        let p = WebParams::SURGE;
        let s = p.object_sizes;
        WebSpec {
            pages_per_session: p.pages_per_session,
            objects_alpha: p.objects_alpha,
            size_mu: s.mu,
            size_sigma: s.sigma,
            size_cutoff: Size(s.cutoff as u64),
            size_alpha: s.alpha,
            size_max: None,
            think_scale: Duration(SimTime::from_secs_f64(p.think_scale_s)),
            think_alpha: p.think_alpha,
        }
    }
}

impl WebSpec {
    pub fn params(&self) -> WebParams {
        WebParams {
            pages_per_session: self.pages_per_session,
            objects_alpha: self.objects_alpha,
            object_sizes: HybridSizes {
                mu: self.size_mu,
                sigma: self.size_sigma,
                cutoff: self.size_cutoff.0 as f64,
                alpha: self.size_alpha,
                max: self.size_max.map_or(f64::INFINITY, |m| m.0 as f64),
            },
            think_scale_s: self.think_scale.0.as_secs_f64(),
            think_alpha: self.think_alpha,
        }
    }
}

/// A traffic generator, checked: its name, its connections' TCP and their two
/// nodes (routes checked both ways with the topology, `plan.rs`), the link whose
/// capacity its load is a fraction of, its model, and when it opens connections.
#[derive(Clone, Debug)]
pub struct GeneratorPlan {
    pub name: String,
    pub tcp: TcpPlan,
    pub src: NodeId,
    pub dst: NodeId,
    pub link: String,
    pub capacity_bps: f64,
    pub load: f64,
    pub model: GeneratorModel,
    pub start: SimTime,
    /// No connection opens from here on (the end of the run unless `stop` is given).
    pub stop: SimTime,
}

/// What a generator's arrivals are: FTP files of a mean size, or Web sessions.
#[derive(Clone, Copy, Debug)]
pub enum GeneratorModel {
    Ftp { mean_file_bytes: f64 },
    Web(WebParams),
}

impl GeneratorModel {
    /// Mean payload bytes of one arrival unit (an FTP file; a Web session).
    pub fn mean_unit_bytes(&self) -> f64 {
        match self {
            GeneratorModel::Ftp { mean_file_bytes } => *mean_file_bytes,
            GeneratorModel::Web(web) => web.mean_session_bytes(),
        }
    }

    /// Mean payload bytes of one connection (an FTP file; a Web object).
    pub fn mean_connection_bytes(&self) -> f64 {
        match self {
            GeneratorModel::Ftp { mean_file_bytes } => *mean_file_bytes,
            GeneratorModel::Web(web) => web.object_sizes.mean(),
        }
    }
}

impl GeneratorSpec {
    /// The generator's model: its FTP mean size (0 when missing, which the checks
    /// refuse), or its Web parameters (SURGE's unless given).
    pub fn model(&self) -> GeneratorModel {
        match self.kind {
            GeneratorKind::Ftp => GeneratorModel::Ftp {
                mean_file_bytes: self.mean_size.map_or(0.0, |s| s.0 as f64),
            },
            GeneratorKind::Web => {
                GeneratorModel::Web(self.web.clone().unwrap_or_default().params())
            }
        }
    }
}

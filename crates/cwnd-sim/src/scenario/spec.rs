//! The scenario description: serde types that TOML files and the Python builder
//! both deserialize into. This is the single source of truth for what a scenario
//! can say; unknown keys are errors everywhere.
//!
//! Quantities carry units (`"10Mbps"`, `"2ms"`, `"1500B"`, see `units`).

use serde::{Deserialize, Serialize};

pub use super::cc_spec::CcSpec;
pub use super::flows::{Endpoint, TransportSpec};
pub use super::generator::{GeneratorKind, GeneratorSpec, WebSpec};
pub use super::impairment::ImpairmentSpec;
pub use super::link::{LinkSpec, QueueSpec, RedSpec, DEFAULT_QUEUE_PACKETS};
pub use super::sctp::SctpSpec;
pub use super::tcp::{RepeatedTimeoutSpec, ScenarioTcpSpec, TcpProfile, TcpRtoSpec, TcpSpec};
pub use super::topology::{NodeSpec, RouteSpec};
pub use super::trace::TraceSpec;
pub use super::udp::SourceSpec;
pub use super::wifi::WirelessSpec;
pub use super::wimax::WimaxSpec;
use crate::units::{Duration, Size};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Simulated time at which the run ends.
    pub duration: Duration,
    /// Explicit node list; nodes named by links are added in order of appearance.
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
    /// Shared 802.11 channels.
    #[serde(default)]
    pub wireless: Vec<WirelessSpec>,
    /// 802.16 point-to-multipoint cells.
    #[serde(default)]
    pub wimax: Vec<WimaxSpec>,
    #[serde(default)]
    pub routes: Vec<RouteSpec>,
    /// Flows listed one by one (may be empty when there are generators).
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Traffic generators that open connections by themselves during the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<GeneratorSpec>,
    /// The TCP profile of every flow and generator that names none
    /// (`tcp.profile`; default "linux", docs/tcp.md).
    #[serde(default)]
    pub tcp: ScenarioTcpSpec,
    #[serde(default)]
    pub trace: TraceSpec,
    /// Memory a run may hold (default 4 GiB): `check` refuses a scenario whose run it
    /// estimates to hold more (see `budget`).
    #[serde(default)]
    pub memory_budget: Option<Size>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    #[serde(default)]
    pub name: Option<String>,
    /// The sender's node; for SCTP a list of nodes, one per address (multihoming).
    pub from: Endpoint,
    /// The receiver's node(s); for SCTP the first is the primary destination.
    pub to: Endpoint,
    /// `"tcp"` (default), `"sctp"` or `"udp"`.
    #[serde(default)]
    pub transport: TransportSpec,
    /// Congestion control: a name, or `{ name = "...", <parameters> }` (see
    /// `cc_spec` and each variant's file under `transport/tcp/cc/`).
    #[serde(default)]
    pub cc: CcSpec,
    /// Loss recovery; default follows `cc` ("tahoe" → tahoe, "reno" → reno,
    /// anything else → newreno).
    #[serde(default)]
    pub recovery: Option<RecoverySpec>,
    #[serde(default)]
    pub start: Duration,
    #[serde(default)]
    pub stop: Option<Duration>,
    #[serde(default)]
    pub app: AppSpec,
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default)]
    pub sctp: SctpSpec,
    /// A UDP flow's traffic source (`udp/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceSpec>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RecoverySpec {
    Tahoe,
    Reno,
    Newreno,
    /// RFC 6675; needs `tcp.sack = true`.
    Sack,
}

/// What the application sends: `{ kind = "bulk" }` (infinite backlog, the
/// default) or `{ kind = "transfer", bytes = "3MB" }` / `{ kind = "transfer",
/// segments = 3000 }` (exactly one of the two sizes).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppSpec {
    #[default]
    Bulk,
    Transfer {
        #[serde(default)]
        bytes: Option<Size>,
        #[serde(default)]
        segments: Option<u64>,
    },
}

impl AppSpec {
    /// The bytes a transfer sends, its `segments` counted in units of `segment`
    /// bytes (a TCP flow's MSS, an SCTP flow's user bytes per packet); `None` for
    /// bulk.
    pub fn bytes(&self, segment: u64) -> Option<u64> {
        match self {
            AppSpec::Bulk => None,
            AppSpec::Transfer { bytes, segments } => {
                bytes.map(|b| b.0).or(segments.map(|n| n * segment))
            }
        }
    }
}

/// SCTP's RTO parameters (RFC 9260 §6.3.1, the same rules as RFC 6298), with
/// their defaults written in (TCP's `tcp.rto` is `TcpRtoSpec`, over a profile).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RtoSpec {
    pub initial: Duration,
    pub min: Duration,
    pub max: Duration,
    pub granularity: Duration,
    /// Where `min` applies: "rfc6298" (the whole RTO, default) or "linux" (the
    /// variance term: RTO = SRTT + max(4·RTTVAR, min)).
    pub rule: crate::transport::tcp::rto::RtoRule,
}

impl Default for RtoSpec {
    fn default() -> Self {
        let d = crate::transport::tcp::rto::RtoConfig::default();
        RtoSpec {
            initial: Duration(d.initial),
            min: Duration(d.min),
            max: Duration(d.max),
            granularity: Duration(d.granularity),
            rule: d.rule,
        }
    }
}

impl RtoSpec {
    /// The estimator's parameters.
    pub fn config(&self) -> crate::transport::tcp::rto::RtoConfig {
        crate::transport::tcp::rto::RtoConfig {
            initial: self.initial.0,
            min: self.min.0,
            max: self.max.0,
            granularity: self.granularity.0,
            rule: self.rule,
            // SCTP takes its own samples (RFC 9260 §6.3.1).
            sample: crate::transport::tcp::rto::RttSample::default(),
        }
    }
}

//! The tables a `tcp` table holds (`rto`, `ssthresh_on_repeated_timeout`) and the
//! scenario-wide `tcp` table (its default profile). The flow's own `tcp` table,
//! `TcpSpec`, is in `options.rs` beside what it resolves into.

use serde::{Deserialize, Serialize};

use super::profile::TcpProfile;
use crate::transport::tcp::rto::{RtoRule, RttSample};
use crate::units::Duration;

/// `tcp.ssthresh_on_repeated_timeout`: see `transport/tcp/recovery.rs`.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RepeatedTimeoutSpec {
    #[default]
    Keep,
    Halve,
}

/// `tcp.rto`: RFC 6298's parameters, each optional like the rest of the table (so
/// `rto = { min = "200ms" }` keeps the profile's other three). SCTP's `rto` table
/// (`spec::RtoSpec`) has no profile and writes its defaults in.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpRtoSpec {
    pub initial: Option<Duration>,
    pub min: Option<Duration>,
    pub max: Option<Duration>,
    pub granularity: Option<Duration>,
    /// Where `min` applies: "rfc6298" (the whole RTO) or "linux" (the variance
    /// term: RTO = SRTT + max(4·RTTVAR, min)).
    pub rule: Option<RtoRule>,
    /// Which RTT measurement of an ACK the estimator takes: "rfc7323" (the
    /// timestamp echo, else Karn's rule) or "linux" (sequence RTT, SACK RTT,
    /// then the echo: `tcp_ack_update_rtt` since Linux 3.13).
    pub sample: Option<RttSample>,
}

/// The scenario-wide `tcp` table: the profile of every TCP flow and generator that
/// does not name its own.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ScenarioTcpSpec {
    pub profile: Option<TcpProfile>,
}

//! A TCP flow's `tcp` table as written: every field optional, so that a field the
//! scenario sets can be told from one it leaves to its profile (`tcp.profile`,
//! `profile.rs`). `options.rs` resolves it into the checked, typed plan.
//!
//! In a plan's canonical spec every field is written out (the resolved value), so
//! that the canonical spec loads into the same options whatever the default
//! profile becomes.

use serde::{Deserialize, Serialize};

use super::profile::TcpProfile;
use crate::transport::tcp::cc_sample::CcSample;
use crate::transport::tcp::rto::{RtoRule, RttSample};
use crate::units::{Duration, Size};

/// TCP options of a flow (or of a generator's connections). Unset fields take the
/// profile's value; see docs/tcp.md for each profile's table.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpSpec {
    /// Where the unset fields come from: "linux", "rfc" or "ns2"; default the
    /// scenario's `tcp.profile`, else "linux".
    pub profile: Option<TcpProfile>,
    /// Maximum segment size (payload bytes) asked for (`TCP_MAXSEG`, iperf -M).
    /// Default 1460; clamped to `mtu` − 40 as Linux does; with timestamps the
    /// payload shrinks by 12 B to keep the same MTU.
    pub mss: Option<Size>,
    /// Path MTU, bytes (default 1500): the MSS is at most `mtu` − 40
    /// (`transport/tcp/socket_options.rs`).
    pub mtu: Option<u32>,
    /// Initial window in segments ("rfc": RFC 3390's min(4·MSS, max(2·MSS,
    /// 4380 B)) / MSS, 3 for MSS 1460).
    pub initial_window: Option<u32>,
    /// Receive buffer = advertised window (default 64 MiB, never limiting;
    /// "ns2": 20 segments, ns-2's `window_`).
    pub rwnd: Option<Size>,
    /// SO_RCVBUF (iperf -w), turned into the advertised window as Linux does
    /// (`socket_options.rs`); instead of `rwnd`.
    pub rcvbuf: Option<Size>,
    /// SO_SNDBUF (iperf -w): the application's unacknowledged + unsent bytes are
    /// limited as Linux limits them (`send_buffer.rs`). Default unlimited.
    pub sndbuf: Option<Size>,
    /// Bytes the application hands over per write() (iperf -l); needs `sndbuf`.
    /// Default: everything at once.
    pub write_size: Option<Size>,
    /// Nagle's algorithm, Linux's (Minshall's) variant (`nagle.rs`).
    pub nagle: Option<bool>,
    pub dupthresh: Option<u32>,
    /// RFC 3042 limited transmit.
    pub limited_transmit: Option<bool>,
    /// Most segments one ACK may add to cwnd in slow start (RFC 3465 "L").
    pub abc_limit: Option<u32>,
    /// RFC 7323 timestamps (12 B per segment; RTT from echoed TSval).
    pub timestamps: Option<bool>,
    /// Which newly acknowledged segment's age an ACK gives the congestion
    /// controller as its RTT sample: "newest" (Linux after 2.6.20, the default of
    /// every profile) or "oldest" (Linux 2.6.20's `rtt_sample`, used by Vegas and
    /// Veno); `transport/tcp/cc_sample.rs`.
    pub cc_sample: Option<CcSample>,
    /// SACK (RFC 2018): the receiver reports out-of-order blocks and the sender
    /// recovers with RFC 6675 unless `recovery` says otherwise.
    pub sack: Option<bool>,
    /// The receiver reports duplicate segments with D-SACK (RFC 2883); the sender
    /// counts the loss episodes D-SACKs show spurious (RFC 3708).
    pub dsack: Option<bool>,
    /// Undo a window reduction when D-SACKs show it was spurious (RFC 3708);
    /// needs `sack` and `dsack`.
    pub dsack_undo: Option<bool>,
    /// RR-TCP's dupthresh adaptation (`transport/tcp/reordering.rs`); needs `sack`
    /// and `dsack`.
    pub adapt_dupthresh: Option<bool>,
    /// Starting percentile of the adaptation (as RR-SCTP's `rr.pef`).
    pub pef: Option<f64>,
    /// Step of the percentile's moves (as RR-SCTP's `rr.pef_step`).
    pub pef_step: Option<f64>,
    /// Eifel detection and undo (RFC 3522, RFC 4015); needs `timestamps`.
    pub eifel: Option<bool>,
    /// F-RTO detection of spurious timeouts and undo (RFC 5682).
    pub frto: Option<bool>,
    /// Proportional Rate Reduction (RFC 6937, as Linux's `tcp_cwnd_reduction`) sets
    /// cwnd during fast recovery instead of window inflation (Reno, NewReno) or
    /// cwnd = ssthresh (SACK); see `transport/tcp/prr.rs`.
    pub prr: Option<bool>,
    /// RACK-TLP loss detection (RFC 8985): losses by time instead of DupThresh,
    /// tail loss probes instead of timeouts; needs `sack` and `recovery = "sack"`.
    pub rack: Option<bool>,
    /// ssthresh when the timer expires again before new data is acknowledged:
    /// `keep` (RFC 5681 §3.1) or `halve` (ns-2).
    pub ssthresh_on_repeated_timeout: Option<RepeatedTimeoutSpec>,
    /// Delayed ACKs at the receiver (RFC 1122/5681).
    pub delayed_ack: Option<bool>,
    /// Longest delay of an ACK.
    pub delayed_ack_timeout: Option<Duration>,
    /// ACK at least every this many full-sized segments.
    pub delayed_ack_every: Option<u32>,
    /// Linux's quick-ACK mode (`transport/tcp/quickack.rs`): with delayed ACKs,
    /// acknowledge every segment at the start, while the window opens and after
    /// a retransmission; needs `delayed_ack`.
    pub quickack: Option<bool>,
    pub rto: TcpRtoSpec,
    /// Open the connection with a SYN / SYN-ACK handshake first
    /// (`transport/tcp/handshake.rs`).
    pub handshake: Option<bool>,
}

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

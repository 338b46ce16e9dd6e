//! A TCP option from the table to the agents, all in this file: the flow's `tcp`
//! table as written (`TcpSpec`, every field optional, so that a field the scenario
//! sets can be told from one it leaves to its profile), resolved over its profile
//! (`profile.rs`) over RFC's values into `TcpOptions` once, every error naming the
//! field (`ranges.rs` checks), handed to the sender's and receiver's configuration
//! (`tcp_agents`); `TcpOptions::table` writes it back as the canonical `tcp` table,
//! every field written out so that it loads into the same options whatever the
//! default profile becomes.
//!
//! A field the flow sets always wins. A profile's option that needs another one the
//! flow turned off is dropped with it (`profile = "linux"` with `sack = false` has no
//! D-SACK either), while the same dependency written in the flow is an error.

use serde::{Deserialize, Serialize};

use super::profile::TcpProfile;
use super::spec::{RepeatedTimeoutSpec, TcpRtoSpec};
use crate::packet::{TCP_IP_HEADER, TCP_TIMESTAMP_OPTION};
use crate::scenario::error::ScenarioError;
use crate::time::SimTime;
use crate::transport::tcp::cc_sample::CcSample;
use crate::transport::tcp::ecn::{EcnConfig, EcnSetting};
use crate::transport::tcp::receiver::{DelayedAck, ReceiverConfig};
use crate::transport::tcp::recovery::{Recovery, RepeatedTimeout};
use crate::transport::tcp::rto::RtoConfig;
use crate::transport::tcp::sender::SenderConfig;
use crate::transport::tcp::socket_options::{self, kernel_sndbuf};
use crate::units::{Duration, Size};

/// `tcp.mss` when no one sets it: a 1500-byte MTU's.
pub const DEFAULT_MSS: u64 = 1460;
/// `tcp.mtu` when no one sets it (Ethernet).
pub const DEFAULT_MTU: u32 = 1500;
/// The advertised window when neither `tcp.rwnd`, `tcp.rcvbuf` nor the profile set
/// one: 64 MiB, never limiting.
pub const DEFAULT_RWND: u64 = 64 << 20;

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
    /// ECN (RFC 3168), both ends' Linux `net.ipv4.tcp_ecn`: "off" (0, never asks,
    /// refuses), "on" (1, asks and accepts), "accept" (2, accepts when asked, the
    /// "linux" profile's); "rfc" and "ns2": "off". A controller that needs ECN
    /// (DCTCP) asks and accepts whatever this says (`transport/tcp/ecn.rs`).
    pub ecn: Option<EcnSetting>,
}

/// A TCP flow's options, resolved and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpOptions {
    pub profile: TcpProfile,
    /// The MSS asked for (before the MTU's clamp).
    pub mss: u64,
    pub mtu: u32,
    pub initial_window: u32,
    /// The buffer the window comes from (`rcvbuf`), when it does.
    pub rcvbuf: Option<Size>,
    /// The advertised window in bytes, from `rwnd`, `rcvbuf` or the profile (the
    /// canonical table writes it as `rwnd` unless it comes from `rcvbuf`).
    pub receive_window: u64,
    pub sndbuf: Option<Size>,
    pub write_size: Option<Size>,
    pub nagle: bool,
    pub dupthresh: u32,
    pub limited_transmit: bool,
    pub prr: bool,
    pub abc_limit: u32,
    pub timestamps: bool,
    pub cc_sample: CcSample,
    pub sack: bool,
    pub dsack: bool,
    pub dsack_undo: bool,
    pub adapt_dupthresh: bool,
    pub pef: f64,
    pub pef_step: f64,
    pub eifel: bool,
    pub frto: bool,
    pub rack: bool,
    pub ssthresh_on_repeated_timeout: RepeatedTimeoutSpec,
    pub delayed_ack: bool,
    pub delayed_ack_timeout: SimTime,
    pub delayed_ack_every: u32,
    pub quickack: bool,
    pub rto: RtoConfig,
    pub handshake: bool,
    pub ecn: EcnSetting,
}

impl TcpSpec {
    /// This table with the fields it leaves unset taken from `base`.
    pub fn over(&self, base: &TcpSpec) -> TcpSpec {
        let r = (&self.rto, &base.rto);
        TcpSpec {
            profile: self.profile.or(base.profile),
            mss: self.mss.or(base.mss),
            mtu: self.mtu.or(base.mtu),
            initial_window: self.initial_window.or(base.initial_window),
            rwnd: self.rwnd.or(base.rwnd),
            rcvbuf: self.rcvbuf.or(base.rcvbuf),
            sndbuf: self.sndbuf.or(base.sndbuf),
            write_size: self.write_size.or(base.write_size),
            nagle: self.nagle.or(base.nagle),
            dupthresh: self.dupthresh.or(base.dupthresh),
            limited_transmit: self.limited_transmit.or(base.limited_transmit),
            prr: self.prr.or(base.prr),
            abc_limit: self.abc_limit.or(base.abc_limit),
            timestamps: self.timestamps.or(base.timestamps),
            cc_sample: self.cc_sample.or(base.cc_sample),
            sack: self.sack.or(base.sack),
            dsack: self.dsack.or(base.dsack),
            dsack_undo: self.dsack_undo.or(base.dsack_undo),
            adapt_dupthresh: self.adapt_dupthresh.or(base.adapt_dupthresh),
            pef: self.pef.or(base.pef),
            pef_step: self.pef_step.or(base.pef_step),
            eifel: self.eifel.or(base.eifel),
            frto: self.frto.or(base.frto),
            rack: self.rack.or(base.rack),
            ssthresh_on_repeated_timeout: self
                .ssthresh_on_repeated_timeout
                .or(base.ssthresh_on_repeated_timeout),
            delayed_ack: self.delayed_ack.or(base.delayed_ack),
            delayed_ack_timeout: self.delayed_ack_timeout.or(base.delayed_ack_timeout),
            delayed_ack_every: self.delayed_ack_every.or(base.delayed_ack_every),
            quickack: self.quickack.or(base.quickack),
            rto: TcpRtoSpec {
                initial: r.0.initial.or(r.1.initial),
                min: r.0.min.or(r.1.min),
                max: r.0.max.or(r.1.max),
                granularity: r.0.granularity.or(r.1.granularity),
                rule: r.0.rule.or(r.1.rule),
                sample: r.0.sample.or(r.1.sample),
            },
            handshake: self.handshake.or(base.handshake),
            ecn: self.ecn.or(base.ecn),
        }
    }
}

impl TcpOptions {
    /// Resolves the `tcp` table under `path` (`flows[0]`, `generators[1]`): its own
    /// fields, then its profile's (its own `profile`, else `scenario_profile`, else
    /// "linux"), then RFC's; and checks the result.
    pub fn resolve(
        path: &str,
        t: &TcpSpec,
        scenario_profile: Option<TcpProfile>,
    ) -> Result<TcpOptions, ScenarioError> {
        let at = |field: &str| format!("{path}.tcp.{field}");
        let profile = t.profile.or(scenario_profile).unwrap_or_default();
        let p = profile.table();
        let m = t.over(&p);
        let flag = |v: Option<bool>| v.unwrap_or(false);
        let sack = flag(m.sack);
        let timestamps = flag(m.timestamps);
        // A profile's option goes with the one it needs; the flow's own is checked.
        // A value the flow writes equal to its profile's counts as the profile's, so
        // that a canonical table (every value written) with `sack` turned off later
        // (a sweep) loses the profile's D-SACK as the flow itself would.
        let own = |v: Option<bool>, profile: Option<bool>| v.filter(|&v| Some(v) != profile);
        let dsack = flag(own(t.dsack, p.dsack).or(p.dsack.filter(|_| sack)));
        let undo = own(t.dsack_undo, p.dsack_undo);
        let dsack_undo = flag(undo.or(p.dsack_undo.filter(|_| sack && dsack)));
        let eifel = flag(own(t.eifel, p.eifel).or(p.eifel.filter(|_| timestamps)));
        let rack = flag(own(t.rack, p.rack).or(p.rack.filter(|_| sack)));
        let delayed_ack = flag(m.delayed_ack);
        let quickack = flag(own(t.quickack, p.quickack).or(p.quickack.filter(|_| delayed_ack)));
        let rto = RtoConfig::default();
        let mut o = TcpOptions {
            profile,
            mss: m.mss.map_or(DEFAULT_MSS, |s| s.0),
            mtu: m.mtu.unwrap_or(DEFAULT_MTU),
            initial_window: 0,
            rcvbuf: m.rcvbuf,
            receive_window: 0,
            sndbuf: m.sndbuf,
            write_size: m.write_size,
            nagle: m.nagle.unwrap_or(true),
            dupthresh: m.dupthresh.unwrap_or(3),
            limited_transmit: flag(m.limited_transmit),
            prr: flag(m.prr),
            abc_limit: m.abc_limit.unwrap_or(1),
            timestamps,
            cc_sample: m.cc_sample.unwrap_or_default(),
            sack,
            dsack,
            dsack_undo,
            adapt_dupthresh: flag(m.adapt_dupthresh),
            pef: m.pef.unwrap_or(0.9),
            pef_step: m.pef_step.unwrap_or(0.1),
            eifel,
            frto: flag(m.frto),
            rack,
            ssthresh_on_repeated_timeout: m.ssthresh_on_repeated_timeout.unwrap_or_default(),
            delayed_ack,
            delayed_ack_timeout: m
                .delayed_ack_timeout
                .map_or(SimTime::from_millis(200), |d| d.0),
            delayed_ack_every: m.delayed_ack_every.unwrap_or(2),
            quickack,
            rto: RtoConfig {
                initial: m.rto.initial.map_or(rto.initial, |d| d.0),
                min: m.rto.min.map_or(rto.min, |d| d.0),
                max: m.rto.max.map_or(rto.max, |d| d.0),
                granularity: m.rto.granularity.map_or(rto.granularity, |d| d.0),
                rule: m.rto.rule.unwrap_or(rto.rule),
                sample: m.rto.sample.unwrap_or(rto.sample),
            },
            handshake: flag(m.handshake),
            ecn: m.ecn.unwrap_or_default(),
        };
        o.check(m.rwnd, &at)?;
        o.resolve_windows(&m);
        o.check_window(&at)?;
        Ok(o)
    }

    /// The initial window (RFC 3390's unless set) and the advertised window: `rwnd`,
    /// else from `rcvbuf`, else the profile's, else `DEFAULT_RWND`; from `m`, the
    /// table over its profile.
    fn resolve_windows(&mut self, m: &TcpSpec) {
        let mss = self.payload_mss();
        self.initial_window = m
            .initial_window
            .unwrap_or_else(|| rfc3390_initial_window(mss));
        self.receive_window = match (m.rwnd, self.rcvbuf, self.profile.window_segments()) {
            (Some(w), _, _) => w.0,
            (None, Some(b), _) => socket_options::receive_window(b.0, self.advertised_mss()),
            (None, None, Some(n)) => n * u64::from(mss),
            (None, None, None) => DEFAULT_RWND,
        };
    }

    /// The MSS the receiver announces and the sender starts from: the one asked
    /// for, clamped to the MTU (before the timestamp option's 12 B).
    pub fn advertised_mss(&self) -> u32 {
        let requested = self.mss.min(u64::from(u32::MAX)) as u32;
        socket_options::clamped_mss(requested, self.mtu)
    }

    /// Payload bytes of a full segment: the advertised MSS less the timestamp
    /// option's 12 B when timestamps are on (the MTU is kept).
    pub fn payload_mss(&self) -> u32 {
        let advmss = self.advertised_mss();
        if self.timestamps {
            advmss.saturating_sub(TCP_TIMESTAMP_OPTION).max(1)
        } else {
            advmss
        }
    }

    /// The options as a `tcp` table with every field written (the plan's canonical
    /// form: it resolves to the same options under any default profile).
    pub fn table(&self) -> TcpSpec {
        let d = |t: SimTime| Some(Duration(t));
        let window_written = self.rcvbuf.is_none();
        TcpSpec {
            profile: Some(self.profile),
            mss: Some(Size(self.mss)),
            mtu: Some(self.mtu),
            initial_window: Some(self.initial_window),
            rwnd: window_written.then_some(Size(self.receive_window)),
            rcvbuf: self.rcvbuf,
            sndbuf: self.sndbuf,
            write_size: self.write_size,
            nagle: Some(self.nagle),
            dupthresh: Some(self.dupthresh),
            limited_transmit: Some(self.limited_transmit),
            prr: Some(self.prr),
            abc_limit: Some(self.abc_limit),
            timestamps: Some(self.timestamps),
            cc_sample: Some(self.cc_sample),
            sack: Some(self.sack),
            dsack: Some(self.dsack),
            dsack_undo: Some(self.dsack_undo),
            adapt_dupthresh: Some(self.adapt_dupthresh),
            pef: Some(self.pef),
            pef_step: Some(self.pef_step),
            eifel: Some(self.eifel),
            frto: Some(self.frto),
            rack: Some(self.rack),
            ssthresh_on_repeated_timeout: Some(self.ssthresh_on_repeated_timeout),
            delayed_ack: Some(self.delayed_ack),
            delayed_ack_timeout: d(self.delayed_ack_timeout),
            delayed_ack_every: Some(self.delayed_ack_every),
            quickack: Some(self.quickack),
            rto: TcpRtoSpec {
                initial: d(self.rto.initial),
                min: d(self.rto.min),
                max: d(self.rto.max),
                granularity: d(self.rto.granularity),
                rule: Some(self.rto.rule),
                sample: Some(self.rto.sample),
            },
            handshake: Some(self.handshake),
            ecn: Some(self.ecn),
        }
    }
}

/// RFC 3390 / RFC 5681 §3.1 initial window: min(4·MSS, max(2·MSS, 4380 B)), in segments.
fn rfc3390_initial_window(mss: u32) -> u32 {
    ((4 * mss).min((2 * mss).max(4380)) / mss).max(1)
}

/// The sender's and receiver's configuration from a flow's (or a generator's) TCP
/// options, its loss recovery, whether its controller needs ECN (Linux
/// `TCP_CONG_NEEDS_ECN`: both ends of a flow run its controller, as in a data
/// centre where DCTCP is every host's) and the bytes its application sends
/// (`None`: bulk).
pub fn tcp_agents(
    t: &TcpOptions,
    recovery: Recovery,
    needs_ecn: bool,
    app_bytes: Option<u64>,
) -> (SenderConfig, ReceiverConfig) {
    let ecn = EcnConfig {
        setting: t.ecn,
        needs_ecn,
    };
    // The MSS asked for, clamped to the MTU, less the timestamp option.
    let mss = t.payload_mss();
    let sender_cfg = SenderConfig {
        mss,
        header: TCP_IP_HEADER
            + if t.timestamps {
                TCP_TIMESTAMP_OPTION
            } else {
                0
            },
        initial_window: t.initial_window,
        dupthresh: t.dupthresh,
        limited_transmit: t.limited_transmit,
        abc_limit: t.abc_limit,
        recovery,
        repeated_timeout: match t.ssthresh_on_repeated_timeout {
            RepeatedTimeoutSpec::Keep => RepeatedTimeout::Keep,
            RepeatedTimeoutSpec::Halve => RepeatedTimeout::Halve,
        },
        timestamps: t.timestamps,
        cc_sample: t.cc_sample,
        sack: t.sack,
        dsack_undo: t.dsack_undo,
        eifel: t.eifel,
        frto: t.frto,
        adapt_dupthresh: t.adapt_dupthresh.then_some((t.pef, t.pef_step)),
        rack: t.rack,
        rto: t.rto,
        app_bytes,
        write_size: t.write_size.map(|w| w.0),
        sndbuf: t.sndbuf.map(|b| kernel_sndbuf(b.0)),
        nagle: t.nagle,
        prr: t.prr,
        ecn,
    };
    let receiver_cfg = ReceiverConfig {
        buffer: t.receive_window,
        delayed_ack: t.delayed_ack.then_some(DelayedAck {
            timeout: t.delayed_ack_timeout,
            every: t.delayed_ack_every,
        }),
        quickack: t.quickack,
        mss,
        sack: t.sack,
        dsack: t.dsack,
        timestamps: t.timestamps,
        ecn,
    };
    (sender_cfg, receiver_cfg)
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;

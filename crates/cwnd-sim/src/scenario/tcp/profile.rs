//! `tcp.profile`: named sets of TCP options, one line per flow or per scenario.
//! Each profile is written as the `tcp` table a scenario would write for it; a
//! field the flow sets wins over its profile (`TcpSpec::over`), and what neither
//! sets takes RFC's value (`options.rs`), so "rfc" is the empty table.
//!
//! - "linux": the options of a current Linux sender and receiver (net.ipv4
//!   defaults of Linux 6.x, `tcp_input.c`, `tcp_output.c`, `tcp_timer.c`):
//!   `tcp_sack` = 1 (RFC 2018, RFC 6675 recovery), `tcp_dsack` = 1 (RFC 2883) and
//!   its undo (`tcp_try_undo_dsack`), `tcp_timestamps` = 1 (RFC 7323), `tcp_frto`
//!   = 2 (RFC 5682, SACK-enhanced), limited transmit (RFC 3042, always on), IW 10
//!   (RFC 6928, `TCP_INIT_CWND`), slow start by segments delivered without RFC
//!   3465's per-ACK limit (`tcp_slow_start`), delayed ACKs of every second
//!   segment after at most `TCP_ATO_MIN` = 40 ms with Linux's quick-ACK mode
//!   (`quickack.rs`; the adaptive `ato` up to 200 ms is not modelled), RTO min
//!   200 ms on the variance term (`TCP_RTO_MIN`, `RtoRule::Linux`) with Linux's
//!   choice of RTT sample (`tcp_ack_update_rtt`, `RttSample::Linux`), max 120 s (`TCP_RTO_MAX`),
//!   PRR in fast recovery (RFC 6937, `tcp_cwnd_reduction`, always on since
//!   Linux 3.2), RACK-TLP loss detection (RFC 8985, `tcp_recovery` = 1, the
//!   default since 4.18), and CUBIC's slow start ended by HyStart
//!   (`tcp_cubic.c`, `hystart` = 1: `cubic.hystart = "linux"`, `cc_params`).
//!   `tcp_ecn` = 2 (ip-sysctl.rst's default): ECN accepted when the peer asks,
//!   never asked for, so two "linux" ends never use it (`ecn = "accept"`).
//!   Linux mechanisms cwnd has not got yet are listed in docs/tcp.md.
//! - "rfc": the standards-track defaults (RFC 5681, RFC 6298, RFC 3390): no
//!   option that an RFC leaves optional; delayed ACKs off although RFC 1122
//!   says SHOULD (docs/tcp.md says why).
//! - "ns2": ns-2.35's one-way agents as `tcl/lib/ns-default.tcl` sets them up
//!   (`Agent/TCP` and `Agent/TCPSink`; the studies' `ns2.py` pins the same):
//!   `windowInit_` 2, `rtxcur_init_` 3 s, `minrto_` 200 ms, `maxrto_` 60 s,
//!   `tcpTick_` 10 ms, `window_` 20 packets, no delayed ACKs, and ssthresh 2 on
//!   a repeated timeout (tcp.cc `slowdown`). Its Vegas retransmits on the fine-
//!   grained timer (`cc_params`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::options::TcpSpec;
use super::spec::{RepeatedTimeoutSpec, TcpRtoSpec};
use crate::time::SimTime;
use crate::transport::tcp::ecn::EcnSetting;
use crate::transport::tcp::rto::{RtoRule, RttSample};
use crate::units::Duration;

/// A named set of TCP options.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TcpProfile {
    /// What people compare with: the default (docs/tcp.md, "Profiles").
    #[default]
    Linux,
    Rfc,
    Ns2,
}

/// ns-2.35's `window_`: the receive window of its agents, in segments.
pub const NS2_WINDOW_SEGMENTS: u64 = 20;

impl TcpProfile {
    /// The profile as the `tcp` table a scenario would write for it.
    pub fn table(self) -> TcpSpec {
        let ms = |n| Some(Duration(SimTime::from_millis(n)));
        match self {
            TcpProfile::Linux => TcpSpec {
                sack: Some(true),
                dsack: Some(true),
                dsack_undo: Some(true),
                timestamps: Some(true),
                frto: Some(true),
                limited_transmit: Some(true),
                prr: Some(true),
                rack: Some(true),
                initial_window: Some(10),
                abc_limit: Some(LINUX_ABC_LIMIT),
                delayed_ack: Some(true),
                delayed_ack_timeout: ms(40),
                quickack: Some(true),
                ecn: Some(EcnSetting::Accept),
                rto: TcpRtoSpec {
                    initial: ms(1000),
                    min: ms(200),
                    max: ms(120_000),
                    granularity: None,
                    rule: Some(RtoRule::Linux),
                    sample: Some(RttSample::Linux),
                },
                ..TcpSpec::default()
            },
            TcpProfile::Rfc => TcpSpec::default(),
            TcpProfile::Ns2 => TcpSpec {
                initial_window: Some(2),
                ssthresh_on_repeated_timeout: Some(RepeatedTimeoutSpec::Halve),
                rto: TcpRtoSpec {
                    initial: ms(3000),
                    min: ms(200),
                    max: ms(60_000),
                    granularity: ms(10),
                    rule: None,
                    sample: None,
                },
                ..TcpSpec::default()
            },
        }
    }

    /// Parameters of controller `cc` that the profile sets (the flow's `cc` table
    /// wins). ns-2.35's `Agent/TCP/Vegas` (tcp-vegas.cc `recv`), unconditionally,
    /// checks its fine-grained timer (`vegas_expire`) on every duplicate ACK and on
    /// the two ACKs of new data after a retransmission (`v_worried_`):
    /// `fine_grained_retransmission`; and on a segment's first retransmission keeps
    /// 3/4 of the window (`win -= win >> 2`; halves on a later one and on a
    /// timeout): `loss_reduction = "vegas"` (cc/vegas.rs). Linux's CUBIC ends slow
    /// start with HyStart (`tcp_cubic.c`, module parameter `hystart` = 1 by
    /// default): `hystart = "linux"` (cc/hystart.rs).
    pub fn cc_params(self, cc: &str) -> Map<String, Value> {
        let mut params = Map::new();
        match (self, cc) {
            (TcpProfile::Ns2, "vegas") => {
                params.insert("fine_grained_retransmission".into(), Value::Bool(true));
                params.insert("loss_reduction".into(), Value::from("vegas"));
            }
            (TcpProfile::Linux, "cubic") => {
                params.insert("hystart".into(), Value::from("linux"));
            }
            _ => {}
        }
        params
    }

    /// The receive window, in segments, when the flow sets neither `rwnd` nor
    /// `rcvbuf` (`None`: cwnd's never-limiting default).
    pub fn window_segments(self) -> Option<u64> {
        match self {
            TcpProfile::Ns2 => Some(NS2_WINDOW_SEGMENTS),
            TcpProfile::Linux | TcpProfile::Rfc => None,
        }
    }
}

/// Linux's slow start adds every segment an ACK delivers (`tcp_slow_start`: cwnd
/// += acked, up to ssthresh): no RFC 3465 limit. A limit no ACK reaches (a
/// 64 MiB window holds 45 965 segments of 1460 B) says the same.
pub const LINUX_ABC_LIMIT: u32 = 1 << 20;

#[cfg(test)]
mod tests {
    use crate::scenario::load;
    use crate::scenario::plan::TransportPlan;
    use crate::transport::tcp::cc::{CcConfig, HystartMode, LossReduction};
    use crate::transport::tcp::recovery::Recovery;

    /// The one TCP flow of a scenario: its controller, recovery and whether it
    /// runs RACK-TLP, with `top` at the scenario's top and `flow` in the flow.
    fn flow(top: &str, flow: &str) -> (CcConfig, Recovery, bool) {
        let text = format!(
            "duration = \"1s\"\n{top}\n[[links]]\nbetween = [\"a\", \"b\"]\n\
             bandwidth = \"1Mbps\"\ndelay = \"5ms\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\n{flow}\n"
        );
        match &load(&text, None).unwrap().flows[0].transport {
            TransportPlan::Tcp { tcp, .. } => (tcp.cc.clone(), tcp.recovery, tcp.options.rack),
            _ => panic!("not TCP"),
        }
    }

    fn hystart(top: &str, cc: &str) -> HystartMode {
        match flow(top, &format!("cc = {cc}")).0 {
            CcConfig::Cubic(c) => c.hystart,
            other => panic!("not CUBIC: {other:?}"),
        }
    }

    #[test]
    fn linuxs_cubic_ends_slow_start_with_hystart_unless_the_flow_says_not() {
        // tcp_cubic.c: module parameter hystart = 1.
        assert_eq!(hystart("", "\"cubic\""), HystartMode::Linux);
        let off = "{ name = \"cubic\", hystart = \"off\" }";
        assert_eq!(hystart("", off), HystartMode::Off);
        let rfc9406 = "{ name = \"cubic\", hystart = \"rfc9406\" }";
        assert_eq!(hystart("", rfc9406), HystartMode::Rfc9406);
        // The RFCs' and ns-2's CUBIC: standard slow start (RFC 9438 §4.10).
        assert_eq!(
            hystart("tcp.profile = \"rfc\"", "\"cubic\""),
            HystartMode::Off
        );
        assert_eq!(
            hystart("tcp.profile = \"ns2\"", "\"cubic\""),
            HystartMode::Off
        );
    }

    #[test]
    fn linuxs_rack_goes_with_a_recovery_the_flow_chose_without_sack() {
        // "linux": SACK recovery (SACK on, no recovery written) with RACK-TLP.
        assert_eq!(flow("", "").1, Recovery::Sack);
        assert!(flow("", "").2);
        // recovery = "newreno" uses no SACK blocks: the profile's RACK is dropped.
        let newreno = flow("", "recovery = \"newreno\"");
        assert_eq!((newreno.1, newreno.2), (Recovery::NewReno, false));
        // The flow turning RACK off keeps SACK recovery without it.
        let off = flow("", "tcp = { rack = false }");
        assert_eq!((off.1, off.2), (Recovery::Sack, false));
    }

    /// Whether the one Vegas flow of a scenario retransmits on its fine-grained timer
    /// and keeps 3/4 of its window after a fast retransmit.
    fn ns2_vegas(profile: &str, cc: &str) -> (bool, bool) {
        let text = format!(
            "duration = \"1s\"\ntcp.profile = \"{profile}\"\n[[links]]\nbetween = [\"a\", \"b\"]\n\
             bandwidth = \"1Mbps\"\ndelay = \"5ms\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\ncc = {cc}\n"
        );
        let plan = load(&text, None).unwrap();
        match &plan.flows[0].transport {
            TransportPlan::Tcp { tcp, .. } => match &tcp.cc {
                CcConfig::Vegas(v) => (
                    v.fine_grained_retransmission,
                    v.loss_reduction == LossReduction::Vegas,
                ),
                other => panic!("not Vegas: {other:?}"),
            },
            _ => panic!("not TCP"),
        }
    }

    #[test]
    fn ns2s_vegas_is_ns2s_agent_unless_the_flow_says_not() {
        assert_eq!(ns2_vegas("ns2", "\"vegas\""), (true, true));
        let off = "{ name = \"vegas\", fine_grained_retransmission = false }";
        assert_eq!(ns2_vegas("ns2", off), (false, true));
        let halve = "{ name = \"vegas\", loss_reduction = \"reno\" }";
        assert_eq!(ns2_vegas("ns2", halve), (true, false));
        assert_eq!(ns2_vegas("linux", "\"vegas\""), (false, false));
        assert_eq!(ns2_vegas("rfc", "\"vegas\""), (false, false));
    }
}

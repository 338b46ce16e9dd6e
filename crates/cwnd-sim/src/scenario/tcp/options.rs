//! A TCP flow's options checked into a typed plan: its `tcp` table over its profile
//! (`profile.rs`) over RFC's values, resolved once, every error naming the
//! field. The plan (`TcpOptions`) is what the builder turns into a sender and a
//! receiver; `TcpOptions::table` writes it back as the canonical `tcp` table.
//!
//! A field the flow sets always wins. A profile's option that needs another one the
//! flow turned off is dropped with it (`profile = "linux"` with `sack = false` has no
//! D-SACK either), while the same dependency written in the flow is an error.

use super::profile::TcpProfile;
use super::spec::{RepeatedTimeoutSpec, TcpRtoSpec, TcpSpec};
use crate::packet::TCP_TIMESTAMP_OPTION;
use crate::scenario::error::ScenarioError;
use crate::time::SimTime;
use crate::transport::tcp::cc_sample::CcSample;
use crate::transport::tcp::rto::RtoConfig;
use crate::transport::tcp::socket_options;
use crate::units::{Duration, Size};

/// `tcp.mss` when no one sets it: a 1500-byte MTU's.
pub const DEFAULT_MSS: u64 = 1460;
/// `tcp.mtu` when no one sets it (Ethernet).
pub const DEFAULT_MTU: u32 = 1500;
/// The advertised window when neither `tcp.rwnd`, `tcp.rcvbuf` nor the profile set
/// one: 64 MiB, never limiting.
pub const DEFAULT_RWND: u64 = 64 << 20;

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
        }
    }
}

/// RFC 3390 / RFC 5681 §3.1 initial window: min(4·MSS, max(2·MSS, 4380 B)), in segments.
fn rfc3390_initial_window(mss: u32) -> u32 {
    ((4 * mss).min((2 * mss).max(4380)) / mss).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load;
    use crate::transport::tcp::cc_sample::CcSample;
    use crate::transport::tcp::rto::{RtoRule, RttSample};

    /// The options of the one flow of a scenario with `scenario` at its top and
    /// `tcp` as the flow's table.
    fn options(scenario: &str, tcp: &str) -> Result<TcpOptions, String> {
        let text = format!(
            "duration = \"1s\"\n{scenario}\n[[links]]\nbetween = [\"a\", \"b\"]\n\
             bandwidth = \"10Mbps\"\ndelay = \"5ms\"\n[[flows]]\nfrom = \"a\"\nto = \"b\"\n\
             tcp = {{ {tcp} }}\n"
        );
        let plan = load(&text, None).map_err(|e| e.to_string())?;
        Ok(plan.tcp_options(0).expect("a TCP flow").clone())
    }

    fn ms(n: u64) -> SimTime {
        SimTime::from_millis(n)
    }

    #[test]
    fn linux_is_the_default_profile_with_the_kernels_options() {
        let o = options("", "").unwrap();
        assert_eq!(o.profile, TcpProfile::Linux);
        let on = [
            o.sack,
            o.dsack,
            o.dsack_undo,
            o.timestamps,
            o.frto,
            o.limited_transmit,
            // PRR always (tcp_cwnd_reduction), RACK-TLP by tcp_recovery = 1.
            o.prr,
            o.rack,
        ];
        assert_eq!(on, [true; 8]);
        assert!(!o.eifel && !o.adapt_dupthresh && !o.handshake);
        // TCP_INIT_CWND = 10; no per-ACK limit in slow start.
        assert_eq!((o.initial_window, o.abc_limit), (10, 1 << 20));
        // An ACK for every second segment, after at most TCP_ATO_MIN = HZ/25 = 40 ms.
        assert!(o.delayed_ack);
        assert_eq!((o.delayed_ack_every, o.delayed_ack_timeout), (2, ms(40)));
        // ... with quick ACKs (tcp_incr_quickack, tcp_grow_window's quick |= 1).
        assert!(o.quickack);
        // TCP_TIMEOUT_INIT 1 s, TCP_RTO_MIN HZ/5 = 200 ms on the variance term,
        // TCP_RTO_MAX 120 s.
        let rto = (o.rto.initial, o.rto.min, o.rto.max, o.rto.rule);
        assert_eq!(rto, (ms(1000), ms(200), ms(120_000), RtoRule::Linux));
        // tcp_ack_update_rtt's sample (sequence RTT, SACK RTT, then the echo).
        assert_eq!(o.rto.sample, RttSample::Linux);
        // Timestamps take 12 B of the 1460 B segment: 1448 B of payload.
        assert_eq!((o.advertised_mss(), o.payload_mss()), (1460, 1448));
        assert_eq!(o.receive_window, 64 << 20);
    }

    #[test]
    fn rfc_is_the_standards_track_baseline() {
        let o = options("tcp.profile = \"rfc\"", "").unwrap();
        let off = [
            o.sack,
            o.dsack,
            o.timestamps,
            o.frto,
            o.limited_transmit,
            o.delayed_ack,
        ];
        assert_eq!(off, [false; 6]);
        // RFC 3390: min(4·1460, max(2·1460, 4380)) = min(5840, 4380) = 4380 B, 3
        // segments; with 1000 B segments min(4000, max(2000, 4380)) = 4000 B, 4.
        assert_eq!(o.initial_window, 3);
        let small = options("tcp.profile = \"rfc\"", "mss = \"1000B\"").unwrap();
        assert_eq!(small.initial_window, 4);
        // RFC 5681 §3.1: at most one SMSS per ACK in slow start.
        assert_eq!(o.abc_limit, 1);
        // RFC 6298: initial 1 s, minimum 1 s on the whole RTO, maximum 60 s, G 1 ms.
        let rto = (o.rto.initial, o.rto.min, o.rto.max, o.rto.granularity);
        assert_eq!(rto, (ms(1000), ms(1000), ms(60_000), ms(1)));
        assert_eq!(o.rto.rule, RtoRule::Rfc6298);
        assert_eq!(o.rto.sample, RttSample::Rfc7323);
        assert_eq!(o.ssthresh_on_repeated_timeout, RepeatedTimeoutSpec::Keep);
        assert_eq!(o.payload_mss(), 1460);
    }

    #[test]
    fn ns2_is_ns_2_35s_agents() {
        let o = options("", "profile = \"ns2\"").unwrap();
        // ns-default.tcl: windowInit_ 2, rtxcur_init_ 3 s, minrto_ 200 ms,
        // maxrto_ 60 s, tcpTick_ 10 ms; tcp.cc slowdown: ssthresh 2 on a repeat.
        assert_eq!(o.initial_window, 2);
        let rto = (o.rto.initial, o.rto.min, o.rto.max, o.rto.granularity);
        assert_eq!(rto, (ms(3000), ms(200), ms(60_000), ms(10)));
        assert_eq!(o.rto.rule, RtoRule::Rfc6298);
        assert_eq!(o.ssthresh_on_repeated_timeout, RepeatedTimeoutSpec::Halve);
        assert!(!o.sack && !o.timestamps && !o.delayed_ack && !o.limited_transmit);
        assert_eq!(o.abc_limit, 1);
        // window_ 20 packets: 20 · 1460 = 29 200 B; of 1000 B segments, 20 000 B.
        assert_eq!(o.receive_window, 29_200);
        let small = options("", "profile = \"ns2\", mss = \"1000B\"").unwrap();
        assert_eq!(small.receive_window, 20_000);
        let set = options("", "profile = \"ns2\", rwnd = \"45000B\"").unwrap();
        assert_eq!(set.receive_window, 45_000);
    }

    #[test]
    fn a_field_the_flow_sets_wins_over_its_profile() {
        let o = options("", "initial_window = 4, rto = { min = \"100ms\" }").unwrap();
        assert_eq!(o.initial_window, 4);
        // Only `min` is the flow's; the rest of the RTO is still Linux's.
        let rto = (o.rto.initial, o.rto.min, o.rto.max, o.rto.rule);
        assert_eq!(rto, (ms(1000), ms(100), ms(120_000), RtoRule::Linux));
        // The flow's profile wins over the scenario's, which wins over "linux".
        let ns2 = "tcp.profile = \"ns2\"";
        assert_eq!(options(ns2, "").unwrap().profile, TcpProfile::Ns2);
        let rfc = options(ns2, "profile = \"rfc\"").unwrap();
        assert_eq!((rfc.profile, rfc.initial_window), (TcpProfile::Rfc, 3));
    }

    #[test]
    fn the_controllers_sample_is_the_newest_segments_unless_the_flow_asks_for_2_6_20s() {
        // Every profile keeps the rule cwnd had before the option (Linux after
        // 2.6.20); "oldest" is 2.6.20's `rtt_sample`, asked for by the flow only.
        for profile in ["linux", "rfc", "ns2"] {
            let o = options("", &format!("profile = \"{profile}\"")).unwrap();
            assert_eq!(o.cc_sample, CcSample::Newest, "{profile}");
        }
        let o = options("", "cc_sample = \"oldest\"").unwrap();
        assert_eq!(o.cc_sample, CcSample::Oldest);
        assert_eq!(o.table().cc_sample, Some(CcSample::Oldest));
        // The flow's table is line 10 of the scenario `options` writes.
        assert_eq!(
            options("", "cc_sample = \"first\"").unwrap_err(),
            "flows[0].tcp.cc_sample: unknown variant \"first\", expected \"newest\" or \"oldest\" (line 10)"
        );
    }

    #[test]
    fn turning_sack_off_takes_the_profiles_d_sack_and_rack_with_it() {
        let o = options("", "sack = false").unwrap();
        assert!(!o.sack && !o.dsack && !o.dsack_undo);
        assert!(o.timestamps && o.frto, "the rest of the profile stays");
        // RACK-TLP needs SACK blocks: it goes with them; PRR does not need them.
        assert!(!o.rack && o.prr);
        // So does the profile's value written out (a canonical table, swept).
        let canonical = "sack = false, dsack = true, dsack_undo = true, rack = true";
        let o = options("", canonical).unwrap();
        assert!(!o.sack && !o.dsack && !o.dsack_undo && !o.rack);
        // Asked for in the flow beyond its profile, the dependency is an error.
        let rfc = "tcp.profile = \"rfc\"";
        assert_eq!(
            options(rfc, "sack = false, dsack = true").unwrap_err(),
            "flows[0].tcp.dsack: D-SACK needs tcp.sack = true"
        );
        let e = options("", "timestamps = false, eifel = true").unwrap_err();
        assert!(
            e.starts_with("flows[0].tcp.eifel: Eifel detection needs"),
            "{e}"
        );
        assert_eq!(
            options("tcp.profile = \"best\"", "").unwrap_err(),
            "tcp.profile: unknown variant \"best\", expected one of \"linux\", \"rfc\", \"ns2\" (line 2)"
        );
    }

    #[test]
    fn quick_acks_go_with_the_delayed_acks_they_interrupt() {
        // The profile's quick-ACK mode goes with its delayed ACKs.
        let o = options("", "delayed_ack = false").unwrap();
        assert!(!o.delayed_ack && !o.quickack);
        assert!(!options("", "quickack = false").unwrap().quickack);
        // "rfc" has neither; asked for alone it is an error naming the field.
        let rfc = "tcp.profile = \"rfc\"";
        assert!(!options(rfc, "").unwrap().quickack);
        assert_eq!(
            options(rfc, "quickack = true").unwrap_err(),
            "flows[0].tcp.quickack: quick-ACK mode is how a delayed-ACK receiver stops \
             delaying; set tcp.delayed_ack = true"
        );
        assert!(
            options(rfc, "quickack = true, delayed_ack = true")
                .unwrap()
                .quickack
        );
    }

    #[test]
    fn the_canonical_table_resolves_to_the_same_options_under_any_profile() {
        for profile in [TcpProfile::Linux, TcpProfile::Rfc, TcpProfile::Ns2] {
            let spec = TcpSpec {
                profile: Some(profile),
                mss: Some(Size(1000)),
                ..TcpSpec::default()
            };
            let o = TcpOptions::resolve("flows[0]", &spec, None).unwrap();
            for default in [TcpProfile::Linux, TcpProfile::Rfc, TcpProfile::Ns2] {
                // Even without its profile the table gives the same options.
                let mut table = o.table();
                table.profile = None;
                let again = TcpOptions::resolve("flows[0]", &table, Some(default)).unwrap();
                let again = TcpOptions { profile, ..again }.table();
                assert_eq!(again, o.table(), "{profile:?} under {default:?}");
            }
        }
    }
}

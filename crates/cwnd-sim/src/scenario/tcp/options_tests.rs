//! `options.rs`'s tests: each profile's options, and a flow's fields over them.

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

#[test]
fn ecn_is_accepted_on_linux_off_elsewhere_and_set_by_the_flow() {
    // Linux's net.ipv4.tcp_ecn = 2 (ip-sysctl.rst): accept, never ask; the
    // standards track leaves ECN optional (RFC 3168), ns-2's Agent/TCP has
    // ecn_ = 0.
    for (profile, setting) in [
        ("linux", EcnSetting::Accept),
        ("rfc", EcnSetting::Off),
        ("ns2", EcnSetting::Off),
    ] {
        let o = options("", &format!("profile = \"{profile}\"")).unwrap();
        assert_eq!(o.ecn, setting, "{profile}");
    }
    let o = options("tcp.profile = \"rfc\"", "ecn = \"on\"").unwrap();
    assert_eq!(o.ecn, EcnSetting::On);
    assert_eq!(o.table().ecn, Some(EcnSetting::On));
    // Linux's sysctl values are names too: 0 off, 1 on, 2 accept.
    for (value, setting) in [
        (0, EcnSetting::Off),
        (1, EcnSetting::On),
        (2, EcnSetting::Accept),
    ] {
        let o = options("", &format!("ecn = {value}")).unwrap();
        assert_eq!(o.ecn, setting, "{value}");
    }
    let allowed = "\"off\" (0), \"on\" (1) or \"accept\" (2) (line 10)";
    for (bad, message) in [
        ("3", format!("3 is not one of {allowed}")),
        ("\"yes\"", format!("\"yes\" is not one of {allowed}")),
        (
            "true",
            format!("invalid type: boolean \"true\", expected {allowed}"),
        ),
    ] {
        let e = options("", &format!("ecn = {bad}")).unwrap_err();
        assert_eq!(e, format!("flows[0].tcp.ecn: {message}"));
    }
}

#[test]
fn both_ends_take_the_setting_and_the_controllers_need_for_ecn() {
    let o = options("", "ecn = \"on\"").unwrap();
    for needs_ecn in [false, true] {
        let (sender, receiver) = tcp_agents(&o, Recovery::Sack, needs_ecn, None);
        let expected = EcnConfig {
            setting: EcnSetting::On,
            needs_ecn,
        };
        assert_eq!((sender.ecn, receiver.ecn), (expected, expected));
    }
}

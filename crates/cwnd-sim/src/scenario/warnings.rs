//! What a scenario asks for that can never happen in its run: not errors (the run
//! is well defined), but almost surely not what its author meant, so `cwnd check`,
//! `cwnd run` and the Python API say so. Each warning names the field, the value
//! and why it has no effect.

use super::impairment::{StagePlan, StageWindow};
use super::plan::{Plan, TransportPlan};
use super::spec::TcpProfile;
use super::tcp::TcpPlan;
use crate::packet::FlowId;
use crate::time::SimTime;
use crate::transport::tcp::cc::CcConfig;
use crate::transport::tcp::recovery::Recovery;

impl Plan {
    /// The scenario's silent no-ops, in scenario order.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        let links = self.links.iter().map(|l| &l.stages);
        let air = self.wireless.iter().map(|w| &w.stages);
        let hops = links.enumerate().map(|(i, s)| (format!("links[{i}]"), s));
        let air = air.enumerate().map(|(i, s)| (format!("wireless[{i}]"), s));
        for (at, stages) in hops.chain(air) {
            for (j, stage) in stages.iter().enumerate() {
                self.stage_warnings(&format!("{at}.impairments[{j}]"), stage, &mut out);
            }
        }
        let flows = self.flows.iter().enumerate();
        let flows = flows.filter_map(|(i, f)| match &f.transport {
            TransportPlan::Tcp { tcp, .. } => Some((format!("flows[{i}]"), &**tcp)),
            TransportPlan::Sctp(_) | TransportPlan::Udp { .. } => None,
        });
        let generators = self.generators.iter().enumerate();
        let generators = generators.map(|(g, p)| (format!("generators[{g}]"), &p.tcp));
        for (path, tcp) in flows.chain(generators) {
            tcp_warnings(&path, tcp, &mut out);
        }
        out
    }

    /// A stage that starts at or after the end of the run, or on a segment its
    /// flow's transfer never sends.
    fn stage_warnings(&self, path: &str, stage: &StagePlan, out: &mut Vec<String>) {
        match stage.window {
            StageWindow::Between(start, _) if start >= self.end => out.push(format!(
                "{path}.start: \"{}\" is not before the run's end (\"{}\"): the stage never starts",
                seconds(start),
                seconds(self.end)
            )),
            StageWindow::OnTrigger { flow, segment, .. } => {
                let Some(i) = self.tcp_flow_index(flow) else {
                    return;
                };
                if let Some(segments) = self.transfer_segments(i) {
                    if segment > segments {
                        out.push(format!(
                            "{path}.start_on.segment: {segment} is beyond flow '{}''s transfer \
                             ({segments} segments): the stage never starts",
                            self.flows[i].name
                        ));
                    }
                }
            }
            StageWindow::Always | StageWindow::Between(..) => {}
        }
    }

    /// The index of the TCP flow whose id is `id` (TCP flows are numbered first, in
    /// scenario order: `Scenario::flow_ids`); `None` for another transport's flow.
    fn tcp_flow_index(&self, id: FlowId) -> Option<usize> {
        let tcp = self.flows.iter().enumerate();
        let mut tcp = tcp.filter(|(_, f)| matches!(f.transport, TransportPlan::Tcp { .. }));
        tcp.nth(id as usize).map(|(i, _)| i)
    }

    /// Data segments TCP flow `i`'s transfer sends once each (`None`: bulk, or not TCP).
    fn transfer_segments(&self, i: usize) -> Option<u64> {
        match &self.flows[i].transport {
            TransportPlan::Tcp { tcp, app_bytes, .. } => {
                let mss = u64::from(tcp.options.payload_mss());
                app_bytes.map(|b| b.div_ceil(mss))
            }
            TransportPlan::Sctp(_) | TransportPlan::Udp { .. } => None,
        }
    }
}

/// TCP options that run but are known to misbehave together.
fn tcp_warnings(path: &str, tcp: &TcpPlan, out: &mut Vec<String>) {
    let name = tcp.cc.name();
    if matches!(tcp.cc, CcConfig::Bbr(_)) && !tcp.options.sack {
        // docs/tcp.md, "Use BBR with SACK": measured 0.26 Mb/s of 10 on a clean path.
        out.push(format!(
            "{path}.tcp.sack: false with cc = \"{name}\": a rate-based controller without \
             SACK repairs one loss per round trip, and the cumulative ACK after a timeout \
             gives it a delivery rate far above the path's; Linux runs it with SACK \
             (set tcp.sack = true, or tcp.profile = \"linux\")"
        ));
    }
    if name == "tahoe" && tcp.recovery == Recovery::Sack {
        out.push(format!(
            "{path}.recovery: SACK recovery (RFC 6675) because tcp.sack is on (profile \
             \"{}\"), not Tahoe's go-back-N; set recovery = \"tahoe\" for Tahoe",
            profile_name(tcp.options.profile)
        ));
    }
}

fn profile_name(p: TcpProfile) -> &'static str {
    match p {
        TcpProfile::Linux => "linux",
        TcpProfile::Rfc => "rfc",
        TcpProfile::Ns2 => "ns2",
    }
}

/// A time as a scenario writes it: "90s", "2.5s".
fn seconds(t: SimTime) -> String {
    format!("{}s", t.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use crate::scenario::load;

    fn warnings(flow: &str, stage: &str) -> Vec<String> {
        let toml = format!(
            r#"
            name = "w"
            duration = "60s"
            tcp.profile = "rfc"
            [[links]]
            between = ["a", "b"]
            bandwidth = "10Mbps"
            delay = "10ms"
            impairments = [{stage}]
            [[flows]]
            name = "f"
            from = "a"
            to = "b"
            {flow}
            "#
        );
        load(&toml, None).expect("a valid scenario").warnings()
    }

    #[test]
    fn a_trigger_beyond_a_transfer_is_named() {
        // 3000 segments of 1000 B: segment 3001 is never sent.
        let flow = r#"app = { kind = "transfer", segments = 3000 }"#;
        let stage = |n| {
            format!(
                r#"{{ kind = "outage", start_on = {{ flow = "f", segment = {n} }}, duration = "5s" }}"#
            )
        };
        assert!(warnings(flow, &stage(3000)).is_empty());
        let w = warnings(flow, &stage(3001));
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("links[0].impairments[0].start_on.segment: 3001 is beyond flow 'f''s transfer (3000 segments)"), "{}", w[0]);
        // 2 MB in segments of 1460 B: ⌈2 000 000 / 1460⌉ = 1370 segments.
        let bytes = r#"app = { kind = "transfer", bytes = "2MB" }"#;
        assert!(warnings(bytes, &stage(1370)).is_empty());
        assert!(warnings(bytes, &stage(1371))[0].contains("(1370 segments)"));
        // A bulk flow sends for ever: no warning.
        assert!(warnings("", &stage(1_000_000)).is_empty());
    }

    #[test]
    fn a_trigger_finds_its_flow_by_id_whatever_its_name() {
        // A UDP flow first: the TCP flow is flows[1] but TCP flow id 0, and it has
        // no name of its own (its name is "flow1").
        let toml = r#"
            duration = "60s"
            tcp.profile = "rfc"
            [[links]]
            between = ["a", "b"]
            bandwidth = "10Mbps"
            delay = "10ms"
            impairments = [{ kind = "outage", start_on = { flow = "flow1", segment = 11 }, duration = "1s" }]
            [[flows]]
            transport = "udp"
            from = "a"
            to = "b"
            source = { kind = "cbr", rate = "1Mbps", packet_size = "500B" }
            [[flows]]
            from = "a"
            to = "b"
            app = { kind = "transfer", segments = 10 }
        "#;
        let w = load(toml, None).expect("a valid scenario").warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("links[0].impairments[0].start_on.segment: 11 is beyond flow 'flow1''s transfer (10 segments)"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn a_stage_starting_at_or_after_the_end_is_named() {
        let late = r#"{ kind = "outage", start = "60s", duration = "1s" }"#;
        let w = warnings("", late);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(
                r#"links[0].impairments[0].start: "60s" is not before the run's end ("60s")"#
            ),
            "{}",
            w[0]
        );
        assert!(warnings(
            "",
            r#"{ kind = "outage", start = "59.5s", duration = "5s" }"#
        )
        .is_empty());
    }

    fn tcp_warnings(scenario_profile: &str, flow: &str) -> Vec<String> {
        let toml = format!(
            r#"
            duration = "10s"
            tcp.profile = "{scenario_profile}"
            [[links]]
            between = ["a", "b"]
            bandwidth = "10Mbps"
            delay = "10ms"
            [[flows]]
            from = "a"
            to = "b"
            {flow}
            "#
        );
        load(&toml, None).expect("a valid scenario").warnings()
    }

    #[test]
    fn a_rate_based_controller_without_sack_is_named() {
        let w = tcp_warnings("rfc", r#"cc = "bbr""#);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with(r#"flows[0].tcp.sack: false with cc = "bbr": a rate-based"#),
            "{}",
            w[0]
        );
        // The "linux" profile has SACK; so does a flow that asks for it.
        assert!(tcp_warnings("linux", r#"cc = "bbr""#).is_empty());
        assert!(tcp_warnings("rfc", "cc = \"bbr\"\ntcp = { sack = true }").is_empty());
        let off = "cc = \"bbr\"\ntcp = { sack = false }";
        assert_eq!(tcp_warnings("linux", off).len(), 1);
        // Loss-based controllers repair without SACK as their RFCs say: no warning.
        assert!(tcp_warnings("rfc", r#"cc = "cubic""#).is_empty());
    }

    #[test]
    fn tahoe_recovering_with_sack_is_named() {
        let w = tcp_warnings("linux", r#"cc = "tahoe""#);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with(r#"flows[0].recovery: SACK recovery (RFC 6675) because tcp.sack is on (profile "linux")"#), "{}", w[0]);
        assert!(tcp_warnings("linux", "cc = \"tahoe\"\nrecovery = \"tahoe\"").is_empty());
        assert!(tcp_warnings("rfc", r#"cc = "tahoe""#).is_empty());
    }
}

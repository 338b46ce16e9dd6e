//! A flow's `sctp` table of options, with their checks. Defaults follow RFC 9260
//! §16; docs/scenarios.md lists each field. (A flow's addresses, a node or a list
//! of them for a multihomed endpoint, are the flow's: `spec::Endpoint`.)

use serde::{Deserialize, Serialize};

use crate::scenario::error::ScenarioError;
use crate::scenario::spec::RtoSpec;
use crate::time::SimTime;
use crate::units::{Duration, Size};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RetransmitToSpec {
    Same,
    Alternate,
    #[default]
    AlternateOnTimeout,
}

/// RR-SCTP's three algorithms and the percentile rule's parameters.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RrSpec {
    pub detection: bool,
    pub recovery: bool,
    pub adapt_dupthresh: bool,
    pub pef: f64,
    pub pef_step: f64,
}

impl Default for RrSpec {
    fn default() -> Self {
        RrSpec {
            detection: false,
            recovery: false,
            adapt_dupthresh: false,
            pef: 0.9,
            pef_step: 0.1,
        }
    }
}

/// SCTP options of a flow.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SctpSpec {
    /// Path MTU of every path (IP datagram bytes).
    pub mtu: Size,
    /// User bytes per message; default one full DATA chunk (MTU − 48 B).
    pub message_size: Option<Size>,
    pub streams: u32,
    pub unordered: bool,
    /// Receive buffer (user-data bytes), advertised as a_rwnd.
    pub rwnd: Size,
    pub dupthresh: u32,
    pub max_burst: u32,
    pub abc_limit: u32,
    pub delayed_sack: bool,
    pub delayed_sack_timeout: Duration,
    pub delayed_sack_every: u32,
    pub rto: RtoSpec,
    pub path_max_retrans: u32,
    pub association_max_retrans: u32,
    pub max_init_retransmits: u32,
    pub heartbeat: bool,
    pub heartbeat_interval: Duration,
    pub retransmit_to: RetransmitToSpec,
    pub rr: RrSpec,
}

impl Default for SctpSpec {
    fn default() -> Self {
        SctpSpec {
            mtu: Size(1500),
            message_size: None,
            streams: 1,
            unordered: false,
            rwnd: Size(64 << 20),
            dupthresh: 3,
            max_burst: 4,
            abc_limit: 1,
            delayed_sack: false,
            delayed_sack_timeout: Duration(SimTime::from_millis(200)),
            delayed_sack_every: 2,
            rto: RtoSpec::default(),
            path_max_retrans: 5,
            association_max_retrans: 10,
            max_init_retransmits: 8,
            heartbeat: true,
            heartbeat_interval: Duration(SimTime::from_secs(30)),
            retransmit_to: RetransmitToSpec::default(),
            rr: RrSpec::default(),
        }
    }
}

/// Bytes of headers around a full DATA chunk's user data: IPv4 20 + common 12 + DATA 16.
pub const SCTP_DATA_OVERHEAD: u64 = 48;

impl SctpSpec {
    /// Checks the options of flow `i`; errors name `flows[i].sctp.<field>`.
    pub fn check(&self, i: usize) -> Result<(), ScenarioError> {
        let at = |field: &str| format!("flows[{i}].sctp.{field}");
        if !(68..=65535).contains(&self.mtu.0) {
            return Err(ScenarioError::new(
                at("mtu"),
                format!("{} B is outside 68 B ..= 65535 B (IPv4)", self.mtu.0),
            ));
        }
        let user = self.mtu.0 - SCTP_DATA_OVERHEAD;
        if let Some(m) = self.message_size {
            if m.0 == 0 || m.0 > u32::MAX as u64 {
                return Err(ScenarioError::new(
                    at("message_size"),
                    format!("{} B is outside 1 B ..= 4294967295 B", m.0),
                ));
            }
        }
        if self.streams == 0 || self.streams > 65535 {
            return Err(ScenarioError::new(
                at("streams"),
                format!("{} is outside 1 ..= 65535", self.streams),
            ));
        }
        if self.rwnd.0 < user {
            return Err(ScenarioError::new(
                at("rwnd"),
                format!(
                    "{} B is smaller than one full chunk ({user} B of user data)",
                    self.rwnd.0
                ),
            ));
        }
        if self.dupthresh == 0 {
            return Err(ScenarioError::new(at("dupthresh"), "must be at least 1"));
        }
        if !(1..=2).contains(&self.abc_limit) {
            return Err(ScenarioError::new(
                at("abc_limit"),
                format!(
                    "{} is not allowed; RFC 9260 §7.2.1: L is 1 or 2",
                    self.abc_limit
                ),
            ));
        }
        let t = self.delayed_sack_timeout.0;
        if t == SimTime::ZERO || t > SimTime::from_millis(500) {
            return Err(ScenarioError::new(
                at("delayed_sack_timeout"),
                format!("{t} is outside (0, 500ms]; RFC 9260 §6.2: at most 500 ms"),
            ));
        }
        if self.delayed_sack_every == 0 {
            return Err(ScenarioError::new(
                at("delayed_sack_every"),
                "must be at least 1",
            ));
        }
        crate::scenario::checks::check_rto(&at("rto"), &self.rto.config())?;
        if self.heartbeat && self.heartbeat_interval.0 == SimTime::ZERO {
            return Err(ScenarioError::new(
                at("heartbeat_interval"),
                "must be positive",
            ));
        }
        self.rr.check(&at)
    }
}

impl RrSpec {
    /// The percentile rule's parameters are fractions; recovery and the adaptive
    /// threshold act on what detection finds.
    fn check(&self, at: &dyn Fn(&str) -> String) -> Result<(), ScenarioError> {
        let rr = self;
        for (field, v) in [("rr.pef", rr.pef), ("rr.pef_step", rr.pef_step)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ScenarioError::new(
                    at(field),
                    format!("{v} is outside [0, 1]"),
                ));
            }
        }
        for (field, on) in [
            ("rr.recovery", rr.recovery),
            ("rr.adapt_dupthresh", rr.adapt_dupthresh),
        ] {
            if on && !rr.detection {
                return Err(ScenarioError::new(
                    at(field),
                    "acts on what detection finds; set sctp.rr.detection = true",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    const TWO_PATHS: &str = r#"
        duration = "10s"
        [[links]]
        between = ["a0", "b0"]
        bandwidth = "10Mbps"
        delay = "5ms"
        [[links]]
        between = ["a1", "b1"]
        bandwidth = "10Mbps"
        delay = "5ms"
        [[flows]]
        from = ["a0", "a1"]
        to = ["b0", "b1"]
        transport = "sctp"
    "#;

    fn with(extra: &str) -> String {
        TWO_PATHS.replace(
            "transport = \"sctp\"",
            &format!("transport = \"sctp\"\n{extra}"),
        )
    }

    fn error_of(toml: &str) -> String {
        Scenario::from_toml(toml).unwrap_err().to_string()
    }

    #[test]
    fn a_multihomed_association_is_accepted_and_round_trips_through_json() {
        let s = Scenario::from_toml(TWO_PATHS).unwrap();
        assert_eq!(s.flows[0].to.addresses(), ["b0", "b1"]);
        let json = serde_json::to_string(&s).unwrap();
        let back = Scenario::from_json(&json).unwrap();
        assert_eq!(back.flows[0].from, s.flows[0].from);
        assert!(json.contains(r#""to":["b0","b1"]"#), "{json}");
    }

    #[test]
    fn address_lists_are_for_sctp_and_must_name_distinct_known_nodes() {
        let tcp = TWO_PATHS.replace("transport = \"sctp\"", "");
        assert_eq!(
            error_of(&tcp),
            "flows[0].from: a TCP flow has one address; lists of addresses are for SCTP (transport = \"sctp\")"
        );
        assert_eq!(
            error_of(&TWO_PATHS.replace("[\"b0\", \"b1\"]", "[\"b0\", \"b9\"]")),
            "flows[0].to[1]: \"b9\" is not a node; known nodes: a0, b0, a1, b1"
        );
        assert_eq!(
            error_of(&TWO_PATHS.replace("[\"b0\", \"b1\"]", "[\"b0\", \"b0\"]")),
            "flows[0].to[1]: \"b0\" is listed twice"
        );
        assert_eq!(
            error_of(&TWO_PATHS.replace("[\"b0\", \"b1\"]", "[\"b0\", \"a1\"]")),
            "flows[0].to[1]: \"a1\" is also the source; a flow joins two different nodes"
        );
        assert_eq!(
            error_of(&TWO_PATHS.replace("[\"b0\", \"b1\"]", "[]")),
            "flows[0].to: an empty list; give at least one node"
        );
    }

    #[test]
    fn bad_sctp_fields_name_the_field_the_value_and_what_is_allowed() {
        let cases = [
            ("sctp = { mtu = \"40B\" }", "flows[0].sctp.mtu: 40 B is outside 68 B ..= 65535 B (IPv4)"),
            ("sctp = { streams = 0 }", "flows[0].sctp.streams: 0 is outside 1 ..= 65535"),
            (
                "sctp = { rwnd = \"1000B\" }",
                "flows[0].sctp.rwnd: 1000 B is smaller than one full chunk (1452 B of user data)",
            ),
            ("sctp = { dupthresh = 0 }", "flows[0].sctp.dupthresh: must be at least 1"),
            (
                "sctp = { abc_limit = 3 }",
                "flows[0].sctp.abc_limit: 3 is not allowed; RFC 9260 §7.2.1: L is 1 or 2",
            ),
            (
                "sctp = { delayed_sack_timeout = \"600ms\" }",
                "flows[0].sctp.delayed_sack_timeout: 0.600000000s is outside (0, 500ms]; RFC 9260 §6.2: at most 500 ms",
            ),
            ("sctp = { rto = { initial = \"0s\" } }", "flows[0].sctp.rto.initial: must be positive"),
            ("sctp = { rr = { pef = 1.5, detection = true } }", "flows[0].sctp.rr.pef: 1.5 is outside [0, 1]"),
            (
                "sctp = { rr = { recovery = true } }",
                "flows[0].sctp.rr.recovery: acts on what detection finds; set sctp.rr.detection = true",
            ),
            (
                "sctp = { retransmit_to = \"elsewhere\" }",
                "flows[0].sctp.retransmit_to: unknown variant \"elsewhere\", expected one of \"same\", \"alternate\", \"alternate_on_timeout\" (line 15)",
            ),
            ("cc = \"cubic\"", "flows[0].cc: SCTP has its own congestion control (RFC 9260 §7.2); remove `cc`"),
            ("recovery = \"sack\"", "flows[0].recovery: SCTP recovers losses as RFC 9260 says; remove `recovery`"),
            ("tcp = { sack = true }", "flows[0].tcp: TCP options on an SCTP flow; SCTP's go in the `sctp` table"),
        ];
        for (extra, expected) in cases {
            assert_eq!(error_of(&with(extra)), expected, "{extra}");
        }
    }

    #[test]
    fn an_unreachable_destination_is_refused_when_loaded() {
        let text = TWO_PATHS
            .replace(
                "duration = \"10s\"",
                "duration = \"10s\"\nnodes = [{ name = \"b2\" }]",
            )
            .replace("[\"b0\", \"b1\"]", "[\"b0\", \"b2\"]");
        let e = crate::scenario::load(&text, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flows[0].to[1]: no route both ways between \"b2\" and any address of the sender; check links and routes"
        );
    }

    #[test]
    fn sctp_options_on_a_tcp_flow_are_refused() {
        let tcp = TWO_PATHS
            .replace("[\"a0\", \"a1\"]", "\"a0\"")
            .replace("[\"b0\", \"b1\"]", "\"b0\"")
            .replace("transport = \"sctp\"", "sctp = { streams = 2 }");
        assert_eq!(
            error_of(&tcp),
            "flows[0].sctp: SCTP options on a TCP flow; set transport = \"sctp\" or remove them"
        );
    }
}

//! A UDP flow's `source` (`{ kind = "cbr" | "exponential" | "pareto", ... }`,
//! ns-2's traffic generators, `transport::udp`), with its checks;
//! docs/scenarios.md lists each field.

use serde::{Deserialize, Serialize};

use crate::packet::UDP_IP_HEADER;
use crate::scenario::error::ScenarioError;
use crate::time::SimTime;
use crate::transport::udp::on_off::OnOffLaw;
use crate::units::{Duration, Rate, Size};

/// A UDP flow's traffic source. `packet_size` is the whole IP datagram (ns-2's
/// `packetSize_` is the size the links carry); `rate` is the rate while sending
/// (for on/off sources the peak rate, ns-2's `rate_`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SourceSpec {
    Cbr {
        rate: Rate,
        packet_size: Size,
        /// ns-2's `random_`: each gap is the interval × (1 + U(−½, ½)).
        #[serde(default)]
        jitter: bool,
    },
    Exponential {
        burst_time: Duration,
        idle_time: Duration,
        rate: Rate,
        packet_size: Size,
    },
    Pareto {
        burst_time: Duration,
        idle_time: Duration,
        rate: Rate,
        packet_size: Size,
        shape: f64,
    },
}

/// A checked source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SourcePlan {
    pub kind: SourceKind,
    /// IP datagram bytes.
    pub packet_size: u32,
    pub rate_bps: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SourceKind {
    Cbr {
        jitter: bool,
    },
    OnOff {
        law: OnOffLaw,
        burst_time: SimTime,
        idle_time: SimTime,
    },
}

impl SourcePlan {
    /// The name shown in results: "cbr", "exponential" or "pareto".
    pub fn name(&self) -> &'static str {
        match self.kind {
            SourceKind::Cbr { .. } => "cbr",
            SourceKind::OnOff {
                law: OnOffLaw::Exponential,
                ..
            } => "exponential",
            SourceKind::OnOff {
                law: OnOffLaw::Pareto { .. },
                ..
            } => "pareto",
        }
    }

    /// The mean rate the source offers, bits per second: the rate, times
    /// burst / (burst + idle) for an on/off source.
    pub fn mean_rate_bps(&self) -> f64 {
        match self.kind {
            SourceKind::Cbr { .. } => self.rate_bps as f64,
            SourceKind::OnOff {
                burst_time,
                idle_time,
                ..
            } => {
                let (on, off) = (burst_time.as_secs_f64(), idle_time.as_secs_f64());
                self.rate_bps as f64 * on / (on + off)
            }
        }
    }
}

impl SourceSpec {
    /// Checks the source of flow `i`; errors name `flows[i].source.<field>`.
    pub fn check(&self, i: usize) -> Result<SourcePlan, ScenarioError> {
        let at = |field: &str| format!("flows[{i}].source.{field}");
        let (rate, size) = match self {
            SourceSpec::Cbr {
                rate, packet_size, ..
            }
            | SourceSpec::Exponential {
                rate, packet_size, ..
            }
            | SourceSpec::Pareto {
                rate, packet_size, ..
            } => (rate.0, packet_size.0),
        };
        if rate == 0 {
            return Err(ScenarioError::new(
                at("rate"),
                "must be positive, e.g. \"2Mbps\"",
            ));
        }
        if !(UDP_IP_HEADER as u64..=65535).contains(&size) {
            return Err(ScenarioError::new(
                at("packet_size"),
                format!(
                    "{size} B is outside {UDP_IP_HEADER} B ..= 65535 B (an IPv4 datagram with its IP and UDP headers)"
                ),
            ));
        }
        let on_off = |law, burst: &Duration, idle: &Duration| {
            if idle.0 == SimTime::ZERO {
                return Err(ScenarioError::new(
                    at("idle_time"),
                    "must be positive; for a source that never pauses use kind = \"cbr\"",
                ));
            }
            Ok(SourceKind::OnOff {
                law,
                burst_time: burst.0,
                idle_time: idle.0,
            })
        };
        let kind = match self {
            SourceSpec::Cbr { jitter, .. } => SourceKind::Cbr { jitter: *jitter },
            SourceSpec::Exponential {
                burst_time,
                idle_time,
                ..
            } => on_off(OnOffLaw::Exponential, burst_time, idle_time)?,
            SourceSpec::Pareto {
                burst_time,
                idle_time,
                shape,
                ..
            } => {
                if !(shape.is_finite() && *shape > 1.0) {
                    return Err(ScenarioError::new(
                        at("shape"),
                        format!("{shape} is not above 1; a Pareto law with shape ≤ 1 has no mean (ns-2 uses 1.5)"),
                    ));
                }
                on_off(OnOffLaw::Pareto { shape: *shape }, burst_time, idle_time)?
            }
        };
        Ok(SourcePlan {
            kind,
            packet_size: size as u32,
            rate_bps: rate,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;

    const UDP: &str = r#"
        duration = "10s"
        [[links]]
        between = ["a", "b"]
        bandwidth = "10Mbps"
        delay = "5ms"
        [[flows]]
        from = "a"
        to = "b"
        transport = "udp"
        source = { kind = "cbr", rate = "2Mbps", packet_size = "500B" }
    "#;

    fn with_source(source: &str) -> String {
        UDP.replace(
            "source = { kind = \"cbr\", rate = \"2Mbps\", packet_size = \"500B\" }",
            source,
        )
    }

    fn error_of(toml: &str) -> String {
        Scenario::from_toml(toml).unwrap_err().to_string()
    }

    #[test]
    fn the_three_sources_are_accepted_and_round_trip_through_json() {
        for source in [
            "source = { kind = \"cbr\", rate = \"2Mbps\", packet_size = \"500B\", jitter = true }",
            "source = { kind = \"exponential\", burst_time = \"500ms\", idle_time = \"500ms\", rate = \"2Mbps\", packet_size = \"500B\" }",
            "source = { kind = \"pareto\", burst_time = \"500ms\", idle_time = \"500ms\", rate = \"2Mbps\", packet_size = \"500B\", shape = 1.5 }",
        ] {
            let s = Scenario::from_toml(&with_source(source)).unwrap();
            let json = serde_json::to_string(&s).unwrap();
            let back = Scenario::from_json(&json).unwrap();
            assert_eq!(back.flows[0].source, s.flows[0].source, "{source}");
        }
    }

    #[test]
    fn bad_sources_name_the_field_the_value_and_what_is_allowed() {
        let cases = [
            (
                "source = { kind = \"cbr\", rate = \"0bps\", packet_size = \"500B\" }",
                "flows[0].source.rate: must be positive, e.g. \"2Mbps\"",
            ),
            (
                "source = { kind = \"cbr\", rate = \"2Mbps\", packet_size = \"20B\" }",
                "flows[0].source.packet_size: 20 B is outside 28 B ..= 65535 B (an IPv4 datagram with its IP and UDP headers)",
            ),
            (
                "source = { kind = \"exponential\", burst_time = \"1s\", idle_time = \"0s\", rate = \"2Mbps\", packet_size = \"500B\" }",
                "flows[0].source.idle_time: must be positive; for a source that never pauses use kind = \"cbr\"",
            ),
            (
                "source = { kind = \"pareto\", burst_time = \"1s\", idle_time = \"1s\", rate = \"2Mbps\", packet_size = \"500B\", shape = 1.0 }",
                "flows[0].source.shape: 1 is not above 1; a Pareto law with shape ≤ 1 has no mean (ns-2 uses 1.5)",
            ),
            ("", "flows[0].source: a UDP flow needs a source, e.g. source = { kind = \"cbr\", rate = \"2Mbps\", packet_size = \"500B\" }"),
        ];
        for (source, expected) in cases {
            assert_eq!(error_of(&with_source(source)), expected, "{source}");
        }
        let unknown = with_source("source = { kind = \"poisson\", rate = \"2Mbps\" }");
        assert_eq!(
            error_of(&unknown),
            "flows[0].source.kind: unknown variant \"poisson\", expected one of \"cbr\", \"exponential\", \"pareto\" (line 11)"
        );
    }

    #[test]
    fn tcp_options_on_a_udp_flow_and_a_source_on_a_tcp_flow_are_refused() {
        assert_eq!(
            error_of(&UDP.replace("transport = \"udp\"", "transport = \"udp\"\ncc = \"cubic\"")),
            "flows[0].cc: UDP has no congestion control; remove `cc`"
        );
        assert_eq!(
            error_of(&UDP.replace(
                "transport = \"udp\"",
                "transport = \"udp\"\ntcp = { sack = true }"
            )),
            "flows[0].tcp: TCP options on a UDP flow; remove them"
        );
        assert_eq!(
            error_of(&UDP.replace(
                "transport = \"udp\"",
                "transport = \"udp\"\napp = { kind = \"transfer\", bytes = \"1MB\" }"
            )),
            "flows[0].app: a UDP flow sends what its `source` says; remove `app`"
        );
        assert_eq!(
            error_of(&UDP.replace("transport = \"udp\"", "")),
            "flows[0].source: a source is for UDP flows; set transport = \"udp\" or remove it"
        );
        assert_eq!(
            error_of(&UDP.replace("to = \"b\"", "to = [\"b\", \"a\"]")),
            "flows[0].to: a UDP flow has one address; lists of addresses are for SCTP (transport = \"sctp\")"
        );
    }
}

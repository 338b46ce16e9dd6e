//! The `[[flows]]` entries checked: names, times, the application and the ends
//! (`from`, `to`: a node, or a list of them for a multihomed SCTP endpoint) of
//! every flow, options of another transport refused, then each transport's own
//! check (`tcp::check`, `sctp::check`, `udp::check`) into the flow's checked part.
//! Routes are checked with the topology (`topology.rs`).

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::budget::FlowKind;
use super::cc_spec::CcSpec;
use super::checks::{known_node, NodeIds};
use super::error::ScenarioError;
use super::sctp::{self, SctpConfigs, SctpSpec};
use super::spec::{AppSpec, FlowSpec, Scenario};
use super::tcp::{self, TcpPlan, TcpSpec};
use super::udp::{self, SourcePlan};
use crate::packet::FlowId;
use crate::time::SimTime;

/// The address(es) of one end of a flow: `"h1"` or `["s1_0", "s1_1"]`. Each address
/// is a node; for SCTP the first of `to` is the primary destination.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint(pub Vec<String>);

impl Endpoint {
    pub fn one(name: &str) -> Self {
        Endpoint(vec![name.to_string()])
    }

    /// The first address (the only one of a TCP endpoint).
    pub fn primary(&self) -> &str {
        self.0.first().map_or("", String::as_str)
    }

    pub fn addresses(&self) -> &[String] {
        &self.0
    }
}

struct EndpointVisitor;

impl<'de> Visitor<'de> for EndpointVisitor {
    type Value = Endpoint;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a node name, or a list of node names for a multihomed SCTP endpoint"
        )
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Endpoint, E> {
        Ok(Endpoint::one(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Endpoint, A::Error> {
        let mut names = Vec::new();
        while let Some(name) = seq.next_element::<String>()? {
            names.push(name);
        }
        Ok(Endpoint(names))
    }
}

impl<'de> Deserialize<'de> for Endpoint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EndpointVisitor)
    }
}

impl Serialize for Endpoint {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => s.serialize_str(one),
            many => many.serialize(s),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TransportSpec {
    #[default]
    Tcp,
    Sctp,
    Udp,
}

/// A flow, checked: its name, when its application runs (its stop never after the
/// end of the run) and its transport's checked parts; its route is checked, and
/// its nodes resolved, with the topology (`plan.rs`).
pub(super) struct CheckedFlow {
    pub name: String,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub transport: CheckedTransport,
}

/// A flow's checked transport: TCP's controller, loss recovery and the bytes its
/// application sends, SCTP's agents, or UDP's source.
pub(super) enum CheckedTransport {
    Tcp {
        tcp: TcpPlan,
        app_bytes: Option<u64>,
    },
    Sctp(SctpConfigs),
    Udp(SourcePlan),
}

impl CheckedTransport {
    /// What the memory estimate needs of it (`budget/traffic.rs`).
    pub(super) fn kind(&self) -> FlowKind<'_> {
        match self {
            CheckedTransport::Tcp { tcp, app_bytes } => FlowKind::Tcp {
                options: &tcp.options,
                cc: &tcp.cc,
                app_bytes: *app_bytes,
            },
            CheckedTransport::Sctp(_) => FlowKind::Sctp,
            CheckedTransport::Udp(source) => FlowKind::Udp(source),
        }
    }
}

impl Scenario {
    /// The name of flow `i`: its own, or `flow<i>`.
    pub fn flow_name(&self, i: usize) -> String {
        self.flows[i]
            .name
            .clone()
            .unwrap_or_else(|| format!("flow{i}"))
    }

    /// Flow ids in scenario order: TCP flows are numbered first, in order, then
    /// SCTP associations, then UDP flows (the world keeps them in three tables).
    pub fn flow_ids(&self) -> Vec<FlowId> {
        let count = |t| self.flows.iter().filter(|f| f.transport == t).count();
        let (tcp, sctp) = (count(TransportSpec::Tcp), count(TransportSpec::Sctp));
        let (mut next_tcp, mut next_sctp, mut next_udp) = (0, tcp, tcp + sctp);
        self.flows
            .iter()
            .map(|f| {
                let next = match f.transport {
                    TransportSpec::Tcp => &mut next_tcp,
                    TransportSpec::Sctp => &mut next_sctp,
                    TransportSpec::Udp => &mut next_udp,
                };
                *next += 1;
                (*next - 1) as FlowId
            })
            .collect()
    }

    /// Checks every flow into its checked part, in order.
    pub(super) fn check_flows(&self, nodes: &NodeIds) -> Result<Vec<CheckedFlow>, ScenarioError> {
        if self.flows.is_empty() && self.generators.is_empty() {
            return Err(ScenarioError::new(
                "flows",
                "a scenario needs at least one flow or generator",
            ));
        }
        let mut names = HashMap::new();
        let mut checked = Vec::with_capacity(self.flows.len());
        for (i, f) in self.flows.iter().enumerate() {
            self.check_endpoints(i, nodes)?;
            if let Some(prev) = names.insert(self.flow_name(i), i) {
                return Err(ScenarioError::new(
                    format!("flows[{i}].name"),
                    format!(
                        "\"{}\" is also the name of flows[{prev}]; flow names must be unique",
                        self.flow_name(i)
                    ),
                ));
            }
            self.check_times_and_app(i)?;
            checked.push(CheckedFlow {
                name: self.flow_name(i),
                start: f.start.0,
                stop: f.stop.map(|s| s.0.min(self.duration.0)),
                transport: self.check_transport(i)?,
            });
        }
        Ok(checked)
    }

    /// Flow `i` starts before the end of the run and stops after it starts; a
    /// transfer has exactly one positive size.
    fn check_times_and_app(&self, i: usize) -> Result<(), ScenarioError> {
        let f = &self.flows[i];
        let at = |field: &str| format!("flows[{i}].{field}");
        if f.start.0 >= self.duration.0 {
            return Err(ScenarioError::new(
                at("start"),
                format!(
                    "{} is not before the end of the run ({})",
                    f.start.0, self.duration.0
                ),
            ));
        }
        if let Some(stop) = f.stop {
            if stop.0 <= f.start.0 {
                return Err(ScenarioError::new(
                    at("stop"),
                    format!("{} is not after the flow's start ({})", stop.0, f.start.0),
                ));
            }
        }
        if let AppSpec::Transfer { bytes, segments } = &f.app {
            match (bytes, segments) {
                (Some(b), None) if b.0 > 0 => {}
                (None, Some(s)) if *s > 0 => {}
                (Some(_), None) => {
                    return Err(ScenarioError::new(at("app.bytes"), "must be positive"))
                }
                (None, Some(_)) => {
                    return Err(ScenarioError::new(at("app.segments"), "must be positive"))
                }
                _ => {
                    return Err(ScenarioError::new(
                        at("app"),
                        "a transfer needs exactly one of `bytes` or `segments`",
                    ))
                }
            }
        }
        Ok(())
    }

    /// Flow `i`'s transport, checked by its topic after the options of the other
    /// transports are refused.
    fn check_transport(&self, i: usize) -> Result<CheckedTransport, ScenarioError> {
        let f = &self.flows[i];
        let path = format!("flows[{i}]");
        refuse_other_transports(f, &path)?;
        Ok(match f.transport {
            TransportSpec::Sctp => CheckedTransport::Sctp(sctp::check(self, i)?),
            TransportSpec::Tcp => {
                let tcp = tcp::check(&path, &f.cc, f.recovery, &f.tcp, self.tcp.profile)?;
                let app_bytes = f.app.bytes(u64::from(tcp.options.payload_mss()));
                CheckedTransport::Tcp { tcp, app_bytes }
            }
            TransportSpec::Udp => CheckedTransport::Udp(udp::check(f.source.as_ref(), i)?),
        })
    }

    /// The addresses of flow `i`: known nodes, none twice, the two ends apart, one
    /// each for TCP.
    fn check_endpoints(&self, i: usize, nodes: &NodeIds) -> Result<(), ScenarioError> {
        let f = &self.flows[i];
        let at = |field: &str| format!("flows[{i}].{field}");
        for (field, end) in [("from", &f.from), ("to", &f.to)] {
            let names = end.addresses();
            if names.is_empty() {
                return Err(ScenarioError::new(
                    at(field),
                    "an empty list; give at least one node",
                ));
            }
            let single = match f.transport {
                TransportSpec::Tcp => Some("TCP"),
                TransportSpec::Udp => Some("UDP"),
                TransportSpec::Sctp => None,
            };
            if let Some(name) = single.filter(|_| names.len() > 1) {
                return Err(ScenarioError::new(
                    at(field),
                    format!("a {name} flow has one address; lists of addresses are for SCTP (transport = \"sctp\")"),
                ));
            }
            let mut seen = HashSet::with_capacity(names.len());
            for (k, name) in names.iter().enumerate() {
                let path = address_path(&at(field), names.len(), k);
                known_node(nodes, &path, name)?;
                if !seen.insert(name) {
                    return Err(ScenarioError::new(
                        path,
                        format!("\"{name}\" is listed twice"),
                    ));
                }
            }
        }
        for (k, name) in f.to.addresses().iter().enumerate() {
            if f.from.addresses().contains(name) {
                return Err(ScenarioError::new(
                    address_path(&at("to"), f.to.addresses().len(), k),
                    format!("\"{name}\" is also the source; a flow joins two different nodes"),
                ));
            }
        }
        Ok(())
    }
}

/// The first option of another transport set on flow `f` (at `path`), refused.
/// Each arm compares only what its transport refuses: a scenario of 100 000 TCP
/// flows builds no default table it does not need.
fn refuse_other_transports(f: &FlowSpec, path: &str) -> Result<(), ScenarioError> {
    if f.transport != TransportSpec::Udp && f.source.is_some() {
        return Err(refused(
            path,
            "source",
            "a source is for UDP flows; set transport = \"udp\" or remove it",
        ));
    }
    match f.transport {
        TransportSpec::Sctp => refuse(
            path,
            [
                (
                    "cc",
                    f.cc != CcSpec::default(),
                    "SCTP has its own congestion control (RFC 9260 §7.2); remove `cc`",
                ),
                (
                    "recovery",
                    f.recovery.is_some(),
                    "SCTP recovers losses as RFC 9260 says; remove `recovery`",
                ),
                (
                    "tcp",
                    f.tcp != TcpSpec::default(),
                    "TCP options on an SCTP flow; SCTP's go in the `sctp` table",
                ),
            ],
        ),
        TransportSpec::Tcp => refuse(
            path,
            [(
                "sctp",
                f.sctp != SctpSpec::default(),
                "SCTP options on a TCP flow; set transport = \"sctp\" or remove them",
            )],
        ),
        TransportSpec::Udp => refuse(
            path,
            [
                (
                    "cc",
                    f.cc != CcSpec::default(),
                    "UDP has no congestion control; remove `cc`",
                ),
                (
                    "recovery",
                    f.recovery.is_some(),
                    "UDP recovers no loss; remove `recovery`",
                ),
                (
                    "tcp",
                    f.tcp != TcpSpec::default(),
                    "TCP options on a UDP flow; remove them",
                ),
                (
                    "sctp",
                    f.sctp != SctpSpec::default(),
                    "SCTP options on a UDP flow; remove them",
                ),
                (
                    "app",
                    f.app != AppSpec::default(),
                    "a UDP flow sends what its `source` says; remove `app`",
                ),
            ],
        ),
    }
}

/// The error for the first of `fields` (field, set, why) that is set: an option
/// of another transport on flow `path`.
fn refuse<const N: usize>(
    path: &str,
    fields: [(&str, bool, &str); N],
) -> Result<(), ScenarioError> {
    match fields.into_iter().find(|&(_, set, _)| set) {
        Some((field, _, why)) => Err(refused(path, field, why)),
        None => Ok(()),
    }
}

fn refused(path: &str, field: &str, why: &str) -> ScenarioError {
    ScenarioError::new(format!("{path}.{field}"), why)
}

/// `flows[0].to` for a single address, `flows[0].to[1]` in a list.
fn address_path(field: &str, count: usize, k: usize) -> String {
    if count == 1 {
        field.to_string()
    } else {
        format!("{field}[{k}]")
    }
}

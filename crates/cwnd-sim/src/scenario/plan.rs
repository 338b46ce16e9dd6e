//! A scenario checked once into a typed plan: what `build` needs and nothing it
//! must check again, so that `build(&Plan, seed)` cannot fail.
//!
//! A plan is made by `load` (text → spec → files read → `Plan::new`). It keeps its
//! canonical spec beside the typed parts: the spec with every default written out
//! and the contents of the files it named (a loss trace's steps) in place of their
//! names. That spec is the plan's serialized form (`to_json`): loading it again
//! gives the same plan without reading any file, so a plan can be hashed (the
//! sweep cache key: contents, not paths) and shipped to workers that have no files.

use std::collections::HashMap;

use super::impairment_spec::StageSpec;
use super::link_plan::LinkPlan;
use super::sctp_plan::SctpPlan;
use super::spec::{Direction, Scenario};
use super::tcp_options::TcpOptions;
use super::trace_plan::TracePlan;
use super::udp_spec::SourcePlan;
use super::validate::{CheckedFlow, ScenarioError, TcpPlan};
use crate::net::impair::AppliesTo;
use crate::net::medium::Hop;
use crate::net::routing::RoutingTable;
use crate::net::wifi::channel::ChannelConfig;
use crate::net::wimax::cell::CellParams;
use crate::packet::{FlowId, NodeId};
use crate::time::SimTime;

/// A checked scenario, ready to build with any seed.
#[derive(Debug)]
pub struct Plan {
    /// The canonical spec (defaults written out, file contents in place of names).
    spec: Scenario,
    /// Per link, its ends, parameters, queue discipline and stages.
    pub(super) links: Vec<LinkPlan>,
    pub(super) wireless: Vec<WirelessPlan>,
    pub(super) cells: Vec<CellPlan>,
    /// Per flow, in scenario order.
    pub(super) flows: Vec<FlowPlan>,
    /// Per traffic generator, in scenario order.
    pub(super) generators: Vec<GeneratorPlan>,
    pub(super) topology: Topology,
    pub(super) trace: TracePlan,
}

/// A traffic generator's connections: their controller and recovery, their two
/// nodes (routes checked both ways), and the capacity its load is a fraction of.
#[derive(Clone, Debug)]
pub struct GeneratorPlan {
    pub tcp: TcpPlan,
    pub src: NodeId,
    pub dst: NodeId,
    pub capacity_bps: f64,
}

/// One impairment stage of a link or a wireless channel, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct StagePlan {
    /// The link directions it applies to (`Both` on the air, where there are none).
    pub direction: Direction,
    pub applies_to: AppliesTo,
    pub window: StageWindow,
    pub stage: StageSpec<FlowId>,
}

/// When a stage is active.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageWindow {
    Always,
    /// From the first time to the second (`SimTime::MAX`: to the end of the run).
    Between(SimTime, SimTime),
    /// For `duration` from when flow `flow` first sends data segment `segment`.
    OnTrigger {
        flow: FlowId,
        segment: u64,
        duration: SimTime,
    },
}

/// A wireless channel: its name, stations, configuration (PHY with its rates
/// and preamble, queue, frame errors, RTS threshold, MSDU lifetime) and stages.
#[derive(Clone, Debug, PartialEq)]
pub struct WirelessPlan {
    pub name: String,
    pub stations: Vec<NodeId>,
    pub config: ChannelConfig,
    pub stages: Vec<StagePlan>,
}

/// An 802.16 cell: its name, base station, subscriber stations and parameters
/// (`wimax_spec.rs`).
#[derive(Clone, Debug)]
pub struct CellPlan {
    pub name: String,
    pub base_station: NodeId,
    pub subscribers: Vec<NodeId>,
    pub params: CellParams,
}

/// A flow's transport-specific plan.
#[derive(Clone, Debug)]
pub enum FlowPlan {
    Tcp {
        tcp: TcpPlan,
        src: NodeId,
        dst: NodeId,
    },
    /// Boxed: it is much larger than the others.
    Sctp(Box<SctpPlan>),
    Udp {
        source: SourcePlan,
        src: NodeId,
        dst: NodeId,
    },
}

/// Nodes, hops and routes: the same for every seed, so computed (and checked)
/// once.
#[derive(Clone, Debug)]
pub struct Topology {
    pub node_names: Vec<String>,
    /// Node ids by name (every name the scenario uses: the checks saw to it).
    pub ids: HashMap<String, NodeId>,
    /// Route edges (from, to, hop index): every link direction (link `i` gives `2i`
    /// forward and `2i + 1` reverse), then every ordered pair of stations of each
    /// wireless channel, then each 802.16 subscriber to its base station and back.
    /// A hop names its medium by its index in the world's media table, which
    /// `build` fills in the same order: link directions, channels, cells.
    pub edges: Vec<(NodeId, NodeId, u32)>,
    pub hops: Vec<Hop>,
    pub routes: RoutingTable,
}

impl Plan {
    /// Checks `spec` (whose files are already read: `load`) into a plan.
    pub(super) fn new(mut spec: Scenario) -> Result<Plan, ScenarioError> {
        let checked = spec.check()?;
        let topology = Topology::new(&spec)?;
        let mut flows = Vec::with_capacity(spec.flows.len());
        for (i, transport) in checked.flows.into_iter().enumerate() {
            flows.push(topology.flow(&spec, i, transport)?);
        }
        let mut generators = Vec::with_capacity(spec.generators.len());
        for (g, tcp) in checked.generators.into_iter().enumerate() {
            let s = &spec.generators[g];
            let (src, dst) = (topology.id(&s.from), topology.id(&s.to));
            let path = format!("generators[{g}]");
            topology.check_route(&path, src, dst, "data")?;
            topology.check_route(&path, dst, src, "ACKs")?;
            let link = (0..spec.links.len())
                .find(|&i| spec.link_name(i) == s.link)
                .expect("checked: the link exists");
            generators.push(GeneratorPlan {
                tcp,
                src,
                dst,
                capacity_bps: spec.links[link].bandwidth.0 as f64,
            });
        }
        spec.write_tcp_options(&flows, &generators);
        Ok(Plan {
            generators,
            links: checked.links,
            trace: checked.trace,
            wireless: checked.wireless,
            cells: checked.cells,
            flows,
            topology,
            spec,
        })
    }

    /// The resolved TCP options of flow `i` (`None`: not a TCP flow).
    pub fn tcp_options(&self, i: usize) -> Option<&TcpOptions> {
        match self.flows.get(i)? {
            FlowPlan::Tcp { tcp, .. } => Some(&tcp.options),
            FlowPlan::Sctp { .. } | FlowPlan::Udp { .. } => None,
        }
    }

    /// The canonical spec the plan was checked from.
    pub fn spec(&self) -> &Scenario {
        &self.spec
    }

    /// The plan in canonical JSON: its spec, defaults written out, tables' keys
    /// sorted, durations in nanoseconds, file contents in place of file names.
    /// `load` turns it back into the same plan, reading no file.
    pub fn to_json(&self) -> Result<String, ScenarioError> {
        serde_json::to_string(&self.spec)
            .map_err(|e| ScenarioError::new("", format!("the plan cannot be written as JSON: {e}")))
    }
}

impl Scenario {
    /// Writes every TCP flow's and generator's resolved options into its `tcp`
    /// table, and the default profile into the scenario's: the canonical spec
    /// then loads into the same options whatever the default profile is.
    fn write_tcp_options(&mut self, flows: &[FlowPlan], generators: &[GeneratorPlan]) {
        self.tcp.profile = Some(self.tcp.profile.unwrap_or_default());
        for (f, plan) in self.flows.iter_mut().zip(flows) {
            if let FlowPlan::Tcp { tcp, .. } = plan {
                f.tcp = tcp.options.table();
            }
        }
        for (g, plan) in self.generators.iter_mut().zip(generators) {
            g.tcp = plan.tcp.options.table();
        }
    }
}

impl Topology {
    fn new(spec: &Scenario) -> Result<Topology, ScenarioError> {
        let node_names = spec.node_names();
        let ids: HashMap<String, NodeId> = node_names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as NodeId))
            .collect();
        let mut edges: Vec<(NodeId, NodeId, u32)> = Vec::new();
        let mut hops = Vec::new();
        let mut medium = 0u32;
        for l in &spec.links {
            let (a, b) = (ids[l.between[0].as_str()], ids[l.between[1].as_str()]);
            for (from, to) in [(a, b), (b, a)] {
                edges.push((from, to, hops.len() as u32));
                hops.push(Hop { medium, to });
                medium += 1;
            }
        }
        for w in &spec.wireless {
            let stations: Vec<NodeId> = w.stations.iter().map(|s| ids[s.as_str()]).collect();
            for &a in &stations {
                for &b in stations.iter().filter(|&&b| b != a) {
                    edges.push((a, b, hops.len() as u32));
                    hops.push(Hop { medium, to: b });
                }
            }
            medium += 1;
        }
        for w in &spec.wimax {
            let bs = ids[w.base_station.as_str()];
            for ss in w.subscribers.iter().map(|s| ids[s.as_str()]) {
                for (a, b) in [(bs, ss), (ss, bs)] {
                    edges.push((a, b, hops.len() as u32));
                    hops.push(Hop { medium, to: b });
                }
            }
            medium += 1;
        }
        let mut routes = RoutingTable::shortest_paths(node_names.len(), &edges);
        for (k, r) in spec.routes.iter().enumerate() {
            let (at, to, via) = (ids[r.at.as_str()], ids[r.to.as_str()], ids[r.via.as_str()]);
            if !routes.set_route(at, to, via) {
                return Err(ScenarioError::new(
                    format!("routes[{k}].via"),
                    format!("\"{}\" is not a neighbour of \"{}\"", r.via, r.at),
                ));
            }
        }
        Ok(Topology {
            node_names,
            ids,
            edges,
            hops,
            routes,
        })
    }

    fn id(&self, name: &str) -> NodeId {
        self.ids[name]
    }

    /// The number of hops from `a` to `b`, when routes exist both ways.
    fn routed(&self, a: NodeId, b: NodeId) -> Option<usize> {
        let link_to = |e: u32| self.edges[e as usize].1;
        let forth = self.routes.path(a, b, link_to)?;
        self.routes.path(b, a, link_to).map(|_| forth.len())
    }

    /// Flow `i`'s plan: its route checked (both ways for TCP, whose ACKs come
    /// back; one way for UDP).
    fn flow(
        &self,
        spec: &Scenario,
        i: usize,
        transport: CheckedFlow,
    ) -> Result<FlowPlan, ScenarioError> {
        let f = &spec.flows[i];
        let (src, dst) = (self.id(f.from.primary()), self.id(f.to.primary()));
        match transport {
            CheckedFlow::Tcp(tcp) => {
                self.check_route(&format!("flows[{i}]"), src, dst, "data")?;
                self.check_route(&format!("flows[{i}]"), dst, src, "ACKs")?;
                Ok(FlowPlan::Tcp { tcp, src, dst })
            }
            CheckedFlow::Udp(source) => {
                self.check_route(&format!("flows[{i}]"), src, dst, "datagrams")?;
                Ok(FlowPlan::Udp { source, src, dst })
            }
            CheckedFlow::Sctp(configs) => {
                let local: Vec<NodeId> = f.from.addresses().iter().map(|a| self.id(a)).collect();
                let paths = self.sctp_paths(spec, i, &local)?;
                Ok(FlowPlan::Sctp(Box::new(
                    spec.sctp_plan(i, configs, local, paths),
                )))
            }
        }
    }

    /// The `what` of `path` (a flow, a generator's connections) can go from `a` to `b`.
    fn check_route(
        &self,
        path: &str,
        a: NodeId,
        b: NodeId,
        what: &str,
    ) -> Result<(), ScenarioError> {
        let link_to = |e: u32| self.edges[e as usize].1;
        if self.routes.path(a, b, link_to).is_some() {
            return Ok(());
        }
        Err(ScenarioError::new(
            path,
            format!(
                "no route for {what} from \"{}\" to \"{}\"; check links and routes",
                self.node_names[a as usize], self.node_names[b as usize]
            ),
        ))
    }

    /// Paths of SCTP flow `i`: one per address of the receiver (`to`), in the
    /// order listed; the first is the primary. Each is reached from the sender's
    /// address with the shortest route to it (ties: the first listed), which in
    /// the usual multihomed topology (address i of the sender linked to address i
    /// of the receiver) pairs the addresses up.
    fn sctp_paths(
        &self,
        spec: &Scenario,
        i: usize,
        local: &[NodeId],
    ) -> Result<Vec<(NodeId, NodeId)>, ScenarioError> {
        let f = &spec.flows[i];
        let mut paths = Vec::new();
        for (j, name) in f.to.addresses().iter().enumerate() {
            let dst = self.id(name);
            let best = local
                .iter()
                .filter_map(|&src| self.routed(src, dst).map(|hops| (hops, src)))
                .min_by_key(|&(hops, _)| hops);
            let Some((_, src)) = best else {
                let field = if f.to.addresses().len() == 1 {
                    format!("flows[{i}].to")
                } else {
                    format!("flows[{i}].to[{j}]")
                };
                return Err(ScenarioError::new(
                    field,
                    format!("no route both ways between \"{name}\" and any address of the sender; check links and routes"),
                ));
            };
            paths.push((src, dst));
        }
        Ok(paths)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, load};
    use crate::net::wifi::channel::FrameErrors;
    use crate::world::World;

    #[test]
    fn build_takes_a_plan_and_cannot_fail() {
        let text = r#"
            duration = "1s"
            [[links]]
            between = ["a", "b"]
            bandwidth = "10Mbps"
            delay = "5ms"
            impairments = [{ kind = "arq", pv = 0.1, delay = { distribution = "constant", value = "1ms" } }]
            [[flows]]
            from = "a"
            to = "b"
            cc = "tahoe"
            tcp = { profile = "rfc" }
        "#;
        let plan = load(text, None).unwrap();
        // A `World`, not a `Result`: nothing is left to check.
        let world: World = build(&plan, 1);
        let r = world.run();
        assert_eq!(r.flows[0].summary.recovery, "tahoe");
    }

    #[test]
    fn no_spec_is_parsed_again_after_the_check() {
        // The checks yield typed parts, so no code trusts an earlier check.
        let sources = [
            include_str!("build.rs"),
            include_str!("validate.rs"),
            include_str!("sctp_build.rs"),
            include_str!("../net/wifi/frame_errors.rs"),
        ];
        for source in sources {
            for word in ["validated", "checked"] {
                let trusted = format!("unreachable!(\"{word}");
                assert!(!source.contains(&trusted), "{trusted}");
            }
        }
    }

    #[test]
    fn wireless_and_cell_plans_hold_node_ids_and_resolved_radio() {
        let text = r#"
            duration = "1s"
            [[wireless]]
            stations = ["a", "ap"]
            rate = "11Mbps"
            queue_packets = 20
            rts_threshold = "500B"
            radio = { distance_m = 100.0, tx_power_dbm = 20.0, frequency_mhz = 2400.0 }
            [[wimax]]
            name = "cell"
            base_station = "bs"
            subscribers = ["ss1", "ss2"]
            preset = "los_snr30"
            [[links]]
            between = ["ap", "bs"]
            bandwidth = "10Mbps"
            delay = "5ms"
            [[flows]]
            from = "a"
            to = "ss1"
        "#;
        let plan = load(text, None).unwrap();
        // Node ids: link ends first (ap = 0, bs = 1), then stations (a = 2), then
        // the cell's subscribers (ss1 = 3, ss2 = 4).
        let w = &plan.wireless[0];
        assert_eq!(w.name, "wireless0");
        assert_eq!(w.stations, vec![2, 0]);
        assert_eq!(w.config.queue_limit, 20);
        assert_eq!(w.config.rts_threshold, Some(500));
        let FrameErrors::Snr(radio) = w.config.errors else {
            panic!("frame errors from the SNR");
        };
        // 20 dBm = 10^(20/10) mW = 100 mW = 0.1 W; 2400 MHz = 2.4e9 Hz.
        assert!((radio.tx_power_w - 0.1).abs() < 1e-12);
        assert_eq!(radio.frequency_hz, 2.4e9);
        assert_eq!(radio.distance_m, 100.0);
        let cell = &plan.cells[0];
        assert_eq!(cell.name, "cell");
        assert_eq!(cell.base_station, 1);
        assert_eq!(cell.subscribers, vec![3, 4]);
    }

    #[test]
    fn build_reads_media_sctp_and_trace_from_their_plans_only() {
        // Each topic is checked into its plan (`link_plan.rs`, `WirelessPlan`,
        // `CellPlan`, `sctp_plan.rs`, `trace_plan.rs`); the builders never go back
        // to the spec for them.
        let build = include_str!("build.rs");
        let code = &build[..build.find("#[cfg(test)]").unwrap_or(build.len())];
        for read in [
            "spec.links",
            "l.queue",
            "l.between",
            "spec.trace",
            ".sctp",
            "spec.wireless",
            "spec.wimax",
        ] {
            assert!(!code.contains(read), "build.rs reads {read}");
        }
        let sctp = include_str!("sctp_build.rs");
        assert!(!sctp.contains("spec"), "sctp_build.rs reads the spec");
        let udp = include_str!("udp_build.rs");
        assert!(!udp.contains("spec.trace"), "udp_build.rs reads spec.trace");
    }

    #[test]
    fn the_canonical_plan_of_every_example_loads_into_itself() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let json = load(&text, path.parent()).unwrap().to_json().unwrap();
            let again = load(&json, None).unwrap().to_json().unwrap();
            assert_eq!(again, json, "{}", path.display());
            seen += 1;
        }
        assert!(seen >= 15, "{seen} example scenarios");
    }
}

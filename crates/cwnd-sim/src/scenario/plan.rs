//! A scenario checked once into a typed plan: what `build` needs and nothing it
//! must check again, so that `build(&Plan, seed)` cannot fail.
//!
//! A plan is made by `load` (text → spec → files read → `Plan::new`). It keeps its
//! canonical spec beside the typed parts: the spec with every default written out
//! and the contents of the files it named (a loss trace's steps) in place of their
//! names. That spec is the plan's serialized form (`to_json`): loading it again
//! gives the same plan without reading any file, so a plan can be hashed (the
//! sweep cache key: contents, not paths) and shipped to workers that have no files.
//!
//! The typed parts are not serialized themselves: they are a function of the
//! canonical spec (node ids, routes and kernel configurations derived from it), so
//! the spec identifies them as well; it stays the format users and sweeps edit
//! (field paths are the scenario's), and its hash does not move when the kernel's
//! types change shape.

use super::error::ScenarioError;
use super::flows::{CheckedFlow, CheckedTransport};
use super::generator::GeneratorPlan;
use super::link::LinkPlan;
use super::sctp::SctpPlan;
use super::spec::Scenario;
use super::tcp::{TcpOptions, TcpPlan};
use super::topology::Topology;
use super::trace::TracePlan;
use super::udp::SourcePlan;
use super::wifi::WirelessPlan;
use super::wimax::CellPlan;
use crate::packet::NodeId;
use crate::time::SimTime;

/// A checked scenario, ready to build with any seed.
#[derive(Debug)]
pub struct Plan {
    /// The canonical spec (defaults written out, file contents in place of names).
    spec: Scenario,
    /// The run's name (`scenario` when the file gives none).
    pub(super) name: String,
    /// When the run ends (`duration`).
    pub(super) end: SimTime,
    /// The memory the run may hold (`memory_budget`, default `budget::DEFAULT_BUDGET`).
    pub(super) memory_budget: u64,
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

/// A flow: its name, when its application runs, and its transport's plan.
#[derive(Clone, Debug)]
pub struct FlowPlan {
    pub name: String,
    pub start: SimTime,
    /// When the application stops sending: its `stop`, never after the end of the
    /// run (`None`: it sends to the end).
    pub stop: Option<SimTime>,
    pub transport: TransportPlan,
}

/// A flow's transport-specific plan, with its nodes (routes checked). TCP's and
/// SCTP's plans are boxed: they are much larger than UDP's.
#[derive(Clone, Debug)]
pub enum TransportPlan {
    Tcp {
        tcp: Box<TcpPlan>,
        /// The bytes a transfer sends (`None`: bulk).
        app_bytes: Option<u64>,
        src: NodeId,
        dst: NodeId,
    },
    Sctp(Box<SctpPlan>),
    Udp {
        source: SourcePlan,
        src: NodeId,
        dst: NodeId,
    },
}

impl TransportPlan {
    /// What the memory estimate needs of it (`budget/traffic.rs`).
    fn kind(&self) -> super::budget::FlowKind<'_> {
        use super::budget::FlowKind;
        match self {
            TransportPlan::Tcp { tcp, app_bytes, .. } => FlowKind::Tcp {
                options: &tcp.options,
                cc: &tcp.cc,
                app_bytes: *app_bytes,
            },
            TransportPlan::Sctp(_) => FlowKind::Sctp,
            TransportPlan::Udp { source, .. } => FlowKind::Udp(source),
        }
    }
}

impl Plan {
    /// Checks `spec` (whose files are already read: `load`) into a plan.
    pub(super) fn new(mut spec: Scenario) -> Result<Plan, ScenarioError> {
        let checked = spec.check()?;
        let topology = Topology::new(&spec)?;
        let mut flows = Vec::with_capacity(spec.flows.len());
        for (i, flow) in checked.flows.into_iter().enumerate() {
            flows.push(flow_plan(&topology, &spec, i, flow)?);
        }
        for (g, p) in checked.generators.iter().enumerate() {
            let path = format!("generators[{g}]");
            topology.check_route(&path, p.src, p.dst, "data")?;
            topology.check_route(&path, p.dst, p.src, "ACKs")?;
        }
        spec.write_tcp_options(&flows, &checked.generators);
        super::link::write_queue_defaults(&mut spec.links, &checked.links);
        Ok(Plan {
            name: checked.name,
            end: checked.end,
            memory_budget: checked.memory_budget,
            generators: checked.generators,
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
        match &self.flows.get(i)?.transport {
            TransportPlan::Tcp { tcp, .. } => Some(&tcp.options),
            TransportPlan::Sctp(_) | TransportPlan::Udp { .. } => None,
        }
    }

    /// The bytes `check` estimates a run of this plan to hold at its peak
    /// (`budget/`), which `memory_budget` bounds.
    pub fn memory_estimate(&self) -> u64 {
        super::budget::estimate_bytes(&self.spec, &self.parts())
    }

    /// The typed parts the memory estimate reads (`budget::Parts`).
    pub(super) fn parts(&self) -> super::budget::Parts<'_> {
        super::budget::Parts {
            links: &self.links,
            cells: &self.cells,
            flows: self.flows.iter().map(|f| f.transport.kind()).collect(),
            generators: &self.generators,
        }
    }

    /// What each flow sends over the run, as the memory estimate sees it.
    #[cfg(test)]
    pub(super) fn traffic(&self) -> Vec<super::budget::FlowTraffic> {
        let parts = self.parts();
        super::budget::traffic(&self.spec, parts.links, parts.cells, &parts.flows)
    }

    /// The canonical spec the plan was checked from.
    pub fn spec(&self) -> &Scenario {
        &self.spec
    }

    /// The plan in canonical JSON (docs/scenarios.md, "Loading"): its spec on one
    /// line, every field written in the order of the spec's types (`null` when
    /// unset), an impairment stage's keys in alphabetical order, quantities in base
    /// units, TCP options resolved, file contents in place of file names. `load`
    /// turns it back into the same plan, reading no file.
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
            if let TransportPlan::Tcp { tcp, .. } = &plan.transport {
                f.tcp = tcp.options.table();
            }
        }
        for (g, plan) in self.generators.iter_mut().zip(generators) {
            g.tcp = plan.tcp.options.table();
        }
    }
}

/// Flow `i`'s plan: its nodes, its route checked (both ways for TCP, whose
/// ACKs come back; one way for UDP; per address for SCTP).
fn flow_plan(
    topology: &Topology,
    spec: &Scenario,
    i: usize,
    flow: CheckedFlow,
) -> Result<FlowPlan, ScenarioError> {
    let f = &spec.flows[i];
    let (src, dst) = (topology.id(f.from.primary()), topology.id(f.to.primary()));
    let transport = match flow.transport {
        CheckedTransport::Tcp { tcp, app_bytes } => {
            topology.check_route(&format!("flows[{i}]"), src, dst, "data")?;
            topology.check_route(&format!("flows[{i}]"), dst, src, "ACKs")?;
            TransportPlan::Tcp {
                tcp: Box::new(tcp),
                app_bytes,
                src,
                dst,
            }
        }
        CheckedTransport::Udp(source) => {
            topology.check_route(&format!("flows[{i}]"), src, dst, "datagrams")?;
            TransportPlan::Udp { source, src, dst }
        }
        CheckedTransport::Sctp(configs) => {
            let local: Vec<NodeId> = f.from.addresses().iter().map(|a| topology.id(a)).collect();
            let paths = topology.sctp_paths(spec, i, &local)?;
            TransportPlan::Sctp(Box::new(spec.sctp_plan(i, configs, local, paths)))
        }
    };
    Ok(FlowPlan {
        name: flow.name,
        start: flow.start,
        stop: flow.stop,
        transport,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{build, load};
    use crate::net::wifi::channel::FrameErrors;
    use crate::scenario::impairment::StageSpec;
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
            include_str!("flows.rs"),
            include_str!("sctp/build.rs"),
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
        let FrameErrors::Snr(radio) = w.config.phy.errors() else {
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

    /// The code of a source file, without its test module.
    fn code(source: &'static str) -> &'static str {
        &source[..source.find("#[cfg(test)]").unwrap_or(source.len())]
    }

    /// What reading the spec looks like: its accessor, a binding of it, its type,
    /// and the types of its entries (the typed plans hold what was checked).
    const SPEC_READS: [&str; 13] = [
        "spec.",
        "spec()",
        "Scenario",
        "FlowSpec",
        "GeneratorSpec",
        "LinkSpec",
        "WirelessSpec",
        "WimaxSpec",
        "SourceSpec",
        "TraceSpec",
        "AppSpec",
        "TcpSpec",
        "SctpSpec",
    ];

    /// The first spec read in `code`, if any.
    fn spec_read(code: &str) -> Option<&'static str> {
        SPEC_READS.into_iter().find(|read| code.contains(read))
    }

    #[test]
    fn the_builders_read_typed_plans_never_the_spec() {
        // Every topic is checked into its plan when the scenario is loaded (links,
        // stages, 802.11, 802.16, flows, generators, UDP sources, trace, the run's
        // name, end and memory budget); building goes back to the spec for nothing.
        let builders = [
            ("build.rs", code(include_str!("build.rs"))),
            (
                "generator/build.rs",
                code(include_str!("generator/build.rs")),
            ),
            ("udp/build.rs", code(include_str!("udp/build.rs"))),
            ("sctp/build.rs", code(include_str!("sctp/build.rs"))),
            ("tcp/build.rs", code(include_str!("tcp/build.rs"))),
            (
                "impairment/build.rs",
                code(include_str!("impairment/build.rs")),
            ),
        ];
        for (file, code) in builders {
            assert_eq!(spec_read(code), None, "{file} reads the spec");
        }
        // The check sees one read put back (what `build` did before the plans).
        let build = code(include_str!("build.rs"));
        let reintroduced = build.replace("name: plan.name.clone()", "name: spec.name.clone()");
        assert_ne!(reintroduced, build, "the line the check is tried on moved");
        assert_eq!(spec_read(&reintroduced), Some("spec."));
    }

    /// Everything a plan holds but its spec, in a form two plans can be compared
    /// by: its typed parts in `Debug` form (floats printed exactly), and its routes
    /// as the path between every pair of nodes (the table itself keeps its
    /// overrides in a hash map, whose order is not the same twice).
    fn typed_parts(plan: &super::Plan) -> String {
        let t = &plan.topology;
        let link_to = |e: u32| t.edges[e as usize].1;
        let nodes = t.node_names.len() as u32;
        let routes: Vec<_> = (0..nodes)
            .flat_map(|a| (0..nodes).map(move |b| (a, b)))
            .map(|(a, b)| t.routes.path(a, b, link_to))
            .collect();
        format!(
            "{:?}",
            (
                (&plan.name, plan.end, plan.memory_budget, &plan.trace),
                (&plan.links, &plan.wireless, &plan.cells),
                (&plan.flows, &plan.generators),
                (&t.node_names, &t.edges, &t.hops, routes),
            )
        )
    }

    #[test]
    fn the_canonical_plan_of_every_example_loads_into_the_same_plan() {
        // Canonical JSON → load → the same plan → the same canonical JSON, reading
        // no file the second time.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let plan = load(&text, path.parent()).unwrap();
            let json = plan.to_json().unwrap();
            let again = load(&json, None).unwrap();
            assert_eq!(
                typed_parts(&again),
                typed_parts(&plan),
                "{}",
                path.display()
            );
            assert_eq!(again.to_json().unwrap(), json, "{}", path.display());
            seen += 1;
        }
        assert!(seen >= 15, "{seen} example scenarios");
    }

    #[test]
    fn a_loss_trace_is_read_once_when_loading_and_never_when_building() {
        // The trace's steps are in the plan: with the file gone, the plan still
        // builds, runs and serializes the same; its JSON holds the steps, not the
        // file's name.
        let dir = std::env::temp_dir().join(format!("cwnd-plan-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("loss.csv"), "0, 0.5\n0.5, 0\n").unwrap();
        let text = r#"
            duration = "1s"
            [[links]]
            between = ["a", "b"]
            bandwidth = "10Mbps"
            delay = "5ms"
            impairments = [{ kind = "bernoulli", p_file = "loss.csv", applies_to = "data" }]
            [[flows]]
            from = "a"
            to = "b"
        "#;
        let plan = load(text, Some(&dir)).unwrap();
        let json = plan.to_json().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(!json.contains("loss.csv"), "{json}");
        // The steps (time, p): 0 s → 0.5, 0.5 s → 0.
        let steps = r#""schedule":[["0ns",0.5],["500000000ns",0.0]]"#;
        assert!(json.contains(steps), "{json}");
        let StageSpec::Bernoulli { schedule } = &plan.links[0].stages[0].stage else {
            panic!("a Bernoulli stage");
        };
        assert_eq!(schedule.len(), 2);
        let first = build(&plan, 3).run();
        let again = load(&json, None).unwrap();
        assert_eq!(build(&again, 3).run().fingerprint, first.fingerprint);
        // The trace reached the run: p = 0.5 on data for the first half second.
        assert!(first.flows[0].summary.drops_impairment > 0);
    }
}

//! The topology topic: `[[nodes]]` and `[[routes]]`, and the nodes, hops and
//! routes every medium contributes. Node ids follow `node_names`; the hops are
//! numbered as `build` fills the media table (link directions, then 802.11
//! channels, then 802.16 cells); shortest paths give the routes, which
//! `[[routes]]` entries override. The plan checks each flow's and generator's
//! route here (`check_route`, `sctp_paths`).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::checks::{known_node, NodeIds};
use super::error::ScenarioError;
use super::spec::Scenario;
use crate::net::medium::Hop;
use crate::net::routing::RoutingTable;
use crate::packet::NodeId;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
}

/// Forces the next hop at node `at` towards `to` through neighbour `via`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub at: String,
    pub to: String,
    pub via: String,
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

impl Scenario {
    /// Node names in id order: the explicit list, then link ends in order of appearance.
    /// (A set of the names seen keeps this linear: 200 000 hosts are 200 000 lookups.)
    pub fn node_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.nodes.iter().map(|n| n.name.clone()).collect();
        let mut seen: HashSet<&str> = self.nodes.iter().map(|n| n.name.as_str()).collect();
        let ends = self.links.iter().flat_map(|l| l.between.iter());
        let stations = self.wireless.iter().flat_map(|w| w.stations.iter());
        let cells = self
            .wimax
            .iter()
            .flat_map(|w| std::iter::once(&w.base_station).chain(&w.subscribers));
        for name in ends.chain(stations).chain(cells) {
            if seen.insert(name) {
                names.push(name.clone());
            }
        }
        names
    }

    /// Node ids by name: each node declared once, with a name.
    pub(super) fn check_nodes(&self) -> Result<NodeIds, ScenarioError> {
        let mut seen = HashMap::new();
        for (i, n) in self.nodes.iter().enumerate() {
            if n.name.is_empty() {
                return Err(ScenarioError::new(
                    format!("nodes[{i}].name"),
                    "must not be empty",
                ));
            }
            if seen.insert(n.name.clone(), i).is_some() {
                return Err(ScenarioError::new(
                    format!("nodes[{i}].name"),
                    format!(
                        "\"{}\" is declared twice; node names must be unique",
                        n.name
                    ),
                ));
            }
        }
        Ok(self
            .node_names()
            .into_iter()
            .enumerate()
            .map(|(i, n)| (n, i))
            .collect())
    }

    /// Every route names known nodes (that `via` is a neighbour is checked with
    /// the hops: `Topology::new`).
    pub(super) fn check_routes(&self, nodes: &NodeIds) -> Result<(), ScenarioError> {
        for (i, r) in self.routes.iter().enumerate() {
            for (field, name) in [("at", &r.at), ("to", &r.to), ("via", &r.via)] {
                known_node(nodes, &format!("routes[{i}].{field}"), name)?;
            }
        }
        Ok(())
    }
}

impl Topology {
    pub(super) fn new(spec: &Scenario) -> Result<Topology, ScenarioError> {
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

    pub(super) fn id(&self, name: &str) -> NodeId {
        self.ids[name]
    }

    /// The number of hops from `a` to `b`, when routes exist both ways.
    fn routed(&self, a: NodeId, b: NodeId) -> Option<usize> {
        let link_to = |e: u32| self.edges[e as usize].1;
        let forth = self.routes.path(a, b, link_to)?;
        self.routes.path(b, a, link_to).map(|_| forth.len())
    }

    /// The `what` of `path` (a flow, a generator's connections) can go from `a` to `b`.
    pub(super) fn check_route(
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
    pub(super) fn sctp_paths(
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

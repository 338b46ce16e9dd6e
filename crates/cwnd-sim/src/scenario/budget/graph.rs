//! The graph the memory estimate's traffic model routes flows on (`traffic.rs`
//! says the model): nodes by name, the media between them with their rates,
//! delays and data loss, and the shortest paths by hops, a breadth-first search
//! per starting node.

use std::collections::{HashMap, VecDeque};

use crate::net::impair::AppliesTo;
use crate::net::wimax::mcs::Mcs;
use crate::scenario::impairment::{Direction, StagePlan, StageSpec, StageWindow};
use crate::scenario::link::LinkPlan;
use crate::scenario::spec::Scenario;
use crate::scenario::wimax::CellPlan;

/// An 802.11 channel's share of its data rate that carries data (see above).
const DCF_EFFICIENCY: f64 = 0.5;
/// Loss intervals kept per medium: a longer schedule is averaged into this many
/// equal slices, so that a flow's rate costs at most this many steps.
const LOSS_SLICES: usize = 256;

/// One medium: its rate (bits/s) and the time a packet spends on it beside its
/// serialization (propagation; an 802.16 frame).
#[derive(Clone, Debug)]
pub(super) struct Medium {
    pub(super) rate: f64,
    pub(super) delay: f64,
    /// (start, end, p) intervals of data loss, in seconds.
    pub(super) loss: Vec<(f64, f64, f64)>,
}

/// The scenario's graph: nodes by name, each with its neighbours and the medium to
/// each, in declaration order.
pub(super) struct Graph<'a> {
    index: HashMap<&'a str, usize>,
    pub(super) names: Vec<&'a str>,
    adjacency: Vec<Vec<(usize, usize)>>,
    pub(super) media: Vec<Medium>,
}

impl<'a> Graph<'a> {
    pub(super) fn of(spec: &'a Scenario, links: &[LinkPlan], cells: &[CellPlan]) -> Self {
        let seconds = spec.duration.0.as_secs_f64();
        let mut graph = Graph {
            index: HashMap::new(),
            names: Vec::new(),
            adjacency: Vec::new(),
            media: Vec::new(),
        };
        for (l, plan) in spec.links.iter().zip(links) {
            let rate = plan.params.rate_bps as f64;
            let delay = plan.params.delay.as_secs_f64();
            let (a, b) = (graph.node(&l.between[0]), graph.node(&l.between[1]));
            for (from, to, direction) in [(a, b, Direction::Forward), (b, a, Direction::Reverse)] {
                let loss = data_loss(&plan.stages, direction, seconds);
                let m = graph.medium(rate, delay, loss);
                graph.adjacency[from].push((to, m));
            }
        }
        for w in &spec.wireless {
            // A frame crosses the channel once, station to hub: the hub to the
            // receiver costs nothing more.
            let air = graph.medium(w.rate.0 as f64 * DCF_EFFICIENCY, 0.0, Vec::new());
            let free = graph.medium(f64::INFINITY, 0.0, Vec::new());
            let hub = graph.hub();
            for s in &w.stations {
                let s = graph.node(s);
                graph.adjacency[s].push((hub, air));
                graph.adjacency[hub].push((s, free));
            }
        }
        for (c, cell) in spec.wimax.iter().zip(cells) {
            let (down, up) = cell_rates(cell);
            let frame = cell.params.layout.duration.as_secs_f64();
            let delay = frame + cell.params.propagation.as_secs_f64();
            let (down, up) = (
                graph.medium(down, delay, Vec::new()),
                graph.medium(up, delay, Vec::new()),
            );
            let bs = graph.node(&c.base_station);
            for s in &c.subscribers {
                let s = graph.node(s);
                graph.adjacency[bs].push((s, down));
                graph.adjacency[s].push((bs, up));
            }
        }
        graph
    }

    fn node(&mut self, name: &'a str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.index.insert(name, self.names.len());
        self.names.push(name);
        self.adjacency.push(Vec::new());
        self.names.len() - 1
    }

    /// A channel's hub: a node of the graph with no name, which no flow names.
    fn hub(&mut self) -> usize {
        self.names.push("");
        self.adjacency.push(Vec::new());
        self.names.len() - 1
    }

    fn medium(&mut self, rate: f64, delay: f64, loss: Vec<(f64, f64, f64)>) -> usize {
        self.media.push(Medium { rate, delay, loss });
        self.media.len() - 1
    }

    /// Where the search for a flow from `from` starts, and the medium to it: its only
    /// neighbour if it has one, else `from` itself. A node with one neighbour is a
    /// dead end of every search that does not start there, so the search from its
    /// neighbour finds the same path to every other node.
    fn start(&self, from: usize) -> (usize, Option<usize>) {
        match self.adjacency[from].as_slice() {
            [(neighbour, medium)] => (*neighbour, Some(*medium)),
            _ => (from, None),
        }
    }

    /// Breadth-first search from `source`: for each node reached, the node before it
    /// and the medium from there (`None` for `source`).
    fn tree(&self, source: usize) -> HashMap<usize, Option<(usize, usize)>> {
        let mut before = HashMap::from([(source, None)]);
        let mut frontier = VecDeque::from([source]);
        while let Some(v) = frontier.pop_front() {
            for &(u, m) in &self.adjacency[v] {
                if let std::collections::hash_map::Entry::Vacant(e) = before.entry(u) {
                    e.insert(Some((v, m)));
                    frontier.push_back(u);
                }
            }
        }
        before
    }

    /// Each flow's path, as (media crossed, nodes crossed), in order; empty for a
    /// flow with no path (which the topology's check then refuses) or to itself.
    pub(super) fn paths(&self, ends: &[(&str, &str)]) -> Vec<(Vec<usize>, Vec<usize>)> {
        let mut by_start: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut starts = Vec::new();
        let ids: Vec<Option<(usize, usize)>> = ends
            .iter()
            .map(|(a, b)| Some((*self.index.get(a)?, *self.index.get(b)?)))
            .collect();
        for (i, id) in ids.iter().enumerate() {
            let Some((from, _)) = *id else { continue };
            let start = self.start(from).0;
            by_start
                .entry(start)
                .or_insert_with(|| {
                    starts.push(start);
                    Vec::new()
                })
                .push(i);
        }
        let mut paths = vec![(Vec::new(), Vec::new()); ends.len()];
        for start in starts {
            let tree = self.tree(start);
            for &i in &by_start[&start] {
                let Some((from, to)) = ids[i] else { continue };
                if from == to || !tree.contains_key(&to) {
                    continue;
                }
                let (mut media, mut nodes) = (Vec::new(), vec![to]);
                let mut at = to;
                while let Some(Some((back, m))) = tree.get(&at) {
                    media.push(*m);
                    nodes.push(*back);
                    at = *back;
                }
                if let (_, Some(first)) = self.start(from) {
                    // The search began at `from`'s only neighbour: its hop first.
                    media.push(first);
                    nodes.push(from);
                }
                media.reverse();
                nodes.reverse();
                paths[i] = (media, nodes);
            }
        }
        paths
    }
}

/// The downlink and uplink rates of a cell (bits/s): the data symbols of a frame at
/// the scheme AMC picks at the mean SNR (or the fixed scheme), per frame duration,
/// within the caps.
fn cell_rates(cell: &CellPlan) -> (f64, f64) {
    let p = &cell.params;
    let mcs = p
        .fixed_mcs
        .unwrap_or_else(|| Mcs::adaptive(p.snr_db, p.amc_margin_db));
    let frame = p.layout.duration.as_secs_f64();
    let per_symbol = f64::from(mcs.bytes_per_symbol()) * 8.0 / frame;
    let cap = |rate: f64, cap: Option<u64>| cap.map_or(rate, |c| rate.min(c as f64));
    (
        cap(
            per_symbol * p.layout.dl_data_symbols() as f64,
            p.downlink_cap_bps,
        ),
        cap(
            per_symbol * p.layout.ul_data_symbols() as f64,
            p.uplink_cap_bps,
        ),
    )
}

/// The data-loss intervals of one link direction over `[0, seconds)`: each Bernoulli
/// or Gilbert–Elliott stage on data in its window; overlapping stages combined as
/// independent losses; averaged into at most `LOSS_SLICES` slices.
fn data_loss(stages: &[StagePlan], direction: Direction, seconds: f64) -> Vec<(f64, f64, f64)> {
    let mut pieces: Vec<(f64, f64, f64)> = Vec::new();
    for s in stages {
        if !(s.direction == direction || s.direction == Direction::Both)
            || s.applies_to == AppliesTo::Acks
        {
            continue;
        }
        let (from, to) = match s.window {
            StageWindow::Always => (0.0, seconds),
            StageWindow::Between(a, b) => (a.as_secs_f64(), b.as_secs_f64().min(seconds)),
            StageWindow::OnTrigger { .. } => continue,
        };
        match &s.stage {
            StageSpec::Bernoulli { schedule } => {
                for (k, &(at, p)) in schedule.iter().enumerate() {
                    let start = if k == 0 { 0.0 } else { at.0.as_secs_f64() };
                    let end = schedule
                        .get(k + 1)
                        .map_or(f64::INFINITY, |next| next.0 .0.as_secs_f64());
                    let (a, b) = (start.max(from), end.min(to));
                    if a < b && p > 0.0 {
                        pieces.push((a, b, p));
                    }
                }
            }
            StageSpec::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => {
                // Stationary: the bad state's share is p_gb/(p_gb + p_bg).
                let bad = if p_gb + p_bg > 0.0 {
                    p_gb / (p_gb + p_bg)
                } else {
                    0.0
                };
                let p = (1.0 - bad) * loss_good + bad * loss_bad;
                if from < to && p > 0.0 {
                    pieces.push((from, to, p));
                }
            }
            _ => {}
        }
    }
    if pieces.is_empty() {
        return pieces;
    }
    // Cut [0, seconds) at every piece's ends (at most LOSS_SLICES equal slices when
    // there are more) and combine the pieces over each cut.
    let mut cuts: Vec<f64> = pieces.iter().flat_map(|&(a, b, _)| [a, b]).collect();
    cuts.extend([0.0, seconds]);
    cuts.retain(|&t| (0.0..=seconds).contains(&t));
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    if cuts.len() > LOSS_SLICES + 1 {
        cuts = (0..=LOSS_SLICES)
            .map(|k| seconds * k as f64 / LOSS_SLICES as f64)
            .collect();
    }
    cuts.windows(2)
        .map(|w| {
            let (a, b) = (w[0], w[1]);
            let kept: f64 = pieces
                .iter()
                .map(|&(s, e, p)| {
                    let overlap = (e.min(b) - s.max(a)).max(0.0) / (b - a);
                    1.0 - p * overlap
                })
                .product();
            (a, b, 1.0 - kept)
        })
        .filter(|&(_, _, p)| p > 0.0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of links between named nodes, as `Graph::of` builds it.
    fn graph<'a>(links: &[(&'a str, &'a str)]) -> Graph<'a> {
        let mut g = Graph {
            index: HashMap::new(),
            names: Vec::new(),
            adjacency: Vec::new(),
            media: Vec::new(),
        };
        for &(a, b) in links {
            let (a, b) = (g.node(a), g.node(b));
            for (from, to) in [(a, b), (b, a)] {
                let m = g.medium(1.0, 0.0, Vec::new());
                g.adjacency[from].push((to, m));
            }
        }
        g
    }

    /// The search the grouping must agree with: one breadth-first search per flow
    /// from its own source, then the media back along the predecessors.
    fn reference_path(g: &Graph, from: usize, to: usize) -> Vec<usize> {
        let tree = g.tree(from);
        let mut media = Vec::new();
        let mut at = to;
        while let Some(Some((back, m))) = tree.get(&at) {
            media.push(*m);
            at = *back;
        }
        if at != from || from == to {
            return Vec::new();
        }
        media.reverse();
        media
    }

    #[test]
    fn grouped_searches_agree_with_a_search_per_flow() {
        // Random graphs of routers (parallel links allowed) and hosts, every ordered
        // pair of nodes a flow. xorshift64: a fixed sequence.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..200 {
            let routers = 1 + next(5);
            let hosts = next(8);
            let mut links: Vec<(String, String)> = Vec::new();
            for _ in 0..next(7) {
                let (a, b) = (next(routers), next(routers));
                if a != b {
                    links.push((format!("r{a}"), format!("r{b}")));
                }
            }
            for h in 0..hosts {
                links.push((format!("h{h}"), format!("r{}", next(routers))));
            }
            let borrowed: Vec<(&str, &str)> = links
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let g = graph(&borrowed);
            let ends: Vec<(&str, &str)> = g
                .names
                .iter()
                .flat_map(|&a| g.names.iter().map(move |&b| (a, b)))
                .collect();
            let got: Vec<Vec<usize>> = g.paths(&ends).into_iter().map(|(m, _)| m).collect();
            let want: Vec<Vec<usize>> = ends
                .iter()
                .map(|(a, b)| reference_path(&g, g.index[a], g.index[b]))
                .collect();
            assert_eq!(got, want, "{links:?}");
        }
    }
}

//! Static routes, computed once when the world is built.
//!
//! Routes are shortest paths by hop count. Ties are broken by the order in which
//! links appear in the scenario (a node's first-declared link wins), so routes are
//! deterministic. Explicit routes (`at` node, towards `to`, through neighbour `via`)
//! override the computed next hop for that pair only.
//!
//! Scale: end hosts are mostly *leaves* — one link, out and back to the same
//! neighbour (the gateway). Every route into or out of a leaf goes through its
//! gateway, so only routes between the other (*core*) nodes are computed, one
//! breadth-first search per core node over the core alone; a route to or from a leaf
//! is its gateway's. Set-up is linear in the number of leaves and the table holds
//! core × core entries, so a dumbbell of 100 000 flows has a 2 × 2 table. The answer is
//! the one a search over the whole graph gives: a shortest path never passes through a
//! leaf it does not start or end at, and a leaf is never the first-declared neighbour
//! one hop closer to anything but itself (the unit tests check this against a search
//! over every node, on random graphs).

use std::collections::{HashMap, VecDeque};

use crate::packet::NodeId;

/// Index of a link direction in the world's link table.
pub type LinkDirId = u32;

const NO_ROUTE: LinkDirId = LinkDirId::MAX;
const NOT_CORE: u32 = u32::MAX;

/// A node whose only link leads to `gateway`: `out` leaves it, `into` enters it.
#[derive(Clone, Copy, Debug)]
struct Leaf {
    gateway: NodeId,
    out: LinkDirId,
    into: LinkDirId,
}

#[derive(Clone, Debug)]
pub struct RoutingTable {
    nodes: usize,
    /// Outgoing (neighbour, link direction) per node, in declaration order.
    adjacency: Vec<Vec<(NodeId, LinkDirId)>>,
    leaves: Vec<Option<Leaf>>,
    /// Each node's index among the core nodes (`NOT_CORE` for leaves).
    core_index: Vec<u32>,
    cores: usize,
    /// `core_next[a * cores + b]`: the next hop from core node `a` towards core node `b`.
    core_next: Vec<LinkDirId>,
    /// Explicit routes: (at, destination) → link direction.
    overrides: HashMap<(NodeId, NodeId), LinkDirId>,
}

impl RoutingTable {
    /// Builds shortest-path routes over the directed edges `(from, to, link)`.
    pub fn shortest_paths(nodes: usize, edges: &[(NodeId, NodeId, LinkDirId)]) -> Self {
        let mut adjacency = vec![Vec::new(); nodes];
        let mut incoming: Vec<Vec<(NodeId, LinkDirId)>> = vec![Vec::new(); nodes];
        for &(from, to, link) in edges {
            adjacency[from as usize].push((to, link));
            incoming[to as usize].push((from, link));
        }
        let leaves: Vec<Option<Leaf>> = (0..nodes)
            .map(
                |v| match (adjacency[v].as_slice(), incoming[v].as_slice()) {
                    (&[(to, out)], &[(from, into)]) if to == from => Some(Leaf {
                        gateway: to,
                        out,
                        into,
                    }),
                    _ => None,
                },
            )
            .collect();
        let mut core_index = vec![NOT_CORE; nodes];
        let mut core_nodes = Vec::new();
        for v in 0..nodes {
            if leaves[v].is_none() {
                core_index[v] = core_nodes.len() as u32;
                core_nodes.push(v);
            }
        }
        let mut table = RoutingTable {
            nodes,
            adjacency,
            leaves,
            core_index,
            cores: core_nodes.len(),
            core_next: vec![NO_ROUTE; core_nodes.len() * core_nodes.len()],
            overrides: HashMap::new(),
        };
        let reverse: Vec<Vec<usize>> = core_nodes
            .iter()
            .map(|&v| {
                incoming[v]
                    .iter()
                    .map(|&(from, _)| table.core_index[from as usize])
                    .filter(|&c| c != NOT_CORE)
                    .map(|c| c as usize)
                    .collect()
            })
            .collect();
        let mut dist = vec![usize::MAX; table.cores];
        let mut frontier = VecDeque::new();
        for dst in 0..table.cores {
            table.fill_towards(dst, &core_nodes, &reverse, &mut dist, &mut frontier);
        }
        table
    }

    /// Breadth-first search from core node `dst` over reversed core edges gives each
    /// core node's hop distance; a node's next hop is its first-declared neighbour one
    /// hop closer.
    fn fill_towards(
        &mut self,
        dst: usize,
        core_nodes: &[usize],
        reverse: &[Vec<usize>],
        dist: &mut [usize],
        frontier: &mut VecDeque<usize>,
    ) {
        dist.fill(usize::MAX);
        dist[dst] = 0;
        frontier.clear();
        frontier.push_back(dst);
        while let Some(v) = frontier.pop_front() {
            for &u in &reverse[v] {
                if dist[u] == usize::MAX {
                    dist[u] = dist[v] + 1;
                    frontier.push_back(u);
                }
            }
        }
        for at in 0..self.cores {
            if at == dst || dist[at] == usize::MAX {
                continue;
            }
            let hop = self.adjacency[core_nodes[at]]
                .iter()
                .find(|&&(to, _)| {
                    let c = self.core_index[to as usize];
                    c != NOT_CORE && dist[c as usize] + 1 == dist[at]
                })
                .map(|&(_, link)| link);
            if let Some(link) = hop {
                self.core_next[at * self.cores + dst] = link;
            }
        }
    }

    /// Forces the route from `at` towards `dst` through neighbour `via`.
    /// Returns false if `at` has no link to `via`.
    pub fn set_route(&mut self, at: NodeId, dst: NodeId, via: NodeId) -> bool {
        let Some(&(_, link)) = self.adjacency[at as usize]
            .iter()
            .find(|(to, _)| *to == via)
        else {
            return false;
        };
        self.overrides.insert((at, dst), link);
        true
    }

    /// The link direction a packet at `at` takes towards `dst`.
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkDirId> {
        if !self.overrides.is_empty() {
            if let Some(&link) = self.overrides.get(&(at, dst)) {
                return Some(link);
            }
        }
        self.shortest_hop(at, dst)
    }

    /// The computed next hop, explicit routes aside.
    fn shortest_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkDirId> {
        if at == dst {
            return None;
        }
        // Into a leaf: through its gateway, whose link into the leaf is the last hop.
        let target = match self.leaves[dst as usize] {
            Some(s) if s.gateway == at => return Some(s.into),
            Some(s) => s.gateway,
            None => dst,
        };
        // Out of a leaf: its only link, if its gateway has a route onwards.
        let (from, first) = match self.leaves[at as usize] {
            Some(s) => (s.gateway, Some(s.out)),
            None => (at, None),
        };
        if from == target {
            return first;
        }
        let (a, b) = (
            self.core_index[from as usize],
            self.core_index[target as usize],
        );
        if a == NOT_CORE || b == NOT_CORE {
            return None;
        }
        let hop = self.core_next[a as usize * self.cores + b as usize];
        (hop != NO_ROUTE).then(|| first.unwrap_or(hop))
    }

    /// Follows next hops from `src` to `dst`; `None` if there is no route or the
    /// routes loop. `link_to` maps a link direction to the node it leads to.
    pub fn path(
        &self,
        src: NodeId,
        dst: NodeId,
        link_to: impl Fn(LinkDirId) -> NodeId,
    ) -> Option<Vec<LinkDirId>> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            if path.len() >= self.nodes {
                return None;
            }
            let link = self.next_hop(at, dst)?;
            path.push(link);
            at = link_to(link);
        }
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Links as (a, b) node pairs; direction ids 2i (a→b) and 2i+1 (b→a).
    fn table(nodes: usize, links: &[(NodeId, NodeId)]) -> (RoutingTable, Vec<NodeId>) {
        let mut edges = Vec::new();
        let mut to = Vec::new();
        for (i, &(a, b)) in links.iter().enumerate() {
            edges.push((a, b, 2 * i as u32));
            edges.push((b, a, 2 * i as u32 + 1));
            to.push(b);
            to.push(a);
        }
        (RoutingTable::shortest_paths(nodes, &edges), to)
    }

    #[test]
    fn dumbbell_routes_through_both_routers() {
        // h0 - r2 - r3 - h1
        let (t, to) = table(4, &[(0, 2), (2, 3), (3, 1)]);
        assert_eq!(t.path(0, 1, |l| to[l as usize]), Some(vec![0, 2, 4]));
        assert_eq!(t.path(1, 0, |l| to[l as usize]), Some(vec![5, 3, 1]));
    }

    #[test]
    fn shortest_path_wins_and_ties_go_to_first_declared_link() {
        // Square 0-1-3 and 0-2-3 (equal) plus a long way 0-4-5-3.
        let (t, to) = table(6, &[(0, 1), (0, 2), (1, 3), (2, 3), (0, 4), (4, 5), (5, 3)]);
        assert_eq!(t.path(0, 3, |l| to[l as usize]), Some(vec![0, 4]));
    }

    #[test]
    fn explicit_route_overrides_and_unreachable_is_none() {
        let (mut t, to) = table(5, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        assert!(t.set_route(0, 3, 2));
        assert_eq!(t.path(0, 3, |l| to[l as usize]), Some(vec![2, 6]));
        assert!(!t.set_route(0, 3, 3));
        assert_eq!(t.path(0, 4, |l| to[l as usize]), None);
    }

    /// The search over every node that the leaf reduction must agree with: BFS from
    /// each destination over all reversed edges, first-declared neighbour one closer.
    fn reference_next_hop(
        nodes: usize,
        edges: &[(NodeId, NodeId, LinkDirId)],
        at: NodeId,
        dst: NodeId,
    ) -> Option<LinkDirId> {
        let mut dist = vec![usize::MAX; nodes];
        dist[dst as usize] = 0;
        let mut frontier = VecDeque::from([dst]);
        while let Some(v) = frontier.pop_front() {
            for &(from, to, _) in edges {
                if to == v && dist[from as usize] == usize::MAX {
                    dist[from as usize] = dist[v as usize] + 1;
                    frontier.push_back(from);
                }
            }
        }
        if at == dst || dist[at as usize] == usize::MAX {
            return None;
        }
        edges
            .iter()
            .find(|&&(from, to, _)| from == at && dist[to as usize] + 1 == dist[at as usize])
            .map(|&(_, _, link)| link)
    }

    #[test]
    fn leaf_reduction_agrees_with_a_search_over_every_node() {
        // Random graphs: a few core routers linked at random (parallel links allowed),
        // hosts hung on them, some 802.11-like cliques (every ordered pair an edge),
        // and isolated pairs. xorshift64: a fixed sequence, not a simulation stream.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..300 {
            let routers = 1 + next(6) as u32;
            let hosts = next(12) as u32;
            let mut edges: Vec<(NodeId, NodeId, LinkDirId)> = Vec::new();
            let link = |edges: &mut Vec<_>, a: NodeId, b: NodeId| {
                let id = edges.len() as u32;
                edges.push((a, b, id));
                edges.push((b, a, id + 1));
            };
            for _ in 0..next(8) {
                let (a, b) = (next(routers as u64) as u32, next(routers as u64) as u32);
                if a != b {
                    link(&mut edges, a, b);
                }
            }
            let mut nodes = routers;
            for _ in 0..hosts {
                link(&mut edges, nodes, next(routers as u64) as u32);
                nodes += 1;
            }
            if next(2) == 0 {
                // A clique of three new stations and one router.
                let members = [nodes, nodes + 1, nodes + 2, next(routers as u64) as u32];
                for &a in &members {
                    for &b in members.iter().filter(|&&b| b != a) {
                        let id = edges.len() as u32;
                        edges.push((a, b, id));
                    }
                }
                nodes += 3;
            }
            if next(3) == 0 {
                link(&mut edges, nodes, nodes + 1); // a component of two leaves
                nodes += 2;
            }
            let nodes = nodes as usize;
            let t = RoutingTable::shortest_paths(nodes, &edges);
            for at in 0..nodes as NodeId {
                for dst in 0..nodes as NodeId {
                    assert_eq!(
                        t.next_hop(at, dst),
                        reference_next_hop(nodes, &edges, at, dst),
                        "{at} -> {dst} in {edges:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_hundred_thousand_hosts_need_no_quadratic_table() {
        // Dumbbell: routers 0 and 1; host pairs 2k (sender, on 0) and 2k + 1 (on 1).
        let pairs = 100_000u32;
        let mut edges = vec![(0, 1, 0), (1, 0, 1)];
        for k in 0..pairs {
            for (host, router) in [(2 + 2 * k, 0), (3 + 2 * k, 1)] {
                let id = edges.len() as u32;
                edges.push((host, router, id));
                edges.push((router, host, id + 1));
            }
        }
        let t = RoutingTable::shortest_paths(2 + 2 * pairs as usize, &edges);
        assert_eq!(t.core_next.len(), 4);
        let to = |l: LinkDirId| edges[l as usize].1;
        // Host 2 (link 2: 2→0) to host 3 (link 4: 3→1, link 5: 1→3): 2→0→1→3.
        assert_eq!(t.path(2, 3, to), Some(vec![2, 0, 5]));
    }
}

//! Static routes, computed once when the world is built.
//!
//! Routes are shortest paths by hop count. Ties are broken by the order in which
//! links appear in the scenario (a node's first-declared link wins), so routes are
//! deterministic. Explicit routes (`at` node, towards `to`, through neighbour `via`)
//! override the computed next hop for that pair only.

use std::collections::VecDeque;

use crate::packet::NodeId;

/// Index of a link direction in the world's link table.
pub type LinkDirId = u32;

const NO_ROUTE: LinkDirId = LinkDirId::MAX;

#[derive(Clone, Debug)]
pub struct RoutingTable {
    nodes: usize,
    /// Outgoing (neighbour, link direction) per node, in declaration order.
    adjacency: Vec<Vec<(NodeId, LinkDirId)>>,
    /// `next_hop[at * nodes + dst]`.
    next_hop: Vec<LinkDirId>,
}

impl RoutingTable {
    /// Builds shortest-path routes over the directed edges `(from, to, link)`.
    pub fn shortest_paths(nodes: usize, edges: &[(NodeId, NodeId, LinkDirId)]) -> Self {
        let mut adjacency = vec![Vec::new(); nodes];
        for &(from, to, link) in edges {
            adjacency[from as usize].push((to, link));
        }
        let mut table = RoutingTable {
            nodes,
            adjacency,
            next_hop: vec![NO_ROUTE; nodes * nodes],
        };
        for dst in 0..nodes {
            table.fill_towards(dst as NodeId);
        }
        table
    }

    /// Breadth-first search from `dst` over reversed edges gives each node's hop
    /// distance; a node's next hop is its first-declared neighbour one hop closer.
    fn fill_towards(&mut self, dst: NodeId) {
        let mut dist = vec![usize::MAX; self.nodes];
        dist[dst as usize] = 0;
        let mut reverse = vec![Vec::new(); self.nodes];
        for (from, out) in self.adjacency.iter().enumerate() {
            for &(to, _) in out {
                reverse[to as usize].push(from);
            }
        }
        let mut frontier = VecDeque::from([dst as usize]);
        while let Some(v) = frontier.pop_front() {
            for &u in &reverse[v] {
                if dist[u] == usize::MAX {
                    dist[u] = dist[v] + 1;
                    frontier.push_back(u);
                }
            }
        }
        for at in 0..self.nodes {
            if at == dst as usize || dist[at] == usize::MAX {
                continue;
            }
            let hop = self.adjacency[at]
                .iter()
                .find(|&&(to, _)| dist[to as usize] + 1 == dist[at])
                .map(|&(_, link)| link);
            if let Some(link) = hop {
                self.next_hop[at * self.nodes + dst as usize] = link;
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
        self.next_hop[at as usize * self.nodes + dst as usize] = link;
        true
    }

    /// The link direction a packet at `at` takes towards `dst`.
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkDirId> {
        let link = self.next_hop[at as usize * self.nodes + dst as usize];
        (link != NO_ROUTE).then_some(link)
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
}

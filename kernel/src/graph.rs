//! The token graph over all chains, built once per snapshot.
//!
//! Nodes are `(chain, token)`. Edges are directed conversions: every pool
//! gives one edge per direction it can trade (swaps, and the deposit and
//! redeem of vaults, lending markets, staking and wrapping), and every
//! bridge gives one edge per carried token and destination chain.
//!
//! Stored as compressed sparse rows: the nodes sorted by `(chain, token)`
//! (a lookup is a binary search, no hash index), and each node's outgoing
//! edges in one run of a flat array, 8 bytes an edge (the target and the
//! edge packed in a `u32`). petgraph's `DiGraph` spends 24 bytes an edge
//! (weight, two next-links, two endpoints) and its `Csr` keeps no parallel
//! edges (two pools of one pair); at 100k pools the graph would be a third
//! of the kernel's memory. Node indices are petgraph's [`NodeIndex`], so
//! the graph's vocabulary stays petgraph's.
//!
//! Invariant the search relies on: a node's outgoing edges iterate bridges
//! first, then pools from the deepest to the thinnest (depth in the node's
//! own token, so comparable), ties by pool index.

use petgraph::graph::NodeIndex;
use switchyard_catalog::{Address, ChainId};

/// A node of the graph.
pub type TokenIx = NodeIndex<u32>;

/// A token on a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenNode {
    /// Chain.
    pub chain: ChainId,
    /// Token address ([`switchyard_catalog::NATIVE_TOKEN`] for the native coin).
    pub address: Address,
}

/// One directed conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Edge {
    /// Through snapshot pool `pool`, from its token `i` to its token `j`.
    Pool {
        /// Pool index in the snapshot.
        pool: u32,
        /// Index of the input token in the pool.
        i: u8,
        /// Index of the output token in the pool.
        j: u8,
    },
    /// Across chains, through snapshot bridge route `bridge`.
    Bridge {
        /// Bridge route index in the snapshot.
        bridge: u32,
    },
}

impl Edge {
    /// The pool, if the edge is one.
    pub const fn pool(self) -> Option<u32> {
        match self {
            Self::Pool { pool, .. } => Some(pool),
            Self::Bridge { .. } => None,
        }
    }

    /// The edge in 32 bits, if it fits: the top bit says bridge; a pool
    /// edge keeps its pool in the low 25 bits and `i`, `j` in 3 bits each
    /// above them (a pool trades at most 8 tokens: Curve's and Balancer's
    /// weighted pools' limit).
    const fn packed(self) -> Option<u32> {
        match self {
            Self::Bridge { bridge } if bridge < 1 << 31 => Some(1 << 31 | bridge),
            Self::Pool { pool, i, j } if pool < 1 << 25 && i < 8 && j < 8 => {
                Some(pool | (i as u32) << 25 | (j as u32) << 28)
            }
            _ => None,
        }
    }

    const fn unpacked(p: u32) -> Self {
        if p >> 31 == 1 {
            Self::Bridge { bridge: p & !(1 << 31) }
        } else {
            Self::Pool { pool: p & ((1 << 25) - 1), i: (p >> 25 & 7) as u8, j: (p >> 28 & 7) as u8 }
        }
    }
}

/// The graph and its token index.
#[derive(Debug, Clone, Default)]
pub struct TokenGraph {
    /// Every node, sorted: a node's index is its position.
    nodes: Vec<TokenNode>,
    /// Node `k`'s outgoing edges are `edges[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    /// `(target, packed edge)`.
    edges: Vec<(u32, u32)>,
    /// Bridge edges by target: `(target, source, bridge)`, sorted.
    bridges_in: Vec<(u32, u32, u32)>,
    /// Distinct pools (and bridges) touching each node: a token only one
    /// pool trades is a dead end for a path passing through.
    degree: Vec<u32>,
}

/// A directed pool edge waiting to be inserted, with its depth.
pub(crate) struct PendingEdge {
    pub(crate) from: TokenNode,
    pub(crate) to: TokenNode,
    pub(crate) edge: Edge,
    pub(crate) depth: f64,
}

impl TokenGraph {
    /// Builds the graph from pool edges (any order) and bridge edges. An
    /// edge that does not pack (a pool index past 2^25, a token index past
    /// 7) is left out.
    pub(crate) fn build(pools: Vec<PendingEdge>, bridges: Vec<PendingEdge>) -> Self {
        let mut nodes: Vec<TokenNode> =
            pools.iter().chain(&bridges).flat_map(|e| [e.from, e.to]).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes.shrink_to_fit();
        let ix = |n: &TokenNode| nodes.binary_search(n).map_or(u32::MAX, |k| k as u32);
        // (from, bridge first, deepest first, edge order, to): the order of
        // a node's run.
        let mut rows: Vec<(u32, bool, f64, Edge, u32)> = pools
            .iter()
            .chain(&bridges)
            .filter(|e| e.edge.packed().is_some())
            .map(|e| {
                let is_pool = matches!(e.edge, Edge::Pool { .. });
                (ix(&e.from), is_pool, -e.depth, e.edge, ix(&e.to))
            })
            .collect();
        drop((pools, bridges));
        rows.sort_unstable_by(|a, b| {
            (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)).then(a.3.cmp(&b.3))
        });
        let n = nodes.len();
        let mut start = Vec::with_capacity(n + 1);
        let mut degree = vec![0u32; n];
        let mut edges = Vec::with_capacity(rows.len());
        let mut bridges_in = Vec::new();
        let mut last: Option<(u32, Option<u32>)> = None;
        for (from, _, _, edge, to) in rows {
            while start.len() <= from as usize {
                start.push(edges.len() as u32);
            }
            // One pool's edges from a node are adjacent (same depth, then
            // edge order): count each pool and each bridge once.
            let id = (from, edge.pool());
            if last != Some(id) || edge.pool().is_none() {
                degree[from as usize] += 1;
            }
            last = Some(id);
            if let Edge::Bridge { bridge } = edge {
                bridges_in.push((to, from, bridge));
            }
            edges.push((to, edge.packed().unwrap_or_default()));
        }
        while start.len() <= n {
            start.push(edges.len() as u32);
        }
        bridges_in.sort_unstable();
        Self { nodes, start, edges, bridges_in, degree }
    }

    /// The node of a token, if any pool or bridge trades it.
    pub fn node(&self, chain: ChainId, address: Address) -> Option<TokenIx> {
        self.nodes.binary_search(&TokenNode { chain, address }).ok().map(NodeIndex::new)
    }

    /// The token of a node.
    ///
    /// # Panics
    ///
    /// When `ix` is not a node of this graph.
    pub fn token(&self, ix: TokenIx) -> TokenNode {
        self.nodes[ix.index()]
    }

    /// Outgoing edges of a node with their targets: bridges first, then
    /// pools deepest first.
    pub fn edges_from(&self, ix: TokenIx) -> impl Iterator<Item = (TokenIx, Edge)> + '_ {
        let k = ix.index();
        let run = match (self.start.get(k), self.start.get(k + 1)) {
            (Some(a), Some(b)) => &self.edges[*a as usize..*b as usize],
            _ => &[],
        };
        run.iter().map(|(to, e)| (NodeIndex::new(*to as usize), Edge::unpacked(*e)))
    }

    /// Bridge edges into a node, with their sources, by bridge index.
    pub fn bridges_into(&self, ix: TokenIx) -> impl Iterator<Item = (TokenIx, Edge)> + '_ {
        let to = ix.index() as u32;
        let first = self.bridges_in.partition_point(|b| b.0 < to);
        self.bridges_in[first..].iter().take_while(move |b| b.0 == to).map(|(_, from, bridge)| {
            (NodeIndex::new(*from as usize), Edge::Bridge { bridge: *bridge })
        })
    }

    /// Distinct pools and bridges leaving a node.
    pub fn degree(&self, ix: TokenIx) -> u32 {
        self.degree.get(ix.index()).copied().unwrap_or(0)
    }

    /// Number of tokens.
    pub fn token_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of directed edges.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(chain: u64, b: u8) -> TokenNode {
        TokenNode { chain: ChainId(chain), address: Address::with_last_byte(b) }
    }

    #[test]
    fn edges_iterate_bridges_first_then_deepest_pools() {
        let pe = |pool: u32, depth: f64| PendingEdge {
            from: t(1, 1),
            to: t(1, 2),
            edge: Edge::Pool { pool, i: 0, j: 1 },
            depth,
        };
        let g = TokenGraph::build(
            vec![pe(3, 5.0), pe(1, 9.0), pe(2, 5.0), pe(0, 1.0)],
            vec![PendingEdge {
                from: t(1, 1),
                to: t(10, 1),
                edge: Edge::Bridge { bridge: 0 },
                depth: 0.0,
            }],
        );
        let from = g.node(ChainId(1), Address::with_last_byte(1)).expect("node");
        let order: Vec<Edge> = g.edges_from(from).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Edge::Bridge { bridge: 0 },
                Edge::Pool { pool: 1, i: 0, j: 1 },
                Edge::Pool { pool: 2, i: 0, j: 1 },
                Edge::Pool { pool: 3, i: 0, j: 1 },
                Edge::Pool { pool: 0, i: 0, j: 1 },
            ]
        );
        assert_eq!(g.degree(from), 5);
        assert_eq!(g.token_count(), 3);
        let bridged = g.node(ChainId(10), Address::with_last_byte(1)).expect("node");
        assert_eq!(
            g.bridges_into(bridged).collect::<Vec<_>>(),
            vec![(from, Edge::Bridge { bridge: 0 })]
        );
        let into = g.node(ChainId(1), Address::with_last_byte(2)).expect("node");
        assert_eq!(g.bridges_into(into).count(), 0);
        assert_eq!(g.edges_from(into).count(), 0);
        assert_eq!(g.edge_count(), 5);
    }

    #[test]
    fn edges_pack_and_unpack() {
        for e in [
            Edge::Pool { pool: 0, i: 0, j: 1 },
            Edge::Pool { pool: (1 << 25) - 1, i: 7, j: 6 },
            Edge::Bridge { bridge: 0 },
            Edge::Bridge { bridge: (1 << 31) - 1 },
        ] {
            assert_eq!(e.packed().map(Edge::unpacked), Some(e));
        }
        assert_eq!(Edge::Pool { pool: 1 << 25, i: 0, j: 1 }.packed(), None);
        assert_eq!(Edge::Pool { pool: 1, i: 8, j: 1 }.packed(), None);
    }
}

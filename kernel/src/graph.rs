//! The token graph over all chains, built once per snapshot.
//!
//! Nodes are `(chain, token)`. Edges are directed conversions: every pool
//! gives one edge per direction it can trade (swaps, and the deposit and
//! redeem of vaults, lending markets, staking and wrapping), and every
//! bridge gives one edge per carried token and destination chain. It is a
//! petgraph [`DiGraph`] with `u32` indices.
//!
//! Invariant the search relies on: a node's outgoing edges iterate bridges
//! first, then pools from the deepest to the thinnest (depth in the node's
//! own token, so comparable), ties by pool index. petgraph iterates a node's
//! edges newest first, so edges are inserted in the reverse of that order.

use std::collections::HashMap;

use petgraph::{
    Direction,
    graph::{DiGraph, NodeIndex},
    visit::EdgeRef,
};
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
}

/// The graph and its token index.
#[derive(Debug, Clone, Default)]
pub struct TokenGraph {
    graph: DiGraph<TokenNode, Edge, u32>,
    index: HashMap<TokenNode, TokenIx>,
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
    /// Builds the graph from pool edges (any order) and bridge edges.
    pub(crate) fn build(mut pools: Vec<PendingEdge>, bridges: Vec<PendingEdge>) -> Self {
        let mut g = Self::default();
        // Thinnest first, ties by pool index descending: iteration (newest
        // first) then yields deepest first, ties by pool index ascending.
        pools.sort_by(|a, b| a.depth.total_cmp(&b.depth).then(b.edge.cmp(&a.edge)));
        let mut bridges = bridges;
        bridges.sort_by_key(|e| std::cmp::Reverse(e.edge));
        let mut seen_pool = std::collections::HashSet::new();
        for e in pools.iter().chain(&bridges) {
            let (from, to) = (g.intern(e.from), g.intern(e.to));
            g.graph.add_edge(from, to, e.edge);
            let key = match e.edge {
                Edge::Pool { pool, .. } => (u64::from(pool), false),
                Edge::Bridge { bridge } => (u64::from(bridge), true),
            };
            if seen_pool.insert((from, key)) {
                g.degree[from.index()] += 1;
            }
        }
        g
    }

    fn intern(&mut self, node: TokenNode) -> TokenIx {
        if let Some(ix) = self.index.get(&node) {
            return *ix;
        }
        let ix = self.graph.add_node(node);
        self.index.insert(node, ix);
        self.degree.push(0);
        ix
    }

    /// The node of a token, if any pool or bridge trades it.
    pub fn node(&self, chain: ChainId, address: Address) -> Option<TokenIx> {
        self.index.get(&TokenNode { chain, address }).copied()
    }

    /// The token of a node.
    pub fn token(&self, ix: TokenIx) -> TokenNode {
        self.graph[ix]
    }

    /// Outgoing edges of a node with their targets: bridges first, then
    /// pools deepest first.
    pub fn edges_from(&self, ix: TokenIx) -> impl Iterator<Item = (TokenIx, Edge)> + '_ {
        self.graph.edges(ix).map(|e| (e.target(), *e.weight()))
    }

    /// Incoming edges of a node with their sources, bridges first.
    pub fn edges_into(&self, ix: TokenIx) -> impl Iterator<Item = (TokenIx, Edge)> + '_ {
        self.graph.edges_directed(ix, Direction::Incoming).map(|e| (e.source(), *e.weight()))
    }

    /// Distinct pools and bridges leaving a node.
    pub fn degree(&self, ix: TokenIx) -> u32 {
        self.degree.get(ix.index()).copied().unwrap_or(0)
    }

    /// Number of tokens.
    pub fn token_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of directed edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The underlying petgraph graph, for analyses.
    pub const fn inner(&self) -> &DiGraph<TokenNode, Edge, u32> {
        &self.graph
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
        let into = g.node(ChainId(1), Address::with_last_byte(2)).expect("node");
        assert_eq!(g.edges_into(into).count(), 4);
    }
}

//! The immutable market snapshot the engine publishes once per block: every
//! pool's state, the bridge routes between the chains it covers, and the
//! token graph over both.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use alloy_primitives::U256;
use switchyard_catalog::{
    Address, Catalog, ChainId, Market, NATIVE_TOKEN, PoolRecord, market::LendingModel,
};

use crate::{
    KernelError,
    bridge::BridgeRoute,
    graph::{Edge, PendingEdge, TokenGraph, TokenNode},
    pool::{
        LendingState, Pool, PoolState, PoolTokens, Protocol, StableswapState, StakingState,
        V2LpState, V3State, VaultState, WeightedState,
    },
    pools::Pools,
    price::PriceTable,
};

/// The head a chain's state belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainHead {
    /// Block number.
    pub block_number: u64,
    /// Block timestamp, unix seconds.
    pub timestamp: u64,
    /// Gas price in wei.
    pub gas_price_wei: U256,
}

/// Every pool's state at one head per chain. Built once, then only read:
/// quoting never mutates it.
#[derive(Debug, Clone, Default)]
pub struct MarketSnapshot {
    heads: BTreeMap<ChainId, ChainHead>,
    /// Chunked ([`Pools`]): a delta that moves no pool (a new head) copies
    /// nothing, one that moves some copies the chunks it touches.
    pools: Pools,
    graph: Arc<TokenGraph>,
    bridges: Arc<[BridgeRoute]>,
    /// Tokens whose balances are scaled units read through the issuing
    /// pool's state (rebasing share tokens such as stETH, Aave aTokens), by
    /// (chain, token): the index of that pool.
    scaled_receipts: Arc<std::collections::HashMap<(ChainId, Address), usize>>,
}

/// State changes to apply to a snapshot: what one block (or several) moved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SnapshotDelta {
    /// New heads, by chain.
    pub heads: Vec<(ChainId, ChainHead)>,
    /// New pool states, by pool index ([`MarketSnapshot::pools`] order).
    pub pools: Vec<(usize, PoolState)>,
}

impl MarketSnapshot {
    /// Builds the snapshot. Wrap edges (native coin ↔ wrapped native) are
    /// added for every network that has a head.
    pub fn build(market: &Market, catalog: &Catalog) -> Result<Self, KernelError> {
        let decimals = |chain: ChainId, token: Address| {
            catalog
                .token(chain, token)
                .map(|t| t.decimals)
                .ok_or(KernelError::UnknownToken { chain, token })
        };
        // One shared slug per protocol.
        let mut slugs: std::collections::HashMap<String, Protocol> =
            std::collections::HashMap::new();
        let mut intern = |slug: &str| -> Protocol {
            slugs.entry(slug.to_owned()).or_insert_with(|| Protocol::from(slug)).clone()
        };
        let mut pools = Vec::with_capacity(market.pools.len() + market.chains.len());
        for rec in &market.pools {
            let c = rec.common();
            let tokens = rec.tokens();
            let tokens = tokens
                .iter()
                .map(|t| decimals(c.chain_id, *t).map(|d| (*t, d)))
                .collect::<Result<Vec<_>, _>>()?;
            let state = PoolState::from_record(rec)
                .ok_or(KernelError::BadPool { chain: c.chain_id, pool: c.address })?;
            pools.push(Pool {
                chain: c.chain_id,
                address: c.address,
                protocol: intern(c.protocol),
                tokens: PoolTokens::new(tokens),
                state,
            });
        }
        let mut heads = BTreeMap::new();
        for ch in &market.chains {
            heads.insert(
                ch.chain_id,
                ChainHead {
                    block_number: ch.block_number,
                    timestamp: ch.timestamp,
                    gas_price_wei: ch.gas_price_wei,
                },
            );
            if let Some(net) = catalog.network(ch.chain_id) {
                let d = net.native_currency.decimals;
                pools.push(Pool {
                    chain: ch.chain_id,
                    address: net.wrapped_native,
                    protocol: intern("wrapped-native"),
                    tokens: PoolTokens::new([
                        (NATIVE_TOKEN, d),
                        (net.wrapped_native, decimals(ch.chain_id, net.wrapped_native)?),
                    ]),
                    state: PoolState::Wrap,
                });
            }
        }
        let scaled_receipts = pools
            .iter()
            .enumerate()
            .filter_map(|(k, p)| match &p.state {
                PoolState::LiquidStaking(st) if st.rebasing => {
                    p.tokens.get(1).map(|t| ((p.chain, *t), k))
                }
                PoolState::Lending(l)
                    if matches!(l.model, LendingModel::Aave | LendingModel::Comet) =>
                {
                    p.tokens.get(1).map(|t| ((p.chain, *t), k))
                }
                _ => None,
            })
            .collect();
        let mut snapshot = Self {
            heads,
            pools: Pools::new(pools),
            graph: Arc::default(),
            bridges: Arc::from(Vec::new()),
            scaled_receipts: Arc::new(scaled_receipts),
        };
        // Prices of this very state size the bridges' fixed fees.
        let prices = crate::price::derive_prices(&snapshot, &crate::price::usd_anchors(catalog));
        let bridges = bridge_routes(catalog, &snapshot.heads, &prices);
        snapshot.graph =
            Arc::new(TokenGraph::build(pool_edges(&snapshot.pools), bridge_edges(&bridges)));
        snapshot.bridges = bridges.into();
        Ok(snapshot)
    }

    /// A new snapshot with `delta` applied; `self` is unchanged (readers of
    /// it keep a consistent view). Pools not named are shared with `self`,
    /// and so are the bridge routes and the token graph: the graph's
    /// deepest-first edge order stays the one of the last full build (it
    /// only guides the search's pruning; a rebuild refreshes it). A state of
    /// another kind or shape than the pool's is refused, and nothing is
    /// applied.
    pub fn apply(&self, delta: &SnapshotDelta) -> Result<Self, KernelError> {
        let mut next = self.clone();
        for (idx, state) in &delta.pools {
            let old = self.pools.get(*idx).ok_or(KernelError::BadDelta { pool: *idx })?;
            let same_shape = std::mem::discriminant(&old.state) == std::mem::discriminant(state)
                && match (&old.state, state) {
                    (PoolState::Stableswap(a), PoolState::Stableswap(b)) => {
                        a.balances.len() == b.balances.len()
                    }
                    (PoolState::Weighted(a), PoolState::Weighted(b)) => {
                        a.balances.len() == b.balances.len()
                            && a.bpt_supply.is_some() == b.bpt_supply.is_some()
                    }
                    _ => true,
                };
            if !same_shape {
                return Err(KernelError::BadDelta { pool: *idx });
            }
        }
        for (idx, state) in &delta.pools {
            next.pools.set_state(*idx, state.clone());
        }
        for (chain, head) in &delta.heads {
            next.heads.insert(*chain, *head);
        }
        Ok(next)
    }

    /// The delta of one recorded block: its trades through the exact pool
    /// math, in order, on the states the earlier ones leave, and every
    /// chain's head one block and `block_seconds` later. A trade the math
    /// refuses (the contract would revert) is left out, as it would not have
    /// landed; so is one naming no pool or token of the snapshot. Returns the
    /// delta and how many trades it applies.
    pub fn replay_block(
        &self,
        trades: &[switchyard_catalog::market::RecordedTrade],
        block_seconds: u64,
    ) -> (SnapshotDelta, usize) {
        let mut working: BTreeMap<usize, PoolState> = BTreeMap::new();
        let mut applied = 0;
        for t in trades {
            let Some((k, pool)) = self
                .pools
                .iter()
                .enumerate()
                .find(|(_, p)| p.chain == t.chain_id && p.address == t.pool)
            else {
                continue;
            };
            let (Some(i), Some(j)) = (pool.index_of(t.token_in), pool.index_of(t.token_out)) else {
                continue;
            };
            let from = working.get(&k).unwrap_or(&pool.state);
            if let Ok(s) = pool.swap_exact_in_from(from, i, j, t.amount_in) {
                working.insert(k, s.next);
                applied += 1;
            }
        }
        let heads = self
            .heads
            .iter()
            .map(|(chain, h)| {
                let next = ChainHead {
                    block_number: h.block_number.saturating_add(1),
                    timestamp: h.timestamp.saturating_add(block_seconds),
                    gas_price_wei: h.gas_price_wei,
                };
                (*chain, next)
            })
            .collect();
        (SnapshotDelta { heads, pools: working.into_iter().collect() }, applied)
    }

    /// The chains on which `self` differs from `before` for a quote: a
    /// head or a pool state. `None` when they are not two states of the
    /// same pools (a rebuilt snapshot: its graph orders edges anew).
    pub fn chains_changed(&self, before: &Self) -> Option<BTreeSet<ChainId>> {
        if !Arc::ptr_eq(&self.graph, &before.graph) || !Arc::ptr_eq(&self.bridges, &before.bridges)
        {
            return None;
        }
        let mut changed = self.pools.chains_changed(&before.pools)?;
        for chain in self.heads.keys().chain(before.heads.keys()) {
            if self.heads.get(chain) != before.heads.get(chain) {
                changed.insert(*chain);
            }
        }
        Some(changed)
    }

    /// Heads by chain.
    pub const fn heads(&self) -> &BTreeMap<ChainId, ChainHead> {
        &self.heads
    }

    /// The head of a chain.
    pub fn head(&self, chain: ChainId) -> Option<&ChainHead> {
        self.heads.get(&chain)
    }

    /// Every pool.
    pub const fn pools(&self) -> &Pools {
        &self.pools
    }

    /// The token graph over every chain.
    pub fn graph(&self) -> &TokenGraph {
        &self.graph
    }

    /// Every bridge route, in the order the graph's bridge edges index.
    pub fn bridges(&self) -> &[BridgeRoute] {
        &self.bridges
    }

    /// The staking pool of a rebasing share token (stETH): balances of it
    /// are shares times the pool's pooled asset over its shares, and a
    /// `transfer` moves whole shares.
    pub fn share_pool(&self, chain: ChainId, token: Address) -> Option<usize> {
        self.scaled_pool(chain, token).filter(|k| {
            self.pools
                .get(*k)
                .is_some_and(|p| matches!(&p.state, PoolState::LiquidStaking(st) if st.rebasing))
        })
    }

    /// Whether balances of `token` are scaled units read through an index
    /// (rebasing share tokens, Aave aTokens): two deposits of `a` and `b`
    /// can read back one wei apart from `a + b`, so a split into one is not
    /// quoted exactly.
    pub fn is_scaled_receipt(&self, chain: ChainId, token: Address) -> bool {
        self.scaled_receipts.contains_key(&(chain, token))
    }

    /// The pool whose state converts balances of a scaled receipt `token`
    /// (see [`Self::is_scaled_receipt`]) to its units: the staking pool of a
    /// share token, the lending pool of an aToken.
    pub fn scaled_pool(&self, chain: ChainId, token: Address) -> Option<usize> {
        self.scaled_receipts.get(&(chain, token)).copied()
    }
}

impl PoolState {
    /// The state a market record describes; `None` when the pool could not
    /// hold it (a V2 reserve past the pair's `uint112`).
    pub fn from_record(rec: &PoolRecord) -> Option<Self> {
        Some(match rec {
            PoolRecord::UniswapV2(p) => {
                let pair = Self::uniswap_v2([p.reserve0, p.reserve1], p.fee_bps)?;
                match (p.lp_supply, pair) {
                    (Some(supply), Self::UniswapV2 { reserves, fee_bps }) => {
                        Self::UniswapV2Lp(Box::new(V2LpState {
                            reserves,
                            fee_bps,
                            liquidity: crate::amm::uniswap_v2::Liquidity {
                                supply,
                                k_last: p.k_last.unwrap_or_default(),
                                fee_on: p.fee_on,
                            },
                        }))
                    }
                    (_, pair) => pair,
                }
            }
            PoolRecord::UniswapV3(p) => {
                let ticks: crate::TickList =
                    p.ticks.iter().map(|t| (t.index, t.liquidity_net)).collect::<Vec<_>>().into();
                Self::UniswapV3(Box::new(V3State {
                    sqrt_price_x96: p.sqrt_price_x96,
                    liquidity: p.liquidity,
                    tick: p.tick,
                    fee: p.fee,
                    tick_spacing: p.tick_spacing,
                    range: crate::RangeHint::of(p.tick, &ticks),
                    ticks,
                }))
            }
            PoolRecord::Stableswap(p) => Self::Stableswap(Box::new(StableswapState {
                balances: p.balances.clone(),
                amp: p.amp_precise(),
                fee: p.fee,
                admin_fee: p.admin_fee.unwrap_or_default(),
                a_precision: U256::from(p.a_precision.unwrap_or(1)),
                lp_supply: p.lp_supply,
            })),
            PoolRecord::Weighted(p) => Self::Weighted(Box::new(WeightedState {
                balances: p.balances.clone(),
                weights: p.weights.clone(),
                swap_fee: p.swap_fee,
                pow_rule: if p.pool_version == Some(1) {
                    crate::amm::weighted::PowRule::First
                } else {
                    crate::amm::weighted::PowRule::Current
                },
                bpt_supply: p.bpt_supply,
            })),
            PoolRecord::Erc4626(p) => Self::Erc4626(Box::new(VaultState {
                total_assets: p.total_assets,
                total_supply: p.total_supply,
                rule: p.rule(),
            })),
            PoolRecord::Lending(p) => Self::Lending(Box::new(LendingState {
                model: p.model,
                exchange_rate: p.exchange_rate,
                available_liquidity: p.available_liquidity,
            })),
            PoolRecord::LiquidStaking(p) => Self::LiquidStaking(Box::new(StakingState {
                total_pooled_asset: p.total_pooled_asset,
                total_shares: p.total_shares,
                rebasing: p.rebasing,
            })),
        })
    }
}

/// What a holder of no shares reads after receiving `amount` of a rebasing
/// share token by `transfer`: the sender moves `⌊amount·S/P⌋` shares, which
/// read back as `⌊shares·P/S⌋` (up to `⌈P/S⌉` wei less than `amount`).
pub fn share_transfer(amount: U256, pooled: U256, shares: U256) -> Option<U256> {
    let s = crate::amm::full_math::mul_div(amount, shares, pooled)?;
    crate::amm::full_math::mul_div(s, pooled, shares)
}

/// The directions a pool can trade, as `(i, j)` token index pairs.
fn directions(pool: &Pool) -> Vec<(usize, usize)> {
    let n = match &pool.state {
        // A Curve pool's LP token (last, when listed) is entered from a coin
        // and left into one, never exchanged.
        PoolState::Stableswap(st) => st.balances.len(),
        PoolState::UniswapV2Lp(_) => 2,
        // A Balancer pool's BPT likewise.
        PoolState::Weighted(w) => w.balances.len(),
        _ => pool.tokens.len(),
    };
    let mut out = Vec::with_capacity(n * (n - 1).max(1) + 2 * n);
    for i in 0..n {
        for j in 0..n {
            let leaves_rebasing_stake =
                matches!(&pool.state, PoolState::LiquidStaking(st) if st.rebasing) && i == 1;
            if i != j && !leaves_rebasing_stake {
                out.push((i, j));
            }
        }
    }
    if let Some(lp) = pool.lp_index() {
        for c in 0..n {
            out.push((c, lp));
            out.push((lp, c));
        }
    }
    out
}

fn pool_edges(pools: &Pools) -> Vec<PendingEdge> {
    let mut out = Vec::with_capacity(pools.len() * 2);
    for (k, pool) in pools.iter().enumerate() {
        let (Ok(idx), true) = (u32::try_from(k), pool.tokens.len() <= usize::from(u8::MAX)) else {
            continue;
        };
        for (i, j) in directions(pool) {
            out.push(PendingEdge {
                from: TokenNode { chain: pool.chain, address: pool.tokens[i] },
                to: TokenNode { chain: pool.chain, address: pool.tokens[j] },
                edge: Edge::Pool { pool: idx, i: i as u8, j: j as u8 },
                depth: pool.depth(i),
            });
        }
    }
    out
}

fn bridge_edges(routes: &[BridgeRoute]) -> Vec<PendingEdge> {
    routes
        .iter()
        .enumerate()
        .filter_map(|(k, r)| {
            Some(PendingEdge {
                from: TokenNode { chain: r.from_chain, address: r.token_in },
                to: TokenNode { chain: r.to_chain, address: r.token_out },
                edge: Edge::Bridge { bridge: u32::try_from(k).ok()? },
                depth: f64::INFINITY,
            })
        })
        .collect()
}

/// Every bridge route between two chains with market state: each carried
/// token to the carried token of the same symbol on the other chain. A route
/// whose fixed USD fee cannot be priced in its token is left out.
fn bridge_routes(
    catalog: &Catalog,
    heads: &BTreeMap<ChainId, ChainHead>,
    prices: &PriceTable,
) -> Vec<BridgeRoute> {
    fn carried<'a>(
        catalog: &'a Catalog,
        b: &'a switchyard_catalog::Bridge,
        chain: ChainId,
    ) -> impl Iterator<Item = &'a switchyard_catalog::Token> + 'a {
        b.tokens
            .get(&chain.0.to_string())
            .into_iter()
            .flatten()
            .filter_map(move |a| catalog.token(chain, *a))
    }
    let block_ms = |c: ChainId| {
        catalog
            .network(c)
            .map_or(0, |n| (n.block_time_seconds * 1000.0).round().clamp(0.0, 1e9) as u64)
    };
    let mut out = Vec::new();
    for b in catalog.bridges() {
        let name: Arc<str> = Arc::from(b.name.as_str());
        for &from in heads.keys() {
            let Some(contract) = b.contracts.get(&from.0.to_string()) else { continue };
            for &to in heads.keys().filter(|c| **c != from) {
                for tin in carried(catalog, b, from) {
                    let fixed_fee = if b.fixed_fee_usd > 0.0 {
                        let Some(p) = prices.get(from, tin.address).map(|p| p.usd) else {
                            continue;
                        };
                        let raw =
                            (b.fixed_fee_usd / p * 10f64.powi(i32::from(tin.decimals))).ceil();
                        if !(0.0..1e30).contains(&raw) {
                            continue;
                        }
                        U256::from(raw as u128)
                    } else {
                        U256::ZERO
                    };
                    // Stargate's entry contract is the pool of the token.
                    let contract = b
                        .layerzero
                        .as_ref()
                        .and_then(|_| {
                            catalog
                                .layerzero_pools()
                                .iter()
                                .find(|p| p.chain_id == from && p.token == tin.address)
                        })
                        .map_or(contract, |p| &p.pool);
                    for tout in carried(catalog, b, to)
                        .filter(|t| t.symbol.eq_ignore_ascii_case(&tin.symbol))
                    {
                        out.push(BridgeRoute {
                            name: std::sync::Arc::clone(&name),
                            from_chain: from,
                            token_in: tin.address,
                            decimals_in: tin.decimals,
                            to_chain: to,
                            token_out: tout.address,
                            decimals_out: tout.decimals,
                            contract: *contract,
                            fee_bps: b.fee_bps,
                            fixed_fee,
                            estimated_seconds: b.estimated_seconds,
                            block_ms: [from, to].map(block_ms),
                            shared_decimals: b.shared_decimals,
                            send_confirmations: b.confirmations.get(&from.0.to_string()).map(|c| {
                                let on = c.counted_on.unwrap_or(from);
                                crate::bridge::SendConfirmations {
                                    blocks: c.blocks,
                                    counted_on: on,
                                    block_ms: block_ms(on),
                                }
                            }),
                        });
                    }
                }
            }
        }
    }
    out
}

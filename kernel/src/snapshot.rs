//! The immutable market snapshot the engine publishes once per block.

use std::collections::{BTreeMap, HashMap};

use alloy_primitives::U256;
use switchyard_catalog::{Address, Catalog, ChainId, Market, NATIVE_TOKEN, PoolRecord};

use crate::{
    KernelError,
    pool::{Pool, PoolState},
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
    pools: Vec<Pool>,
    by_token: HashMap<(ChainId, Address), Vec<usize>>,
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
        let mut pools = Vec::with_capacity(market.pools.len() + market.chains.len());
        for rec in &market.pools {
            let c = rec.common();
            let tokens = rec.tokens();
            let decs = tokens.iter().map(|t| decimals(c.chain_id, *t)).collect::<Result<_, _>>()?;
            let state = match rec {
                PoolRecord::UniswapV2(p) => {
                    PoolState::UniswapV2 { reserves: [p.reserve0, p.reserve1], fee_bps: p.fee_bps }
                }
                PoolRecord::UniswapV3(p) => PoolState::UniswapV3 {
                    sqrt_price_x96: p.sqrt_price_x96,
                    liquidity: p.liquidity,
                    tick: p.tick,
                    fee: p.fee,
                    tick_spacing: p.tick_spacing,
                    ticks: p
                        .ticks
                        .iter()
                        .map(|t| (t.index, t.liquidity_net))
                        .collect::<Vec<_>>()
                        .into(),
                },
                PoolRecord::Stableswap(p) => PoolState::Stableswap {
                    balances: p.balances.clone(),
                    amp: p.amp,
                    fee: p.fee,
                    admin_fee: p.admin_fee.unwrap_or_default(),
                    a_precision: U256::from(p.a_precision.unwrap_or(1)),
                    lp_supply: p.lp_supply,
                },
                PoolRecord::Weighted(p) => PoolState::Weighted {
                    balances: p.balances.clone(),
                    weights: p.weights.clone(),
                    swap_fee: p.swap_fee,
                },
                PoolRecord::Erc4626(p) => PoolState::Erc4626 {
                    total_assets: p.total_assets,
                    total_supply: p.total_supply,
                },
                PoolRecord::Lending(p) => PoolState::Lending {
                    model: p.model,
                    exchange_rate: p.exchange_rate,
                    available_liquidity: p.available_liquidity,
                },
                PoolRecord::LiquidStaking(p) => PoolState::LiquidStaking {
                    total_pooled_asset: p.total_pooled_asset,
                    total_shares: p.total_shares,
                    rebasing: p.rebasing,
                },
            };
            pools.push(Pool {
                chain: c.chain_id,
                address: c.address,
                protocol: c.protocol.to_owned(),
                tokens,
                decimals: decs,
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
                    protocol: "wrapped-native".to_owned(),
                    tokens: vec![NATIVE_TOKEN, net.wrapped_native],
                    decimals: vec![d, decimals(ch.chain_id, net.wrapped_native)?],
                    state: PoolState::Wrap,
                });
            }
        }
        let mut by_token: HashMap<(ChainId, Address), Vec<usize>> = HashMap::new();
        for (i, p) in pools.iter().enumerate() {
            for t in &p.tokens {
                by_token.entry((p.chain, *t)).or_default().push(i);
            }
        }
        // Most liquid first (depth of that very token, so comparable), ties
        // by pool order: the search's liquidity pruning takes a prefix.
        for ((_, token), list) in by_token.iter_mut() {
            let depth = |i: usize| pools[i].index_of(*token).map_or(0.0, |k| pools[i].depth(k));
            list.sort_by(|a, b| depth(*b).total_cmp(&depth(*a)).then(a.cmp(b)));
        }
        Ok(Self { heads, pools, by_token })
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
    pub fn pools(&self) -> &[Pool] {
        &self.pools
    }

    /// Indexes of the pools that trade `token` on `chain`, deepest in
    /// `token` first.
    pub fn pools_of(&self, chain: ChainId, token: Address) -> &[usize] {
        self.by_token.get(&(chain, token)).map_or(&[], Vec::as_slice)
    }
}

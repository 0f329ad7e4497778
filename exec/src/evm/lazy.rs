//! The world's Uniswap pools, derived on first touch instead of deployed.
//!
//! A deployed pool per pool costs its code (a V3 pool's 22 KB is unique:
//! its tokens and own address are immutables) and its storage (a V3 pool's
//! ticks, bitmap and oracle). At 100k pools that is gigabytes, and every
//! block that moves a pool would have to write into a copy of it. Here a
//! pool is its snapshot state; when a transaction first reads the pool's
//! account, the code is taken from one template per kind (the npm pair's
//! runtime, shared; the npm V3 pool's runtime with the template's own
//! address and tokens replaced) and the storage is computed from the
//! state exactly where the published contracts keep it:
//!
//! - `UniswapV2Pair`: `factory` (slot 5), `token0` (6), `token1` (7),
//!   `reserve0 | reserve1 << 112 | blockTimestampLast << 224` (8), and the
//!   reentrancy lock `unlocked = 1` (12); with its liquidity token listed,
//!   `totalSupply` (0), `kLast` (11) and the seed holder's `balanceOf`
//!   (mapping at 1) holding the whole supply;
//! - `UniswapV3Pool`: `slot0` (0: `sqrtPriceX96 | tick << 160 |
//!   observationIndex << 184 | observationCardinality << 200 |
//!   observationCardinalityNext << 216 | feeProtocol << 232 | unlocked <<
//!   240`), `liquidity` (4), `ticks` (mapping at 5: `liquidityGross |
//!   liquidityNet << 128`, and `initialized` at bit 248 of the fourth word),
//!   `tickBitmap` (mapping at 6) and `observations[0]` (8: the block's
//!   timestamp, initialized).
//!
//! The pools' token balances are derived too: a read of a token's balance
//! slot of a derived pool answers the pool's reserve (a pair) or what
//! positions between its initialized ticks hold (a V3 pool: their mint
//! amounts, rounded up as the pool rounds them), and WETH's native backing
//! grows by the WETH the pools hold. So a block that moves only derived
//! pools writes nothing: the next state is the same placed contracts over
//! the moved pools. What a fork writes stays in the fork; a derived pool is
//! kept for the life of its state (one block), so only pools that
//! transactions touch are ever built.

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
};

use alloy_primitives::{Address, B256, Bytes, I256, U256};
use revm::{
    bytecode::Bytecode,
    database::{CacheDB, EmptyDB},
    database_interface::DatabaseRef,
    primitives::KECCAK_EMPTY,
    state::AccountInfo,
};
use switchyard_kernel::{Pool, PoolState, Pools, V3State};

/// `UniswapV2ERC20.balanceOf`'s mapping slot.
pub const V2_BALANCE_OF_SLOT: u64 = 1;

/// The placeholder tokens a V3 template is created with (sorted, and
/// patterns no other code contains), replaced by a pool's own.
pub const V3_TEMPLATE_TOKENS: [Address; 2] = [
    alloy_primitives::address!("5eed0000000000000000000000000000000a0a0a"),
    alloy_primitives::address!("5eed0000000000000000000000000000000b0b0b"),
];

/// A V3 pool's runtime for one fee tier, created at `at` over
/// [`V3_TEMPLATE_TOKENS`] by the factory at `factory`.
#[derive(Debug, Clone)]
pub struct V3Template {
    /// The runtime code.
    pub code: Bytes,
    /// The template's own address (its `NoDelegateCall` immutable).
    pub at: Address,
    /// The factory that created it (its `factory` immutable).
    pub factory: Address,
}

/// A pool served lazily: its index in the snapshot's pool table (the world
/// keeps no copy of the pool).
#[derive(Debug, Clone, Copy)]
enum Lazy {
    /// A Uniswap V2 pair and its factory.
    V2 { ix: u32, factory: Address },
    /// A Uniswap V3 pool, what its positions hold, and its factory.
    V3 { ix: u32, held: [U256; 2], factory: Address },
}

impl Lazy {
    const fn ix(&self) -> usize {
        match self {
            Self::V2 { ix, .. } | Self::V3 { ix, .. } => *ix as usize,
        }
    }

    const fn with_ix(self, k: u32) -> Self {
        match self {
            Self::V2 { factory, .. } => Self::V2 { ix: k, factory },
            Self::V3 { held, factory, .. } => Self::V3 { ix: k, held, factory },
        }
    }

    /// The pool's balance of its token `i`, on `table`.
    fn balance(&self, table: &Pools, i: usize) -> U256 {
        match self {
            Self::V2 { ix, .. } => table
                .get(*ix as usize)
                .and_then(|p| p.state.v2_reserves())
                .and_then(|r| r.get(i).copied())
                .unwrap_or_default(),
            Self::V3 { held, .. } => held.get(i).copied().unwrap_or_default(),
        }
    }
}

/// What positions between consecutive initialized ticks of a V3 pool hold
/// (their mint amounts, rounded up as the pool rounds them), after checking
/// the state: the tick is the price's, `liquidityNet` sums to zero and to
/// the active liquidity at the tick.
pub fn v3_holdings(pool: &Pool) -> Result<[U256; 2], String> {
    use switchyard_kernel::amm::uniswap_v3::{
        amount0_delta, amount1_delta, sqrt_ratio_at_tick, tick_at_sqrt_ratio,
    };
    let PoolState::UniswapV3(v3) = &pool.state else {
        return Err("not a V3 pool".into());
    };
    let V3State { sqrt_price_x96, liquidity, tick, tick_spacing, ticks, .. } = &**v3;
    if tick_at_sqrt_ratio(*sqrt_price_x96).ok() != Some(*tick) {
        return Err("sqrtPriceX96 is not at the snapshot's tick".into());
    }
    let (mut held0, mut held1) = (U256::ZERO, U256::ZERO);
    let mut active: i128 = 0;
    let mut at_tick: i128 = 0;
    let list: Vec<(i32, i128)> = ticks.iter().map(|(t, n)| (*t, *n)).collect();
    for (k, (lower, net)) in list.iter().enumerate() {
        if *tick_spacing <= 0 || *lower % *tick_spacing != 0 {
            return Err("a tick off the spacing".into());
        }
        active = active.checked_add(*net).ok_or("liquidityNet overflows")?;
        if active < 0 {
            return Err("liquidity goes negative".into());
        }
        if *lower <= *tick {
            at_tick = active;
        }
        let Some((upper, _)) = list.get(k + 1) else { break };
        if active == 0 {
            continue;
        }
        let l = active as u128;
        let (a, b) = (sqrt_ratio_at_tick(*lower), sqrt_ratio_at_tick(*upper));
        let (Ok(a), Ok(b)) = (a, b) else { return Err("tick out of range".into()) };
        let p = *sqrt_price_x96;
        let (x, y) = if p <= a {
            (amount0_delta(a, b, l, true), Ok(U256::ZERO))
        } else if p < b {
            (amount0_delta(p, b, l, true), amount1_delta(a, p, l, true))
        } else {
            (Ok(U256::ZERO), amount1_delta(a, b, l, true))
        };
        let (Ok(x), Ok(y)) = (x, y) else { return Err("position amounts overflow".into()) };
        held0 = held0.saturating_add(x);
        held1 = held1.saturating_add(y);
    }
    if active != 0 {
        return Err("liquidityNet does not sum to zero".into());
    }
    if at_tick as u128 != *liquidity {
        return Err(format!(
            "the ticks give active liquidity {at_tick}, the snapshot says {liquidity}"
        ));
    }
    Ok([held0, held1])
}

/// A pool's account once derived.
#[derive(Debug)]
struct Derived {
    info: AccountInfo,
    storage: HashMap<U256, U256>,
}

/// The lazily derived pools of one chain's world at one block.
#[derive(Debug, Default)]
pub struct LazyPools {
    /// The snapshot's pool table the served pools are read from (shared
    /// with the snapshot: no pool is copied).
    table: Pools,
    /// Every pool served, as built (shared by later blocks' states).
    pools: Arc<HashMap<Address, Lazy>>,
    /// The pools that moved since the build, at their latest state (small:
    /// a block's worth of moves; folded into `pools` when it grows).
    moved: Arc<HashMap<Address, Lazy>>,
    /// (token, storage slot) → (pool, index of the token in the pool): the
    /// balance slots the pools' balances are derived at.
    balances: Arc<HashMap<(Address, U256), (Address, u8)>>,
    /// WETH and the native coin backing the WETH the pools hold.
    weth: Option<(Address, U256)>,
    /// Pools a balance of which the world wrote (a token without a plain
    /// balance mapping).
    written: Arc<std::collections::HashSet<Address>>,
    v2_code: Option<Bytecode>,
    v3_templates: HashMap<(u32, i32), V3Template>,
    timestamp: u64,
    derived: RwLock<HashMap<Address, Arc<Derived>>>,
}

impl Clone for LazyPools {
    fn clone(&self) -> Self {
        // What was derived is derived again on demand.
        Self {
            table: self.table.clone(),
            pools: Arc::clone(&self.pools),
            moved: Arc::clone(&self.moved),
            balances: Arc::clone(&self.balances),
            weth: self.weth,
            written: Arc::clone(&self.written),
            v2_code: self.v2_code.clone(),
            v3_templates: self.v3_templates.clone(),
            timestamp: self.timestamp,
            derived: RwLock::default(),
        }
    }
}

impl LazyPools {
    /// No pools yet, read from `table`, at a block with `timestamp`.
    pub fn new(table: Pools, timestamp: u64) -> Self {
        Self { table, timestamp, ..Self::default() }
    }

    /// Reads the served pools from `table` (the snapshot's, before any is
    /// added).
    pub fn read_from(&mut self, table: Pools) {
        self.table = table;
    }

    /// The pair runtime every V2 pool shares.
    pub fn set_v2_code(&mut self, code: Bytes) {
        self.v2_code = Some(Bytecode::new_raw(code));
    }

    /// Whether the pair runtime is set.
    pub fn has_v2_code(&self) -> bool {
        self.v2_code.is_some()
    }

    /// The template of a fee tier.
    pub fn set_v3_template(&mut self, fee: u32, spacing: i32, template: V3Template) {
        self.v3_templates.insert((fee, spacing), template);
    }

    /// Whether a fee tier has its template.
    pub fn has_v3_template(&self, fee: u32, spacing: i32) -> bool {
        self.v3_templates.contains_key(&(fee, spacing))
    }

    /// Serves the table's pool `k` (a V2 pair of the npm code, with its
    /// factory).
    pub fn add_v2(&mut self, k: usize, factory: Address) {
        let (Some(p), Ok(ix)) = (self.table.get(k), u32::try_from(k)) else { return };
        let at = p.address;
        Arc::make_mut(&mut self.pools).insert(at, Lazy::V2 { ix, factory });
    }

    /// Serves the table's pool `k` (a V3 pool whose fee tier has a
    /// template, holding `held`).
    pub fn add_v3(&mut self, k: usize, held: [U256; 2], factory: Address) {
        let (Some(p), Ok(ix)) = (self.table.get(k), u32::try_from(k)) else { return };
        let at = p.address;
        Arc::make_mut(&mut self.pools).insert(at, Lazy::V3 { ix, held, factory });
    }

    /// Derives the served pool `pool`'s balance of its token `index` at
    /// `slot` of the token contract (the token's balance mapping entry of
    /// the pool).
    pub fn add_balance(&mut self, token: Address, slot: U256, pool: Address, index: u8) {
        Arc::make_mut(&mut self.balances).insert((token, slot), (pool, index));
    }

    /// `weth`'s native backing grows by `amount` (WETH a pool holds).
    pub fn back_weth(&mut self, weth: Address, amount: U256) {
        let (_, backing) = self.weth.get_or_insert((weth, U256::ZERO));
        *backing = backing.saturating_add(amount);
    }

    /// `pool` holds a token whose balance the world writes.
    pub fn write_balances(&mut self, pool: Address) {
        Arc::make_mut(&mut self.written).insert(pool);
    }

    /// Whether the world writes one of `pool`'s balances.
    pub fn writes_balances(&self, pool: Address) -> bool {
        self.written.contains(&pool)
    }

    /// A token balance slot of a served pool, derived.
    fn balance_at(&self, token: Address, slot: U256) -> Option<U256> {
        let (pool, index) = self.balances.get(&(token, slot))?;
        Some(self.entry(*pool)?.balance(&self.table, usize::from(*index)))
    }

    /// Whether `at` is served here.
    pub fn serves(&self, at: Address) -> bool {
        self.pools.contains_key(&at)
    }

    /// The same pools at a later block, read from `table` (the later
    /// snapshot's): each of its pools `moved` names takes its new state
    /// (the caller checked it stays of its kind and fee tier), its balances
    /// with it. `renumber` maps the old table's indices of this chain's
    /// pools to the new one's when pools of another chain came or went
    /// before them. `None` when a moved V3 pool's state fails its checks,
    /// or a served pool has no new index (the caller rebuilds).
    pub fn moved(
        &self,
        table: &Pools,
        moved: &[usize],
        renumber: Option<&HashMap<u32, u32>>,
        timestamp: u64,
    ) -> Option<Self> {
        let mut next = Self { timestamp, table: table.clone(), ..self.clone() };
        let mut layer = HashMap::clone(&self.moved);
        if let Some(map) = renumber {
            let re = |(at, l): (&Address, &Lazy)| {
                let k = map.get(&u32::try_from(l.ix()).ok()?)?;
                Some((*at, l.with_ix(*k)))
            };
            next.pools = Arc::new(self.pools.iter().map(re).collect::<Option<_>>()?);
            layer = layer.iter().map(re).collect::<Option<_>>()?;
        }
        for &k in moved {
            let p = table.get(k)?;
            // As it was, on the old table.
            let Some(was) = self.entry(p.address).copied() else { continue };
            let ix = u32::try_from(k).ok()?;
            let updated = match was {
                Lazy::V2 { factory, .. } => Lazy::V2 { ix, factory },
                Lazy::V3 { factory, .. } => Lazy::V3 { ix, held: v3_holdings(p).ok()?, factory },
            };
            if let Some((weth, backing)) = next.weth.as_mut()
                && let Some(i) = p.tokens.iter().position(|t| t == weth)
            {
                let (before, after) = (was.balance(&self.table, i), updated.balance(table, i));
                *backing = backing.saturating_sub(before).saturating_add(after);
            }
            layer.insert(p.address, updated);
        }
        if layer.len() > next.pools.len() / 8 {
            // Folded into the base once the moves are many.
            let mut all = HashMap::clone(&next.pools);
            all.extend(layer);
            next.pools = Arc::new(all);
            next.moved = Arc::default();
        } else {
            next.moved = Arc::new(layer);
        }
        Some(next)
    }

    /// A served pool at its latest state.
    fn entry(&self, at: Address) -> Option<&Lazy> {
        self.moved.get(&at).or_else(|| self.pools.get(&at))
    }

    /// How many pools are served, and how many have been derived.
    pub fn counts(&self) -> (usize, usize) {
        let derived = self.derived.read().map_or(0, |d| d.len());
        (self.pools.len(), derived)
    }

    fn derive(&self, at: Address) -> Option<Arc<Derived>> {
        if let Some(d) = self.derived.read().ok().and_then(|d| d.get(&at).cloned()) {
            return Some(d);
        }
        let entry = self.entry(at)?;
        let pool = self.table.get(entry.ix())?;
        let d = Arc::new(match entry {
            Lazy::V2 { factory, .. } => self.v2(pool, *factory)?,
            Lazy::V3 { factory, .. } => self.v3(pool, *factory)?,
        });
        if let Ok(mut cache) = self.derived.write() {
            cache.insert(at, Arc::clone(&d));
        }
        Some(d)
    }

    fn v2(&self, pool: &Pool, factory: Address) -> Option<Derived> {
        let [r0, r1] = pool.state.v2_reserves()?;
        let code = self.v2_code.clone()?;
        let word = |a: Address| U256::from_be_slice(a.as_slice());
        let ts = U256::from(self.timestamp & u64::from(u32::MAX));
        let mut storage = HashMap::from([
            (U256::from(5u8), word(factory)),
            (U256::from(6u8), word(*pool.tokens.first()?)),
            (U256::from(7u8), word(*pool.tokens.get(1)?)),
            (U256::from(8u8), r0 | (r1 << 112) | (ts << 224)),
            (U256::from(12u8), U256::ONE),
        ]);
        if let PoolState::UniswapV2Lp(lp) = &pool.state {
            // The listed liquidity token: its supply, `kLast`, and all of
            // it with the seed holder, which funding moves it from.
            let l = lp.liquidity;
            storage.insert(U256::ZERO, l.supply);
            storage.insert(U256::from(11u8), l.k_last);
            storage.insert(
                super::world::mapping_slot(super::world::SEED_HOLDER, V2_BALANCE_OF_SLOT),
                l.supply,
            );
        }
        Some(Derived { info: account(code), storage })
    }

    fn v3(&self, pool: &Pool, factory: Address) -> Option<Derived> {
        let PoolState::UniswapV3(v3) = &pool.state else { return None };
        let template = self.v3_templates.get(&(v3.fee, v3.tick_spacing))?;
        let tokens = [*pool.tokens.first()?, *pool.tokens.get(1)?];
        let code = v3_pool_code(template, pool.address, tokens, factory);
        let storage = v3_pool_storage(v3, self.timestamp)?;
        Some(Derived { info: account(Bytecode::new_raw(code.into())), storage })
    }
}

/// A V3 pool's runtime at `at` over `tokens`, created by `factory`: its fee
/// tier's template with the template's own address, tokens and factory
/// replaced.
pub fn v3_pool_code(
    template: &V3Template,
    at: Address,
    tokens: [Address; 2],
    factory: Address,
) -> Vec<u8> {
    [
        (template.at, at),
        (V3_TEMPLATE_TOKENS[0], tokens[0]),
        (V3_TEMPLATE_TOKENS[1], tokens[1]),
        (template.factory, factory),
    ]
    .iter()
    .fold(template.code.to_vec(), |code, (from, to)| super::replace_address(&code, *from, *to))
}

/// The storage of a deployed Uniswap V3 pool in `state` at a block with
/// `timestamp`: `slot0` (unlocked, one observation), `liquidity`, the
/// first observation, and each initialized tick (`liquidityGross` taken as
/// its net's size) with its bitmap bit. `None` for a tick out of range.
pub fn v3_pool_storage(state: &V3State, timestamp: u64) -> Option<HashMap<U256, U256>> {
    let V3State { sqrt_price_x96, liquidity, tick, tick_spacing, ticks, .. } = state;
    let mut storage = HashMap::new();
    let u24 = |t: i32| U256::from(t as u32 & 0x00ff_ffff);
    let slot0 = *sqrt_price_x96
        | (u24(*tick) << 160)
        | (U256::ONE << 200)
        | (U256::ONE << 216)
        | (U256::ONE << 240);
    storage.insert(U256::ZERO, slot0);
    storage.insert(U256::from(4u8), U256::from(*liquidity));
    let initialized = U256::ONE << 248;
    let ts = U256::from(timestamp & u64::from(u32::MAX));
    storage.insert(U256::from(8u8), ts | initialized);
    for (t, net) in ticks.iter() {
        let base = mapping_of(I256::try_from(*t).ok()?, 5);
        let gross = U256::from(net.unsigned_abs().max(1));
        let net_bits = U256::from(*net as u128) << 128;
        storage.insert(base, gross | net_bits);
        storage.insert(base + U256::from(3u8), initialized);
        let compressed = t.div_euclid(*tick_spacing);
        let word = mapping_of(I256::try_from(compressed >> 8).ok()?, 6);
        let bit = U256::ONE << (compressed & 0xff) as usize;
        let e = storage.entry(word).or_insert(U256::ZERO);
        *e |= bit;
    }
    Some(storage)
}

/// An account holding `code`, nonce 1, no balance.
fn account(code: Bytecode) -> AccountInfo {
    AccountInfo { nonce: 1, code_hash: code.hash_slow(), code: Some(code), ..Default::default() }
}

/// The slot of `mapping[key]` for a mapping at `slot`, with a signed key
/// (a tick or a bitmap word), sign-extended as Solidity hashes it.
fn mapping_of(key: I256, slot: u64) -> U256 {
    super::world::keyed_slot(key, U256::from(slot))
}

impl DatabaseRef for LazyPools {
    type Error = std::convert::Infallible;

    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Self::Error> {
        Ok(self.derive(address).map(|d| d.info.clone()))
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Self::Error> {
        let found = self.derived.read().ok().and_then(|d| {
            d.values().find(|x| x.info.code_hash == code_hash).and_then(|x| x.info.code.clone())
        });
        Ok(found.unwrap_or_default())
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, Self::Error> {
        Ok(self.derive(address).and_then(|d| d.storage.get(&index).copied()).unwrap_or_default())
    }

    fn block_hash_ref(&self, _number: u64) -> Result<B256, Self::Error> {
        Ok(B256::ZERO)
    }
}

/// A chain's frozen world: the contracts it placed, over the pools it
/// derives.
#[derive(Debug, Clone, Default)]
pub struct WorldDb {
    /// Everything placed at build (tokens, periphery, other pools), shared
    /// by the states of later blocks that moved only derived pools.
    pub placed: Arc<CacheDB<EmptyDB>>,
    /// The Uniswap pools, derived on first touch.
    pub lazy: LazyPools,
}

impl DatabaseRef for WorldDb {
    type Error = std::convert::Infallible;

    // A pool the world derives is that pool, whatever the build touched at
    // its address; everything else is what the build placed, WETH backed by
    // what the pools hold too.
    fn basic_ref(&self, address: Address) -> Result<Option<AccountInfo>, Self::Error> {
        if self.lazy.serves(address) {
            return self.lazy.basic_ref(address);
        }
        let mut info = self.placed.basic_ref(address)?;
        if let (Some(i), Some((weth, backing))) = (info.as_mut(), self.lazy.weth)
            && weth == address
        {
            i.balance = i.balance.saturating_add(backing);
        }
        Ok(info)
    }

    fn code_by_hash_ref(&self, code_hash: B256) -> Result<Bytecode, Self::Error> {
        match self.placed.cache.contracts.get(&code_hash) {
            Some(c) => Ok(c.clone()),
            None if code_hash == KECCAK_EMPTY => Ok(Bytecode::default()),
            None => self.lazy.code_by_hash_ref(code_hash),
        }
    }

    fn storage_ref(&self, address: Address, index: U256) -> Result<U256, Self::Error> {
        if self.lazy.serves(address) {
            return self.lazy.storage_ref(address, index);
        }
        match self.lazy.balance_at(address, index) {
            Some(balance) => Ok(balance),
            None => self.placed.storage_ref(address, index),
        }
    }

    fn block_hash_ref(&self, number: u64) -> Result<B256, Self::Error> {
        self.placed.block_hash_ref(number)
    }
}

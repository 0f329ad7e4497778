//! The EVM world of a market snapshot: per chain, one in-memory state with
//! every token and pool of the snapshot at its real address, with the
//! snapshot's reserves, ticks and totals, the shortcut contracts (router,
//! executor, delegate, legacy router, wallet factory) and the periphery and
//! helper contracts programs call, at the catalog's addresses, and the
//! bridges a transaction may cross by: CCTP V2 (references) and Stargate V2
//! with LayerZero V2 (published bytecode) and Enso's composer.
//!
//! ```text
//! catalog + market + snapshot ──World::build──▶ per chain: deploy at a scratch address,
//!                                               relocate to the real one, seed the state
//!                                             ──freeze──▶ Arc<BaseDb>
//! request ──ChainWorld::fork──▶ ForkEvm (copy-on-write over the frozen base)
//! ```
//!
//! Contracts are deployed from [`DEPLOYER`] and then moved to their address
//! ([`Evm::relocate`]); Uniswap V2 pairs of a factory whose init code hash is
//! the npm bytecode's are created by that factory at its catalog address,
//! so their CREATE2 address is the real one by construction. Uniswap V3
//! pools get positions minted so that every initialized tick carries the
//! snapshot's `liquidityNet` and the active liquidity is the snapshot's.
//!
//! Balances that the fixtures need (pool reserves, a simulated sender's
//! inputs) are given with [`ChainWorld::fund`]: a write of the balance and
//! the supply for plain ERC-20s (as a mint would leave them, without the
//! token having a mint), a direct write of the balance mapping for the
//! others, which leaves every pool's totals (the state the kernel quoted)
//! untouched.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::Arc,
};

use alloy_primitives::{
    Address, B256, Bytes, U256, address,
    aliases::{I24, U24, U104},
    keccak256, uint,
};
use alloy_sol_types::{SolCall, SolConstructor, SolValue};
use switchyard_catalog::{
    Catalog, ChainId, DeploymentRole, FactoryKind, NATIVE_TOKEN, RoutingStrategy,
    market::{DualVaultRecord, LendingRecord, Market, PoolRecord, VaultRule},
};
use switchyard_kernel::{MarketSnapshot, Pool, PoolState, PriceTable};

use super::{
    Artifact, BaseDb, BlockEnv, Evm, EvmError, ForkEvm, NpmArtifacts, Selectors, aave,
    abi::{
        AccountFactory, BalancerAuthorizer, BalancerProtocolFeeProvider, BalancerVault,
        BalancerWeightedPool2Tokens, BalancerWeightedPoolV3, CctpMessageTransmitterV2,
        CctpTokenMessengerV2, CctpTokenMinterV2, LegacyShortcutsRouter, OpenZeppelinVault,
        ReceiverAccount, ReferenceCToken, ReferenceComet, ReferenceComptroller,
        ReferenceCurveGauge, ReferenceCurveToken, ReferenceDualVault, ReferenceFiatToken,
        ReferenceFlashloanRouterAdapter, ReferenceStableSwap, ReferenceStableSwapLp,
        ReferenceV2Pair, ReferenceV2Router, ReferenceVault, ReferenceWETH, ReferenceWstETH,
        TestERC20, UniswapV2Factory, UniswapV2Pair, UniswapV2Router02, UniswapV3Factory,
        UniswapV3PositionManager, UniswapV3SwapRouter, UniswapV3SwapRouter02, WalletFactory,
    },
    cctp, fixtures, layerzero, lazy,
};

/// Deploys every fixture contract (to a scratch address first).
pub const DEPLOYER: Address = address!("5eed00000000000000000000000000000000de91");

/// The Balancer V2 Vault, at the same address on every chain.
pub const BALANCER_VAULT: Address = address!("ba12222222228d8ba445958a75a0704d566bf2c8");

/// Uniswap V2's pair init code hash (mainnet's, and the npm bytecode's):
/// the one `UniswapV2Router02` has built in.
const UNISWAP_V2_INIT_CODE_HASH: B256 =
    alloy_primitives::b256!("96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f");

/// Who CCTP's fees are minted to in the world (a standard transfer pays
/// none).
pub const CCTP_FEE_RECIPIENT: Address = address!("5eed00000000000000000000000000000000cc7f");

/// Whole tokens each world Stargate pool holds, deposited by an LP.
const LZ_LIQUIDITY_UNITS: u64 = 1_000_000_000;

/// `UniswapV3Factory.getPool`'s storage slot.
pub const V3_GET_POOL_SLOT: u64 = 5;

/// Uniswap's Permit2, at the same address on every chain that lists it (the
/// world's is `ReferencePermit2`: its signature transfers).
pub const PERMIT2: Address = address!("000000000022d473030f116ddee9f6b43ac78ba3");

/// The most LP tokens staked in each Curve gauge of the world (a million, 18
/// decimals), by [`SEED_HOLDER`].
pub const GAUGE_STAKE: U256 = uint!(1000000000000000000000000_U256);

/// Holds the shares or LP supply a snapshot says exist, so totals match.
pub const SEED_HOLDER: Address = address!("5eed0000000000000000000000000000000005ee");

/// The owner Enso's flash-loan adapters were deployed with (their
/// deployment records' sender and `owner_` argument).
const FLASHLOAN_ADAPTER_OWNER: Address = address!("826e0bb2276271efdf2a500597f37b94f6c153ba");

/// The `feeTo` of a Uniswap V2 factory whose protocol fee is on: it
/// receives the fee's liquidity and nothing else reads it.
pub const V2_FEE_TO: Address = address!("5eed000000000000000000000000000000000fee");

/// Why a world could not be built.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// A deployment or call of the build failed.
    #[error("{what}")]
    Evm {
        /// What was being done.
        what: String,
        /// The EVM's error.
        #[source]
        source: EvmError,
    },
    /// The snapshot describes a pool the contracts cannot reproduce.
    #[error("pool {pool} on chain {chain}: {reason}")]
    Inconsistent {
        /// Chain.
        chain: ChainId,
        /// Pool address.
        pool: Address,
        /// What does not fit.
        reason: String,
    },
}

/// Attaches what was being done to an EVM error.
trait Doing<T> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, WorldError>;
}

impl<T> Doing<T> for Result<T, EvmError> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, WorldError> {
        self.map_err(|source| WorldError::Evm { what: what(), source })
    }
}

/// How a token keeps its balances, which decides how an account is funded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenImpl {
    /// `ReferenceERC20`: the balance mapping and the total supply are
    /// written together; a supply past 2^256 is refused.
    Erc20,
    /// `ReferenceWETH`: the balance mapping, backed by the contract's native
    /// balance.
    Weth,
    /// One of our fixtures with a plain balance mapping (vault shares,
    /// cTokens, wstETH): the mapping named is written, the totals are not.
    Mapping(Artifact, &'static str),
    /// An aToken at a fixed liquidity index: scaled units are written,
    /// `rayDiv(amount, index)` and one more, so the balance covers `amount`.
    AToken {
        /// The reserve's liquidity index, ray.
        index: U256,
    },
    /// stETH: shares are written, enough to read back at least `amount`.
    StEth,
    /// A Curve LP token (`ReferenceCurveToken`): its supply is the pool's,
    /// all of it held by [`SEED_HOLDER`] when placed; funding moves tokens
    /// from that holder, so the supply the pool's math reads never changes.
    CurveLp,
    /// A Uniswap V2 pair's own liquidity token, the same way: the supply
    /// is the pair's state, held by [`SEED_HOLDER`] (`balanceOf`, slot 1).
    V2Lp,
    /// A Balancer pool's own BPT, the same way: the supply is the
    /// snapshot's, held by [`SEED_HOLDER`] but for the minimum BPT the
    /// pool burnt at its INIT join (`balanceOf`, slot 0).
    Bpt,
    /// A Compound III market's base balance: principal written to the
    /// holder's `userBasic` and to `totalSupplyBase`, `amount * 1e15 /
    /// index` rounded up, so the balance reads back at least `amount`.
    Comet,
}

/// Storage of the published Balancer pools' `BalancerPoolToken` (both the
/// 2021 `WeightedPool2Tokens` and the 2023 `WeightedPool`): the balance
/// mapping's slot and `_totalSupply`'s. Checked against `totalSupply()`
/// and `balanceOf` wherever they are written.
const BPT_BALANCE_SLOT: u64 = 0;
const BPT_SUPPLY_SLOT: u64 = 2;

/// The shortcut contracts of one chain, by strategy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shortcuts {
    /// `router`: the router and its executor.
    pub router: Option<(Address, Address)>,
    /// `router-legacy`: the legacy router and the executor it calls.
    pub legacy_router: Option<(Address, Address)>,
    /// `delegate`: the code a smart account delegates to.
    pub delegate: Option<Address>,
    /// `delegate-legacy`: the legacy delegate.
    pub legacy_delegate: Option<Address>,
    /// `ensowallet-v2`: the wallet factory and the wallet implementation.
    pub wallet_factory: Option<(Address, Address)>,
    /// `ensowallet-v2` for a backend: the ERC-4337 accounts' factory, and
    /// what their operations run on.
    pub accounts: Option<AccountContracts>,
}

/// Enso's ERC-4337 accounts on one chain (`executionMode=backend`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountContracts {
    /// The factory (`ERC4337CloneFactory`).
    pub factory: Address,
    /// The account implementation it clones (`EnsoReceiver`).
    pub implementation: Address,
    /// The EntryPoint v0.7 the accounts trust.
    pub entry_point: Address,
    /// The runtime code of `EntryPointSimulations`, placed over the
    /// EntryPoint's in a fork to simulate an operation (as bundlers do):
    /// the EntryPoint's own code with `simulateHandleOp`.
    pub simulations: Bytes,
}

impl AccountContracts {
    /// The account of `owner` whose signer is `signer`: the CREATE2
    /// address of the factory's minimal proxy, salt
    /// `keccak256(abi.encode(owner, signer))`.
    pub fn account(&self, owner: Address, signer: Address) -> Address {
        let salt = keccak256((owner, signer).abi_encode_params());
        proxy_address(self.factory, self.implementation, salt)
    }
}

/// One account as the world's build placed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacedAccount {
    /// Address.
    pub address: Address,
    /// Native balance.
    pub balance: U256,
    /// Runtime code (empty for an account without).
    pub code: alloy_primitives::Bytes,
    /// Non-zero storage slots, sorted.
    pub storage: Vec<(U256, U256)>,
}

/// One chain's frozen world.
#[derive(Debug)]
pub struct ChainWorld {
    /// Chain.
    pub chain: ChainId,
    base: Arc<BaseDb>,
    block: BlockEnv,
    tokens: Arc<HashMap<Address, TokenImpl>>,
    /// The shortcut contracts deployed.
    pub shortcuts: Shortcuts,
    /// Pools the world could not reproduce, with the reason: a transaction
    /// through one cannot be proven, so routes avoid them.
    pub unbuilt: Vec<(Address, String)>,
    /// The catalog's non-tokenized positions on the chain, by address: the
    /// fixture that holds them, or why there is none.
    pub positions: BTreeMap<Address, Result<PositionFixture, String>>,
    /// Each contract placed at a fixed address: the artifact (published or
    /// reference) and the selectors of its ABI.
    functions: Arc<HashMap<Address, (Artifact, Arc<Selectors>)>>,
    /// The Balancer pool id the Vault gave each weighted pool placed.
    balancer_ids: HashMap<Address, B256>,
    /// Every address the catalog and market list on the chain.
    listed: Arc<std::collections::HashSet<Address>>,
}

/// What holds a non-tokenized position in the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositionFixture {
    /// An Aave V3 variable debt: the pool and the borrowed asset (the
    /// position's address is the debt token).
    AaveDebt {
        /// The pool.
        pool: Address,
        /// The borrowed asset.
        asset: Address,
    },
    /// A Curve gauge staking `lp` (the position's address is the gauge).
    Gauge {
        /// The LP token staked.
        lp: Address,
    },
}

/// Every chain's world.
#[derive(Debug, Default)]
pub struct World {
    chains: BTreeMap<ChainId, Arc<ChainWorld>>,
}

impl World {
    /// Builds the world of every chain that has a head in `snapshot`.
    pub fn build(
        catalog: &Catalog,
        market: &Market,
        snapshot: &MarketSnapshot,
        prices: &PriceTable,
        npm: &NpmArtifacts,
    ) -> Result<Self, WorldError> {
        Self::build_reusing(catalog, market, snapshot, prices, npm, None)
    }

    /// Builds the world of `snapshot`, sharing `previous`'s world of every
    /// chain whose head and pools are the same as in the snapshot that
    /// world was built from: only the chains that moved are built again
    /// (a block on one chain leaves the others' worlds as they are).
    pub fn build_reusing(
        catalog: &Catalog,
        market: &Market,
        snapshot: &MarketSnapshot,
        prices: &PriceTable,
        npm: &NpmArtifacts,
        previous: Option<(&MarketSnapshot, &Self)>,
    ) -> Result<Self, WorldError> {
        let mut chains = BTreeMap::new();
        for (chain, head) in snapshot.heads() {
            let block = BlockEnv {
                chain_id: chain.0,
                number: head.block_number,
                timestamp: head.timestamp,
            };
            let unchanged = previous.and_then(|(before, world)| {
                let w = world.chain(*chain)?;
                same_pools(before, snapshot, *chain)
                    .then_some((w, before.head(*chain) == Some(head)))
            });
            match unchanged {
                Some((w, true)) => {
                    chains.insert(*chain, Arc::clone(w));
                    continue;
                }
                // Only the head moved: the same state at the new block. No
                // contract of the world reads the clock into an amount (V2
                // pairs keep timestamps for their price accumulators only,
                // deadlines only bound), so this is the world a rebuild
                // would give.
                Some((w, false)) => {
                    chains.insert(*chain, Arc::new(w.at(block)));
                    continue;
                }
                None => {}
            }
            // The same pools, some pairs and concentrated pools traded:
            // their storage written in place.
            let patched = previous
                .and_then(|(before, world)| world.chain(*chain)?.patched(before, snapshot, block));
            if let Some(w) = patched {
                chains.insert(*chain, Arc::new(w));
                continue;
            }
            let world =
                ChainBuilder::new(*chain, block, catalog, prices, npm).build(market, snapshot)?;
            chains.insert(*chain, Arc::new(world));
        }
        Ok(Self { chains })
    }

    /// One chain's world.
    pub fn chain(&self, chain: ChainId) -> Option<&Arc<ChainWorld>> {
        self.chains.get(&chain)
    }

    /// Every pool the world could not reproduce: `(chain, pool, reason)`.
    pub fn unbuilt(&self) -> impl Iterator<Item = (ChainId, Address, &str)> {
        self.chains
            .iter()
            .flat_map(|(c, w)| w.unbuilt.iter().map(move |(a, why)| (*c, *a, why.as_str())))
    }
}

/// Whether two StableSwap states differ in their balances alone (the
/// same coins, amplification, fees and LP supply).
fn same_but_balances(
    a: &switchyard_kernel::StableswapState,
    b: &switchyard_kernel::StableswapState,
) -> bool {
    a.balances.len() == b.balances.len()
        && a.amp == b.amp
        && a.fee == b.fee
        && a.admin_fee == b.admin_fee
        && a.a_precision == b.a_precision
        && a.lp_supply == b.lp_supply
}

/// Whether `chain`'s pools are the same, in the same order, in both.
fn same_pools(a: &MarketSnapshot, b: &MarketSnapshot, chain: ChainId) -> bool {
    // One pass over each table (at 100k pools a pass reads 12 MiB).
    let mut on_a = a.pools().iter().filter(|p| p.chain == chain);
    let mut on_b = b.pools().iter().filter(|p| p.chain == chain);
    loop {
        match (on_a.next(), on_b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if std::ptr::eq(x, y) || x == y => {}
            _ => return false,
        }
    }
}

impl ChainWorld {
    /// Whether the catalog or the market lists `at` on this chain (a
    /// program may call only such contracts).
    pub fn is_listed(&self, at: Address) -> bool {
        self.listed.contains(&at)
    }

    /// The Balancer pool id of the weighted pool at `pool`, as its Vault
    /// registered it.
    pub fn balancer_pool_id(&self, pool: Address) -> Option<B256> {
        self.balancer_ids.get(&pool).copied()
    }

    /// The contract placed at `at`: its artifact and the selectors of its
    /// functions (`None`: nothing was placed there).
    pub fn contract_at(&self, at: Address) -> Option<(Artifact, &Selectors)> {
        self.functions.get(&at).map(|(a, s)| (*a, s.as_ref()))
    }

    /// The same world at another block (sharing its frozen state).
    fn at(&self, block: BlockEnv) -> Self {
        Self {
            chain: self.chain,
            base: Arc::clone(&self.base),
            block,
            tokens: Arc::clone(&self.tokens),
            shortcuts: self.shortcuts.clone(),
            unbuilt: self.unbuilt.clone(),
            positions: self.positions.clone(),
            functions: Arc::clone(&self.functions),
            balancer_ids: self.balancer_ids.clone(),
            listed: Arc::clone(&self.listed),
        }
    }

    /// The world after the pools that moved between `before` and `after`
    /// (this chain's): a derived pair or V3 pool (of the same fee tier)
    /// takes its new state, its balances with it, writing nothing; our
    /// configurable-fee pair has its reserves and balances written in
    /// place. `None` when anything else changed: the caller rebuilds.
    fn patched(
        &self,
        before: &MarketSnapshot,
        after: &MarketSnapshot,
        block: BlockEnv,
    ) -> Option<Self> {
        let chain = self.chain;
        let mut old = before.pools().iter().enumerate().filter(|(_, p)| p.chain == chain);
        let mut new = after.pools().iter().enumerate().filter(|(_, p)| p.chain == chain);
        let mut evm: Option<Evm> = None;
        let mut moved: Vec<usize> = Vec::new();
        // Whether this chain's pools sit at other indices in the new table
        // (another chain's pools came or went before them).
        let mut shifted = false;
        loop {
            let ((ka, a), (kb, b)) = match (old.next(), new.next()) {
                (Some(a), Some(b)) => (a, b),
                (None, None) => break,
                // Pools came or went: rebuilt.
                _ => return None,
            };
            if a.address != b.address || a.tokens != b.tokens {
                return None;
            }
            shifted |= ka != kb;
            if std::ptr::eq(a, b) || a == b {
                continue;
            }
            // A derived pool was built; only another one may be unbuilt.
            let lazy = self.base.lazy.serves(b.address);
            if !lazy && self.unbuilt.iter().any(|(x, _)| *x == b.address) {
                return None;
            }
            // Balances the world wrote (a token without a plain balance
            // mapping) are written again; derived ones follow the state.
            let written = !lazy || self.base.lazy.writes_balances(b.address);
            match (&a.state, &b.state) {
                (
                    PoolState::UniswapV2 { fee_bps: was, .. },
                    PoolState::UniswapV2 { reserves, fee_bps },
                ) if was == fee_bps => {
                    // A state's reserves are the pair's `uint112`s.
                    let reserves = [U256::from(reserves[0]), U256::from(reserves[1])];
                    if lazy {
                        moved.push(kb);
                    } else {
                        // Our configurable-fee pair keeps reserve0 |
                        // reserve1 << 112 | timestamp << 224 in slot 0.
                        let evm = evm.get_or_insert_with(|| Evm::thaw(&self.base, block));
                        let kept = evm.storage(b.address, U256::ZERO) >> 224 << 224;
                        let packed = kept | reserves[0] | (reserves[1] << 112);
                        evm.set_storage(b.address, U256::ZERO, packed);
                    }
                    if written {
                        let evm = evm.get_or_insert_with(|| Evm::thaw(&self.base, block));
                        self.set_pool_balances(evm, b, reserves)?;
                    }
                }
                (PoolState::UniswapV3(was), PoolState::UniswapV3(now))
                    if lazy && was.fee == now.fee && was.tick_spacing == now.tick_spacing =>
                {
                    // The derived pool takes the new state (its fee tier's
                    // template is the same), its balances with it.
                    moved.push(kb);
                    if written {
                        let held = lazy::v3_holdings(b).ok()?;
                        let evm = evm.get_or_insert_with(|| Evm::thaw(&self.base, block));
                        self.set_pool_balances(evm, b, held)?;
                    }
                }
                // A derived pair whose liquidity token is listed: its
                // storage (supply and `kLast` too) follows the state.
                (PoolState::UniswapV2Lp(was), PoolState::UniswapV2Lp(now))
                    if lazy
                        && was.fee_bps == now.fee_bps
                        && was.liquidity.fee_on == now.liquidity.fee_on =>
                {
                    moved.push(kb);
                    if written {
                        let reserves = b.state.v2_reserves()?;
                        let evm = evm.get_or_insert_with(|| Evm::thaw(&self.base, block));
                        self.set_pool_balances(evm, b, reserves)?;
                    }
                }
                // A StableSwap pool that only traded (its parameters as
                // they were): its balances array and its coins' balances.
                (PoolState::Stableswap(was), PoolState::Stableswap(now))
                    if !lazy && same_but_balances(was, now) =>
                {
                    let evm = evm.get_or_insert_with(|| Evm::thaw(&self.base, block));
                    fixtures::stableswap_balances(evm, b.address, &now.balances).ok()?;
                    self.set_pool_balances(evm, b, now.balances.iter().copied())?;
                }
                _ => return None,
            }
        }
        if moved.is_empty() && evm.is_none() && !shifted {
            return Some(self.at(block));
        }
        // The old index of each of this chain's pools to its new one (same
        // pools, same order: by position), only when they moved.
        let renumber: Option<HashMap<u32, u32>> = if shifted {
            let on = |s: &MarketSnapshot| -> Option<Vec<u32>> {
                s.pools()
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.chain == chain)
                    .map(|(k, _)| u32::try_from(k).ok())
                    .collect()
            };
            Some(on(before)?.into_iter().zip(on(after)?).collect())
        } else {
            None
        };
        let lazy =
            self.base.lazy.moved(after.pools(), &moved, renumber.as_ref(), block.timestamp)?;
        // Nothing written: the placed contracts are shared as they are.
        let placed = match evm {
            Some(evm) => Arc::new(evm.freeze().0),
            None => Arc::clone(&self.base.placed),
        };
        Some(Self { base: Arc::new(lazy::WorldDb { placed, lazy }), ..self.at(block) })
    }

    /// `pool`'s balance of each of its tokens set to `amounts`, in the
    /// pool's token order ([`Self::set_balance`] each).
    fn set_pool_balances(
        &self,
        evm: &mut Evm,
        pool: &Pool,
        amounts: impl IntoIterator<Item = U256>,
    ) -> Option<()> {
        for (token, amount) in pool.tokens.iter().zip(amounts) {
            self.set_balance(evm, *token, pool.address, amount)?;
        }
        Some(())
    }

    /// Sets `holder`'s balance of `token` to exactly `amount` (tokens with
    /// a plain balance mapping, WETH and `ReferenceERC20`; `None` for others).
    fn set_balance(
        &self,
        evm: &mut Evm,
        token: Address,
        holder: Address,
        amount: U256,
    ) -> Option<()> {
        let kind = self.tokens.get(&token).copied();
        let now = Self::balance_of(evm, token, holder).ok()?;
        if amount >= now {
            return match kind {
                Some(TokenImpl::Erc20 | TokenImpl::Weth | TokenImpl::Mapping(..)) => {
                    fund(evm, kind, token, holder, amount - now).ok()
                }
                _ => None,
            };
        }
        let less = now - amount;
        match kind {
            Some(TokenImpl::Erc20) => {
                let art = Artifact::ReferenceErc20;
                let slot = mapping_slot(holder, art.storage_slot("balanceOf")?);
                evm.set_storage(token, slot, amount);
                let supply_slot = U256::from(art.storage_slot("totalSupply")?);
                let supply = evm.storage(token, supply_slot);
                evm.set_storage(token, supply_slot, supply.saturating_sub(less));
                Some(())
            }
            Some(TokenImpl::Weth) => {
                let slot = mapping_slot(holder, Artifact::ReferenceWeth.storage_slot("balanceOf")?);
                evm.set_storage(token, slot, amount);
                let backing = evm.balance(token);
                evm.set_balance(token, backing.saturating_sub(less));
                Some(())
            }
            Some(TokenImpl::Mapping(artifact, var)) => {
                let slot = mapping_slot(holder, artifact.storage_slot(var)?);
                evm.set_storage(token, slot, amount);
                Some(())
            }
            _ => None,
        }
    }

    /// What the frozen world holds: placed accounts, their storage slots,
    /// bytes of distinct code (shared code counted once), and the pools it
    /// derives on touch with how many have been.
    pub fn footprint(&self) -> (usize, usize, usize, (usize, usize)) {
        let cache = &self.base.placed.cache;
        let slots = cache.accounts.values().map(|a| a.storage.len()).sum();
        let mut seen = std::collections::HashSet::new();
        let code = cache
            .accounts
            .values()
            .filter_map(|a| a.info.code.as_ref())
            .filter(|c| seen.insert(c.original_bytes().as_ptr()))
            .map(|c| c.original_bytes().len())
            .sum();
        (cache.accounts.len(), slots, code, self.base.lazy.counts())
    }

    /// Every account the build placed (not the Uniswap pools derived on
    /// first touch), sorted by address: what a local node is loaded with to
    /// run the same contracts in the same state.
    pub fn placed_accounts(&self) -> Vec<PlacedAccount> {
        let cache = &self.base.placed.cache;
        let mut out: Vec<PlacedAccount> = cache
            .accounts
            .iter()
            .map(|(address, a)| {
                let code = a
                    .info
                    .code
                    .as_ref()
                    .or_else(|| cache.contracts.get(&a.info.code_hash))
                    .map(|c| c.original_bytes())
                    .unwrap_or_default();
                let mut storage: Vec<(U256, U256)> =
                    a.storage.iter().filter(|(_, v)| !v.is_zero()).map(|(k, v)| (*k, *v)).collect();
                storage.sort();
                PlacedAccount { address: *address, balance: a.info.balance, code, storage }
            })
            .collect();
        out.sort_by_key(|a| a.address);
        out
    }

    /// A fresh fork of the world: anything it does stays in it.
    pub fn fork(&self) -> ForkEvm {
        Evm::over(Arc::clone(&self.base), self.block)
    }

    /// The block the world is at.
    pub const fn block(&self) -> BlockEnv {
        self.block
    }

    /// How `token` keeps balances, when it is one of the world's tokens.
    pub fn token_impl(&self, token: Address) -> Option<TokenImpl> {
        self.tokens.get(&token).copied()
    }

    /// Gives `holder` `amount` more of `token` (the native coin for
    /// [`NATIVE_TOKEN`]) without touching any pool's state; refuses
    /// ([`EvmError::Unfundable`]) an amount no holder could have.
    pub fn fund<E>(
        &self,
        evm: &mut Evm<E>,
        token: Address,
        holder: Address,
        amount: U256,
    ) -> Result<(), EvmError>
    where
        E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible>
            + std::fmt::Debug,
    {
        let kind = self.tokens.get(&token).copied();
        fundable(evm, kind, token, amount)?;
        fund(evm, kind, token, holder, amount)
    }

    /// Gives `borrower` `amount` more variable debt in one of the world's
    /// Aave debt positions (its variable index is one ray, so scaled units
    /// are wei).
    pub fn add_debt<E>(
        &self,
        evm: &mut Evm<E>,
        debt_token: Address,
        borrower: Address,
        amount: U256,
    ) -> Result<(), EvmError>
    where
        E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible>
            + std::fmt::Debug,
    {
        match self.positions.get(&debt_token) {
            Some(Ok(PositionFixture::AaveDebt { pool, .. })) => {
                aave::add_variable_debt(evm, *pool, debt_token, borrower, amount)
            }
            _ => Err(EvmError::NotAContract(debt_token)),
        }
    }

    /// `holder`'s balance of `token` (the native coin for [`NATIVE_TOKEN`]).
    pub fn balance_of<E>(
        evm: &mut Evm<E>,
        token: Address,
        holder: Address,
    ) -> Result<U256, EvmError>
    where
        E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible>
            + std::fmt::Debug,
    {
        if token == NATIVE_TOKEN {
            return Ok(evm.balance(holder));
        }
        evm.view(token, &TestERC20::balanceOfCall { who: holder })
    }
}

/// The storage slot of `mapping[key]` for a mapping at `slot`.
pub fn mapping_slot(key: Address, slot: u64) -> U256 {
    keyed_slot(key, U256::from(slot))
}

/// The storage slot of `key`'s entry in the mapping at `slot`, which may
/// itself be an entry of an outer mapping (Solidity's
/// `keccak256(abi.encode(key, slot))`).
pub fn keyed_slot<K: SolValue>(key: K, slot: U256) -> U256 {
    U256::from_be_bytes(keccak256((key, slot).abi_encode()).0)
}

/// Refuses a balance no holder could have: near 2^128 wei of a native coin
/// (or WETH, backed by it), or more of a token the world does not mint than
/// its supply (where the fixture keeps one). A plain ERC-20's supply grows
/// with the funding, which refuses a supply past 2^256.
fn fundable<E>(
    evm: &mut Evm<E>,
    kind: Option<TokenImpl>,
    token: Address,
    amount: U256,
) -> Result<(), EvmError>
where
    E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    match kind {
        _ if token == NATIVE_TOKEN => {}
        Some(TokenImpl::Weth) => {}
        Some(TokenImpl::Mapping(..) | TokenImpl::AToken { .. } | TokenImpl::StEth) => {
            let supply = evm.view(token, &TestERC20::totalSupplyCall {}).unwrap_or_default();
            if !supply.is_zero() && amount > supply {
                return Err(EvmError::Unfundable(format!(
                    "{amount}, above the supply of {supply}"
                )));
            }
            return Ok(());
        }
        // A Curve LP token's funding refuses, before it writes anything,
        // more than the seed holder still has.
        Some(
            TokenImpl::Erc20
            | TokenImpl::CurveLp
            | TokenImpl::V2Lp
            | TokenImpl::Bpt
            | TokenImpl::Comet,
        )
        | None => {
            return Ok(());
        }
    }
    if amount > U256::from(u128::MAX) {
        return Err(EvmError::Unfundable(format!("{amount} wei of a native coin")));
    }
    Ok(())
}

fn fund<E>(
    evm: &mut Evm<E>,
    kind: Option<TokenImpl>,
    token: Address,
    holder: Address,
    amount: U256,
) -> Result<(), EvmError>
where
    E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    if token == NATIVE_TOKEN {
        let b = evm.balance(holder);
        evm.set_balance(holder, b.saturating_add(amount));
        return Ok(());
    }
    let add_to_mapping =
        |evm: &mut Evm<E>, artifact: Artifact, var: &str, units: U256| -> Result<(), EvmError> {
            let slot = artifact
                .storage_slot(var)
                .ok_or(EvmError::NotAContract(token))
                .map(|s| mapping_slot(holder, s))?;
            let b = evm.storage(token, slot);
            evm.set_storage(token, slot, b.saturating_add(units));
            Ok(())
        };
    let var_slot = |artifact: Artifact, var: &str| {
        artifact.storage_slot(var).map(U256::from).ok_or(EvmError::NotAContract(token))
    };
    match kind {
        Some(TokenImpl::Erc20) => {
            // What a mint would do: the supply grows (refused past 2^256),
            // then the holder's balance.
            let supply_slot = var_slot(Artifact::ReferenceErc20, "totalSupply")?;
            let supply = evm.storage(token, supply_slot);
            let grown = supply.checked_add(amount).ok_or_else(|| {
                EvmError::Unfundable(format!("{amount} on a supply of {supply} overflows"))
            })?;
            evm.set_storage(token, supply_slot, grown);
            add_to_mapping(evm, Artifact::ReferenceErc20, "balanceOf", amount)
        }
        Some(TokenImpl::Weth) => {
            add_to_mapping(evm, Artifact::ReferenceWeth, "balanceOf", amount)?;
            let b = evm.balance(token);
            evm.set_balance(token, b.saturating_add(amount));
            Ok(())
        }
        Some(TokenImpl::Mapping(artifact, var)) => add_to_mapping(evm, artifact, var, amount),
        Some(TokenImpl::AToken { index }) => aave::fund_a_token(evm, token, holder, amount, index),
        Some(TokenImpl::CurveLp) => {
            let slot = Artifact::ReferenceCurveToken
                .storage_slot("balanceOf")
                .ok_or(EvmError::NotAContract(token))?;
            from_seed_holder(evm, token, holder, amount, slot)
        }
        Some(TokenImpl::V2Lp) => {
            from_seed_holder(evm, token, holder, amount, lazy::V2_BALANCE_OF_SLOT)
        }
        Some(TokenImpl::Bpt) => from_seed_holder(evm, token, holder, amount, BPT_BALANCE_SLOT),
        Some(TokenImpl::Comet) => {
            let word = |evm: &mut Evm<E>, var: &str| -> Result<(U256, U256), EvmError> {
                let slot = var_slot(Artifact::ReferenceComet, var)?;
                Ok((slot, evm.storage(token, slot)))
            };
            let low = |bits: usize| (U256::ONE << bits) - U256::ONE;
            let (_, indices) = word(evm, "baseSupplyIndex")?;
            let index = indices & low(64);
            let scale = U256::from(1_000_000_000_000_000u64);
            let principal =
                switchyard_kernel::amm::full_math::mul_div_rounding_up(amount, scale, index)
                    .ok_or_else(|| EvmError::Unfundable(format!("{amount} at index {index}")))?;
            let (totals_slot, totals) = word(evm, "totalSupplyBase")?;
            let total = (totals & low(104)) + principal;
            let user = mapping_slot(
                holder,
                Artifact::ReferenceComet
                    .storage_slot("userBasic")
                    .ok_or(EvmError::NotAContract(token))?,
            );
            let basic = evm.storage(token, user);
            let held = (basic & low(104)) + principal;
            // A positive int104 principal, a uint104 total.
            if total > low(104) || held > low(103) {
                return Err(EvmError::Unfundable(format!(
                    "{amount}: past the market's 104-bit principal"
                )));
            }
            evm.set_storage(token, totals_slot, (totals & !low(104)) | total);
            evm.set_storage(token, user, (basic & !low(104)) | held);
            Ok(())
        }
        Some(TokenImpl::StEth) => {
            let pooled =
                evm.storage(token, var_slot(Artifact::ReferenceStETH, "_totalPooledEther")?);
            let total = evm.storage(token, var_slot(Artifact::ReferenceStETH, "_totalShares")?);
            let shares =
                switchyard_kernel::amm::full_math::mul_div(amount, total, pooled).unwrap_or(amount);
            add_to_mapping(evm, Artifact::ReferenceStETH, "_shares", shares + U256::ONE)
        }
        None => Err(EvmError::NotAContract(token)),
    }
}

/// `ReferenceComet`'s constructor arguments for a market of `base` at
/// `index` (supply and borrow alike) with `principal` supplied and
/// borrowed, and Compound III USDC's rate model on Ethereum: a 90% kink,
/// per year 5% and 160% below and above it for suppliers (no base), 1.5%
/// base and 5.6% / 168% for borrowers, a 100-unit borrow minimum.
pub fn comet_constructor(
    base: Address,
    (name, symbol): (String, String),
    index: u64,
    (supplied, borrowed): (U104, U104),
) -> Vec<u8> {
    let per_second = |per_year: u64| U256::from(per_year) / U256::from(31_536_000u64);
    let kink = U256::from(900_000_000_000_000_000u64);
    ReferenceComet::constructorCall {
        baseToken_: base,
        name_: name,
        symbol_: symbol,
        baseBorrowMin_: U256::from(100_000_000u64),
        supplyRates: [
            kink,
            per_second(50_000_000_000_000_000),
            per_second(1_600_000_000_000_000_000),
            U256::ZERO,
        ],
        borrowRates: [
            kink,
            per_second(56_000_000_000_000_000),
            per_second(1_680_000_000_000_000_000),
            per_second(15_000_000_000_000_000),
        ],
        supplyIndex: index,
        borrowIndex: index,
        supplyBase: supplied,
        borrowBase: borrowed,
    }
    .abi_encode()
}

/// A transfer of `amount` of `token` from [`SEED_HOLDER`] to `holder`, in
/// the balance mapping at `slot`: the supply stays the pool's. Refused,
/// before anything is written, past what the holder has left.
fn from_seed_holder<E>(
    evm: &mut Evm<E>,
    token: Address,
    holder: Address,
    amount: U256,
    slot: u64,
) -> Result<(), EvmError>
where
    E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    let from = mapping_slot(SEED_HOLDER, slot);
    let held = evm.storage(token, from);
    let left = held.checked_sub(amount).ok_or_else(|| {
        EvmError::Unfundable(format!("{amount} LP tokens, above the {held} unallocated"))
    })?;
    evm.set_storage(token, from, left);
    let to = mapping_slot(holder, slot);
    let b = evm.storage(token, to);
    evm.set_storage(token, to, b.saturating_add(amount));
    Ok(())
}

/// Builds one chain.
struct ChainBuilder<'a> {
    chain: ChainId,
    evm: Evm,
    catalog: &'a Catalog,
    prices: &'a PriceTable,
    npm: &'a NpmArtifacts,
    tokens: HashMap<Address, TokenImpl>,
    /// Uniswap V2 factories placed at their catalog address.
    v2_factories: HashMap<Address, Address>,
    /// Whether each factory's `feeTo` was set, by the first pair whose
    /// liquidity token is listed.
    v2_fee_set: HashMap<Address, bool>,
    /// Scratch V3 factory and the swapper that mints positions.
    v3: Option<Address>,
    /// Uniswap V3 factories placed at their catalog address.
    v3_factories: HashSet<Address>,
    /// The Uniswap pools, derived on first touch ([`lazy`]).
    lazy: lazy::LazyPools,
    /// Aave debt positions placed with their reserves.
    debts: Vec<(Address, Result<PositionFixture, String>)>,
    /// Aave markets placed, by pool address.
    aave_markets: HashMap<Address, aave::AaveMarket>,
    /// Compound comptrollers placed, with their oracles.
    comptrollers: HashMap<Address, Address>,
    /// What each contract at a fixed address was built from (its ABI is
    /// the program guard's list of callable functions).
    placed: HashMap<Address, Artifact>,
    /// Pools the Balancer Vault has registered (its next pool nonce), once
    /// the Vault is placed.
    balancer_pools: Option<u128>,
    /// The protocol fee provider later Balancer pools read, once placed.
    balancer_fees: Option<Address>,
    /// The pool id each weighted pool was registered under.
    balancer_ids: HashMap<Address, B256>,
}

impl<'a> ChainBuilder<'a> {
    fn new(
        chain: ChainId,
        block: BlockEnv,
        catalog: &'a Catalog,
        prices: &'a PriceTable,
        npm: &'a NpmArtifacts,
    ) -> Self {
        Self {
            chain,
            evm: Evm::at(block),
            catalog,
            prices,
            npm,
            tokens: HashMap::new(),
            v2_factories: HashMap::new(),
            v2_fee_set: HashMap::new(),
            v3_factories: HashSet::new(),
            v3: None,
            lazy: lazy::LazyPools::new(switchyard_kernel::Pools::default(), block.timestamp),
            debts: Vec::new(),
            aave_markets: HashMap::new(),
            comptrollers: HashMap::new(),
            placed: HashMap::new(),
            balancer_pools: None,
            balancer_fees: None,
            balancer_ids: HashMap::new(),
        }
    }

    fn build(
        mut self,
        market: &Market,
        snapshot: &MarketSnapshot,
    ) -> Result<ChainWorld, WorldError> {
        let chain = self.chain;
        self.lazy.read_from(snapshot.pools().clone());
        self.base_tokens()?;
        let mut unbuilt = Vec::new();
        self.cctp(&mut unbuilt);
        self.layerzero(&mut unbuilt);
        // Pools whose contract is a token (vault shares, receipts, stETH)
        // first, then the Curve pools that place an LP token: other pools
        // may hold those tokens (and a Curve pool may hold stETH).
        let rank = |p: &Pool| match p.state {
            PoolState::Erc4626(_) | PoolState::Lending(_) | PoolState::LiquidStaking(_) => 0,
            _ if p.lp_index().is_some() => 1,
            _ => 2,
        };
        let mut ordered: Vec<(usize, &Pool)> =
            snapshot.pools().iter().enumerate().filter(|(_, p)| p.chain == chain).collect();
        ordered.sort_by_key(|(_, p)| rank(p));
        // The chain's records by address, once (a scan per pool was
        // quadratic in the market's size).
        let mut records: HashMap<Address, Vec<&PoolRecord>> = HashMap::new();
        for r in market.pools.iter().filter(|r| r.common().chain_id == chain) {
            records.entry(r.common().address).or_default().push(r);
        }
        for (k, pool) in ordered {
            let record = records
                .get(&pool.address)
                .and_then(|rs| rs.iter().copied().find(|r| r.tokens() == *pool.tokens));
            // A pool that fails leaves whatever it deployed behind; nothing
            // routes through it, so that is harmless.
            if let Err(e) = self.pool(k, pool, record) {
                unbuilt.push((pool.address, super::artifacts::error_chain(&e)));
            }
        }
        self.placeholder_tokens()?;
        let mut positions = BTreeMap::new();
        for (p, fixture) in self.gauges() {
            positions.insert(p, fixture);
        }
        for (p, fixture) in std::mem::take(&mut self.debts) {
            positions.insert(p, fixture);
        }
        for v in market.dual_vaults.iter().filter(|v| v.chain_id == chain) {
            if let Err(e) = self.dual_vault(v) {
                unbuilt.push((v.address, super::artifacts::error_chain(&e)));
            }
        }
        for (at, e) in self.lenders(market) {
            unbuilt.push((at, super::artifacts::error_chain(&e)));
        }
        for p in self.catalog.positions().iter().filter(|p| p.chain_id == chain) {
            positions
                .entry(p.address)
                .or_insert_with(|| Err(format!("no EVM fixture for {} positions", p.protocol)));
        }
        let shortcuts = self.shortcuts()?;
        for (contract, why) in self.deployments(snapshot) {
            unbuilt.push((contract, why));
        }
        let functions = self
            .placed
            .iter()
            .map(|(at, artifact)| (*at, (*artifact, self.npm.selectors(*artifact))))
            .collect();
        let (placed, block) = self.evm.freeze();
        Ok(ChainWorld {
            chain,
            base: Arc::new(lazy::WorldDb { placed: Arc::new(placed), lazy: self.lazy }),
            block,
            tokens: Arc::new(self.tokens),
            shortcuts,
            unbuilt,
            positions,
            functions: Arc::new(functions),
            balancer_ids: self.balancer_ids,
            listed: Arc::new(crate::encode::guard::listed_on(self.catalog, market, chain)),
        })
    }

    /// Deploys `artifact`, whose constructor creates one contract (a router
    /// creating its executor), and moves both: the parent to `target`, its
    /// child to `child_target`, each one's address patched in the other's
    /// code (the parent's immutable naming its child, the child's naming its
    /// creator).
    fn deploy_with_child(
        &mut self,
        (artifact, child_artifact): (Artifact, Artifact),
        args: &[u8],
        target: Address,
        child_target: Address,
    ) -> Result<(), WorldError> {
        let scratch = self.deploy_scratch(artifact, args, target)?;
        let child = scratch.create(1);
        let what = || format!("moving {} to {target}", artifact.name());
        self.evm.patch_address(child, scratch, target).doing(what)?;
        // The legacy executor keeps its router in storage slot 0.
        let creator = U256::from_be_slice(scratch.as_slice());
        if self.evm.storage(child, U256::ZERO) == creator {
            self.evm.set_storage(child, U256::ZERO, U256::from_be_slice(target.as_slice()));
        }
        self.evm.relocate(child, child_target).doing(what)?;
        self.evm.patch_address(scratch, child, child_target).doing(what)?;
        self.evm.relocate(scratch, target).doing(what)?;
        self.placed.insert(target, artifact);
        self.placed.insert(child_target, child_artifact);
        Ok(())
    }

    /// Deploys `artifact` with `args` from [`DEPLOYER`] at a scratch
    /// address (to be moved to `target`).
    fn deploy_scratch(
        &mut self,
        artifact: Artifact,
        args: &[u8],
        target: Address,
    ) -> Result<Address, WorldError> {
        let initcode = self.npm.initcode(artifact).doing(|| artifact.name().to_string())?;
        let mut code = initcode.to_vec();
        code.extend_from_slice(args);
        self.evm
            .deploy(DEPLOYER, code.into())
            .doing(|| format!("deploying {} for {target}", artifact.name()))
    }

    /// Deploys `artifact` at a scratch address and moves it to `target`.
    fn deploy_at(
        &mut self,
        artifact: Artifact,
        args: &[u8],
        target: Address,
    ) -> Result<(), WorldError> {
        let scratch = self.deploy_scratch(artifact, args, target)?;
        self.evm
            .relocate(scratch, target)
            .doing(|| format!("moving {} to {target}", artifact.name()))?;
        self.placed.insert(target, artifact);
        Ok(())
    }

    fn fund(&mut self, token: Address, holder: Address, amount: U256) -> Result<(), WorldError> {
        let kind = self.tokens.get(&token).copied();
        fund(&mut self.evm, kind, token, holder, amount)
            .doing(|| format!("funding {holder} with {amount} of {token}"))
    }

    fn inconsistent(&self, pool: Address, reason: impl Into<String>) -> WorldError {
        WorldError::Inconsistent { chain: self.chain, pool, reason: reason.into() }
    }

    /// Every base token of the chain: WETH-style at the wrapped native
    /// address, a plain `ReferenceERC20` elsewhere.
    fn base_tokens(&mut self) -> Result<(), WorldError> {
        let catalog = self.catalog;
        let wrapped = catalog.network(self.chain).map(|n| n.wrapped_native);
        for t in catalog.tokens_on(self.chain) {
            if t.address == NATIVE_TOKEN || t.kind != switchyard_catalog::TokenKind::Base {
                continue;
            }
            if Some(t.address) == wrapped {
                let args = ReferenceWETH::constructorCall {
                    name_: t.name.clone(),
                    symbol_: t.symbol.clone(),
                }
                .abi_encode();
                self.deploy_at(Artifact::ReferenceWeth, &args, t.address)?;
                self.tokens.insert(t.address, TokenImpl::Weth);
            } else if let Some(minter) = self.cctp_minter_of(t.address) {
                let args = ReferenceFiatToken::constructorCall {
                    name_: t.name.clone(),
                    symbol_: t.symbol.clone(),
                    decimals_: t.decimals,
                    minter_: minter,
                    allowance_: U256::MAX,
                }
                .abi_encode();
                self.deploy_at(Artifact::ReferenceFiatToken, &args, t.address)?;
                self.tokens.insert(t.address, TokenImpl::Erc20);
            } else {
                self.test_token(t.address, &t.name, &t.symbol, t.decimals)?;
            }
        }
        Ok(())
    }

    /// CCTP's token minter on this chain, when CCTP carries `token` here:
    /// the token is then USDC as FiatToken, which the minter mints and
    /// burns.
    fn cctp_minter_of(&self, token: Address) -> Option<Address> {
        let (bridge, setup) = cctp::setup(self.catalog)?;
        let key = self.chain.0.to_string();
        (bridge.contracts.contains_key(&key)
            && setup.domains.contains_key(&key)
            && bridge.tokens.get(&key).is_some_and(|ts| ts.contains(&token)))
        .then_some(setup.token_minter)
    }

    /// Circle's CCTP V2 on this chain, when the catalog's CCTP bridge runs
    /// here: the message transmitter trusting the world's attester, the
    /// token minter linking every other domain's USDC to this chain's, the
    /// token messenger knowing every other domain's messenger. A contract
    /// that cannot be placed is listed in `unbuilt`.
    fn cctp(&mut self, unbuilt: &mut Vec<(Address, String)>) {
        if let Err((at, e)) = self.place_cctp() {
            unbuilt.push((at, super::artifacts::error_chain(&e)));
        }
    }

    #[allow(clippy::result_large_err, reason = "built once per chain, at start")]
    fn place_cctp(&mut self) -> Result<(), (Address, WorldError)> {
        let Some((bridge, setup)) = cctp::setup(self.catalog) else { return Ok(()) };
        let key = self.chain.0.to_string();
        let (Some(&messenger), Some(domain)) =
            (bridge.contracts.get(&key), setup.domain(self.chain))
        else {
            return Ok(());
        };
        let Some(&local) =
            bridge.tokens.get(&key).into_iter().flatten().find(|t| self.tokens.contains_key(*t))
        else {
            return Ok(());
        };
        let word = |a: Address| a.into_word();
        let (mut domains, mut messengers, mut token_domains, mut tokens) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (chain, d) in setup.domains.iter().filter(|(c, _)| **c != key) {
            if let Some(m) = bridge.contracts.get(chain) {
                domains.push(*d);
                messengers.push(word(*m));
            }
            for t in bridge.tokens.get(chain).into_iter().flatten() {
                token_domains.push(*d);
                tokens.push(word(*t));
            }
        }
        let transmitter = CctpMessageTransmitterV2::constructorCall {
            localDomain_: domain,
            version_: setup.message_version,
            attesters_: vec![cctp::attester()],
            signatureThreshold_: U256::ONE,
            maxMessageBodySize_: U256::from(cctp::MAX_MESSAGE_BODY_SIZE),
        };
        self.deploy_at(
            Artifact::ReferenceMessageTransmitterV2,
            &transmitter.abi_encode(),
            setup.message_transmitter,
        )
        .map_err(|e| (setup.message_transmitter, e))?;
        let minter = CctpTokenMinterV2::constructorCall {
            localTokenMessenger_: messenger,
            localToken_: local,
            burnLimitPerMessage_: U256::from(setup.burn_limit_per_message),
            remoteDomains_: token_domains,
            remoteTokens_: tokens,
        };
        self.deploy_at(Artifact::ReferenceTokenMinterV2, &minter.abi_encode(), setup.token_minter)
            .map_err(|e| (setup.token_minter, e))?;
        let args = CctpTokenMessengerV2::constructorCall {
            messageTransmitter_: setup.message_transmitter,
            messageBodyVersion_: setup.message_body_version,
            tokenMinter_: setup.token_minter,
            feeRecipient_: CCTP_FEE_RECIPIENT,
            remoteDomains_: domains,
            remoteTokenMessengers_: messengers,
        };
        self.deploy_at(Artifact::ReferenceTokenMessengerV2, &args.abi_encode(), messenger)
            .map_err(|e| (messenger, e))
    }

    /// LayerZero V2 and Stargate V2 on this chain, when the catalog's
    /// Stargate bridge records their deployment here (see
    /// [`layerzero`]). A contract that cannot be placed is listed in
    /// `unbuilt`.
    fn layerzero(&mut self, unbuilt: &mut Vec<(Address, String)>) {
        if let Err((at, e)) = self.place_layerzero() {
            unbuilt.push((at, super::artifacts::error_chain(&e)));
        }
    }

    /// Calls `to` from [`DEPLOYER`] with `value` in the world being built.
    #[allow(clippy::result_large_err, reason = "built once per chain, at start")]
    fn configure(
        &mut self,
        to: Address,
        call: impl alloy_sol_types::SolCall,
        value: U256,
    ) -> Result<(), (Address, WorldError)> {
        let what = || format!("configuring {to}");
        self.evm
            .call(DEPLOYER, to, call.abi_encode().into(), value)
            .map(drop)
            .doing(what)
            .map_err(|e| (to, e))
    }

    #[allow(clippy::result_large_err, reason = "built once per chain, at start")]
    fn place_layerzero(&mut self) -> Result<(), (Address, WorldError)> {
        use super::abi::{
            ComposeReceiver, LzEndpointV2, LzSimpleMessageLib, StargateFeeLib,
            StargatePool as Pool, StargatePoolNative, StargateTokenMessaging as Messaging,
        };
        use switchyard_catalog::StargatePoolKind;
        let catalog = self.catalog;
        let chain = self.chain;
        let Some((bridge, lz)) = layerzero::setup(catalog) else { return Ok(()) };
        let (Some(messaging), Some(fee), Some(eid)) =
            (lz.token_messaging(chain), lz.message_fee(chain), layerzero::eid_of(catalog, chain))
        else {
            return Ok(());
        };
        let pools: Vec<_> = layerzero::pools_on(catalog, chain)
            .filter(|p| p.token == NATIVE_TOKEN || self.tokens.contains_key(&p.token))
            .cloned()
            .collect();
        if pools.is_empty() {
            return Ok(());
        }
        // The other chains Stargate reaches from here, with their messaging.
        let remotes: Vec<(u32, Address)> = lz
            .token_messaging
            .iter()
            .filter_map(|(c, m)| {
                let c = ChainId(c.parse().ok()?);
                (c != chain).then_some(())?;
                Some((layerzero::eid_of(catalog, c)?, *m))
            })
            .collect();
        let endpoint = lz.endpoint;
        let at = |a: Address| move |e: WorldError| (a, e);
        let args = LzEndpointV2::constructorCall { eid, owner: DEPLOYER }.abi_encode();
        self.deploy_in_place(Artifact::LzEndpointV2, &args, endpoint).map_err(at(endpoint))?;
        let lib = layerzero::MESSAGE_LIB;
        let args = LzSimpleMessageLib::constructorCall { endpoint, treasury: DEPLOYER };
        self.deploy_in_place(Artifact::LzSimpleMessageLib, &args.abi_encode(), lib)
            .map_err(at(lib))?;
        self.configure(endpoint, LzEndpointV2::registerLibraryCall { lib }, U256::ZERO)?;
        for (remote, _) in &remotes {
            let send = LzEndpointV2::setDefaultSendLibraryCall { eid: *remote, newLib: lib };
            self.configure(endpoint, send, U256::ZERO)?;
            let receive = LzEndpointV2::setDefaultReceiveLibraryCall {
                eid: *remote,
                newLib: lib,
                gracePeriod: U256::ZERO,
            };
            self.configure(endpoint, receive, U256::ZERO)?;
        }
        let fee_call = LzSimpleMessageLib::setMessagingFeeCall {
            nativeFee: U256::from(fee),
            lzTokenFee: U256::ZERO,
        };
        self.configure(lib, fee_call, U256::ZERO)?;
        let args = Messaging::constructorCall { endpoint, owner: DEPLOYER, queueCapacity: 512 }
            .abi_encode();
        self.deploy_in_place(Artifact::StargateTokenMessaging, &args, messaging)
            .map_err(at(messaging))?;
        let mut enforced = Vec::new();
        for (remote, peer) in &remotes {
            let call = Messaging::setPeerCall { eid: *remote, peer: layerzero::word(*peer) };
            self.configure(messaging, call, U256::ZERO)?;
            enforced.push(Messaging::EnforcedOptionParam {
                eid: *remote,
                msgType: layerzero::MSG_TYPE_TAXI,
                options: layerzero::lz_receive_options(lz.lz_receive_gas),
            });
        }
        self.configure(
            messaging,
            Messaging::setEnforcedOptionsCall { enforcedOptions: enforced },
            U256::ZERO,
        )?;
        let fee_millionth =
            alloy_primitives::aliases::U24::from(bridge.fee_bps.saturating_mul(100).min(999_999));
        for p in &pools {
            let (Some(asset), Some(fee_lib), Some(kind)) = (p.asset_id, p.fee_lib, p.kind) else {
                continue;
            };
            let info = catalog.token(chain, p.token);
            let symbol = info.map_or_else(|| "TOKEN".to_owned(), |t| t.symbol.clone());
            let (name, lp_symbol) = (format!("{symbol}-LP"), format!("S*{symbol}"));
            let (artifact, args) = match kind {
                StargatePoolKind::Native => (
                    Artifact::StargatePoolNative,
                    StargatePoolNative::constructorCall {
                        lpTokenName: name,
                        lpTokenSymbol: lp_symbol,
                        tokenDecimals: p.decimals,
                        sharedDecimals: layerzero::SHARED_DECIMALS,
                        endpoint,
                        owner: DEPLOYER,
                    }
                    .abi_encode(),
                ),
                _ => (
                    match kind {
                        StargatePoolKind::Usdc => Artifact::StargatePoolUsdc,
                        StargatePoolKind::Migratable => Artifact::StargatePoolMigratable,
                        _ => Artifact::StargatePool,
                    },
                    Pool::constructorCall {
                        lpTokenName: name,
                        lpTokenSymbol: lp_symbol,
                        token: p.token,
                        tokenDecimals: p.decimals,
                        sharedDecimals: layerzero::SHARED_DECIMALS,
                        endpoint,
                        owner: DEPLOYER,
                    }
                    .abi_encode(),
                ),
            };
            self.deploy_in_place(artifact, &args, p.pool).map_err(at(p.pool))?;
            let args = StargateFeeLib::constructorCall { stargate: p.pool }.abi_encode();
            self.deploy_in_place(Artifact::StargateFeeLib, &args, fee_lib).map_err(at(fee_lib))?;
            let config = Pool::AddressConfig {
                feeLib: fee_lib,
                planner: DEPLOYER,
                treasurer: DEPLOYER,
                tokenMessaging: messaging,
                creditMessaging: Address::ZERO,
                lzToken: Address::ZERO,
            };
            self.configure(p.pool, Pool::setAddressConfigCall { config }, U256::ZERO)?;
            self.configure(
                messaging,
                Messaging::setAssetIdCall { stargate: p.pool, assetId: asset },
                U256::ZERO,
            )?;
            for (remote, _) in &remotes {
                // The world's pools hold no credit ledger across chains: each
                // path is unlimited (the owner's `setOFTPath`), as the
                // kernel's bridge routes are.
                self.configure(
                    p.pool,
                    Pool::setOFTPathCall { dstEid: *remote, oft: true },
                    U256::ZERO,
                )?;
                let z = alloy_primitives::aliases::U24::ZERO;
                let fee = StargateFeeLib::setFeeConfigCall {
                    dstEid: *remote,
                    zone1UpperBound: 0,
                    zone2UpperBound: 0,
                    zone1FeeMillionth: z,
                    zone2FeeMillionth: z,
                    zone3FeeMillionth: fee_millionth,
                    rewardMillionth: z,
                };
                self.configure(fee_lib, fee, U256::ZERO)?;
            }
            // Liquidity an LP deposited, for what arrives here.
            let liquidity =
                U256::from(10u8).pow(U256::from(p.decimals)) * U256::from(LZ_LIQUIDITY_UNITS);
            let deposit = Pool::depositCall { receiver: DEPLOYER, amountLD: liquidity };
            if p.token == NATIVE_TOKEN {
                let balance = self.evm.balance(DEPLOYER);
                self.evm.set_balance(DEPLOYER, balance + liquidity);
                self.configure(p.pool, deposit, liquidity)?;
            } else {
                self.fund(p.token, DEPLOYER, liquidity).map_err(at(p.token))?;
                let approve = TestERC20::approveCall { spender: p.pool, amount: liquidity };
                self.configure(p.token, approve, U256::ZERO)?;
                self.configure(p.pool, deposit, U256::ZERO)?;
            }
        }
        if let (Some(composer), Some(router)) = (
            lz.composer(chain),
            catalog.contracts(chain, RoutingStrategy::Router).and_then(|c| c.router),
        ) {
            let args = ComposeReceiver::constructorCall { endpoint, router, owner: DEPLOYER };
            self.deploy_in_place(Artifact::ComposeReceiver, &args.abi_encode(), composer)
                .map_err(at(composer))?;
            let ofts = pools.iter().map(|p| p.pool).collect();
            self.configure(composer, ComposeReceiver::setOFTsCall { ofts }, U256::ZERO)?;
        }
        Ok(())
    }

    fn test_token(
        &mut self,
        at: Address,
        name: &str,
        symbol: &str,
        decimals: u8,
    ) -> Result<(), WorldError> {
        let args = TestERC20::constructorCall {
            name: name.to_owned(),
            symbol: symbol.to_owned(),
            decimals,
        }
        .abi_encode();
        // The same constructor as the test token's, without mint and burn.
        self.deploy_at(Artifact::ReferenceErc20, &args, at)?;
        self.tokens.insert(at, TokenImpl::Erc20);
        Ok(())
    }

    /// DeFi tokens no pool created (LP tokens of pools the kernel does not
    /// enter, for instance) become plain ERC-20s, so balances of them work.
    fn placeholder_tokens(&mut self) -> Result<(), WorldError> {
        let catalog = self.catalog;
        for t in catalog.tokens_on(self.chain) {
            // A pool the world derives (a pair is its own LP token) is not
            // a placeholder's place.
            if t.address == NATIVE_TOKEN
                || self.lazy.serves(t.address)
                || !self.evm.code(t.address).is_empty()
            {
                continue;
            }
            self.test_token(t.address, &t.name, &t.symbol, t.decimals)?;
        }
        Ok(())
    }

    /// Places (or serves) the snapshot's pool `k`.
    fn pool(
        &mut self,
        k: usize,
        pool: &Pool,
        record: Option<&PoolRecord>,
    ) -> Result<(), WorldError> {
        match (&pool.state, record) {
            (PoolState::Wrap, _) => Ok(()),
            (PoolState::UniswapV2 { fee_bps, .. }, Some(PoolRecord::UniswapV2(r))) => {
                let reserves = pool.state.v2_reserves().unwrap_or_default();
                self.v2_pair(k, pool, &r.protocol, reserves, *fee_bps)
            }
            (PoolState::UniswapV2Lp(lp), Some(PoolRecord::UniswapV2(r))) => {
                // The published pair mints and burns; our configurable-fee
                // pair only swaps.
                if lp.fee_bps != 30 {
                    return Err(self.inconsistent(
                        pool.address,
                        "a listed liquidity token needs the published 0.3% pair",
                    ));
                }
                let reserves = pool.state.v2_reserves().unwrap_or_default();
                self.v2_pair(k, pool, &r.protocol, reserves, lp.fee_bps)?;
                if !self.lazy.serves(pool.address) {
                    return Err(
                        self.inconsistent(pool.address, "the pair's factory is not the catalog's")
                    );
                }
                self.v2_fee_to(pool.address, &r.protocol, lp.liquidity.fee_on)?;
                self.tokens.insert(pool.address, TokenImpl::V2Lp);
                Ok(())
            }
            (PoolState::UniswapV3(_), Some(PoolRecord::UniswapV3(_))) => self.v3_pool(k, pool),
            (PoolState::Erc4626(v), Some(PoolRecord::Erc4626(r))) => {
                self.erc4626(pool, r.asset, v.total_assets, v.total_supply, v.rule)
            }
            (PoolState::Stableswap(st), Some(PoolRecord::Stableswap(_))) => {
                self.stableswap(pool, st)
            }
            (PoolState::Weighted(w), Some(PoolRecord::Weighted(r))) => {
                self.weighted(pool, w, r.pool_id)
            }
            (PoolState::Lending(l), Some(PoolRecord::Lending(r))) => match l.model {
                switchyard_catalog::market::LendingModel::Aave => {
                    self.aave(pool, r, l.exchange_rate, l.available_liquidity)
                }
                switchyard_catalog::market::LendingModel::Compound => {
                    self.compound(pool, r, l.exchange_rate, l.available_liquidity)
                }
                switchyard_catalog::market::LendingModel::Comet => {
                    self.comet(pool, r, l.exchange_rate, l.available_liquidity)
                }
            },
            (PoolState::LiquidStaking(st), Some(PoolRecord::LiquidStaking(r))) => {
                if st.rebasing {
                    self.steth(pool, r.receipt, st.total_pooled_asset, st.total_shares)
                } else {
                    self.wsteth(pool, r.asset, r.receipt, st.total_shares)
                }
            }
            _ => Err(self.inconsistent(
                pool.address,
                format!("no fixture contract for a {} pool yet", pool.protocol),
            )),
        }
    }

    /// A constant-product pair with the snapshot's reserves.
    fn v2_pair(
        &mut self,
        k: usize,
        pool: &Pool,
        protocol: &str,
        reserves: [U256; 2],
        fee_bps: u32,
    ) -> Result<(), WorldError> {
        let (t0, t1) = (pool.tokens[0], pool.tokens[1]);
        if fee_bps != 30 {
            // Not the Uniswap pair's 0.3%: the configurable-fee pair.
            let fee = u16::try_from(fee_bps)
                .map_err(|_| self.inconsistent(pool.address, "fee out of range"))?;
            let args = ReferenceV2Pair::constructorCall { token0: t0, token1: t1, feeBps: fee }
                .abi_encode();
            self.deploy_at(Artifact::ReferenceV2Pair, &args, pool.address)?;
            self.fund(t0, pool.address, reserves[0])?;
            self.fund(t1, pool.address, reserves[1])?;
            return self
                .evm
                .call_sol(DEPLOYER, pool.address, &UniswapV2Pair::syncCall {})
                .map(drop)
                .doing(|| format!("sync {}", pool.address));
        }
        let pair_hash =
            keccak256(self.npm.initcode(Artifact::UniswapV2Pair).doing(|| "v2 pair".into())?);
        let max = switchyard_kernel::amm::uniswap_v2::MAX_RESERVE;
        if reserves[0] > max || reserves[1] > max {
            return Err(self.inconsistent(pool.address, "reserves past uint112"));
        }
        let factory = self
            .catalog
            .dex_factory(self.chain, protocol)
            .filter(|f| f.kind == FactoryKind::UniswapV2 && f.init_code_hash == pair_hash);
        // The pair's factory: the catalog's, placed at its address, which
        // knows the pair (`getPair` both ways); none for a pair at an
        // address of another factory's code.
        let factory = match factory {
            Some(f) => {
                if !self.v2_factories.contains_key(&f.factory) {
                    let args =
                        UniswapV2Factory::constructorCall { feeToSetter: DEPLOYER }.abi_encode();
                    self.deploy_at(Artifact::UniswapV2Factory, &args, f.factory)?;
                    self.v2_factories.insert(f.factory, f.factory);
                }
                // `getPair` is the factory's mapping at slot 2.
                for (a, b) in [(t0, t1), (t1, t0)] {
                    let at = keyed_slot(b, mapping_slot(a, 2));
                    let pair = U256::from_be_slice(pool.address.as_slice());
                    self.evm.set_storage(f.factory, at, pair);
                }
                f.factory
            }
            None => Address::ZERO,
        };
        if !self.lazy.has_v2_code() {
            // The pair's runtime, from one pair created here.
            let at = self
                .evm
                .deploy_artifact(DEPLOYER, Artifact::UniswapV2Pair, &[])
                .doing(|| "v2 pair".into())?;
            let code = self.evm.code(at);
            self.lazy.set_v2_code(code);
        }
        self.lazy.add_v2(k, factory);
        self.placed.insert(pool.address, Artifact::UniswapV2Pair);
        self.pool_balances(pool, reserves)
    }

    /// The factory's `feeTo` (slot 0) as a pair whose liquidity token is
    /// listed says: [`V2_FEE_TO`] when the protocol fee is on, zero when
    /// off; pairs of one factory that disagree are inconsistent.
    fn v2_fee_to(&mut self, pair: Address, protocol: &str, on: bool) -> Result<(), WorldError> {
        let Some(f) = self.catalog.dex_factory(self.chain, protocol) else {
            return Err(self.inconsistent(pair, "the pair's factory is not in the catalog"));
        };
        let want = if on { U256::from_be_slice(V2_FEE_TO.as_slice()) } else { U256::ZERO };
        let was = self.evm.storage(f.factory, U256::ZERO);
        let set = self.v2_fee_set.entry(f.factory).or_insert(on);
        if *set != on {
            return Err(self.inconsistent(pair, "pairs of one factory disagree on feeOn"));
        }
        if was != want {
            self.evm.set_storage(f.factory, U256::ZERO, want);
        }
        Ok(())
    }

    /// A concentrated-liquidity pool, derived on first touch ([`lazy`]):
    /// its fee tier's template (a pool the published factory creates over
    /// placeholder tokens) once, the state checked and its balances derived
    /// from what positions between its initialized ticks hold
    /// ([`lazy::v3_holdings`]).
    fn v3_pool(&mut self, k: usize, pool: &Pool) -> Result<(), WorldError> {
        let PoolState::UniswapV3(v3) = &pool.state else {
            return Ok(());
        };
        if !self.lazy.has_v3_template(v3.fee, v3.tick_spacing) {
            self.v3_template(pool.address, v3.fee, v3.tick_spacing)?;
        }
        let held = lazy::v3_holdings(pool).map_err(|why| self.inconsistent(pool.address, why))?;
        let factory = self.v3_factory(pool, v3.fee)?;
        self.lazy.add_v3(k, held, factory);
        self.placed.insert(pool.address, Artifact::UniswapV3Pool);
        self.pool_balances(pool, held)
    }

    /// A derived pool's balances of its two tokens: derived from its state
    /// where the token keeps a plain balance mapping (WETH's native backing
    /// grown by what the pool holds), written otherwise.
    fn pool_balances(&mut self, pool: &Pool, held: [U256; 2]) -> Result<(), WorldError> {
        for (i, (token, amount)) in pool.tokens.iter().zip(held).enumerate() {
            let kind = self.tokens.get(token).copied();
            let slot = match kind {
                Some(TokenImpl::Erc20) => Artifact::ReferenceErc20.storage_slot("balanceOf"),
                Some(TokenImpl::Weth) => Artifact::ReferenceWeth.storage_slot("balanceOf"),
                Some(TokenImpl::Mapping(artifact, var)) => artifact.storage_slot(var),
                _ => None,
            };
            match slot {
                Some(slot) => {
                    let at = mapping_slot(pool.address, slot);
                    self.lazy.add_balance(*token, at, pool.address, i as u8);
                    if kind == Some(TokenImpl::Weth) {
                        self.lazy.back_weth(*token, amount);
                    }
                }
                None => {
                    self.lazy.write_balances(pool.address);
                    self.fund(*token, pool.address, amount)?;
                }
            }
        }
        Ok(())
    }

    /// The factory a V3 pool reports (its `factory` immutable): the
    /// catalog's for the pool's protocol, placed at its address with the
    /// published code and the pool in its `getPool` both ways, as
    /// `createPool` leaves them (Enso's flash-loan adapter checks a lending
    /// pool there); the scratch factory that made the templates where the
    /// catalog has none.
    fn v3_factory(&mut self, pool: &Pool, fee: u32) -> Result<Address, WorldError> {
        let Some(scratch) = self.v3 else {
            return Err(self.inconsistent(pool.address, "no V3 template was made"));
        };
        let Some(at) = self
            .catalog
            .dex_factory(self.chain, &pool.protocol)
            .filter(|f| f.kind == FactoryKind::UniswapV3)
            .map(|f| f.factory)
        else {
            return Ok(scratch);
        };
        if self.v3_factories.insert(at) {
            self.deploy_at(Artifact::UniswapV3Factory, &[], at)?;
        }
        let (Some(t0), Some(t1)) = (pool.tokens.first(), pool.tokens.get(1)) else {
            return Err(self.inconsistent(pool.address, "a V3 pool of fewer than two tokens"));
        };
        // `getPool` is the factory's mapping at slot 5, after the pool
        // deployer's `parameters` (three slots) and `owner` and
        // `feeAmountTickSpacing`.
        for (a, b) in [(*t0, *t1), (*t1, *t0)] {
            let by_b = keyed_slot(b, mapping_slot(a, V3_GET_POOL_SLOT));
            let slot = keyed_slot(U256::from(fee), by_b);
            self.evm.set_storage(at, slot, U256::from_be_slice(pool.address.as_slice()));
        }
        Ok(at)
    }

    /// A fee tier's template: a pool the published factory (a scratch one,
    /// with the tier enabled) creates over the placeholder tokens.
    fn v3_template(&mut self, pool: Address, fee: u32, spacing: i32) -> Result<(), WorldError> {
        let factory = match self.v3 {
            Some(f) => f,
            None => {
                let f = self
                    .evm
                    .deploy_artifact(DEPLOYER, Artifact::UniswapV3Factory, &[])
                    .doing(|| "v3 factory".into())?;
                self.v3 = Some(f);
                f
            }
        };
        let fee24 = U24::from(fee);
        let enabled = self
            .evm
            .view(factory, &UniswapV3Factory::feeAmountTickSpacingCall { fee: fee24 })
            .doing(|| "fee tier".into())?;
        if i32::try_from(enabled).ok() != Some(spacing) {
            if enabled != I24::ZERO {
                return Err(self.inconsistent(
                    pool,
                    format!("fee {fee} has tick spacing {enabled} in the factory"),
                ));
            }
            let s = I24::try_from(spacing)
                .map_err(|_| self.inconsistent(pool, "tick spacing out of range"))?;
            self.evm
                .call_sol(
                    DEPLOYER,
                    factory,
                    &UniswapV3Factory::enableFeeAmountCall { fee: fee24, tickSpacing: s },
                )
                .doing(|| format!("enabling fee {fee}"))?;
        }
        let [t0, t1] = lazy::V3_TEMPLATE_TOKENS;
        let at = self
            .evm
            .call_sol(
                DEPLOYER,
                factory,
                &UniswapV3Factory::createPoolCall { tokenA: t0, tokenB: t1, fee: fee24 },
            )
            .doing(|| format!("the fee {fee} template"))?;
        let code = self.evm.code(at);
        self.lazy.set_v3_template(fee, spacing, lazy::V3Template { code, at, factory });
        Ok(())
    }

    /// A Curve plain pool with the snapshot's parameters and balances
    /// (internal, as the older pools keep them), funded with its coins. A
    /// pool the kernel enters through its LP token ([`Pool::lp_index`]) is
    /// the tokenized pool of its coin count, and its LP token is placed
    /// with the snapshot's supply, held by [`SEED_HOLDER`], minted and
    /// burnt by the pool alone.
    fn stableswap(
        &mut self,
        pool: &Pool,
        st: &switchyard_kernel::StableswapState,
    ) -> Result<(), WorldError> {
        let n = st.balances.len();
        let (Some(coins), Some(decimals)) = (pool.tokens.get(..n), pool.decimals().get(..n)) else {
            return Err(self.inconsistent(pool.address, "fewer tokens than balances"));
        };
        let (coins, decimals) = (coins.to_vec(), decimals.to_vec());
        match (pool.lp_index(), st.lp_supply) {
            (Some(lp), Some(supply)) => {
                let artifact = match n {
                    2 => Artifact::ReferenceStableSwap2,
                    3 => Artifact::ReferenceStableSwap3,
                    4 => Artifact::ReferenceStableSwap4,
                    _ => return Err(self.inconsistent(pool.address, format!("{n} coins"))),
                };
                let lp_token = pool.tokens[lp];
                let (name, symbol) = self
                    .catalog
                    .token(self.chain, lp_token)
                    .map(|t| (t.name.clone(), t.symbol.clone()))
                    .unwrap_or_else(|| ("Curve LP".to_owned(), "crvLP".to_owned()));
                let args = ReferenceCurveToken::constructorCall {
                    name_: name,
                    symbol_: symbol,
                    decimals_: pool.decimals()[lp],
                    minter_: pool.address,
                }
                .abi_encode();
                self.deploy_at(Artifact::ReferenceCurveToken, &args, lp_token)?;
                // `ReferenceERC20`'s storage: the supply minted to the seed
                // holder as for any plain token; from then on it only moves.
                self.tokens.insert(lp_token, TokenImpl::Erc20);
                self.fund(lp_token, SEED_HOLDER, supply)?;
                self.tokens.insert(lp_token, TokenImpl::CurveLp);
                let args = ReferenceStableSwapLp::constructorCall {
                    coins_: coins.clone(),
                    decimals_: decimals,
                    ampPrecise: st.amp,
                    aPrecision: st.a_precision,
                    fee_: st.fee,
                    adminFee: st.admin_fee,
                    lpToken: lp_token,
                }
                .abi_encode();
                self.deploy_at(artifact, &args, pool.address)?;
            }
            _ => {
                let args = ReferenceStableSwap::constructorCall {
                    coins_: coins.clone(),
                    decimals_: decimals,
                    ampPrecise: st.amp,
                    aPrecision: st.a_precision,
                    fee_: st.fee,
                    adminFee: st.admin_fee,
                }
                .abi_encode();
                self.deploy_at(Artifact::ReferenceStableSwap, &args, pool.address)?;
            }
        }
        fixtures::stableswap_balances(&mut self.evm, pool.address, &st.balances)
            .doing(|| format!("balances of {}", pool.address))?;
        for (coin, balance) in coins.iter().zip(&st.balances) {
            self.fund(*coin, pool.address, *balance)?;
        }
        Ok(())
    }

    /// A Balancer weighted pool, registered in the chain's Vault with the
    /// snapshot's balances, weights, fee and `powUp` rule; the Vault holds
    /// the tokens.
    /// Balancer's Vault at its address, from the published bytecode (with
    /// the Authorizer it names), once per chain.
    fn balancer_vault(&mut self) -> Result<Address, WorldError> {
        if self.balancer_pools.is_some() {
            return Ok(BALANCER_VAULT);
        }
        let weth = self.catalog.network(self.chain).map(|n| n.wrapped_native).unwrap_or_default();
        let args = BalancerAuthorizer::constructorCall { admin: DEPLOYER }.abi_encode();
        let authorizer =
            self.deploy_scratch(Artifact::BalancerAuthorizer, &args, BALANCER_VAULT)?;
        let args = BalancerVault::constructorCall {
            authorizer,
            weth,
            pauseWindowDuration: U256::ZERO,
            bufferPeriodDuration: U256::ZERO,
        }
        .abi_encode();
        self.deploy_in_place(Artifact::BalancerVault, &args, BALANCER_VAULT)?;
        self.balancer_pools = Some(0);
        Ok(BALANCER_VAULT)
    }

    /// The protocol fee provider later Balancer pools read at construction
    /// (no protocol fee set), once per chain.
    fn balancer_fee_provider(&mut self, vault: Address) -> Result<Address, WorldError> {
        if let Some(at) = self.balancer_fees {
            return Ok(at);
        }
        let half = U256::from(500_000_000_000_000_000u64);
        let args = BalancerProtocolFeeProvider::constructorCall {
            vault,
            maxYieldValue: half,
            maxAUMValue: half,
        }
        .abi_encode();
        let at = self.deploy_scratch(Artifact::BalancerProtocolFeeProvider, &args, vault)?;
        self.balancer_fees = Some(at);
        Ok(at)
    }

    /// Runs `artifact`'s constructor at `at` itself (see
    /// [`Evm::deploy_in_place`]).
    fn deploy_in_place(
        &mut self,
        artifact: Artifact,
        args: &[u8],
        at: Address,
    ) -> Result<(), WorldError> {
        let mut code = self.npm.initcode(artifact).doing(|| artifact.name().to_string())?.to_vec();
        code.extend_from_slice(args);
        self.evm
            .deploy_in_place(DEPLOYER, at, code.into())
            .doing(|| format!("deploying {} at {at}", artifact.name()))?;
        self.placed.insert(at, artifact);
        Ok(())
    }

    /// A weighted pool on the published Balancer bytecode, constructed at
    /// its address so it registers itself with the Vault under its own id:
    /// the 2021 `WeightedPool2Tokens` for the first pow rule, the 2023
    /// `WeightedPool` (v3) for the current one. The Vault
    /// numbers pools in order: pools with lower nonces are registered
    /// first (as placeholders) so the pool gets its recorded id. Its
    /// balances are its INIT join.
    fn weighted(
        &mut self,
        pool: &Pool,
        w: &switchyard_kernel::WeightedState,
        pool_id: Option<B256>,
    ) -> Result<(), WorldError> {
        let vault = self.balancer_vault()?;
        // The coins; the BPT, when listed, is the pool itself.
        let coins = pool.tokens.get(..w.balances.len()).unwrap_or_default();
        let specialization: u8 = if coins.len() == 2 { 2 } else { 1 };
        // A pool the market records no id for gets the Vault's next nonce.
        let pool_id = pool_id.unwrap_or_else(|| {
            let mut id = [0u8; 32];
            id[..20].copy_from_slice(pool.address.as_slice());
            id[21] = specialization;
            id[22..].copy_from_slice(&self.balancer_pools.unwrap_or_default().to_be_bytes()[6..]);
            B256::from(id)
        });
        if Address::from_slice(&pool_id[..20]) != pool.address {
            return Err(self.inconsistent(pool.address, "its pool id names another address"));
        }
        let first = w.pow_rule == switchyard_kernel::amm::weighted::PowRule::First;
        if (first && coins.len() != 2) || pool_id[21] != specialization {
            return Err(self.inconsistent(
                pool.address,
                "its pool id's specialization is not its published pool's",
            ));
        }
        if coins.len() < 2 || coins.windows(2).any(|t| t[0] >= t[1]) {
            return Err(self.inconsistent(pool.address, "its tokens are not in ascending order"));
        }
        let nonce = u128::from_be_bytes({
            let mut n = [0u8; 16];
            n[6..].copy_from_slice(&pool_id[22..]);
            n
        });
        let registered = self.balancer_pools.unwrap_or_default();
        if registered > nonce {
            return Err(self.inconsistent(pool.address, "another pool holds its Vault nonce"));
        }
        for k in registered..nonce {
            let placeholder = Address::from_slice(
                &keccak256(
                    [b"switchyard.balancer.placeholder".as_slice(), &k.to_be_bytes()].concat(),
                )[12..],
            );
            self.evm
                .call_sol(
                    placeholder,
                    vault,
                    &BalancerVault::registerPoolCall { specialization: 0 },
                )
                .doing(|| format!("registering the Vault's pool {k}"))?;
        }
        let (name, symbol, _) = self.token_meta(pool.address, "BPT", 18);
        if first {
            // The 2021 two-token pool: the first pow rule.
            let args = BalancerWeightedPool2Tokens::constructorCall {
                params: BalancerWeightedPool2Tokens::NewPoolParams {
                    vault,
                    name,
                    symbol,
                    token0: coins[0],
                    token1: coins[1],
                    normalizedWeight0: w.weights[0],
                    normalizedWeight1: w.weights[1],
                    swapFeePercentage: w.swap_fee,
                    pauseWindowDuration: U256::ZERO,
                    bufferPeriodDuration: U256::ZERO,
                    oracleEnabled: false,
                    owner: DEPLOYER,
                },
            }
            .abi_encode();
            self.deploy_in_place(Artifact::BalancerWeightedPool2Tokens, &args, pool.address)?;
        } else {
            // The 2023 pool (v3): the current pow rule.
            let fees = self.balancer_fee_provider(vault)?;
            let n = coins.len();
            let args = BalancerWeightedPoolV3::constructorCall {
                params: BalancerWeightedPoolV3::NewPoolParams {
                    name,
                    symbol,
                    tokens: coins.to_vec(),
                    normalizedWeights: w.weights.clone(),
                    rateProviders: vec![Address::ZERO; n],
                    assetManagers: vec![Address::ZERO; n],
                    swapFeePercentage: w.swap_fee,
                },
                vault,
                protocolFeeProvider: fees,
                pauseWindowDuration: U256::ZERO,
                bufferPeriodDuration: U256::ZERO,
                owner: DEPLOYER,
                version: String::new(),
            }
            .abi_encode();
            self.deploy_in_place(Artifact::BalancerWeightedPoolV3, &args, pool.address)?;
        }
        self.balancer_pools = Some(nonce + 1);
        // Both pool versions answer `getPoolId()` with one selector.
        let id = self
            .evm
            .view(pool.address, &BalancerWeightedPool2Tokens::getPoolIdCall {})
            .doing(|| format!("pool id of {}", pool.address))?;
        if id != pool_id {
            return Err(self.inconsistent(pool.address, format!("the Vault gave it id {id}")));
        }
        self.balancer_ids.insert(pool.address, pool_id);
        // INIT join: the pool's balances are what it is joined with.
        for (token, balance) in coins.iter().zip(&w.balances) {
            self.fund(*token, DEPLOYER, *balance)?;
            let approve = TestERC20::approveCall { spender: vault, amount: *balance };
            self.evm.call_sol(DEPLOYER, *token, &approve).doing(|| format!("approving {token}"))?;
        }
        let join = BalancerVault::joinPoolCall {
            poolId: pool_id,
            sender: DEPLOYER,
            recipient: DEPLOYER,
            request: BalancerVault::JoinPoolRequest {
                assets: coins.to_vec(),
                maxAmountsIn: w.balances.clone(),
                userData: (U256::ZERO, w.balances.clone()).abi_encode_params().into(),
                fromInternalBalance: false,
            },
        };
        self.evm.call_sol(DEPLOYER, vault, &join).doing(|| format!("joining {}", pool.address))?;
        let held = self
            .evm
            .view(vault, &BalancerVault::getPoolTokensCall { poolId: pool_id })
            .doing(|| format!("balances of {}", pool.address))?;
        if held.balances != w.balances {
            return Err(self.inconsistent(pool.address, "the INIT join booked other balances"));
        }
        if let Some(supply) = w.bpt_supply {
            self.bpt_supply(pool.address, supply)?;
        }
        Ok(())
    }

    /// A weighted pool's BPT at the snapshot's `supply`: what the INIT join
    /// minted its joiner moves to [`SEED_HOLDER`], which then holds the
    /// supply less the minimum BPT the pool burnt to the zero address.
    fn bpt_supply(&mut self, pool: Address, supply: U256) -> Result<(), WorldError> {
        let burnt = ChainWorld::balance_of(&mut self.evm, pool, Address::ZERO)
            .doing(|| format!("the minimum BPT of {pool}"))?;
        let Some(held) = supply.checked_sub(burnt).filter(|h| !h.is_zero()) else {
            return Err(self.inconsistent(
                pool,
                format!("its BPT supply is not above the {burnt} its INIT join burns"),
            ));
        };
        self.evm.set_storage(pool, U256::from(BPT_SUPPLY_SLOT), supply);
        self.evm.set_storage(pool, mapping_slot(DEPLOYER, BPT_BALANCE_SLOT), U256::ZERO);
        self.evm.set_storage(pool, mapping_slot(SEED_HOLDER, BPT_BALANCE_SLOT), held);
        let read = self
            .evm
            .view(pool, &TestERC20::totalSupplyCall {})
            .doing(|| format!("the BPT supply of {pool}"))?;
        let seeded = ChainWorld::balance_of(&mut self.evm, pool, SEED_HOLDER)
            .doing(|| format!("the BPT of {pool}"))?;
        if read != supply || seeded != held {
            return Err(self.inconsistent(pool, "its BPT storage is not where it was written"));
        }
        self.tokens.insert(pool, TokenImpl::Bpt);
        Ok(())
    }

    fn token_meta(&self, token: Address, fallback: &str, decimals: u8) -> (String, String, u8) {
        match self.catalog.token(self.chain, token) {
            Some(t) => (t.name.clone(), t.symbol.clone(), t.decimals),
            None => (fallback.to_owned(), fallback.to_owned(), decimals),
        }
    }

    /// An Aave reserve on the published Aave V3 bytecode ([`aave`]): the
    /// market (once per pool address), the reserve's aToken at the receipt
    /// address at the snapshot's liquidity index, its available liquidity
    /// held by the aToken (as on chain), the asset's price (the price
    /// table's, in USD with 8 decimals) and loan to value, and its variable
    /// debt token at the catalog's debt position, where one is listed.
    fn aave(
        &mut self,
        pool: &Pool,
        r: &LendingRecord,
        index: U256,
        available: U256,
    ) -> Result<(), WorldError> {
        let (asset, a_token) = (r.asset, r.receipt);
        let market = match self.aave_markets.get(&pool.address) {
            Some(m) => *m,
            None => {
                let m = aave::AaveMarket::deploy(&mut self.evm, self.npm, DEPLOYER, pool.address)
                    .doing(|| format!("the Aave market at {}", pool.address))?;
                self.placed.insert(pool.address, Artifact::AavePool);
                self.aave_markets.insert(pool.address, m);
                m
            }
        };
        let position = self.catalog.positions().iter().find(|p| {
            p.chain_id == self.chain
                && p.primary_address == pool.address
                && p.underlying_tokens == [asset]
                && p.position_id.ends_with(":variable-debt")
        });
        // Where the catalog names no debt token, one at an address of its
        // own (nothing routes to it; the pool needs one per reserve).
        let derived =
            |what: &str| Address::from_word(keccak256((what, pool.address, asset).abi_encode()));
        let variable_debt = position.map_or_else(|| derived("variable-debt"), |p| p.address);
        let (name, symbol, decimals) = self.token_meta(a_token, "aToken", 18);
        let (debt_name, debt_symbol, _) = self.token_meta(variable_debt, "variableDebt", decimals);
        let reserve = aave::AaveReserve {
            asset,
            decimals,
            a_token,
            variable_debt,
            stable_debt: derived("stable-debt"),
            index,
            ltv_bps: r.ltv_bps.unwrap_or(0),
            price_usd_1e8: self.usd_price(asset, 8),
            borrowable: position.is_some(),
            a_token_meta: (name, symbol),
            debt_meta: (debt_name, debt_symbol),
        };
        market
            .list(&mut self.evm, self.npm, DEPLOYER, &reserve)
            .doing(|| format!("reserve {asset} of {}", pool.address))?;
        self.placed.insert(a_token, Artifact::AaveAToken);
        self.placed.insert(variable_debt, Artifact::AaveVariableDebtToken);
        self.tokens.insert(a_token, TokenImpl::AToken { index });
        self.fund(asset, a_token, available)?;
        // Its suppliers, together: the aToken's supply is what the reserve
        // holds, as on chain (a pool whose aToken has no supply divides by
        // it when a flash loan's premium is booked).
        aave::fund_a_token(&mut self.evm, a_token, derived("suppliers"), available, index)
            .doing(|| format!("the suppliers of reserve {asset} of {}", pool.address))?;
        if let Some(p) = position {
            self.debts
                .push((p.address, Ok(PositionFixture::AaveDebt { pool: pool.address, asset })));
        }
        Ok(())
    }

    /// The price table's USD price of one whole `token`, with `decimals`
    /// decimals (an oracle's fixed point; a fixture's parameter, never an
    /// amount a route returns).
    fn usd_price(&self, token: Address, decimals: u8) -> Option<U256> {
        let usd = self.prices.get(self.chain, token)?.usd;
        let scaled = (usd * 10f64.powi(i32::from(decimals))).round();
        (1.0..1e36).contains(&scaled).then(|| U256::from(scaled as u128))
    }

    /// A Compound cToken at its address with the snapshot's exchange rate,
    /// holding the available cash, listed on its comptroller (placed once
    /// per address) with its collateral factor and the price table's price.
    fn compound(
        &mut self,
        pool: &Pool,
        r: &LendingRecord,
        rate: U256,
        available: U256,
    ) -> Result<(), WorldError> {
        let asset = r.asset;
        let (name, symbol, decimals) = self.token_meta(pool.address, "cToken", 8);
        let args = ReferenceCToken::constructorCall {
            underlying_: asset,
            exchangeRate_: rate,
            name_: name,
            symbol_: symbol,
            decimals_: decimals,
        }
        .abi_encode();
        self.deploy_at(Artifact::ReferenceCToken, &args, pool.address)?;
        self.tokens
            .insert(pool.address, TokenImpl::Mapping(Artifact::ReferenceCToken, "_balances"));
        self.fund(asset, pool.address, available)?;
        let Some(comptroller) = r.comptroller else { return Ok(()) };
        let oracle = match self.comptrollers.get(&comptroller) {
            Some(oracle) => *oracle,
            None => {
                self.deploy_at(Artifact::ReferenceComptroller, &[], comptroller)?;
                // The comptroller's oracle, at an address of its own.
                let oracle = Address::from_word(keccak256(("oracle", comptroller).abi_encode()));
                self.deploy_at(Artifact::ReferencePriceOracle, &[], oracle)?;
                let set = ReferenceComptroller::_setPriceOracleCall { newOracle: oracle };
                self.admin(comptroller, &set, "the comptroller's oracle")?;
                self.comptrollers.insert(comptroller, oracle);
                oracle
            }
        };
        let c_token = pool.address;
        let listing = ReferenceComptroller::_supportMarketCall { cToken: c_token };
        self.admin(comptroller, &listing, "listing the market")?;
        // Compound's oracle scale: 1e36 / 10^decimals per whole token.
        let underlying_decimals = self.catalog.token(self.chain, asset).map_or(18, |t| t.decimals);
        if let Some(price) = self.usd_price(asset, 36u8.saturating_sub(underlying_decimals)) {
            fixtures::compound_price(&mut self.evm, oracle, c_token, price)
                .doing(|| format!("price of {asset}"))?;
        }
        let cf = U256::from(r.ltv_bps.unwrap_or(0)) * U256::from(100_000_000_000_000u64);
        if !cf.is_zero() {
            let set = ReferenceComptroller::_setCollateralFactorCall {
                cToken: c_token,
                newCollateralFactorMantissa: cf,
            };
            self.admin(comptroller, &set, "the collateral factor")?;
        }
        let link = ReferenceCToken::_setComptrollerCall { newComptroller: comptroller };
        self.admin(c_token, &link, "the cToken's comptroller")
    }

    /// A Compound III market at its address: `ReferenceComet` over the
    /// record's base asset at the snapshot's supply index (the borrow index
    /// the same, no borrows: nothing accrues while the world's clock
    /// stands), its cash the base it holds, and as much principal supplied
    /// as that cash reads back at the index.
    fn comet(
        &mut self,
        pool: &Pool,
        r: &LendingRecord,
        index: U256,
        available: U256,
    ) -> Result<(), WorldError> {
        let index64 = u64::try_from(index)
            .map_err(|_| self.inconsistent(pool.address, "a supply index past uint64"))?;
        let principal = switchyard_kernel::amm::vault::comet_principal(index, available)
            .map_err(|_| self.inconsistent(pool.address, "cash past the market's principal"))?;
        let supplied = U104::from(principal);
        let (name, symbol, _) = self.token_meta(pool.address, "Compound", 6);
        let args = comet_constructor(r.asset, (name, symbol), index64, (supplied, U104::ZERO));
        self.deploy_at(Artifact::ReferenceComet, &args, pool.address)?;
        self.tokens.insert(pool.address, TokenImpl::Comet);
        self.fund(r.asset, pool.address, available)
    }

    /// A Compound admin call from the world's deployer, which answers an
    /// error code (0 for success) rather than reverting.
    fn admin<C>(&mut self, to: Address, call: &C, what: &str) -> Result<(), WorldError>
    where
        C: alloy_sol_types::SolCall<Return = U256>,
    {
        let code = self.evm.call_sol(DEPLOYER, to, call).doing(|| format!("{what} on {to}"))?;
        if code.is_zero() {
            Ok(())
        } else {
            Err(self.inconsistent(to, format!("{what}: Compound error {code}")))
        }
    }

    /// The catalog's Curve gauge positions: a gauge staking the position's
    /// underlying LP token at the position's address, paying CRV (funded
    /// with some, so that rewards a test grants can be claimed). Each holds
    /// [`GAUGE_STAKE`] LP tokens (at most a quarter of a placed Curve LP
    /// token's supply), staked by [`SEED_HOLDER`], as a deployed
    /// gauge holds its depositors' stake: what any account withdraws comes
    /// out of it.
    fn gauges(&mut self) -> Vec<(Address, Result<PositionFixture, String>)> {
        let catalog = self.catalog;
        let chain = self.chain;
        let reward = catalog.tokens_on(chain).iter().find(|t| t.symbol == "CRV").map(|t| t.address);
        let mut out = Vec::new();
        for p in catalog
            .positions()
            .iter()
            .filter(|p| p.chain_id == chain && p.protocol == "curve-gauge")
        {
            let built = (|| -> Result<PositionFixture, WorldError> {
                let (Some(lp), Some(reward)) = (p.underlying_tokens.first().copied(), reward)
                else {
                    return Err(self.inconsistent(p.address, "a gauge needs its LP token and CRV"));
                };
                let args =
                    ReferenceCurveGauge::constructorCall { lpToken: lp, rewardToken: reward }
                        .abi_encode();
                self.deploy_at(Artifact::ReferenceCurveGauge, &args, p.address)?;
                self.tokens.insert(
                    p.address,
                    TokenImpl::Mapping(Artifact::ReferenceCurveGauge, "balanceOf"),
                );
                self.fund(reward, p.address, U256::from(10u8).pow(U256::from(24u8)))?;
                // Out of a Curve LP token's supply when the pool's is placed
                // (a quarter of it at most), minted otherwise.
                let stake = match self.tokens.get(&lp) {
                    Some(TokenImpl::CurveLp) => {
                        let held = ChainWorld::balance_of(&mut self.evm, lp, SEED_HOLDER)
                            .doing(|| format!("{lp}'s holdings"))?;
                        GAUGE_STAKE.min(held / U256::from(4u8))
                    }
                    _ => GAUGE_STAKE,
                };
                self.fund(lp, p.address, stake)?;
                let supply =
                    Artifact::ReferenceCurveGauge.storage_slot("totalSupply").ok_or_else(|| {
                        self.inconsistent(p.address, "gauge layout has no totalSupply")
                    })?;
                self.evm.set_storage(p.address, U256::from(supply), stake);
                self.fund(p.address, SEED_HOLDER, stake)?;
                Ok(PositionFixture::Gauge { lp })
            })();
            out.push((p.address, built.map_err(|e| super::artifacts::error_chain(&e))));
        }
        out
    }

    /// A two-token vault with the market's holdings and shares (the shares
    /// held by [`SEED_HOLDER`]).
    fn dual_vault(&mut self, v: &DualVaultRecord) -> Result<(), WorldError> {
        let args = ReferenceDualVault::constructorCall {
            tokenA_: v.token_a,
            tokenB_: v.token_b,
            priceBInA_: v.price_b_in_a,
            name_: v.name.clone(),
            symbol_: v.symbol.clone(),
        }
        .abi_encode();
        self.deploy_at(Artifact::ReferenceDualVault, &args, v.address)?;
        self.tokens
            .insert(v.address, TokenImpl::Mapping(Artifact::ReferenceDualVault, "balanceOf"));
        self.fund(v.token_a, v.address, v.held_a)?;
        self.fund(v.token_b, v.address, v.held_b)?;
        let supply = Artifact::ReferenceDualVault
            .storage_slot("totalSupply")
            .ok_or_else(|| self.inconsistent(v.address, "dual vault layout has no totalSupply"))?;
        self.evm.set_storage(v.address, U256::from(supply), v.total_supply);
        self.fund(v.address, SEED_HOLDER, v.total_supply)
    }

    /// Lido's stETH with the snapshot's totals (the shares held by
    /// [`SEED_HOLDER`]).
    fn steth(
        &mut self,
        pool: &Pool,
        st_eth: Address,
        pooled: U256,
        shares: U256,
    ) -> Result<(), WorldError> {
        self.deploy_at(Artifact::ReferenceStETH, &[], st_eth)?;
        fixtures::steth_totals(&mut self.evm, st_eth, pooled, shares, SEED_HOLDER)
            .doing(|| format!("totals of {}", pool.address))?;
        self.tokens.insert(st_eth, TokenImpl::StEth);
        Ok(())
    }

    /// Lido's wstETH over the world's stETH, holding stETH shares that back
    /// the wstETH in circulation.
    fn wsteth(
        &mut self,
        pool: &Pool,
        st_eth: Address,
        wst_eth: Address,
        shares: U256,
    ) -> Result<(), WorldError> {
        if self.tokens.get(&st_eth) != Some(&TokenImpl::StEth) {
            return Err(self.inconsistent(pool.address, "wstETH needs stETH in the world first"));
        }
        let args = ReferenceWstETH::constructorCall { stETH: st_eth }.abi_encode();
        self.deploy_at(Artifact::ReferenceWstETH, &args, wst_eth)?;
        self.tokens.insert(wst_eth, TokenImpl::Mapping(Artifact::ReferenceWstETH, "balanceOf"));
        // Every wstETH unit is one stETH share held by the wrapper.
        let pooled = {
            let slot = Artifact::ReferenceStETH
                .storage_slot("_totalPooledEther")
                .map(U256::from)
                .ok_or_else(|| self.inconsistent(st_eth, "stETH layout"))?;
            self.evm.storage(st_eth, slot)
        };
        let backing =
            switchyard_kernel::amm::full_math::mul_div(shares, pooled, shares.max(U256::ONE))
                .unwrap_or(shares);
        self.fund(st_eth, wst_eth, backing)?;
        let supply = Artifact::ReferenceWstETH
            .storage_slot("totalSupply")
            .ok_or_else(|| self.inconsistent(wst_eth, "wstETH layout has no totalSupply"))?;
        self.evm.set_storage(wst_eth, U256::from(supply), shares);
        Ok(())
    }

    /// An ERC-4626 vault whose `totalAssets` and `totalSupply` are the
    /// snapshot's (the supply held by [`SEED_HOLDER`]).
    fn erc4626(
        &mut self,
        pool: &Pool,
        asset: Address,
        total_assets: U256,
        total_supply: U256,
        rule: VaultRule,
    ) -> Result<(), WorldError> {
        let share = pool.address;
        let (name, symbol, decimals) = match self.catalog.token(self.chain, share) {
            Some(t) => (t.name.clone(), t.symbol.clone(), t.decimals),
            None => ("Vault".to_owned(), "VAULT".to_owned(), 18),
        };
        // solmate's rule: the reference vault; OpenZeppelin's: the library's
        // own ERC4626, compiled from @openzeppelin/contracts.
        let (artifact, supply_var, balances_var) = match rule {
            VaultRule::Solmate => {
                let args =
                    ReferenceVault::constructorCall { asset, name, symbol, decimals }.abi_encode();
                self.deploy_at(Artifact::ReferenceVault, &args, share)?;
                (Artifact::ReferenceVault, "totalSupply", "balanceOf")
            }
            VaultRule::OpenZeppelin { decimals_offset } => {
                let args = OpenZeppelinVault::constructorCall {
                    asset_: asset,
                    name_: name,
                    symbol_: symbol,
                    offset_: decimals_offset,
                }
                .abi_encode();
                self.deploy_at(Artifact::OpenZeppelinVault, &args, share)?;
                (Artifact::OpenZeppelinVault, "_totalSupply", "_balances")
            }
        };
        self.tokens.insert(share, TokenImpl::Mapping(artifact, balances_var));
        self.fund(asset, share, total_assets)?;
        let supply_slot = artifact
            .storage_slot(supply_var)
            .ok_or_else(|| self.inconsistent(share, "vault layout has no total supply"))?;
        self.evm.set_storage(share, U256::from(supply_slot), total_supply);
        self.fund(share, SEED_HOLDER, total_supply)
    }

    /// The catalog's deployed periphery and helper contracts of the chain:
    /// Uniswap's routers from their npm bytecode (deployed with the chain's
    /// factory and wrapped native coin, then moved to their address), a V2
    /// fork's router and Enso's helpers from reference contracts. A
    /// contract that cannot be placed is listed.
    /// Morpho Blue at each address the market says holds tokens on this
    /// chain (its published source, compiled as deployed), holding them:
    /// what its flash loans lend. Answers those that failed.
    fn lenders(&mut self, market: &Market) -> Vec<(Address, WorldError)> {
        let chain = self.chain;
        let holdings: Vec<_> = market
            .lender_holdings
            .iter()
            .filter(|h| h.chain_id == chain && h.protocol == "morpho-blue")
            .collect();
        let mut failed: Vec<(Address, WorldError)> = Vec::new();
        for h in holdings {
            if failed.iter().any(|(at, _)| *at == h.address) {
                continue;
            }
            let placed = (|| {
                if self.evm.code(h.address).is_empty() {
                    let args = super::abi::MorphoBlue::constructorCall { newOwner: DEPLOYER };
                    self.deploy_in_place(Artifact::MorphoBlue, &args.abi_encode(), h.address)?;
                }
                self.fund(h.token, h.address, h.amount)
            })();
            if let Err(e) = placed {
                failed.push((h.address, e));
            }
        }
        failed
    }

    fn deployments(&mut self, snapshot: &MarketSnapshot) -> Vec<(Address, String)> {
        let catalog = self.catalog;
        let chain = self.chain;
        let weth = catalog.network(chain).map(|n| n.wrapped_native).unwrap_or_default();
        let mut failed = Vec::new();
        for d in catalog.deployments_on(chain) {
            if !self.evm.code(d.address).is_empty() {
                continue;
            }
            let factory = d.factory.unwrap_or_default();
            let placed = match d.role {
                DeploymentRole::MathHelpers => {
                    self.deploy_at(Artifact::ReferenceMathHelpers, &[], d.address)
                }
                DeploymentRole::PercentageMathHelpers => {
                    self.deploy_at(Artifact::ReferencePercentageMathHelpers, &[], d.address)
                }
                DeploymentRole::BalancerHelpers => {
                    self.deploy_at(Artifact::ReferenceBalancerHelpers, &[], d.address)
                }
                DeploymentRole::BalancerVault if d.address == BALANCER_VAULT => {
                    self.balancer_vault().map(drop)
                }
                // Read by the RPC feed only; no transaction touches it.
                DeploymentRole::CurvePoolList => Ok(()),
                DeploymentRole::Permit2 if d.address == PERMIT2 => {
                    self.deploy_at(Artifact::ReferencePermit2, &[], d.address)
                }
                DeploymentRole::Permit2 => {
                    Err(self.inconsistent(d.address, "Permit2 is placed at its one address only"))
                }
                DeploymentRole::BalancerVault => Err(self.inconsistent(
                    d.address,
                    "the Balancer Vault is placed at its one address only",
                )),
                DeploymentRole::ShortcutsHelpers => {
                    let artifact = if d.version == Some(2) {
                        Artifact::ReferenceShortcutsHelpersV2
                    } else {
                        Artifact::ReferenceShortcutsHelpers
                    };
                    self.deploy_at(artifact, &[], d.address)
                }
                DeploymentRole::UniswapV2Router => {
                    let fork = catalog
                        .dex_factories()
                        .iter()
                        .find(|f| f.chain_id == chain && f.factory == factory);
                    match fork {
                        Some(f) if f.init_code_hash != UNISWAP_V2_INIT_CODE_HASH => {
                            // The fork's fee is its pairs' (Router02's 30
                            // bps when the market holds none of them).
                            let fee = snapshot
                                .pools()
                                .iter()
                                .filter(|p| p.chain == chain && *p.protocol == *f.protocol)
                                .find_map(|p| match p.state {
                                    PoolState::UniswapV2 { fee_bps, .. } => Some(fee_bps),
                                    _ => None,
                                })
                                .unwrap_or(30);
                            let args = ReferenceV2Router::constructorCall {
                                factory_: factory,
                                weth_: weth,
                                initCodeHash_: f.init_code_hash,
                                feeBps_: U256::from(fee),
                            }
                            .abi_encode();
                            self.deploy_at(Artifact::ReferenceV2Router, &args, d.address)
                        }
                        _ => {
                            let args = UniswapV2Router02::constructorCall { factory, WETH: weth }
                                .abi_encode();
                            self.deploy_at(Artifact::UniswapV2Router02, &args, d.address)
                        }
                    }
                }
                DeploymentRole::UniswapV3SwapRouter => {
                    let args =
                        UniswapV3SwapRouter::constructorCall { factory, WETH9: weth }.abi_encode();
                    self.deploy_at(Artifact::UniswapV3SwapRouter, &args, d.address)
                }
                DeploymentRole::UniswapV3SwapRouter02 => {
                    let args = UniswapV3SwapRouter02::constructorCall {
                        factoryV2: Address::ZERO,
                        factoryV3: factory,
                        positionManager: Address::ZERO,
                        WETH9: weth,
                    }
                    .abi_encode();
                    self.deploy_at(Artifact::UniswapV3SwapRouter02, &args, d.address)
                }
                DeploymentRole::FlashloanRouterAdapter => {
                    let router = catalog
                        .contracts(chain, RoutingStrategy::Router)
                        .and_then(|c| c.router)
                        .unwrap_or_default();
                    let args = ReferenceFlashloanRouterAdapter::constructorCall {
                        lenders: d.lenders.iter().map(|l| l.address).collect(),
                        protocols: d.lenders.iter().map(|l| l.protocol).collect(),
                        router_: router,
                        owner_: FLASHLOAN_ADAPTER_OWNER,
                    }
                    .abi_encode();
                    self.deploy_at(Artifact::ReferenceFlashloanRouterAdapter, &args, d.address)
                }
                DeploymentRole::UniswapV3PositionManager => {
                    // No token descriptor: `tokenURI` is the one function
                    // that reads it, and no program calls it.
                    let args = UniswapV3PositionManager::constructorCall {
                        factory,
                        WETH9: weth,
                        tokenDescriptor: Address::ZERO,
                    }
                    .abi_encode();
                    self.deploy_at(Artifact::UniswapV3PositionManager, &args, d.address)
                }
            };
            if let Err(e) = placed {
                failed.push((d.address, super::artifacts::error_chain(&e)));
            }
        }
        failed
    }

    /// The shortcut contracts of every strategy the catalog configures on
    /// the chain.
    fn shortcuts(&mut self) -> Result<Shortcuts, WorldError> {
        let mut out = Shortcuts::default();
        let catalog = self.catalog;
        let chain = self.chain;
        let set = |s| catalog.contracts(chain, s);
        if let Some((router, executor)) =
            set(RoutingStrategy::Router).and_then(|c| c.router.zip(c.executor))
        {
            // The router creates its executor in its constructor.
            self.deploy_with_child(
                (Artifact::ShortcutsRouter, Artifact::ShortcutsExecutor),
                &[],
                router,
                executor,
            )?;
            out.router = Some((router, executor));
        }
        if let Some(router) = set(RoutingStrategy::RouterLegacy).and_then(|c| c.router) {
            // The legacy router, too: the executor is its first CREATE.
            let executor = legacy_executor(router);
            let args = LegacyShortcutsRouter::constructorCall { owner_: DEPLOYER }.abi_encode();
            self.deploy_with_child(
                (Artifact::LegacyShortcutsRouter, Artifact::LegacyShortcutsExecutor),
                &args,
                router,
                executor,
            )?;
            out.legacy_router = Some((router, executor));
        }
        if let Some(d) = set(RoutingStrategy::Delegate).and_then(|c| c.delegate) {
            self.deploy_at(Artifact::ShortcutsDelegate, &[], d)?;
            out.delegate = Some(d);
        }
        if let Some(d) = set(RoutingStrategy::DelegateLegacy).and_then(|c| c.delegate) {
            self.deploy_at(Artifact::LegacyShortcutsDelegate, &[], d)?;
            out.legacy_delegate = Some(d);
        }
        let wallet =
            set(RoutingStrategy::EnsoWalletV2).and_then(|c| c.factory.zip(c.implementation));
        if let Some((factory, implementation)) = wallet {
            self.deploy_at(Artifact::SmartWallet, &[], implementation)?;
            let args = WalletFactory::constructorCall { implementation }.abi_encode();
            self.deploy_at(Artifact::WalletFactory, &args, factory)?;
            out.wallet_factory = Some((factory, implementation));
        }
        let accounts = set(RoutingStrategy::EnsoWalletV2)
            .and_then(|c| Some((c.account_factory?, c.account_implementation?, c.entry_point?)));
        if let Some((factory, implementation, entry_point)) = accounts {
            out.accounts = Some(self.place_accounts(factory, implementation, entry_point)?);
        }
        Ok(out)
    }

    /// The EntryPoint v0.7 (published bytecode; its `SenderCreator` where
    /// its constructor put it, its first CREATE), the account implementation
    /// (initialised with zeros, as its deployer bricked it) and the factory.
    fn place_accounts(
        &mut self,
        factory: Address,
        implementation: Address,
        entry_point: Address,
    ) -> Result<AccountContracts, WorldError> {
        self.deploy_with_child(
            (Artifact::EntryPoint, Artifact::SenderCreator),
            &[],
            entry_point,
            entry_point.create(1),
        )?;
        self.deploy_at(Artifact::ReceiverAccount, &[], implementation)?;
        let brick = ReceiverAccount::initializeCall {
            owner_: Address::ZERO,
            signer_: Address::ZERO,
            entryPoint_: Address::ZERO,
        };
        self.evm
            .call(DEPLOYER, implementation, brick.abi_encode().into(), U256::ZERO)
            .doing(|| "initialising the account implementation".into())?;
        let args = AccountFactory::constructorCall {
            implementation_: implementation,
            entryPoint_: entry_point,
        }
        .abi_encode();
        self.deploy_at(Artifact::AccountFactory, &args, factory)?;
        // Never placed in the world: a proof puts it over the EntryPoint in
        // its own fork.
        let simulations = self
            .npm
            .runtime(Artifact::EntryPointSimulations)
            .doing(|| "EntryPointSimulations".into())?;
        Ok(AccountContracts { factory, implementation, entry_point, simulations })
    }
}

/// The executor of a legacy router: the contract its constructor created.
pub fn legacy_executor(router: Address) -> Address {
    router.create(1)
}

/// The `ensowallet-v2` wallet of `account`: the factory's minimal proxy
/// ([`proxy_address`]), salt `keccak256(abi.encode(account))`.
pub fn wallet_address(factory: Address, implementation: Address, account: Address) -> Address {
    proxy_address(factory, implementation, keccak256(account.into_word()))
}

/// The CREATE2 address `factory` gives its 44-byte minimal proxy to
/// `implementation` (the solady clone layout Enso's wallet and account
/// factories use) under `salt`.
pub fn proxy_address(factory: Address, implementation: Address, salt: B256) -> Address {
    let mut initcode = Vec::with_capacity(53);
    initcode.extend_from_slice(&alloy_primitives::hex!("602c3d8160093d39f33d3d3d3d363d3d37363d73"));
    initcode.extend_from_slice(implementation.as_slice());
    initcode.extend_from_slice(&alloy_primitives::hex!("5af43d3d93803e602a57fd5bf3"));
    factory.create2(salt, keccak256(&initcode))
}

#[cfg(test)]
mod tests {
    use switchyard_catalog::loaders;

    use super::*;
    use crate::evm::abi::SmartWallet;
    use alloy_sol_types::SolCall;

    /// The embedded catalog and market, the npm artifacts, the USD anchors,
    /// the snapshot and its world.
    struct Embedded {
        catalog: Catalog,
        market: Market,
        npm: NpmArtifacts,
        anchors: Vec<(ChainId, Address)>,
        snapshot: MarketSnapshot,
        world: World,
    }

    fn embedded() -> Result<Embedded, Box<dyn std::error::Error>> {
        let catalog = loaders::load_catalog(&[] as &[&str])?;
        let market = loaders::load_market(None, &catalog)?;
        let npm = NpmArtifacts::load(&NpmArtifacts::default_dir())?;
        let anchors = switchyard_kernel::usd_anchors(&catalog);
        let snapshot = MarketSnapshot::build(&market, &catalog)?;
        let prices = switchyard_kernel::derive_prices(&snapshot, &anchors);
        let world = World::build(&catalog, &market, &snapshot, &prices, &npm)?;
        Ok(Embedded { catalog, market, npm, anchors, snapshot, world })
    }

    /// Every V3 pool of a protocol whose factory the catalog records
    /// reports that factory, which finds it by `getPool` both ways (Enso's
    /// flash-loan adapter trusts a lending pool by these two).
    #[test]
    fn v3_pools_report_the_catalog_factory() -> Result<(), Box<dyn std::error::Error>> {
        use crate::evm::abi::{UniswapV3Factory::getPoolCall, UniswapV3Pool};
        let Embedded { catalog, snapshot, world, .. } = embedded()?;
        let mut checked = 0;
        for pool in snapshot.pools().iter() {
            let PoolState::UniswapV3(v3) = &pool.state else { continue };
            let Some(f) = catalog
                .dex_factory(pool.chain, &pool.protocol)
                .filter(|f| f.kind == FactoryKind::UniswapV3)
            else {
                continue;
            };
            let Some(chain) = world.chain(pool.chain) else { continue };
            let mut evm = chain.fork();
            assert_eq!(evm.view(pool.address, &UniswapV3Pool::factoryCall {})?, f.factory);
            for (a, b) in [(pool.tokens[0], pool.tokens[1]), (pool.tokens[1], pool.tokens[0])] {
                let call = getPoolCall { tokenA: a, tokenB: b, fee: U24::from(v3.fee) };
                assert_eq!(evm.view(f.factory, &call)?, pool.address, "{}", pool.address);
            }
            checked += 1;
        }
        assert!(checked >= 3, "only {checked} V3 pools with a catalog factory");
        Ok(())
    }

    /// Patching the traded pools in place gives the storage a rebuild
    /// gives, and swaps in both worlds pay the same: over 60 recorded
    /// blocks, chain by chain.
    #[test]
    fn patched_pools_match_a_rebuild() -> Result<(), Box<dyn std::error::Error>> {
        let Embedded { catalog, market, npm, anchors, mut snapshot, mut world } = embedded()?;
        let stream = loaders::embedded_blocks()?;
        let (mut patched_v2, mut patched_v3, mut patched_stable) = (0, 0, 0);
        for block in stream.blocks.iter().take(60) {
            let (delta, _) = snapshot.replay_block(block, 12);
            let next = snapshot.apply(&delta)?;
            let prices = switchyard_kernel::derive_prices(&next, &anchors);
            let reused = World::build_reusing(
                &catalog,
                &market,
                &next,
                &prices,
                &npm,
                Some((&snapshot, &world)),
            )?;
            let rebuilt = World::build(&catalog, &market, &next, &prices, &npm)?;
            for (k, _) in &delta.pools {
                let pool = &next.pools()[*k];
                let (Some(old), Some(b)) = (world.chain(pool.chain), rebuilt.chain(pool.chain))
                else {
                    continue;
                };
                // Only the chains the patch covers (a block that also moved
                // a pool of another kind is rebuilt instead).
                let Some(a) = old.patched(&snapshot, &next, b.block()) else { continue };
                let (mut ea, mut eb) = (a.fork(), b.fork());
                let slots: &[u64] = match pool.state {
                    PoolState::UniswapV2 { fee_bps: 30, .. } => {
                        patched_v2 += 1;
                        &[8]
                    }
                    PoolState::UniswapV2 { .. } => {
                        patched_v2 += 1;
                        &[0]
                    }
                    PoolState::UniswapV3 { .. } => {
                        patched_v3 += 1;
                        &[0, 4]
                    }
                    PoolState::Stableswap(_) => {
                        patched_stable += 1;
                        &[]
                    }
                    _ => &[],
                };
                if let PoolState::Stableswap(st) = &pool.state {
                    // The pool's balances as its getter reads them, in the
                    // patched world and in the rebuilt one.
                    use crate::evm::abi::ReferenceStableSwap::balancesCall;
                    for (k, want) in st.balances.iter().enumerate() {
                        let call = balancesCall { i: U256::from(k) };
                        assert_eq!(
                            ea.view(pool.address, &call)?,
                            *want,
                            "{} balances({k})",
                            pool.address
                        );
                        assert_eq!(
                            eb.view(pool.address, &call)?,
                            *want,
                            "{} rebuilt",
                            pool.address
                        );
                    }
                }
                for slot in slots {
                    // The timestamp and oracle fields above bit 184 may differ.
                    let low = (U256::ONE << 184_usize) - U256::ONE;
                    let (x, y) = (
                        ea.storage(pool.address, U256::from(*slot)),
                        eb.storage(pool.address, U256::from(*slot)),
                    );
                    assert_eq!(x & low, y & low, "{} slot {slot}", pool.address);
                }
                if matches!(pool.state, PoolState::UniswapV2 { .. } | PoolState::Stableswap(_)) {
                    for t in pool.tokens.iter() {
                        assert_eq!(
                            ChainWorld::balance_of(&mut ea, *t, pool.address)?,
                            ChainWorld::balance_of(&mut eb, *t, pool.address)?,
                            "{} balance of {t}",
                            pool.address
                        );
                    }
                }
                // And the reused world of that chain is the patched one.
                let r = reused.chain(pool.chain).ok_or("chain")?;
                if let Some(slot) = slots.first() {
                    assert_eq!(
                        r.fork().storage(pool.address, U256::from(*slot)),
                        ea.storage(pool.address, U256::from(*slot))
                    );
                }
                if let PoolState::Stableswap(st) = &pool.state {
                    let call = crate::evm::abi::ReferenceStableSwap::balancesCall { i: U256::ZERO };
                    assert_eq!(r.fork().view(pool.address, &call)?, st.balances[0]);
                }
            }
            snapshot = next;
            world = reused;
        }
        assert!(
            patched_v2 > 0 && patched_v3 > 0 && patched_stable > 0,
            "{patched_v2} pairs, {patched_v3} V3 pools, {patched_stable} StableSwap pools"
        );
        Ok(())
    }

    /// The world of a chain reads its pools by their index in the
    /// snapshot's table: when a pool of another chain before them goes,
    /// the patched world renumbers them and still serves the moved pair
    /// as a rebuild does.
    #[test]
    fn a_patch_renumbers_when_another_chains_pool_goes() -> Result<(), Box<dyn std::error::Error>> {
        let Embedded { catalog, market, npm, anchors, snapshot, world } = embedded()?;
        // A served 0.3% pair with a pool of another chain before it.
        let pools: Vec<&Pool> = snapshot.pools().iter().collect();
        let (k, gone) = pools
            .iter()
            .enumerate()
            .find_map(|(k, p)| {
                let served = matches!(p.state, PoolState::UniswapV2 { fee_bps: 30, .. })
                    && world.chain(p.chain).is_some_and(|w| w.base.lazy.serves(p.address));
                let before = pools[..k].iter().position(|q| q.chain != p.chain);
                served.then_some(()).and(before).map(|g| (k, g))
            })
            .ok_or("a served pair after another chain's pool")?;
        let pair = pools[k];
        let mut fewer = market;
        fewer.pools.remove(gone);
        let shifted = MarketSnapshot::build(&fewer, &catalog)?;
        assert_eq!(shifted.pools()[k - 1].address, pair.address);
        let [r0, r1] = pair.state.v2_reserves().ok_or("reserves")?;
        let moved = PoolState::uniswap_v2([r0 + r0 / U256::from(100u8), r1], 30).ok_or("fits")?;
        let next = shifted.apply(&switchyard_kernel::SnapshotDelta {
            pools: vec![(k - 1, moved)],
            ..Default::default()
        })?;
        let prices = switchyard_kernel::derive_prices(&next, &anchors);
        let rebuilt = World::build(&catalog, &fewer, &next, &prices, &npm)?;
        let b = rebuilt.chain(pair.chain).ok_or("chain")?;
        let old = world.chain(pair.chain).ok_or("chain")?;
        let a = old.patched(&snapshot, &next, b.block()).ok_or("patched")?;
        let (mut ea, mut eb) = (a.fork(), b.fork());
        let low = (U256::ONE << 224_usize) - U256::ONE;
        let slot = U256::from(8u8);
        assert_eq!(ea.storage(pair.address, slot) & low, eb.storage(pair.address, slot) & low);
        assert_eq!(ea.storage(pair.address, slot) & low, (r0 + r0 / U256::from(100u8)) | r1 << 112);
        for t in pair.tokens.iter() {
            assert_eq!(
                ChainWorld::balance_of(&mut ea, *t, pair.address)?,
                ChainWorld::balance_of(&mut eb, *t, pair.address)?
            );
        }
        // Every other served pool of the chain still reads its own state.
        for (j, p) in
            next.pools().iter().enumerate().filter(|(j, p)| {
                p.chain == pair.chain && *j != k - 1 && a.base.lazy.serves(p.address)
            })
        {
            if let Some([x0, x1]) = p.state.v2_reserves() {
                assert_eq!(ea.storage(p.address, slot) & low, x0 | x1 << 112, "pool {j}");
            }
        }
        Ok(())
    }

    /// Balancer pools are registered under the id the market records (the
    /// Vault's earlier nonces taken first), and a pool recorded without one
    /// gets the Vault's next nonce, which the world keeps for encoding.
    #[test]
    fn weighted_pools_get_their_vault_ids() -> Result<(), Box<dyn std::error::Error>> {
        let catalog = loaders::load_catalog(&[] as &[&str])?;
        let mut market = loaders::load_market(None, &catalog)?;
        let npm = NpmArtifacts::load(&NpmArtifacts::default_dir())?;
        let build = |market: &Market| -> Result<World, Box<dyn std::error::Error>> {
            let snapshot = MarketSnapshot::build(market, &catalog)?;
            let prices = switchyard_kernel::derive_prices(
                &snapshot,
                &switchyard_kernel::usd_anchors(&catalog),
            );
            Ok(World::build(&catalog, market, &snapshot, &prices, &npm)?)
        };
        let (address, recorded) = market
            .pools
            .iter()
            .find_map(|r| match r {
                PoolRecord::Weighted(w) => Some((w.address, w.pool_id)),
                _ => None,
            })
            .ok_or("no weighted pool")?;
        let world = build(&market)?;
        let w = world.chain(ChainId(1)).ok_or("no chain 1")?;
        assert_eq!(w.balancer_pool_id(address), recorded);
        assert!(recorded.is_some_and(|id| id[31] == 0x0e), "the recorded nonce is 14");
        for r in &mut market.pools {
            if let PoolRecord::Weighted(w) = r {
                w.pool_id = None;
            }
        }
        let world = build(&market)?;
        let w = world.chain(ChainId(1)).ok_or("no chain 1")?;
        let id = w.balancer_pool_id(address).ok_or("no id given")?;
        assert_eq!(&id[..20], address.as_slice());
        assert_eq!((id[21], &id[22..]), (2, &[0u8; 10][..]));
        let mut evm = w.fork();
        let held = evm.view(BALANCER_VAULT, &BalancerVault::getPoolTokensCall { poolId: id })?;
        assert_eq!(held.tokens.len(), 2);
        Ok(())
    }

    #[test]
    fn the_embedded_market_builds() -> Result<(), Box<dyn std::error::Error>> {
        let catalog = loaders::load_catalog(&[] as &[&str])?;
        let market = loaders::load_market(None, &catalog)?;
        let snapshot = MarketSnapshot::build(&market, &catalog)?;
        let npm = NpmArtifacts::load(&NpmArtifacts::default_dir())?;
        let t = std::time::Instant::now();
        let prices =
            switchyard_kernel::derive_prices(&snapshot, &switchyard_kernel::usd_anchors(&catalog));
        let world = World::build(&catalog, &market, &snapshot, &prices, &npm)?;
        eprintln!("built in {:?}", t.elapsed());
        let unbuilt: Vec<_> = world.unbuilt().collect();
        assert!(unbuilt.is_empty(), "pools without a fixture: {unbuilt:#?}");
        let w = world.chain(ChainId(1)).ok_or("no chain 1")?;
        let mut evm = w.fork();
        // The USDC/WETH V2 pair holds the snapshot's reserves at its real address.
        let pair = address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc");
        let r = evm.view(pair, &UniswapV2Pair::getReservesCall {})?;
        assert_eq!(U256::from(r.reserve0), U256::from(21_000_000_000_000u64));
        // Every non-tokenized position has its fixture, but Compound V3's
        // (no Comet fixture), and the Aave pool knows its debt tokens.
        let aave = address!("87870bca3f3fd6335c3f4ce8392d69350b4fa4e2");
        let usdc = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
        let usdc_debt = address!("72e95b8931767c79ba4eee721354d6e99a61d004");
        assert_eq!(
            w.positions.get(&usdc_debt),
            Some(&Ok(PositionFixture::AaveDebt { pool: aave, asset: usdc }))
        );
        let reserve =
            evm.view(aave, &super::super::abi::AavePool::getReserveDataCall { asset: usdc })?;
        assert_eq!(reserve.variableDebtTokenAddress, usdc_debt);
        // The published pool reads the snapshot's index and its aToken the
        // available liquidity.
        let a_usdc = reserve.aTokenAddress;
        assert_eq!(a_usdc, address!("98c23e9d8f34fefb1b7bd6a91b7ff122f4e16f5c"));
        let index = evm.view(
            aave,
            &super::super::abi::AavePool::getReserveNormalizedIncomeCall { asset: usdc },
        )?;
        assert_eq!(U256::from(reserve.liquidityIndex), index);
        assert!(index > aave::RAY);
        // A holder funded with aUSDC withdraws it on the published pool.
        let holder = Address::repeat_byte(0x77);
        let amount = U256::from(1_234_567_890u64);
        w.fund(&mut evm, a_usdc, holder, amount)?;
        let before = ChainWorld::balance_of(&mut evm, a_usdc, holder)?;
        assert!(before >= amount && before - amount <= U256::from(2u8), "{before}");
        evm.call_sol(
            holder,
            aave,
            &super::super::abi::AavePool::withdrawCall { asset: usdc, amount, to: holder },
        )?;
        assert_eq!(ChainWorld::balance_of(&mut evm, usdc, holder)?, amount);
        // A debt added in a fork is the borrower's on the published pool.
        w.add_debt(&mut evm, usdc_debt, holder, amount)?;
        assert_eq!(ChainWorld::balance_of(&mut evm, usdc_debt, holder)?, amount);
        let account =
            evm.view(aave, &super::super::abi::AavePool::getUserAccountDataCall { user: holder })?;
        assert!(account.totalDebtBase > U256::ZERO);
        let gauge = address!("bfcf63294ad7105dea65aa58f8ae5be2d9d0952a");
        let three_crv = address!("6c3f90f043a72fa612cbac8115ee7e52bde6e490");
        assert_eq!(w.positions.get(&gauge), Some(&Ok(PositionFixture::Gauge { lp: three_crv })));
        let comet = address!("c3d688b66703497daa19211eedff47f25384cdc3");
        assert!(w.positions.get(&comet).is_some_and(Result::is_err));
        // The dual vault holds the market's totals.
        let vault = address!("5eed000000000000000000000000000000001f01");
        let shares = evm.view(
            vault,
            &ReferenceDualVault::previewDepositCall {
                amountA: U256::from(10u64).pow(U256::from(18u8)),
                amountB: U256::from(3_000_000_000u64),
            },
        )?;
        assert_eq!(shares, U256::from(2u8) * U256::from(10u64).pow(U256::from(18u8)));
        // Enso's wallet factory at its address: it predicts the wallet the
        // engine derives, and `deploy` (anyone's call) initialises it with
        // the account as owner and both as executors.
        let (factory, implementation) = w.shortcuts.wallet_factory.ok_or("no wallet factory")?;
        assert_eq!(factory, address!("c914a663837eb21c5a650716e015659686597e55"));
        let account = address!("1111111111111111111111111111111111111111");
        let wallet = wallet_address(factory, implementation, account);
        assert_eq!(wallet, address!("b03ddcbe070af7cdc03722378907f29498ae1ffb"));
        assert_eq!(evm.view(factory, &WalletFactory::getAddressCall { account })?, wallet);
        let data = WalletFactory::deployCall { account }.abi_encode();
        evm.call(DEPLOYER, factory, data.into(), U256::ZERO)?;
        assert_eq!(evm.view(wallet, &SmartWallet::ownerCall {})?, account);
        assert_eq!(evm.view(wallet, &SmartWallet::factoryCall {})?, factory);
        assert!(evm.view(wallet, &SmartWallet::executorsCall { executor: factory })?);
        assert!(evm.view(wallet, &SmartWallet::executorsCall { executor: account })?);
        assert!(!evm.view(wallet, &SmartWallet::executorsCall { executor: DEPLOYER })?);
        Ok(())
    }

    #[test]
    fn mapping_slots_follow_solidity() {
        // keccak256(abi.encode(key, slot)), the layout of `mapping(address => …)`.
        let key = address!("00000000000000000000000000000000000000aa");
        let mut preimage = [0u8; 64];
        preimage[12..32].copy_from_slice(key.as_slice());
        preimage[63] = 3;
        assert_eq!(mapping_slot(key, 3), U256::from_be_bytes(keccak256(preimage).0));
    }
}

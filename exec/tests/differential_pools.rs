//! Differential tests of the kernel's Curve StableSwap and Balancer V2
//! weighted math (`switchyard_kernel::amm::{stableswap, weighted}`) against
//! the reference contracts `contracts/src/ReferenceStableSwap.sol` and
//! `contracts/src/ReferenceBalancerVault.sol` (math in
//! `contracts/src/WeightedMath.sol`), run in the engine's EVM. No tolerance:
//! outputs and next states equal to the wei.
//!
//! - StableSwap: random 2-, 3- and 4-coin pools (decimals 6 to 18, a native
//!   coin in some, `A` 1 to 5000, `A_PRECISION` 1 and 100, fees and admin
//!   fees, balances from 1 raw unit to past what the invariant can hold),
//!   then a few exchanges each. Where the kernel quotes, `get_dy` and
//!   `exchange` give exactly its output, `min_dy` one wei above it reverts,
//!   the trader receives exactly it and `balances(k)` end where the kernel's
//!   next state says, the admin part staying in the pool outside them.
//!   Where the kernel refuses, the pool reverts, or (only for
//!   `InsufficientLiquidity`, a trade that buys nothing) pays 0.
//! - StableSwap liquidity: the same random pools, tokenized
//!   (`ReferenceStableSwap2/3/4` over a `ReferenceCurveToken`, an LP supply
//!   around the pool's `D`, or none), one-coin `add_liquidity` and
//!   `remove_liquidity_one_coin` through the kernel's LP directions: the
//!   same LP tokens minted, coin paid, balances and supply after.
//! - Weighted: random 2-token pools (weights 2% to 98%, the exact 50/50 and
//!   80/20 shortcuts included, decimals 6 to 18, fees 0.0001% to 10%, both
//!   pow rules), swaps from dust to past `MAX_IN_RATIO`, through the
//!   Vault's `swap`. Same output and next balances; the kernel's
//!   `InsufficientLiquidity` is the Vault's `MaxInRatio` revert or a swap
//!   paying 0, its `InvalidState` any other revert.
//! - Weighted, on Balancer's own bytecode (`@balancer-labs/v2-deployments
//!   @3.2.0`, the `Vault`): random 2-token pools of the 2021
//!   `WeightedPool2Tokens` (first pow rule) and the 2023 `WeightedPool` v3
//!   (current rule), joined (INIT) with the case's balances, then swaps: to
//!   the wei.
//! - The kernel's golden weighted vectors (`kernel/tests/golden/weighted/`)
//!   replayed through the library's bytecode (`WeightedMathProbe`), every
//!   one, and the swap vectors whose pools the Vault accepts through the
//!   Vault itself.
//!
//! Coverage counters fail a property if its random cases stop reaching the
//! paths that matter.

mod common;

use std::{
    cell::Cell,
    collections::{HashMap, hash_map::Entry},
};

use alloy_primitives::{Address, B256, Bytes, I256, U256};
use alloy_sol_types::{SolCall, SolConstructor, SolEvent, SolInterface, SolValue, sol};
use common::{CaseResult, DEPLOYER, balance, bits, deploy_token, mint, pool};
use proptest::{prelude::*, test_runner::TestCaseError};
use serde_json::Value;
use switchyard_exec::evm::{Artifact, Evm, EvmError, abi::TestERC20};
use switchyard_kernel::{
    Pool, PoolState, StableswapState, WeightedState,
    amm::{AmmError, weighted::PowRule},
    pool::u256_to_f64,
};

sol! {
    /// `contracts/src/ReferenceStableSwap.sol`.
    #[sol(all_derives)]
    contract ReferenceStableSwap {
        event TokenExchange(
            address indexed buyer,
            int128 sold_id,
            uint256 tokens_sold,
            int128 bought_id,
            uint256 tokens_bought
        );

        error BadCoinCount(uint256 n);
        error LengthMismatch();
        error BadCoin(uint256 index);
        error BadDecimals(uint256 index, uint8 decimals);
        error BadParameters();
        error BadIndex(int128 index);
        error SameCoin();
        error Slippage(uint256 dy, uint256 minDy);
        error BadValue(uint256 value);
        error TransferFailed(address coin);
        error NoConvergence();
        error Reentrancy();

        constructor(
            address[] coins,
            uint8[] decimals,
            uint256 ampPrecise,
            uint256 aPrecision,
            uint256 fee,
            uint256 adminFee
        );

        function coins(uint256 i) external view returns (address);
        function balances(uint256 i) external view returns (uint256);
        function A() external view returns (uint256);
        function A_precise() external view returns (uint256);
        function A_PRECISION() external view returns (uint256);
        function N_COINS() external view returns (uint256);
        function fee() external view returns (uint256);
        function admin_fee() external view returns (uint256);
        function admin_balances(uint256 i) external view returns (uint256);
        function get_dy(int128 i, int128 j, uint256 dx) external view returns (uint256);
        function exchange(int128 i, int128 j, uint256 dx, uint256 min_dy)
            external payable returns (uint256);
    }

    /// `contracts/src/ReferenceBalancerVault.sol`.
    #[sol(all_derives)]
    contract ReferenceBalancerVault {
        struct SingleSwap {
            bytes32 poolId;
            uint8 kind;
            address assetIn;
            address assetOut;
            uint256 amount;
            bytes userData;
        }

        struct FundManagement {
            address sender;
            bool fromInternalBalance;
            address recipient;
            bool toInternalBalance;
        }

        event PoolRegistered(bytes32 indexed poolId, address indexed poolAddress, uint8 specialization);
        event Swap(
            bytes32 indexed poolId,
            address indexed tokenIn,
            address indexed tokenOut,
            uint256 amountIn,
            uint256 amountOut
        );

        error MaxInRatio();
        error ZeroDivision();
        error XOutOfBounds();
        error YOutOfBounds();
        error ProductOutOfBounds();
        error InvalidExponent();
        error DecimalsTooLarge();
        error NotDeployer();
        error PoolAlreadyRegistered(bytes32 poolId);
        error PoolNotRegistered(bytes32 poolId);
        error BadPoolId(bytes32 poolId);
        error BadTokenCount(uint256 n);
        error LengthMismatch();
        error BadToken(uint256 index);
        error BadWeights();
        error BadSwapFee(uint256 swapFee);
        error BadPowRule(uint8 powRule);
        error SwapDeadline(uint256 deadline);
        error UnsupportedSwapKind(uint8 kind);
        error InternalBalanceNotSupported();
        error NativeNotSupported();
        error SenderNotCaller(address sender);
        error ZeroAmount();
        error SameToken();
        error TokenNotRegistered(address token);
        error SwapLimit(uint256 amountOut, uint256 limit);
        error TransferFailed(address token);
        error Reentrancy();

        function registerPool(
            bytes32 poolId,
            address[] tokens,
            uint8[] decimals,
            uint256[] balances,
            uint256[] normalizedWeights,
            uint256 swapFeePercentage,
            uint8 powRule
        ) external;
        function getPoolTokens(bytes32 poolId)
            external view returns (address[] tokens, uint256[] balances, uint256 lastChangeBlock);
        function getPool(bytes32 poolId) external view returns (address, uint8);
        function getPoolParameters(bytes32 poolId)
            external view
            returns (uint256[] normalizedWeights, uint256 swapFeePercentage, uint8 powRule, uint8[] decimals);
        function quoteGivenIn(bytes32 poolId, address assetIn, address assetOut, uint256 amount)
            external view returns (uint256);
        function swap(SingleSwap singleSwap, FundManagement funds, uint256 limit, uint256 deadline)
            external payable returns (uint256 amountCalculated);
    }

    /// `contracts/src/WeightedMath.sol`: the library's functions, callable.
    #[sol(all_derives)]
    contract WeightedMathProbe {
        error MaxInRatio();

        function mulDown(uint256 a, uint256 b) external pure returns (uint256);
        function mulUp(uint256 a, uint256 b) external pure returns (uint256);
        function divDown(uint256 a, uint256 b) external pure returns (uint256);
        function divUp(uint256 a, uint256 b) external pure returns (uint256);
        function complement(uint256 x) external pure returns (uint256);
        function pow(uint256 x, uint256 y) external pure returns (uint256);
        function powUp(uint8 rule, uint256 x, uint256 y) external pure returns (uint256);
        function exp(int256 x) external pure returns (int256);
        function ln(int256 a) external pure returns (int256);
        function calcOutGivenIn(
            uint8 rule,
            uint256 balanceIn,
            uint256 weightIn,
            uint256 balanceOut,
            uint256 weightOut,
            uint256 amountIn
        ) external pure returns (uint256);
        function outGivenIn(
            uint8 rule,
            uint256 balanceIn,
            uint8 decimalsIn,
            uint256 weightIn,
            uint256 balanceOut,
            uint8 decimalsOut,
            uint256 weightOut,
            uint256 swapFee,
            uint256 amountIn
        ) external pure returns (uint256);
    }
}

use ReferenceBalancerVault::{
    FundManagement, ReferenceBalancerVaultErrors as VaultErrors, SingleSwap,
};
use ReferenceStableSwap::ReferenceStableSwapErrors as StableErrors;

const STABLESWAP_JSON: &str = include_str!("../../contracts/artifacts/ReferenceStableSwap.json");
const VAULT_JSON: &str = include_str!("../../contracts/artifacts/ReferenceBalancerVault.json");
const PROBE_JSON: &str = include_str!("../../contracts/artifacts/WeightedMathProbe.json");
const VECTORS: &str = include_str!("../../kernel/tests/golden/weighted/vectors.json");

const TRADER: Address = Address::repeat_byte(0x7a);
const RECIPIENT: Address = Address::repeat_byte(0x5e);

// ---------------------------------------------------------------- helpers

fn check<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> CaseResult)
where
    S::Value: std::fmt::Debug,
{
    common::check(0x5eed_0006, cases, strategy, test);
}

/// The nearest integer at or below `x`, at least 1.
fn f64_to_u256(x: f64) -> U256 {
    if x.is_nan() || x < 1.0 {
        return U256::ONE;
    }
    if x < 2f64.powi(127) {
        return U256::from(x as u128);
    }
    let exp = x.log2().floor() as usize;
    let mantissa = (x / 2f64.powi(exp as i32 - 100)) as u128;
    U256::from(mantissa) << (exp - 100).min(150)
}

/// An artifact's initcode followed by ABI-encoded constructor arguments.
fn initcode(json: &str, args: &[u8]) -> Result<Bytes, TestCaseError> {
    let doc: Value = serde_json::from_str(json).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let hex = doc["bytecode"].as_str().ok_or_else(|| TestCaseError::fail("no bytecode"))?;
    let mut code =
        alloy_primitives::hex::decode(hex).map_err(|e| TestCaseError::fail(e.to_string()))?;
    code.extend_from_slice(args);
    Ok(code.into())
}

fn approve(evm: &mut Evm, token: Address, spender: Address) -> Result<(), EvmError> {
    common::approve(evm, token, TRADER, spender)
}

fn is_revert<T>(r: &Result<T, EvmError>) -> bool {
    matches!(r, Err(EvmError::Reverted { .. }))
}

/// A revert decoded as one of a contract's custom errors.
fn revert_as<E: SolInterface, T>(r: &Result<T, EvmError>) -> Option<E> {
    r.as_ref().err().and_then(EvmError::revert_as::<E>)
}

// ------------------------------------------------------------- StableSwap

/// How a pool's balance of one coin is drawn.
#[derive(Debug, Clone)]
enum Holding {
    /// This many whole coins (times the case's size, for a StableSwap pool).
    Tokens(f64),
    /// Raw units, 1 to 2^100, whatever the decimals.
    Raw(U256),
    /// Past what the invariant's products can hold.
    Huge(U256),
    /// Nothing: the invariant divides by it.
    Empty,
}

#[derive(Debug, Clone)]
enum Dx {
    /// This power of two times the pool's balance of the input coin.
    Relative(f64),
    /// Raw units.
    Raw(U256),
}

#[derive(Debug, Clone)]
struct StableCase {
    decimals: Vec<u8>,
    /// The native coin's position, if the pool has one (18 decimals).
    native: Option<usize>,
    /// `A * A_PRECISION`: a whole `A`, or one caught mid-ramp.
    amp: u64,
    a_precision: u64,
    fee: u64,
    admin_fee: u64,
    /// Whole coins of a balanced pool (1 to 1e10), which `holdings` scale.
    size: f64,
    holdings: Vec<Holding>,
    /// `(i, j offset, dx)`.
    swaps: Vec<(usize, usize, Dx)>,
}

/// A coin's balance in a StableSwap pool: mostly within 1000x of the
/// pool's size either way.
fn holding() -> impl Strategy<Value = Holding> {
    prop_oneof![
        14 => (-3.0f64..3.0).prop_map(|l| Holding::Tokens(10f64.powf(l))),
        2 => bits(1, 100).prop_map(Holding::Raw),
        1 => bits(128, 200).prop_map(Holding::Huge),
        1 => Just(Holding::Empty),
    ]
}

fn dx() -> impl Strategy<Value = Dx> {
    prop_oneof![
        6 => (-50.0f64..3.0).prop_map(Dx::Relative),
        1 => bits(1, 110).prop_map(Dx::Raw),
    ]
}

fn stable_case() -> impl Strategy<Value = StableCase> {
    prop_oneof![5 => Just(2usize), 4 => Just(3usize), 1 => Just(4usize)].prop_flat_map(|n| {
        (
            prop::collection::vec(6u8..=18, n),
            prop_oneof![2 => Just(None), 1 => (0..n).prop_map(Some)],
            prop_oneof![1 => 1u64..=10, 3 => 10u64..=5000],
            (prop_oneof![Just(1u64), Just(100u64)], prop_oneof![2 => Just(0u64), 1 => 1u64..100]),
            prop_oneof![1 => Just(0u64), 4 => 0u64..=50_000_000, 1 => 50_000_000u64..=5_000_000_000],
            prop_oneof![Just(0u64), Just(5_000_000_000u64), Just(10_000_000_000u64), 0u64..=10_000_000_000],
            (0.0f64..10.0).prop_map(|l| 10f64.powf(l)),
            prop::collection::vec(holding(), n),
            prop::collection::vec((0..n, 0..n, dx()), 1..=3),
        )
            .prop_map(
                move |(decimals, native, amp, (a_precision, ramp), fee, admin_fee, size, holdings, swaps)| {
                    let mut decimals = decimals;
                    if let Some(k) = native {
                        decimals[k] = 18;
                    }
                    StableCase {
                        decimals,
                        native,
                        // Between two whole `A`s only where there is a
                        // precision to carry it.
                        amp: amp * a_precision + ramp % a_precision,
                        a_precision,
                        fee,
                        admin_fee,
                        size,
                        holdings,
                        swaps,
                    }
                },
            )
    })
}

fn raw_balance(h: &Holding, decimals: u8) -> U256 {
    match h {
        Holding::Tokens(t) => f64_to_u256(t * 10f64.powi(i32::from(decimals))),
        Holding::Raw(x) | Holding::Huge(x) => *x,
        Holding::Empty => U256::ZERO,
    }
}

/// A StableSwap pool on chain.
struct StablePool {
    address: Address,
    coins: Vec<Address>,
    decimals: Vec<u8>,
    case: StableCase,
}

impl StablePool {
    /// The kernel's view of the pool, from its on-chain balances.
    fn kernel(&self, evm: &mut Evm) -> Result<Pool, TestCaseError> {
        let mut balances = Vec::new();
        for k in 0..self.coins.len() {
            balances.push(
                evm.view(self.address, &ReferenceStableSwap::balancesCall { i: U256::from(k) })?,
            );
        }
        Ok(pool(
            self.address,
            self.coins.clone(),
            self.decimals.clone(),
            PoolState::Stableswap(Box::new(StableswapState {
                balances,
                amp: U256::from(self.case.amp),
                fee: U256::from(self.case.fee),
                admin_fee: U256::from(self.case.admin_fee),
                a_precision: U256::from(self.case.a_precision),
                lp_supply: None,
            })),
        ))
    }

    /// What the trader holds of coin `k`.
    fn held(&self, evm: &mut Evm, k: usize) -> Result<U256, EvmError> {
        if self.coins[k] == NATIVE_COIN {
            Ok(evm.balance(TRADER))
        } else {
            balance(evm, self.coins[k], TRADER)
        }
    }

    /// The pool's holdings of coin `k` beyond its internal balance.
    fn admin(&self, evm: &mut Evm, k: usize) -> Result<U256, EvmError> {
        evm.view(self.address, &ReferenceStableSwap::admin_balancesCall { i: U256::from(k) })
    }
}

/// The address Curve pools use for the native coin.
const NATIVE_COIN: Address = alloy_primitives::address!("EeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE");

fn stable_deploy(c: &StableCase) -> Result<(Evm, StablePool), TestCaseError> {
    let mut evm = Evm::new();
    let n = c.decimals.len();
    let mut coins = Vec::with_capacity(n);
    for k in 0..n {
        coins.push(if c.native == Some(k) {
            NATIVE_COIN
        } else {
            deploy_token(&mut evm, c.decimals[k])?
        });
    }
    let args = ReferenceStableSwap::constructorCall {
        coins: coins.clone(),
        decimals: c.decimals.clone(),
        ampPrecise: U256::from(c.amp),
        aPrecision: U256::from(c.a_precision),
        fee: U256::from(c.fee),
        adminFee: U256::from(c.admin_fee),
    }
    .abi_encode();
    let address = evm.deploy(DEPLOYER, initcode(STABLESWAP_JSON, &args)?)?;
    let balances: Vec<U256> = c
        .holdings
        .iter()
        .zip(&c.decimals)
        .map(|(h, d)| match h {
            Holding::Tokens(t) => raw_balance(&Holding::Tokens(t * c.size), *d),
            other => raw_balance(other, *d),
        })
        .collect();
    switchyard_exec::evm::fixtures::stableswap_balances(&mut evm, address, &balances)?;
    for (coin, b) in coins.iter().zip(&balances) {
        if *coin == NATIVE_COIN {
            evm.set_balance(address, *b);
        } else {
            mint(&mut evm, *coin, address, *b)?;
            approve(&mut evm, *coin, address)?;
        }
    }
    Ok((evm, StablePool { address, coins, decimals: c.decimals.clone(), case: c.clone() }))
}

fn stable_differential(c: StableCase, stats: &StableStats) -> CaseResult {
    let (mut evm, p) = stable_deploy(&c)?;
    let n = p.coins.len();
    match n {
        3 => stats.hit(&stats.three_coins),
        4 => stats.hit(&stats.four_coins),
        _ => {}
    }
    for (i, j_offset, dx) in &c.swaps {
        let (i, j) = (*i, (*i + 1 + j_offset % (n - 1)) % n);
        let kernel_pool = p.kernel(&mut evm)?;
        let PoolState::Stableswap(before) = &kernel_pool.state else { unreachable!() };
        let before = before.balances.clone();
        let dx = match dx {
            Dx::Relative(scale) => f64_to_u256(u256_to_f64(before[i]) * scale.exp2()),
            Dx::Raw(x) => *x,
        };
        let kernel = kernel_pool.swap_exact_in(i, j, dx);

        // Fund the trader: the native coin as the call's value, a token
        // minted (the pool is approved).
        let value = if p.coins[i] == NATIVE_COIN {
            evm.set_balance(TRADER, dx);
            dx
        } else {
            mint(&mut evm, p.coins[i], TRADER, dx)?;
            U256::ZERO
        };
        let (ii, jj) = (i as i128, j as i128);
        let quote = evm.view(p.address, &ReferenceStableSwap::get_dyCall { i: ii, j: jj, dx });
        let exchange = |evm: &mut Evm, min_dy: U256| {
            let call = ReferenceStableSwap::exchangeCall { i: ii, j: jj, dx, min_dy };
            evm.call(TRADER, p.address, call.abi_encode().into(), value)
        };
        match kernel {
            Ok(swap) => {
                let out = swap.amount_out;
                prop_assert_eq!(quote?, out);
                // Exact output (Curve has none): the kernel's input for
                // `out` is the least one the pool's `get_dy` pays it for.
                let least = kernel_pool.swap_exact_out(i, j, out).map_err(|e| {
                    TestCaseError::fail(format!("no exact-out input for {out} (in {dx}): {e}"))
                })?;
                prop_assert!(least.amount_in <= dx && least.amount_out >= out);
                let dy = |x: U256| {
                    evm.clone()
                        .view(p.address, &ReferenceStableSwap::get_dyCall { i: ii, j: jj, dx: x })
                };
                prop_assert_eq!(dy(least.amount_in)?, least.amount_out);
                let short = dy(least.amount_in - U256::ONE);
                prop_assert!(
                    short.as_ref().is_ok_and(|s| *s < out) || short.is_err(),
                    "{} less pays {short:?} ≥ {out}",
                    least.amount_in - U256::ONE
                );
                stats.hit(&stats.least_input);
                let more = exchange(&mut evm, out + U256::ONE);
                prop_assert!(
                    matches!(revert_as::<StableErrors, _>(&more), Some(StableErrors::Slippage(_))),
                    "min_dy one above the kernel's was not refused: {more:?}"
                );
                let (held_in, held_out) = (p.held(&mut evm, i)?, p.held(&mut evm, j)?);
                let admin_before = p.admin(&mut evm, j)?;
                let outcome = exchange(&mut evm, out)?;
                let paid = ReferenceStableSwap::exchangeCall::abi_decode_returns(&outcome.output)
                    .map_err(EvmError::from)?;
                prop_assert_eq!(paid, out);
                prop_assert_eq!(held_out + out, p.held(&mut evm, j)?);
                prop_assert_eq!(held_in - dx, p.held(&mut evm, i)?);
                let event = outcome
                    .logs
                    .iter()
                    .find_map(|l| ReferenceStableSwap::TokenExchange::decode_log(l).ok())
                    .ok_or_else(|| TestCaseError::fail("no TokenExchange"))?;
                prop_assert_eq!(
                    (event.buyer, event.sold_id, event.tokens_sold, event.bought_id),
                    (TRADER, ii, dx, jj)
                );
                prop_assert_eq!(event.tokens_bought, out);
                let onchain = p.kernel(&mut evm)?.state;
                prop_assert_eq!(&onchain, &swap.next);
                // What left the balance beyond the output is the admin
                // part, and it stays in the pool.
                let PoolState::Stableswap(next) = &swap.next else { unreachable!() };
                let admin_part = before[j] - out - next.balances[j];
                prop_assert_eq!(p.admin(&mut evm, j)?, admin_before + admin_part);
                stats.hit(&stats.filled);
                if admin_part > U256::ZERO {
                    stats.hit(&stats.admin_part);
                }
                if p.coins[i] == NATIVE_COIN || p.coins[j] == NATIVE_COIN {
                    stats.hit(&stats.native);
                }
                if c.a_precision == 100 {
                    stats.hit(&stats.precise);
                }
                if !c.amp.is_multiple_of(c.a_precision) {
                    stats.hit(&stats.ramping);
                }
                if dx >= before[i] {
                    stats.hit(&stats.big_dx);
                }
            }
            Err(e) => {
                let onchain = exchange(&mut evm, U256::ZERO);
                match (&quote, &onchain) {
                    (Err(EvmError::Reverted { .. }), Err(EvmError::Reverted { .. })) => {
                        stats.hit(&stats.reverted);
                        if e == AmmError::InvalidState {
                            stats.hit(&stats.invalid);
                        }
                        if matches!(
                            revert_as::<StableErrors, _>(&onchain),
                            Some(StableErrors::NoConvergence(_))
                        ) {
                            stats.hit(&stats.no_convergence);
                        }
                    }
                    (Ok(q), Ok(o)) if e == AmmError::InsufficientLiquidity && q.is_zero() => {
                        let paid = ReferenceStableSwap::exchangeCall::abi_decode_returns(&o.output)
                            .map_err(EvmError::from)?;
                        prop_assert!(paid.is_zero(), "kernel {e} but the pool paid {paid}");
                        stats.hit(&stats.paid_zero);
                    }
                    _ => {
                        prop_assert!(false, "kernel {e} but get_dy {quote:?}, exchange {onchain:?}")
                    }
                }
            }
        }
    }
    Ok(())
}

#[derive(Default)]
struct StableStats {
    filled: Cell<u32>,
    reverted: Cell<u32>,
    invalid: Cell<u32>,
    paid_zero: Cell<u32>,
    native: Cell<u32>,
    admin_part: Cell<u32>,
    precise: Cell<u32>,
    ramping: Cell<u32>,
    big_dx: Cell<u32>,
    no_convergence: Cell<u32>,
    three_coins: Cell<u32>,
    four_coins: Cell<u32>,
    least_input: Cell<u32>,
}

impl StableStats {
    fn hit(&self, counter: &Cell<u32>) {
        counter.set(counter.get() + 1);
    }
}

fn expect_at_least(counter: &Cell<u32>, n: u32, what: &str) {
    assert!(counter.get() >= n, "only {} {what} (expected at least {n})", counter.get());
}

#[test]
fn stableswap_exchanges_exactly_as_the_kernel() {
    let stats = StableStats::default();
    check(160, stable_case(), |c| stable_differential(c, &stats));
    eprintln!(
        "stableswap: filled {} (native coin {}, admin part {}, A_PRECISION 100 {}, A mid-ramp {}, \
         dx past the balance {}), reverted {} (kernel InvalidState {}, no convergence {}), paid 0 {}; \
         3-coin pools {}, 4-coin pools {}",
        stats.filled.get(),
        stats.native.get(),
        stats.admin_part.get(),
        stats.precise.get(),
        stats.ramping.get(),
        stats.big_dx.get(),
        stats.reverted.get(),
        stats.invalid.get(),
        stats.no_convergence.get(),
        stats.paid_zero.get(),
        stats.three_coins.get(),
        stats.four_coins.get(),
    );
    // About half of the least of five runs.
    expect_at_least(&stats.filled, 90, "filled exchanges");
    expect_at_least(&stats.least_input, 90, "least inputs for an exact output");
    expect_at_least(&stats.native, 20, "exchanges in or out of the native coin");
    expect_at_least(&stats.admin_part, 50, "exchanges leaving an admin part");
    expect_at_least(&stats.precise, 45, "exchanges with A_PRECISION 100");
    expect_at_least(&stats.ramping, 10, "exchanges with A between two whole values");
    expect_at_least(&stats.big_dx, 8, "exchanges of more than the pool's balance");
    expect_at_least(&stats.reverted, 50, "exchanges both refuse");
    expect_at_least(&stats.invalid, 30, "kernel InvalidState reverts");
    expect_at_least(&stats.no_convergence, 5, "Newton iterations that do not converge");
    expect_at_least(&stats.paid_zero, 4, "exchanges buying nothing");
    expect_at_least(&stats.three_coins, 30, "3-coin pools");
}

// ---------------------------------------------------------------- weighted

/// The pool address every weighted case registers (the first 20 bytes of
/// its id).
const WEIGHTED_POOL: Address = Address::repeat_byte(0xb7);

/// A Balancer pool id: address, specialization `spec`, nonce.
fn pool_id(address: Address, spec: u16, nonce: u64) -> B256 {
    let mut id = [0u8; 32];
    id[..20].copy_from_slice(address.as_slice());
    id[20..22].copy_from_slice(&spec.to_be_bytes());
    id[24..].copy_from_slice(&nonce.to_be_bytes());
    B256::from(id)
}

const fn rule_code(rule: PowRule) -> u8 {
    match rule {
        PowRule::First => 0,
        PowRule::Current => 1,
    }
}

#[derive(Debug, Clone)]
enum Amount {
    /// This power of two times the pool's balance of the input token.
    Relative(f64),
    /// Around `MAX_IN_RATIO`: this fraction of the input balance.
    Fraction(f64),
    /// Raw units.
    Raw(U256),
}

#[derive(Debug, Clone)]
struct WeightedCase {
    decimals: [u8; 2],
    /// Weight of token 0, 1e18 fixed point (token 1 has the rest).
    weight0: U256,
    fee: U256,
    holdings: [Holding; 2],
    rule: PowRule,
    /// `(token 0 in, amount)`.
    swaps: Vec<(bool, Amount)>,
}

fn weight() -> impl Strategy<Value = U256> {
    let e16 = 10_000_000_000_000_000u64;
    prop_oneof![
        // 50/50 (exponent 1), 80/20 and 20/80 (exponents 4 and 1/4): the
        // current rule's shortcuts.
        1 => Just(U256::from(50 * e16)),
        1 => Just(U256::from(80 * e16)),
        1 => Just(U256::from(20 * e16)),
        3 => (2 * e16..=98 * e16).prop_map(U256::from),
    ]
}

fn amount() -> impl Strategy<Value = Amount> {
    prop_oneof![
        6 => (-45.0f64..-1.0).prop_map(Amount::Relative),
        2 => (0.25f64..0.45).prop_map(Amount::Fraction),
        1 => bits(1, 40).prop_map(Amount::Raw),
    ]
}

fn weighted_holding() -> impl Strategy<Value = Holding> {
    prop_oneof![
        16 => (-3.0f64..12.0).prop_map(|l| Holding::Tokens(10f64.powf(l))),
        3 => bits(1, 100).prop_map(Holding::Raw),
        1 => bits(190, 250).prop_map(Holding::Huge),
    ]
}

fn weighted_case() -> impl Strategy<Value = WeightedCase> {
    (
        (6u8..=18, 6u8..=18),
        weight(),
        prop_oneof![
            1 => Just(1_000_000_000_000u64),
            1 => Just(100_000_000_000_000_000u64),
            4 => 1_000_000_000_000u64..=100_000_000_000_000_000,
        ],
        (weighted_holding(), weighted_holding()),
        prop_oneof![Just(PowRule::First), Just(PowRule::Current)],
        prop::collection::vec((any::<bool>(), amount()), 1..=3),
    )
        .prop_map(|((d0, d1), weight0, fee, (h0, h1), rule, swaps)| WeightedCase {
            decimals: [d0, d1],
            weight0,
            fee: U256::from(fee),
            holdings: [h0, h1],
            rule,
            swaps,
        })
}

struct VaultBase {
    evm: Evm,
    vault: Address,
}

fn vault_base() -> Result<VaultBase, TestCaseError> {
    let mut evm = Evm::new();
    let vault = evm.deploy(DEPLOYER, initcode(VAULT_JSON, &[])?)?;
    Ok(VaultBase { evm, vault })
}

/// A weighted pool registered in the Vault.
struct WeightedPool {
    id: B256,
    tokens: Vec<Address>,
    decimals: Vec<u8>,
    weights: Vec<U256>,
    fee: U256,
    rule: PowRule,
}

impl WeightedPool {
    /// The kernel's view of the pool, from the Vault's balances.
    fn kernel(&self, evm: &mut Evm, vault: Address) -> Result<Pool, TestCaseError> {
        let onchain =
            evm.view(vault, &ReferenceBalancerVault::getPoolTokensCall { poolId: self.id })?;
        prop_assert_eq!(&onchain.tokens, &self.tokens);
        Ok(pool(
            WEIGHTED_POOL,
            self.tokens.clone(),
            self.decimals.clone(),
            PoolState::Weighted(Box::new(WeightedState {
                balances: onchain.balances,
                weights: self.weights.clone(),
                swap_fee: self.fee,
                pow_rule: self.rule,
                bpt_supply: None,
            })),
        ))
    }
}

#[allow(clippy::too_many_arguments, reason = "registerPool's own parameter list")]
fn register(
    evm: &mut Evm,
    vault: Address,
    id: B256,
    tokens: Vec<Address>,
    decimals: Vec<u8>,
    balances: Vec<U256>,
    weights: Vec<U256>,
    fee: U256,
    rule: PowRule,
) -> Result<WeightedPool, TestCaseError> {
    evm.call_sol(
        DEPLOYER,
        vault,
        &ReferenceBalancerVault::registerPoolCall {
            poolId: id,
            tokens: tokens.clone(),
            decimals: decimals.clone(),
            balances: balances.clone(),
            normalizedWeights: weights.clone(),
            swapFeePercentage: fee,
            powRule: rule_code(rule),
        },
    )?;
    // The Vault holds what it books.
    for (t, b) in tokens.iter().zip(&balances) {
        mint(evm, *t, vault, *b)?;
    }
    Ok(WeightedPool { id, tokens, decimals, weights, fee, rule })
}

fn vault_swap(
    evm: &mut Evm,
    vault: Address,
    id: B256,
    token_in: Address,
    token_out: Address,
    amount: U256,
    limit: U256,
) -> Result<switchyard_exec::evm::CallOutcome, EvmError> {
    vault_swap_kind(evm, vault, id, 0, [token_in, token_out], amount, limit)
}

/// `Vault.swap` of `kind` (0: given in, 1: given out).
fn vault_swap_kind(
    evm: &mut Evm,
    vault: Address,
    id: B256,
    kind: u8,
    [token_in, token_out]: [Address; 2],
    amount: U256,
    limit: U256,
) -> Result<switchyard_exec::evm::CallOutcome, EvmError> {
    let call = ReferenceBalancerVault::swapCall {
        singleSwap: SingleSwap {
            poolId: id,
            kind,
            assetIn: token_in,
            assetOut: token_out,
            amount,
            userData: Bytes::new(),
        },
        funds: FundManagement {
            sender: TRADER,
            fromInternalBalance: false,
            recipient: RECIPIENT,
            toInternalBalance: false,
        },
        limit,
        deadline: U256::MAX,
    };
    evm.call(TRADER, vault, call.abi_encode().into(), U256::ZERO)
}

#[derive(Default)]
struct WeightedStats {
    filled: Cell<u32>,
    max_in_ratio: Cell<u32>,
    paid_zero: Cell<u32>,
    invalid: Cell<u32>,
    first_rule: Cell<u32>,
    shortcut: Cell<u32>,
}

impl WeightedStats {
    fn hit(&self, counter: &Cell<u32>) {
        counter.set(counter.get() + 1);
    }
}

/// One exact-in swap, kernel against Vault, from the Vault's current
/// balances.
fn weighted_compare(
    evm: &mut Evm,
    vault: Address,
    p: &WeightedPool,
    (i, j): (usize, usize),
    amount: U256,
    stats: &WeightedStats,
) -> CaseResult {
    let kernel_pool = p.kernel(evm, vault)?;
    let kernel = kernel_pool.swap_exact_in(i, j, amount);
    let (t_in, t_out) = (p.tokens[i], p.tokens[j]);
    mint(evm, t_in, TRADER, amount)?;
    let quote = evm.view(
        vault,
        &ReferenceBalancerVault::quoteGivenInCall {
            poolId: p.id,
            assetIn: t_in,
            assetOut: t_out,
            amount,
        },
    );
    match kernel {
        Ok(swap) => {
            let out = swap.amount_out;
            prop_assert_eq!(quote?, out);
            let more = vault_swap(evm, vault, p.id, t_in, t_out, amount, out + U256::ONE);
            prop_assert!(
                matches!(revert_as::<VaultErrors, _>(&more), Some(VaultErrors::SwapLimit(_))),
                "a limit one above the kernel's was not refused: {more:?}"
            );
            let got_before = balance(evm, t_out, RECIPIENT)?;
            let outcome = vault_swap(evm, vault, p.id, t_in, t_out, amount, out)?;
            let paid = ReferenceBalancerVault::swapCall::abi_decode_returns(&outcome.output)
                .map_err(EvmError::from)?;
            prop_assert_eq!(paid, out);
            prop_assert_eq!(balance(evm, t_out, RECIPIENT)? - got_before, out);
            let event = outcome
                .logs
                .iter()
                .find_map(|l| ReferenceBalancerVault::Swap::decode_log(l).ok())
                .ok_or_else(|| TestCaseError::fail("no Swap event"))?;
            prop_assert_eq!(
                (event.poolId, event.tokenIn, event.tokenOut, event.amountIn, event.amountOut),
                (p.id, t_in, t_out, amount, out)
            );
            prop_assert_eq!(p.kernel(evm, vault)?.state, swap.next);
            stats.hit(&stats.filled);
            if p.rule == PowRule::First {
                stats.hit(&stats.first_rule);
            } else if [1u64, 4].iter().any(|k| p.weights[i] == p.weights[j] * U256::from(*k)) {
                stats.hit(&stats.shortcut);
            }
        }
        Err(e) => {
            let onchain = vault_swap(evm, vault, p.id, t_in, t_out, amount, U256::ZERO);
            let max_in = |r: Option<VaultErrors>| matches!(r, Some(VaultErrors::MaxInRatio(_)));
            match e {
                AmmError::InsufficientLiquidity if max_in(revert_as(&onchain)) => {
                    prop_assert!(max_in(revert_as(&quote)), "quote {quote:?}");
                    stats.hit(&stats.max_in_ratio);
                }
                AmmError::InsufficientLiquidity => {
                    // The only other refusal: a swap that buys nothing,
                    // which the Vault carries out, paying 0.
                    let o = onchain
                        .map_err(|e| TestCaseError::fail(format!("kernel dust, vault {e}")))?;
                    let paid = ReferenceBalancerVault::swapCall::abi_decode_returns(&o.output)
                        .map_err(EvmError::from)?;
                    prop_assert!(paid.is_zero() && quote?.is_zero(), "paid {paid}");
                    stats.hit(&stats.paid_zero);
                }
                _ => {
                    prop_assert!(
                        is_revert(&onchain) && !max_in(revert_as(&onchain)) && is_revert(&quote),
                        "kernel {e} but vault {onchain:?}"
                    );
                    stats.hit(&stats.invalid);
                }
            }
        }
    }
    Ok(())
}

fn weighted_differential(base: &VaultBase, c: WeightedCase, stats: &WeightedStats) -> CaseResult {
    let mut evm = base.evm.clone();
    let vault = base.vault;
    let tokens =
        vec![deploy_token(&mut evm, c.decimals[0])?, deploy_token(&mut evm, c.decimals[1])?];
    for t in &tokens {
        approve(&mut evm, *t, vault)?;
    }
    let balances: Vec<U256> =
        c.holdings.iter().zip(c.decimals).map(|(h, d)| raw_balance(h, d)).collect();
    let one = U256::from(10u64.pow(18));
    let p = register(
        &mut evm,
        vault,
        pool_id(WEIGHTED_POOL, 2, 0),
        tokens,
        c.decimals.to_vec(),
        balances,
        vec![c.weight0, one - c.weight0],
        c.fee,
        c.rule,
    )?;
    for (zero_in, a) in &c.swaps {
        let i = usize::from(!*zero_in);
        let PoolState::Weighted(w) = p.kernel(&mut evm, vault)?.state else { unreachable!() };
        let held = u256_to_f64(w.balances[i]);
        let amount = match a {
            Amount::Relative(scale) => f64_to_u256(held * scale.exp2()),
            Amount::Fraction(f) => f64_to_u256(held * f),
            Amount::Raw(x) => *x,
        };
        weighted_compare(&mut evm, vault, &p, (i, 1 - i), amount, stats)?;
    }
    Ok(())
}

#[test]
fn balancer_weighted_swaps_exactly_as_the_kernel() {
    let base = vault_base().expect("vault deploys");
    let stats = WeightedStats::default();
    check(192, weighted_case(), |c| weighted_differential(&base, c, &stats));
    eprintln!(
        "weighted: filled {} (first rule {}, current-rule shortcut {}), max in ratio {}, \
         paid 0 {}, overflow {}",
        stats.filled.get(),
        stats.first_rule.get(),
        stats.shortcut.get(),
        stats.max_in_ratio.get(),
        stats.paid_zero.get(),
        stats.invalid.get(),
    );
    // About half of the least of five runs.
    expect_at_least(&stats.filled, 100, "filled swaps");
    expect_at_least(&stats.first_rule, 45, "filled swaps with the first pow rule");
    expect_at_least(&stats.shortcut, 10, "filled swaps through a current-rule shortcut");
    expect_at_least(&stats.max_in_ratio, 25, "swaps past MAX_IN_RATIO");
    expect_at_least(&stats.paid_zero, 25, "swaps buying nothing");
    expect_at_least(&stats.invalid, 8, "swaps overflowing");
}

// ------------------------------------------------------- golden vectors

/// One golden vector: the function, its arguments and what the kernel (and
/// Balancer's own BigInt port) give: a decimal result or an error name.
struct Vector {
    f: String,
    args: Vec<String>,
    want: Result<String, String>,
}

fn vectors() -> Vec<Vector> {
    let doc: Value = serde_json::from_str(VECTORS).expect("vectors.json parses");
    let text = |v: &Value| v.as_str().expect("a string").to_owned();
    doc["vectors"]
        .as_array()
        .expect("a vectors array")
        .iter()
        .map(|v| Vector {
            f: text(&v["fn"]),
            args: v["args"].as_array().expect("args").iter().map(text).collect(),
            want: match (v.get("expected"), v.get("error")) {
                (Some(e), None) => Ok(text(e)),
                (None, Some(e)) => Err(text(e)),
                _ => panic!("vector needs one of expected / error: {v}"),
            },
        })
        .collect()
}

fn u(s: &str) -> U256 {
    s.parse().unwrap_or_else(|e| panic!("bad U256 {s}: {e}"))
}

fn i256(s: &str) -> I256 {
    I256::from_dec_str(s).unwrap_or_else(|e| panic!("bad I256 {s}: {e}"))
}

fn u8_of(s: &str) -> u8 {
    s.parse().unwrap_or_else(|e| panic!("bad decimals {s}: {e}"))
}

/// The probe's answer to a vector: its result in decimal, or the kernel's
/// name for the revert (`MaxInRatio` is `InsufficientLiquidity`, anything
/// else `InvalidState`).
fn probe_run(evm: &mut Evm, probe: Address, f: &str, a: &[String]) -> Result<String, String> {
    use WeightedMathProbe as P;
    let data: Vec<u8> = match f {
        "mul_down" => P::mulDownCall { a: u(&a[0]), b: u(&a[1]) }.abi_encode(),
        "mul_up" => P::mulUpCall { a: u(&a[0]), b: u(&a[1]) }.abi_encode(),
        "div_down" => P::divDownCall { a: u(&a[0]), b: u(&a[1]) }.abi_encode(),
        "div_up" => P::divUpCall { a: u(&a[0]), b: u(&a[1]) }.abi_encode(),
        "complement" => P::complementCall { x: u(&a[0]) }.abi_encode(),
        "pow" => P::powCall { x: u(&a[0]), y: u(&a[1]) }.abi_encode(),
        "pow_up" => P::powUpCall { rule: 1, x: u(&a[0]), y: u(&a[1]) }.abi_encode(),
        "pow_up_v1" => P::powUpCall { rule: 0, x: u(&a[0]), y: u(&a[1]) }.abi_encode(),
        "exp" => P::expCall { x: i256(&a[0]) }.abi_encode(),
        "ln" => P::lnCall { a: i256(&a[0]) }.abi_encode(),
        "calc_out_given_in" => P::calcOutGivenInCall {
            rule: 1,
            balanceIn: u(&a[0]),
            weightIn: u(&a[1]),
            balanceOut: u(&a[2]),
            weightOut: u(&a[3]),
            amountIn: u(&a[4]),
        }
        .abi_encode(),
        "out_given_in" | "out_given_in_v1" => P::outGivenInCall {
            rule: u8::from(f == "out_given_in"),
            balanceIn: u(&a[0]),
            decimalsIn: u8_of(&a[1]),
            weightIn: u(&a[2]),
            balanceOut: u(&a[3]),
            decimalsOut: u8_of(&a[4]),
            weightOut: u(&a[5]),
            swapFee: u(&a[6]),
            amountIn: u(&a[7]),
        }
        .abi_encode(),
        other => panic!("vector for unknown function {other}"),
    };
    let r = evm.static_call(Address::ZERO, probe, data.into());
    match r {
        Ok(o) => {
            // Every return is one 32-byte word; exp and ln are signed.
            let word = U256::from_be_slice(&o.output);
            Ok(if matches!(f, "exp" | "ln") {
                I256::from_raw(word).to_string()
            } else {
                word.to_string()
            })
        }
        Err(e) => match e.revert_as::<WeightedMathProbe::WeightedMathProbeErrors>() {
            Some(_) => Err("InsufficientLiquidity".to_owned()),
            None if matches!(e, EvmError::Reverted { .. }) => Err("InvalidState".to_owned()),
            None => panic!("{f}({a:?}) did not revert cleanly: {e}"),
        },
    }
}

#[test]
fn golden_weighted_vectors_replay_through_the_library_bytecode() -> CaseResult {
    let mut evm = Evm::new();
    let probe = evm.deploy(DEPLOYER, initcode(PROBE_JSON, &[])?)?;
    let vectors = vectors();
    let mut failures = Vec::new();
    let mut errors = 0;
    for v in &vectors {
        let got = probe_run(&mut evm, probe, &v.f, &v.args);
        errors += usize::from(got.is_err());
        if got != v.want {
            failures.push(format!(
                "{}({}): got {got:?}, want {:?}",
                v.f,
                v.args.join(", "),
                v.want
            ));
        }
    }
    eprintln!("golden vectors through WeightedMathProbe: {} ({} reverts)", vectors.len(), errors);
    prop_assert!(
        failures.is_empty(),
        "{} vectors differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    prop_assert!(
        vectors.len() >= 800 && errors >= 60,
        "{} vectors, {errors} errors",
        vectors.len()
    );
    Ok(())
}

/// The swap vectors whose pools the Vault accepts (weights of at least 1%
/// summing to 1, fees within Balancer's bounds), each registered as a pool
/// of its own and swapped through `swap`.
#[test]
fn golden_weighted_swaps_replay_through_the_vault() -> CaseResult {
    let VaultBase { mut evm, vault } = vault_base()?;
    let one = u("1000000000000000000");
    let e16 = u("10000000000000000");
    let fees = u("1000000000000")..=u("100000000000000000");
    // Two tokens of each decimals, deployed once.
    let mut tokens: HashMap<u8, [Address; 2]> = HashMap::new();
    let stats = WeightedStats::default();
    let mut replayed = 0u32;
    for (nonce, v) in vectors().iter().enumerate() {
        let rule = match v.f.as_str() {
            "out_given_in" => PowRule::Current,
            "out_given_in_v1" => PowRule::First,
            _ => continue,
        };
        let a = &v.args;
        let (dec, weights, fee) = ([u8_of(&a[1]), u8_of(&a[4])], [u(&a[2]), u(&a[5])], u(&a[6]));
        let accepted = dec.iter().all(|d| *d <= 18)
            && weights.iter().all(|w| *w >= e16)
            && weights[0] + weights[1] == one
            && fees.contains(&fee);
        if !accepted {
            continue;
        }
        let mut pick = |d: u8, k: usize| -> Result<Address, EvmError> {
            if let Entry::Vacant(slot) = tokens.entry(d) {
                let pair = [deploy_token(&mut evm, d)?, deploy_token(&mut evm, d)?];
                approve(&mut evm, pair[0], vault)?;
                approve(&mut evm, pair[1], vault)?;
                slot.insert(pair);
            }
            Ok(tokens[&d][k])
        };
        let pair = vec![pick(dec[0], 0)?, pick(dec[1], 1)?];
        let id = pool_id(WEIGHTED_POOL, 2, nonce as u64);
        let p = register(
            &mut evm,
            vault,
            id,
            pair,
            dec.to_vec(),
            vec![u(&a[0]), u(&a[3])],
            weights.to_vec(),
            fee,
            rule,
        )?;
        // The kernel agrees with the vector (kernel/tests/weighted.rs) and
        // the Vault with the kernel.
        let want = p.kernel(&mut evm, vault)?.swap_exact_in(0, 1, u(&a[7]));
        match (&want, &v.want) {
            (Ok(s), Ok(x)) => prop_assert_eq!(s.amount_out.to_string(), x.clone()),
            (Err(AmmError::InsufficientLiquidity), Ok(x)) => prop_assert_eq!(x.as_str(), "0"),
            (Err(e), Err(x)) => prop_assert_eq!(format!("{e:?}"), x.clone()),
            _ => prop_assert!(false, "kernel {want:?}, vector {:?}", v.want),
        }
        weighted_compare(&mut evm, vault, &p, (0, 1), u(&a[7]), &stats)?;
        replayed += 1;
    }
    eprintln!(
        "golden swaps through the Vault: {replayed} (filled {}, max in ratio {}, paid 0 {}, \
         other reverts {})",
        stats.filled.get(),
        stats.max_in_ratio.get(),
        stats.paid_zero.get(),
        stats.invalid.get()
    );
    prop_assert!(replayed >= 200 && stats.max_in_ratio.get() >= 10, "{replayed} replayed");
    Ok(())
}

// ------------------------------------------------------------ named cases

/// Which custom error a refusal must be.
type IsVaultError = fn(&VaultErrors) -> bool;
type IsStableError = fn(&StableErrors) -> bool;

/// A 3-token pool (`MINIMAL_SWAP_INFO`), which the kernel quotes as any
/// other: swaps between every pair, chained.
#[test]
fn balancer_three_token_pool_swaps_exactly_as_the_kernel() -> CaseResult {
    let VaultBase { mut evm, vault } = vault_base()?;
    let decimals = vec![18u8, 6, 8];
    let mut tokens = Vec::new();
    for d in &decimals {
        let t = deploy_token(&mut evm, *d)?;
        approve(&mut evm, t, vault)?;
        tokens.push(t);
    }
    let weights = vec![u("500000000000000000"), u("300000000000000000"), u("200000000000000000")];
    let balances = vec![u("1000000000000000000000"), u("3000000000000"), u("5000000000")];
    let p = register(
        &mut evm,
        vault,
        pool_id(WEIGHTED_POOL, 1, 7),
        tokens,
        decimals,
        balances,
        weights,
        u("2500000000000000"),
        PowRule::Current,
    )?;
    prop_assert_eq!(
        evm.view(vault, &ReferenceBalancerVault::getPoolCall { poolId: p.id })?,
        ReferenceBalancerVault::getPoolReturn { _0: WEIGHTED_POOL, _1: 1 }
    );
    let stats = WeightedStats::default();
    for (pair, amount) in [
        ((0, 2), u("12345678901234567890")),
        ((2, 1), u("70000000")),
        ((1, 0), u("600000000000")),
        ((1, 2), u("1")),
        ((0, 1), u("400000000000000000000")),
    ] {
        weighted_compare(&mut evm, vault, &p, pair, amount, &stats)?;
    }
    prop_assert_eq!(
        (stats.filled.get(), stats.paid_zero.get(), stats.max_in_ratio.get()),
        (3, 1, 1)
    );
    Ok(())
}

fn swap_with(
    evm: &mut Evm,
    vault: Address,
    single: SingleSwap,
    funds: FundManagement,
    deadline: U256,
    value: U256,
) -> Result<switchyard_exec::evm::CallOutcome, EvmError> {
    let call =
        ReferenceBalancerVault::swapCall { singleSwap: single, funds, limit: U256::ZERO, deadline };
    evm.call(TRADER, vault, call.abi_encode().into(), value)
}

#[test]
fn balancer_vault_refuses_what_it_does_not_support() -> CaseResult {
    use ReferenceBalancerVault::registerPoolCall;
    let VaultBase { mut evm, vault } = vault_base()?;
    let tokens = vec![deploy_token(&mut evm, 18)?, deploy_token(&mut evm, 6)?];
    for t in &tokens {
        approve(&mut evm, *t, vault)?;
    }
    let half = u("500000000000000000");
    let id = pool_id(WEIGHTED_POOL, 2, 0);
    let good = registerPoolCall {
        poolId: id,
        tokens: tokens.clone(),
        decimals: vec![18, 6],
        balances: vec![u("1000000000000000000000"), u("2000000000000")],
        normalizedWeights: vec![half, half],
        swapFeePercentage: u("3000000000000000"),
        powRule: 1,
    };
    let refused = |evm: &mut Evm, from: Address, call: registerPoolCall| {
        revert_as::<VaultErrors, _>(&evm.call_sol(from, vault, &call))
    };
    let e = |f: fn(&mut registerPoolCall)| {
        let mut c = good.clone();
        f(&mut c);
        c
    };
    prop_assert!(matches!(
        refused(&mut evm, TRADER, good.clone()),
        Some(VaultErrors::NotDeployer(_))
    ));
    let bad: [(registerPoolCall, IsVaultError); 7] = [
        (e(|c| c.poolId = pool_id(WEIGHTED_POOL, 0, 0)), |r| {
            matches!(r, VaultErrors::BadPoolId(_))
        }),
        (e(|c| c.poolId = pool_id(Address::ZERO, 2, 0)), |r| {
            matches!(r, VaultErrors::BadPoolId(_))
        }),
        (e(|c| c.normalizedWeights[1] = u("500000000000000001")), |r| {
            matches!(r, VaultErrors::BadWeights(_))
        }),
        (e(|c| c.decimals[0] = 19), |r| matches!(r, VaultErrors::BadToken(_))),
        (e(|c| c.tokens[1] = c.tokens[0]), |r| matches!(r, VaultErrors::BadToken(_))),
        (e(|c| c.swapFeePercentage = U256::ZERO), |r| matches!(r, VaultErrors::BadSwapFee(_))),
        (e(|c| c.powRule = 2), |r| matches!(r, VaultErrors::BadPowRule(_))),
    ];
    for (call, is) in bad {
        let r = refused(&mut evm, DEPLOYER, call.clone());
        prop_assert!(r.as_ref().is_some_and(is), "{call:?}: {r:?}");
    }
    evm.call_sol(DEPLOYER, vault, &good)?;
    for (t, b) in tokens.iter().zip(&good.balances) {
        mint(&mut evm, *t, vault, *b)?;
    }
    prop_assert!(matches!(
        refused(&mut evm, DEPLOYER, good.clone()),
        Some(VaultErrors::PoolAlreadyRegistered(_))
    ));
    let params = evm.view(vault, &ReferenceBalancerVault::getPoolParametersCall { poolId: id })?;
    prop_assert_eq!(
        (params.normalizedWeights, params.swapFeePercentage, params.powRule, params.decimals),
        (good.normalizedWeights.clone(), good.swapFeePercentage, 1, good.decimals.clone())
    );
    prop_assert_eq!(
        evm.view(vault, &ReferenceBalancerVault::getPoolCall { poolId: id })?,
        ReferenceBalancerVault::getPoolReturn { _0: WEIGHTED_POOL, _1: 2 }
    );

    mint(&mut evm, tokens[0], TRADER, u("1000000000000000000"))?;
    let single = SingleSwap {
        poolId: id,
        kind: 0,
        assetIn: tokens[0],
        assetOut: tokens[1],
        amount: u("1000000000000000000"),
        userData: Bytes::new(),
    };
    let funds = FundManagement {
        sender: TRADER,
        fromInternalBalance: false,
        recipient: RECIPIENT,
        toInternalBalance: false,
    };
    let now = U256::from(switchyard_exec::evm::TIMESTAMP);
    type Tweak = fn(&mut SingleSwap, &mut FundManagement, &mut U256, &mut U256);
    let cases: [(Tweak, IsVaultError); 9] = [
        (|s, _, _, _| s.kind = 1, |r| matches!(r, VaultErrors::UnsupportedSwapKind(_))),
        (|_, _, d, _| *d -= U256::ONE, |r| matches!(r, VaultErrors::SwapDeadline(_))),
        (
            |_, f, _, _| f.fromInternalBalance = true,
            |r| matches!(r, VaultErrors::InternalBalanceNotSupported(_)),
        ),
        (
            |_, f, _, _| f.toInternalBalance = true,
            |r| matches!(r, VaultErrors::InternalBalanceNotSupported(_)),
        ),
        (|_, f, _, _| f.sender = RECIPIENT, |r| matches!(r, VaultErrors::SenderNotCaller(_))),
        (|s, _, _, _| s.amount = U256::ZERO, |r| matches!(r, VaultErrors::ZeroAmount(_))),
        (|s, _, _, _| s.assetOut = s.assetIn, |r| matches!(r, VaultErrors::SameToken(_))),
        (|s, _, _, _| s.assetOut = RECIPIENT, |r| matches!(r, VaultErrors::TokenNotRegistered(_))),
        (|_, _, _, v| *v = U256::ONE, |r| matches!(r, VaultErrors::NativeNotSupported(_))),
    ];
    for (tweak, is) in cases {
        let (mut s, mut f, mut d, mut v) = (single.clone(), funds.clone(), now, U256::ZERO);
        tweak(&mut s, &mut f, &mut d, &mut v);
        evm.set_balance(TRADER, v);
        let r = revert_as::<VaultErrors, _>(&swap_with(&mut evm, vault, s.clone(), f, d, v));
        prop_assert!(r.as_ref().is_some_and(is), "{s:?}: {r:?}");
    }
    // At the deadline itself the swap goes through.
    swap_with(&mut evm, vault, single, funds, now, U256::ZERO)?;
    Ok(())
}

#[test]
fn stableswap_refuses_what_curve_refuses() -> CaseResult {
    let c = StableCase {
        decimals: vec![6, 18, 8],
        native: Some(1),
        amp: 20_000,
        a_precision: 100,
        fee: 4_000_000,
        admin_fee: 5_000_000_000,
        size: 1_000_000.0,
        holdings: vec![
            Holding::Raw(u("1000000000000")),
            Holding::Raw(u("500000000000000000000000")),
            Holding::Raw(u("200000000000000")),
        ],
        swaps: Vec::new(),
    };
    let (mut evm, p) = stable_deploy(&c)?;
    use ReferenceStableSwap as S;
    prop_assert_eq!(evm.view(p.address, &S::ACall {})?, U256::from(200u64));
    prop_assert_eq!(evm.view(p.address, &S::A_preciseCall {})?, U256::from(20_000u64));
    prop_assert_eq!(evm.view(p.address, &S::A_PRECISIONCall {})?, U256::from(100u64));
    prop_assert_eq!(evm.view(p.address, &S::N_COINSCall {})?, U256::from(3u64));
    prop_assert_eq!(evm.view(p.address, &S::feeCall {})?, U256::from(4_000_000u64));
    prop_assert_eq!(evm.view(p.address, &S::admin_feeCall {})?, U256::from(5_000_000_000u64));
    prop_assert_eq!(evm.view(p.address, &S::coinsCall { i: U256::ONE })?, NATIVE_COIN);
    prop_assert_eq!(
        evm.view(p.address, &S::balancesCall { i: U256::ONE })?,
        u("500000000000000000000000")
    );

    let exchange = |evm: &mut Evm, i: i128, j: i128, dx: u64, value: u64| {
        let call = S::exchangeCall { i, j, dx: U256::from(dx), min_dy: U256::ZERO };
        revert_as::<StableErrors, _>(&evm.call(
            TRADER,
            p.address,
            call.abi_encode().into(),
            U256::from(value),
        ))
    };
    evm.set_balance(TRADER, U256::from(10u64.pow(18)));
    mint(&mut evm, p.coins[0], TRADER, U256::from(10u64.pow(9)))?;
    let cases: [(i128, i128, u64, u64, IsStableError); 5] = [
        (0, 0, 1000, 0, |r| matches!(r, StableErrors::SameCoin(_))),
        (-1, 0, 1000, 0, |r| matches!(r, StableErrors::BadIndex(_))),
        (0, 3, 1000, 0, |r| matches!(r, StableErrors::BadIndex(_))),
        // The native coin in: the value must be dx.
        (1, 0, 1000, 999, |r| matches!(r, StableErrors::BadValue(_))),
        // A token in: no value.
        (0, 2, 1000, 1, |r| matches!(r, StableErrors::BadValue(_))),
    ];
    for (i, j, dx, value, is) in &cases {
        let r = exchange(&mut evm, *i, *j, *dx, *value);
        prop_assert!(r.as_ref().is_some_and(is), "exchange({i}, {j}, {dx}) value {value}: {r:?}");
    }
    // And both ways through the native coin pay what get_dy said.
    let q = evm.view(p.address, &S::get_dyCall { i: 1, j: 0, dx: U256::from(10u64.pow(18)) })?;
    prop_assert!(exchange(&mut evm, 1, 0, 10u64.pow(18), 10u64.pow(18)).is_none());
    // The native coin is the scarce one: it buys a little more than par.
    prop_assert!(q > U256::from(1_000_000u64) && q < U256::from(1_020_000u64), "{q}");
    let before = evm.balance(TRADER);
    let q = evm.view(p.address, &S::get_dyCall { i: 0, j: 1, dx: U256::from(10u64.pow(6)) })?;
    prop_assert!(exchange(&mut evm, 0, 1, 10u64.pow(6), 0).is_none());
    prop_assert_eq!(evm.balance(TRADER) - before, q);

    // The constructor's checks.
    let deploy = |coins: Vec<Address>, decimals: Vec<u8>, fee: u64| -> Option<StableErrors> {
        let args = S::constructorCall {
            coins,
            decimals,
            ampPrecise: U256::from(100u64),
            aPrecision: U256::ONE,
            fee: U256::from(fee),
            adminFee: U256::ZERO,
        }
        .abi_encode();
        let mut evm = Evm::new();
        let code = initcode(STABLESWAP_JSON, &args).ok()?;
        revert_as::<StableErrors, _>(&evm.deploy(DEPLOYER, code))
    };
    let t = |b: u8| Address::repeat_byte(b);
    let r = deploy(vec![t(1)], vec![18], 0);
    prop_assert!(matches!(r, Some(StableErrors::BadCoinCount(_))), "{r:?}");
    let r = deploy(vec![t(1), NATIVE_COIN], vec![18, 6], 0);
    prop_assert!(matches!(r, Some(StableErrors::BadDecimals(_))), "{r:?}");
    let r = deploy(vec![t(1), t(1)], vec![18, 18], 0);
    prop_assert!(matches!(r, Some(StableErrors::BadCoin(_))), "{r:?}");
    let r = deploy(vec![t(1), t(2)], vec![18, 18], 5_000_000_001);
    prop_assert!(matches!(r, Some(StableErrors::BadParameters(_))), "{r:?}");
    let r = deploy(vec![t(1), t(2)], vec![18], 0);
    prop_assert!(matches!(r, Some(StableErrors::LengthMismatch(_))), "{r:?}");
    Ok(())
}

/// The selectors the contracts answer are mainnet's: a router built against
/// Curve's and Balancer's ABIs calls these fixtures unchanged.
#[test]
fn selectors_are_the_public_abis() {
    use ReferenceBalancerVault as V;
    use ReferenceStableSwap as S;
    let cases: [([u8; 4], [u8; 4], &str); 8] = [
        (S::exchangeCall::SELECTOR, [0x3d, 0xf0, 0x21, 0x24], "exchange"),
        (S::get_dyCall::SELECTOR, [0x5e, 0x0d, 0x44, 0x3f], "get_dy"),
        (S::coinsCall::SELECTOR, [0xc6, 0x61, 0x06, 0x57], "coins"),
        (S::balancesCall::SELECTOR, [0x49, 0x03, 0xb0, 0xd1], "balances"),
        (S::ACall::SELECTOR, [0xf4, 0x46, 0xc1, 0xd0], "A"),
        (V::swapCall::SELECTOR, [0x52, 0xbb, 0xbe, 0x29], "swap"),
        (V::getPoolTokensCall::SELECTOR, [0xf9, 0x4d, 0x46, 0x68], "getPoolTokens"),
        (V::getPoolCall::SELECTOR, [0xf6, 0xc0, 0x09, 0x27], "getPool"),
    ];
    for (ours, public, name) in cases {
        assert_eq!(ours, public, "{name}");
    }
    assert_eq!(
        S::TokenExchange::SIGNATURE_HASH,
        alloy_primitives::b256!("8b3e96f2b889fa771c53c981b40daf005f63f637f1869f707052d15a3dd97140")
    );
    assert_eq!(
        V::Swap::SIGNATURE_HASH,
        alloy_primitives::b256!("2170c741c41531aec20e7c107c24eecfdd15e69c9bb0a8dd37b1840b9e0b207b")
    );
}

// ------------------------------------------ published Balancer bytecode

/// The published Vault (with its Authorizer) and the protocol fee provider
/// later pools read, from `@balancer-labs/v2-deployments@3.2.0`.
struct PublishedBase {
    evm: Evm,
    vault: Address,
    fees: Address,
}

fn published_vault() -> Result<PublishedBase, TestCaseError> {
    use switchyard_exec::evm::abi::{
        BalancerAuthorizer, BalancerProtocolFeeProvider, BalancerVault,
    };
    let mut evm = Evm::new();
    let args = BalancerAuthorizer::constructorCall { admin: DEPLOYER }.abi_encode();
    let authorizer = evm.deploy_artifact(DEPLOYER, Artifact::BalancerAuthorizer, &args)?;
    let args = BalancerVault::constructorCall {
        authorizer,
        weth: Address::repeat_byte(0xee),
        pauseWindowDuration: U256::ZERO,
        bufferPeriodDuration: U256::ZERO,
    }
    .abi_encode();
    let vault = evm.deploy_artifact(DEPLOYER, Artifact::BalancerVault, &args)?;
    let half = U256::from(500_000_000_000_000_000u64);
    let args = BalancerProtocolFeeProvider::constructorCall {
        vault,
        maxYieldValue: half,
        maxAUMValue: half,
    }
    .abi_encode();
    let fees = evm.deploy_artifact(DEPLOYER, Artifact::BalancerProtocolFeeProvider, &args)?;
    Ok(PublishedBase { evm, vault, fees })
}

#[derive(Default)]
struct PublishedStats {
    filled: Cell<u32>,
    refused: Cell<u32>,
    paid_zero: Cell<u32>,
    not_joinable: Cell<u32>,
    given_out: Cell<u32>,
    given_out_refused: Cell<u32>,
    joined: Cell<u32>,
    join_refused: Cell<u32>,
    exited: Cell<u32>,
    exit_refused: Cell<u32>,
    joined_both: Cell<u32>,
    exited_all: Cell<u32>,
}

/// One case on a published pool, the 2021 `WeightedPool2Tokens` (first
/// pow rule) or the 2023 `WeightedPool` v3 (current rule): the pool
/// constructed with the case's weights and fee (it registers itself),
/// joined with the case's balances (INIT), then the case's swaps through
/// `Vault.swap`.
fn published_differential(
    base: &PublishedBase,
    c: WeightedCase,
    stats: &PublishedStats,
) -> CaseResult {
    use switchyard_exec::evm::abi::{
        BalancerVault, BalancerWeightedPool2Tokens, BalancerWeightedPoolV3,
    };
    let mut evm = base.evm.clone();
    let vault = base.vault;
    let one = U256::from(10u64.pow(18));
    // Tokens in ascending order, as the pool requires, each with its case.
    let mut sides: Vec<(Address, u8, U256, U256)> = (0..2)
        .map(|k| {
            let token = deploy_token(&mut evm, c.decimals[k])?;
            let weight = if k == 0 { c.weight0 } else { one - c.weight0 };
            Ok((token, c.decimals[k], raw_balance(&c.holdings[k], c.decimals[k]), weight))
        })
        .collect::<Result<_, EvmError>>()?;
    sides.sort_by_key(|s| s.0);
    let tokens: Vec<Address> = sides.iter().map(|s| s.0).collect();
    let balances: Vec<U256> = sides.iter().map(|s| s.2).collect();
    let weights: Vec<U256> = sides.iter().map(|s| s.3).collect();
    let address = if c.rule == PowRule::First {
        let args = BalancerWeightedPool2Tokens::constructorCall {
            params: BalancerWeightedPool2Tokens::NewPoolParams {
                vault,
                name: "Pool".into(),
                symbol: "BPT".into(),
                token0: tokens[0],
                token1: tokens[1],
                normalizedWeight0: weights[0],
                normalizedWeight1: weights[1],
                swapFeePercentage: c.fee,
                pauseWindowDuration: U256::ZERO,
                bufferPeriodDuration: U256::ZERO,
                oracleEnabled: false,
                owner: DEPLOYER,
            },
        }
        .abi_encode();
        evm.deploy_artifact(DEPLOYER, Artifact::BalancerWeightedPool2Tokens, &args)?
    } else {
        let args = BalancerWeightedPoolV3::constructorCall {
            params: BalancerWeightedPoolV3::NewPoolParams {
                name: "Pool".into(),
                symbol: "BPT".into(),
                tokens: tokens.clone(),
                normalizedWeights: weights.clone(),
                rateProviders: vec![Address::ZERO; 2],
                assetManagers: vec![Address::ZERO; 2],
                swapFeePercentage: c.fee,
            },
            vault,
            protocolFeeProvider: base.fees,
            pauseWindowDuration: U256::ZERO,
            bufferPeriodDuration: U256::ZERO,
            owner: DEPLOYER,
            version: String::new(),
        }
        .abi_encode();
        evm.deploy_artifact(DEPLOYER, Artifact::BalancerWeightedPoolV3, &args)?
    };
    let id = evm.view(address, &BalancerWeightedPool2Tokens::getPoolIdCall {})?;
    for (t, b) in tokens.iter().zip(&balances) {
        mint(&mut evm, *t, DEPLOYER, *b)?;
        evm.call_sol(DEPLOYER, *t, &TestERC20::approveCall { spender: vault, amount: *b })?;
        approve(&mut evm, *t, vault)?;
    }
    let join = BalancerVault::joinPoolCall {
        poolId: id,
        sender: DEPLOYER,
        recipient: DEPLOYER,
        request: BalancerVault::JoinPoolRequest {
            assets: tokens.clone(),
            maxAmountsIn: balances.clone(),
            userData: (U256::ZERO, balances).abi_encode_params().into(),
            fromInternalBalance: false,
        },
    };
    if evm.call_sol(DEPLOYER, vault, &join).is_err() {
        // Balances the pool cannot be initialised with (too little for the
        // minimum BPT, or past what its math scales): no pool to compare.
        stats.not_joinable.set(stats.not_joinable.get() + 1);
        return Ok(());
    }
    let decimals: Vec<u8> = sides.iter().map(|s| s.1).collect();
    for (zero_in, a) in &c.swaps {
        let i = usize::from(!*zero_in);
        let j = 1 - i;
        let held = evm.view(vault, &BalancerVault::getPoolTokensCall { poolId: id })?.balances;
        let kernel_pool = pool(
            address,
            tokens.clone(),
            decimals.clone(),
            PoolState::Weighted(Box::new(WeightedState {
                balances: held.clone(),
                weights: weights.clone(),
                swap_fee: c.fee,
                pow_rule: c.rule,
                bpt_supply: None,
            })),
        );
        let amount = match a {
            Amount::Relative(scale) => f64_to_u256(u256_to_f64(held[i]) * scale.exp2()),
            Amount::Fraction(f) => f64_to_u256(u256_to_f64(held[i]) * f),
            Amount::Raw(x) => *x,
        };
        let kernel = kernel_pool.swap_exact_in(i, j, amount);
        mint(&mut evm, tokens[i], TRADER, amount)?;
        let got_before = balance(&mut evm, tokens[j], RECIPIENT)?;
        let onchain = vault_swap(&mut evm, vault, id, tokens[i], tokens[j], amount, U256::ZERO);
        match kernel {
            Ok(swap) => {
                let o = onchain
                    .map_err(|e| TestCaseError::fail(format!("kernel {swap:?}, vault {e}")))?;
                let paid = ReferenceBalancerVault::swapCall::abi_decode_returns(&o.output)
                    .map_err(EvmError::from)?;
                prop_assert_eq!(paid, swap.amount_out);
                prop_assert_eq!(balance(&mut evm, tokens[j], RECIPIENT)? - got_before, paid);
                let after = evm.view(vault, &BalancerVault::getPoolTokensCall { poolId: id })?;
                let PoolState::Weighted(next) = swap.next else { unreachable!() };
                prop_assert_eq!(after.balances, next.balances);
                stats.filled.set(stats.filled.get() + 1);
            }
            Err(e) => match onchain {
                Err(_) => stats.refused.set(stats.refused.get() + 1),
                Ok(o) => {
                    // The kernel refuses a swap that buys nothing; the
                    // Vault carries it out for 0.
                    let paid = ReferenceBalancerVault::swapCall::abi_decode_returns(&o.output)
                        .map_err(EvmError::from)?;
                    prop_assert!(paid.is_zero(), "kernel {e}, vault paid {paid}");
                    stats.paid_zero.set(stats.paid_zero.get() + 1);
                }
            },
        }
        // The same size asked of the output side, given out (issue 17's
        // exact output): the input the Vault takes is the kernel's.
        let held = evm.view(vault, &BalancerVault::getPoolTokensCall { poolId: id })?.balances;
        let want = match a {
            Amount::Relative(scale) => f64_to_u256(u256_to_f64(held[j]) * scale.exp2()),
            Amount::Fraction(f) => f64_to_u256(u256_to_f64(held[j]) * f),
            Amount::Raw(x) => *x,
        };
        let state = PoolState::Weighted(Box::new(WeightedState {
            balances: held.clone(),
            weights: weights.clone(),
            swap_fee: c.fee,
            pow_rule: c.rule,
            bpt_supply: None,
        }));
        let kernel =
            pool(address, tokens.clone(), decimals.clone(), state).swap_exact_out(i, j, want);
        mint(&mut evm, tokens[i], TRADER, U256::ONE << 200)?;
        let (paid_before, got_before) =
            (balance(&mut evm, tokens[i], TRADER)?, balance(&mut evm, tokens[j], RECIPIENT)?);
        let onchain =
            vault_swap_kind(&mut evm, vault, id, 1, [tokens[i], tokens[j]], want, U256::MAX);
        match (kernel, onchain) {
            (Ok(swap), Ok(o)) => {
                let taken = ReferenceBalancerVault::swapCall::abi_decode_returns(&o.output)
                    .map_err(EvmError::from)?;
                prop_assert_eq!(taken, swap.amount_in);
                prop_assert_eq!(paid_before - balance(&mut evm, tokens[i], TRADER)?, taken);
                prop_assert_eq!(balance(&mut evm, tokens[j], RECIPIENT)? - got_before, want);
                let after = evm.view(vault, &BalancerVault::getPoolTokensCall { poolId: id })?;
                let PoolState::Weighted(next) = swap.next else { unreachable!() };
                prop_assert_eq!(after.balances, next.balances);
                stats.given_out.set(stats.given_out.get() + 1);
            }
            (Err(_), Err(_)) => stats.given_out_refused.set(stats.given_out_refused.get() + 1),
            (k, o) => prop_assert!(false, "given out {want}: kernel {k:?}, vault {o:?}"),
        }
    }
    let published = Published { vault, id, address, tokens, decimals, weights, fee: c.fee };
    for (zero_in, a) in &c.swaps {
        let i = usize::from(!*zero_in);
        published_join_exit(&mut evm, &published, c.rule, (i, 1 - i), a, stats)?;
    }
    Ok(())
}

/// A published pool, as the join and exit cases read it.
struct Published {
    vault: Address,
    id: B256,
    address: Address,
    tokens: Vec<Address>,
    decimals: Vec<u8>,
    weights: Vec<U256>,
    fee: U256,
}

impl Published {
    /// The kernel's pool with its BPT listed, from the Vault's balances and
    /// the pool's `totalSupply`.
    fn kernel(&self, evm: &mut Evm, rule: PowRule) -> Result<Pool, TestCaseError> {
        use switchyard_exec::evm::abi::BalancerVault;
        let held = evm.view(self.vault, &BalancerVault::getPoolTokensCall { poolId: self.id })?;
        let supply = evm.view(self.address, &TestERC20::totalSupplyCall {})?;
        let mut tokens = self.tokens.clone();
        tokens.push(self.address);
        let mut decimals = self.decimals.clone();
        decimals.push(18);
        Ok(pool(
            self.address,
            tokens,
            decimals,
            PoolState::Weighted(Box::new(WeightedState {
                balances: held.balances,
                weights: self.weights.clone(),
                swap_fee: self.fee,
                pow_rule: rule,
                bpt_supply: Some(supply),
            })),
        ))
    }
}

/// One join of coin `i` (`EXACT_TOKENS_IN_FOR_BPT_OUT`, the other coin at
/// zero) sized by `a`, then an exit of part of what it minted
/// (`EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`) into coin `j`, kernel against the
/// published pool through `Vault.joinPool` / `exitPool`: BPT minted, coin
/// paid, the Vault's balances and the supply after, to the wei. A kernel
/// refusal is a revert, or a join minting nothing.
fn published_join_exit(
    evm: &mut Evm,
    p: &Published,
    rule: PowRule,
    (i, j): (usize, usize),
    a: &Amount,
    stats: &PublishedStats,
) -> CaseResult {
    use switchyard_exec::evm::abi::BalancerVault;
    let n = p.tokens.len();
    let kernel_pool = p.kernel(evm, rule)?;
    let PoolState::Weighted(w) = &kernel_pool.state else { unreachable!() };
    let amount = match a {
        Amount::Relative(scale) => f64_to_u256(u256_to_f64(w.balances[i]) * scale.exp2()),
        Amount::Fraction(f) => f64_to_u256(u256_to_f64(w.balances[i]) * f * 4.0),
        Amount::Raw(x) => *x,
    };
    let kernel = kernel_pool.swap_exact_in(i, n, amount);
    mint(evm, p.tokens[i], TRADER, amount)?;
    let mut amounts = vec![U256::ZERO; n];
    amounts[i] = amount;
    let join = BalancerVault::joinPoolCall {
        poolId: p.id,
        sender: TRADER,
        recipient: TRADER,
        request: BalancerVault::JoinPoolRequest {
            assets: p.tokens.clone(),
            maxAmountsIn: amounts.clone(),
            userData: (U256::ONE, amounts, U256::ZERO).abi_encode_params().into(),
            fromInternalBalance: false,
        },
    };
    let before = balance(evm, p.address, TRADER)?;
    let onchain = evm.call_sol(TRADER, p.vault, &join);
    let minted = match (kernel, onchain) {
        (Ok(swap), Ok(_)) => {
            let got = balance(evm, p.address, TRADER)? - before;
            prop_assert_eq!(got, swap.amount_out, "join of {} of coin {}", amount, i);
            prop_assert_eq!(p.kernel(evm, rule)?.state, swap.next);
            stats.joined.set(stats.joined.get() + 1);
            got
        }
        (Err(_), Err(_)) => {
            stats.join_refused.set(stats.join_refused.get() + 1);
            return Ok(());
        }
        (Err(e), Ok(_)) => {
            let got = balance(evm, p.address, TRADER)? - before;
            prop_assert!(got.is_zero(), "kernel {e}, the pool minted {got}");
            stats.join_refused.set(stats.join_refused.get() + 1);
            return Ok(());
        }
        (Ok(swap), Err(e)) => {
            prop_assert!(false, "kernel minted {}, the Vault reverted: {e}", swap.amount_out);
            unreachable!()
        }
    };
    // Exit with part of it, or past 30% of the supply (refused).
    let kernel_pool = p.kernel(evm, rule)?;
    let PoolState::Weighted(w) = &kernel_pool.state else { unreachable!() };
    let bpt = match a {
        Amount::Fraction(f) => f64_to_u256(u256_to_f64(w.bpt_supply.unwrap_or_default()) * f),
        _ => minted / U256::from(2u8) + U256::ONE,
    }
    .min(balance(evm, p.address, TRADER)?);
    let kernel = kernel_pool.swap_exact_in(n, j, bpt);
    let exit = BalancerVault::exitPoolCall {
        poolId: p.id,
        sender: TRADER,
        recipient: RECIPIENT,
        request: BalancerVault::ExitPoolRequest {
            assets: p.tokens.clone(),
            minAmountsOut: vec![U256::ZERO; n],
            userData: (U256::ZERO, bpt, U256::from(j)).abi_encode_params().into(),
            toInternalBalance: false,
        },
    };
    let got_before = balance(evm, p.tokens[j], RECIPIENT)?;
    match (kernel, evm.call_sol(TRADER, p.vault, &exit)) {
        (Ok(swap), Ok(_)) => {
            let got = balance(evm, p.tokens[j], RECIPIENT)? - got_before;
            prop_assert_eq!(got, swap.amount_out, "exit of {} BPT into coin {}", bpt, j);
            prop_assert_eq!(p.kernel(evm, rule)?.state, swap.next);
            stats.exited.set(stats.exited.get() + 1);
        }
        (Err(_), Err(_)) => stats.exit_refused.set(stats.exit_refused.get() + 1),
        (Err(e), Ok(_)) => {
            let got = balance(evm, p.tokens[j], RECIPIENT)? - got_before;
            prop_assert!(got.is_zero(), "kernel {e}, the pool paid {got}");
            stats.exit_refused.set(stats.exit_refused.get() + 1);
        }
        (Ok(swap), Err(e)) => {
            prop_assert!(false, "kernel paid {}, the Vault reverted: {e}", swap.amount_out);
        }
    }
    published_both_coins(evm, p, rule, a, stats)
}

/// A join of both coins at once (`EXACT_TOKENS_IN_FOR_BPT_OUT`, unequal
/// shares of the balances), then a proportional exit
/// (`EXACT_BPT_IN_FOR_TOKENS_OUT`) of part of it, its `userData` as Enso's
/// `BalancerHelpers.encodeDataForExitKindZero(1, bpt, 0)` writes it (a
/// third word the pool's decoder ignores): to the wei, kernel against the
/// published pool.
fn published_both_coins(
    evm: &mut Evm,
    p: &Published,
    rule: PowRule,
    a: &Amount,
    stats: &PublishedStats,
) -> CaseResult {
    use switchyard_exec::evm::abi::BalancerVault;
    let n = p.tokens.len();
    let kernel_pool = p.kernel(evm, rule)?;
    let PoolState::Weighted(w) = &kernel_pool.state else { unreachable!() };
    let amounts: Vec<U256> = (0..n)
        .map(|k| {
            let share = match a {
                Amount::Relative(scale) => scale.exp2() * (k as f64 + 1.0),
                Amount::Fraction(f) => f * 3.0 / (k as f64 + 1.0),
                Amount::Raw(_) => 1e-3 / (k as f64 + 1.0),
            };
            f64_to_u256(u256_to_f64(w.balances[k]) * share)
        })
        .collect();
    let kernel = kernel_pool.balancer_join(&kernel_pool.state, &amounts);
    for (t, x) in p.tokens.iter().zip(&amounts) {
        mint(evm, *t, TRADER, *x)?;
    }
    let join = BalancerVault::joinPoolCall {
        poolId: p.id,
        sender: TRADER,
        recipient: TRADER,
        request: BalancerVault::JoinPoolRequest {
            assets: p.tokens.clone(),
            maxAmountsIn: amounts.clone(),
            userData: (U256::ONE, amounts.clone(), U256::ZERO).abi_encode_params().into(),
            fromInternalBalance: false,
        },
    };
    let before = balance(evm, p.address, TRADER)?;
    match (kernel, evm.call_sol(TRADER, p.vault, &join)) {
        (Ok(swap), Ok(_)) => {
            let got = balance(evm, p.address, TRADER)? - before;
            prop_assert_eq!(got, swap.amount_out, "join of {:?}", amounts);
            prop_assert_eq!(p.kernel(evm, rule)?.state, swap.next);
            stats.joined_both.set(stats.joined_both.get() + 1);
        }
        (Err(_), Err(_)) => {}
        (Err(e), Ok(_)) => {
            let got = balance(evm, p.address, TRADER)? - before;
            prop_assert!(got.is_zero(), "kernel {e}, the pool minted {got}");
        }
        (Ok(swap), Err(e)) => {
            prop_assert!(false, "kernel minted {}, the Vault reverted: {e}", swap.amount_out);
        }
    }
    let held = balance(evm, p.address, TRADER)?;
    if held.is_zero() {
        return Ok(());
    }
    let bpt = held / U256::from(3u8) + U256::ONE;
    let kernel_pool = p.kernel(evm, rule)?;
    let kernel = kernel_pool.balancer_exit_proportional(&kernel_pool.state, bpt);
    let exit = BalancerVault::exitPoolCall {
        poolId: p.id,
        sender: TRADER,
        recipient: RECIPIENT,
        request: BalancerVault::ExitPoolRequest {
            assets: p.tokens.clone(),
            minAmountsOut: vec![U256::ZERO; n],
            userData: (U256::ONE, bpt, U256::ZERO).abi_encode_params().into(),
            toInternalBalance: false,
        },
    };
    let mut before = Vec::with_capacity(n);
    for t in &p.tokens {
        before.push(balance(evm, *t, RECIPIENT)?);
    }
    match (kernel, evm.call_sol(TRADER, p.vault, &exit)) {
        (Ok((paid, next)), Ok(_)) => {
            for (k, t) in p.tokens.iter().enumerate() {
                prop_assert_eq!(balance(evm, *t, RECIPIENT)? - before[k], paid[k], "coin {}", k);
            }
            prop_assert_eq!(p.kernel(evm, rule)?.state, next);
            stats.exited_all.set(stats.exited_all.get() + 1);
        }
        (k, o) => {
            prop_assert!(false, "proportional exit of {bpt}: kernel {k:?}, vault {:?}", o.map(drop))
        }
    }
    Ok(())
}

/// The kernel's two pow rules against Balancer's own bytecode
/// (`@balancer-labs/v2-deployments@3.2.0`, what the EVM world places): the
/// first on the 2021 `WeightedPool2Tokens`, the current on the 2023
/// `WeightedPool` v3, through the published `Vault`. Outputs, the
/// recipient's gain and the Vault's next balances equal to the wei; a
/// kernel refusal is a revert or a swap paying 0.
#[test]
fn published_balancer_pools_swap_exactly_as_the_kernel() {
    let base = published_vault().expect("the published Vault deploys");
    for rule in [PowRule::First, PowRule::Current] {
        let stats = PublishedStats::default();
        let cases = weighted_case().prop_map(move |c| WeightedCase { rule, ..c });
        check(128, cases, |c| published_differential(&base, c, &stats));
        eprintln!(
            "published weighted, {rule:?} rule: filled {}, refused {}, paid 0 {}, not joinable {}",
            stats.filled.get(),
            stats.refused.get(),
            stats.paid_zero.get(),
            stats.not_joinable.get(),
        );
        expect_at_least(&stats.filled, 60, "filled swaps on the published pool");
        expect_at_least(&stats.given_out, 60, "given-out swaps on the published pool");
        expect_at_least(&stats.given_out_refused, 5, "given-out swaps both refuse");
        expect_at_least(&stats.refused, 5, "swaps both refuse");
        eprintln!(
            "published weighted, {rule:?} rule: joined {} (refused {}), exited {} (refused {}), \
             joined both {}, exited all {}",
            stats.joined.get(),
            stats.join_refused.get(),
            stats.exited.get(),
            stats.exit_refused.get(),
            stats.joined_both.get(),
            stats.exited_all.get(),
        );
        expect_at_least(&stats.joined, 60, "joins of one coin on the published pool");
        expect_at_least(&stats.exited, 60, "exits into one coin on the published pool");
        expect_at_least(&stats.exit_refused, 3, "exits past the invariant ratio both refuse");
        expect_at_least(&stats.joined_both, 60, "joins of both coins on the published pool");
        expect_at_least(&stats.exited_all, 60, "proportional exits on the published pool");
    }
}

// ------------------------------------------------- StableSwap liquidity

sol! {
    /// `contracts/src/ReferenceStableSwapLp.sol`: what the pools of every
    /// coin count share.
    #[sol(all_derives)]
    contract StableSwapLiquidity {
        event RemoveLiquidityOne(address indexed provider, uint256 token_amount, uint256 coin_amount);

        error NothingAdded();
        error EmptyPoolNeedsEveryCoin(uint256 index);
        error TooMuchLp(uint256 amount, uint256 supply);

        constructor(
            address[] coins,
            uint8[] decimals,
            uint256 ampPrecise,
            uint256 aPrecision,
            uint256 fee,
            uint256 adminFee,
            address lpToken
        );

        function calc_withdraw_one_coin(uint256 token_amount, int128 i) external view returns (uint256);
        function remove_liquidity_one_coin(uint256 token_amount, int128 i, uint256 min_amount)
            external returns (uint256);
    }

    function add_liquidity(uint256[2] amounts, uint256 min_mint_amount) external payable returns (uint256);

    /// `contracts/src/ReferenceCurveToken.sol`.
    #[sol(all_derives)]
    contract ReferenceCurveToken {
        constructor(string name, string symbol, uint8 decimals, address minter);
        function set_minter(address minter) external;
        function totalSupply() external view returns (uint256);
    }
}

/// `add_liquidity(uint256[n], uint256)`'s selector for `n` coins.
fn add_liquidity_selector(n: usize) -> [u8; 4] {
    selector(&format!("add_liquidity(uint256[{n}],uint256)"))
}

fn selector(sig: &str) -> [u8; 4] {
    alloy_primitives::keccak256(sig.as_bytes())[..4].try_into().unwrap_or_default()
}

/// Calldata of `selector` over 32-byte words.
fn words(selector: [u8; 4], words: &[U256]) -> Bytes {
    let mut data = selector.to_vec();
    for w in words {
        data.extend_from_slice(&w.to_be_bytes::<32>());
    }
    data.into()
}

#[derive(Debug, Clone)]
enum LiquidityOp {
    /// Coin `i`, this power of two times the pool's balance of it.
    Deposit(usize, Dx),
    /// Into coin `j`, this power of two times the trader's LP tokens
    /// (past them: more than the supply).
    Withdraw(usize, f64),
    /// Every coin at once, each this power of two times its balance (or
    /// none).
    DepositAll(Vec<Option<f64>>),
    /// Every coin in proportion, this power of two times the trader's LP
    /// tokens.
    WithdrawAll(f64),
}

#[derive(Debug, Clone)]
struct LiquidityCase {
    pool: StableCase,
    /// The LP supply, this power of ten times the pool's `Σ xp`, or `None`
    /// for an empty supply.
    supply: Option<f64>,
    ops: Vec<LiquidityOp>,
}

fn liquidity_case() -> impl Strategy<Value = LiquidityCase> {
    stable_case().prop_flat_map(|pool| {
        let n = pool.decimals.len();
        let op = prop_oneof![
            3 => (0..n, dx()).prop_map(|(i, d)| LiquidityOp::Deposit(i, d)),
            3 => (0..n, -60.0f64..0.5).prop_map(|(j, f)| LiquidityOp::Withdraw(j, f)),
            2 => prop::collection::vec(prop_oneof![1 => Just(None), 3 => (-40.0f64..2.0).prop_map(Some)], n)
                .prop_map(LiquidityOp::DepositAll),
            1 => (-60.0f64..0.5).prop_map(LiquidityOp::WithdrawAll),
        ];
        (
            Just(pool),
            prop_oneof![12 => (-1.0f64..1.0).prop_map(Some), 1 => Just(None)],
            prop::collection::vec(op, 1..=4),
        )
            .prop_map(|(pool, supply, ops)| LiquidityCase { pool, supply, ops })
    })
}

#[derive(Default)]
struct LiquidityStats {
    minted: Cell<u32>,
    withdrawn: Cell<u32>,
    all_in: Cell<u32>,
    all_out: Cell<u32>,
    refused: Cell<u32>,
    native: Cell<u32>,
    admin_part: Cell<u32>,
}

fn liquidity_differential(c: LiquidityCase, stats: &LiquidityStats) -> CaseResult {
    let (mut evm, p) = stable_deploy(&c.pool)?;
    let n = p.coins.len();
    // A tokenized pool of the same coins and balances, over a fresh LP
    // token whose minter it becomes.
    let token_args = ReferenceCurveToken::constructorCall {
        name: "LP".into(),
        symbol: "LP".into(),
        decimals: 18,
        minter: DEPLOYER,
    }
    .abi_encode();
    let lp = evm.deploy_artifact(DEPLOYER, Artifact::ReferenceCurveToken, &token_args)?;
    let args = StableSwapLiquidity::constructorCall {
        coins: p.coins.clone(),
        decimals: p.decimals.clone(),
        ampPrecise: U256::from(p.case.amp),
        aPrecision: U256::from(p.case.a_precision),
        fee: U256::from(p.case.fee),
        adminFee: U256::from(p.case.admin_fee),
        lpToken: lp,
    }
    .abi_encode();
    let artifact = match n {
        2 => Artifact::ReferenceStableSwap2,
        3 => Artifact::ReferenceStableSwap3,
        _ => Artifact::ReferenceStableSwap4,
    };
    let address = evm.deploy_artifact(DEPLOYER, artifact, &args)?;
    evm.call_sol(DEPLOYER, lp, &ReferenceCurveToken::set_minterCall { minter: address })?;
    let balances = p.kernel(&mut evm)?;
    let PoolState::Stableswap(st) = &balances.state else { unreachable!() };
    switchyard_exec::evm::fixtures::stableswap_balances(&mut evm, address, &st.balances)?;
    for (coin, b) in p.coins.iter().zip(&st.balances) {
        if *coin == NATIVE_COIN {
            evm.set_balance(address, *b);
        } else {
            mint(&mut evm, *coin, address, *b)?;
            approve(&mut evm, *coin, address)?;
        }
    }
    let xp_sum: f64 = st
        .balances
        .iter()
        .zip(&p.decimals)
        .map(|(b, d)| u256_to_f64(*b) * 10f64.powi(18 - i32::from(*d)))
        .sum();
    let supply = c.supply.map_or(U256::ZERO, |l| f64_to_u256(xp_sum * 10f64.powf(l)));
    let art = Artifact::ReferenceCurveToken;
    let (Some(supply_slot), Some(balance_slot)) =
        (art.storage_slot("totalSupply"), art.storage_slot("balanceOf"))
    else {
        return Err(TestCaseError::fail("LP token layout"));
    };
    evm.set_storage(lp, U256::from(supply_slot), supply);
    evm.set_storage(lp, switchyard_exec::evm::world::mapping_slot(TRADER, balance_slot), supply);

    let kernel = |evm: &mut Evm| -> Result<Pool, TestCaseError> {
        let mut b = Vec::new();
        for k in 0..n {
            b.push(evm.view(address, &ReferenceStableSwap::balancesCall { i: U256::from(k) })?);
        }
        let supply = evm.view(lp, &ReferenceCurveToken::totalSupplyCall {})?;
        let mut tokens = p.coins.clone();
        tokens.push(lp);
        let mut decimals = p.decimals.clone();
        decimals.push(18);
        Ok(pool(
            address,
            tokens,
            decimals,
            PoolState::Stableswap(Box::new(StableswapState {
                balances: b,
                amp: U256::from(p.case.amp),
                fee: U256::from(p.case.fee),
                admin_fee: U256::from(p.case.admin_fee),
                a_precision: U256::from(p.case.a_precision),
                lp_supply: Some(supply),
            })),
        ))
    };
    let held = |evm: &mut Evm, k: usize| -> Result<U256, EvmError> {
        if p.coins[k] == NATIVE_COIN {
            Ok(evm.balance(TRADER))
        } else {
            balance(evm, p.coins[k], TRADER)
        }
    };
    for op in &c.ops {
        let kp = kernel(&mut evm)?;
        prop_assert_eq!(kp.lp_index(), Some(n));
        let PoolState::Stableswap(before) = &kp.state else { unreachable!() };
        let before = (**before).clone();
        match op {
            LiquidityOp::Deposit(i, dx) => {
                let i = *i;
                let dx = match dx {
                    Dx::Relative(scale) => {
                        f64_to_u256(u256_to_f64(before.balances[i]) * scale.exp2())
                    }
                    Dx::Raw(x) => *x,
                };
                let quoted = kp.swap_exact_in(i, n, dx);
                let value = if p.coins[i] == NATIVE_COIN {
                    evm.set_balance(TRADER, dx);
                    dx
                } else {
                    mint(&mut evm, p.coins[i], TRADER, dx)?;
                    U256::ZERO
                };
                let mut data = add_liquidity_selector(n).to_vec();
                for k in 0..n {
                    data.extend_from_slice(
                        &(if k == i { dx } else { U256::ZERO }).to_be_bytes::<32>(),
                    );
                }
                let lp_before = balance(&mut evm, lp, TRADER)?;
                let deposit = |evm: &mut Evm, min: U256| {
                    let mut data = data.clone();
                    data.extend_from_slice(&min.to_be_bytes::<32>());
                    evm.call(TRADER, address, data.into(), value)
                };
                match quoted {
                    Ok(swap) => {
                        let more = deposit(&mut evm.clone(), swap.amount_out + U256::ONE);
                        prop_assert!(is_revert(&more), "a minimum one above the kernel's passed");
                        let outcome = deposit(&mut evm, swap.amount_out)?;
                        let minted = add_liquidityCall::abi_decode_returns(&outcome.output)
                            .map_err(EvmError::from)?;
                        prop_assert_eq!(minted, swap.amount_out);
                        prop_assert_eq!(balance(&mut evm, lp, TRADER)? - lp_before, minted);
                        prop_assert_eq!(&kernel(&mut evm)?.state, &swap.next);
                        stats.hit_if(&stats.minted, true);
                        stats.hit_if(&stats.native, p.coins[i] == NATIVE_COIN);
                    }
                    Err(e) => {
                        deposit_refused(e, &deposit(&mut evm, U256::ZERO))?;
                        stats.hit_if(&stats.refused, true);
                    }
                }
            }
            LiquidityOp::Withdraw(j, frac) => {
                let j = *j;
                let mine = balance(&mut evm, lp, TRADER)?;
                let amount = if *frac > 0.0 {
                    before.lp_supply.unwrap_or_default() + U256::ONE
                } else {
                    f64_to_u256(u256_to_f64(mine) * frac.exp2()).min(mine)
                };
                let quoted = kp.swap_exact_in(n, j, amount);
                let jj = j as i128;
                let calc = evm.view(
                    address,
                    &StableSwapLiquidity::calc_withdraw_one_coinCall {
                        token_amount: amount,
                        i: jj,
                    },
                );
                let remove = |evm: &mut Evm, min: U256| {
                    evm.call_sol(
                        TRADER,
                        address,
                        &StableSwapLiquidity::remove_liquidity_one_coinCall {
                            token_amount: amount,
                            i: jj,
                            min_amount: min,
                        },
                    )
                };
                match quoted {
                    Ok(swap) => {
                        prop_assert_eq!(calc?, swap.amount_out);
                        let more = remove(&mut evm.clone(), swap.amount_out + U256::ONE);
                        prop_assert!(is_revert(&more), "a minimum one above the kernel's passed");
                        let had = held(&mut evm, j)?;
                        remove(&mut evm, swap.amount_out)?;
                        prop_assert_eq!(held(&mut evm, j)? - had, swap.amount_out);
                        prop_assert_eq!(mine - balance(&mut evm, lp, TRADER)?, amount);
                        let next = kernel(&mut evm)?.state;
                        prop_assert_eq!(&next, &swap.next);
                        let PoolState::Stableswap(after) = &next else { unreachable!() };
                        stats.hit_if(&stats.withdrawn, true);
                        stats.hit_if(
                            &stats.admin_part,
                            before.balances[j] - after.balances[j] > swap.amount_out,
                        );
                        stats.hit_if(&stats.native, p.coins[j] == NATIVE_COIN);
                    }
                    Err(e) => {
                        let onchain = remove(&mut evm, U256::ZERO);
                        let paid_zero = matches!(&calc, Ok(x) if x.is_zero()) && onchain.is_ok();
                        prop_assert!(
                            is_revert(&onchain)
                                || (e == AmmError::InsufficientLiquidity && paid_zero),
                            "kernel {e} but the pool {onchain:?} (calc {calc:?})"
                        );
                        stats.hit_if(&stats.refused, true);
                    }
                }
            }
            LiquidityOp::DepositAll(scales) => {
                let amounts: Vec<U256> = scales
                    .iter()
                    .zip(&before.balances)
                    .map(|(s, b)| s.map_or(U256::ZERO, |s| f64_to_u256(u256_to_f64(*b) * s.exp2())))
                    .collect();
                let mut value = U256::ZERO;
                for (k, a) in amounts.iter().enumerate() {
                    if p.coins[k] == NATIVE_COIN {
                        evm.set_balance(TRADER, *a);
                        value = *a;
                    } else if !a.is_zero() {
                        mint(&mut evm, p.coins[k], TRADER, *a)?;
                    }
                }
                let quoted = kp.curve_add_liquidity(&kp.state, &amounts);
                let deposit = |evm: &mut Evm, min: U256| {
                    let mut w = amounts.clone();
                    w.push(min);
                    evm.call(TRADER, address, words(add_liquidity_selector(n), &w), value)
                };
                match quoted {
                    Ok(swap) => {
                        let lp_before = balance(&mut evm, lp, TRADER)?;
                        let outcome = deposit(&mut evm, swap.amount_out)?;
                        let minted = add_liquidityCall::abi_decode_returns(&outcome.output)
                            .map_err(EvmError::from)?;
                        prop_assert_eq!(minted, swap.amount_out);
                        prop_assert_eq!(balance(&mut evm, lp, TRADER)? - lp_before, minted);
                        prop_assert_eq!(&kernel(&mut evm)?.state, &swap.next);
                        stats.hit_if(
                            &stats.all_in,
                            amounts.iter().filter(|a| !a.is_zero()).count() > 1,
                        );
                    }
                    Err(e) => {
                        deposit_refused(e, &deposit(&mut evm, U256::ZERO))?;
                        stats.hit_if(&stats.refused, true);
                    }
                }
            }
            LiquidityOp::WithdrawAll(frac) => {
                let mine = balance(&mut evm, lp, TRADER)?;
                let amount = f64_to_u256(u256_to_f64(mine) * frac.exp2()).min(mine);
                let quoted = kp.curve_remove_liquidity(&kp.state, amount);
                let mut w = vec![amount];
                w.extend(std::iter::repeat_n(U256::ZERO, n));
                let call = words(selector(&format!("remove_liquidity(uint256,uint256[{n}])")), &w);
                match quoted {
                    Ok((paid, next)) => {
                        let mut had = Vec::new();
                        for k in 0..n {
                            had.push(held(&mut evm, k)?);
                        }
                        let outcome = evm.call(TRADER, address, call, U256::ZERO)?;
                        let mut returned = Vec::new();
                        for k in 0..n {
                            prop_assert_eq!(held(&mut evm, k)? - had[k], paid[k], "coin {}", k);
                            returned
                                .push(U256::from_be_slice(&outcome.output[32 * k..32 * (k + 1)]));
                        }
                        prop_assert_eq!(&returned, &paid);
                        prop_assert_eq!(mine - balance(&mut evm, lp, TRADER)?, amount);
                        prop_assert_eq!(&kernel(&mut evm)?.state, &next);
                        stats.hit_if(&stats.all_out, true);
                    }
                    Err(e) => {
                        let onchain = evm.call(TRADER, address, call, U256::ZERO);
                        prop_assert!(is_revert(&onchain), "kernel {e} but the pool {onchain:?}");
                        stats.hit_if(&stats.refused, true);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Where the kernel refuses a deposit, the pool reverts, or (for a mint that
/// rounds to nothing) mints 0.
fn deposit_refused(
    e: AmmError,
    onchain: &Result<switchyard_exec::evm::CallOutcome, EvmError>,
) -> CaseResult {
    let minted_zero = onchain
        .as_ref()
        .is_ok_and(|o| add_liquidityCall::abi_decode_returns(&o.output).is_ok_and(|m| m.is_zero()));
    prop_assert!(
        is_revert(onchain) || (e == AmmError::InsufficientLiquidity && minted_zero),
        "kernel {e} but the pool {onchain:?}"
    );
    Ok(())
}

impl LiquidityStats {
    fn hit_if(&self, counter: &Cell<u32>, yes: bool) {
        if yes {
            counter.set(counter.get() + 1);
        }
    }
}

/// One-coin deposits (`add_liquidity`) and withdrawals
/// (`remove_liquidity_one_coin`) of random tokenized pools, through the
/// kernel's LP directions and the reference pool: the same LP tokens
/// minted, the same coin paid, the same balances and supply after, to the
/// wei; a minimum one above the kernel's reverts; where the kernel refuses,
/// the pool reverts or pays nothing.
#[test]
fn stableswap_liquidity_exactly_as_the_kernel() {
    let stats = LiquidityStats::default();
    check(160, liquidity_case(), |c| liquidity_differential(c, &stats));
    eprintln!(
        "liquidity: minted {}, withdrawn {}, every coin in {}, every coin out {}, refused {}, \
         native {}, admin part {}",
        stats.minted.get(),
        stats.withdrawn.get(),
        stats.all_in.get(),
        stats.all_out.get(),
        stats.refused.get(),
        stats.native.get(),
        stats.admin_part.get()
    );
    expect_at_least(&stats.minted, 40, "deposits minted");
    expect_at_least(&stats.withdrawn, 40, "withdrawals paid");
    expect_at_least(&stats.all_in, 20, "deposits of several coins");
    expect_at_least(&stats.all_out, 15, "proportional withdrawals");
    expect_at_least(&stats.refused, 5, "refusals");
    expect_at_least(&stats.native, 5, "native-coin deposits or withdrawals");
    expect_at_least(&stats.admin_part, 10, "withdrawals leaving an admin part");
}

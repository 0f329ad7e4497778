//! Aave V3 on its published bytecode (`@aave/core-v3@1.19.3`), placed as
//! the world places it (`switchyard_exec::evm::aave`), against the kernel's
//! lending math and the bundle actions' expectations. No tolerance: outputs
//! and next states equal the pool's to the wei.
//!
//! - Supply and withdraw, differential (fixed index of 1 to 8 ray): a
//!   supply the kernel fills credits a fresh holder exactly the kernel's
//!   output (`rayMul(rayDiv(x, i), i)`) and `rayDiv(x, i)` scaled units and
//!   leaves the state (index, the aToken's cash) the kernel says; to a
//!   holder with a balance, the output ±1 wei. A withdrawal the kernel fills
//!   pays exactly its output, `withdraw(max)` included. A kernel refusal is
//!   the pool's: no scaled unit minted (`24`) or burned (`25`), beyond the
//!   cash (the underlying's transfer fails), past the ray math's 256 bits
//!   (an empty revert) or past a holder's 128-bit scaled balance
//!   (`SafeCast`); a supply whose receipt is past 128 bits is minted but
//!   could never be transferred (the aToken casts amounts), and the kernel
//!   refuses it too. A whole-balance aToken transfer moves every scaled
//!   unit.
//! - Borrowing (two reserves priced by the oracle's feeds): the limit is
//!   the loan to value of the collateral's USD value, one wei past it is
//!   `36`; repay part, more than owed (pays the debt) and all, with Aave's
//!   refusals (`39`, `40`); the debt token does not move (`80`).
//! - The world's fixtures: a debt written into storage is one the pool
//!   counts and takes back on `repay`.

mod common;

use alloy_primitives::{Address, U256, address, uint};
use alloy_sol_types::sol;
use common::{
    CaseResult, DEPLOYER, Stats, approve, balance, bits, burn, deploy_token, fresh, mint, part,
    reverted_empty, reverted_with_code, reverted_with_reason,
};
use proptest::prelude::*;
use switchyard_catalog::market::LendingModel;
use switchyard_exec::evm::{
    Evm, EvmError, NpmArtifacts,
    aave::{self, AaveMarket, AaveReserve, RAY},
    abi::AavePool,
};
use switchyard_kernel::{LendingState, Pool, PoolState, amm::AmmError};

const SEED: u64 = 0x5eed_000a;
const TRADER: Address = Address::repeat_byte(0x7a);
const RECIPIENT: Address = Address::repeat_byte(0x5e);
const ALICE: Address = Address::repeat_byte(0xa1);
const BOB: Address = Address::repeat_byte(0xb0);

/// Mainnet's Aave V3 pool address; the world places the pool at its own.
const POOL: Address = address!("87870bca3f3fd6335c3f4ce8392d69350b4fa4e2");

sol! {
    #[sol(all_derives)]
    contract AToken {
        function balanceOf(address user) external view returns (uint256);
        function scaledBalanceOf(address user) external view returns (uint256);
        function transfer(address to, uint256 amount) external returns (bool);
        function POOL() external view returns (address);
        function UNDERLYING_ASSET_ADDRESS() external view returns (address);
    }

    #[sol(all_derives)]
    contract LegacyDeposit {
        function deposit(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external;
    }
}

fn check<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> CaseResult)
where
    S::Value: std::fmt::Debug,
{
    common::check(SEED, cases, strategy, test);
}

fn npm() -> &'static NpmArtifacts {
    NpmArtifacts::shared().expect("scripts/setup.sh installs the npm bytecode")
}

/// Token addresses of the `k`-th reserve: aToken, variable debt, stable debt.
fn token_addresses(k: u8) -> (Address, Address, Address) {
    let at = |what: u8| {
        let mut a = [0u8; 20];
        a[0] = 0xaa;
        a[18] = what;
        a[19] = k;
        Address::from(a)
    };
    (at(1), at(2), at(3))
}

fn reserve(k: u8, asset: Address, decimals: u8, index: U256) -> AaveReserve {
    let (a_token, variable_debt, stable_debt) = token_addresses(k);
    AaveReserve {
        asset,
        decimals,
        a_token,
        variable_debt,
        stable_debt,
        index,
        ltv_bps: 0,
        price_usd_1e8: None,
        borrowable: false,
        a_token_meta: ("Aave Token".into(), "aTKN".into()),
        debt_meta: ("Variable Debt Token".into(), "variableDebtTKN".into()),
    }
}

// ------------------------------------------------------- supply, withdraw

#[derive(Debug, Clone)]
enum Op {
    /// Supply this much, to a fresh holder (true) or to the trader.
    Supply(U256, bool),
    /// Supply so much that `amount * RAY` overflows 256 bits.
    SupplyHuge(U256),
    /// Withdraw this share (of 2^32) of the trader's balance, at least 1 wei.
    Withdraw(u32),
    /// Withdraw this many wei (at most the trader's balance).
    WithdrawWei(u8),
    /// `withdraw(type(uint256).max)`.
    WithdrawAll,
    /// Other suppliers bring this much cash.
    Cash(U256),
    /// Borrowers take this share (of 2^32, at least half) of the cash.
    Borrow(u32),
    /// The trader sends its whole balance to a fresh address, which sends
    /// it all back.
    TransferAll,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => bits(1, 160).prop_map(|x| Op::Supply(x, true)),
        1 => (1u8..=3).prop_map(|n| Op::Supply(U256::from(n), true)),
        3 => bits(1, 120).prop_map(|x| Op::Supply(x, false)),
        1 => bits(168, 200).prop_map(Op::SupplyHuge),
        4 => any::<u32>().prop_map(Op::Withdraw),
        2 => (1u8..=3).prop_map(Op::WithdrawWei),
        1 => Just(Op::WithdrawAll),
        1 => bits(1, 160).prop_map(Op::Cash),
        2 => (1u32 << 31..=u32::MAX).prop_map(Op::Borrow),
        1 => Just(Op::TransferAll),
    ]
}

/// A liquidity index: exactly one ray, just above, up to 2 ray, or up to 8.
fn index() -> impl Strategy<Value = U256> {
    prop_oneof![
        1 => Just(RAY),
        2 => bits(1, 60).prop_map(|x| RAY + x),
        3 => bits(60, 90).prop_map(|x| RAY + x % RAY),
        2 => (1u8..8, bits(1, 90)).prop_map(|(k, x)| RAY * U256::from(k) + x % RAY),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    index: U256,
    cash: U256,
    ops: Vec<Op>,
}

fn case() -> impl Strategy<Value = Case> {
    (index(), prop_oneof![Just(U256::ZERO), bits(1, 160)], prop::collection::vec(op(), 1..=10))
        .prop_map(|(index, cash, ops)| Case { index, cash, ops })
}

/// One reserve on the published pool.
struct Market {
    evm: Evm,
    asset: Address,
    a_token: Address,
}

/// The pool with one 18-decimal reserve at `index`; the trader approves
/// the pool for the asset.
fn market(index: U256) -> Result<Market, EvmError> {
    let mut evm = Evm::new();
    let asset = deploy_token(&mut evm, 18)?;
    let m = AaveMarket::deploy(&mut evm, npm(), DEPLOYER, POOL)?;
    let r = reserve(0, asset, 18, index);
    m.list(&mut evm, npm(), DEPLOYER, &r)?;
    approve(&mut evm, asset, TRADER, POOL)?;
    Ok(Market { evm, asset, a_token: r.a_token })
}

impl Market {
    /// The state a feed reads: the index and the aToken's cash.
    fn state(&mut self) -> Result<PoolState, EvmError> {
        let asset = self.asset;
        Ok(PoolState::Lending(Box::new(LendingState {
            model: LendingModel::Aave,
            exchange_rate: self
                .evm
                .view(POOL, &AavePool::getReserveNormalizedIncomeCall { asset })?,
            available_liquidity: balance(&mut self.evm, asset, self.a_token)?,
        })))
    }

    fn kernel(&mut self) -> Result<Pool, EvmError> {
        Ok(common::pool(POOL, vec![self.asset, self.a_token], vec![18, 18], self.state()?))
    }

    fn a_balance(&mut self, who: Address) -> Result<U256, EvmError> {
        self.evm.view(self.a_token, &AToken::balanceOfCall { user: who })
    }

    fn scaled(&mut self, who: Address) -> Result<U256, EvmError> {
        self.evm.view(self.a_token, &AToken::scaledBalanceOfCall { user: who })
    }

    fn supply(&mut self, amount: U256, on_behalf_of: Address) -> Result<(), EvmError> {
        let call = AavePool::supplyCall {
            asset: self.asset,
            amount,
            onBehalfOf: on_behalf_of,
            referralCode: 0,
        };
        self.evm.call_sol(TRADER, POOL, &call).map(drop)
    }

    fn withdraw(&mut self, amount: U256) -> Result<U256, EvmError> {
        let call = AavePool::withdrawCall { asset: self.asset, amount, to: RECIPIENT };
        self.evm.call_sol(TRADER, POOL, &call)
    }
}

fn ray_div(a: U256, b: U256) -> U256 {
    (a * RAY + b / U256::from(2u8)) / b
}

fn supply(w: &mut Market, x: U256, to: Address, stats: &Stats) -> CaseResult {
    let kernel = w.kernel()?.swap_exact_in(0, 1, x);
    let (before, scaled_before) = (w.a_balance(to)?, w.scaled(to)?);
    mint(&mut w.evm, w.asset, TRADER, x)?;
    let onchain = w.supply(x, to);
    match kernel {
        Ok(swap) => {
            prop_assert!(onchain.is_ok(), "kernel {swap:?} but pool {onchain:?}");
            let index = match &swap.next {
                PoolState::Lending(l) => l.exchange_rate,
                _ => U256::ZERO,
            };
            prop_assert_eq!(w.scaled(to)? - scaled_before, ray_div(x, index));
            let got = w.a_balance(to)? - before;
            if before.is_zero() {
                // A fresh holder reads back exactly the kernel's output.
                prop_assert_eq!(got, swap.amount_out);
                stats.hit("supply, fresh holder");
                if got != x {
                    stats.hit("supply reading back other than the amount");
                }
            } else {
                // A balance rounds once over the whole scaled balance.
                prop_assert!(
                    got.abs_diff(swap.amount_out) <= U256::ONE,
                    "{got} against {}",
                    swap.amount_out
                );
                stats.hit("supply, holder with a balance");
            }
            prop_assert_eq!(w.state()?, swap.next);
        }
        Err(e) => {
            match e {
                AmmError::InsufficientLiquidity => {
                    prop_assert!(
                        reverted_with_code(&onchain, "24"),
                        "kernel {e}, pool {onchain:?}"
                    );
                    stats.hit("supply minting nothing");
                }
                AmmError::InvalidState if reverted_empty(&onchain) => {
                    stats.hit("supply past 256 bits");
                }
                AmmError::InvalidState if onchain.is_ok() => {
                    // Minted, but past what the aToken transfers (it casts
                    // every amount to 128 bits): it could never leave.
                    let held = w.a_balance(to)? - before;
                    prop_assert!(held > U256::from(u128::MAX), "kernel {e} but {held} minted");
                    let moved = w.evm.call_sol(
                        to,
                        w.a_token,
                        &AToken::transferCall { to: RECIPIENT, amount: held },
                    );
                    prop_assert!(reverted_with_reason(&moved, "SafeCast"), "{moved:?}");
                    stats.hit("supply of more than a transfer can move");
                    return Ok(());
                }
                AmmError::InvalidState => {
                    prop_assert!(
                        reverted_with_reason(&onchain, "SafeCast"),
                        "kernel {e} but pool {onchain:?}"
                    );
                    stats.hit("supply past 128-bit balances");
                }
                other => prop_assert!(false, "kernel: {other}"),
            }
            burn(&mut w.evm, w.asset, TRADER, x)?;
        }
    }
    Ok(())
}

fn withdraw(w: &mut Market, amount: U256, all: bool, stats: &Stats) -> CaseResult {
    let receipt = if all { w.a_balance(TRADER)? } else { amount };
    let kernel = w.kernel()?.swap_exact_in(1, 0, receipt);
    let before = balance(&mut w.evm, w.asset, RECIPIENT)?;
    let onchain = w.withdraw(if all { U256::MAX } else { amount });
    match kernel {
        Ok(swap) => {
            prop_assert_eq!(onchain?, swap.amount_out);
            prop_assert_eq!(balance(&mut w.evm, w.asset, RECIPIENT)? - before, swap.amount_out);
            prop_assert_eq!(w.state()?, swap.next);
            stats.hit(if all { "withdraw(max)" } else { "withdrawals" });
        }
        Err(AmmError::InsufficientLiquidity) => {
            if reverted_with_code(&onchain, "25") {
                stats.hit("withdrawals burning nothing");
            } else if receipt.is_zero() {
                prop_assert!(reverted_with_code(&onchain, "26"), "{onchain:?}");
            } else {
                // The aToken's transfer of the underlying fails.
                prop_assert!(onchain.is_err(), "kernel refused {receipt} but pool paid");
                stats.hit("withdrawals beyond the cash");
            }
        }
        Err(e) => prop_assert!(false, "kernel: {e}"),
    }
    Ok(())
}

fn transfer_all(w: &mut Market, k: u32, stats: &Stats) -> CaseResult {
    let (held, scaled) = (w.a_balance(TRADER)?, w.scaled(TRADER)?);
    if held.is_zero() {
        return Ok(());
    }
    let other = fresh(k);
    w.evm.call_sol(TRADER, w.a_token, &AToken::transferCall { to: other, amount: held })?;
    // rayDiv(rayMul(s, i), i) == s for i >= 1 ray: every unit moves.
    prop_assert_eq!(w.scaled(other)?, scaled);
    prop_assert_eq!(w.scaled(TRADER)?, U256::ZERO);
    prop_assert_eq!(w.a_balance(other)?, held);
    w.evm.call_sol(other, w.a_token, &AToken::transferCall { to: TRADER, amount: held })?;
    prop_assert_eq!(w.scaled(TRADER)?, scaled);
    stats.hit("whole-balance transfers");
    Ok(())
}

fn differential(c: Case, stats: &Stats) -> CaseResult {
    let mut w = market(c.index)?;
    let a_token = w.a_token;
    mint(&mut w.evm, w.asset, a_token, c.cash)?;
    for (k, op) in c.ops.into_iter().enumerate() {
        let k = k as u32;
        match op {
            Op::Supply(x, true) | Op::SupplyHuge(x) => supply(&mut w, x, fresh(k), stats)?,
            Op::Supply(x, false) => supply(&mut w, x, TRADER, stats)?,
            Op::Withdraw(share) => {
                let held = w.a_balance(TRADER)?;
                if !held.is_zero() {
                    withdraw(&mut w, part(held, share), false, stats)?;
                }
            }
            Op::WithdrawWei(n) => {
                let held = w.a_balance(TRADER)?;
                if !held.is_zero() {
                    withdraw(&mut w, U256::from(n).min(held), false, stats)?;
                }
            }
            Op::WithdrawAll => withdraw(&mut w, U256::ZERO, true, stats)?,
            Op::Cash(x) => mint(&mut w.evm, w.asset, a_token, x)?,
            Op::Borrow(share) => {
                let cash = balance(&mut w.evm, w.asset, a_token)?;
                if !cash.is_zero() {
                    burn(&mut w.evm, w.asset, a_token, part(cash, share))?;
                }
            }
            Op::TransferAll => transfer_all(&mut w, 1000 + k, stats)?,
        }
    }
    Ok(())
}

#[test]
fn published_pool_supplies_and_withdraws_exactly_as_the_kernel() {
    let stats = Stats::default();
    check(96, case(), |c| differential(c, &stats));
    stats.report("aave v3 (published)");
    // About half the lowest count of a few runs.
    for (what, n) in [
        ("supply, fresh holder", 60),
        ("supply, holder with a balance", 15),
        ("supply reading back other than the amount", 8),
        ("supply minting nothing", 1),
        ("supply past 256 bits", 8),
        ("supply past 128-bit balances", 4),
        ("withdrawals", 30),
        ("withdraw(max)", 2),
        ("withdrawals beyond the cash", 2),
        ("whole-balance transfers", 4),
    ] {
        stats.expect_at_least(what, n);
    }
}

/// At an index above 2 ray, withdrawing 1 wei burns no scaled unit: the
/// aToken refuses, and so does the kernel.
#[test]
fn dust_withdrawal_above_two_ray_is_refused() -> CaseResult {
    let mut w = market(RAY * U256::from(3u8))?;
    let a_token = w.a_token;
    mint(&mut w.evm, w.asset, a_token, U256::from(1_000u32))?;
    mint(&mut w.evm, w.asset, TRADER, U256::from(100u32))?;
    w.supply(U256::from(100u32), TRADER)?;
    let kernel = w.kernel()?.swap_exact_in(1, 0, U256::ONE);
    prop_assert_eq!(kernel.map(|s| s.amount_out), Err(AmmError::InsufficientLiquidity));
    let onchain = w.withdraw(U256::ONE);
    prop_assert!(reverted_with_code(&onchain, "25"), "{onchain:?}");
    // 2 wei burns one scaled unit: (2e27 + 1.5e27) / 3e27 = 1.
    prop_assert_eq!(w.withdraw(U256::from(2u8))?, U256::from(2u8));
    Ok(())
}

/// At an index of 2 ray, a supply of 2^128 + 5 mints half that in scaled
/// units (which fit 128 bits) and a balance past 128 bits, which the
/// aToken can never transfer (it casts amounts to 128 bits): the kernel
/// refuses the supply, and a withdrawal of more than 128 bits.
#[test]
fn a_receipt_past_128_bits_is_refused() -> CaseResult {
    let mut w = market(RAY * U256::from(2u8))?;
    let x = (U256::ONE << 128) + U256::from(5u8);
    let kernel = w.kernel()?.swap_exact_in(0, 1, x);
    prop_assert_eq!(kernel.map(|s| s.amount_out), Err(AmmError::InvalidState));
    mint(&mut w.evm, w.asset, TRADER, x)?;
    w.supply(x, TRADER)?;
    let held = w.a_balance(TRADER)?;
    prop_assert!(held > U256::from(u128::MAX), "{held}");
    let moved =
        w.evm.call_sol(TRADER, w.a_token, &AToken::transferCall { to: RECIPIENT, amount: held });
    prop_assert!(reverted_with_reason(&moved, "SafeCast"), "{moved:?}");
    let out = w.kernel()?.swap_exact_in(1, 0, held);
    prop_assert_eq!(out.map(|s| s.amount_out), Err(AmmError::InvalidState));
    Ok(())
}

/// `deposit` is `supply`; only the configurator lists a reserve, once; an
/// unlisted asset reverts; the tokens know their pool and asset.
#[test]
fn deposit_alias_and_listing_guards() -> CaseResult {
    let index = RAY + RAY / U256::from(10u8);
    let mut w = market(index)?;
    let x = U256::from(1_000_000u32);
    mint(&mut w.evm, w.asset, TRADER, x)?;
    let call = LegacyDeposit::depositCall {
        asset: w.asset,
        amount: x,
        onBehalfOf: RECIPIENT,
        referralCode: 7,
    };
    w.evm.call_sol(TRADER, POOL, &call)?;
    // 1_000_000 / 1.1 = 909090.9 → 909091 scaled → 1_000_000.1 → 1_000_000.
    prop_assert_eq!(w.scaled(RECIPIENT)?, U256::from(909_091u32));
    prop_assert_eq!(w.a_balance(RECIPIENT)?, x);
    prop_assert_eq!(w.evm.view(w.a_token, &AToken::POOLCall {})?, POOL);
    prop_assert_eq!(w.evm.view(w.a_token, &AToken::UNDERLYING_ASSET_ADDRESSCall {})?, w.asset);
    let (a_token, variable, stable) = token_addresses(0);
    let again = AavePool::initReserveCall {
        asset: w.asset,
        aTokenAddress: a_token,
        stableDebtAddress: stable,
        variableDebtAddress: variable,
        interestRateStrategyAddress: Address::repeat_byte(1),
    };
    prop_assert!(reverted_with_code(&w.evm.call_sol(DEPLOYER, POOL, &again), "61"));
    prop_assert!(reverted_with_code(&w.evm.call_sol(TRADER, POOL, &again), "10"));
    let other = deploy_token(&mut w.evm, 18)?;
    let unlisted =
        AavePool::supplyCall { asset: other, amount: x, onBehalfOf: TRADER, referralCode: 0 };
    // An unlisted reserve has no debt tokens: reading their supplies (the
    // pool's reserve cache) reverts before any validation.
    let r = w.evm.call_sol(TRADER, POOL, &unlisted).map(drop);
    prop_assert!(reverted_empty(&r), "{r:?}");
    // The listing refuses an index below one ray.
    let mut evm = Evm::new();
    let asset = deploy_token(&mut evm, 18)?;
    let m = AaveMarket::deploy(&mut evm, npm(), DEPLOYER, POOL)?;
    let low = m.list(&mut evm, npm(), DEPLOYER, &reserve(0, asset, 18, RAY - U256::ONE));
    prop_assert!(matches!(low, Err(EvmError::Parameter(_))), "{low:?}");
    Ok(())
}

// ---------------------------------------------------------------- borrowing

const WETH_PRICE: U256 = uint!(200000000000_U256); // $2,000, 8 decimals
const USDC_PRICE: U256 = uint!(100000000_U256); // $1

struct Lending {
    evm: Evm,
    weth: Address,
    usdc: Address,
    usdc_debt: Address,
}

/// WETH (collateral at 80%) and USDC (borrowable, 6 decimals) at one ray;
/// 1M USDC of cash; Alice supplies `collateral` WETH.
fn lending(collateral: U256) -> Result<Lending, EvmError> {
    let mut evm = Evm::new();
    let weth = deploy_token(&mut evm, 18)?;
    let usdc = deploy_token(&mut evm, 6)?;
    let m = AaveMarket::deploy(&mut evm, npm(), DEPLOYER, POOL)?;
    let w =
        AaveReserve { ltv_bps: 8000, price_usd_1e8: Some(WETH_PRICE), ..reserve(0, weth, 18, RAY) };
    m.list(&mut evm, npm(), DEPLOYER, &w)?;
    let u = AaveReserve {
        price_usd_1e8: Some(USDC_PRICE),
        borrowable: true,
        ..reserve(1, usdc, 6, RAY)
    };
    m.list(&mut evm, npm(), DEPLOYER, &u)?;
    mint(&mut evm, usdc, u.a_token, U256::from(1_000_000_000_000u64))?;
    for who in [ALICE, BOB] {
        approve(&mut evm, weth, who, POOL)?;
        approve(&mut evm, usdc, who, POOL)?;
    }
    mint(&mut evm, weth, ALICE, collateral)?;
    evm.call_sol(
        ALICE,
        POOL,
        &AavePool::supplyCall {
            asset: weth,
            amount: collateral,
            onBehalfOf: ALICE,
            referralCode: 0,
        },
    )?;
    Ok(Lending { evm, weth, usdc, usdc_debt: u.variable_debt })
}

impl Lending {
    fn borrow(&mut self, who: Address, amount: U256) -> Result<(), EvmError> {
        let call = AavePool::borrowCall {
            asset: self.usdc,
            amount,
            interestRateMode: U256::from(2u8),
            referralCode: 0,
            onBehalfOf: who,
        };
        self.evm.call_sol(who, POOL, &call).map(drop)
    }

    fn repay(
        &mut self,
        who: Address,
        amount: U256,
        on_behalf_of: Address,
    ) -> Result<U256, EvmError> {
        let call = AavePool::repayCall {
            asset: self.usdc,
            amount,
            interestRateMode: U256::from(2u8),
            onBehalfOf: on_behalf_of,
        };
        self.evm.call_sol(who, POOL, &call)
    }

    fn debt(&mut self, who: Address) -> Result<U256, EvmError> {
        balance(&mut self.evm, self.usdc_debt, who)
    }
}

/// 1 WETH at $2,000 and 80% borrows 1,600 USDC and not one wei more.
#[test]
fn borrows_up_to_the_loan_to_value_and_not_one_wei_past() -> Result<(), EvmError> {
    let one = U256::from(10u64).pow(U256::from(18u8));
    let limit = U256::from(1_600_000_000u64);
    let mut l = lending(one)?;
    let account = l.evm.view(POOL, &AavePool::getUserAccountDataCall { user: ALICE })?;
    assert_eq!(account.totalCollateralBase, WETH_PRICE);
    assert_eq!(account.availableBorrowsBase, U256::from(1_600u64) * USDC_PRICE);
    assert_eq!(account.ltv, U256::from(8000u16));
    let past = l.borrow(ALICE, limit + U256::ONE);
    assert!(reverted_with_code(&past, "36"), "{past:?}");
    l.borrow(ALICE, limit)?;
    assert_eq!(balance(&mut l.evm, l.usdc, ALICE)?, limit);
    assert_eq!(l.debt(ALICE)?, limit);
    // With no collateral, Bob cannot borrow at all (`34`).
    let bob = l.borrow(BOB, U256::ONE);
    assert!(reverted_with_code(&bob, "34"), "{bob:?}");
    // Collateral backing a debt cannot leave: withdrawing it all fails the
    // health check (`35`).
    let out = l.evm.call_sol(
        ALICE,
        POOL,
        &AavePool::withdrawCall { asset: l.weth, amount: U256::MAX, to: ALICE },
    );
    assert!(reverted_with_code(&out, "35"), "{out:?}");
    Ok(())
}

/// Repay part, more than owed (the debt is what is taken), then nothing
/// is owed; `max` only for oneself.
#[test]
fn repays_part_more_than_owed_and_all() -> Result<(), EvmError> {
    let mut l = lending(U256::from(10u64).pow(U256::from(18u8)))?;
    let borrowed = U256::from(1_000_000_000u64);
    l.borrow(ALICE, borrowed)?;
    let part = U256::from(400_000_000u64);
    assert_eq!(l.repay(ALICE, part, ALICE)?, part);
    assert_eq!(l.debt(ALICE)?, borrowed - part);
    // Bob repays for Alice: an explicit amount only (`40` for max).
    mint(&mut l.evm, l.usdc, BOB, borrowed)?;
    let max = l.repay(BOB, U256::MAX, ALICE);
    assert!(reverted_with_code(&max, "40"), "{max:?}");
    let owed = borrowed - part;
    assert_eq!(l.repay(BOB, borrowed, ALICE)?, owed);
    assert_eq!(l.debt(ALICE)?, U256::ZERO);
    assert_eq!(balance(&mut l.evm, l.usdc, BOB)?, borrowed - owed);
    // Nothing owed: nothing to repay (`39`).
    let none = l.repay(ALICE, U256::ONE, ALICE);
    assert!(reverted_with_code(&none, "39"), "{none:?}");
    // `max` for oneself repays the whole debt.
    l.borrow(ALICE, part)?;
    assert_eq!(l.repay(ALICE, U256::MAX, ALICE)?, part);
    assert_eq!(l.debt(ALICE)?, U256::ZERO);
    Ok(())
}

/// The debt token does not move (`80`).
#[test]
fn the_debt_token_does_not_move() -> Result<(), EvmError> {
    let mut l = lending(U256::from(10u64).pow(U256::from(18u8)))?;
    l.borrow(ALICE, U256::from(1_000u64))?;
    let moved =
        l.evm.call_sol(ALICE, l.usdc_debt, &AToken::transferCall { to: BOB, amount: U256::ONE });
    assert!(reverted_with_code(&moved, "80"), "{moved:?}");
    Ok(())
}

/// A debt the world writes into storage (the position a non-tokenized
/// repay starts from) is one the pool counts and takes back.
#[test]
fn a_written_debt_is_the_pools_to_take_back() -> Result<(), EvmError> {
    let mut l = lending(U256::from(10u64).pow(U256::from(18u8)))?;
    let owed = U256::from(250_000_000u64);
    aave::add_variable_debt(&mut l.evm, POOL, l.usdc_debt, ALICE, owed)?;
    assert_eq!(l.debt(ALICE)?, owed);
    let account = l.evm.view(POOL, &AavePool::getUserAccountDataCall { user: ALICE })?;
    assert_eq!(account.totalDebtBase, U256::from(250u64) * USDC_PRICE);
    mint(&mut l.evm, l.usdc, ALICE, owed)?;
    assert_eq!(l.repay(ALICE, U256::MAX, ALICE)?, owed);
    assert_eq!(l.debt(ALICE)?, U256::ZERO);
    // A funded aToken balance withdraws like a supplied one.
    let a_usdc = token_addresses(1).0;
    aave::fund_a_token(&mut l.evm, a_usdc, BOB, owed, RAY)?;
    let out = l.evm.call_sol(
        BOB,
        POOL,
        &AavePool::withdrawCall { asset: l.usdc, amount: owed, to: BOB },
    )?;
    assert_eq!(out, owed);
    Ok(())
}

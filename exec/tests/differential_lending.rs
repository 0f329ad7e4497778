//! Differential tests of the kernel's Compound, liquid-staking and
//! configurable-fee constant-product math (`Pool::swap_exact_in` over
//! `PoolState::{Lending, LiquidStaking, UniswapV2}`) against the reference
//! contracts of `contracts/src`, run in the engine's EVM. No tolerance:
//! outputs and next states must equal the chain's to the wei.
//!
//! What each property checks, per operation:
//!
//! - Compound V2 (`ReferenceCToken`, fixed rate): a mint or redeem the kernel
//!   fills moves exactly its output and leaves its state (rate, cash). A
//!   kernel error is either a zero output the cToken accepts (a mint of less
//!   than one cToken keeps the underlying and mints nothing; a redeem worth
//!   less than one unit pays nothing) or a revert (above the cash:
//!   `RedeemTransferOutNotPossible`; past 256 bits: `DivisionOverflow`).
//! - Lido stETH (`ReferenceStETH`, totals written into storage): a submit mints the
//!   kernel's shares, a fresh depositor reads back exactly the kernel's
//!   output, and the totals move as its next state; where the kernel refuses,
//!   the depositor reads zero. A `transfer` of `a` (a whole balance or part)
//!   to a fresh address delivers `getPooledEthByShares(getSharesByPooledEth(a))`,
//!   at most `ceil(P / S)` wei less than `a`.
//! - Lido wstETH (`ReferenceWstETH`): `wrap` mints the kernel's non-rebasing
//!   `stake`, `unwrap` returns the kernel's `unstake_wrapped` and a fresh
//!   unwrapper reads exactly that; neither moves the totals, as the kernel's
//!   next state says. A kernel error is a zero output the contract accepts.
//!   ETH sent to wstETH mints the shares `submit` gives, and moves the
//!   totals as a stETH deposit does.
//! - Constant product with a fee in bps (`ReferenceV2Pair`, 25, 30 and
//!   random fees): the kernel's output passes the pair's K check, one wei
//!   more fails it, the recipient gets exactly the output and the reserves
//!   end at the kernel's next state; where the kernel says the input buys
//!   nothing, one wei out fails the K check.
//!
//! Amounts run from 1 wei to 2^160 (to 2^252 where a case aims past the 256-bit
//! products); Lido totals reach 2^100 at share prices from far below 1 to far
//! above 2; reserves and cash are drained to make withdrawals fail.
//!
//! Counters at the end of each property fail it if its random cases stopped
//! reaching the paths that matter; `cargo test -- --nocapture` prints them.
//! `PROPTEST_CASES` runs a longer soak.

mod common;

use alloy_primitives::{Address, Bytes, U256, aliases::U112, uint};
use alloy_sol_types::{SolCall, SolConstructor, SolError, SolEvent, sol};
use common::{
    CaseResult, DEPLOYER, Stats, balance, bits, burn, deploy_token, fresh, mint, part, v2_state,
};
use proptest::prelude::*;
use switchyard_catalog::market::LendingModel;
use switchyard_exec::evm::{Evm, EvmError, abi::TestERC20};
use switchyard_kernel::{
    LendingState, Pool, PoolState, StakingState,
    amm::{AmmError, full_math::mul_div, vault},
};

const TRADER: Address = Address::repeat_byte(0x7a);
const RECIPIENT: Address = Address::repeat_byte(0x5e);
const HOLDER: Address = Address::repeat_byte(0x40);
const NATIVE: Address = Address::repeat_byte(0xee);

const WAD: U256 = uint!(1000000000000000000_U256);

sol! {
    #[sol(all_derives)]
    contract ReferenceCToken {
        error DivisionOverflow();
        error ZeroExchangeRate();
        error RedeemTransferOutNotPossible();
        error RedeemTokensZero();
        error TransferNotAllowed();
        error TransferFailed();

        event Mint(address minter, uint256 mintAmount, uint256 mintTokens);
        event Redeem(address redeemer, uint256 redeemAmount, uint256 redeemTokens);

        constructor(address underlying, uint256 exchangeRate, string name, string symbol, uint8 decimals);

        function underlying() external view returns (address);
        function exchangeRateStored() external view returns (uint256);
        function exchangeRateCurrent() external view returns (uint256);
        function getCash() external view returns (uint256);
        function balanceOf(address owner) external view returns (uint256);
        function totalSupply() external view returns (uint256);
        function mint(uint256 mintAmount) external returns (uint256);
        function redeem(uint256 redeemTokens) external returns (uint256);
        function redeemUnderlying(uint256 redeemAmount) external returns (uint256);
    }

    #[sol(all_derives)]
    contract ReferenceStETH {
        error DivisionOverflow();
        error ZeroDeposit();
        error BalanceExceeded(uint256 shares, uint256 held);
        error AllowanceExceeded(uint256 amount, uint256 allowed);
        error TransferToZeroAddress();
        error TransferToStETHContract();

        event Transfer(address indexed from, address indexed to, uint256 value);
        event TransferShares(address indexed from, address indexed to, uint256 sharesValue);
        event Submitted(address indexed sender, uint256 amount, address referral);

        function submit(address referral) external payable returns (uint256);
        function getTotalPooledEther() external view returns (uint256);
        function getTotalShares() external view returns (uint256);
        function totalSupply() external view returns (uint256);
        function sharesOf(address account) external view returns (uint256);
        function balanceOf(address account) external view returns (uint256);
        function getSharesByPooledEth(uint256 ethAmount) external view returns (uint256);
        function getPooledEthByShares(uint256 sharesAmount) external view returns (uint256);
        function approve(address spender, uint256 amount) external returns (bool);
        function transfer(address recipient, uint256 amount) external returns (bool);
        function transferFrom(address sender, address recipient, uint256 amount) external returns (bool);
        function transferShares(address recipient, uint256 sharesAmount) external returns (uint256);
        function transferSharesFrom(address sender, address recipient, uint256 sharesAmount)
            external returns (uint256);
    }

    #[sol(all_derives)]
    contract ReferenceWstETH {
        error ZeroWrap();
        error ZeroUnwrap();

        constructor(address stETH);

        function stETH() external view returns (address);
        function balanceOf(address who) external view returns (uint256);
        function totalSupply() external view returns (uint256);
        function transfer(address to, uint256 amount) external returns (bool);
        function wrap(uint256 stETHAmount) external returns (uint256);
        function unwrap(uint256 wstETHAmount) external returns (uint256);
        function getWstETHByStETH(uint256 stETHAmount) external view returns (uint256);
        function getStETHByWstETH(uint256 wstETHAmount) external view returns (uint256);
        function stEthPerToken() external view returns (uint256);
        function tokensPerStEth() external view returns (uint256);
    }

    #[sol(all_derives)]
    contract ReferenceV2Pair {
        error UnsortedTokens();
        error InvalidFee(uint16 feeBps);
        error InsufficientOutputAmount();
        error InsufficientLiquidity();
        error InvalidTo();
        error FlashSwapUnsupported();
        error InsufficientInputAmount();
        error K();
        error Overflow();

        event Swap(
            address indexed sender,
            uint256 amount0In,
            uint256 amount1In,
            uint256 amount0Out,
            uint256 amount1Out,
            address indexed to
        );
        event Sync(uint112 reserve0, uint112 reserve1);

        constructor(address token0, address token1, uint16 feeBps);

        function token0() external view returns (address);
        function token1() external view returns (address);
        function feeBps() external view returns (uint16);
        function getReserves() external view
            returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
        function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data) external;
        function sync() external;
        function skim(address to) external;
    }
}

// ---------------------------------------------------------------- helpers

fn check<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> CaseResult)
where
    S::Value: std::fmt::Debug,
{
    common::check(0x5eed_0005, cases, strategy, test);
}

fn pool(address: Address, tokens: [Address; 2], state: PoolState) -> Pool {
    common::pool(address, tokens.into(), vec![18, 18], state)
}

/// The initcode of a committed artifact: its `bytecode` field.
fn initcode(json: &str) -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_str(json).expect("artifact parses");
    let hex = v["bytecode"].as_str().expect("artifact has a bytecode");
    hex.parse::<Bytes>().expect("bytecode is hex").to_vec()
}

fn deploy(evm: &mut Evm, json: &str, args: &[u8]) -> Result<Address, EvmError> {
    let mut code = initcode(json);
    code.extend_from_slice(args);
    evm.deploy(DEPLOYER, code.into())
}

const CTOKEN: &str = include_str!("../../contracts/artifacts/ReferenceCToken.json");
const STETH: &str = include_str!("../../contracts/artifacts/ReferenceStETH.json");
const WSTETH: &str = include_str!("../../contracts/artifacts/ReferenceWstETH.json");
const V2_PAIR: &str = include_str!("../../contracts/artifacts/ReferenceV2Pair.json");

/// The call reverted with the custom error `E`.
fn reverted_with<E: SolError, T>(r: &Result<T, EvmError>) -> bool {
    matches!(r, Err(e) if e.revert_data().is_some_and(|d| d.starts_with(&E::SELECTOR)))
}

/// The call reverted with a Solidity panic (checked arithmetic, division by
/// zero).
fn panicked<T>(r: &Result<T, EvmError>) -> bool {
    const PANIC: [u8; 4] = [0x4e, 0x48, 0x7b, 0x71];
    matches!(r, Err(e) if e.revert_data().is_some_and(|d| d.starts_with(&PANIC)))
}

// ------------------------------------------------------------- Compound V2

#[derive(Debug, Clone)]
enum CompoundOp {
    Mint(U256),
    /// Mint so much that the cTokens may not fit 256 bits.
    MintHuge(U256),
    /// Redeem this share (of 2^32) of the trader's cTokens, at least 1.
    Redeem(u32),
    /// Redeem this many cTokens (at most the trader's).
    RedeemWei(u8),
    /// Redeem every cToken of the trader.
    RedeemAll,
    /// Suppliers bring this much cash.
    Supply(U256),
    /// Borrowers take this share (of 2^32, at least half) of the cash.
    Borrow(u32),
}

fn compound_op() -> impl Strategy<Value = CompoundOp> {
    prop_oneof![
        4 => bits(1, 200).prop_map(CompoundOp::Mint),
        1 => bits(245, 252).prop_map(CompoundOp::MintHuge),
        3 => any::<u32>().prop_map(CompoundOp::Redeem),
        1 => (1u8..=8).prop_map(CompoundOp::RedeemWei),
        1 => Just(CompoundOp::RedeemAll),
        1 => bits(1, 160).prop_map(CompoundOp::Supply),
        2 => (1u32 << 31..=u32::MAX).prop_map(CompoundOp::Borrow),
    ]
}

/// An exchange rate: cUSDC-like (about 2.3e14), cDAI-like (about 2.3e26),
/// or anything from 1 to 2^100.
fn compound_rate() -> impl Strategy<Value = U256> {
    prop_oneof![
        1 => (0u64..1_000_000_000_000).prop_map(|x| U256::from(230_000_000_000_000u64 + x)),
        1 => bits(1, 60).prop_map(|x| uint!(230000000000000000000000000_U256) + x),
        3 => bits(1, 100),
    ]
}

#[derive(Debug, Clone)]
struct CompoundCase {
    rate: U256,
    cash: U256,
    ops: Vec<CompoundOp>,
}

fn compound_case() -> impl Strategy<Value = CompoundCase> {
    (
        compound_rate(),
        prop_oneof![Just(U256::ZERO), bits(1, 160)],
        prop::collection::vec(compound_op(), 1..=10),
    )
        .prop_map(|(rate, cash, ops)| CompoundCase { rate, cash, ops })
}

struct Compound {
    evm: Evm,
    asset: Address,
    c_token: Address,
}

fn compound_world(rate: U256) -> Result<Compound, EvmError> {
    let mut evm = Evm::new();
    let asset = deploy_token(&mut evm, 18)?;
    let args = ReferenceCToken::constructorCall {
        underlying: asset,
        exchangeRate: rate,
        name: "Compound Token".into(),
        symbol: "cTKN".into(),
        decimals: 8,
    }
    .abi_encode();
    let c_token = deploy(&mut evm, CTOKEN, &args)?;
    evm.call_sol(TRADER, asset, &TestERC20::approveCall { spender: c_token, amount: U256::MAX })?;
    Ok(Compound { evm, asset, c_token })
}

impl Compound {
    /// The state a feed reads: `exchangeRateStored` and `getCash`.
    fn state(&mut self) -> Result<PoolState, EvmError> {
        Ok(PoolState::Lending(Box::new(LendingState {
            model: LendingModel::Compound,
            exchange_rate: self
                .evm
                .view(self.c_token, &ReferenceCToken::exchangeRateStoredCall {})?,
            available_liquidity: self.evm.view(self.c_token, &ReferenceCToken::getCashCall {})?,
        })))
    }

    fn kernel(&mut self) -> Result<Pool, EvmError> {
        Ok(pool(self.c_token, [self.asset, self.c_token], self.state()?))
    }

    fn tokens(&mut self, who: Address) -> Result<U256, EvmError> {
        self.evm.view(self.c_token, &ReferenceCToken::balanceOfCall { owner: who })
    }
}

fn compound_mint(w: &mut Compound, x: U256, rate: U256, stats: &Stats) -> CaseResult {
    // The kernel does not follow the cToken's total supply: keep it far from
    // 2^256 by never minting 2^250 or more at once.
    if mul_div(x, WAD, rate).is_some_and(|m| m >= U256::ONE << 250) {
        return Ok(());
    }
    if x.checked_mul(WAD).is_none() {
        stats.hit("compound conversions with a product past 2^256");
    }
    let kernel = w.kernel()?.swap_exact_in(0, 1, x);
    let before = w.tokens(TRADER)?;
    mint(&mut w.evm, w.asset, TRADER, x)?;
    let onchain = w.evm.call_sol(TRADER, w.c_token, &ReferenceCToken::mintCall { mintAmount: x });
    match kernel {
        Ok(swap) => {
            prop_assert_eq!(onchain?, U256::ZERO);
            prop_assert_eq!(w.tokens(TRADER)? - before, swap.amount_out);
            prop_assert_eq!(w.state()?, swap.next);
            stats.hit("compound mints");
        }
        Err(AmmError::InsufficientLiquidity) => {
            // Less than one cToken: Compound mints nothing and keeps the
            // underlying.
            prop_assert_eq!(onchain?, U256::ZERO);
            prop_assert_eq!(w.tokens(TRADER)?, before);
            stats.hit("compound mints of nothing");
        }
        Err(AmmError::InvalidState) => {
            prop_assert!(
                reverted_with::<ReferenceCToken::DivisionOverflow, _>(&onchain),
                "kernel overflowed but cToken {onchain:?}"
            );
            burn(&mut w.evm, w.asset, TRADER, x)?;
            stats.hit("compound mints past 256 bits");
        }
        Err(e) => prop_assert!(false, "kernel: {e}"),
    }
    Ok(())
}

fn compound_redeem(w: &mut Compound, tokens: U256, rate: U256, stats: &Stats) -> CaseResult {
    if tokens.checked_mul(rate).is_none() {
        stats.hit("compound conversions with a product past 2^256");
    }
    let kernel = w.kernel()?.swap_exact_in(1, 0, tokens);
    let (held, before) = (w.tokens(TRADER)?, balance(&mut w.evm, w.asset, TRADER)?);
    let onchain =
        w.evm.call_sol(TRADER, w.c_token, &ReferenceCToken::redeemCall { redeemTokens: tokens });
    match kernel {
        Ok(swap) => {
            prop_assert_eq!(onchain?, U256::ZERO);
            prop_assert_eq!(balance(&mut w.evm, w.asset, TRADER)? - before, swap.amount_out);
            prop_assert_eq!(held - w.tokens(TRADER)?, tokens);
            prop_assert_eq!(w.state()?, swap.next);
            stats.hit("compound redeems");
        }
        Err(AmmError::InsufficientLiquidity) => {
            let worth = mul_div(tokens, rate, WAD).unwrap_or(U256::MAX);
            if worth.is_zero() {
                // Worth less than one unit: the cToken burns and pays nothing.
                prop_assert_eq!(onchain?, U256::ZERO);
                prop_assert_eq!(balance(&mut w.evm, w.asset, TRADER)?, before);
                stats.hit("compound redeems of nothing");
            } else {
                prop_assert!(
                    reverted_with::<ReferenceCToken::RedeemTransferOutNotPossible, _>(&onchain),
                    "kernel refused {worth} but cToken {onchain:?}"
                );
                stats.hit("compound redeems beyond the cash");
            }
        }
        Err(e) => prop_assert!(false, "kernel: {e}"),
    }
    Ok(())
}

fn compound_differential(c: CompoundCase, stats: &Stats) -> CaseResult {
    let mut w = compound_world(c.rate)?;
    mint(&mut w.evm, w.asset, w.c_token, c.cash)?;
    for op in c.ops {
        match op {
            CompoundOp::Mint(x) | CompoundOp::MintHuge(x) => {
                compound_mint(&mut w, x, c.rate, stats)?;
            }
            CompoundOp::Redeem(share) => {
                let held = w.tokens(TRADER)?;
                if !held.is_zero() {
                    compound_redeem(&mut w, part(held, share), c.rate, stats)?;
                }
            }
            CompoundOp::RedeemWei(n) => {
                let held = w.tokens(TRADER)?;
                if !held.is_zero() {
                    compound_redeem(&mut w, U256::from(n).min(held), c.rate, stats)?;
                }
            }
            CompoundOp::RedeemAll => {
                let held = w.tokens(TRADER)?;
                if !held.is_zero() {
                    compound_redeem(&mut w, held, c.rate, stats)?;
                }
            }
            CompoundOp::Supply(x) => mint(&mut w.evm, w.asset, w.c_token, x)?,
            CompoundOp::Borrow(share) => {
                let cash = balance(&mut w.evm, w.asset, w.c_token)?;
                if !cash.is_zero() {
                    burn(&mut w.evm, w.asset, w.c_token, part(cash, share))?;
                }
            }
        }
    }
    Ok(())
}

#[test]
fn compound_ctoken_mints_and_redeems_exactly_as_the_kernel() {
    let stats = Stats::default();
    check(192, compound_case(), |c| compound_differential(c, &stats));
    stats.report("compound v2");
    // About half the lowest count of a few runs.
    for (what, n) in [
        ("compound mints", 150),
        ("compound mints of nothing", 4),
        ("compound mints past 256 bits", 15),
        ("compound redeems", 70),
        ("compound redeems of nothing", 8),
        ("compound redeems beyond the cash", 5),
        ("compound conversions with a product past 2^256", 40),
    ] {
        stats.expect_at_least(what, n);
    }
}

/// `redeemUnderlying` burns `amount * 1e18 / rate` cTokens, rounded down,
/// pays `amount`, and refuses an amount that burns nothing.
#[test]
fn compound_redeem_underlying_rounds_the_tokens_down() -> CaseResult {
    let rate = U256::from(230_000_000_000_000u64); // 0.00023 * 1e18
    let mut w = compound_world(rate)?;
    let x = U256::from(1_000_000u32);
    mint(&mut w.evm, w.asset, TRADER, x)?;
    w.evm.call_sol(TRADER, w.c_token, &ReferenceCToken::mintCall { mintAmount: x })?;
    prop_assert_eq!(w.tokens(TRADER)?, U256::from(4_347_826_086u64));
    let r = w.evm.call_sol(
        TRADER,
        w.c_token,
        &ReferenceCToken::redeemUnderlyingCall { redeemAmount: x },
    );
    // 1_000_000 / 0.00023 = 4347826086.96 → 4347826086 tokens for the whole
    // 1_000_000: the holder ends with nothing.
    prop_assert_eq!(r?, U256::ZERO);
    prop_assert_eq!(w.tokens(TRADER)?, U256::ZERO);
    prop_assert_eq!(balance(&mut w.evm, w.asset, TRADER)?, x);
    // Less than one cToken's worth burns nothing: refused.
    let dust = ReferenceCToken::redeemUnderlyingCall { redeemAmount: U256::ONE };
    mint(&mut w.evm, w.asset, w.c_token, U256::from(1_000u32))?;
    let r = w.evm.call_sol(TRADER, w.c_token, &dust);
    // 1 / 0.00023 = 4347 tokens, more than the trader has: an underflow.
    prop_assert!(panicked(&r), "{r:?}");
    let rate = uint!(230000000000000000000000000_U256); // 0.023 * 1e28 (cDAI-like)
    let mut w = compound_world(rate)?;
    mint(&mut w.evm, w.asset, w.c_token, U256::from(1_000u32))?;
    let r = w.evm.call_sol(TRADER, w.c_token, &dust);
    prop_assert!(reverted_with::<ReferenceCToken::RedeemTokensZero, _>(&r), "{r:?}");
    Ok(())
}

// ----------------------------------------------------------------- Lido

/// Totals: shares `S`, and `P` at a ratio of 1 to 2 (Lido's is about 1.2),
/// or anything.
fn lido_totals() -> impl Strategy<Value = (U256, U256)> {
    prop_oneof![
        3 => (bits(1, 100), any::<u32>()).prop_map(|(s, frac)| (s + ((s * U256::from(frac)) >> 32usize), s)),
        1 => (bits(1, 100), bits(1, 100)),
    ]
}

struct Lido {
    evm: Evm,
    steth: Address,
    wsteth: Address,
}

/// Deploys stETH and wstETH, seeds stETH's totals to `HOLDER`, who approves
/// wstETH for its stETH.
fn lido_world(pooled: U256, shares: U256) -> Result<Lido, EvmError> {
    let mut evm = Evm::new();
    let steth = deploy(&mut evm, STETH, &[])?;
    let wsteth =
        deploy(&mut evm, WSTETH, &ReferenceWstETH::constructorCall { stETH: steth }.abi_encode())?;
    switchyard_exec::evm::fixtures::steth_totals(&mut evm, steth, pooled, shares, HOLDER)?;
    evm.call_sol(
        HOLDER,
        steth,
        &ReferenceStETH::approveCall { spender: wsteth, amount: U256::MAX },
    )?;
    Ok(Lido { evm, steth, wsteth })
}

impl Lido {
    fn totals(&mut self) -> Result<(U256, U256), EvmError> {
        Ok((
            self.evm.view(self.steth, &ReferenceStETH::getTotalPooledEtherCall {})?,
            self.evm.view(self.steth, &ReferenceStETH::getTotalSharesCall {})?,
        ))
    }

    fn state(&mut self, rebasing: bool) -> Result<PoolState, EvmError> {
        let (total_pooled_asset, total_shares) = self.totals()?;
        Ok(PoolState::LiquidStaking(Box::new(StakingState {
            total_pooled_asset,
            total_shares,
            rebasing,
        })))
    }

    /// `[ETH, stETH]`, rebasing.
    fn staking(&mut self) -> Result<Pool, EvmError> {
        Ok(pool(self.steth, [NATIVE, self.steth], self.state(true)?))
    }

    /// `[stETH, wstETH]`, not rebasing.
    fn wrapping(&mut self) -> Result<Pool, EvmError> {
        Ok(pool(self.wsteth, [self.steth, self.wsteth], self.state(false)?))
    }

    fn steth_balance(&mut self, who: Address) -> Result<U256, EvmError> {
        self.evm.view(self.steth, &ReferenceStETH::balanceOfCall { account: who })
    }

    fn shares(&mut self, who: Address) -> Result<U256, EvmError> {
        self.evm.view(self.steth, &ReferenceStETH::sharesOfCall { account: who })
    }

    fn wsteth_balance(&mut self, who: Address) -> Result<U256, EvmError> {
        self.evm.view(self.wsteth, &ReferenceWstETH::balanceOfCall { who })
    }

    /// Stakes `x` wei from `who` (funded first); the shares minted.
    fn submit(&mut self, who: Address, x: U256) -> Result<U256, EvmError> {
        self.evm.set_balance(who, x);
        let call = ReferenceStETH::submitCall { referral: Address::ZERO };
        let out = self.evm.call(who, self.steth, call.abi_encode().into(), x)?;
        Ok(ReferenceStETH::submitCall::abi_decode_returns(&out.output)?)
    }
}

#[derive(Debug, Clone)]
enum StethOp {
    /// Stake this much, from a fresh address (true) or the trader.
    Submit(U256, bool),
    /// Send the trader's whole balance (the holder's when the trader has
    /// none) to a fresh address.
    TransferAll,
    /// Send this share (of 2^32) of the holder's balance to a fresh address.
    TransferPart(u32),
}

fn steth_op() -> impl Strategy<Value = StethOp> {
    prop_oneof![
        4 => (bits(1, 100), any::<bool>()).prop_map(|(x, f)| StethOp::Submit(x, f)),
        1 => Just(StethOp::TransferAll),
        1 => any::<u32>().prop_map(StethOp::TransferPart),
    ]
}

fn steth_submit(w: &mut Lido, x: U256, who: Address, stats: &Stats) -> CaseResult {
    let kernel = w.staking()?.swap_exact_in(0, 1, x);
    let (pooled, total) = w.totals()?;
    let (before, shares_before) = (w.steth_balance(who)?, w.shares(who)?);
    let shares = w.submit(who, x)?;
    // Shares at the totals before the deposit, possibly none; then the
    // totals take the deposit and the shares.
    prop_assert_eq!(Some(shares), mul_div(x, total, pooled));
    prop_assert_eq!(w.shares(who)? - shares_before, shares);
    prop_assert_eq!(w.totals()?, (pooled + x, total + shares));
    match kernel {
        Ok(swap) => {
            prop_assert_eq!(Ok(shares), vault::stake(x, pooled, total, false));
            let got = w.steth_balance(who)?;
            if before.is_zero() && shares_before.is_zero() {
                prop_assert_eq!(got, swap.amount_out, "a fresh depositor's balance");
                stats.hit("steth submits, fresh depositor");
                // What the totals before the deposit would have said.
                if mul_div(shares, pooled, total) != Some(got) {
                    stats.hit("steth submits reading more than at the old totals");
                }
            } else {
                stats.hit("steth submits, depositor with shares");
            }
            prop_assert_eq!(w.state(true)?, swap.next);
        }
        Err(AmmError::InsufficientLiquidity) => {
            // Lido mints what the deposit buys, possibly nothing, and keeps
            // the ETH: the depositor reads zero.
            if before.is_zero() && shares_before.is_zero() {
                prop_assert_eq!(w.steth_balance(who)?, U256::ZERO);
            }
            stats.hit("steth submits reading zero");
        }
        Err(e) => prop_assert!(false, "kernel: {e}"),
    }
    Ok(())
}

/// What a transfer of `amount` delivers to an address with no shares:
/// the shares `getSharesByPooledEth(amount)` read back at the same totals.
fn steth_delivered(amount: U256, pooled: U256, total: U256) -> Option<U256> {
    mul_div(mul_div(amount, total, pooled)?, pooled, total)
}

fn steth_transfer(w: &mut Lido, from: Address, amount: U256, k: u32, stats: &Stats) -> CaseResult {
    let (pooled, total) = w.totals()?;
    let to = fresh(k);
    let held = w.shares(from)?;
    w.evm.call_sol(from, w.steth, &ReferenceStETH::transferCall { recipient: to, amount })?;
    let got = w.steth_balance(to)?;
    prop_assert_eq!(Some(got), steth_delivered(amount, pooled, total));
    prop_assert_eq!(w.shares(from)?, held - mul_div(amount, total, pooled).unwrap_or_default());
    // At most ceil(P / S) wei short.
    let bound = pooled.div_ceil(total);
    prop_assert!(got <= amount && amount - got <= bound, "{got} for {amount}, bound {bound}");
    let short = amount - got;
    stats.hit(match short.saturating_to::<u64>() {
        0 => "steth transfers delivering everything",
        1 => "steth transfers 1 wei short",
        2 => "steth transfers 2 wei short",
        _ => "steth transfers 3+ wei short",
    });
    Ok(())
}

fn steth_differential(totals: (U256, U256), ops: Vec<StethOp>, stats: &Stats) -> CaseResult {
    let mut w = lido_world(totals.0, totals.1)?;
    for (k, op) in ops.into_iter().enumerate() {
        let k = k as u32;
        match op {
            StethOp::Submit(x, true) => steth_submit(&mut w, x, fresh(k), stats)?,
            StethOp::Submit(x, false) => steth_submit(&mut w, x, TRADER, stats)?,
            StethOp::TransferAll => {
                let from = if w.steth_balance(TRADER)?.is_zero() { HOLDER } else { TRADER };
                let all = w.steth_balance(from)?;
                if !all.is_zero() {
                    steth_transfer(&mut w, from, all, 1000 + k, stats)?;
                    stats.hit("steth whole-balance transfers");
                }
            }
            StethOp::TransferPart(share) => {
                let all = w.steth_balance(HOLDER)?;
                if !all.is_zero() {
                    steth_transfer(&mut w, HOLDER, part(all, share), 1000 + k, stats)?;
                }
            }
        }
    }
    Ok(())
}

#[test]
fn steth_submit_and_transfer_exactly_as_the_kernel() {
    let stats = Stats::default();
    check(256, (lido_totals(), prop::collection::vec(steth_op(), 1..=8)), |(totals, ops)| {
        steth_differential(totals, ops, &stats)
    });
    stats.report("lido steth");
    // About half the lowest count of a few runs.
    for (what, n) in [
        ("steth submits, fresh depositor", 250),
        ("steth submits, depositor with shares", 80),
        ("steth submits reading more than at the old totals", 30),
        ("steth submits reading zero", 10),
        ("steth whole-balance transfers", 80),
        ("steth transfers delivering everything", 25),
        ("steth transfers 1 wei short", 80),
        ("steth transfers 2 wei short", 30),
        ("steth transfers 3+ wei short", 10),
    ] {
        stats.expect_at_least(what, n);
    }
}

/// `submit` adds the ETH and the new shares to the totals before a balance
/// is read: at P = 3, S = 1, 5 wei mints 1 share, which reads 4 wei at the
/// new totals (8 / 2), not the 3 the old totals say.
#[test]
fn steth_submit_reads_back_at_the_new_totals() -> CaseResult {
    let cases = [
        (U256::from(3u8), U256::ONE, U256::from(5u8), U256::ONE, U256::from(4u8)),
        (
            uint!(9612345678901234567890123_U256),
            uint!(8010001234567890123456789_U256),
            uint!(657464206757531086548_U256),
            uint!(547867220315572352018_U256),
            uint!(657464206757531086547_U256),
        ),
    ];
    for (pooled, total, x, shares, reads) in cases {
        let mut w = lido_world(pooled, total)?;
        prop_assert_eq!(w.submit(RECIPIENT, x)?, shares);
        prop_assert_eq!(w.steth_balance(RECIPIENT)?, reads);
        prop_assert_eq!(mul_div(shares, pooled, total), Some(reads - U256::ONE));
        // The kernel, at the totals before the deposit.
        let state = PoolState::LiquidStaking(Box::new(StakingState {
            total_pooled_asset: pooled,
            total_shares: total,
            rebasing: true,
        }));
        let swap = pool(w.steth, [NATIVE, w.steth], state)
            .swap_exact_in(0, 1, x)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(swap.amount_out, reads);
    }
    Ok(())
}

#[derive(Debug, Clone)]
enum WstethOp {
    /// Wrap this share (of 2^32) of the holder's stETH, at least 1 wei.
    Wrap(u32),
    /// Wrap this many wei.
    WrapWei(u8),
    /// Move this share of the holder's wstETH to a fresh address, which
    /// unwraps it.
    Unwrap(u32),
    /// The same with this many wei.
    UnwrapWei(u8),
    /// Stake this much from the trader, moving the totals.
    Submit(U256),
    /// Send this much ETH to wstETH from a fresh address.
    StakeWrapped(U256),
}

fn wsteth_op() -> impl Strategy<Value = WstethOp> {
    prop_oneof![
        3 => any::<u32>().prop_map(WstethOp::Wrap),
        1 => (1u8..=4).prop_map(WstethOp::WrapWei),
        3 => any::<u32>().prop_map(WstethOp::Unwrap),
        1 => (1u8..=4).prop_map(WstethOp::UnwrapWei),
        1 => bits(1, 100).prop_map(WstethOp::Submit),
        1 => bits(1, 100).prop_map(WstethOp::StakeWrapped),
    ]
}

fn wsteth_wrap(w: &mut Lido, x: U256, stats: &Stats) -> CaseResult {
    let kernel = w.wrapping()?.swap_exact_in(0, 1, x);
    let before = w.wsteth_balance(HOLDER)?;
    let out = w.evm.call_sol(HOLDER, w.wsteth, &ReferenceWstETH::wrapCall { stETHAmount: x })?;
    let got = w.wsteth_balance(HOLDER)? - before;
    prop_assert_eq!(got, out);
    match kernel {
        Ok(swap) => {
            prop_assert_eq!(out, swap.amount_out);
            prop_assert_eq!(w.state(false)?, swap.next);
            stats.hit("wsteth wraps");
        }
        Err(AmmError::InsufficientLiquidity) => {
            // Dust: Lido wraps it into nothing.
            prop_assert_eq!(out, U256::ZERO);
            stats.hit("wsteth wraps of nothing");
        }
        Err(e) => prop_assert!(false, "kernel: {e}"),
    }
    Ok(())
}

fn wsteth_unwrap(w: &mut Lido, amount: U256, k: u32, stats: &Stats) -> CaseResult {
    let who = fresh(k);
    w.evm.call_sol(HOLDER, w.wsteth, &ReferenceWstETH::transferCall { to: who, amount })?;
    let kernel = w.wrapping()?.swap_exact_in(1, 0, amount);
    let out =
        w.evm.call_sol(who, w.wsteth, &ReferenceWstETH::unwrapCall { wstETHAmount: amount })?;
    prop_assert_eq!(w.shares(who)?, amount);
    prop_assert_eq!(w.steth_balance(who)?, out);
    match kernel {
        Ok(swap) => {
            prop_assert_eq!(out, swap.amount_out);
            prop_assert_eq!(w.state(false)?, swap.next);
            stats.hit("wsteth unwraps");
        }
        Err(AmmError::InsufficientLiquidity) => {
            prop_assert_eq!(out, U256::ZERO);
            stats.hit("wsteth unwraps of nothing");
        }
        Err(e) => prop_assert!(false, "kernel: {e}"),
    }
    Ok(())
}

fn wsteth_differential(totals: (U256, U256), ops: Vec<WstethOp>, stats: &Stats) -> CaseResult {
    let mut w = lido_world(totals.0, totals.1)?;
    for (k, op) in ops.into_iter().enumerate() {
        let k = k as u32;
        match op {
            WstethOp::Wrap(share) => {
                let all = w.steth_balance(HOLDER)?;
                if !all.is_zero() {
                    wsteth_wrap(&mut w, part(all, share), stats)?;
                }
            }
            WstethOp::WrapWei(n) => {
                let all = w.steth_balance(HOLDER)?;
                if !all.is_zero() {
                    wsteth_wrap(&mut w, U256::from(n).min(all), stats)?;
                }
            }
            WstethOp::Unwrap(share) => {
                let all = w.wsteth_balance(HOLDER)?;
                if !all.is_zero() {
                    wsteth_unwrap(&mut w, part(all, share), 1000 + k, stats)?;
                }
            }
            WstethOp::UnwrapWei(n) => {
                let all = w.wsteth_balance(HOLDER)?;
                if !all.is_zero() {
                    wsteth_unwrap(&mut w, U256::from(n).min(all), 1000 + k, stats)?;
                }
            }
            WstethOp::Submit(x) => {
                w.submit(TRADER, x)?;
            }
            WstethOp::StakeWrapped(x) => {
                // ETH straight to wstETH: Lido's submit, its shares as wstETH.
                let (pooled, total) = w.totals()?;
                let who = fresh(2000 + k);
                w.evm.set_balance(who, x);
                w.evm.call(who, w.wsteth, Bytes::new(), x)?;
                let minted = vault::stake(x, pooled, total, false).unwrap_or_default();
                prop_assert_eq!(w.wsteth_balance(who)?, minted);
                prop_assert_eq!(w.totals()?, (pooled + x, total + minted));
                stats.hit("wsteth stakes from ETH");
            }
        }
    }
    Ok(())
}

#[test]
fn wsteth_wraps_and_unwraps_exactly_as_the_kernel() {
    let stats = Stats::default();
    check(192, (lido_totals(), prop::collection::vec(wsteth_op(), 1..=8)), |(totals, ops)| {
        wsteth_differential(totals, ops, &stats)
    });
    stats.report("lido wsteth");
    // About half the lowest count of a few runs.
    for (what, n) in [
        ("wsteth wraps", 130),
        ("wsteth wraps of nothing", 10),
        ("wsteth unwraps", 70),
        ("wsteth unwraps of nothing", 2),
        ("wsteth stakes from ETH", 40),
    ] {
        stats.expect_at_least(what, n);
    }
}

// ------------------------------------------------- constant product, fee

#[derive(Debug, Clone)]
struct PairCase {
    fee_bps: u16,
    reserves: [U256; 2],
    /// Input, raw units (1 wei to 2^104, often more than the reserve).
    amount_in: U256,
    zero_for_one: bool,
}

fn pair_case() -> impl Strategy<Value = PairCase> {
    let fee = prop_oneof![
        2 => Just(25u16),
        2 => Just(30u16),
        2 => 0u16..=1_000,
        1 => 0u16..10_000,
    ];
    (fee, bits(10, 100), bits(10, 100), bits(1, 104), any::<bool>()).prop_map(
        |(fee_bps, r0, r1, amount_in, zero_for_one)| PairCase {
            fee_bps,
            reserves: [r0, r1],
            amount_in,
            zero_for_one,
        },
    )
}

struct Pair {
    evm: Evm,
    pair: Address,
    tokens: [Address; 2],
}

/// Two tokens, sorted, and a pair at `fee_bps` holding `reserves`.
fn pair_world(fee_bps: u16, reserves: [U256; 2]) -> Result<Pair, EvmError> {
    let mut evm = Evm::new();
    let a = deploy_token(&mut evm, 18)?;
    let b = deploy_token(&mut evm, 18)?;
    let tokens = if a < b { [a, b] } else { [b, a] };
    let args =
        ReferenceV2Pair::constructorCall { token0: tokens[0], token1: tokens[1], feeBps: fee_bps }
            .abi_encode();
    let pair = deploy(&mut evm, V2_PAIR, &args)?;
    for (token, reserve) in tokens.iter().zip(reserves) {
        mint(&mut evm, *token, pair, reserve)?;
    }
    evm.call_sol(DEPLOYER, pair, &ReferenceV2Pair::syncCall {})?;
    Ok(Pair { evm, pair, tokens })
}

impl Pair {
    fn reserves(&mut self) -> Result<[U256; 2], EvmError> {
        let r = self.evm.view(self.pair, &ReferenceV2Pair::getReservesCall {})?;
        Ok([U256::from(r.reserve0), U256::from(r.reserve1)])
    }

    fn swap(
        &mut self,
        out_index: usize,
        out: U256,
    ) -> Result<Vec<alloy_primitives::Log>, EvmError> {
        let (out0, out1) = if out_index == 0 { (out, U256::ZERO) } else { (U256::ZERO, out) };
        let call = ReferenceV2Pair::swapCall {
            amount0Out: out0,
            amount1Out: out1,
            to: RECIPIENT,
            data: Bytes::new(),
        };
        Ok(self.evm.call(TRADER, self.pair, call.abi_encode().into(), U256::ZERO)?.logs)
    }
}

fn pair_differential(c: PairCase, stats: &Stats) -> CaseResult {
    let mut w = pair_world(c.fee_bps, c.reserves)?;
    let (i, j) = if c.zero_for_one { (0, 1) } else { (1, 0) };
    let state = v2_state(c.reserves, u32::from(c.fee_bps));
    let kernel = pool(w.pair, w.tokens, state).swap_exact_in(i, j, c.amount_in);

    // The trader pays first, as a router does, then asks for the output.
    mint(&mut w.evm, w.tokens[i], TRADER, c.amount_in)?;
    w.evm.call_sol(
        TRADER,
        w.tokens[i],
        &TestERC20::transferCall { to: w.pair, amount: c.amount_in },
    )?;
    match kernel {
        Ok(swap) => {
            // One wei more breaks the invariant: the kernel's is the most the
            // pair gives.
            let more = w.swap(j, swap.amount_out + U256::ONE);
            if swap.amount_out + U256::ONE < c.reserves[j] {
                prop_assert!(reverted_with::<ReferenceV2Pair::K, _>(&more), "{more:?}");
            } else {
                prop_assert!(
                    reverted_with::<ReferenceV2Pair::InsufficientLiquidity, _>(&more),
                    "{more:?}"
                );
            }
            let logs = w.swap(j, swap.amount_out)?;
            prop_assert_eq!(balance(&mut w.evm, w.tokens[j], RECIPIENT)?, swap.amount_out);
            let fee_bps = u32::from(c.fee_bps);
            prop_assert_eq!(v2_state(w.reserves()?, fee_bps), swap.next);
            let event = logs
                .iter()
                .find_map(|l| ReferenceV2Pair::Swap::decode_log_data(&l.data).ok())
                .ok_or_else(|| TestCaseError::fail("no Swap event"))?;
            let ins = [event.amount0In, event.amount1In];
            let outs = [event.amount0Out, event.amount1Out];
            prop_assert_eq!((ins[i], ins[j]), (c.amount_in, U256::ZERO));
            prop_assert_eq!((outs[i], outs[j]), (U256::ZERO, swap.amount_out));
            stats.hit(match c.fee_bps {
                25 => "pair swaps at 25 bps",
                30 => "pair swaps at 30 bps",
                _ => "pair swaps at other fees",
            });
        }
        Err(AmmError::InsufficientLiquidity) => {
            // The input buys nothing: not even one wei passes the K check.
            let one = w.swap(j, U256::ONE);
            prop_assert!(
                reverted_with::<ReferenceV2Pair::K, _>(&one),
                "1 wei out was paid: {one:?}"
            );
            stats.hit("pair inputs buying nothing");
        }
        Err(e) => prop_assert!(false, "kernel: {e}"),
    }
    Ok(())
}

#[test]
fn fee_pair_accepts_exactly_the_kernel_output() {
    let stats = Stats::default();
    check(384, pair_case(), |c| pair_differential(c, &stats));
    stats.report("v2 pair with a fee");
    // About half the lowest count of a few runs.
    for (what, n) in [
        ("pair swaps at 25 bps", 40),
        ("pair swaps at 30 bps", 40),
        ("pair swaps at other fees", 60),
        ("pair inputs buying nothing", 25),
    ] {
        stats.expect_at_least(what, n);
    }
}

/// 1 ETH into 100 ETH / 300,000 USDC at PancakeSwap's 25 bps and at 30:
/// the pair pays exactly `getAmountOut` and not one wei more.
#[test]
fn fee_pair_golden_at_25_and_30_bps() -> CaseResult {
    let e18 = U256::from(10u64).pow(U256::from(18u64));
    for (fee_bps, expected) in [(25u16, 2_962_944_627u64), (30, 2_961_474_103)] {
        let reserves = [e18 * U256::from(100u8), U256::from(300_000_000_000u64)];
        let mut w = pair_world(fee_bps, reserves)?;
        let state = v2_state(reserves, u32::from(fee_bps));
        let swap = pool(w.pair, w.tokens, state)
            .swap_exact_in(0, 1, e18)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(swap.amount_out, U256::from(expected));
        mint(&mut w.evm, w.tokens[0], w.pair, e18)?;
        prop_assert!(reverted_with::<ReferenceV2Pair::K, _>(
            &w.swap(1, swap.amount_out + U256::ONE)
        ));
        w.swap(1, swap.amount_out)?;
        prop_assert_eq!(balance(&mut w.evm, w.tokens[1], RECIPIENT)?, swap.amount_out);
    }
    Ok(())
}

/// Flash swaps are refused; `skim` sends the excess; `sync` past 2^112
/// overflows; the constructor wants sorted tokens and a fee below 100%.
#[test]
fn fee_pair_guards() -> CaseResult {
    let reserves = [U256::from(1_000_000u32), U256::from(2_000_000u32)];
    let mut w = pair_world(25, reserves)?;
    prop_assert_eq!(w.evm.view(w.pair, &ReferenceV2Pair::feeBpsCall {})?, 25);
    prop_assert_eq!(w.evm.view(w.pair, &ReferenceV2Pair::token0Call {})?, w.tokens[0]);
    mint(&mut w.evm, w.tokens[0], w.pair, U256::from(1_000u32))?;
    let flash = ReferenceV2Pair::swapCall {
        amount0Out: U256::ZERO,
        amount1Out: U256::ONE,
        to: RECIPIENT,
        data: Bytes::from_static(b"x"),
    };
    let r = w.evm.call_sol(TRADER, w.pair, &flash).map(drop);
    prop_assert!(reverted_with::<ReferenceV2Pair::FlashSwapUnsupported, _>(&r), "{r:?}");
    w.evm.call_sol(TRADER, w.pair, &ReferenceV2Pair::skimCall { to: RECIPIENT })?;
    prop_assert_eq!(balance(&mut w.evm, w.tokens[0], RECIPIENT)?, U256::from(1_000u32));
    prop_assert_eq!(w.reserves()?, reserves);
    mint(&mut w.evm, w.tokens[1], w.pair, U256::from(U112::MAX))?;
    let r = w.evm.call_sol(TRADER, w.pair, &ReferenceV2Pair::syncCall {}).map(drop);
    prop_assert!(reverted_with::<ReferenceV2Pair::Overflow, _>(&r), "{r:?}");
    let (t0, t1) = (w.tokens[0], w.tokens[1]);
    let unsorted =
        ReferenceV2Pair::constructorCall { token0: t1, token1: t0, feeBps: 30 }.abi_encode();
    prop_assert!(deploy(&mut w.evm, V2_PAIR, &unsorted).is_err());
    let full =
        ReferenceV2Pair::constructorCall { token0: t0, token1: t1, feeBps: 10_000 }.abi_encode();
    prop_assert!(deploy(&mut w.evm, V2_PAIR, &full).is_err());
    Ok(())
}

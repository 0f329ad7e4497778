//! Exact output (issue 17, §3): the kernel's exact-output math against the
//! contracts' own exact-output functions, run in the engine's EVM. No
//! tolerance.
//!
//! - Uniswap V2: `UniswapV2Router02` (`@uniswap/v2-periphery`, published
//!   bytecode): `getAmountsIn` equals the kernel's input; executing
//!   `swapTokensForExactTokens` takes exactly it, delivers exactly the
//!   output and leaves the reserves the kernel's next state says.
//! - Uniswap V3: the published `SwapRouter`'s `exactOutputSingle` through
//!   pools of every fee tier with random positions: the input taken, the
//!   output, and the pool's price, tick and liquidity after.
//! - ERC-4626: `previewMint` / `previewWithdraw` of the reference (solmate
//!   rounding) and OpenZeppelin vaults, and `mint` / `withdraw` executed.
//!
//! Balancer's `GIVEN_OUT` and Curve's least input are in
//! `differential_pools.rs`, beside their exact-in tests.

mod common;

use alloy_primitives::{
    Address, U256,
    aliases::{I24, U24, U160},
};
use alloy_sol_types::SolConstructor;
use common::{CaseResult, DEPLOYER, Stats, balance, bits, deploy_token, mint, v2_state};
use proptest::prelude::*;
use switchyard_catalog::market::VaultRule;
use switchyard_exec::{
    encode::protocols::{ISwapRouter, IUniswapV2Router},
    evm::{
        Artifact, Evm, EvmError,
        abi::{
            OpenZeppelinVault, ReferenceVault, ReferenceWETH, TestERC20, UniswapV2Factory,
            UniswapV2Pair, UniswapV2Router02, UniswapV3Factory, UniswapV3Pool, UniswapV3SwapRouter,
            V3Swapper,
        },
    },
};
use switchyard_kernel::{
    PoolState, TickList, V3State, VaultState,
    amm::{AmmError, uniswap_v3},
};

const TRADER: Address = Address::repeat_byte(0x7a);
const RECIPIENT: Address = Address::repeat_byte(0x5e);

fn check<S: Strategy>(cases: u32, strategy: S, test: impl Fn(S::Value) -> CaseResult)
where
    S::Value: std::fmt::Debug,
{
    common::check(0x5eed_0017, cases, strategy, test);
}

fn weth(evm: &mut Evm) -> Result<Address, EvmError> {
    let args =
        ReferenceWETH::constructorCall { name_: "Wrapped Ether".into(), symbol_: "WETH".into() }
            .abi_encode();
    evm.deploy_artifact(DEPLOYER, Artifact::ReferenceWeth, &args)
}

// ---------------------------------------------------------------- V2

#[derive(Debug, Clone)]
struct V2Case {
    decimals: [u8; 2],
    reserves: [U256; 2],
    /// Share of the output reserve asked for, of 2^32 (all of it at
    /// 2^32: more than the pair can pay).
    share: u64,
    zero_for_one: bool,
}

fn v2_case() -> impl Strategy<Value = V2Case> {
    let share = prop_oneof![9 => any::<u32>().prop_map(u64::from), 1 => Just(1u64 << 32)];
    (any::<[u8; 2]>(), bits(10, 100), bits(10, 100), share, any::<bool>()).prop_map(
        |(d, r0, r1, share, zero_for_one)| V2Case {
            decimals: [d[0] % 25, d[1] % 25],
            reserves: [r0, r1],
            share,
            zero_for_one,
        },
    )
}

struct V2Base {
    evm: Evm,
    factory: Address,
    router: Address,
}

fn v2_base() -> Result<V2Base, EvmError> {
    let mut evm = Evm::new();
    let args = UniswapV2Factory::constructorCall { feeToSetter: DEPLOYER }.abi_encode();
    let factory = evm.deploy_artifact(DEPLOYER, Artifact::UniswapV2Factory, &args)?;
    let weth = weth(&mut evm)?;
    let args = UniswapV2Router02::constructorCall { factory, WETH: weth }.abi_encode();
    let router = evm.deploy_artifact(DEPLOYER, Artifact::UniswapV2Router02, &args)?;
    Ok(V2Base { evm, factory, router })
}

fn v2_differential(base: &V2Base, c: V2Case, stats: &Stats) -> CaseResult {
    let mut evm = base.evm.clone();
    let a = deploy_token(&mut evm, c.decimals[0])?;
    let b = deploy_token(&mut evm, c.decimals[1])?;
    let pair = evm.call_sol(
        DEPLOYER,
        base.factory,
        &UniswapV2Factory::createPairCall { tokenA: a, tokenB: b },
    )?;
    let tokens = [
        evm.view(pair, &UniswapV2Pair::token0Call {})?,
        evm.view(pair, &UniswapV2Pair::token1Call {})?,
    ];
    for (token, reserve) in tokens.iter().zip(c.reserves) {
        mint(&mut evm, *token, pair, reserve)?;
    }
    evm.call_sol(DEPLOYER, pair, &UniswapV2Pair::syncCall {})?;
    let (i, j) = if c.zero_for_one { (0, 1) } else { (1, 0) };
    let want = ((c.reserves[j] * U256::from(c.share)) >> 32usize).max(U256::ONE);
    let kernel = common::pool(pair, tokens.into(), vec![18, 18], v2_state(c.reserves, 30))
        .swap_exact_out(i, j, want);
    let path = vec![tokens[i], tokens[j]];
    let quoted = evm.view(
        base.router,
        &IUniswapV2Router::getAmountsInCall { amountOut: want, path: path.clone() },
    );
    match kernel {
        Ok(s) => {
            stats.hit("filled");
            prop_assert_eq!(s.amount_out, want);
            prop_assert_eq!(quoted?, vec![s.amount_in, want]);
            // Executed: exactly that input leaves the trader.
            mint(&mut evm, tokens[i], TRADER, s.amount_in)?;
            evm.call_sol(
                TRADER,
                tokens[i],
                &TestERC20::approveCall { spender: base.router, amount: s.amount_in },
            )?;
            evm.call_sol(
                TRADER,
                base.router,
                &IUniswapV2Router::swapTokensForExactTokensCall {
                    amountOut: want,
                    amountInMax: s.amount_in,
                    path,
                    to: RECIPIENT,
                    deadline: U256::MAX,
                },
            )?;
            prop_assert_eq!(balance(&mut evm, tokens[i], TRADER)?, U256::ZERO);
            prop_assert_eq!(balance(&mut evm, tokens[j], RECIPIENT)?, want);
            let r = evm.view(pair, &UniswapV2Pair::getReservesCall {})?;
            prop_assert_eq!(v2_state([U256::from(r.reserve0), U256::from(r.reserve1)], 30), s.next);
        }
        Err(AmmError::InsufficientLiquidity) => {
            // The whole reserve, or an input past the pair's uint112: the
            // router cannot do it either.
            stats.hit("refused");
            let executed = quoted.ok().and_then(|q| q.first().copied()).map(|a_in| {
                let mut e = evm.clone();
                mint(&mut e, tokens[i], TRADER, a_in)
                    .and_then(|()| {
                        e.call_sol(
                            TRADER,
                            tokens[i],
                            &TestERC20::approveCall { spender: base.router, amount: a_in },
                        )
                        .map(drop)
                    })
                    .and_then(|()| {
                        e.call_sol(
                            TRADER,
                            base.router,
                            &IUniswapV2Router::swapTokensForExactTokensCall {
                                amountOut: want,
                                amountInMax: a_in,
                                path: path.clone(),
                                to: RECIPIENT,
                                deadline: U256::MAX,
                            },
                        )
                        .map(drop)
                    })
            });
            prop_assert!(
                !matches!(executed, Some(Ok(()))),
                "the kernel refused {want} out of {:?}, the router did it",
                c.reserves
            );
        }
        Err(e) => prop_assert!(false, "kernel: {e}"),
    }
    Ok(())
}

#[test]
fn uniswap_v2_router_takes_exactly_the_kernel_input_for_an_output() {
    let base = v2_base().expect("V2 factory and router deploy");
    let stats = Stats::default();
    check(256, v2_case(), |c| v2_differential(&base, c, &stats));
    stats.report("uniswap v2 exact out");
    stats.expect_at_least("filled", 150);
    stats.expect_at_least("refused", 5);
}

// ---------------------------------------------------------------- V3

const V3_TIERS: [(u32, i32); 3] = [(500, 10), (3000, 60), (10000, 200)];

#[derive(Debug, Clone)]
struct V3Case {
    tier: usize,
    start_tick: i32,
    /// Positions: `(offset from the start, width, liquidity)`, in spacings.
    positions: Vec<(i32, i32, U256)>,
    /// Swaps: direction and the share of the pool's output balance asked
    /// for, as a power of two (`2^-k`).
    swaps: Vec<(bool, u8, u32)>,
}

fn v3_case() -> impl Strategy<Value = V3Case> {
    (
        0usize..3,
        -200_000i32..200_000,
        prop::collection::vec((-300i32..300, 1i32..300, bits(40, 96)), 1..=5),
        prop::collection::vec((any::<bool>(), 0u8..40, any::<u32>()), 1..=4),
    )
        .prop_map(|(tier, start_tick, positions, swaps)| V3Case {
            tier,
            start_tick,
            positions,
            swaps,
        })
}

struct V3Base {
    evm: Evm,
    factory: Address,
    swapper: Address,
    router: Address,
}

fn v3_base() -> Result<V3Base, EvmError> {
    let mut evm = Evm::new();
    let factory = evm.deploy_artifact(DEPLOYER, Artifact::UniswapV3Factory, &[])?;
    let swapper = evm.deploy_artifact(DEPLOYER, Artifact::V3Swapper, &[])?;
    let weth = weth(&mut evm)?;
    let args = UniswapV3SwapRouter::constructorCall { factory, WETH9: weth }.abi_encode();
    let router = evm.deploy_artifact(DEPLOYER, Artifact::UniswapV3SwapRouter, &args)?;
    Ok(V3Base { evm, factory, swapper, router })
}

fn i24(t: i32) -> I24 {
    I24::try_from(t).expect("tick fits int24")
}

fn v3_state(
    evm: &mut Evm,
    pool: Address,
    fee: u32,
    spacing: i32,
    bounds: &[i32],
) -> Result<PoolState, TestCaseError> {
    let slot0 = evm.view(pool, &UniswapV3Pool::slot0Call {})?;
    let liquidity = evm.view(pool, &UniswapV3Pool::liquidityCall {})?;
    let mut ticks = Vec::new();
    for t in bounds {
        let info = evm.view(pool, &UniswapV3Pool::ticksCall { tick: i24(*t) })?;
        if info.initialized {
            ticks.push((*t, info.liquidityNet));
        }
    }
    Ok(PoolState::UniswapV3(Box::new(V3State {
        sqrt_price_x96: U256::from(slot0.sqrtPriceX96),
        liquidity,
        tick: i32::try_from(slot0.tick).expect("int24 fits i32"),
        fee,
        tick_spacing: spacing,
        ticks: TickList::from(ticks),
    })))
}

fn v3_differential(base: &V3Base, c: V3Case, stats: &Stats) -> CaseResult {
    let mut evm = base.evm.clone();
    let (fee, spacing) = V3_TIERS[c.tier];
    let a = deploy_token(&mut evm, 18)?;
    let b = deploy_token(&mut evm, 18)?;
    let pool = evm.call_sol(
        DEPLOYER,
        base.factory,
        &UniswapV3Factory::createPoolCall { tokenA: a, tokenB: b, fee: U24::from(fee) },
    )?;
    let tokens = [
        evm.view(pool, &UniswapV3Pool::token0Call {})?,
        evm.view(pool, &UniswapV3Pool::token1Call {})?,
    ];
    let sqrt = uniswap_v3::sqrt_ratio_at_tick(c.start_tick)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    evm.call_sol(
        DEPLOYER,
        pool,
        &UniswapV3Pool::initializeCall { sqrtPriceX96: U160::from(sqrt) },
    )?;
    for token in tokens {
        mint(&mut evm, token, base.swapper, U256::ONE << 250)?;
        evm.call_sol(
            TRADER,
            token,
            &TestERC20::approveCall { spender: base.router, amount: U256::MAX },
        )?;
    }
    let start_c = c.start_tick.div_euclid(spacing);
    let (min_c, max_c) =
        (uniswap_v3::MIN_TICK.div_euclid(spacing) + 1, uniswap_v3::MAX_TICK.div_euclid(spacing));
    let mut bounds = Vec::new();
    for (offset, width, liquidity) in &c.positions {
        let lower = (start_c + offset).clamp(min_c, max_c - 1);
        let upper = (lower + width).min(max_c);
        let liquidity = u128::try_from(liquidity).unwrap_or(u128::MAX);
        evm.call_sol(
            DEPLOYER,
            base.swapper,
            &V3Swapper::mintCall {
                pool,
                lower: i24(lower * spacing),
                upper: i24(upper * spacing),
                liquidity,
            },
        )?;
        bounds.extend([lower * spacing, upper * spacing]);
    }
    bounds.sort_unstable();
    bounds.dedup();
    for (zero_for_one, k, jitter) in c.swaps {
        let (i, j) = if zero_for_one { (0, 1) } else { (1, 0) };
        let held = balance(&mut evm, tokens[j], pool)?;
        let want =
            (held >> usize::from(k)).saturating_add(U256::from(jitter % 1000)).max(U256::ONE);
        let state = v3_state(&mut evm, pool, fee, spacing, &bounds)?;
        let kernel =
            common::pool(pool, tokens.into(), vec![18, 18], state).swap_exact_out(i, j, want);
        // The trader holds plenty; what it pays is measured.
        mint(&mut evm, tokens[i], TRADER, U256::ONE << 200)?;
        let before = balance(&mut evm, tokens[i], TRADER)?;
        let got_before = balance(&mut evm, tokens[j], RECIPIENT)?;
        let onchain = evm.call_sol(
            TRADER,
            base.router,
            &ISwapRouter::exactOutputSingleCall {
                params: ISwapRouter::ExactOutputSingleParams {
                    tokenIn: tokens[i],
                    tokenOut: tokens[j],
                    fee: U24::from(fee),
                    recipient: RECIPIENT,
                    deadline: U256::MAX,
                    amountOut: want,
                    amountInMaximum: U256::MAX,
                    sqrtPriceLimitX96: U160::ZERO,
                },
            },
        );
        match kernel {
            Ok(s) => {
                stats.hit("filled");
                if s.gas > switchyard_kernel::amm::gas::UNISWAP_V3 {
                    stats.hit("crossed a tick");
                }
                prop_assert_eq!(onchain?, s.amount_in);
                prop_assert_eq!(before - balance(&mut evm, tokens[i], TRADER)?, s.amount_in);
                prop_assert_eq!(balance(&mut evm, tokens[j], RECIPIENT)? - got_before, want);
                prop_assert_eq!(v3_state(&mut evm, pool, fee, spacing, &bounds)?, s.next);
            }
            Err(AmmError::InsufficientLiquidity) => {
                stats.hit("refused");
                prop_assert!(
                    matches!(onchain, Err(EvmError::Reverted { .. })),
                    "the kernel refused {want}, the router paid it: {onchain:?}"
                );
            }
            Err(e) => prop_assert!(false, "kernel: {e}"),
        }
    }
    Ok(())
}

#[test]
fn uniswap_v3_router_takes_exactly_the_kernel_input_for_an_output() {
    let base = v3_base().expect("V3 factory and router deploy");
    let stats = Stats::default();
    check(128, v3_case(), |c| v3_differential(&base, c, &stats));
    stats.report("uniswap v3 exact out");
    stats.expect_at_least("filled", 120);
    stats.expect_at_least("crossed a tick", 20);
    stats.expect_at_least("refused", 5);
}

// ---------------------------------------------------------------- ERC-4626

fn vault(rule: VaultRule, asset_decimals: u8) -> Result<(Evm, Address, Address), EvmError> {
    let mut evm = Evm::new();
    let asset = deploy_token(&mut evm, asset_decimals)?;
    let (name, symbol) = ("Vault".to_owned(), "vTKN".to_owned());
    let vault = match rule {
        VaultRule::Solmate => {
            let args =
                ReferenceVault::constructorCall { asset, name, symbol, decimals: asset_decimals }
                    .abi_encode();
            evm.deploy_artifact(DEPLOYER, Artifact::ReferenceVault, &args)?
        }
        VaultRule::OpenZeppelin { decimals_offset } => {
            let args = OpenZeppelinVault::constructorCall {
                asset_: asset,
                name_: name,
                symbol_: symbol,
                offset_: decimals_offset,
            }
            .abi_encode();
            evm.deploy_artifact(DEPLOYER, Artifact::OpenZeppelinVault, &args)?
        }
    };
    evm.call_sol(TRADER, asset, &TestERC20::approveCall { spender: vault, amount: U256::MAX })?;
    Ok((evm, asset, vault))
}

/// A deposit and a donation or loss set the share price; then `mint` of
/// some shares and `withdraw` of some assets.
fn vault_differential(
    base: &(Evm, Address, Address),
    rule: VaultRule,
    (seed, moved, gain, shares, assets): (U256, U256, bool, U256, u32),
    stats: &Stats,
) -> CaseResult {
    let (mut evm, asset, vault) = (base.0.clone(), base.1, base.2);
    mint(&mut evm, asset, TRADER, seed)?;
    if evm
        .call_sol(TRADER, vault, &ReferenceVault::depositCall { assets: seed, receiver: TRADER })
        .is_err()
    {
        return Ok(());
    }
    if gain {
        mint(&mut evm, asset, vault, moved)?;
    } else {
        let held = balance(&mut evm, asset, vault)?;
        evm.call_sol(
            DEPLOYER,
            asset,
            &TestERC20::burnCall { from: vault, amount: moved.min(held) / U256::from(2u8) },
        )?;
    }
    let state = || -> Result<PoolState, EvmError> {
        let mut e = evm.clone();
        Ok(PoolState::Erc4626(Box::new(VaultState {
            total_assets: e.view(vault, &ReferenceVault::totalAssetsCall {})?,
            total_supply: e.view(vault, &ReferenceVault::totalSupplyCall {})?,
            rule,
        })))
    };
    let kernel_pool = common::pool(vault, vec![asset, vault], vec![18, 18], state()?);

    // mint(shares): the assets it takes.
    let preview = evm.view(vault, &ReferenceVault::previewMintCall { shares });
    match kernel_pool.swap_exact_out(0, 1, shares) {
        Ok(s) => {
            stats.hit("mint");
            prop_assert_eq!(preview?, s.amount_in);
            let mut e = evm.clone();
            mint(&mut e, asset, TRADER, s.amount_in)?;
            let before = balance(&mut e, asset, TRADER)?;
            let taken =
                e.call_sol(TRADER, vault, &ReferenceVault::mintCall { shares, receiver: TRADER })?;
            prop_assert_eq!(taken, s.amount_in);
            prop_assert_eq!(before - balance(&mut e, asset, TRADER)?, s.amount_in);
        }
        Err(err) => {
            stats.hit("mint refused");
            prop_assert!(
                preview.is_err() || preview.as_ref().is_ok_and(U256::is_zero),
                "kernel {err}, vault {preview:?}"
            );
        }
    }
    // withdraw(assets): the shares it burns.
    let held = evm.view(vault, &ReferenceVault::balanceOfCall { who: TRADER })?;
    let worth =
        evm.view(vault, &ReferenceVault::previewRedeemCall { shares: held }).unwrap_or_default();
    let want = ((worth * U256::from(assets)) >> 32usize).max(U256::ONE);
    let preview = evm.view(vault, &ReferenceVault::previewWithdrawCall { assets: want });
    match kernel_pool.swap_exact_out(1, 0, want) {
        Ok(s) => {
            stats.hit("withdraw");
            prop_assert_eq!(preview?, s.amount_in);
            let burnt = evm.call_sol(
                TRADER,
                vault,
                &ReferenceVault::withdrawCall { assets: want, receiver: RECIPIENT, owner: TRADER },
            );
            if s.amount_in <= held {
                prop_assert_eq!(burnt?, s.amount_in);
                prop_assert_eq!(balance(&mut evm, asset, RECIPIENT)?, want);
            }
        }
        Err(err) => {
            stats.hit("withdraw refused");
            prop_assert!(preview.is_err() || want > worth, "kernel {err}, vault {preview:?}");
        }
    }
    Ok(())
}

#[test]
fn erc4626_previews_and_executes_exact_outputs_as_the_kernel() {
    let case = || (bits(1, 120), bits(1, 120), any::<bool>(), bits(1, 120), any::<u32>());
    for (rule, decimals) in [
        (VaultRule::Solmate, 18),
        (VaultRule::OpenZeppelin { decimals_offset: 12 }, 6),
        (VaultRule::OpenZeppelin { decimals_offset: 0 }, 18),
    ] {
        let base = vault(rule, decimals).expect("vault deploys");
        let stats = Stats::default();
        check(128, case(), |c| vault_differential(&base, rule, c, &stats));
        stats.report("erc-4626 exact out");
        stats.expect_at_least("mint", 60);
        stats.expect_at_least("withdraw", 60);
    }
}

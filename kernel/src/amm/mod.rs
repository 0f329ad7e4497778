//! Exact pool math: one integer implementation per pool kind, matching its
//! contract's arithmetic and rounding, plus an `f64` shadow quote per kind
//! that only guides the search.
//!
//! [`Pool::swap_exact_in`] takes `&self` and returns the output together with
//! the pool's state after the trade, so a path that meets the same pool
//! twice, or the legs of a split, can see the earlier leg's effect. Quoting
//! never mutates a pool.
//!
//! Balancer V2 weighted pools quote with the current (solidity-utils 4.0.0)
//! `powUp`; pools of the first 2021 deployments round their 50/50 and 80/20
//! powers differently, see [`weighted`].

mod error;
pub mod exact_out;
pub mod full_math;
pub(crate) mod shadow;
pub use shadow::Quick;
pub mod stableswap;
pub mod uniswap_v2;
pub mod uniswap_v3;
pub mod vault;
pub mod weighted;

use alloy_primitives::{U128, U256};
pub use error::{AmmError, PositionError};
pub use exact_out::{SwapIn, exact_output_native};

use crate::pool::{
    LendingState, Pool, PoolState, StableswapState, StakingState, V2LpState, V3State, VaultState,
    WeightedState,
};

/// Gas estimates per step kind (until execution measures them).
pub mod gas {
    /// Uniswap V2 pair: transfer in, `swap`.
    pub const UNISWAP_V2: u64 = 90_000;
    /// One coin into a pair's liquidity through Router02: the sale, then
    /// `addLiquidity` (two transfers and the mint), with the approvals.
    pub const UNISWAP_V2_ZAP_IN: u64 = 230_000;
    /// A pair's liquidity out into one coin through Router02:
    /// `removeLiquidity` (the burn, two transfers), then the sale.
    pub const UNISWAP_V2_ZAP_OUT: u64 = 200_000;
    /// Router02's `addLiquidity` of both coins (two transfers, the mint).
    pub const UNISWAP_V2_ADD_LIQUIDITY: u64 = 150_000;
    /// Uniswap V3 swap, before tick crossings.
    pub const UNISWAP_V3: u64 = 110_000;
    /// Each initialized tick crossed.
    pub const UNISWAP_V3_PER_TICK: u64 = 25_000;
    /// Curve `exchange`.
    pub const STABLESWAP: u64 = 140_000;
    /// Curve `add_liquidity` of one coin (two `get_D` and the LP mint).
    pub const STABLESWAP_ADD_LIQUIDITY: u64 = 210_000;
    /// Curve `remove_liquidity_one_coin` (two `get_y_D`, the burn, the
    /// transfer).
    pub const STABLESWAP_REMOVE_ONE: u64 = 180_000;
    /// ERC-4626 deposit or redeem.
    pub const VAULT: u64 = 100_000;
    /// Lending supply or withdraw.
    pub const LENDING: u64 = 170_000;
    /// Liquid staking deposit or wrap.
    pub const STAKING: u64 = 90_000;
    /// WETH deposit or withdraw.
    pub const WRAP: u64 = 40_000;
    /// Balancer V2 weighted pool swap through the Vault.
    pub const WEIGHTED: u64 = 120_000;
    /// A Balancer join of one coin through the Vault: the user data
    /// encoded by Enso's `BalancerHelpers`, the approval, `joinPool` (two
    /// invariants, the mint) and the measurement of the BPT minted.
    pub const WEIGHTED_JOIN: u64 = 200_000;
    /// A Balancer exit into one coin: the user data, `exitPool` (two
    /// invariants, the burn, the transfer) and the measurement.
    pub const WEIGHTED_EXIT: u64 = 180_000;
}

impl PoolState {
    /// Gas of one step through a pool of this kind, before anything that
    /// depends on the trade (V3 tick crossings): what an exact swap reports
    /// and what the search estimates a path at before simulating it.
    pub const fn base_gas(&self) -> u64 {
        match self {
            Self::UniswapV2 { .. } | Self::UniswapV2Lp(_) => gas::UNISWAP_V2,
            Self::UniswapV3(_) => gas::UNISWAP_V3,
            Self::Stableswap(_) => gas::STABLESWAP,
            Self::Weighted(_) => gas::WEIGHTED,
            Self::Erc4626(_) => gas::VAULT,
            Self::Lending(_) => gas::LENDING,
            Self::LiquidStaking(_) => gas::STAKING,
            Self::Wrap => gas::WRAP,
        }
    }
}

/// An exact trade through one pool.
#[derive(Debug, Clone, PartialEq)]
pub struct Swap {
    /// Output, raw units of the output token.
    pub amount_out: U256,
    /// Gas estimate of the step.
    pub gas: u64,
    /// The pool's state after the trade.
    pub next: PoolState,
}

/// A concentrated-liquidity position minted ([`Pool::v3_mint`]).
#[derive(Debug, Clone, PartialEq)]
pub struct V3Mint {
    /// The position's liquidity.
    pub liquidity: u128,
    /// What the pool took of token0 and token1.
    pub taken: [U256; 2],
    /// The pool's state after the mint.
    pub next: PoolState,
}

/// Liquidity removed from a concentrated-liquidity position
/// ([`Pool::v3_burn`]).
#[derive(Debug, Clone, PartialEq)]
pub struct V3Burn {
    /// What the pool owes the position for it, token0 and token1 (what
    /// `decreaseLiquidity` returns and `collect` can then take).
    pub owed: [U256; 2],
    /// The pool's state after the burn.
    pub next: PoolState,
}

/// A V3 pool's state after a position over `[lower, upper)` changed by
/// `delta` liquidity (positive minted, negative burned): the lower tick's
/// net by `delta`, the upper's by `-delta` (a tick not listed is added),
/// and the active liquidity by `delta` when the range holds the current
/// tick.
fn v3_booked(
    v3: &V3State,
    (lower, upper): (i32, i32),
    delta: i128,
) -> Result<PoolState, PositionError> {
    let mut ticks = v3.ticks.to_vec();
    for (t, net) in [(lower, delta), (upper, -delta)] {
        match ticks.binary_search_by_key(&t, |(i, _)| *i) {
            Ok(k) => ticks[k].1 = ticks[k].1.checked_add(net).ok_or(PositionError::TooMuch)?,
            Err(k) => ticks.insert(k, (t, net)),
        }
    }
    let active = if lower <= v3.tick && v3.tick < upper {
        v3.liquidity.checked_add_signed(delta).ok_or(PositionError::TooMuch)?
    } else {
        v3.liquidity
    };
    let ticks = crate::TickList::from(ticks);
    Ok(PoolState::UniswapV3(Box::new(V3State {
        liquidity: active,
        range: crate::RangeHint::of(v3.tick, &ticks),
        ticks,
        ..v3.clone()
    })))
}

fn add(a: U256, b: U256) -> Result<U256, AmmError> {
    a.checked_add(b).ok_or(AmmError::InvalidState)
}

fn sub(a: U256, b: U256) -> Result<U256, AmmError> {
    a.checked_sub(b).ok_or(AmmError::InvalidState)
}

/// A pair in `state` (its liquidity token listed or not) after
/// `amount_in` of coin `i` came into its reserves `r` and `amount_out` of
/// coin `j` left; a reserve past `uint112` is refused (the pair would
/// revert). The liquidity token's supply and `kLast` stay: a swap moves
/// neither.
pub(crate) fn v2_after(
    state: &PoolState,
    mut r: [U256; 2],
    i: usize,
    j: usize,
    amount_in: U256,
    amount_out: U256,
) -> Result<PoolState, AmmError> {
    r[i] = add(r[i], amount_in)?;
    r[j] = sub(r[j], amount_out)?;
    state.v2_with(r, None).ok_or(AmmError::InsufficientLiquidity)
}

/// An exact-in swap between the two coins of a pair in `state`, whose
/// reserves and fee are `reserves` and `fee_bps`.
fn v2_swap(
    state: &PoolState,
    reserves: &[U128; 2],
    fee_bps: u32,
    i: usize,
    j: usize,
    amount_in: U256,
) -> Result<Swap, AmmError> {
    let r = [U256::from(reserves[0]), U256::from(reserves[1])];
    let out = uniswap_v2::amount_out(amount_in, r[i], r[j], fee_bps)?;
    let next = v2_after(state, r, i, j, amount_in, out)?;
    Ok(Swap { amount_out: out, gas: gas::UNISWAP_V2, next })
}

/// A pair whose liquidity token is listed, and its reserves widened.
fn v2_lp_parts(state: &PoolState) -> Result<(&V2LpState, [U256; 2]), AmmError> {
    match state {
        PoolState::UniswapV2Lp(p) => {
            Ok((p, [U256::from(p.reserves[0]), U256::from(p.reserves[1])]))
        }
        _ => Err(AmmError::Unsupported),
    }
}

/// A V3 pool's moving part.
pub(crate) const fn v3_slot(v3: &V3State) -> uniswap_v3::V3Slot {
    uniswap_v3::V3Slot { sqrt_price_x96: v3.sqrt_price_x96, tick: v3.tick, liquidity: v3.liquidity }
}

/// A V3 pool's state with `slot` after a swap (its ticks as they were).
pub(crate) fn v3_after(v3: &V3State, slot: uniswap_v3::V3Slot) -> PoolState {
    PoolState::UniswapV3(Box::new(V3State {
        sqrt_price_x96: slot.sqrt_price_x96,
        liquidity: slot.liquidity,
        tick: slot.tick,
        fee: v3.fee,
        tick_spacing: v3.tick_spacing,
        ticks: v3.ticks.clone(),
        range: crate::pool::RangeHint::of(slot.tick, &v3.ticks),
    }))
}

/// A weighted pool's state after `amount_in` of token `i` came in and
/// `amount_out` of token `j` left (the Vault books the whole input).
pub(crate) fn weighted_after(
    w: &WeightedState,
    i: usize,
    j: usize,
    amount_in: U256,
    amount_out: U256,
) -> Result<PoolState, AmmError> {
    let mut b = w.balances.clone();
    let (bi, bj) = (b.get(i).copied(), b.get(j).copied());
    let (Some(bi), Some(bj)) = (bi, bj) else { return Err(AmmError::InvalidState) };
    b[i] = add(bi, amount_in)?;
    b[j] = sub(bj, amount_out)?;
    Ok(PoolState::Weighted(Box::new(WeightedState { balances: b, ..w.clone() })))
}

impl Pool {
    /// Refuses a trade between one token and itself or a token the pool
    /// lacks (`Unsupported`), and a trade of nothing.
    pub(crate) fn check_trade(&self, i: usize, j: usize, amount: U256) -> Result<(), AmmError> {
        let n = self.tokens.len();
        if i == j || i >= n || j >= n {
            return Err(AmmError::Unsupported);
        }
        if amount.is_zero() {
            return Err(AmmError::InsufficientLiquidity);
        }
        Ok(())
    }

    /// The two sides of a weighted swap from `i` to `j`: balance, decimals
    /// and weight of each.
    pub(crate) fn weighted_sides(
        &self,
        w: &WeightedState,
        i: usize,
        j: usize,
    ) -> Result<[(U256, u8, U256); 2], AmmError> {
        let side = |k: usize| -> Result<(U256, u8, U256), AmmError> {
            Ok((
                w.balances.get(k).copied().ok_or(AmmError::InvalidState)?,
                self.decimals().get(k).copied().ok_or(AmmError::InvalidState)?,
                w.weights.get(k).copied().ok_or(AmmError::InvalidState)?,
            ))
        };
        Ok([side(i)?, side(j)?])
    }

    /// A tokenized Curve pool's `add_liquidity(amounts, 0)` from `state`:
    /// the LP tokens minted (`amount_out`) and the state after (its supply
    /// grown by them). `amounts` holds one amount per coin, pool order.
    pub fn curve_add_liquidity(
        &self,
        state: &PoolState,
        amounts: &[U256],
    ) -> Result<Swap, AmmError> {
        let (st, rates, params, supply) = self.curve_lp_parts(state)?;
        let a = stableswap::add_liquidity(&st.balances, &rates, params, supply, amounts)?;
        Ok(Swap {
            amount_out: a.mint,
            gas: gas::STABLESWAP_ADD_LIQUIDITY,
            next: PoolState::Stableswap(Box::new(StableswapState {
                balances: a.balances,
                lp_supply: Some(add(supply, a.mint)?),
                ..st.clone()
            })),
        })
    }

    /// A tokenized Curve pool's `remove_liquidity(amount, [0; N])` from
    /// `state`: what each coin pays, pool order, and the state after.
    pub fn curve_remove_liquidity(
        &self,
        state: &PoolState,
        amount: U256,
    ) -> Result<(Vec<U256>, PoolState), AmmError> {
        let (st, _, _, supply) = self.curve_lp_parts(state)?;
        let paid = stableswap::remove_liquidity(&st.balances, supply, amount)?;
        let balances =
            st.balances.iter().zip(&paid).map(|(b, p)| sub(*b, *p)).collect::<Result<_, _>>()?;
        let next = PoolState::Stableswap(Box::new(StableswapState {
            balances,
            lp_supply: Some(sub(supply, amount)?),
            ..st.clone()
        }));
        Ok((paid, next))
    }

    /// A tokenized Curve pool's `remove_liquidity_one_coin(amount, j, 0)`
    /// from `state`: coin `j` paid, and the state after (the admin's share
    /// of the fee out of the balance, the supply less `amount`).
    fn curve_remove_one_coin(
        &self,
        state: &PoolState,
        amount: U256,
        j: usize,
    ) -> Result<Swap, AmmError> {
        let (st, rates, params, supply) = self.curve_lp_parts(state)?;
        let r =
            stableswap::remove_liquidity_one_coin(&st.balances, &rates, params, supply, amount, j)?;
        let mut balances = st.balances.clone();
        balances[j] = sub(sub(balances[j], r.dy)?, r.admin_fee)?;
        Ok(Swap {
            amount_out: r.dy,
            gas: gas::STABLESWAP_REMOVE_ONE,
            next: PoolState::Stableswap(Box::new(StableswapState {
                balances,
                lp_supply: Some(sub(supply, amount)?),
                ..st.clone()
            })),
        })
    }

    /// One coin into a Balancer pool's BPT (its last token): a join of
    /// `EXACT_TOKENS_IN_FOR_BPT_OUT` with the other coins at zero; or BPT
    /// out into one coin, an exit of `EXACT_BPT_IN_FOR_ONE_TOKEN_OUT`.
    fn weighted_join_exit(
        &self,
        state: &PoolState,
        i: usize,
        j: usize,
        amount_in: U256,
    ) -> Result<Swap, AmmError> {
        let (w, coins, supply) = self.balancer_parts(state)?;
        let n = w.balances.len();
        if j == n {
            let mut amounts = vec![U256::ZERO; n];
            *amounts.get_mut(i).ok_or(AmmError::Unsupported)? = amount_in;
            return self.balancer_join(state, &amounts);
        }
        let paid = weighted::exit_exact_bpt_in(w.pow_rule, coins, supply, amount_in, j)?;
        if paid.is_zero() {
            return Err(AmmError::InsufficientLiquidity);
        }
        let mut balances = w.balances.clone();
        balances[j] = sub(balances[j], paid)?;
        Ok(Swap {
            amount_out: paid,
            gas: gas::WEIGHTED_EXIT,
            next: PoolState::Weighted(Box::new(WeightedState {
                balances,
                bpt_supply: Some(sub(supply, amount_in)?),
                ..w.clone()
            })),
        })
    }

    /// A Balancer pool's state, its coins as its joins and exits read them,
    /// and its BPT supply; `Unsupported` unless the BPT is listed.
    fn balancer_parts<'s>(
        &'s self,
        state: &'s PoolState,
    ) -> Result<(&'s WeightedState, weighted::Coins<'s>, U256), AmmError> {
        let (PoolState::Weighted(w), Some(n)) = (state, self.lp_index()) else {
            return Err(AmmError::Unsupported);
        };
        let supply = w.bpt_supply.ok_or(AmmError::Unsupported)?;
        let coins = weighted::Coins {
            balances: &w.balances,
            decimals: self.decimals().get(..n).ok_or(AmmError::InvalidState)?,
            weights: &w.weights,
            swap_fee: w.swap_fee,
        };
        Ok((w, coins, supply))
    }

    /// A Balancer join of `EXACT_TOKENS_IN_FOR_BPT_OUT` with `amounts`
    /// (one per coin, pool order) from `state`: the BPT minted
    /// (`amount_out`, refused when nothing) and the state after (the Vault
    /// books every amount whole; the fee stays in the pool).
    pub fn balancer_join(&self, state: &PoolState, amounts: &[U256]) -> Result<Swap, AmmError> {
        let (w, coins, supply) = self.balancer_parts(state)?;
        let minted = weighted::join_exact_tokens_in(w.pow_rule, coins, supply, amounts)?;
        if minted.is_zero() {
            return Err(AmmError::InsufficientLiquidity);
        }
        let balances =
            w.balances.iter().zip(amounts).map(|(b, a)| add(*b, *a)).collect::<Result<_, _>>()?;
        Ok(Swap {
            amount_out: minted,
            gas: gas::WEIGHTED_JOIN,
            next: PoolState::Weighted(Box::new(WeightedState {
                balances,
                bpt_supply: Some(add(supply, minted)?),
                ..w.clone()
            })),
        })
    }

    /// A Balancer exit of `EXACT_BPT_IN_FOR_TOKENS_OUT` burning `amount`
    /// BPT from `state`: every coin paid in proportion (pool order), and
    /// the state after.
    pub fn balancer_exit_proportional(
        &self,
        state: &PoolState,
        amount: U256,
    ) -> Result<(Vec<U256>, PoolState), AmmError> {
        let (w, coins, supply) = self.balancer_parts(state)?;
        let paid = weighted::exit_exact_bpt_in_for_tokens(coins, supply, amount)?;
        let balances =
            w.balances.iter().zip(&paid).map(|(b, p)| sub(*b, *p)).collect::<Result<_, _>>()?;
        let next = PoolState::Weighted(Box::new(WeightedState {
            balances,
            bpt_supply: Some(sub(supply, amount)?),
            ..w.clone()
        }));
        Ok((paid, next))
    }

    /// One coin into the liquidity token of a pair in `p` (index 2,
    /// [`uniswap_v2::zap_in`], with the part of it sold), or the token out
    /// into one coin ([`uniswap_v2::zap_out`]).
    fn v2_zap(
        &self,
        from: &PoolState,
        p: &V2LpState,
        i: usize,
        j: usize,
        amount_in: U256,
    ) -> Result<(Swap, Option<U256>), AmmError> {
        let r = [U256::from(p.reserves[0]), U256::from(p.reserves[1])];
        let state = |reserves: [U256; 2], liquidity| {
            from.v2_with(reserves, Some(liquidity)).ok_or(AmmError::InsufficientLiquidity)
        };
        match (i, j) {
            (0 | 1, 2) => {
                let z = uniswap_v2::zap_in(amount_in, i, r, p.fee_bps, p.liquidity)?;
                let swap = Swap {
                    amount_out: z.minted.amount,
                    gas: gas::UNISWAP_V2_ZAP_IN,
                    next: state(z.minted.reserves, z.minted.liquidity)?,
                };
                Ok((swap, Some(z.swap)))
            }
            (2, 0 | 1) => {
                let z = uniswap_v2::zap_out(amount_in, j, r, p.fee_bps, p.liquidity)?;
                let swap = Swap {
                    amount_out: z.amount_out,
                    gas: gas::UNISWAP_V2_ZAP_OUT,
                    next: state(z.reserves, z.burned.liquidity)?,
                };
                Ok((swap, None))
            }
            _ => Err(AmmError::Unsupported),
        }
    }

    /// Router02's `addLiquidity(token0, token1, ..)` of both coins
    /// (`desired`, pool order) into this pair from `state`: what it takes
    /// of each, the liquidity minted (`amount_out`) and the state after.
    pub fn v2_add_liquidity(
        &self,
        state: &PoolState,
        desired: [U256; 2],
    ) -> Result<([U256; 2], Swap), AmmError> {
        let (p, r) = v2_lp_parts(state)?;
        let (taken, m) = uniswap_v2::add_liquidity(desired, 0, r, p.liquidity)?;
        let next =
            state.v2_with(m.reserves, Some(m.liquidity)).ok_or(AmmError::InsufficientLiquidity)?;
        Ok((taken, Swap { amount_out: m.amount, gas: gas::UNISWAP_V2_ADD_LIQUIDITY, next }))
    }

    /// `NonfungiblePositionManager.mint` of a position over `[lower,
    /// upper)` in this Uniswap V3 pool from `state`, with `desired` of
    /// token0 and token1: the liquidity the periphery computes at the
    /// current price, what the pool's `mint` takes of each for it (rounded
    /// up), and the state after (both ticks booked, the active liquidity
    /// raised when the range holds the current tick). What is not taken
    /// stays with the payer.
    pub fn v3_mint(
        &self,
        state: &PoolState,
        (lower, upper): (i32, i32),
        desired: [U256; 2],
    ) -> Result<V3Mint, PositionError> {
        let PoolState::UniswapV3(v3) = state else {
            return Err(PositionError::NotConcentrated);
        };
        let spacing = v3.tick_spacing;
        if spacing <= 0
            || lower >= upper
            || lower < uniswap_v3::MIN_TICK
            || upper > uniswap_v3::MAX_TICK
            || lower % spacing != 0
            || upper % spacing != 0
        {
            return Err(PositionError::Ticks { spacing });
        }
        let (a, b) =
            (uniswap_v3::sqrt_ratio_at_tick(lower)?, uniswap_v3::sqrt_ratio_at_tick(upper)?);
        let liquidity = uniswap_v3::liquidity_for_amounts(v3.sqrt_price_x96, a, b, desired)?;
        if liquidity == 0 {
            return Err(PositionError::NoLiquidity);
        }
        // Each tick's gross is at least its net's magnitude; the pool
        // checks the gross after the mint against the per-tick cap.
        let cap = uniswap_v3::max_liquidity_per_tick(spacing);
        let net_at =
            |t: i32| v3.ticks.binary_search_by_key(&t, |(i, _)| *i).map_or(0, |k| v3.ticks[k].1);
        for t in [lower, upper] {
            if net_at(t).unsigned_abs().saturating_add(liquidity) > cap {
                return Err(PositionError::TooMuch);
            }
        }
        let taken = uniswap_v3::mint_amounts(
            v3.sqrt_price_x96,
            v3.tick,
            (lower, upper),
            (a, b),
            liquidity,
        )?;
        let signed = i128::try_from(liquidity).map_err(|_| PositionError::TooMuch)?;
        let next = v3_booked(v3, (lower, upper), signed)?;
        Ok(V3Mint { liquidity, taken, next })
    }

    /// `NonfungiblePositionManager.decreaseLiquidity` of `liquidity` from a
    /// position over `[lower, upper)` in this Uniswap V3 pool (whose ticks
    /// and active liquidity include it) from `state`: what the pool's
    /// `burn` owes for it (rounded down) and the state after (both ticks'
    /// net reduced, the active liquidity lowered when the range holds the
    /// current tick).
    pub fn v3_burn(
        &self,
        state: &PoolState,
        (lower, upper): (i32, i32),
        liquidity: u128,
    ) -> Result<V3Burn, PositionError> {
        let PoolState::UniswapV3(v3) = state else {
            return Err(PositionError::NotConcentrated);
        };
        let spacing = v3.tick_spacing;
        if lower >= upper || lower < uniswap_v3::MIN_TICK || upper > uniswap_v3::MAX_TICK {
            return Err(PositionError::Ticks { spacing });
        }
        if liquidity == 0 {
            return Err(PositionError::NoLiquidity);
        }
        let (a, b) =
            (uniswap_v3::sqrt_ratio_at_tick(lower)?, uniswap_v3::sqrt_ratio_at_tick(upper)?);
        let owed = uniswap_v3::burn_amounts(
            v3.sqrt_price_x96,
            v3.tick,
            (lower, upper),
            (a, b),
            liquidity,
        )?;
        let signed = i128::try_from(liquidity).map_err(|_| PositionError::TooMuch)?;
        let next = v3_booked(v3, (lower, upper), -signed)?;
        Ok(V3Burn { owed, next })
    }

    /// Router02's `removeLiquidity` of `amount` from this pair in `state`:
    /// both coins paid, pool order, and the state after.
    pub fn v2_remove_liquidity(
        &self,
        state: &PoolState,
        amount: U256,
    ) -> Result<([U256; 2], PoolState), AmmError> {
        let (p, r) = v2_lp_parts(state)?;
        let b = uniswap_v2::burn(amount, r, p.liquidity)?;
        let next =
            state.v2_with(b.reserves, Some(b.liquidity)).ok_or(AmmError::InsufficientLiquidity)?;
        Ok((b.amount, next))
    }

    /// [`Self::swap_exact_in_from`], and for a zap into a Uniswap V2
    /// pair's liquidity token the part of the input sold for the other
    /// coin first (the program needs it; computed once with the zap).
    pub fn swap_exact_in_noting_sale(
        &self,
        state: &PoolState,
        i: usize,
        j: usize,
        amount_in: U256,
    ) -> Result<(Swap, Option<U256>), AmmError> {
        match state {
            PoolState::UniswapV2Lp(p) if self.lp_index() == Some(j) => {
                self.check_trade(i, j, amount_in)?;
                self.v2_zap(state, p, i, j, amount_in)
            }
            _ => self.swap_exact_in_from(state, i, j, amount_in).map(|s| (s, None)),
        }
    }

    /// A tokenized Curve pool's state, coin rates, parameters and supply.
    fn curve_lp_parts<'s>(
        &self,
        state: &'s PoolState,
    ) -> Result<(&'s StableswapState, Vec<U256>, stableswap::Params, U256), AmmError> {
        let (PoolState::Stableswap(st), Some(_)) = (state, self.lp_index()) else {
            return Err(AmmError::Unsupported);
        };
        let supply = st.lp_supply.ok_or(AmmError::Unsupported)?;
        let (rates, params) = self.stableswap_math(st)?;
        Ok((st, rates, params, supply))
    }

    /// A StableSwap state's coin rates (`10^(36 - decimals)`) and
    /// parameters, as its math takes them.
    fn stableswap_math(
        &self,
        st: &StableswapState,
    ) -> Result<(Vec<U256>, stableswap::Params), AmmError> {
        let rates = self
            .decimals()
            .get(..st.balances.len())
            .ok_or(AmmError::InvalidState)?
            .iter()
            .map(|d| stableswap::rate_for_decimals(*d))
            .collect::<Result<Vec<_>, _>>()?;
        let params = stableswap::Params {
            amp: st.amp,
            a_precision: st.a_precision,
            fee: st.fee,
            admin_fee: st.admin_fee,
        };
        Ok((rates, params))
    }

    /// Exact output for `amount_in` of token `i` into token `j`.
    pub fn swap_exact_in(&self, i: usize, j: usize, amount_in: U256) -> Result<Swap, AmmError> {
        self.swap_exact_in_from(&self.state, i, j, amount_in)
    }

    /// [`Self::swap_exact_in`] from another state of this pool (one left by
    /// an earlier leg of the same request).
    pub fn swap_exact_in_from(
        &self,
        state: &PoolState,
        i: usize,
        j: usize,
        amount_in: U256,
    ) -> Result<Swap, AmmError> {
        self.check_trade(i, j, amount_in)?;
        let base = state.base_gas();
        match state {
            PoolState::UniswapV2 { reserves, fee_bps } => {
                v2_swap(state, reserves, *fee_bps, i, j, amount_in)
            }
            PoolState::UniswapV2Lp(p) if i < 2 && j < 2 => {
                v2_swap(state, &p.reserves, p.fee_bps, i, j, amount_in)
            }
            PoolState::UniswapV2Lp(p) => self.v2_zap(state, p, i, j, amount_in).map(|(s, _)| s),
            PoolState::UniswapV3(v3) => {
                let (fee, spacing) = (v3.fee, v3.tick_spacing);
                let s = uniswap_v3::swap_exact_in(
                    v3_slot(v3),
                    &v3.ticks,
                    spacing,
                    fee,
                    i == 0,
                    amount_in,
                )?;
                if s.amount_out.is_zero() {
                    return Err(AmmError::InsufficientLiquidity);
                }
                Ok(Swap {
                    amount_out: s.amount_out,
                    gas: base + gas::UNISWAP_V3_PER_TICK * u64::from(s.ticks_crossed),
                    next: v3_after(v3, s.slot),
                })
            }
            PoolState::Stableswap(st) => {
                let n = st.balances.len();
                // The LP token, when the pool lists one, is index `n`: a
                // deposit of one coin or a withdrawal into one.
                match self.lp_index().filter(|lp| *lp == i || *lp == j) {
                    Some(lp) if j == lp => {
                        let mut amounts = vec![U256::ZERO; n];
                        amounts[i] = amount_in;
                        return self.curve_add_liquidity(state, &amounts);
                    }
                    Some(_) => return self.curve_remove_one_coin(state, amount_in, j),
                    None if i >= n || j >= n => return Err(AmmError::Unsupported),
                    None => {}
                }
                let (rates, params) = self.stableswap_math(st)?;
                let x = stableswap::exchange(&st.balances, &rates, params, i, j, amount_in)?;
                let (out, admin) = (x.dy, x.admin_fee);
                let mut b = st.balances.clone();
                b[i] = add(b[i], amount_in)?;
                b[j] = sub(sub(b[j], out)?, admin)?;
                let next = StableswapState { balances: b, ..(**st).clone() };
                Ok(Swap { amount_out: out, gas: base, next: PoolState::Stableswap(Box::new(next)) })
            }
            PoolState::Weighted(_) if self.lp_index().is_some_and(|lp| lp == i || lp == j) => {
                self.weighted_join_exit(state, i, j, amount_in)
            }
            PoolState::Weighted(w) => {
                let [(bi, di, wi), (bo, d_out, wo)] = self.weighted_sides(w, i, j)?;
                let out = weighted::out_given_in(
                    w.pow_rule, bi, di, wi, bo, d_out, wo, w.swap_fee, amount_in,
                )?;
                if out.is_zero() {
                    return Err(AmmError::InsufficientLiquidity);
                }
                // The Vault books the whole amount in, fee included.
                Ok(Swap {
                    amount_out: out,
                    gas: base,
                    next: weighted_after(w, i, j, amount_in, out)?,
                })
            }
            PoolState::Erc4626(v) => {
                let VaultState { total_assets, total_supply, rule } = &**v;
                let (out, ta, ts) = if i == 0 {
                    let s = vault::vault_deposit(*rule, amount_in, *total_assets, *total_supply)?;
                    (s, add(*total_assets, amount_in)?, add(*total_supply, s)?)
                } else {
                    let a = vault::vault_redeem(*rule, amount_in, *total_assets, *total_supply)?;
                    (a, sub(*total_assets, a)?, sub(*total_supply, amount_in)?)
                };
                Ok(Swap {
                    amount_out: out,
                    gas: base,
                    next: PoolState::Erc4626(Box::new(VaultState {
                        total_assets: ta,
                        total_supply: ts,
                        rule: *rule,
                    })),
                })
            }
            PoolState::Lending(l) => {
                let LendingState { model, exchange_rate, available_liquidity } = &**l;
                let (out, avail) = if i == 0 {
                    (
                        vault::lending_supply(*model, *exchange_rate, amount_in)?,
                        add(*available_liquidity, amount_in)?,
                    )
                } else {
                    let a = vault::lending_withdraw(
                        *model,
                        *exchange_rate,
                        *available_liquidity,
                        amount_in,
                    )?;
                    (a, sub(*available_liquidity, a)?)
                };
                Ok(Swap {
                    amount_out: out,
                    gas: base,
                    next: PoolState::Lending(Box::new(LendingState {
                        model: *model,
                        exchange_rate: *exchange_rate,
                        available_liquidity: avail,
                    })),
                })
            }
            PoolState::LiquidStaking(st) => {
                let StakingState { total_pooled_asset, total_shares, rebasing } = &**st;
                if i == 0 {
                    let out =
                        vault::stake(amount_in, *total_pooled_asset, *total_shares, *rebasing)?;
                    let (pooled, shares) = if *rebasing {
                        // A deposit mints shares at the ratio before it;
                        // `out` reads them at the totals after it.
                        let minted =
                            vault::stake(amount_in, *total_pooled_asset, *total_shares, false)?;
                        (add(*total_pooled_asset, amount_in)?, add(*total_shares, minted)?)
                    } else {
                        // Wrapping moves existing shares: the totals stay.
                        (*total_pooled_asset, *total_shares)
                    };
                    Ok(Swap {
                        amount_out: out,
                        gas: base,
                        next: PoolState::LiquidStaking(Box::new(StakingState {
                            total_pooled_asset: pooled,
                            total_shares: shares,
                            rebasing: *rebasing,
                        })),
                    })
                } else if !*rebasing {
                    let out =
                        vault::unstake_wrapped(amount_in, *total_pooled_asset, *total_shares)?;
                    Ok(Swap { amount_out: out, gas: base, next: state.clone() })
                } else {
                    // Leaving a rebasing stake goes through a withdrawal queue.
                    Err(AmmError::Unsupported)
                }
            }
            PoolState::Wrap => Ok(Swap { amount_out: amount_in, gas: base, next: PoolState::Wrap }),
        }
    }
}

//! The `f64` "shadow" quotes that guide the search: one per pool kind, the
//! same curve as the exact math in floating point, 10–100× cheaper. They
//! order candidates and size split allocations; no amount the kernel returns
//! comes from them.
//!
//! The concentrated-liquidity shadow walks the initialized ticks (crossing
//! each with its `liquidityNet`), and the StableSwap shadow solves the
//! invariant by Newton's method, so large trades are priced with their real
//! slippage rather than at the spot rate. A trade the pool cannot absorb
//! whole quotes `0.0`.

use alloy_primitives::U256;

use crate::pool::{Pool, PoolState, TickList, u128_to_f64, u256_to_f64};

const Q96: f64 = 79_228_162_514_264_337_593_543_950_336.0;

/// Most coins a StableSwap shadow solves for.
const MAX_COINS: usize = 8;

/// `x` as `f64` from its two 64-bit halves: two hardware conversions instead
/// of the software 128-bit one (the last bit may round differently; this is
/// a shadow).
fn i128_to_f64(x: i128) -> f64 {
    ((x >> 64) as i64 as f64) * 18_446_744_073_709_551_616.0 + (x as u64 as f64)
}

/// Exact-in through concentrated liquidity in `f64`: token0 in when
/// `zero_for_one`. `s` is `sqrtPriceX96 / 2^96`. With the state's valid
/// [`crate::pool::RangeHint`] (`(at, below, above)`), a trade that stays in
/// the current range never reads the tick list; the answer is the same.
#[allow(clippy::too_many_arguments)]
fn v3_out(
    s: f64,
    liquidity: u128,
    tick: i32,
    ticks: &TickList,
    hint: Option<(usize, f64, f64)>,
    keep: f64,
    zero_for_one: bool,
    amount_in: f64,
) -> f64 {
    // Liquidity stays an integer: crossing ticks in f64 would cancel large
    // nets into noise.
    let Ok(mut li) = i128::try_from(liquidity) else { return 0.0 };
    let mut s = s;
    let mut x = amount_in * keep;
    let mut out = 0.0;
    // Initialized ticks at or below the current one.
    let mut k = match hint {
        Some((at, ..)) => at,
        None => ticks.partition_point(|(t, _)| *t <= tick),
    };
    // The current range's bound on the side the price moves to, from the
    // hint; every later one from the list.
    let mut first = hint.map(|(_, below, above)| if zero_for_one { below } else { above });
    if zero_for_one {
        // Nearest first, down.
        loop {
            let bound = first.take().unwrap_or_else(|| match k.checked_sub(1) {
                Some(p) => ticks.sqrt_prices()[p],
                None => 0.0,
            });
            let l = i128_to_f64(li);
            if li > 0 {
                let need = l * (1.0 / bound - 1.0 / s);
                if x <= need || bound <= 0.0 {
                    // l·(s − s'), with 1/s' = 1/s + x/l, in a form that keeps
                    // its precision when x is tiny next to l.
                    let r = s * x / l;
                    return out + s * s * x / (1.0 + r);
                }
                out += l * (s - bound);
                x -= need;
            }
            if k == 0 {
                return 0.0;
            }
            s = bound;
            let Some(next) = li.checked_sub(ticks[k - 1].1) else { return 0.0 };
            li = next;
            k -= 1;
        }
    } else {
        // Nearest first, up.
        loop {
            let bound = first
                .take()
                .unwrap_or_else(|| ticks.sqrt_prices().get(k).copied().unwrap_or(f64::INFINITY));
            let l = i128_to_f64(li);
            if li > 0 {
                let need = l * (bound - s);
                if x <= need {
                    // l·(1/s − 1/s'), with s' = s + x/l, likewise.
                    return out + x / (s * (s + x / l));
                }
                out += l * (1.0 / s - 1.0 / bound);
                x -= need;
            }
            let Some((_, net)) = ticks.get(k) else { return 0.0 };
            s = bound;
            let Some(next) = li.checked_add(*net) else { return 0.0 };
            li = next;
            k += 1;
        }
    }
}

/// The StableSwap invariant `D` (the pools' `Ann = A·n` convention) by
/// Newton's method; `None` if it does not converge.
pub(crate) fn stableswap_d(x: &[f64], amp: f64) -> Option<f64> {
    let n = x.len() as f64;
    let s: f64 = x.iter().sum();
    if s <= 0.0 || x.iter().any(|v| *v <= 0.0) {
        return None;
    }
    let ann = amp * n;
    let mut d = s;
    for _ in 0..255 {
        let mut dp = d;
        for v in x {
            dp = dp * d / (v * n);
        }
        let prev = d;
        d = (ann * s + dp * n) * d / ((ann - 1.0) * d + (n + 1.0) * dp);
        if (d - prev).abs() <= 1e-12 * d {
            return Some(d);
        }
    }
    None
}

/// The balance of coin `j` that keeps `D` when the others are `x`, by
/// Newton's method from `start`. The iteration is Newton's on a convex
/// quadratic whose other root is negative: from any start above the
/// positive root it falls to it monotonically, and coin `j`'s balance
/// before the trade is such a start, a few steps away (`D` is several).
fn stableswap_y(x: &[f64], j: usize, d: f64, amp: f64, start: f64) -> Option<f64> {
    let n = x.len() as f64;
    let ann = amp * n;
    let (mut c, mut s) = (d, 0.0);
    for (k, v) in x.iter().enumerate() {
        if k != j {
            s += v;
            c = c * d / (v * n);
        }
    }
    c = c * d / (ann * n);
    let b = s + d / ann;
    let mut y = if start.is_finite() && start > 0.0 { start } else { d };
    for _ in 0..255 {
        let prev = y;
        y = (y * y + c) / (2.0 * y + b - d);
        if (y - prev).abs() <= 1e-12 * y {
            return Some(y);
        }
    }
    None
}

fn stableswap_out(
    balances: &[U256],
    decimals: &[u8],
    amp: f64,
    keep: f64,
    i: usize,
    j: usize,
    amount_in: f64,
) -> f64 {
    let n = balances.len();
    if !(2..=MAX_COINS).contains(&n) || i >= n || j >= n || decimals.len() < n {
        return 0.0;
    }
    Solved::with(&balances[..n], &decimals[..n], amp, |solved| {
        let mut x = solved.x;
        x[i] += amount_in * solved.scale[i];
        let y = stableswap_y(&x[..n], j, solved.d, amp, solved.x[j])?;
        Some(((x[j] - y) * keep / solved.scale[j]).max(0.0))
    })
    .flatten()
    .unwrap_or(0.0)
}

/// A trade through a pair whose liquidity token is listed, in `f64`: a
/// swap, or the zaps' steps (the sale at the constant-product balance,
/// then the mint; the burn, then the sale), the protocol's fee share left
/// out.
fn v2_lp_out(p: &crate::pool::V2LpState, i: usize, j: usize, amount: f64) -> f64 {
    let r = [u128_to_f64(p.reserves[0]), u128_to_f64(p.reserves[1])];
    let supply = u256_to_f64(p.liquidity.supply);
    let g = 1.0 - f64::from(p.fee_bps) / 1e4;
    let sell = |x: f64, r_in: f64, r_out: f64| r_out * x * g / (r_in + x * g);
    if r[0] <= 0.0 || r[1] <= 0.0 || supply <= 0.0 {
        return 0.0;
    }
    match (i, j) {
        (0 | 1, 0 | 1) => sell(amount, r[i], r[j]),
        (0 | 1, 2) => {
            let ri = r[i];
            let s = ((ri * ((1.0 + g) * (1.0 + g) * ri + 4.0 * g * amount)).sqrt()
                - (1.0 + g) * ri)
                / (2.0 * g);
            (supply * (amount - s) / (ri + s)).max(0.0)
        }
        (2, 0 | 1) => {
            let o = 1 - j;
            let share = (amount / supply).min(1.0);
            let (paid_j, paid_o) = (r[j] * share, r[o] * share);
            paid_j + sell(paid_o, r[o] - paid_o, r[j] - paid_j)
        }
        _ => 0.0,
    }
}

/// A one-coin deposit (`j` the LP token, index `n`) or withdrawal (`i`
/// the LP token) in `f64`: the same steps as the exact math (`D0`, `D1`,
/// the imbalance fee on each coin's distance from its proportional share,
/// `D2` or the second `y`), on the solved state.
fn stableswap_lp_out(
    st: &crate::pool::StableswapState,
    decimals: &[u8],
    i: usize,
    j: usize,
    amount_in: f64,
) -> f64 {
    let n = st.balances.len();
    let Some(supply) = st.lp_supply.map(u256_to_f64) else { return 0.0 };
    if !(2..=MAX_COINS).contains(&n) || decimals.len() <= n || supply <= 0.0 {
        return 0.0;
    }
    let amp = u256_to_f64(st.amp) / u256_to_f64(st.a_precision).max(1.0);
    let fee = u256_to_f64(st.fee) / 1e10 * n as f64 / (4.0 * (n as f64 - 1.0));
    Solved::with(&st.balances, &decimals[..n], amp, |solved| {
        let (x0, d0) = (&solved.x[..n], solved.d);
        if j == n && i < n {
            let mut x = solved.x;
            x[i] += amount_in * solved.scale[i];
            let d1 = stableswap_d(&x[..n], amp)?;
            for k in 0..n {
                let ideal = d1 / d0 * x0[k];
                x[k] -= fee * (ideal - x[k]).abs();
            }
            let d2 = stableswap_d(&x[..n], amp)?;
            Some((supply * (d2 - d0) / d0).max(0.0))
        } else if i == n && j < n {
            // LP tokens are raw units of the supply: the share is unitless.
            let d1 = d0 * (1.0 - amount_in / supply);
            if d1 <= 0.0 {
                return None;
            }
            let new_y = stableswap_y(x0, j, d1, amp, x0[j])?;
            let mut reduced = solved.x;
            for k in 0..n {
                let expected =
                    if k == j { x0[k] * d1 / d0 - new_y } else { x0[k] - x0[k] * d1 / d0 };
                reduced[k] -= fee * expected;
            }
            let y = stableswap_y(&reduced[..n], j, d1, amp, new_y)?;
            Some(((reduced[j] - y) / solved.scale[j]).max(0.0))
        } else {
            None
        }
    })
    .flatten()
    .unwrap_or(0.0)
}

/// A StableSwap state's balances in 18-decimal `f64` and its invariant
/// `D`: a pure function of the balances, decimals and amplification, which
/// the search asks for at many amounts through the same pool (a split's
/// water-filling prices each chunk). The last few solved are kept per
/// thread, keyed by those values themselves, so no answer can be stale.
#[derive(Debug, Clone, Copy)]
struct Solved {
    n: usize,
    balances: [U256; MAX_COINS],
    decimals: [u8; MAX_COINS],
    amp: u64,
    x: [f64; MAX_COINS],
    scale: [f64; MAX_COINS],
    d: f64,
}

/// States kept per thread.
const SOLVED_KEPT: usize = 8;

thread_local! {
    /// The states solved last, and the place the next one takes.
    static SOLVED: std::cell::RefCell<([Option<Solved>; SOLVED_KEPT], usize)> =
        const { std::cell::RefCell::new(([None; SOLVED_KEPT], 0)) };
}

impl Solved {
    /// `f` of the state's solve: the one kept, or a new one (kept in place
    /// of the oldest); `None` if `D` does not converge.
    fn with<R>(
        balances: &[U256],
        decimals: &[u8],
        amp: f64,
        f: impl FnOnce(&Self) -> R,
    ) -> Option<R> {
        let n = balances.len();
        SOLVED.with(|c| {
            let mut c = c.borrow_mut();
            let (kept, next) = &mut *c;
            let at = kept.iter().position(|s| {
                s.as_ref().is_some_and(|s| {
                    s.n == n
                        && s.amp == amp.to_bits()
                        && s.balances[..n] == *balances
                        && s.decimals[..n] == *decimals
                })
            });
            let at = match at {
                Some(at) => at,
                None => {
                    let mut solved = Self {
                        n,
                        balances: [U256::ZERO; MAX_COINS],
                        decimals: [0; MAX_COINS],
                        amp: amp.to_bits(),
                        x: [0.0; MAX_COINS],
                        scale: [0.0; MAX_COINS],
                        d: 0.0,
                    };
                    for k in 0..n {
                        solved.balances[k] = balances[k];
                        solved.decimals[k] = decimals[k];
                        solved.scale[k] = 10f64.powi(18 - i32::from(decimals[k]));
                        solved.x[k] = u256_to_f64(balances[k]) * solved.scale[k];
                    }
                    solved.d = stableswap_d(&solved.x[..n], amp)?;
                    let at = *next;
                    kept[at] = Some(solved);
                    *next = (at + 1) % SOLVED_KEPT;
                    at
                }
            };
            kept[at].as_ref().map(f)
        })
    }
}

/// A Balancer pool's join of one coin (`j` is the BPT) or exit into one
/// (`i` is): the BPT grows with the invariant, `(1 + a/b)^w`, the fee
/// taken on the part beyond the coin's weight; an exit is the inverse,
/// within `MIN_INVARIANT_RATIO`.
fn weighted_lp_out(w: &crate::pool::WeightedState, i: usize, j: usize, amount: f64) -> f64 {
    let n = w.balances.len();
    let supply = w.bpt_supply.map_or(0.0, u256_to_f64);
    let coin = |k: usize| match (w.balances.get(k), w.weights.get(k)) {
        (Some(b), Some(wt)) => Some((u256_to_f64(*b), u256_to_f64(*wt) / 1e18)),
        _ => None,
    };
    let fee = u256_to_f64(w.swap_fee) / 1e18;
    if supply <= 0.0 {
        return 0.0;
    }
    match (coin(i), coin(j)) {
        (Some((b, wt)), None) if j == n && b > 0.0 => {
            let net = amount * (1.0 - fee * (1.0 - wt));
            supply * (wt * (net / b).ln_1p()).exp_m1()
        }
        (None, Some((b, wt))) if i == n && amount < 0.3 * supply && wt > 0.0 => {
            let gross = -b * ((-amount / supply).ln_1p() / wt).exp_m1();
            gross * (1.0 - fee * (1.0 - wt))
        }
        _ => 0.0,
    }
}

/// A pool's shadow quote for the common case in one cache line, kept by
/// the snapshot's pool table beside the pool ([`crate::Pools::shadow_out`]):
/// a constant-product pair, or a concentrated-liquidity pool for a trade
/// that stays in its current range. A search prices hundreds of pools per
/// request, most of them once; on a cold cache the pool record (two lines)
/// and a V3 state behind its box (two more) cost a miss each, where this
/// costs one. [`Quick::out`] answers bit for bit what [`Pool::shadow_out`]
/// answers, or `None` where it would take more than this holds (another
/// kind, a trade leaving the range), and the pool itself is asked.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(align(64))]
pub struct Quick(QuickKind);

#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum QuickKind {
    /// Ask the pool.
    #[default]
    Full,
    /// A Uniswap V2 pair: its reserves as `f64`, its fee.
    V2 { r: [f64; 2], fee_bps: u32 },
    /// A Uniswap V3 pool with a valid range hint and liquidity in range:
    /// `s = sqrtPriceX96 / 2^96`, the liquidity as `f64`, the range's
    /// bounds, the fee.
    V3 { s: f64, l: f64, below: f64, above: f64, fee: u32 },
}

impl Quick {
    /// What `pool` holds for [`Self::out`].
    pub fn of(pool: &Pool) -> Self {
        if pool.tokens.len() != 2 {
            return Self::default();
        }
        Self(match &pool.state {
            PoolState::UniswapV2 { reserves, fee_bps } => QuickKind::V2 {
                r: [u128_to_f64(reserves[0]), u128_to_f64(reserves[1])],
                fee_bps: *fee_bps,
            },
            PoolState::UniswapV3(v3) => {
                let hint = v3.range.get(v3.tick, &v3.ticks);
                match (hint, i128::try_from(v3.liquidity)) {
                    (Some((_, below, above)), Ok(li)) if li > 0 => QuickKind::V3 {
                        s: u256_to_f64(v3.sqrt_price_x96) / Q96,
                        l: i128_to_f64(li),
                        below,
                        above,
                        fee: v3.fee,
                    },
                    _ => QuickKind::Full,
                }
            }
            _ => QuickKind::Full,
        })
    }

    /// [`Pool::shadow_out`] of the pool this was made of, when this holds
    /// enough to answer it.
    pub fn out(&self, i: usize, j: usize, amount_in: f64) -> Option<f64> {
        // `Pool::shadow_out`'s refusals, for a pool of two tokens.
        let refused = amount_in.is_nan() || amount_in <= 0.0 || i == j || i >= 2 || j >= 2;
        let out = match self.0 {
            QuickKind::Full => return None,
            _ if refused => 0.0,
            QuickKind::V2 { r, fee_bps } => {
                let (ri, rj) = (r[i], r[j]);
                let x = amount_in * (1.0 - f64::from(fee_bps) / 1e4);
                if ri > 0.0 && rj > 0.0 { rj * x / (ri + x) } else { 0.0 }
            }
            // `v3_out`'s first step, where it ends within the range.
            QuickKind::V3 { s, l, below, above, fee } => {
                let x = amount_in * (1.0 - f64::from(fee) / 1e6);
                if i == 0 {
                    let need = l * (1.0 / below - 1.0 / s);
                    if x <= need || below <= 0.0 {
                        let r = s * x / l;
                        0.0 + s * s * x / (1.0 + r)
                    } else {
                        return None;
                    }
                } else {
                    let need = l * (above - s);
                    if x <= need {
                        0.0 + x / (s * (s + x / l))
                    } else {
                        return None;
                    }
                }
            }
        };
        Some(if out.is_finite() { out.max(0.0) } else { 0.0 })
    }
}

impl Pool {
    /// Approximate output in `f64` (raw units) for `amount_in` of token `i`
    /// into token `j`, from the snapshot state; `0.0` when the pool cannot
    /// take the trade. For the search only.
    pub fn shadow_out(&self, i: usize, j: usize, amount_in: f64) -> f64 {
        if amount_in.is_nan()
            || amount_in <= 0.0
            || i == j
            || i >= self.tokens.len()
            || j >= self.tokens.len()
        {
            return 0.0;
        }
        let out = match &self.state {
            PoolState::UniswapV2 { reserves, fee_bps } => {
                let (ri, rj) = (u128_to_f64(reserves[i]), u128_to_f64(reserves[j]));
                let x = amount_in * (1.0 - f64::from(*fee_bps) / 1e4);
                if ri > 0.0 && rj > 0.0 { rj * x / (ri + x) } else { 0.0 }
            }
            PoolState::UniswapV2Lp(p) => v2_lp_out(p, i, j, amount_in),
            PoolState::UniswapV3(v3) => v3_out(
                u256_to_f64(v3.sqrt_price_x96) / Q96,
                v3.liquidity,
                v3.tick,
                &v3.ticks,
                v3.range.get(v3.tick, &v3.ticks),
                1.0 - f64::from(v3.fee) / 1e6,
                i == 0,
                amount_in,
            ),
            PoolState::Stableswap(st) if self.lp_index().is_some_and(|lp| lp == i || lp == j) => {
                stableswap_lp_out(st, self.decimals(), i, j, amount_in)
            }
            PoolState::Stableswap(st) => stableswap_out(
                &st.balances,
                self.decimals(),
                u256_to_f64(st.amp) / u256_to_f64(st.a_precision).max(1.0),
                1.0 - u256_to_f64(st.fee) / 1e10,
                i,
                j,
                amount_in,
            ),
            PoolState::Weighted(w) if self.lp_index().is_some_and(|lp| lp == i || lp == j) => {
                weighted_lp_out(w, i, j, amount_in)
            }
            PoolState::Weighted(w) => {
                let f = |v: &[U256], k: usize| v.get(k).map_or(0.0, |x| u256_to_f64(*x));
                let (bi, bo, wi, wo) =
                    (f(&w.balances, i), f(&w.balances, j), f(&w.weights, i), f(&w.weights, j));
                let ai = amount_in * (1.0 - u256_to_f64(w.swap_fee) / 1e18);
                // bo * (1 - (bi / (bi + ai))^(wi / wo)), written with ln_1p and
                // exp_m1 so small trades keep their precision; nothing beyond
                // the contract's MAX_IN_RATIO.
                if bi > 0.0 && bo > 0.0 && wi > 0.0 && wo > 0.0 && ai <= 0.3 * bi {
                    -bo * (-(wi / wo) * (ai / bi).ln_1p()).exp_m1()
                } else {
                    0.0
                }
            }
            PoolState::LiquidStaking(st) if st.rebasing && i == 1 => 0.0,
            PoolState::Lending(_) if i == 1 => {
                let out = amount_in * self.spot_rate(i, j).unwrap_or(0.0);
                if out <= self.depth(0) { out } else { 0.0 }
            }
            _ => amount_in * self.spot_rate(i, j).unwrap_or(0.0),
        };
        if out.is_finite() { out.max(0.0) } else { 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::{RangeHint, StableswapState, V3State, test_pool as pool};

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs().max(1.0)
    }

    #[test]
    fn v3_shadow_tracks_the_exact_swap_across_ticks() {
        // Liquidity 1e21 between ticks -600 and 600, 4e21 between 600 and
        // 1200 (and -1200..-600): trades big enough to cross both ways.
        let ticks = TickList::from(vec![
            (-1200, 3_000_000_000_000_000_000_000i128),
            (-600, 1_000_000_000_000_000_000_000),
            (600, -1_000_000_000_000_000_000_000),
            (1200, -3_000_000_000_000_000_000_000),
        ]);
        let p = crate::pool::test_v3_pool(ticks.to_vec(), 2_000_000_000_000_000_000_000, 0);
        for (i, j) in [(0, 1), (1, 0)] {
            for amount in [1e15, 1e19, 1e20, 2e20, 5e20] {
                let exact = p
                    .swap_exact_in(i, j, U256::from(amount as u128))
                    .map(|s| u256_to_f64(s.amount_out));
                let shadow = p.shadow_out(i, j, amount);
                match exact {
                    Ok(e) => assert!(rel(shadow, e) < 1e-9, "{i}->{j} {amount}: {shadow} vs {e}"),
                    Err(_) => assert_eq!(shadow, 0.0, "{i}->{j} {amount}"),
                }
            }
        }
    }

    #[test]
    fn stableswap_shadow_tracks_the_exact_exchange() {
        let e18 = U256::from(10u64).pow(U256::from(18u64));
        let e6 = U256::from(1_000_000u64);
        let p = pool(
            PoolState::Stableswap(Box::new(StableswapState {
                balances: vec![e18 * U256::from(40_000_000u64), e6 * U256::from(35_000_000u64)],
                amp: U256::from(2000u64),
                fee: U256::from(1_000_000u64),
                admin_fee: U256::ZERO,
                a_precision: U256::from(1u8),
                lp_supply: None,
            })),
            vec![18, 6],
        );
        for usd in [1e3, 1e6, 1e7, 3e7] {
            let amount = usd * 1e18;
            let exact = u256_to_f64(
                p.swap_exact_in(0, 1, U256::from(amount as u128)).expect("swap").amount_out,
            );
            let shadow = p.shadow_out(0, 1, amount);
            assert!(rel(shadow, exact) < 1e-6, "${usd}: {shadow} vs {exact}");
        }
    }

    /// The solved states kept per thread answer as a fresh solve does,
    /// whatever was solved before; a state that moved is solved again.
    #[test]
    fn stableswap_shadow_answers_alike_from_kept_and_fresh_solves() {
        let e18 = U256::from(10u64).pow(U256::from(18u64));
        let e6 = U256::from(1_000_000u64);
        let three = |dai: u64| {
            pool(
                PoolState::Stableswap(Box::new(StableswapState {
                    balances: vec![
                        e18 * U256::from(dai),
                        e6 * U256::from(61_000_000u64),
                        e6 * U256::from(23_000_000u64),
                    ],
                    amp: U256::from(200_000u64),
                    fee: U256::from(1_000_000u64),
                    admin_fee: U256::from(5_000_000_000u64),
                    a_precision: U256::from(100u8),
                    lp_supply: None,
                })),
                vec![18, 6, 6],
            )
        };
        let (a, b) = (three(45_000_000), three(45_000_001));
        let trades = [(0, 1, 1e21), (1, 2, 5e12), (2, 0, 3e13), (0, 2, 2e25)];
        // Fresh: each on a thread of its own, whose cache is empty.
        let fresh = |p: &Pool| -> Vec<f64> {
            std::thread::scope(|s| {
                s.spawn(|| trades.iter().map(|(i, j, x)| p.shadow_out(*i, *j, *x)).collect())
                    .join()
                    .expect("thread")
            })
        };
        let (fresh_a, fresh_b) = (fresh(&a), fresh(&b));
        assert_ne!(fresh_a, fresh_b, "the states differ by a coin");
        for _ in 0..3 {
            for (p, want) in [(&a, &fresh_a), (&b, &fresh_b)] {
                let got: Vec<f64> =
                    trades.iter().map(|(i, j, x)| p.shadow_out(*i, *j, *x)).collect();
                assert_eq!(&got, want);
            }
        }
        for ((i, j, x), shadow) in trades.iter().zip(&fresh_a) {
            let exact = u256_to_f64(
                a.swap_exact_in(*i, *j, U256::from(*x as u128)).expect("swap").amount_out,
            );
            assert!(rel(*shadow, exact) < 1e-6, "{i}->{j} {x}: {shadow} vs {exact}");
        }
    }

    /// Newton's iteration for `y` lands on the same root from the coin's
    /// balance as from `D`.
    #[test]
    fn stableswap_y_converges_alike_from_the_balance_and_from_d() {
        let x = [45e24, 61e24, 23e24];
        let amp = 2000.0;
        let d = stableswap_d(&x, amp).expect("converges");
        for (i, j, dx) in [(0, 1, 1e21), (1, 2, 1e25), (2, 0, 1e18), (0, 2, 2e25)] {
            let mut moved = x;
            moved[i] += dx;
            let from_d = stableswap_y(&moved, j, d, amp, d).expect("converges");
            let from_balance = stableswap_y(&moved, j, d, amp, x[j]).expect("converges");
            assert!(rel(from_d, from_balance) < 1e-11, "{from_d} vs {from_balance}");
        }
    }

    #[test]
    fn v3_shadow_keeps_thin_liquidity_after_crossing_a_large_range() {
        // Found by the amm_swap fuzz target: 39 units of liquidity, then a
        // 7.4e19 range crossed in and out. In f64, 39 + 7.4e19 - 7.4e19 is 0
        // and the shadow said the pool could not absorb the trade.
        let (l0, l2) = (73_580_936_611_886_006_272i128, 21_123_008_152_274_468_864i128);
        let p = pool(
            PoolState::UniswapV3(Box::new(V3State {
                sqrt_price_x96: U256::from(158_685_180_721_956_385_408_300_154_880u128),
                liquidity: 39,
                tick: 13_892,
                fee: 500,
                tick_spacing: 60,
                ticks: TickList::from(vec![
                    (-887_220, 1i128 << 40),
                    (-6000, l0),
                    (6000, -l0),
                    (60_000, l2),
                    (120_000, -l2),
                    (887_220, -(1i128 << 40)),
                ]),
                range: RangeHint::default(),
            })),
            vec![18, 18],
        );
        let amount = 313_605_626_777_154_103_357u128;
        for (i, j) in [(0, 1), (1, 0)] {
            let exact =
                u256_to_f64(p.swap_exact_in(i, j, U256::from(amount)).expect("swap").amount_out);
            let shadow = p.shadow_out(i, j, amount as f64);
            assert!(rel(shadow, exact) < 1e-9, "{i}->{j}: {shadow} vs {exact}");
        }
    }

    #[test]
    fn shadows_refuse_what_the_pool_cannot_absorb() {
        let p = pool(
            PoolState::UniswapV3(Box::new(V3State {
                sqrt_price_x96: U256::from(1u8) << 96,
                liquidity: 1_000_000,
                tick: 0,
                fee: 500,
                tick_spacing: 10,
                ticks: TickList::from(vec![(-10, 1_000_000i128), (10, -1_000_000)]),
                range: RangeHint::default(),
            })),
            vec![18, 18],
        );
        assert_eq!(p.shadow_out(0, 1, 1e18), 0.0);
        assert_eq!(p.shadow_out(0, 1, f64::NAN), 0.0);
        assert_eq!(p.shadow_out(0, 0, 1.0), 0.0);
    }

    #[test]
    fn a_range_hint_changes_no_shadow() {
        // The same answers, bit for bit, with the state's hint, without
        // one, and with one left from another tick: at a tick, between
        // ticks, below and above every initialized tick, in range and
        // across ranges.
        let ticks = TickList::from(vec![
            (-1200, 3_000_000_000_000_000_000_000i128),
            (-600, 1_000_000_000_000_000_000_000),
            (600, -1_000_000_000_000_000_000_000),
            (1200, -3_000_000_000_000_000_000_000),
        ]);
        let liquidity = |tick: i32| -> u128 {
            let net: i128 = ticks.iter().filter(|(t, _)| *t <= tick).map(|(_, n)| n).sum();
            net.max(0) as u128
        };
        let (mut compared, mut quick) = (0, 0);
        for tick in [-1500, -1200, -900, -600, -1, 0, 599, 600, 601, 1199, 1200, 1500] {
            let sqrt = crate::amm::uniswap_v3::sqrt_ratio_at_tick(tick).expect("tick");
            let state = |range| {
                pool(
                    PoolState::UniswapV3(Box::new(V3State {
                        sqrt_price_x96: sqrt,
                        liquidity: liquidity(tick),
                        tick,
                        fee: 3000,
                        tick_spacing: 60,
                        ticks: ticks.clone(),
                        range,
                    })),
                    vec![18, 18],
                )
            };
            let hinted = state(RangeHint::of(tick, &ticks));
            let plain = state(RangeHint::default());
            let stale = state(RangeHint::of(tick + 700, &ticks));
            for (i, j) in [(0, 1), (1, 0)] {
                for amount in [1e9, 1e15, 1e19, 1e20, 2e20, 5e20, 1e22, 1e24] {
                    let want = plain.shadow_out(i, j, amount).to_bits();
                    assert_eq!(
                        hinted.shadow_out(i, j, amount).to_bits(),
                        want,
                        "{tick} {i}->{j} {amount}"
                    );
                    assert_eq!(
                        stale.shadow_out(i, j, amount).to_bits(),
                        want,
                        "{tick} {i}->{j} {amount}"
                    );
                    // The one-line shadow: the same bits where it answers,
                    // which is every trade within the range.
                    match Quick::of(&hinted).out(i, j, amount) {
                        Some(q) => {
                            assert_eq!(q.to_bits(), want, "{tick} {i}->{j} {amount}");
                            quick += 1;
                        }
                        None => assert!(Quick::of(&plain).out(i, j, amount).is_none()),
                    }
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 12 * 2 * 8);
        assert!(quick >= 40, "{quick} answered by the one-line shadow");
    }

    #[test]
    fn the_quick_shadow_of_a_pair_is_its_own() {
        for reserves in [[1u128, 1], [0, 5], [10u128.pow(24), 3 * 10u128.pow(12)]] {
            let p = pool(
                PoolState::UniswapV2 {
                    reserves: reserves.map(alloy_primitives::U128::from),
                    fee_bps: 30,
                },
                vec![18, 6],
            );
            let q = Quick::of(&p);
            for (i, j) in [(0, 1), (1, 0), (0, 0), (2, 1)] {
                for amount in [f64::NAN, -1.0, 0.0, 1.0, 1e9, 1e18, 1e30] {
                    let want = p.shadow_out(i, j, amount).to_bits();
                    assert_eq!(
                        q.out(i, j, amount).map(f64::to_bits),
                        Some(want),
                        "{i}->{j} {amount}"
                    );
                }
            }
        }
    }
}

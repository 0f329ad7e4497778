//! Uniswap V2-style constant product, as `UniswapV2Library.getAmountOut`
//! with the pool's fee in bps (30 for Uniswap V2: `997/1000` and
//! `9970/10000` give the same floor).

use alloy_primitives::U256;

use super::AmmError;

/// The largest reserve a pair holds: it stores reserves as `uint112` and
/// reverts (`OVERFLOW`) on a balance past it.
pub const MAX_RESERVE: U256 = U256::from_limbs([u64::MAX, u64::MAX >> 16, 0, 0]);

/// Output for `amount_in` of the token whose reserve is `reserve_in`.
pub fn amount_out(
    amount_in: U256,
    reserve_in: U256,
    reserve_out: U256,
    fee_bps: u32,
) -> Result<U256, AmmError> {
    if fee_bps >= 10_000 {
        return Err(AmmError::InvalidState);
    }
    if reserve_in.is_zero() || reserve_out.is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    // A balance past `uint112` reverts: the pool cannot take this much.
    if reserve_in.checked_add(amount_in).is_none_or(|b| b > MAX_RESERVE) {
        return Err(AmmError::InsufficientLiquidity);
    }
    let with_fee =
        amount_in.checked_mul(U256::from(10_000 - fee_bps)).ok_or(AmmError::InvalidState)?;
    let numerator = with_fee.checked_mul(reserve_out).ok_or(AmmError::InvalidState)?;
    let denominator = reserve_in
        .checked_mul(U256::from(10_000u32))
        .and_then(|d| d.checked_add(with_fee))
        .ok_or(AmmError::InvalidState)?;
    let out = numerator / denominator;
    if out.is_zero() || out >= reserve_out {
        return Err(AmmError::InsufficientLiquidity);
    }
    Ok(out)
}

/// Input for exactly `amount_out` of the token whose reserve is
/// `reserve_out`, as `UniswapV2Library.getAmountIn` (what the router's
/// `swapTokensForExactTokens` pays): the floor of the exact ratio, plus
/// one.
pub fn amount_in(
    amount_out: U256,
    reserve_in: U256,
    reserve_out: U256,
    fee_bps: u32,
) -> Result<U256, AmmError> {
    if fee_bps >= 10_000 {
        return Err(AmmError::InvalidState);
    }
    if reserve_in.is_zero() || amount_out.is_zero() || amount_out >= reserve_out {
        return Err(AmmError::InsufficientLiquidity);
    }
    let numerator = reserve_in
        .checked_mul(amount_out)
        .and_then(|v| v.checked_mul(U256::from(10_000u32)))
        .ok_or(AmmError::InsufficientLiquidity)?;
    let denominator = (reserve_out - amount_out)
        .checked_mul(U256::from(10_000 - fee_bps))
        .ok_or(AmmError::InvalidState)?;
    let amount_in =
        (numerator / denominator).checked_add(U256::ONE).ok_or(AmmError::InvalidState)?;
    if reserve_in.checked_add(amount_in).is_none_or(|b| b > MAX_RESERVE) {
        return Err(AmmError::InsufficientLiquidity);
    }
    Ok(amount_in)
}

/// What a pair's liquidity token adds to its reserves: the supply, the
/// `kLast` the pair stored at its last mint or burn, and whether its
/// factory's `feeTo` is set (the protocol's share of the fee minted on the
/// next mint or burn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Liquidity {
    /// `totalSupply()`.
    pub supply: U256,
    /// `kLast()`.
    pub k_last: U256,
    /// `factory.feeTo() != 0`.
    pub fee_on: bool,
}

/// A pair's reserves and liquidity after a mint or a burn, and what it
/// minted or paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changed<T> {
    /// Minted liquidity, or the two amounts paid.
    pub amount: T,
    /// Reserves after.
    pub reserves: [U256; 2],
    /// Liquidity after.
    pub liquidity: Liquidity,
}

/// `UniswapV2Pair._mintFee`: the supply once the protocol's share of the
/// growth of `√k` since `kLast` is minted (when the fee is on and `kLast`
/// is set), at the reserves before the mint or burn.
pub fn supply_after_fee(reserves: [U256; 2], l: Liquidity) -> Result<U256, AmmError> {
    if !l.fee_on || l.k_last.is_zero() {
        return Ok(l.supply);
    }
    let root_k = reserves[0].checked_mul(reserves[1]).ok_or(AmmError::InvalidState)?.root(2);
    let root_k_last = l.k_last.root(2);
    if root_k <= root_k_last {
        return Ok(l.supply);
    }
    let numerator = l.supply.checked_mul(root_k - root_k_last).ok_or(AmmError::InvalidState)?;
    let denominator = root_k
        .checked_mul(U256::from(5u8))
        .and_then(|d| d.checked_add(root_k_last))
        .ok_or(AmmError::InvalidState)?;
    l.supply.checked_add(numerator / denominator).ok_or(AmmError::InvalidState)
}

/// `kLast` after a mint or burn that leaves `reserves`.
fn k_last_after(reserves: [U256; 2], fee_on: bool) -> Result<U256, AmmError> {
    if fee_on {
        reserves[0].checked_mul(reserves[1]).ok_or(AmmError::InvalidState)
    } else {
        Ok(U256::ZERO)
    }
}

/// `UniswapV2Pair.mint` with `amounts` sent to a pair holding `reserves`
/// (a pair with a supply; the first mint is not a zap's).
pub fn mint(
    amounts: [U256; 2],
    reserves: [U256; 2],
    l: Liquidity,
) -> Result<Changed<U256>, AmmError> {
    if l.supply.is_zero() || reserves[0].is_zero() || reserves[1].is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    let supply = supply_after_fee(reserves, l)?;
    let share = |k: usize| {
        amounts[k].checked_mul(supply).map(|v| v / reserves[k]).ok_or(AmmError::InvalidState)
    };
    let minted = share(0)?.min(share(1)?);
    if minted.is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    let mut after = reserves;
    for k in 0..2 {
        after[k] = after[k]
            .checked_add(amounts[k])
            .filter(|r| *r <= MAX_RESERVE)
            .ok_or(AmmError::InsufficientLiquidity)?;
    }
    Ok(Changed {
        amount: minted,
        reserves: after,
        liquidity: Liquidity {
            supply: supply.checked_add(minted).ok_or(AmmError::InvalidState)?,
            k_last: k_last_after(after, l.fee_on)?,
            fee_on: l.fee_on,
        },
    })
}

/// `UniswapV2Pair.burn` of `amount` liquidity sent to a pair holding
/// `reserves` (its balances).
pub fn burn(
    amount: U256,
    reserves: [U256; 2],
    l: Liquidity,
) -> Result<Changed<[U256; 2]>, AmmError> {
    let supply = supply_after_fee(reserves, l)?;
    if supply.is_zero() || amount > supply {
        return Err(AmmError::InsufficientLiquidity);
    }
    let paid = |k: usize| {
        amount.checked_mul(reserves[k]).map(|v| v / supply).ok_or(AmmError::InvalidState)
    };
    let paid = [paid(0)?, paid(1)?];
    if paid[0].is_zero() || paid[1].is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    let after = [reserves[0] - paid[0], reserves[1] - paid[1]];
    Ok(Changed {
        amount: paid,
        reserves: after,
        liquidity: Liquidity {
            supply: supply - amount,
            k_last: k_last_after(after, l.fee_on)?,
            fee_on: l.fee_on,
        },
    })
}

/// `UniswapV2Library.quote`: `amount` of one side at the reserves' ratio.
fn quote(amount: U256, reserve_a: U256, reserve_b: U256) -> Result<U256, AmmError> {
    if amount.is_zero() || reserve_a.is_zero() || reserve_b.is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    amount.checked_mul(reserve_b).map(|v| v / reserve_a).ok_or(AmmError::InvalidState)
}

/// One coin into a pair's liquidity token through Router02: `swap` of it
/// sold for the other coin (`swapExactTokensForTokens`), then
/// `addLiquidity(coin, other, amount − swap, bought, 0, 0)`, which takes
/// what the reserves' ratio admits of each (`UniswapV2Library.quote`) and
/// leaves the rest with the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZapIn {
    /// Of the coin, what is sold for the other.
    pub swap: U256,
    /// What the sale bought.
    pub bought: U256,
    /// What `addLiquidity` took of the coin and of the other, pool order
    /// of the two (the coin first).
    pub added: [U256; 2],
    /// The mint, reserves and liquidity after.
    pub minted: Changed<U256>,
}

impl ZapIn {
    /// What stays with the caller: of the coin, of the other. The sale
    /// [`zap_in`] chooses leaves a few units of the dearer coin's worth at
    /// most (in 3,000 random pairs: none at all in a third, more than one
    /// unit in 12%, more than two in 0.8%, never more than four).
    pub fn left(&self, amount: U256) -> [U256; 2] {
        [amount - self.swap - self.added[0], self.bought - self.added[1]]
    }
}

/// [`ZapIn`] selling exactly `swap` of coin `i` out of `amount`.
pub fn zap_in_with(
    amount: U256,
    swap: U256,
    i: usize,
    reserves: [U256; 2],
    fee_bps: u32,
    l: Liquidity,
) -> Result<ZapIn, AmmError> {
    let j = 1 - i;
    if swap.is_zero() || swap >= amount {
        return Err(AmmError::InsufficientLiquidity);
    }
    let bought = amount_out(swap, reserves[i], reserves[j], fee_bps)?;
    let mut r = reserves;
    r[i] += swap;
    r[j] -= bought;
    let mut desired = [U256::ZERO; 2];
    desired[i] = amount - swap;
    desired[j] = bought;
    let (taken, minted) = add_liquidity(desired, i, r, l)?;
    Ok(ZapIn { swap, bought, added: [taken[i], taken[j]], minted })
}

/// Router02's `addLiquidity(tokenA, tokenB, desiredA, desiredB, 0, 0)`
/// on a pair with a supply, `tokenA` the coin at index `a`: what it takes
/// of each (all of `tokenA` and `tokenB` at the reserves' ratio,
/// `UniswapV2Library.quote`, when that is within `desiredB`; else all of
/// `tokenB` and `tokenA` at the ratio), pool order, and the mint. The rest
/// stays with the caller. Which coin is `tokenA` changes the rounding.
pub fn add_liquidity(
    desired: [U256; 2],
    a: usize,
    reserves: [U256; 2],
    l: Liquidity,
) -> Result<([U256; 2], Changed<U256>), AmmError> {
    if a > 1 {
        return Err(AmmError::Unsupported);
    }
    let b = 1 - a;
    let b_optimal = quote(desired[a], reserves[a], reserves[b])?;
    let mut taken = [U256::ZERO; 2];
    if b_optimal <= desired[b] {
        taken[a] = desired[a];
        taken[b] = b_optimal;
    } else {
        let a_optimal = quote(desired[b], reserves[b], reserves[a])?;
        if a_optimal > desired[a] {
            return Err(AmmError::InvalidState);
        }
        taken[a] = a_optimal;
        taken[b] = desired[b];
    }
    Ok((taken, mint(taken, reserves, l)?))
}

/// One coin into a pair's liquidity token ([`ZapIn`]), selling the share
/// of `amount` that mints the most and, among sales that mint as much,
/// leaves the least behind (by value at the reserves after).
///
/// The sale starts from the root of the constant-product balance
/// (`γs² + (1+γ)·R·s − R·amount = 0`, `γ` the fee's complement), in
/// integers. Where a unit of the coin buys less than a unit of the other,
/// runs of sales buy the same amount; the candidates are the root and its
/// neighbours, and, for the runs that buy one unit less, as much and one
/// more than the root's, their ends and the sales where `addLiquidity`
/// turns from taking all it bought to taking all of the coin (the mint
/// falls with the sale on one side of that point and is capped by what
/// was bought on the other). No sale within 16 units does better by more
/// than one part in 10^12 (a property test: with the protocol fee on, the
/// supply the mint divides by grows with the sale itself).
pub fn zap_in(
    amount: U256,
    i: usize,
    reserves: [U256; 2],
    fee_bps: u32,
    l: Liquidity,
) -> Result<ZapIn, AmmError> {
    if i > 1 || fee_bps >= 10_000 {
        return Err(AmmError::Unsupported);
    }
    let j = 1 - i;
    let r = reserves[i];
    let g = U256::from(10_000 - fee_bps);
    let one_plus = U256::from(10_000u32) + g;
    let too_big = || AmmError::InsufficientLiquidity;
    // s = (√(R·((1+γ)²R + 4γ·amount)) − (1+γ)R) / 2γ, in units of 1e-4.
    let inner = one_plus
        .checked_mul(one_plus)
        .and_then(|c| c.checked_mul(r))
        .and_then(|c| c.checked_add(U256::from(40_000u32).checked_mul(g)?.checked_mul(amount)?))
        .and_then(|c| c.checked_mul(r))
        .ok_or_else(too_big)?;
    let base = one_plus.checked_mul(r).ok_or_else(too_big)?;
    let root = inner.root(2).saturating_sub(base) / (g * U256::from(2u8));
    // Candidates: the root and its neighbours, and for the runs of sales that
    // buy one unit less, as much, and one more than the root's (`b`, at
    // reserves `R + s` and `Y = R_j − b` after the sale; a run is one sale
    // where a unit of the coin buys more than a unit of the other), the
    // run's ends and the sales around where `addLiquidity` turns from
    // taking all of `b` to taking all of the coin: the least `s` with
    // `⌊(amount − s)·Y / (R + s)⌋ ≤ b`. On the coin's side of that point
    // the mint falls as `s` grows; on the other it is capped by `b`.
    let mut sales: Vec<U256> =
        (0..3u8).filter_map(|k| (root + U256::from(k)).checked_sub(U256::ONE)).collect();
    let rj = reserves[j];
    if let Ok(bought) = amount_out(root.max(U256::ONE), r, rj, fee_bps) {
        // The least sale buying at least `b`: `getAmountIn(b)` or one less.
        let least = |b: U256| {
            let g = amount_in(b, r, rj, fee_bps).ok()?;
            Some(match g.checked_sub(U256::ONE) {
                Some(less) if amount_out(less, r, rj, fee_bps).is_ok_and(|o| o >= b) => less,
                _ => g,
            })
        };
        for b in [bought.saturating_sub(U256::ONE), bought, bought + U256::ONE] {
            let (Some(lo), Some(next)) = (least(b), least(b + U256::ONE)) else { continue };
            let hi = next.saturating_sub(U256::ONE).max(lo);
            sales.extend([lo, hi]);
            let Some(y) = rj.checked_sub(b) else { continue };
            let turn = amount
                .checked_mul(y)
                .and_then(|ay| ay.checked_sub((b + U256::ONE).checked_mul(r)?))
                .map(|num| num / (y + b + U256::ONE) + U256::ONE);
            if let Some(t) = turn {
                for s in [t.saturating_sub(U256::from(2u8)), t - U256::ONE, t, t + U256::ONE] {
                    sales.push(s.clamp(lo, hi));
                }
            }
        }
    }
    sales.sort_unstable();
    sales.dedup();
    // Left behind, valued in the other coin at the reserves after (times
    // the coin's reserve, so in integers).
    let worth = |z: &ZapIn| {
        let [ci, cj] = z.left(amount);
        let (x, y) = (z.minted.reserves[i], z.minted.reserves[j]);
        ci.saturating_mul(y).saturating_add(cj.saturating_mul(x))
    };
    let mut best: Option<(ZapIn, U256)> = None;
    let mut last_err = AmmError::InsufficientLiquidity;
    for swap in sales {
        match zap_in_with(amount, swap, i, reserves, fee_bps, l) {
            Ok(z) => {
                let w = worth(&z);
                let better = best.as_ref().is_none_or(|(b, bw)| {
                    z.minted.amount > b.minted.amount
                        || z.minted.amount == b.minted.amount && w < *bw
                });
                if better {
                    best = Some((z, w));
                }
            }
            Err(e) => last_err = e,
        }
    }
    best.map(|(z, _)| z).ok_or(last_err)
}

/// A pair's liquidity token out into coin `j` through Router02:
/// `removeLiquidity` pays both coins, then the other is sold for `j`
/// (`swapExactTokensForTokens`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZapOut {
    /// The burn: the two coins paid (pool order), reserves and liquidity
    /// after it.
    pub burned: Changed<[U256; 2]>,
    /// What selling the other coin bought of `j`.
    pub bought: U256,
    /// Of `j` in all.
    pub amount_out: U256,
    /// Reserves after the sale.
    pub reserves: [U256; 2],
}

/// [`ZapOut`] of `amount` liquidity into coin `j`.
pub fn zap_out(
    amount: U256,
    j: usize,
    reserves: [U256; 2],
    fee_bps: u32,
    l: Liquidity,
) -> Result<ZapOut, AmmError> {
    if j > 1 {
        return Err(AmmError::Unsupported);
    }
    let i = 1 - j;
    let burned = burn(amount, reserves, l)?;
    let r = burned.reserves;
    let bought = amount_out(burned.amount[i], r[i], r[j], fee_bps)?;
    let mut after = r;
    after[i] += burned.amount[i];
    after[j] -= bought;
    let amount_out = burned.amount[j].checked_add(bought).ok_or(AmmError::InvalidState)?;
    Ok(ZapOut { burned, bought, amount_out, reserves: after })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn golden_against_the_v2_router_formula() {
        // 1 WETH into 100 WETH / 300,000 USDC at 0.3%: the toolchain spike's
        // on-chain swap returned 2961474103.
        let out = amount_out(
            U256::from(10u64).pow(U256::from(18u64)),
            U256::from(100u64) * U256::from(10u64).pow(U256::from(18u64)),
            U256::from(300_000_000_000u64),
            30,
        );
        assert_eq!(out, Ok(U256::from(2_961_474_103u64)));
    }

    #[test]
    fn the_input_for_an_output_buys_at_least_it() {
        let (r_in, r_out) =
            (U256::from(10u64).pow(U256::from(20u8)), U256::from(300_000_000_000u64));
        let a = amount_in(U256::from(2_961_474_103u64), r_in, r_out, 30).expect("in");
        assert!(amount_out(a, r_in, r_out, 30).expect("out") >= U256::from(2_961_474_103u64));
        assert_eq!(amount_in(r_out, r_in, r_out, 30), Err(AmmError::InsufficientLiquidity));
    }

    #[test]
    fn empty_and_dust() {
        assert_eq!(
            amount_out(U256::from(1u8), U256::ZERO, U256::from(5u8), 30),
            Err(AmmError::InsufficientLiquidity)
        );
        assert_eq!(
            amount_out(U256::from(1u8), U256::from(1000u32), U256::from(1000u32), 30),
            Err(AmmError::InsufficientLiquidity)
        );
        assert_eq!(
            amount_out(U256::MAX, U256::from(1u8), U256::from(1u8), 30),
            Err(AmmError::InsufficientLiquidity)
        );
    }

    /// The pair's reserves are `uint112`: a trade that would take the input
    /// reserve past `2^112 - 1` reverts on chain, so it is refused here.
    #[test]
    fn max_reserve_is_uint112_max() {
        assert_eq!(MAX_RESERVE, (U256::ONE << 112) - U256::ONE);
    }

    #[test]
    fn input_reserve_stays_within_uint112() {
        let max = (U256::ONE << 112) - U256::ONE;
        let reserve = U256::from(10u64).pow(U256::from(24u64));
        assert!(amount_out(max - reserve, reserve, reserve, 30).is_ok());
        assert_eq!(
            amount_out(max - reserve + U256::ONE, reserve, reserve, 30),
            Err(AmmError::InsufficientLiquidity)
        );
    }

    fn e(x: u64, d: u8) -> U256 {
        U256::from(x) * U256::from(10u64).pow(U256::from(d))
    }

    const LIQ: Liquidity = Liquidity { supply: U256::ZERO, k_last: U256::ZERO, fee_on: false };

    /// 1,000 WETH / 3,000,000 USDC with the supply at `√(x·y)`.
    fn pair() -> ([U256; 2], Liquidity) {
        let r = [e(3_000_000, 6), e(1_000, 18)];
        let supply = (r[0] * r[1]).root(2);
        (r, Liquidity { supply, ..LIQ })
    }

    #[test]
    fn a_zap_in_leaves_little_behind() {
        let (r, l) = pair();
        for (amount, i) in [(e(1_000, 6), 0), (e(250_000, 6), 0), (e(1, 18), 1), (e(300, 18), 1)] {
            let z = zap_in(amount, i, r, 30, l).expect("zap");
            let [left_in, left_other] = z.left(amount);
            // What stays is worth less than one more unit of the coin sold
            // would buy, on either side.
            let per_unit = r[1 - i] / r[i] + U256::from(2u8);
            assert!(
                left_in <= U256::from(2u8) && left_other <= per_unit,
                "{amount} {i}: {left_in} {left_other}"
            );
            // Minted as the pair's formula gives on the state after the sale.
            let rest = [z.minted.reserves[0], z.minted.reserves[1]];
            assert_eq!(z.minted.liquidity.supply, l.supply + z.minted.amount);
            assert!(rest[i] > r[i] && rest[1 - i] <= r[1 - i] + z.added[1]);
        }
    }

    #[test]
    fn the_chosen_sale_mints_at_least_its_neighbours() {
        let (r, l) = pair();
        let amount = e(40_000, 6);
        let z = zap_in(amount, 0, r, 30, l).expect("zap");
        for d in 1..40u64 {
            for s in [z.swap + U256::from(d * 997), z.swap - U256::from(d * 997)] {
                if let Ok(o) = zap_in_with(amount, s, 0, r, 30, l) {
                    assert!(o.minted.amount <= z.minted.amount, "{s}");
                }
            }
        }
    }

    #[test]
    fn in_and_out_again_never_gains() {
        let (r, l) = pair();
        for amount in [e(10, 6), e(5_000, 6), e(900_000, 6)] {
            let z = zap_in(amount, 0, r, 30, l).expect("in");
            let back = zap_out(z.minted.amount, 0, z.minted.reserves, 30, z.minted.liquidity)
                .expect("out");
            assert!(back.amount_out < amount, "{amount}: {}", back.amount_out);
            // Two sales at 0.3% each of about half: about 0.3% lost in all.
            assert!(back.amount_out * U256::from(1000u32) > amount * U256::from(995u32));
        }
    }

    #[test]
    fn the_protocol_fee_is_minted_on_the_growth_of_root_k() {
        let (r, l) = pair();
        let off = Liquidity { k_last: r[0] * r[1], ..l };
        let on = Liquidity { fee_on: true, ..off };
        // k grew 1% since kLast: √k by about 0.4988%; a sixth of that
        // growth's share of the supply is minted to feeTo.
        let grown = [r[0] * U256::from(101u8) / U256::from(100u8), r[1]];
        assert_eq!(supply_after_fee(grown, off), Ok(l.supply));
        let minted = supply_after_fee(grown, on).expect("fee") - l.supply;
        let share = crate::pool::u256_to_f64(minted) / crate::pool::u256_to_f64(l.supply);
        assert!((share - 0.004988 / 6.0).abs() < 2e-5, "{share}");
        // The burn after it pays from the larger supply, and sets kLast.
        let b = burn(e(1, 15), grown, on).expect("burn");
        assert_eq!(b.liquidity.supply, l.supply + minted - e(1, 15));
        assert_eq!(b.liquidity.k_last, b.reserves[0] * b.reserves[1]);
        let plain = burn(e(1, 15), grown, off).expect("burn");
        assert!(b.amount[0] < plain.amount[0]);
        assert_eq!(plain.liquidity.k_last, U256::ZERO);
    }

    #[test]
    fn zaps_refuse_what_the_pair_would_revert() {
        let (r, l) = pair();
        // Nothing to sell, or all of it.
        assert!(zap_in(U256::ONE, 0, r, 30, l).is_err());
        // More liquidity than exists.
        assert!(zap_out(l.supply + U256::ONE, 0, r, 30, l).is_err());
        // A pair without supply is never zapped into.
        assert_eq!(mint([e(1, 6), e(1, 15)], r, LIQ), Err(AmmError::InsufficientLiquidity));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// No sale within 16 units of the chosen one mints more (beyond one
        /// part in 10^12 and a unit: with the protocol fee on, the supply
        /// the mint divides by grows with the sale itself, by units), on
        /// pairs whose price runs from 1e-6 to 1e6 units of one coin per
        /// unit of the other and zaps from a millionth of the reserve to
        /// four times it.
        #[test]
        fn no_nearby_sale_does_better(
            r0 in 1_000_000u64..u64::MAX,
            price in -6i32..=6,
            share in 1u64..4_000_000_000u64,
            i in 0usize..2,
            fee_on in proptest::bool::ANY,
        ) {
            let r0 = U256::from(r0);
            let r1 = if price >= 0 {
                r0 * U256::from(10u64).pow(U256::from(price as u32))
            } else {
                (r0 / U256::from(10u64).pow(U256::from((-price) as u32))).max(U256::from(1000u32))
            };
            let r = [r0, r1];
            let supply = (r0 * r1).root(2);
            let l = Liquidity { supply, k_last: r0 * r1 * U256::from(99u8) / U256::from(100u8), fee_on };
            let amount = (r[i] * U256::from(share) / U256::from(1_000_000_000u64)).max(U256::from(2u8));
            let Ok(z) = zap_in(amount, i, r, 30, l) else { return Ok(()) };
            for d in 1..=16u64 {
                for s in [z.swap + U256::from(d), z.swap.saturating_sub(U256::from(d))] {
                    if let Ok(o) = zap_in_with(amount, s, i, r, 30, l) {
                        let slack = z.minted.amount / U256::from(1_000_000_000_000u64) + U256::ONE;
                        proptest::prop_assert!(o.minted.amount <= z.minted.amount + slack, "sale {} mints more", s);
                    }
                }
            }
        }
    }
}

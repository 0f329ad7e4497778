//! Curve StableSwap `exchange`, integer for integer: `get_D` and `get_y` by
//! Newton iteration as in the Vyper pools. `a_precision` is 1 for the older
//! pools (3pool: `Ann = A * N`) and 100 for the newer ones (stETH/ETH), which
//! carry `A * A_PRECISION` and divide it back out at each use; with 1 the
//! formulas reduce exactly to the older ones.

use alloy_primitives::U256;

use super::AmmError;

const FEE_DENOMINATOR: u64 = 10_000_000_000;
const PRECISION: U256 = U256::from_limbs([1_000_000_000_000_000_000, 0, 0, 0]);

fn u(x: u64) -> U256 {
    U256::from(x)
}

/// `get_D(xp, amp)`; `amp` already multiplied by `a_precision`.
pub fn get_d(xp: &[U256], amp: U256, a_precision: U256) -> Result<U256, AmmError> {
    if a_precision.is_zero() {
        return Err(AmmError::InvalidState);
    }
    let n = u(xp.len() as u64);
    let s =
        xp.iter().try_fold(U256::ZERO, |a, x| a.checked_add(*x)).ok_or(AmmError::InvalidState)?;
    if s.is_zero() {
        return Ok(U256::ZERO);
    }
    let ann = amp.checked_mul(n).ok_or(AmmError::InvalidState)?;
    let mut d = s;
    for _ in 0..255 {
        let mut d_p = d;
        for x in xp {
            let den =
                x.checked_mul(n).filter(|v| !v.is_zero()).ok_or(AmmError::InsufficientLiquidity)?;
            d_p = d_p.checked_mul(d).ok_or(AmmError::InvalidState)? / den;
        }
        let prev = d;
        let num = (ann.checked_mul(s).ok_or(AmmError::InvalidState)? / a_precision)
            .checked_add(d_p.checked_mul(n).ok_or(AmmError::InvalidState)?)
            .and_then(|v| v.checked_mul(d))
            .ok_or(AmmError::InvalidState)?;
        let den = ((ann.checked_sub(a_precision).ok_or(AmmError::InvalidState)?)
            .checked_mul(d)
            .ok_or(AmmError::InvalidState)?
            / a_precision)
            .checked_add((n + u(1)).checked_mul(d_p).ok_or(AmmError::InvalidState)?)
            .filter(|v| !v.is_zero())
            .ok_or(AmmError::InvalidState)?;
        d = num / den;
        let diff = if d > prev { d - prev } else { prev - d };
        if diff <= u(1) {
            return Ok(d);
        }
    }
    Err(AmmError::InvalidState)
}

/// `get_y(i, j, x, xp)`: the new balance of coin `j` when coin `i` is `x`.
pub fn get_y(
    i: usize,
    j: usize,
    x: U256,
    xp: &[U256],
    amp: U256,
    a_precision: U256,
) -> Result<U256, AmmError> {
    let n_coins = xp.len();
    if i == j || i >= n_coins || j >= n_coins {
        return Err(AmmError::Unsupported);
    }
    let d = get_d(xp, amp, a_precision)?;
    let others =
        xp.iter().enumerate().filter(|(k, _)| *k != j).map(|(k, b)| if k == i { x } else { *b });
    solve_y(others, n_coins, d, amp, a_precision)
}

/// What `exchange(i, j, dx)` pays out and what leaves the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange {
    /// Paid to the caller, raw units of coin `j`.
    pub dy: U256,
    /// The admin's share of the fee, raw units of coin `j`, also taken out of
    /// the pool's balance.
    pub admin_fee: U256,
}

/// The pool parameters of an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// `A * A_PRECISION`.
    pub amp: U256,
    /// `A_PRECISION`.
    pub a_precision: U256,
    /// Fee, 1e-10 units.
    pub fee: U256,
    /// Admin share of the fee, 1e-10 units.
    pub admin_fee: U256,
}

/// `exchange(i, j, dx)`: balances scaled by `rates` (`10^(36 - decimals)`,
/// Curve's `PRECISION_MUL` times 1e18), `dy = xp[j] - y - 1`, the fee and its
/// admin share taken in the normalized unit, then both scaled back.
pub fn exchange(
    balances: &[U256],
    rates: &[U256],
    params: Params,
    i: usize,
    j: usize,
    dx: U256,
) -> Result<Exchange, AmmError> {
    let Params { amp, a_precision, fee, admin_fee } = params;
    let precision = PRECISION;
    let xp = normalized(balances, rates)?;
    if i >= xp.len() || j >= xp.len() || i == j {
        return Err(AmmError::Unsupported);
    }
    let x = xp[i]
        .checked_add(dx.checked_mul(rates[i]).ok_or(AmmError::InvalidState)? / precision)
        .ok_or(AmmError::InvalidState)?;
    let y = get_y(i, j, x, &xp, amp, a_precision)?;
    let dy = xp[j]
        .checked_sub(y)
        .and_then(|v| v.checked_sub(u(1)))
        .ok_or(AmmError::InsufficientLiquidity)?;
    let dy_fee = dy.checked_mul(fee).ok_or(AmmError::InvalidState)? / u(FEE_DENOMINATOR);
    let dy_admin =
        dy_fee.checked_mul(admin_fee).ok_or(AmmError::InvalidState)? / u(FEE_DENOMINATOR);
    let admin_fee = dy_admin.checked_mul(precision).ok_or(AmmError::InvalidState)? / rates[j];
    let out = (dy - dy_fee).checked_mul(precision).ok_or(AmmError::InvalidState)? / rates[j];
    if out.is_zero() || out.checked_add(admin_fee).is_none_or(|t| t >= balances[j]) {
        return Err(AmmError::InsufficientLiquidity);
    }
    Ok(Exchange { dy: out, admin_fee })
}

/// Balances scaled by `rates` into the pool's 18-decimal unit (`_xp`).
fn normalized(balances: &[U256], rates: &[U256]) -> Result<Vec<U256>, AmmError> {
    if balances.len() != rates.len() {
        return Err(AmmError::InvalidState);
    }
    balances
        .iter()
        .zip(rates)
        .map(|(b, r)| b.checked_mul(*r).map(|v| v / PRECISION))
        .collect::<Option<_>>()
        .ok_or(AmmError::InvalidState)
}

/// `get_y_D(i, xp, D)`: the balance of coin `i` that gives the invariant
/// `d` with the other coins as in `xp`.
pub fn get_y_d(
    i: usize,
    xp: &[U256],
    d: U256,
    amp: U256,
    a_precision: U256,
) -> Result<U256, AmmError> {
    if i >= xp.len() {
        return Err(AmmError::Unsupported);
    }
    let others = xp.iter().enumerate().filter(|(k, _)| *k != i).map(|(_, x)| *x);
    solve_y(others, xp.len(), d, amp, a_precision)
}

/// The Newton iteration `get_y` and `get_y_D` share: the balance of the one
/// coin not in `others` that gives the invariant `d`.
fn solve_y(
    others: impl Iterator<Item = U256>,
    n_coins: usize,
    d: U256,
    amp: U256,
    a_precision: U256,
) -> Result<U256, AmmError> {
    let n = u(n_coins as u64);
    let ann = amp.checked_mul(n).ok_or(AmmError::InvalidState)?;
    let mut c = d;
    let mut s = U256::ZERO;
    for xk in others {
        s = s.checked_add(xk).ok_or(AmmError::InvalidState)?;
        let den =
            xk.checked_mul(n).filter(|v| !v.is_zero()).ok_or(AmmError::InsufficientLiquidity)?;
        c = c.checked_mul(d).ok_or(AmmError::InvalidState)? / den;
    }
    c = c.checked_mul(d).and_then(|v| v.checked_mul(a_precision)).ok_or(AmmError::InvalidState)?
        / ann.checked_mul(n).filter(|v| !v.is_zero()).ok_or(AmmError::InvalidState)?;
    let b = d
        .checked_mul(a_precision)
        .and_then(|v| s.checked_add(v / ann))
        .ok_or(AmmError::InvalidState)?;
    let mut y = d;
    for _ in 0..255 {
        let prev = y;
        let num = y.checked_mul(y).and_then(|v| v.checked_add(c)).ok_or(AmmError::InvalidState)?;
        let den = y
            .checked_mul(u(2))
            .and_then(|v| v.checked_add(b))
            .and_then(|v| v.checked_sub(d))
            .filter(|v| !v.is_zero())
            .ok_or(AmmError::InvalidState)?;
        y = num / den;
        let diff = if y > prev { y - prev } else { prev - y };
        if diff <= u(1) {
            return Ok(y);
        }
    }
    Err(AmmError::InvalidState)
}

/// The fee charged on an imbalanced deposit or a one-coin withdrawal:
/// `fee · N / (4 · (N − 1))`.
fn imbalance_fee(fee: U256, n_coins: usize) -> Result<U256, AmmError> {
    let n = u(n_coins as u64);
    let den = u(4) * n.checked_sub(u(1)).filter(|v| !v.is_zero()).ok_or(AmmError::InvalidState)?;
    Ok(fee.checked_mul(n).ok_or(AmmError::InvalidState)? / den)
}

/// What `add_liquidity(amounts, 0)` mints and leaves in the pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddLiquidity {
    /// LP tokens minted to the caller.
    pub mint: U256,
    /// The pool's balances after (the admin's share of the fees out).
    pub balances: Vec<U256>,
}

/// `add_liquidity(amounts, 0)` of the plain pools, integer for integer:
/// `D0` of the balances, `D1` with the amounts in, each coin's distance from
/// its ideal balance `D1 · old / D0` charged the imbalance fee (its admin
/// share leaving the balance), `D2` of what is left, and
/// `supply · (D2 − D0) / D0` minted (`D1` into an empty pool, which takes
/// every coin).
pub fn add_liquidity(
    balances: &[U256],
    rates: &[U256],
    params: Params,
    supply: U256,
    amounts: &[U256],
) -> Result<AddLiquidity, AmmError> {
    let Params { amp, a_precision, fee, admin_fee } = params;
    let n = balances.len();
    if amounts.len() != n || rates.len() != n {
        return Err(AmmError::InvalidState);
    }
    let d0 = if supply.is_zero() {
        U256::ZERO
    } else {
        get_d(&normalized(balances, rates)?, amp, a_precision)?
    };
    let mut new = Vec::with_capacity(n);
    for (b, a) in balances.iter().zip(amounts) {
        if supply.is_zero() && a.is_zero() {
            return Err(AmmError::Unsupported);
        }
        new.push(b.checked_add(*a).ok_or(AmmError::InvalidState)?);
    }
    let d1 = get_d(&normalized(&new, rates)?, amp, a_precision)?;
    if d1 <= d0 {
        return Err(AmmError::InsufficientLiquidity);
    }
    if supply.is_zero() {
        return Ok(AddLiquidity { mint: d1, balances: new });
    }
    let fee = imbalance_fee(fee, n)?;
    let mut stored = Vec::with_capacity(n);
    for (old, now) in balances.iter().zip(new.iter_mut()) {
        let ideal = d1.checked_mul(*old).ok_or(AmmError::InvalidState)? / d0;
        let difference = if ideal > *now { ideal - *now } else { *now - ideal };
        let charged =
            fee.checked_mul(difference).ok_or(AmmError::InvalidState)? / u(FEE_DENOMINATOR);
        let admin =
            charged.checked_mul(admin_fee).ok_or(AmmError::InvalidState)? / u(FEE_DENOMINATOR);
        stored.push(now.checked_sub(admin).ok_or(AmmError::InvalidState)?);
        *now = now.checked_sub(charged).ok_or(AmmError::InvalidState)?;
    }
    let d2 = get_d(&normalized(&new, rates)?, amp, a_precision)?;
    let grown = d2.checked_sub(d0).ok_or(AmmError::InsufficientLiquidity)?;
    let mint = supply.checked_mul(grown).ok_or(AmmError::InvalidState)? / d0;
    if mint.is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    Ok(AddLiquidity { mint, balances: stored })
}

/// What `remove_liquidity_one_coin(amount, i, 0)` pays out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoveOne {
    /// Paid to the caller, raw units of coin `i`.
    pub dy: U256,
    /// The admin's share of the fee, raw units of coin `i`, also taken out
    /// of the pool's balance.
    pub admin_fee: U256,
}

/// `remove_liquidity_one_coin(amount, i, 0)` of the plain pools
/// (`_calc_withdraw_one_coin`): `D1 = D0 − amount · D0 / supply`, the new
/// balance of coin `i` at `D1`, every coin charged the imbalance fee on its
/// distance from the proportional withdrawal, coin `i`'s balance at `D1`
/// again over the reduced balances, one unit kept against rounding, and the
/// fee (the no-fee payout less `dy`) split with the admin.
pub fn remove_liquidity_one_coin(
    balances: &[U256],
    rates: &[U256],
    params: Params,
    supply: U256,
    amount: U256,
    i: usize,
) -> Result<RemoveOne, AmmError> {
    let Params { amp, a_precision, fee, admin_fee } = params;
    let n = balances.len();
    if i >= n || rates.len() != n {
        return Err(AmmError::Unsupported);
    }
    if supply.is_zero() || amount > supply {
        return Err(AmmError::InsufficientLiquidity);
    }
    let fee = imbalance_fee(fee, n)?;
    let xp = normalized(balances, rates)?;
    let d0 = get_d(&xp, amp, a_precision)?;
    if d0.is_zero() {
        return Err(AmmError::InsufficientLiquidity);
    }
    let d1 = d0
        .checked_sub(amount.checked_mul(d0).ok_or(AmmError::InvalidState)? / supply)
        .ok_or(AmmError::InvalidState)?;
    let new_y = get_y_d(i, &xp, d1, amp, a_precision)?;
    let mut reduced = xp.clone();
    for (j, x) in xp.iter().enumerate() {
        let scaled = x.checked_mul(d1).ok_or(AmmError::InvalidState)? / d0;
        let expected = if j == i { scaled.checked_sub(new_y) } else { x.checked_sub(scaled) }
            .ok_or(AmmError::InsufficientLiquidity)?;
        let charged = fee.checked_mul(expected).ok_or(AmmError::InvalidState)? / u(FEE_DENOMINATOR);
        reduced[j] = reduced[j].checked_sub(charged).ok_or(AmmError::InsufficientLiquidity)?;
    }
    let precision = PRECISION;
    let dy = reduced[i]
        .checked_sub(get_y_d(i, &reduced, d1, amp, a_precision)?)
        .and_then(|v| v.checked_sub(u(1)))
        .ok_or(AmmError::InsufficientLiquidity)?;
    let dy = dy.checked_mul(precision).ok_or(AmmError::InvalidState)? / rates[i];
    let dy_0 = xp[i].checked_sub(new_y).ok_or(AmmError::InsufficientLiquidity)?;
    let dy_0 = dy_0.checked_mul(precision).ok_or(AmmError::InvalidState)? / rates[i];
    let dy_fee = dy_0.checked_sub(dy).ok_or(AmmError::InvalidState)?;
    let admin = dy_fee.checked_mul(admin_fee).ok_or(AmmError::InvalidState)? / u(FEE_DENOMINATOR);
    if dy.is_zero() || dy.checked_add(admin).is_none_or(|t| t > balances[i]) {
        return Err(AmmError::InsufficientLiquidity);
    }
    Ok(RemoveOne { dy, admin_fee: admin })
}

/// `remove_liquidity(amount, [0; N])`: every coin in proportion,
/// `balances[i] · amount / supply` rounding down, no fee.
pub fn remove_liquidity(
    balances: &[U256],
    supply: U256,
    amount: U256,
) -> Result<Vec<U256>, AmmError> {
    if supply.is_zero() || amount > supply {
        return Err(AmmError::InsufficientLiquidity);
    }
    balances
        .iter()
        .map(|b| b.checked_mul(amount).map(|v| v / supply).ok_or(AmmError::InvalidState))
        .collect()
}

/// `PRECISION_MUL`-style rate of a coin with `decimals`.
pub fn rate_for_decimals(decimals: u8) -> Result<U256, AmmError> {
    if decimals > 36 {
        return Err(AmmError::InvalidState);
    }
    Ok(U256::from(10u8).pow(U256::from(36 - u32::from(decimals))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(n: u64, dec: u32) -> U256 {
        U256::from(n) * U256::from(10u8).pow(U256::from(dec))
    }

    #[test]
    fn balanced_pool_trades_near_par_minus_fee() {
        let rates =
            [rate_for_decimals(18).unwrap_or_default(), rate_for_decimals(6).unwrap_or_default()];
        let balances = [e(1_000_000, 18), e(1_000_000, 6)];
        let p = Params {
            amp: u(2000),
            a_precision: u(1),
            fee: u(1_000_000),
            admin_fee: u(5_000_000_000),
        };
        let x = exchange(&balances, &rates, p, 0, 1, e(1000, 18)).map(|x| x.dy).unwrap_or_default();
        let out = x;
        // About 1000 USDC less 1 bp of fee and a hair of curvature.
        assert!(out < e(1000, 6) && out > e(999, 6) + U256::from(800_000u32), "{out}");
    }

    #[test]
    fn a_precision_one_and_hundred_agree_in_value() {
        let rates = [rate_for_decimals(18).unwrap_or_default(); 2];
        let balances = [e(500, 18), e(700, 18)];
        let p = |amp, a_precision| Params {
            amp: u(amp),
            a_precision: u(a_precision),
            fee: u(1_000_000),
            admin_fee: U256::ZERO,
        };
        let old = exchange(&balances, &rates, p(30, 1), 0, 1, e(10, 18))
            .map(|x| x.dy)
            .unwrap_or_default();
        let new = exchange(&balances, &rates, p(3000, 100), 0, 1, e(10, 18))
            .map(|x| x.dy)
            .unwrap_or_default();
        let diff = if old > new { old - new } else { new - old };
        assert!(diff < U256::from(1_000_000u32), "{old} vs {new}");
    }

    #[test]
    fn d_of_a_balanced_pool_is_the_sum() {
        let xp = [e(100, 18), e(100, 18), e(100, 18)];
        assert_eq!(get_d(&xp, u(2000), u(1)), Ok(e(300, 18)));
    }
}

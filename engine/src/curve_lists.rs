//! Curve StableSwap pools found from Curve's own lists: the registry and
//! the factories, each of which answers `pool_count()` and `pool_list(i)`.
//!
//! A list is read at each head through the [`StateLens`]: one `eth_call`
//! for every list's count, and the list's entries again when its count
//! moved. A pool not routed yet is then examined at that block:
//!
//! 1. its identity and state: `coins(i)` until one fails, `balances(i)`,
//!    `A()`, `A_precise()`, `fee()`, `admin_fee()`, the list's
//!    `get_lp_token(pool)` (a factory's pool is its own token, and answers
//!    `totalSupply()`);
//! 2. a proof that the kernel prices it: each coin's `decimals()` and the
//!    pool's own `get_dy(0, 1, dx)` and `get_dy(1, 0, dy)`, at the same
//!    block, must equal what the kernel's StableSwap computes from the state
//!    read in 1, to the wei.
//!
//! A pool that passes becomes a template that the [listed
//! reader](crate::listed) reads at every head from then on. One that fails
//! (a metapool, whose base coin is priced at the base pool's virtual price;
//! a pool with rate oracles or a dynamic fee; a cryptoswap pool; an empty
//! pool) is set aside with the reason, and examined again when a list's
//! count moves.
//!
//! [`StateLens`]: crate::evm::artifacts::Artifact::StateLens

use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, sol};
use switchyard_catalog::{ChainId, PoolRecord, market::StableswapRecord};
use switchyard_kernel::amm::stableswap;

use crate::{
    listed::{
        A_preciseCall, ACall, LensAnswer, LensCall, NATIVE, Unread, admin_feeCall, balancesCall,
        feeCall, lens, lens_plans, ret, totalSupplyCall,
    },
    rpc::RpcClient,
    rpc_feed::FeedError,
};

/// Coins a StableSwap pool may hold.
const MAX_COINS: usize = 8;
/// Entries read from one list at most (Curve's registry holds 65,536).
pub(crate) const MAX_LISTED: u64 = 65_536;

sol! {
    function pool_count() external view returns (uint256);
    function pool_list(uint256 i) external view returns (address);
    function get_lp_token(address pool) external view returns (address);
    function coins(uint256 i) external view returns (address);
    function decimals() external view returns (uint256);
    function get_dy(int128 i, int128 j, uint256 dx) external view returns (uint256);
}

fn call(target: Address, data: Vec<u8>) -> LensCall {
    LensCall { target, data: data.into() }
}

/// Each list's `pool_count()` at `block`, or why it could not be read.
pub(crate) async fn counts(
    client: &RpcClient,
    lists: &[Address],
    block: u64,
) -> Result<Vec<Result<u64, String>>, FeedError> {
    let calls: Vec<LensCall> =
        lists.iter().map(|l| call(*l, pool_countCall {}.abi_encode())).collect();
    let answers = lens(client, &calls, block).await?;
    Ok(answers
        .iter()
        .map(|a| ret::<pool_countCall>(a, "pool_count()").map(|n| n.saturating_to::<u64>()))
        .collect())
}

/// The first `count` entries of `list` at `block` (zero addresses and
/// failed reads left out).
pub(crate) async fn entries(
    client: &RpcClient,
    list: Address,
    count: u64,
    block: u64,
) -> Result<Vec<Address>, FeedError> {
    let calls: Vec<LensCall> = (0..count.min(MAX_LISTED))
        .map(|i| call(list, pool_listCall { i: U256::from(i) }.abi_encode()))
        .collect();
    let answers = lens(client, &calls, block).await?;
    Ok(answers
        .iter()
        .filter_map(|a| ret::<pool_listCall>(a, "pool_list(i)").ok())
        .filter(|a| !a.is_zero())
        .collect())
}

/// The calls of step 1 for `pool`, found in `list`.
fn identity_calls(pool: Address, list: Address) -> Vec<LensCall> {
    let mut out: Vec<LensCall> =
        (0..MAX_COINS).map(|i| call(pool, coinsCall { i: U256::from(i) }.abi_encode())).collect();
    out.extend((0..MAX_COINS).map(|i| call(pool, balancesCall { i: U256::from(i) }.abi_encode())));
    out.push(call(pool, ACall {}.abi_encode()));
    out.push(call(pool, A_preciseCall {}.abi_encode()));
    out.push(call(pool, feeCall {}.abi_encode()));
    out.push(call(pool, admin_feeCall {}.abi_encode()));
    out.push(call(list, get_lp_tokenCall { pool }.abi_encode()));
    out.push(call(pool, totalSupplyCall {}.abi_encode()));
    out
}

/// `pool`'s template and state from the answers of [`identity_calls`].
fn identity(
    chain: ChainId,
    protocol: &str,
    pool: Address,
    answers: &[LensAnswer],
) -> Result<StableswapRecord, Unread> {
    let set_aside = |why: String| Unread { why, other_kind: true };
    let coins: Vec<Address> = answers[..MAX_COINS]
        .iter()
        .map_while(|a| ret::<coinsCall>(a, "coins(i)").ok().filter(|c| !c.is_zero()))
        .collect();
    if coins.len() < 2 {
        return Err(set_aside(format!("it answers {} coins", coins.len())));
    }
    if (1..coins.len()).any(|k| coins[..k].contains(&coins[k])) {
        return Err(set_aside(String::from("it lists a coin twice")));
    }
    let n = coins.len();
    let balances = answers[MAX_COINS..MAX_COINS + n]
        .iter()
        .map(|a| ret::<balancesCall>(a, "balances(i)"))
        .collect::<Result<Vec<_>, _>>()
        .map_err(set_aside)?;
    let at = 2 * MAX_COINS;
    let amp = ret::<ACall>(&answers[at], "A()").map_err(set_aside)?;
    if amp.is_zero() {
        return Err(set_aside(String::from("A() is 0")));
    }
    // Pools that answer `A_precise()` carry A times their A_PRECISION (100
    // on every such pool Curve deployed): `A()` is its floor over that,
    // also mid-ramp. The proof below checks the rest.
    let (a_precision, amp_precise) = match ret::<A_preciseCall>(&answers[at + 1], "A_precise()") {
        Ok(precise) => {
            let p = [100u32, 1_000, 10, 1]
                .into_iter()
                .find(|p| precise / U256::from(*p) == amp)
                .ok_or_else(|| {
                    set_aside(format!("A_precise() {precise} is no multiple of A() {amp}"))
                })?;
            (p, Some(precise))
        }
        Err(_) => (1, None),
    };
    let fee = ret::<feeCall>(&answers[at + 2], "fee()").map_err(set_aside)?;
    let admin_fee = ret::<admin_feeCall>(&answers[at + 3], "admin_fee()").map_err(set_aside)?;
    // The registry names the LP token of its older pools; a factory's pool
    // is its own token.
    let lp_token = ret::<get_lp_tokenCall>(&answers[at + 4], "get_lp_token(pool)")
        .ok()
        .filter(|t| !t.is_zero())
        .or_else(|| answers[at + 5].ok.then_some(pool));
    Ok(StableswapRecord {
        chain_id: chain,
        address: pool,
        protocol: protocol.to_owned(),
        lp_token,
        coins,
        balances,
        amp,
        fee,
        admin_fee: Some(admin_fee),
        a_precision: Some(a_precision),
        amp_precise,
        // Read at every head, from the token.
        lp_supply: lp_token.map(|_| U256::ZERO),
    })
}

/// The calls of step 2: each coin's decimals, then `get_dy(0, 1, dx)` and
/// `get_dy(1, 0, dy)` with a thousandth of the coin's balance.
fn proof_calls(p: &StableswapRecord) -> Vec<LensCall> {
    let mut out: Vec<LensCall> =
        p.coins.iter().map(|c| call(*c, decimalsCall {}.abi_encode())).collect();
    for (i, j) in [(0usize, 1usize), (1, 0)] {
        let dx = probe_amount(p.balances[i]);
        out.push(call(p.address, get_dyCall { i: i as i128, j: j as i128, dx }.abi_encode()));
    }
    out
}

fn probe_amount(balance: U256) -> U256 {
    (balance / U256::from(1_000)).max(U256::from(1))
}

/// Whether the kernel's StableSwap answers what the pool answered in
/// [`proof_calls`], from the state of `p`.
fn prove(p: &StableswapRecord, answers: &[LensAnswer]) -> Result<(), Unread> {
    let set_aside = |why: String| Unread { why, other_kind: true };
    if p.balances.iter().any(|b| b.is_zero()) {
        return Err(set_aside(String::from("it holds none of a coin")));
    }
    let n = p.coins.len();
    let rates = p
        .coins
        .iter()
        .zip(&answers[..n])
        .map(|(c, a)| {
            let d = if *c == NATIVE {
                U256::from(18)
            } else {
                ret::<decimalsCall>(a, "a coin's decimals()")?
            };
            u8::try_from(d)
                .ok()
                .and_then(|d| stableswap::rate_for_decimals(d).ok())
                .ok_or_else(|| format!("a coin answers {d} decimals"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(set_aside)?;
    let params = stableswap::Params {
        amp: p.amp_precise(),
        a_precision: U256::from(p.a_precision.unwrap_or(1)),
        fee: p.fee,
        admin_fee: p.admin_fee.unwrap_or_default(),
    };
    for (k, (i, j)) in [(0usize, 1usize), (1, 0)].into_iter().enumerate() {
        let dx = probe_amount(p.balances[i]);
        let theirs = ret::<get_dyCall>(&answers[n + k], "get_dy(i, j, dx)").map_err(set_aside)?;
        let ours =
            stableswap::exchange(&p.balances, &rates, params, i, j, dx).map(|x| x.dy).map_err(
                |e| set_aside(format!("the StableSwap math refuses get_dy({i}, {j}, {dx}): {e}")),
            )?;
        if ours != theirs {
            return Err(set_aside(format!(
                "get_dy({i}, {j}, {dx}) answers {theirs} where the StableSwap math gives {ours}: a variant the kernel does not price"
            )));
        }
    }
    Ok(())
}

/// Each of `pools` (a pool and the list it was found in) examined at
/// `block`: a template the kernel prices exactly, or why it is set aside.
pub(crate) async fn examine(
    client: &RpcClient,
    chain: ChainId,
    protocol: &str,
    pools: &[(Address, Address)],
    block: u64,
) -> Result<Vec<Result<PoolRecord, Unread>>, FeedError> {
    let plans: Vec<Vec<LensCall>> =
        pools.iter().map(|(pool, list)| identity_calls(*pool, *list)).collect();
    let answers = lens_plans(client, &plans, block).await?;
    let found: Vec<Result<StableswapRecord, Unread>> = pools
        .iter()
        .zip(&answers)
        .map(|((pool, _), a)| identity(chain, protocol, *pool, a))
        .collect();
    let proofs: Vec<Vec<LensCall>> =
        found.iter().map(|f| f.as_ref().map(proof_calls).unwrap_or_default()).collect();
    let answers = lens_plans(client, &proofs, block).await?;
    Ok(found
        .into_iter()
        .zip(&answers)
        .map(|(f, mine)| {
            let p = f?;
            prove(&p, mine)?;
            Ok(PoolRecord::Stableswap(p))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_sol_types::SolValue;

    fn word(v: U256) -> LensAnswer {
        LensAnswer { ok: true, data: v.abi_encode().into() }
    }
    fn addr(a: Address) -> LensAnswer {
        LensAnswer { ok: true, data: a.abi_encode().into() }
    }
    fn failed() -> LensAnswer {
        LensAnswer::failed()
    }
    fn e(n: u64, d: u32) -> U256 {
        U256::from(n) * U256::from(10u8).pow(U256::from(d))
    }

    /// The answers of a 2-coin pool (18 and 6 decimals) with `A_PRECISION`
    /// 100, listed by a factory (its own LP token).
    fn two_coins(pool: Address) -> Vec<LensAnswer> {
        let mut a = vec![addr(Address::repeat_byte(0xd1)), addr(Address::repeat_byte(0xc6))];
        a.extend((2..MAX_COINS).map(|_| failed()));
        a.push(word(e(5_000_000, 18)));
        a.push(word(e(4_000_000, 6)));
        a.extend((2..MAX_COINS).map(|_| failed()));
        a.push(word(U256::from(200))); // A
        a.push(word(U256::from(20_000))); // A_precise
        a.push(word(U256::from(4_000_000))); // fee
        a.push(word(U256::from(5_000_000_000u64))); // admin fee
        a.push(addr(Address::ZERO)); // get_lp_token: not the registry's
        a.push(word(e(9_000_000, 18))); // totalSupply: the pool is a token
        assert_eq!(a.len(), identity_calls(pool, Address::ZERO).len());
        a
    }

    #[test]
    fn a_factory_pool_is_its_own_token_with_the_precision_it_answers() {
        let pool = Address::repeat_byte(1);
        let p = identity(ChainId(1), "curve", pool, &two_coins(pool)).expect("a StableSwap pool");
        assert_eq!(p.coins.len(), 2);
        assert_eq!((p.a_precision, p.lp_token, p.amp), (Some(100), Some(pool), U256::from(200)));
        assert_eq!(p.balances, vec![e(5_000_000, 18), e(4_000_000, 6)]);
    }

    #[test]
    fn the_proof_accepts_the_kernels_answer_and_sets_aside_any_other() {
        let pool = Address::repeat_byte(1);
        let p = identity(ChainId(1), "curve", pool, &two_coins(pool)).expect("a StableSwap pool");
        let rates =
            [stableswap::rate_for_decimals(18).unwrap(), stableswap::rate_for_decimals(6).unwrap()];
        let params = stableswap::Params {
            amp: U256::from(20_000),
            a_precision: U256::from(100),
            fee: p.fee,
            admin_fee: p.admin_fee.unwrap_or_default(),
        };
        let dy = |i, j| {
            stableswap::exchange(&p.balances, &rates, params, i, j, probe_amount(p.balances[i]))
                .unwrap()
                .dy
        };
        let mut answers = vec![word(U256::from(18)), word(U256::from(6))];
        answers.push(word(dy(0, 1)));
        answers.push(word(dy(1, 0)));
        assert_eq!(proof_calls(&p).len(), answers.len());
        prove(&p, &answers).expect("the kernel's own answer");
        // A pool whose fee moves with the peg (or whose coin is priced by
        // an oracle) answers otherwise: set aside for good.
        answers[3] = word(dy(1, 0) - U256::from(1));
        let err = prove(&p, &answers).expect_err("another variant");
        assert!(err.other_kind && err.why.contains("does not price"), "{err:?}");
    }

    #[test]
    fn what_is_not_a_stableswap_pool_is_set_aside() {
        let pool = Address::repeat_byte(1);
        // A cryptoswap-like pool answering one coin, or none.
        let mut a = two_coins(pool);
        a[1] = failed();
        assert!(identity(ChainId(1), "curve", pool, &a).expect_err("one coin").other_kind);
        let none: Vec<LensAnswer> = (0..a.len()).map(|_| failed()).collect();
        assert!(identity(ChainId(1), "curve", pool, &none).expect_err("no contract").other_kind);
        // An empty pool cannot be proven.
        let mut empty = identity(ChainId(1), "curve", pool, &two_coins(pool)).expect("pool");
        empty.balances[1] = U256::ZERO;
        assert!(prove(&empty, &[]).expect_err("empty").why.contains("none of a coin"));
    }
}

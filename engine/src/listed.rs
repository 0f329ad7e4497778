//! The pools a market file or the embedded market lists on a chain a node
//! follows, other than Uniswap's (those come from the factories): Curve
//! StableSwap, Balancer V2 weighted, ERC-4626 vaults, Aave V3 and Compound
//! V2 markets, and Lido.
//!
//! A listed record is a template: its identity (address, coins, pool id,
//! asset, receipt, rounding rule, `A_PRECISION`, collateral factor) stays
//! as listed, and every number that moves is read from the node at each new
//! head, through the pool's own getters, in one
//! [`StateLens`](crate::evm::artifacts::Artifact::StateLens) `eth_call`
//! pinned to that block. Reading the state, rather than booking events,
//! keeps these kinds exact whatever moved them (a trade, a deposit, a
//! ramp, interest accruing every second), and costs one call per block for
//! all of a source's pools.
//!
//! | kind | read |
//! |---|---|
//! | StableSwap | `balances(i)`, `A()` (and `A_precise()`, exact mid-ramp), `fee()`, `admin_fee()`, the LP token's `totalSupply()` |
//! | weighted | the Vault's `getPoolTokens(poolId)`, the pool's `getNormalizedWeights()` and `getSwapFeePercentage()`; `getLastInvariant()`, which only the 2021 pools answer, names the pow rule; a pool with rate providers (`getRateProviders()`) is left out; a listed BPT's `totalSupply()`, entered only while the protocol's swap fee share is zero (the fees collector's `getSwapFeePercentage()` for a 2021 pool, `getProtocolFeePercentageCache(0)` for a later one) |
//! | ERC-4626 | `totalAssets()`, `totalSupply()` |
//! | Aave V3 | the pool's `getReserveNormalizedIncome(asset)`, the asset's `balanceOf(aToken)` |
//! | Compound V2 | `exchangeRateCurrent()` (accrued to the block), `getCash()` |
//! | Compound III | `accrueAccount(0)`, then `totalsBasic().baseSupplyIndex` (so accrued to the block), the base's `balanceOf(market)` |
//! | Lido | `getTotalPooledEther()`, `getTotalShares()` of the share ledger |
//!
//! A pool whose read fails (no contract at its address on this node, a
//! getter that reverts, tokens that differ from the listing) is left out of
//! that block's publication, with the reason.

use alloy_primitives::{Address, B256, Bytes, U256, address};
use alloy_sol_types::{SolCall, sol};
use switchyard_catalog::{
    PoolRecord,
    market::{LendingModel, StableswapRecord, WeightedRecord},
};

use crate::{evm::artifacts::Artifact, rpc::RpcClient, rpc_feed::FeedError};

/// The Balancer V2 Vault, at the same address on every chain.
pub(crate) const BALANCER_VAULT: Address = address!("ba12222222228d8ba445958a75a0704d566bf2c8");
/// The native coin's placeholder address.
pub(crate) const NATIVE: Address = address!("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
/// Calls per `eth_call` of the lens (each a getter of a few thousand gas).
const CALLS_PER_READ: usize = 400;

sol! {
    #[derive(Debug)]
    struct LensCall { address target; bytes data; }
    #[derive(Debug)]
    struct LensAnswer { bool ok; bytes data; }

    function balances(uint256 i) external view returns (uint256);
    function A() external view returns (uint256);
    function A_precise() external view returns (uint256);
    function fee() external view returns (uint256);
    function admin_fee() external view returns (uint256);
    function totalSupply() external view returns (uint256);
    function getPoolTokens(bytes32 poolId) external view returns (address[] tokens, uint256[] balances, uint256 lastChangeBlock);
    function getNormalizedWeights() external view returns (uint256[] weights);
    function getSwapFeePercentage() external view returns (uint256);
    function getLastInvariant() external view returns (uint256);
    function accrueAccount(address account) external;
    function totalsBasic() external view returns (uint64 baseSupplyIndex, uint64 baseBorrowIndex, uint64 trackingSupplyIndex, uint64 trackingBorrowIndex, uint104 totalSupplyBase, uint104 totalBorrowBase, uint40 lastAccrualTime, uint8 pauseFlags);
    function getRateProviders() external view returns (address[] providers);
    function getProtocolFeePercentageCache(uint256 feeType) external view returns (uint256);
    function totalAssets() external view returns (uint256);
    function getReserveNormalizedIncome(address asset) external view returns (uint256);
    function balanceOf(address who) external view returns (uint256);
    function exchangeRateCurrent() external returns (uint256);
    function getCash() external view returns (uint256);
    function getTotalPooledEther() external view returns (uint256);
    function getTotalShares() external view returns (uint256);
}

/// The calls that read `record`'s moving state, in the order
/// [`apply`] takes their answers.
fn calls(record: &PoolRecord) -> Vec<LensCall> {
    let call = |target: Address, data: Vec<u8>| LensCall { target, data: data.into() };
    match record {
        // Uniswap's pools come from the factories, never from a listing.
        PoolRecord::UniswapV2(_) | PoolRecord::UniswapV3(_) => Vec::new(),
        PoolRecord::Stableswap(p) => {
            let mut out: Vec<LensCall> = (0..p.coins.len())
                .map(|i| call(p.address, balancesCall { i: U256::from(i) }.abi_encode()))
                .collect();
            out.push(call(p.address, ACall {}.abi_encode()));
            out.push(call(p.address, A_preciseCall {}.abi_encode()));
            out.push(call(p.address, feeCall {}.abi_encode()));
            out.push(call(p.address, admin_feeCall {}.abi_encode()));
            out.push(call(p.lp_token.unwrap_or(p.address), totalSupplyCall {}.abi_encode()));
            out
        }
        PoolRecord::Weighted(p) => {
            let mut out = vec![
                call(
                    BALANCER_VAULT,
                    getPoolTokensCall { poolId: p.pool_id.unwrap_or_default() }.abi_encode(),
                ),
                call(p.address, getNormalizedWeightsCall {}.abi_encode()),
                call(p.address, getSwapFeePercentageCall {}.abi_encode()),
                call(p.address, getLastInvariantCall {}.abi_encode()),
                call(p.address, getRateProvidersCall {}.abi_encode()),
            ];
            if p.bpt_supply.is_some() {
                // The BPT's supply, and the protocol's share of swap fees:
                // the 2021 pools are told it by the Vault, from its fees
                // collector; the later ones cache the provider's (fee
                // type 0, swaps).
                out.push(call(p.address, totalSupplyCall {}.abi_encode()));
                out.push(call(balancer_fees_collector(), getSwapFeePercentageCall {}.abi_encode()));
                out.push(call(
                    p.address,
                    getProtocolFeePercentageCacheCall { feeType: U256::ZERO }.abi_encode(),
                ));
            }
            out
        }
        PoolRecord::Erc4626(p) => vec![
            call(p.address, totalAssetsCall {}.abi_encode()),
            call(p.address, totalSupplyCall {}.abi_encode()),
        ],
        PoolRecord::Lending(p) => match p.model {
            LendingModel::Aave => vec![
                call(p.address, getReserveNormalizedIncomeCall { asset: p.asset }.abi_encode()),
                call(p.asset, balanceOfCall { who: p.receipt }.abi_encode()),
            ],
            LendingModel::Compound => vec![
                call(p.receipt, exchangeRateCurrentCall {}.abi_encode()),
                call(p.receipt, getCashCall {}.abi_encode()),
            ],
            // The lens's calls are plain calls in one `eth_call`: the market
            // accrued to the block, then its totals, then its cash.
            LendingModel::Comet => vec![
                call(p.address, accrueAccountCall { account: Address::ZERO }.abi_encode()),
                call(p.address, totalsBasicCall {}.abi_encode()),
                call(p.asset, balanceOfCall { who: p.address }.abi_encode()),
            ],
        },
        PoolRecord::LiquidStaking(p) => {
            // Staking the native coin, the receipt keeps the share ledger
            // (stETH); a wrapper over a staked token (wstETH) reads the
            // wrapped token's.
            let ledger = if p.asset == NATIVE { p.address } else { p.asset };
            vec![
                call(ledger, getTotalPooledEtherCall {}.abi_encode()),
                call(ledger, getTotalSharesCall {}.abi_encode()),
            ]
        }
    }
}

/// Why a listed pool could not be read at a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    /// What failed.
    pub(crate) why: String,
    /// The pool is not of the listed kind (a Balancer pool that does not
    /// answer `getNormalizedWeights()`): it never will be.
    pub(crate) other_kind: bool,
}

impl LensAnswer {
    /// The answer of a call the lens could not make.
    pub(crate) const fn failed() -> Self {
        Self { ok: false, data: Bytes::new() }
    }
}

impl From<String> for Unread {
    fn from(why: String) -> Self {
        Self { why, other_kind: false }
    }
}

/// `answer`'s return data, decoded as `C`'s.
pub(crate) fn ret<C: SolCall>(answer: &LensAnswer, what: &str) -> Result<C::Return, String> {
    if !answer.ok {
        return Err(format!("{what} reverted or has no contract"));
    }
    C::abi_decode_returns(&answer.data).map_err(|e| format!("{what}: {e}"))
}

/// `template` with the state the node answered (`answers` in the order of
/// [`calls`]).
fn apply(template: &PoolRecord, answers: &[LensAnswer]) -> Result<PoolRecord, Unread> {
    let mut next = template.clone();
    match &mut next {
        PoolRecord::UniswapV2(_) | PoolRecord::UniswapV3(_) => {}
        PoolRecord::Stableswap(p) => stableswap(p, answers)?,
        PoolRecord::Weighted(p) => weighted(p, answers)?,
        PoolRecord::Erc4626(p) => {
            p.total_assets = ret::<totalAssetsCall>(&answers[0], "totalAssets()")?;
            p.total_supply = ret::<totalSupplyCall>(&answers[1], "totalSupply()")?;
        }
        PoolRecord::Lending(p) => match p.model {
            LendingModel::Aave => {
                p.exchange_rate = ret::<getReserveNormalizedIncomeCall>(
                    &answers[0],
                    "getReserveNormalizedIncome(asset)",
                )?;
                p.available_liquidity =
                    ret::<balanceOfCall>(&answers[1], "the asset's balanceOf(aToken)")?;
            }
            LendingModel::Compound => {
                p.exchange_rate =
                    ret::<exchangeRateCurrentCall>(&answers[0], "exchangeRateCurrent()")?;
                p.available_liquidity = ret::<getCashCall>(&answers[1], "getCash()")?;
            }
            LendingModel::Comet => {
                if !answers[0].ok {
                    return Err("accrueAccount(address) reverted or has no contract"
                        .to_owned()
                        .into());
                }
                let totals = ret::<totalsBasicCall>(&answers[1], "totalsBasic()")?;
                p.exchange_rate = U256::from(totals.baseSupplyIndex);
                p.available_liquidity =
                    ret::<balanceOfCall>(&answers[2], "the base's balanceOf(market)")?;
            }
        },
        PoolRecord::LiquidStaking(p) => {
            p.total_pooled_asset =
                ret::<getTotalPooledEtherCall>(&answers[0], "getTotalPooledEther()")?;
            p.total_shares = ret::<getTotalSharesCall>(&answers[1], "getTotalShares()")?;
        }
    }
    Ok(next)
}

fn stableswap(p: &mut StableswapRecord, answers: &[LensAnswer]) -> Result<(), Unread> {
    let n = p.coins.len();
    for (i, a) in answers[..n].iter().enumerate() {
        p.balances[i] = ret::<balancesCall>(a, "balances(i)")?;
    }
    let amp = ret::<ACall>(&answers[n], "A()")?;
    let precision = U256::from(p.a_precision.unwrap_or(1).max(1));
    p.amp = amp;
    p.amp_precise = None;
    if precision > U256::from(1) {
        // Pools with a precision answer `A_precise()`, which a ramp moves
        // between multiples of the precision: the pool computes with it.
        let precise = ret::<A_preciseCall>(&answers[n + 1], "A_precise()")?;
        if precise / precision != amp {
            return Err(
                format!("A_precise() {precise} is not A() {amp} at precision {precision}").into()
            );
        }
        p.amp_precise = (precise != amp * precision).then_some(precise);
    }
    p.fee = ret::<feeCall>(&answers[n + 2], "fee()")?;
    p.admin_fee = Some(ret::<admin_feeCall>(&answers[n + 3], "admin_fee()")?);
    if p.lp_supply.is_some() {
        p.lp_supply =
            Some(ret::<totalSupplyCall>(&answers[n + 4], "the LP token's totalSupply()")?);
    }
    Ok(())
}

fn weighted(p: &mut WeightedRecord, answers: &[LensAnswer]) -> Result<(), Unread> {
    if p.pool_id.is_none_or(|id| id == B256::ZERO) {
        return Err(String::from("the listing has no Balancer pool id").into());
    }
    let tokens = ret::<getPoolTokensCall>(&answers[0], "the Vault's getPoolTokens(poolId)")?;
    if tokens.tokens != p.tokens {
        return Err(
            format!("the Vault lists tokens {:?}, not the listed ones", tokens.tokens).into()
        );
    }
    let weights = ret::<getNormalizedWeightsCall>(&answers[1], "getNormalizedWeights()")
        .map_err(|why| Unread { why, other_kind: true })?;
    if weights.len() != p.tokens.len() {
        return Err(format!("{} weights for {} tokens", weights.len(), p.tokens.len()).into());
    }
    // Pools since 2022 may scale balances by rate providers, which the
    // kernel does not price.
    if let Ok(providers) = ret::<getRateProvidersCall>(&answers[4], "getRateProviders()")
        && providers.iter().any(|a| !a.is_zero())
    {
        return Err(String::from(
            "its balances are scaled by rate providers, which are not priced",
        )
        .into());
    }
    p.balances = tokens.balances;
    p.weights = weights;
    p.swap_fee = ret::<getSwapFeePercentageCall>(&answers[2], "getSwapFeePercentage()")?;
    // The 2021 pools (the first factories) answer `getLastInvariant()`,
    // the later ones do not: their pow has the exact shortcuts.
    p.pool_version = answers[3].ok.then_some(1);
    // A listed BPT takes the pool's supply. A pool that pays the protocol
    // a share of its swap fees collects it on every join and exit (the
    // 2021 pools in coins out of the balances, the later ones in BPT
    // minted), which the kernel does not quote: its BPT is then not
    // entered, nor when its supply or that share cannot be read; its coins
    // still trade.
    if p.bpt_supply.is_some() {
        let fee = if p.pool_version == Some(1) {
            ret::<getSwapFeePercentageCall>(&answers[6], "the fees collector's swap fee")
        } else {
            ret::<getProtocolFeePercentageCacheCall>(&answers[7], "the protocol swap fee cache")
        };
        let supply = ret::<totalSupplyCall>(&answers[5], "the BPT's totalSupply()");
        p.bpt_supply = match (fee, supply) {
            (Ok(f), Ok(s)) if f.is_zero() && !s.is_zero() => Some(s),
            _ => None,
        };
    }
    Ok(())
}

/// Balancer's `ProtocolFeesCollector`: the first contract the Vault
/// creates in its constructor, at the same address wherever the Vault is.
fn balancer_fees_collector() -> Address {
    BALANCER_VAULT.create(1)
}

/// An answer's bytes, as [`chunks`] counts them: whether it succeeded and
/// its length (3 bytes), and a word or a short string (96). A batch that
/// answers more than the node allows is halved.
const ANSWER_GUESS: usize = 99;

/// `calls` cut into batches of at most [`CALLS_PER_READ`] whose encoding,
/// after a lens of `lens_len` bytes, fits the initcode limit, and whose
/// answers, guessed, fit the answer limit.
fn chunks(calls: &[LensCall], lens_len: usize) -> Vec<&[LensCall]> {
    let budget = crate::rpc::MAX_INITCODE_BYTES.saturating_sub(lens_len + 32);
    let answer_budget = crate::rpc::MAX_ANSWER_CODE_BYTES;
    let mut out = Vec::new();
    let (mut start, mut used, mut answered) = (0, 0, 0);
    for (k, c) in calls.iter().enumerate() {
        let size = 22 + c.data.len();
        if k > start
            && (used + size > budget
                || answered + ANSWER_GUESS > answer_budget
                || k - start == CALLS_PER_READ)
        {
            out.push(&calls[start..k]);
            (start, used, answered) = (k, 0, 0);
        }
        used += size;
        answered += ANSWER_GUESS;
    }
    if start < calls.len() {
        out.push(&calls[start..]);
    }
    out
}

/// What follows `StateLens`'s initcode: each call's target, its data's
/// length (two bytes) and its data, then the list's length as one word.
/// The calls are getters with a few arguments; data longer than two bytes
/// can count is cut (and cannot fit the initcode limit anyway).
fn encode(calls: &[LensCall]) -> Vec<u8> {
    let mut out = Vec::with_capacity(calls.iter().map(|c| 22 + c.data.len()).sum::<usize>() + 32);
    for c in calls {
        let len = c.data.len().min(usize::from(u16::MAX));
        out.extend_from_slice(c.target.as_slice());
        out.extend_from_slice(&(len as u16).to_be_bytes());
        out.extend_from_slice(&c.data[..len]);
    }
    let len = out.len();
    out.extend_from_slice(&U256::from(len).to_be_bytes::<32>());
    out
}

/// `StateLens`'s answer: per call whether it succeeded (one byte), its
/// return data's length (two) and its return data.
fn decode(mut out: &[u8]) -> Result<Vec<LensAnswer>, String> {
    let mut answers = Vec::new();
    while !out.is_empty() {
        let [ok, hi, lo, rest @ ..] = out else {
            return Err(format!("an answer cut after {} bytes", out.len()));
        };
        let len = usize::from(u16::from_be_bytes([*hi, *lo]));
        let data = rest.get(..len).ok_or_else(|| format!("an answer of {len} bytes cut"))?;
        answers.push(LensAnswer { ok: *ok == 1, data: Bytes::copy_from_slice(data) });
        out = &rest[len..];
    }
    Ok(answers)
}

/// The answers of `calls` at `block`, in order, through the lens in batches
/// that fit the node's limits (a call the lens could not make answers
/// `ok: false`).
pub(crate) async fn lens(
    client: &RpcClient,
    calls: &[LensCall],
    block: u64,
) -> Result<Vec<LensAnswer>, FeedError> {
    let lens = Artifact::StateLens.initcode().map_err(|e| FeedError::Lens(e.to_string()))?;
    let mut answers: Vec<LensAnswer> = Vec::with_capacity(calls.len());
    for chunk in chunks(calls, lens.len()) {
        // A batch whose answers pass the node's size limit is halved.
        let read = client
            .lens_batches(&lens, chunk, block, chunk.len(), encode, decode, |_| None, |_| {})
            .await?;
        answers.extend(read.into_iter().map(|(_, a)| a.unwrap_or_else(|_| LensAnswer::failed())));
    }
    Ok(answers)
}

/// The answers of each plan of calls at `block`, in one pass of batches.
pub(crate) async fn lens_plans(
    client: &RpcClient,
    plans: &[Vec<LensCall>],
    block: u64,
) -> Result<Vec<Vec<LensAnswer>>, FeedError> {
    let all: Vec<LensCall> = plans.iter().flatten().cloned().collect();
    let mut answers = lens(client, &all, block).await?.into_iter();
    // A plan is answered in full: a call without an answer failed.
    Ok(plans
        .iter()
        .map(|plan| {
            let mut mine: Vec<LensAnswer> = answers.by_ref().take(plan.len()).collect();
            mine.resize_with(plan.len(), LensAnswer::failed);
            mine
        })
        .collect())
}

/// Each of `templates` as the node has it at `block`, or why it cannot be
/// read there.
pub(crate) async fn read(
    client: &RpcClient,
    templates: &[PoolRecord],
    block: u64,
) -> Result<Vec<Result<PoolRecord, Unread>>, FeedError> {
    let plans: Vec<Vec<LensCall>> = templates.iter().map(calls).collect();
    let answers = lens_plans(client, &plans, block).await?;
    Ok(templates.iter().zip(&answers).map(|(t, mine)| apply(t, mine)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_sol_types::SolValue;
    use switchyard_catalog::{ChainId, market::Erc4626Record};

    fn word(v: u64) -> LensAnswer {
        LensAnswer { ok: true, data: U256::from(v).abi_encode().into() }
    }

    #[test]
    fn calls_and_answers_are_packed() {
        let calls = [
            LensCall { target: Address::repeat_byte(1), data: Bytes::from(vec![0xaa; 4]) },
            LensCall { target: Address::repeat_byte(2), data: Bytes::new() },
        ];
        let bytes = encode(&calls);
        assert_eq!(bytes.len(), 26 + 22 + 32);
        assert_eq!(&bytes[..26], &[&[1u8; 20][..], &[0, 4], &[0xaa; 4]].concat()[..]);
        assert_eq!(&bytes[26..48], &[&[2u8; 20][..], &[0, 0]].concat()[..]);
        assert_eq!(U256::from_be_slice(&bytes[48..]), U256::from(48));
        let answers = decode(&[1, 0, 2, 7, 8, 0, 0, 0]).unwrap();
        assert_eq!((answers[0].ok, &answers[0].data[..]), (true, &[7u8, 8][..]));
        assert_eq!((answers[1].ok, answers[1].data.len()), (false, 0));
        assert!(decode(&[1, 0, 3, 7]).is_err());
        assert!(decode(&[1, 0]).is_err());
    }

    #[test]
    fn every_batch_fits_the_initcode_limit() {
        let lens = Artifact::StateLens.initcode().expect("lens").len();
        let calls: Vec<LensCall> = (0..5_000u32)
            .map(|i| LensCall {
                target: Address::repeat_byte(7),
                data: balancesCall { i: U256::from(i) }.abi_encode().into(),
            })
            .collect();
        let batches = chunks(&calls, lens);
        assert_eq!(batches.iter().map(|b| b.len()).sum::<usize>(), calls.len());
        for b in &batches {
            let size = lens + encode(b).len();
            assert!(size <= crate::rpc::MAX_INITCODE_BYTES, "{size}");
            assert!(b.len() * ANSWER_GUESS <= crate::rpc::MAX_ANSWER_CODE_BYTES);
        }
        assert!(batches.len() < 30, "{} batches", batches.len());
    }

    #[test]
    fn a_vault_takes_the_totals_the_node_answers() {
        let t = PoolRecord::Erc4626(Erc4626Record {
            chain_id: ChainId(1),
            address: Address::repeat_byte(1),
            protocol: "v".into(),
            asset: Address::repeat_byte(2),
            total_assets: U256::from(1),
            total_supply: U256::from(1),
            rule: Default::default(),
            decimals_offset: 0,
        });
        assert_eq!(calls(&t).len(), 2);
        let PoolRecord::Erc4626(v) = apply(&t, &[word(150), word(100)]).expect("read") else {
            panic!("kind kept")
        };
        assert_eq!((v.total_assets, v.total_supply), (U256::from(150), U256::from(100)));
        let failed = LensAnswer::failed();
        let err = apply(&t, &[failed, word(1)]).expect_err("a revert leaves it out");
        assert!(err.why.contains("totalAssets()") && !err.other_kind, "{err:?}");
    }

    #[test]
    fn a_listed_bpt_takes_its_supply_while_the_protocol_takes_no_fee_share() {
        let e16 = 10_000_000_000_000_000u64;
        let (t0, t1) = (Address::repeat_byte(2), Address::repeat_byte(3));
        let t = PoolRecord::Weighted(WeightedRecord {
            chain_id: ChainId(1),
            address: Address::repeat_byte(1),
            protocol: "balancer-v2".into(),
            pool_id: Some(B256::repeat_byte(9)),
            tokens: vec![t0, t1],
            balances: vec![U256::ZERO; 2],
            weights: vec![U256::ZERO; 2],
            swap_fee: U256::ZERO,
            pool_version: None,
            bpt_supply: Some(U256::ONE),
        });
        assert_eq!(calls(&t).len(), 8);
        // Balancer's ProtocolFeesCollector, as deployed with the Vault.
        assert_eq!(balancer_fees_collector(), address!("ce88686553686da562ce7cea497ce749da109f9f"));
        let tokens = LensAnswer {
            ok: true,
            data: getPoolTokensCall::abi_encode_returns(&getPoolTokensReturn {
                tokens: vec![t0, t1],
                balances: vec![U256::from(5), U256::from(7)],
                lastChangeBlock: U256::ZERO,
            })
            .into(),
        };
        let weights = LensAnswer {
            ok: true,
            data: vec![U256::from(50 * e16), U256::from(50 * e16)].abi_encode().into(),
        };
        let failed = LensAnswer::failed;
        // A 2021 pool (answers getLastInvariant) whose collector takes 0.
        let v1 = [
            tokens.clone(),
            weights.clone(),
            word(e16),
            word(1),
            failed(),
            word(900),
            word(0),
            failed(),
        ];
        let PoolRecord::Weighted(p) = apply(&t, &v1).expect("read") else { panic!() };
        assert_eq!((p.pool_version, p.bpt_supply), (Some(1), Some(U256::from(900))));
        // The collector takes half of the swap fees: the BPT is not entered.
        let mut taxed = v1;
        taxed[6] = word(50 * e16);
        let PoolRecord::Weighted(p) = apply(&t, &taxed).expect("read") else { panic!() };
        assert_eq!(p.bpt_supply, None);
        // A later pool reads its own cache.
        let v3 = [tokens, weights, word(e16), failed(), failed(), word(800), failed(), word(0)];
        let PoolRecord::Weighted(p) = apply(&t, &v3).expect("read") else { panic!() };
        assert_eq!((p.pool_version, p.bpt_supply), (None, Some(U256::from(800))));
        let mut cached = v3.clone();
        cached[7] = failed();
        let PoolRecord::Weighted(p) = apply(&t, &cached).expect("read") else { panic!() };
        assert_eq!(p.bpt_supply, None, "an unreadable fee share is not assumed zero");
        // An unreadable supply leaves the BPT out, not the pool.
        let mut unread = v3;
        unread[5] = failed();
        let PoolRecord::Weighted(p) = apply(&t, &unread).expect("the coins still read") else {
            panic!()
        };
        assert_eq!((p.bpt_supply, p.balances.len()), (None, 2));
        // A pool whose BPT is not listed asks for none of it.
        let PoolRecord::Weighted(mut plain) = t else { panic!() };
        plain.bpt_supply = None;
        assert_eq!(calls(&PoolRecord::Weighted(plain)).len(), 5);
    }

    #[test]
    fn a_curve_pool_mid_ramp_keeps_its_precise_a() {
        let t = PoolRecord::Stableswap(StableswapRecord {
            chain_id: ChainId(1),
            address: Address::repeat_byte(1),
            protocol: "curve".into(),
            lp_token: None,
            coins: vec![Address::repeat_byte(2), Address::repeat_byte(3)],
            balances: vec![U256::ZERO; 2],
            amp: U256::from(100),
            fee: U256::ZERO,
            admin_fee: None,
            a_precision: Some(100),
            amp_precise: None,
            lp_supply: None,
        });
        let ok = [word(5), word(7), word(200), word(20_000), word(4_000_000), word(0), word(0)];
        let PoolRecord::Stableswap(p) = apply(&t, &ok).expect("read") else { panic!() };
        assert_eq!(
            (p.balances.clone(), p.amp, p.fee),
            (vec![U256::from(5), U256::from(7)], U256::from(200), U256::from(4_000_000))
        );
        assert_eq!(p.amp_precise, None, "a whole A");
        let ramp = [word(5), word(7), word(200), word(20_050), word(0), word(0), word(0)];
        let PoolRecord::Stableswap(p) = apply(&t, &ramp).expect("mid ramp") else { panic!() };
        assert_eq!((p.amp, p.amp_precise()), (U256::from(200), U256::from(20_050)));
        // An A_precise that A() does not floor is not this kind of pool.
        let odd = [word(5), word(7), word(200), word(30_000), word(0), word(0), word(0)];
        assert!(apply(&t, &odd).is_err());
    }
}

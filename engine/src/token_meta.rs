//! Tokens no catalog lists, read from the node that follows their chain:
//! `decimals()`, `symbol()` and `name()`, through the state lens.
//!
//! - `decimals()` must answer one word at most 36 (the kernel's and the
//!   world's tokens work in that range); a token whose `decimals()` reverts
//!   or answers anything else is unusable, and its pools stay out.
//! - `symbol()` and `name()` answer an ABI `string`, or a `bytes32` (the
//!   older tokens, MKR and SAI among them), trimmed of its zero padding; a
//!   getter that reverts or answers neither leaves the field to a
//!   fallback: the name takes the symbol, the symbol the address's first
//!   and last bytes.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolError, SolValue, sol};
use switchyard_catalog::{ChainId, Token};

use crate::rpc::RpcClient;

/// `decimals()`.
const DECIMALS: [u8; 4] = [0x31, 0x3c, 0xe5, 0x67];
/// `symbol()`.
const SYMBOL: [u8; 4] = [0x95, 0xd8, 0x9b, 0x41];
/// `name()`.
const NAME: [u8; 4] = [0x06, 0xfd, 0xde, 0x03];

/// The most decimals a discovered token may have.
pub const MAX_DECIMALS: u8 = 36;

/// Reads each of `tokens` at `block`: `Ok` with its catalog entry (source
/// `node`), or `Err` with why it is unusable. The three getters of every
/// token go through the [`StateLens`](crate::evm::artifacts::Artifact::StateLens),
/// a few thousand to an `eth_call`. Fails only when a call itself fails
/// (the node is away).
pub async fn discover(
    client: &RpcClient,
    chain: ChainId,
    tokens: &[Address],
    block: u64,
) -> Result<Vec<(Address, Result<Token, String>)>, crate::rpc_feed::FeedError> {
    use crate::listed::LensCall;
    let plans: Vec<Vec<LensCall>> = tokens
        .iter()
        .map(|t| {
            [DECIMALS, SYMBOL, NAME]
                .iter()
                .map(|s| LensCall { target: *t, data: Bytes::from(s.to_vec()) })
                .collect()
        })
        .collect();
    let answers = crate::listed::lens_plans(client, &plans, block).await?;
    Ok(tokens
        .iter()
        .zip(answers)
        .map(|(token, a)| {
            let answer = |k: usize| a.get(k).filter(|a| a.ok).map(|a| a.data.clone());
            let entry = parse_decimals(answer(0).as_ref()).map(|decimals| {
                let symbol = answer(1).and_then(|b| text(&b)).unwrap_or_else(|| short(*token));
                let name = answer(2).and_then(|b| text(&b)).unwrap_or_else(|| symbol.clone());
                token_entry(chain, *token, decimals, symbol, name)
            });
            (*token, entry)
        })
        .collect())
}

/// A `decimals()` answer: one word, at most [`MAX_DECIMALS`].
fn parse_decimals(answer: Option<&Bytes>) -> Result<u8, String> {
    let Some(b) = answer else { return Err("decimals() reverts".into()) };
    if b.len() != 32 {
        return Err(format!("decimals() answers {} bytes", b.len()));
    }
    let d = U256::from_be_slice(b);
    u8::try_from(d)
        .ok()
        .filter(|d| *d <= MAX_DECIMALS)
        .ok_or_else(|| format!("decimals() is {d}, above {MAX_DECIMALS}"))
}

/// A `symbol()`/`name()` answer: an ABI string, else a `bytes32` trimmed of
/// its zero padding; `None` for anything else, or nothing printable.
fn text(b: &Bytes) -> Option<String> {
    let s = match String::abi_decode(b) {
        Ok(s) => s,
        Err(_) if b.len() == 32 => {
            let end = b.iter().position(|c| *c == 0).unwrap_or(32);
            String::from_utf8_lossy(&b[..end]).into_owned()
        }
        Err(_) => return None,
    };
    let s: String = s.chars().filter(|c| !c.is_control()).collect();
    let s = s.trim();
    (!s.is_empty()).then(|| s.chars().take(64).collect())
}

/// `0x1234…abcd`: a symbol for a token that has none.
fn short(token: Address) -> String {
    let hex = format!("{token:#x}");
    format!("{}…{}", &hex[..6], &hex[hex.len() - 4..])
}

fn token_entry(
    chain: ChainId,
    address: Address,
    decimals: u8,
    symbol: String,
    name: String,
) -> Token {
    Token { source: Some("node".to_owned()), ..Token::base(chain, address, decimals, symbol, name) }
}

sol! {
    struct ProbeCall { address token; address pool; uint8 kind; bool isToken0; }
    struct ProbeResult { bool ok; uint256 asked; uint256 received; uint256 sent; uint256 arrived; bytes reason; }
    error NothingToBorrow();
    struct HeldCall { address token; address holder; }
    function probeAll(HeldCall[] requests) returns (ProbeResult[] results);
}

/// One token to probe: a pool of it to borrow from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbeRequest {
    /// The token.
    pub token: Address,
    /// A pool holding it.
    pub pool: Address,
    /// A Uniswap V3 pool (else a V2 pair).
    pub v3: bool,
    /// The token is the pool's token0.
    pub is_token0: bool,
}

/// What a simulated transfer found about a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transfers {
    /// Both transfers moved exactly the amount asked.
    Exact,
    /// A transfer moved another amount (a fee on transfer, a rebase on
    /// transfer) or reverted (a blocklist, a pause): why.
    Unusual(String),
    /// The pool held none to borrow: nothing is known yet.
    Unknown,
}

/// Simulates, at `block`, a transfer of each request's token out of its
/// pool and on to a fresh address (one `eth_call` of the
/// [`TransferProbe`](crate::evm::artifacts::Artifact::TransferProbe)
/// initcode, which changes nothing).
pub async fn probe_transfers(
    client: &RpcClient,
    requests: &[ProbeRequest],
    block: u64,
) -> Result<Vec<Transfers>, crate::rpc_feed::FeedError> {
    use crate::rpc_feed::FeedError;
    if requests.is_empty() {
        return Ok(Vec::new());
    }
    let lens = crate::evm::artifacts::Artifact::TransferProbe
        .initcode()
        .map_err(|e| FeedError::Lens(e.to_string()))?;
    // A probe is a flash swap and two transfers, about 100k gas: 64 fit in
    // one call's gas and their answers (seven words and a revert reason)
    // in the node's answer limit; a batch the node refuses is halved.
    let read = client
        .lens_batches(
            &lens,
            requests,
            block,
            64,
            |items: &[ProbeRequest]| {
                items
                    .iter()
                    .map(|r| ProbeCall {
                        token: r.token,
                        pool: r.pool,
                        kind: u8::from(r.v3),
                        isToken0: r.is_token0,
                    })
                    .collect::<Vec<_>>()
                    .abi_encode()
            },
            |out: &[u8]| <Vec<ProbeResult>>::abi_decode(out).map_err(|e| e.to_string()),
            |_| None,
            |_| {},
        )
        .await?;
    Ok(verdicts(read))
}

/// The account a held probe is addressed to: the code is lent to it.
fn coordinator() -> Address {
    Address::from_slice(&alloy_primitives::keccak256(b"switchyard held probe")[12..])
}

/// `HeldProbe.sol`'s relay, which lends the code too.
fn relay() -> Address {
    Address::from_slice(&alloy_primitives::keccak256(b"switchyard held probe relay")[12..])
}

/// Simulates, at `block`, a transfer of each `(token, holder)`'s token out
/// of the holder (a Curve pool, the Balancer Vault: accounts with no flash
/// swap) and on to a fresh address: one `eth_call` per batch, with the
/// [`HeldProbe`](crate::evm::artifacts::Artifact::HeldProbe) runtime lent
/// to the holders through the call's state override set, which changes
/// nothing. A node that refuses overrides answers every token
/// [`Transfers::Unusual`] with its reason, so no token it cannot vouch for
/// is routed.
pub async fn probe_held(
    client: &RpcClient,
    requests: &[(Address, Address)],
    block: u64,
) -> Result<Vec<Transfers>, crate::rpc_feed::FeedError> {
    use crate::rpc_feed::FeedError;
    if requests.is_empty() {
        return Ok(Vec::new());
    }
    let code = crate::evm::artifacts::Artifact::HeldProbe
        .runtime()
        .map_err(|e| FeedError::Lens(e.to_string()))?;
    let relay = relay();
    let read = client
        .lent_code_batches(
            coordinator(),
            &code,
            requests,
            block,
            32,
            |items: &[(Address, Address)]| {
                let requests = items
                    .iter()
                    .map(|(token, holder)| HeldCall { token: *token, holder: *holder })
                    .collect();
                probeAllCall { requests }.abi_encode()
            },
            |items| std::iter::once(relay).chain(items.iter().map(|(_, h)| *h)).collect(),
            |out: &[u8]| probeAllCall::abi_decode_returns(out).map_err(|e| e.to_string()),
        )
        .await?;
    Ok(verdicts(read))
}

/// The verdict of each probe read, in order (one the node refused is
/// [`Transfers::Unusual`] with its reason).
fn verdicts<I>(read: Vec<(I, Result<ProbeResult, String>)>) -> Vec<Transfers> {
    read.into_iter()
        .map(|(_, r)| match r {
            Ok(r) => judge(&r),
            Err(why) => Transfers::Unusual(format!("the node refused to probe it: {why}")),
        })
        .collect()
}

/// The verdict of one probe.
fn judge(r: &ProbeResult) -> Transfers {
    if !r.ok {
        if r.reason.starts_with(&NothingToBorrow::SELECTOR) {
            return Transfers::Unknown;
        }
        return Transfers::Unusual(format!(
            "a transfer out of its pool reverted (revert data {})",
            r.reason
        ));
    }
    if r.received != r.asked {
        return Transfers::Unusual(format!(
            "the pool sent {} and {} arrived (a fee or rebase on transfer)",
            r.asked, r.received
        ));
    }
    if r.arrived != r.sent {
        return Transfers::Unusual(format!(
            "{} were sent on and {} arrived (a fee or rebase on transfer)",
            r.sent, r.arrived
        ));
    }
    Transfers::Exact
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(x: u64) -> Bytes {
        U256::from(x).to_be_bytes::<32>().to_vec().into()
    }

    #[test]
    fn decimals_are_one_small_word() {
        assert_eq!(parse_decimals(Some(&word(18))), Ok(18));
        assert_eq!(parse_decimals(Some(&word(0))), Ok(0));
        assert!(parse_decimals(Some(&word(37))).is_err());
        assert!(parse_decimals(Some(&word(u64::MAX))).is_err());
        assert!(parse_decimals(Some(&Bytes::new())).is_err(), "an account without code");
        assert!(parse_decimals(None).is_err(), "a revert");
    }

    #[test]
    fn strings_bytes32_and_garbage() {
        let s: Bytes = "USD Coin".to_string().abi_encode().into();
        assert_eq!(text(&s).as_deref(), Some("USD Coin"));
        let mut mkr = [0u8; 32];
        mkr[..3].copy_from_slice(b"MKR");
        assert_eq!(text(&Bytes::from(mkr.to_vec())).as_deref(), Some("MKR"));
        assert_eq!(text(&Bytes::from(vec![0u8; 32])), None, "an empty bytes32");
        assert_eq!(text(&Bytes::from(vec![1u8, 2, 3])), None);
        assert_eq!(text(&Bytes::new()), None);
        let long: Bytes = "x".repeat(200).abi_encode().into();
        assert_eq!(text(&long).map(|s| s.len()), Some(64));
    }

    #[test]
    fn a_probe_tells_exact_fee_taking_reverting_and_unknown_tokens_apart() {
        let r = |ok, asked: u64, received: u64, arrived: u64, reason: Vec<u8>| ProbeResult {
            ok,
            asked: U256::from(asked),
            received: U256::from(received),
            sent: U256::from(received),
            arrived: U256::from(arrived),
            reason: reason.into(),
        };
        assert_eq!(judge(&r(true, 1000, 1000, 1000, vec![])), Transfers::Exact);
        let Transfers::Unusual(why) = judge(&r(true, 1000, 990, 990, vec![])) else {
            panic!("a fee out of the pool")
        };
        assert!(why.contains("the pool sent 1000 and 990 arrived"), "{why}");
        let Transfers::Unusual(why) = judge(&r(true, 1000, 1000, 999, vec![])) else {
            panic!("a fee on the way on")
        };
        assert!(why.contains("1000 were sent on and 999 arrived"), "{why}");
        assert!(matches!(judge(&r(false, 0, 0, 0, vec![1, 2, 3, 4])), Transfers::Unusual(_)));
        let empty = NothingToBorrow {}.abi_encode();
        assert_eq!(judge(&r(false, 0, 0, 0, empty)), Transfers::Unknown);
    }

    #[test]
    fn a_token_without_a_symbol_is_named_by_its_address() {
        let a: Address = "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984".parse().expect("address");
        assert_eq!(short(a), "0x1f98…f984");
    }
}

//! Tokens no catalog lists, read from the node that follows their chain:
//! `decimals()`, `symbol()` and `name()` by `eth_call`, in one JSON-RPC
//! batch per method.
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
use alloy_sol_types::SolValue;
use serde_json::json;
use switchyard_catalog::{ChainId, Token};

use crate::rpc::{RpcClient, RpcError};

/// `decimals()`.
const DECIMALS: [u8; 4] = [0x31, 0x3c, 0xe5, 0x67];
/// `symbol()`.
const SYMBOL: [u8; 4] = [0x95, 0xd8, 0x9b, 0x41];
/// `name()`.
const NAME: [u8; 4] = [0x06, 0xfd, 0xde, 0x03];

/// The most decimals a discovered token may have.
pub const MAX_DECIMALS: u8 = 36;

/// Reads each of `tokens` at `block`: `Ok` with its catalog entry (source
/// `node`), or `Err` with why it is unusable. Fails only when a batch
/// itself fails (the node is away).
pub async fn discover(
    client: &RpcClient,
    chain: ChainId,
    tokens: &[Address],
    block: u64,
) -> Result<Vec<(Address, Result<Token, String>)>, RpcError> {
    let calls = |selector: [u8; 4]| -> Vec<serde_json::Value> {
        let data = Bytes::from(selector.to_vec());
        let tag = format!("{block:#x}");
        tokens.iter().map(|t| json!([{"to": t, "data": data}, tag])).collect()
    };
    let decimals = client.batch_each::<Bytes>("eth_call", calls(DECIMALS)).await?;
    let symbols = client.batch_each::<Bytes>("eth_call", calls(SYMBOL)).await?;
    let names = client.batch_each::<Bytes>("eth_call", calls(NAME)).await?;
    Ok(tokens
        .iter()
        .zip(decimals)
        .zip(symbols.into_iter().zip(names))
        .map(|((token, d), (s, n))| {
            let entry = parse_decimals(d.ok().as_ref()).map(|decimals| {
                let symbol = s.ok().and_then(|b| text(&b)).unwrap_or_else(|| short(*token));
                let name = n.ok().and_then(|b| text(&b)).unwrap_or_else(|| symbol.clone());
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
    fn a_token_without_a_symbol_is_named_by_its_address() {
        let a: Address = "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984".parse().expect("address");
        assert_eq!(short(a), "0x1f98…f984");
    }
}

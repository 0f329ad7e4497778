//! `quoteId`: the name of one quote, `<chain>-<block>-<revision>-<request>`.
//!
//! `(chain, block, revision)` is the view of the chain the quote read (see
//! the engine's `replay` module: the states of one block that differ on a
//! chain are numbered from 0). `<request>` is base64url, without padding,
//! of:
//!
//! - one byte: `q` for a quote on the state quotes read, `r` for a route's
//!   quote on the proven state its transaction executed on;
//! - the views of the other chains it read (a cross-chain quote's
//!   destination), each `<chain>.<block>.<revision>;`, then `|`;
//! - the request's canonical query string ([`canonical`]): every field
//!   the parser reads, in a fixed order, so parsing it gives the request
//!   back.
//!
//! The id carries everything needed to compute the quote again: a replica
//! holding the same block answers it too, and nothing is stored per quote.

use alloy_primitives::U256;
use base64::Engine as _;
use switchyard_catalog::ChainId;
use switchyard_engine::ViewId;

use crate::{
    api::requests::{ExecutionMode, RouteRequest},
    error::ApiError,
};

/// Which published state a quote was computed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The newest state, which quotes read.
    Quotes,
    /// The proven state, which a route's transaction executed on.
    Proven,
}

/// A decoded `quoteId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteId {
    /// The state it names.
    pub source: Source,
    /// The views read: the request's chain first.
    pub views: Vec<ViewId>,
    /// The canonical query string of the request.
    pub query: String,
}

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The longest `quoteId` accepted (a request is bounded by the query
/// string limit, and its base64 by a third more).
pub const MAX_LEN: usize = 16 * 1024;

impl QuoteId {
    /// The id.
    pub fn encode(&self) -> String {
        let Some(first) = self.views.first() else { return String::new() };
        let mut payload = String::with_capacity(self.query.len() + 32);
        payload.push(match self.source {
            Source::Quotes => 'q',
            Source::Proven => 'r',
        });
        for v in &self.views[1..] {
            payload.push_str(&format!("{}.{}.{};", v.chain.0, v.block, v.revision));
        }
        payload.push('|');
        payload.push_str(&self.query);
        format!("{}-{}-{}-{}", first.chain.0, first.block, first.revision, B64.encode(payload))
    }

    /// Reads an id; a malformed one is a 404 naming `quoteId` (no quote
    /// has that name).
    pub fn decode(id: &str) -> Result<Self, ApiError> {
        let bad = || ApiError::not_found("quoteId", "no quote has this quoteId");
        if id.len() > MAX_LEN {
            return Err(bad());
        }
        let mut parts = id.splitn(4, '-');
        let mut num = || parts.next().and_then(|p| p.parse::<u64>().ok());
        let (Some(chain), Some(block), Some(revision)) = (num(), num(), num()) else {
            return Err(bad());
        };
        let payload = parts.next().ok_or_else(bad)?;
        let payload = B64.decode(payload).map_err(|_| bad())?;
        let payload = String::from_utf8(payload).map_err(|_| bad())?;
        let (head, query) = payload.split_once('|').ok_or_else(bad)?;
        let mut chars = head.chars();
        let source = match chars.next() {
            Some('q') => Source::Quotes,
            Some('r') => Source::Proven,
            _ => return Err(bad()),
        };
        let view = |chain: u64, block: u64, revision: u64| -> Option<ViewId> {
            Some(ViewId { chain: ChainId(chain), block, revision: u32::try_from(revision).ok()? })
        };
        let mut views = vec![view(chain, block, revision).ok_or_else(bad)?];
        for v in chars.as_str().split(';').filter(|v| !v.is_empty()) {
            let n: Vec<u64> =
                v.split('.').map(str::parse).collect::<Result<_, _>>().map_err(|_| bad())?;
            let [c, b, r] = n[..] else { return Err(bad()) };
            views.push(view(c, b, r).ok_or_else(bad)?);
        }
        Ok(Self { source, views, query: query.to_owned() })
    }
}

/// The canonical query string of a request: every field the parser reads,
/// in one order, addresses in lower case, amounts in decimal, text
/// percent-encoded. `parse_route` of it gives `req` back.
pub fn canonical(req: &RouteRequest) -> String {
    let mut out = Vec::new();
    let mut put = |k: &str, v: String| out.push(format!("{k}={}", escape(&v)));
    put("chainId", req.chain_id.0.to_string());
    if let Some(a) = req.from_address {
        put("fromAddress", format!("{a:#x}"));
    }
    put("routingStrategy", req.routing_strategy.as_str().to_owned());
    if req.execution_mode == ExecutionMode::Backend {
        put("executionMode", "backend".into());
    }
    if let Some(b) = req.to_eoa {
        put("toEoa", b.to_string());
    }
    for (k, a) in [
        ("receiver", req.receiver),
        ("spender", req.spender),
        ("refundReceiver", req.refund_receiver),
    ] {
        if let Some(a) = a {
            put(k, format!("{a:#x}"));
        }
    }
    let wei = |v: &U256| v.to_string();
    for t in &req.token_in {
        put("tokenIn", format!("{t:#x}"));
    }
    for a in &req.amount_in {
        put("amountIn", wei(a));
    }
    for t in &req.token_out {
        put("tokenOut", format!("{t:#x}"));
    }
    if let Some(a) = &req.amount_out {
        put("amountOut", wei(a));
    }
    for a in &req.min_amount_out {
        put("minAmountOut", wei(a));
    }
    if req.slippage_given {
        put("slippage", req.slippage_bps.to_string());
    }
    for f in &req.fee_bps {
        put("fee", f.to_string());
    }
    if let Some(a) = req.fee_receiver {
        put("feeReceiver", format!("{a:#x}"));
    }
    for (k, list) in [
        ("ignoreAggregators", &req.ignore_aggregators),
        ("ignoreStandards", &req.ignore_standards),
        ("ignoreBridges", &req.ignore_bridges),
    ] {
        for v in list {
            put(k, v.clone());
        }
    }
    if let Some(c) = &req.referral_code {
        put("referralCode", c.clone());
    }
    if let Some(d) = req.destination_chain_id {
        put("destinationChainId", d.0.to_string());
    }
    out.join("&")
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn escape(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for b in v.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        api::requests::{RouteKind, parse_route},
        query::Query,
    };

    fn parsed(raw: &str) -> RouteRequest {
        let catalog = switchyard_catalog::loaders::embedded_catalog().expect("catalog");
        parse_route(&Query::parse(raw).expect("query"), &catalog, RouteKind::Quote).expect("parses")
    }

    #[test]
    fn the_canonical_query_parses_back_to_the_request() {
        let catalog = switchyard_catalog::loaders::embedded_catalog().expect("catalog");
        for raw in [
            "tokenIn=0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48&tokenOut=0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2&amountIn=1000000000",
            "chainId=1&fromAddress=0x1111111111111111111111111111111111111111&routingStrategy=delegate&spender=0x2222222222222222222222222222222222222222&tokenIn[]=0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48&tokenIn[]=0xdAC17F958D2ee523a2206206994597C13D831ec7&amountIn=1&amountIn=2&tokenOut=0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2&fee=3&feeReceiver=0x3333333333333333333333333333333333333333&slippage=0&ignoreStandards=uniswap-v3&ignoreAggregators=a%20b%26c&referralCode=%F0%9F%A6%80x&toEoa=false&executionMode=backend&minAmountOut=5",
        ] {
            let req = parsed(raw);
            let again = parse_route(
                &Query::parse(&canonical(&req)).expect("query"),
                &catalog,
                RouteKind::Quote,
            )
            .expect("parses");
            assert_eq!(again, req, "{raw}");
        }
    }

    /// Whatever a client puts in the path, decoding answers (a 404 or an
    /// id), never panics; a decoded id encodes back to itself.
    #[test]
    fn arbitrary_ids_decode_or_refuse() {
        let mut x: u64 = 0x005e_ed17;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let alphabet = b"0123456789-_.;|qrAZaz+/=%";
        for round in 0..20_000 {
            let len = (next() % 40) as usize;
            let mut id: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char)
                .collect();
            if round % 3 == 0 {
                // A well-formed head before random payload bytes.
                let payload: Vec<u8> = (0..(next() % 30)).map(|_| next() as u8).collect();
                id = format!("1-{}-{}-{}", next() % 1000, next() % 3, B64.encode(payload));
            }
            if let Ok(q) = QuoteId::decode(&id) {
                assert_eq!(QuoteId::decode(&q.encode()), Ok(q), "{id}");
            }
        }
    }

    #[test]
    fn an_id_reads_back_and_a_bad_one_is_a_404() {
        let id = QuoteId {
            source: Source::Quotes,
            views: vec![
                ViewId { chain: ChainId(1), block: 19_000_000, revision: 2 },
                ViewId { chain: ChainId(8453), block: 7, revision: 0 },
            ],
            query: "chainId=1&tokenIn=0xab".into(),
        };
        let s = id.encode();
        assert!(s.starts_with("1-19000000-2-"), "{s}");
        assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{s}");
        assert_eq!(QuoteId::decode(&s).expect("decodes"), id);
        for bad in ["", "1-2-3", "1-2-x-cQ", "1-2-3-!!", "1-2-3-eA", &format!("{s}x")] {
            let e = QuoteId::decode(bad).expect_err(bad);
            assert_eq!(e.body().field.as_deref(), Some("quoteId"), "{bad}");
        }
    }
}

//! USD prices derived from pool state.
//!
//! Prices start at USD stable anchors (`$1`, confidence 1) and spread outward
//! one pool hop per round. In a round, every unpriced token that shares a pool
//! with an already priced token gets the liquidity-weighted mean of the prices
//! those pools imply: `spot_rate(token → priced) × price(priced)`, weighted by
//! the USD depth of the priced side. Confidence is the weight-averaged
//! confidence of the sources times `depth / (depth + DEPTH_HALF_CONFIDENCE_USD)`,
//! so a price reached only through thin pools, or through many hops, says so.
//!
//! Prices are display values (`f64`); no returned amount depends on them.

use std::collections::HashMap;

use switchyard_catalog::{Address, Catalog, ChainId, TokenKind};

use crate::snapshot::MarketSnapshot;

/// Symbols of the USD stablecoins prices are anchored on.
pub const USD_ANCHOR_SYMBOLS: [&str; 8] =
    ["USDC", "USDT", "DAI", "USDC.e", "USDbC", "USDT0", "DAI.e", "HONEY"];

/// The USD anchors of a catalog: base tokens with a stablecoin symbol.
pub fn usd_anchors(catalog: &Catalog) -> Vec<(ChainId, Address)> {
    catalog
        .tokens()
        .iter()
        .filter(|t| t.kind == TokenKind::Base && USD_ANCHOR_SYMBOLS.contains(&t.symbol.as_str()))
        .map(|t| (t.chain_id, t.address))
        .collect()
}

/// USD depth at which a single source gives confidence 0.5.
pub const DEPTH_HALF_CONFIDENCE_USD: f64 = 100_000.0;

/// Maximum number of pool hops from an anchor.
pub const MAX_PRICE_HOPS: usize = 6;

/// A derived price.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriceEntry {
    /// USD per whole token.
    pub usd: f64,
    /// 0..=1.
    pub confidence: f64,
    /// Block of the chain head the price derives from.
    pub block_number: u64,
    /// Timestamp of that block.
    pub timestamp: u64,
}

/// Prices by (chain, token).
#[derive(Debug, Clone, Default)]
pub struct PriceTable {
    entries: HashMap<(ChainId, Address), PriceEntry>,
}

impl PriceTable {
    /// The price of a token.
    pub fn get(&self, chain: ChainId, token: Address) -> Option<&PriceEntry> {
        self.entries.get(&(chain, token))
    }

    /// Whether both tables price every token of `chain` the same.
    pub fn same_on(&self, other: &Self, chain: ChainId) -> bool {
        let mine = self.entries.iter().filter(|((c, _), _)| *c == chain);
        let theirs = other.entries.keys().filter(|(c, _)| *c == chain).count();
        let mut n = 0;
        for (k, e) in mine {
            n += 1;
            if other.entries.get(k) != Some(e) {
                return false;
            }
        }
        n == theirs
    }

    /// Number of priced tokens.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is priced.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Multiplies the confidence of every price on `chain` by `factor`
    /// (the chain's market data is stale: its prices stay, marked as less
    /// certain, never passed off as fresh).
    pub fn discount(&mut self, chain: ChainId, factor: f64) {
        for ((c, _), e) in &mut self.entries {
            if *c == chain {
                e.confidence *= factor;
            }
        }
    }
}

/// Derives USD prices for every token reachable from `anchors` (tokens worth
/// `$1`) within [`MAX_PRICE_HOPS`] pools. Deterministic: the result does not
/// depend on hash-map iteration order.
pub fn derive_prices(snapshot: &MarketSnapshot, anchors: &[(ChainId, Address)]) -> PriceTable {
    let mut priced: HashMap<(ChainId, Address), PriceEntry> = HashMap::new();
    for &(chain, token) in anchors {
        if let Some(head) = snapshot.head(chain) {
            priced.insert(
                (chain, token),
                PriceEntry {
                    usd: 1.0,
                    confidence: 1.0,
                    block_number: head.block_number,
                    timestamp: head.timestamp,
                },
            );
        }
    }
    for _ in 0..MAX_PRICE_HOPS {
        // (sum of weight × price, sum of weight, sum of weight × confidence)
        let mut acc: HashMap<(ChainId, Address), (f64, f64, f64)> = HashMap::new();
        for pool in snapshot.pools().iter() {
            for (j, &known) in pool.tokens.iter().enumerate() {
                let Some(src) = priced.get(&(pool.chain, known)) else { continue };
                let unit_j = 10f64.powi(i32::from(pool.decimals()[j]));
                let depth_usd = pool.depth(j) / unit_j * src.usd;
                if depth_usd.is_nan() || depth_usd <= 0.0 {
                    continue;
                }
                for (i, &token) in pool.tokens.iter().enumerate() {
                    if priced.contains_key(&(pool.chain, token)) {
                        continue;
                    }
                    let Some(rate) = pool.spot_rate(i, j) else { continue };
                    let unit_i = 10f64.powi(i32::from(pool.decimals()[i]));
                    let usd = rate * unit_i / unit_j * src.usd;
                    if !usd.is_finite() || usd <= 0.0 {
                        continue;
                    }
                    let w = if depth_usd.is_finite() { depth_usd } else { 1e15 };
                    let e = acc.entry((pool.chain, token)).or_default();
                    e.0 += w * usd;
                    e.1 += w;
                    e.2 += w * src.confidence;
                }
            }
        }
        if acc.is_empty() {
            break;
        }
        for ((chain, token), (wp, w, wc)) in acc {
            let Some(head) = snapshot.head(chain) else { continue };
            let depth_factor = w / (w + DEPTH_HALF_CONFIDENCE_USD);
            priced.insert(
                (chain, token),
                PriceEntry {
                    usd: wp / w,
                    confidence: (wc / w * depth_factor).clamp(0.0, 1.0),
                    block_number: head.block_number,
                    timestamp: head.timestamp,
                },
            );
        }
    }
    PriceTable { entries: priced }
}

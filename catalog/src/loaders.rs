//! File loaders and the embedded default data.
//!
//! Files are parsed with simd-json. The embedded default is compiled into the
//! binary from `catalog/data/*.json`, so `switchyard serve` needs no files.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::{CatalogDocument, CatalogError, Market, MarketDocument, registry::Catalog};

/// The embedded catalog documents, as (file name, bytes).
pub const EMBEDDED_CATALOG: &[(&str, &[u8])] = &[
    ("networks.json", include_bytes!("../data/networks.json")),
    ("tokens.json", include_bytes!("../data/tokens.json")),
    ("protocols.json", include_bytes!("../data/protocols.json")),
    ("standards.json", include_bytes!("../data/standards.json")),
    ("actions.json", include_bytes!("../data/actions.json")),
    ("aggregators.json", include_bytes!("../data/aggregators.json")),
    ("bridges.json", include_bytes!("../data/bridges.json")),
    ("layerzero.json", include_bytes!("../data/layerzero.json")),
    ("positions.json", include_bytes!("../data/positions.json")),
    ("factories.json", include_bytes!("../data/factories.json")),
    ("contracts.json", include_bytes!("../data/contracts.json")),
    ("deployments.json", include_bytes!("../data/deployments.json")),
];

/// The embedded demo market snapshot.
pub const EMBEDDED_MARKET: &[u8] = include_bytes!("../data/market.json");

/// The recorded block stream over the embedded market
/// (`data/tools/make_blocks.py`).
pub const EMBEDDED_BLOCKS: &[u8] = include_bytes!("../data/blocks.json");

fn parse<T: DeserializeOwned>(name: &str, bytes: &[u8]) -> Result<T, CatalogError> {
    // serde would also accept a JSON array for a struct; a document is an
    // object.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(CatalogError::Parse {
            file: name.to_owned(),
            message: "expected a JSON object".into(),
        });
    }
    // simd-json parses in place, so it needs its own mutable copy.
    let mut buf = bytes.to_vec();
    simd_json::serde::from_slice(&mut buf)
        .map_err(|e| CatalogError::Parse { file: name.to_owned(), message: e.to_string() })
}

/// Parses one catalog document.
pub fn parse_catalog_document(name: &str, bytes: &[u8]) -> Result<CatalogDocument, CatalogError> {
    parse(name, bytes)
}

/// Parses one market document.
pub fn parse_market_document(name: &str, bytes: &[u8]) -> Result<MarketDocument, CatalogError> {
    parse(name, bytes)
}

/// The embedded default catalog's documents, merged.
fn embedded_document() -> Result<CatalogDocument, CatalogError> {
    let mut all = CatalogDocument::default();
    for (name, bytes) in EMBEDDED_CATALOG {
        all.append(parse_catalog_document(name, bytes)?);
    }
    Ok(all)
}

/// The embedded default catalog.
pub fn embedded_catalog() -> Result<Catalog, CatalogError> {
    Catalog::from_document(embedded_document()?)
}

/// The embedded catalog with `docs` laid over it in order
/// ([`CatalogDocument::overlay`]): an entry overrides the one with its key,
/// anything else extends the catalog.
pub fn extended_catalog(docs: Vec<CatalogDocument>) -> Result<Catalog, CatalogError> {
    let mut all = embedded_document()?;
    for d in docs {
        all.overlay(d);
    }
    Catalog::from_document(all)
}

/// The embedded demo market, validated against `catalog`.
pub fn embedded_market(catalog: &Catalog) -> Result<Market, CatalogError> {
    Market::validate(parse_market_document("market.json", EMBEDDED_MARKET)?, catalog)
}

/// The recorded block stream of the embedded market.
pub fn embedded_blocks() -> Result<crate::market::BlockStream, CatalogError> {
    parse("blocks.json", EMBEDDED_BLOCKS)
}

/// Reads a file.
pub fn read_file(path: &Path) -> Result<Vec<u8>, CatalogError> {
    std::fs::read(path)
        .map_err(|source| CatalogError::Io { path: path.display().to_string(), source })
}

/// Loads catalog files over the embedded default ([`extended_catalog`]);
/// an empty list is the embedded default itself.
pub fn load_catalog(paths: &[impl AsRef<Path>]) -> Result<Catalog, CatalogError> {
    let docs = paths
        .iter()
        .map(|p| {
            let p = p.as_ref();
            parse_catalog_document(&p.display().to_string(), &read_file(p)?)
        })
        .collect::<Result<Vec<_>, _>>()?;
    extended_catalog(docs)
}

/// Loads a market file, or the embedded demo market when `path` is `None`.
pub fn load_market(path: Option<&Path>, catalog: &Catalog) -> Result<Market, CatalogError> {
    match path {
        None => embedded_market(catalog),
        Some(p) => Market::validate(
            parse_market_document(&p.display().to_string(), &read_file(p)?)?,
            catalog,
        ),
    }
}

/// What a checked file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A catalog document.
    Catalog,
    /// A market snapshot.
    Market,
}

/// Tells a market file (it has `pools` or `chains`) from a catalog document.
pub fn sniff_kind(bytes: &[u8]) -> FileKind {
    let mut buf = bytes.to_vec();
    match simd_json::to_borrowed_value(&mut buf) {
        Ok(simd_json::BorrowedValue::Object(o))
            if o.contains_key("pools") || o.contains_key("chains") =>
        {
            FileKind::Market
        }
        _ => FileKind::Catalog,
    }
}

/// Checks files: catalog documents are laid over the embedded default and
/// validated together, as the service loads them, then each market file is
/// validated against that catalog. Returns what each file was.
pub fn check_files(paths: &[impl AsRef<Path>]) -> Result<Vec<FileKind>, CatalogError> {
    let mut kinds = Vec::new();
    let mut catalog_docs = Vec::new();
    let mut markets = Vec::new();
    for p in paths {
        let p = p.as_ref();
        let bytes = read_file(p)?;
        let kind = sniff_kind(&bytes);
        kinds.push(kind);
        let name = p.display().to_string();
        match kind {
            FileKind::Catalog => catalog_docs.push(parse_catalog_document(&name, &bytes)?),
            FileKind::Market => markets.push(parse_market_document(&name, &bytes)?),
        }
    }
    let catalog = extended_catalog(catalog_docs)?;
    for m in markets {
        Market::validate(m, &catalog)?;
    }
    Ok(kinds)
}

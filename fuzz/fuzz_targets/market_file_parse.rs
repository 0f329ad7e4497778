//! Market and catalog files: parsing and validation never panic, whatever
//! the bytes.

#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use switchyard_catalog::{Catalog, Market, loaders};

static CATALOG: LazyLock<Catalog> =
    LazyLock::new(|| loaders::embedded_catalog().expect("embedded catalog"));

fuzz_target!(|data: &[u8]| {
    if let Ok(doc) = loaders::parse_market_document("fuzz.json", data) {
        let _ = Market::validate(doc, &CATALOG);
    }
    if let Ok(doc) = loaders::parse_catalog_document("fuzz.json", data) {
        let _ = Catalog::from_documents([doc]);
    }
});

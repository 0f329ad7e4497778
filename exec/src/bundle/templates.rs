//! What the bundle compiler keeps between bundles, per catalog version: the
//! standards registry flattened to each protocol's family (the protocol
//! slugs an action's protocol stands for), and the parsed `call`
//! signatures. A new catalog (another `Arc`) starts a new set.

use std::{
    collections::{BTreeSet, HashMap},
    sync::{Arc, Mutex, PoisonError},
};

use alloy_json_abi::Function;
use switchyard_catalog::Catalog;

/// At most this many parsed signatures are kept (then the cache starts
/// over: a client sending endless distinct signatures costs parsing, not
/// memory).
const MAX_SIGNATURES: usize = 4096;

/// The compiled templates of one catalog.
#[derive(Debug)]
pub struct Templates {
    catalog: Arc<Catalog>,
    families: HashMap<String, Arc<BTreeSet<String>>>,
    signatures: Mutex<HashMap<String, Arc<Function>>>,
}

impl Templates {
    /// Flattens `catalog`'s standards: every protocol and fork named by a
    /// standard maps to the standard's protocol and all its forks.
    pub fn new(catalog: Arc<Catalog>) -> Self {
        let mut families = HashMap::new();
        for st in catalog.standards() {
            for slug in std::iter::once(&st.protocol).chain(&st.forks) {
                families.entry(slug.clone()).or_insert_with(|| {
                    let mut family = BTreeSet::from([slug.clone()]);
                    if let Some(found) = catalog.standard(slug) {
                        family.insert(found.protocol.clone());
                        family.extend(found.forks.iter().cloned());
                    }
                    Arc::new(family)
                });
            }
        }
        Self { catalog, families, signatures: Mutex::new(HashMap::new()) }
    }

    /// Whether these are `catalog`'s templates.
    pub fn is_for(&self, catalog: &Arc<Catalog>) -> bool {
        Arc::ptr_eq(&self.catalog, catalog)
    }

    /// The protocol slugs `protocol` stands for: itself, and its
    /// standard's protocol and forks.
    pub fn family(&self, protocol: &str) -> Arc<BTreeSet<String>> {
        match self.families.get(protocol) {
            Some(f) => Arc::clone(f),
            None => Arc::new(BTreeSet::from([protocol.to_owned()])),
        }
    }

    /// `signature` parsed, from the cache when it was seen before.
    pub fn function(&self, signature: &str) -> Result<Arc<Function>, String> {
        let cached = {
            let map = self.signatures.lock().unwrap_or_else(PoisonError::into_inner);
            map.get(signature).cloned()
        };
        if let Some(f) = cached {
            return Ok(f);
        }
        let f = Arc::new(Function::parse(signature).map_err(|e| e.to_string())?);
        let mut map = self.signatures.lock().unwrap_or_else(PoisonError::into_inner);
        if map.len() >= MAX_SIGNATURES {
            map.clear();
        }
        map.insert(signature.to_owned(), Arc::clone(&f));
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_match_the_catalog_lookup() {
        let catalog = Arc::new(switchyard_catalog::loaders::embedded_catalog().unwrap());
        let t = Templates::new(Arc::clone(&catalog));
        let mut slugs: Vec<&str> = catalog.protocols().iter().map(|p| p.slug.as_str()).collect();
        slugs.push("no-such-protocol");
        for slug in slugs {
            let mut expected = BTreeSet::from([slug.to_owned()]);
            if let Some(st) = catalog.standard(slug) {
                expected.insert(st.protocol.clone());
                expected.extend(st.forks.iter().cloned());
            }
            assert_eq!(*t.family(slug), expected, "{slug}");
        }
        assert!(t.is_for(&catalog));
    }

    #[test]
    fn signatures_are_parsed_once() {
        let t = Templates::new(Arc::new(switchyard_catalog::loaders::embedded_catalog().unwrap()));
        let a = t.function("function transfer(address to, uint256 amount)").unwrap();
        let b = t.function("function transfer(address to, uint256 amount)").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(t.function("function (").is_err());
    }
}

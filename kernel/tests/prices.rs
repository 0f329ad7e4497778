//! Price derivation over the embedded demo market.

use switchyard_catalog::{Address, ChainId, NATIVE_TOKEN, loaders};
use switchyard_kernel::{MarketSnapshot, derive_prices, usd_anchors};

fn setup() -> (switchyard_catalog::Catalog, MarketSnapshot, Vec<(ChainId, Address)>) {
    let c = loaders::embedded_catalog().expect("catalog");
    let m = loaders::embedded_market(&c).expect("market");
    let s = MarketSnapshot::build(&m, &c).expect("snapshot");
    let anchors = usd_anchors(&c);
    (c, s, anchors)
}

#[test]
fn weth_and_native_eth_are_about_3000_on_every_chain_with_pools() {
    let (c, s, anchors) = setup();
    let p = derive_prices(&s, &anchors);
    let mut checked = 0;
    for t in c.tokens().iter().filter(|t| t.symbol == "WETH") {
        if let Some(e) = p.get(t.chain_id, t.address) {
            assert!((2900.0..3100.0).contains(&e.usd), "WETH on {}: {}", t.chain_id, e.usd);
            assert!(e.confidence > 0.5 && e.confidence < 1.0, "confidence {}", e.confidence);
            checked += 1;
        }
    }
    assert!(checked >= 6, "WETH priced on only {checked} chains");
    let eth = p.get(ChainId(1), NATIVE_TOKEN).expect("native ETH priced");
    assert!((2900.0..3100.0).contains(&eth.usd));
}

#[test]
fn every_network_prices_its_native_coin() {
    let (c, s, anchors) = setup();
    let p = derive_prices(&s, &anchors);
    for n in c.networks() {
        assert!(p.get(n.id, NATIVE_TOKEN).is_some(), "no price for the native coin of {}", n.id);
    }
}

#[test]
fn anchors_are_one_dollar_with_full_confidence() {
    let (_, s, anchors) = setup();
    let p = derive_prices(&s, &anchors);
    for (chain, token) in anchors.iter().filter(|(c, _)| s.head(*c).is_some()) {
        let e = p.get(*chain, *token).expect("anchor priced");
        assert_eq!((e.usd, e.confidence), (1.0, 1.0));
    }
}

#[test]
fn derivation_is_deterministic() {
    let (c, s, anchors) = setup();
    let a = derive_prices(&s, &anchors);
    let b = derive_prices(&s, &anchors);
    for t in c.tokens() {
        assert_eq!(a.get(t.chain_id, t.address), b.get(t.chain_id, t.address));
    }
}

#[test]
fn without_anchors_nothing_is_priced() {
    let (_, s, _) = setup();
    assert!(derive_prices(&s, &[]).is_empty());
}

//! The embedded default data: it loads, it is complete, and the market's
//! pool addresses are the real CREATE2 addresses of their factories.

use std::collections::BTreeSet;

use switchyard_catalog::{
    Address, CatalogError, ChainId, NATIVE_TOKEN, PoolRecord, RoutingStrategy, TokenKind, loaders,
    market::{Market, MarketDocument, v2_pair_address},
};

fn catalog() -> switchyard_catalog::Catalog {
    loaders::embedded_catalog().unwrap_or_else(|e| panic!("embedded catalog: {e:?}"))
}

fn market(c: &switchyard_catalog::Catalog) -> Market {
    loaders::embedded_market(c).unwrap_or_else(|e| panic!("embedded market: {e:?}"))
}

#[test]
fn required_networks_with_native_and_wrapped_native() {
    let c = catalog();
    for id in [1, 10, 56, 100, 137, 146, 8453, 42161, 43114, 59144, 80094] {
        let n = c.network(ChainId(id)).unwrap_or_else(|| panic!("network {id} missing"));
        assert!(c.token(n.id, NATIVE_TOKEN).is_some(), "{id}: native coin not listed");
        let w = c
            .token(n.id, n.wrapped_native)
            .unwrap_or_else(|| panic!("{id}: wrapped native missing"));
        assert_eq!(w.decimals, 18, "{id}: wrapped native decimals");
        assert!(!n.native_currency.symbol.is_empty());
    }
}

#[test]
fn base_tokens_have_real_decimals() {
    let c = catalog();
    let eth = ChainId(1);
    let expect = [
        ("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "WETH", 18),
        ("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "USDC", 6),
        ("0xdac17f958d2ee523a2206206994597c13d831ec7", "USDT", 6),
        ("0x6b175474e89094c44da98b954eedeac495271d0f", "DAI", 18),
        ("0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", "WBTC", 8),
    ];
    for (a, sym, dec) in expect {
        let t =
            c.token(eth, a.parse().expect("address")).unwrap_or_else(|| panic!("{sym} missing"));
        assert_eq!((t.symbol.as_str(), t.decimals), (sym, dec));
    }
    // USDC is 6 decimals everywhere but on BNB Chain, where the
    // Binance-pegged USDC has 18.
    for t in c.tokens().iter().filter(|t| t.symbol == "USDC" && t.chain_id != ChainId(56)) {
        assert_eq!(t.decimals, 6, "USDC on {}", t.chain_id);
    }
    assert_eq!(
        c.token(
            ChainId(56),
            "0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d".parse().expect("address")
        )
        .map(|t| t.decimals),
        Some(18)
    );
    // Every network has a USD stablecoin to anchor prices on.
    for n in c.networks() {
        assert!(
            c.tokens_on(n.id)
                .iter()
                .any(|t| ["USDC", "USDT", "USDC.e", "USDT0"].contains(&t.symbol.as_str())),
            "no stablecoin on {}",
            n.id
        );
    }
}

#[test]
fn defi_tokens_cover_every_required_family() {
    let c = catalog();
    let defi: Vec<_> = c.tokens().iter().filter(|t| t.kind == TokenKind::Defi).collect();
    let slugs: BTreeSet<_> = defi.iter().filter_map(|t| t.protocol_slug.as_deref()).collect();
    for s in ["aave-v3", "compound-v2", "curve", "uniswap-v2", "lido", "spark-savings"] {
        assert!(slugs.contains(s), "no defi token of {s}");
    }
    for sym in ["stETH", "wstETH", "sDAI", "3Crv"] {
        assert!(defi.iter().any(|t| t.symbol == sym && t.chain_id == ChainId(1)), "{sym} missing");
    }
    for chain in [8453, 42161] {
        assert!(
            defi.iter().filter(|t| t.chain_id == ChainId(chain)).count() >= 2,
            "few defi tokens on {chain}"
        );
    }
    for t in defi {
        assert!(t.apy.is_some() && t.tvl.is_some(), "{} lacks apy/tvl", t.symbol);
        assert!(t.primary_address.is_some() && t.project.is_some());
    }
}

#[test]
fn actions_cover_what_the_engine_backs() {
    let c = catalog();
    for a in [
        "route",
        "swap",
        "deposit",
        "redeem",
        "borrow",
        "repay",
        "harvest",
        "approve",
        "transfer",
        "transferfrom",
        "split",
        "merge",
        "balance",
        "minamountout",
        "slippage",
        "fee",
        "call",
        "bridge",
    ] {
        let spec = c.action(a).unwrap_or_else(|| panic!("action {a} missing"));
        assert!(!spec.inputs.is_empty(), "{a} without inputs");
        assert!(
            c.standards().iter().any(|s| s.actions.iter().any(|x| x.action == a)),
            "no standard offers {a}"
        );
    }
}

#[test]
fn bridges_and_contracts() {
    let c = catalog();
    let names: BTreeSet<_> = c.bridges().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, BTreeSet::from(["cctp", "ccip", "relay", "stargate"]));
    for n in c.networks() {
        let r = c
            .contracts(n.id, RoutingStrategy::Router)
            .unwrap_or_else(|| panic!("no router set on {}", n.id));
        let (router, executor) = (r.router.expect("router"), r.executor.expect("executor"));
        assert_ne!(router, executor, "router and executor must differ on {}", n.id);
        assert!(c.contracts(n.id, RoutingStrategy::Delegate).and_then(|d| d.delegate).is_some());
    }
    let eth = c.contracts(ChainId(1), RoutingStrategy::Router).expect("ethereum router");
    assert_eq!(
        eth.router,
        Some("0xF75584eF6673aD213a685a1B58Cc0330B8eA22Cf".parse().expect("address"))
    );
    assert_eq!(
        eth.executor,
        Some("0x4Fe93ebC4Ce6Ae4f81601cC7Ce7139023919E003".parse().expect("address"))
    );
    let linea = c.contracts(ChainId(59144), RoutingStrategy::Router).expect("linea router");
    assert_eq!(
        linea.router,
        Some("0xA146d46823f3F594B785200102Be5385CAfCE9B5".parse().expect("address"))
    );
    // Every embedded address says where it comes from.
    for n in c.networks() {
        for s in RoutingStrategy::ALL {
            if let Some(set) = c.contracts(n.id, s) {
                assert!(
                    set.source.as_deref().is_some_and(|x| !x.trim().is_empty()),
                    "{s} on {} has no source",
                    n.id
                );
            }
        }
    }
    for d in c.deployments_on(ChainId(1)) {
        assert!(!d.source.trim().is_empty(), "{} has no source", d.address);
    }
}

#[test]
fn market_has_every_pool_kind_and_every_amm_address_is_checked() {
    let c = catalog();
    let m = market(&c);
    let kinds: BTreeSet<_> = m.pools.iter().map(PoolRecord::kind_name).collect();
    for k in
        ["uniswapV2", "uniswapV3", "stableswap", "weighted", "erc4626", "lending", "liquidStaking"]
    {
        assert!(kinds.contains(k), "no {k} pool");
    }
    for p in &m.pools {
        let com = p.common();
        if matches!(p, PoolRecord::UniswapV2(_) | PoolRecord::UniswapV3(_)) {
            assert!(
                c.dex_factory(com.chain_id, com.protocol).is_some(),
                "{} on {} has no factory, so its address is unchecked",
                com.address,
                com.chain_id
            );
        }
        if let PoolRecord::UniswapV3(v3) = p {
            assert!(v3.ticks.len() >= 2, "v3 pool {} without initialized ticks", v3.address);
        }
    }
    // The classic mainnet USDC/WETH pair, from first principles.
    let f = c.dex_factory(ChainId(1), "uniswap-v2").expect("uniswap v2 factory");
    let usdc: Address = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48".parse().expect("address");
    let weth: Address = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2".parse().expect("address");
    assert_eq!(
        v2_pair_address(f.factory, f.init_code_hash, usdc, weth),
        "0xB4e16d0168e52d35CaCD2c6185b44281Ec28C9Dc".parse::<Address>().expect("address")
    );
    assert!(m.description.contains("demo"));
}

fn problems_of(json: &str) -> Vec<String> {
    let c = catalog();
    let doc: MarketDocument =
        loaders::parse_market_document("t.json", json.as_bytes()).expect("parses");
    match Market::validate(doc, &c) {
        Ok(_) => Vec::new(),
        Err(CatalogError::Invalid { problems }) => {
            problems.iter().map(ToString::to_string).collect()
        }
        Err(e) => vec![e.to_string()],
    }
}

#[test]
fn market_validation_reports_every_problem() {
    let bad = r#"{"chains":[{"chainId":1,"blockNumber":1,"timestamp":1,"gasPriceWei":"1"}],
      "pools":[
        {"kind":"uniswapV2","chainId":1,"protocol":"uniswap-v2","address":"0x0000000000000000000000000000000000000001",
         "token0":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","token1":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
         "reserve0":"1","reserve1":"5192296858534827628530496329220096","feeBps":30},
        {"kind":"uniswapV2","chainId":1,"protocol":"uniswap-v2","address":"0x0000000000000000000000000000000000000002",
         "token0":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","token1":"0x0000000000000000000000000000000000000009",
         "reserve0":"1","reserve1":"5192296858534827628530496329220095","feeBps":30},
        {"kind":"uniswapV2","chainId":1,"protocol":"uniswap-v2","address":"0x0000000000000000000000000000000000000004",
         "token0":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","token1":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
         "reserve0":"10","reserve1":"10","feeBps":25,"lpSupply":"0"},
        {"kind":"uniswapV2","chainId":1,"protocol":"uniswap-v2","address":"0x0000000000000000000000000000000000000005",
         "token0":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","token1":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
         "reserve0":"10","reserve1":"10","feeBps":30,"kLast":"100","feeOn":true},
        {"kind":"uniswapV3","chainId":1,"protocol":"uniswap-v3","address":"0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640",
         "token0":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","token1":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
         "fee":500,"tickSpacing":10,"sqrtPriceX96":"1","tick":0,"liquidity":"5",
         "ticks":[{"index":-10,"liquidityNet":"7"},{"index":10,"liquidityNet":"-7"}]},
        {"kind":"weighted","chainId":10,"protocol":"balancer-v2","address":"0x0000000000000000000000000000000000000003",
         "tokens":[],"balances":[],"weights":[],"swapFee":"1"},
        {"kind":"weighted","chainId":1,"protocol":"balancer-v2","address":"0x0000000000000000000000000000000000000006",
         "tokens":["0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"],
         "balances":["1","1"],"weights":["500000000000000000","500000000000000000"],"swapFee":"1","bptSupply":"0"},
        {"kind":"weighted","chainId":1,"protocol":"balancer-v2","address":"0x0000000000000000000000000000000000000007",
         "tokens":["0x0000000000000000000000000000000000000011","0x0000000000000000000000000000000000000012",
                   "0x0000000000000000000000000000000000000013","0x0000000000000000000000000000000000000014",
                   "0x0000000000000000000000000000000000000015","0x0000000000000000000000000000000000000016",
                   "0x0000000000000000000000000000000000000017","0x0000000000000000000000000000000000000018"],
         "balances":["1","1","1","1","1","1","1","1"],
         "weights":["125000000000000000","125000000000000000","125000000000000000","125000000000000000",
                    "125000000000000000","125000000000000000","125000000000000000","125000000000000000"],
         "swapFee":"1","bptSupply":"5"}
      ]}"#;
    let p = problems_of(bad);
    let all = p.join("\n");
    assert!(all.contains("CREATE2"), "{all}");
    assert!(
        all.contains("0x0000000000000000000000000000000000000009 is not in the catalog"),
        "{all}"
    );
    assert!(all.contains("liquidity 5 differs"), "{all}");
    assert!(all.contains("chain 10 has no `chains` entry"), "{all}");
    assert!(all.contains("weights must sum to 1e18"), "{all}");
    // The pair keeps reserves as `uint112`: 2^112 is refused, 2^112 - 1 is
    // not.
    assert!(
        all.contains("reserve1 5192296858534827628530496329220096 exceeds the pair's uint112"),
        "{all}"
    );
    assert_eq!(all.matches("uint112").count(), 1, "{all}");
    // A pair's liquidity token: only the 30 bps pair's, with a positive
    // supply, and its kLast and feeOn only beside a supply.
    assert!(all.contains("lpSupply with feeBps 25"), "{all}");
    assert!(all.contains("lpSupply must be positive"), "{all}");
    assert!(all.contains("kLast and feeOn describe the liquidity token"), "{all}");
    // A Balancer pool's BPT, when listed, has a supply.
    assert!(all.contains("bptSupply must be positive"), "{all}");
    assert!(all.contains("bptSupply on a pool of more than 7 coins"), "{all}");
    assert!(p.len() >= 8, "{all}");
}

#[test]
fn malformed_files_are_parse_errors_not_panics() {
    for bad in [
        "",
        "{",
        "[]",
        r#"{"pools": 3}"#,
        r#"{"pools":[{"kind":"nope"}]}"#,
        r#"{"pools":[{"kind":"uniswapV2","reserve0":"-1"}]}"#,
        r#"{"unknown": 1}"#,
    ] {
        assert!(loaders::parse_market_document("t.json", bad.as_bytes()).is_err(), "{bad}");
    }
    assert!(loaders::parse_catalog_document("t.json", br#"{"tokens":[{"chainId":1}]}"#).is_err());
}

/// Catalog files extend the embedded default: a new token is added, one
/// with an embedded token's key replaces it, the rest stays.
#[test]
fn files_extend_the_embedded_catalog_by_key() {
    let weth: Address = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2".parse().expect("address");
    let uni: Address = "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984".parse().expect("address");
    let doc = loaders::parse_catalog_document(
        "extra.json",
        br#"{"tokens":[
            {"chainId":1,"address":"0x1f9840a85d5af5bf1d1762f925bdaddc4201f984","symbol":"UNI",
             "name":"Uniswap","decimals":18,"type":"base","logosUri":[]},
            {"chainId":1,"address":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2","symbol":"WETH",
             "name":"Wrapped Ether (operator)","decimals":18,"type":"base","logosUri":[]}
        ]}"#,
    )
    .expect("parses");
    let base = catalog();
    let c = loaders::extended_catalog(vec![doc]).expect("extends");
    assert_eq!(c.token(ChainId(1), uni).map(|t| t.symbol.as_str()), Some("UNI"));
    assert_eq!(
        c.token(ChainId(1), weth).map(|t| t.name.as_str()),
        Some("Wrapped Ether (operator)")
    );
    assert_eq!(c.tokens_on(ChainId(1)).len(), base.tokens_on(ChainId(1)).len() + 1);
    assert_eq!(c.networks().len(), base.networks().len());
    // With no file, the embedded default itself.
    let none = loaders::extended_catalog(Vec::new()).expect("embedded");
    assert_eq!(none.tokens_on(ChainId(1)).len(), base.tokens_on(ChainId(1)).len());
}

/// Tokens discovered on a followed chain join a catalog without replacing
/// what it lists, and every lookup sees them.
#[test]
fn discovered_tokens_join_the_catalog() {
    let base = catalog();
    let mut usdc = base
        .token(ChainId(1), "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48".parse().expect("address"))
        .expect("USDC")
        .clone();
    let listed_name = usdc.name.clone();
    usdc.name = "not the catalog's".into();
    let mut uni = usdc.clone();
    uni.address = "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984".parse().expect("address");
    uni.symbol = "UNI".into();
    uni.source = Some("node".into());
    let c = base.with_tokens([usdc.clone(), uni.clone()]);
    assert_eq!(c.token(ChainId(1), usdc.address).map(|t| t.name.clone()), Some(listed_name));
    assert_eq!(
        c.token(ChainId(1), uni.address).and_then(|t| t.source.clone()).as_deref(),
        Some("node")
    );
    assert_eq!(c.tokens_on(ChainId(1)).len(), base.tokens_on(ChainId(1)).len() + 1);
    assert!(c.tokens_on(ChainId(1)).windows(2).all(|w| w[0].address < w[1].address));
    assert_eq!(c.tokens_on(ChainId(10)).len(), base.tokens_on(ChainId(10)).len());
}

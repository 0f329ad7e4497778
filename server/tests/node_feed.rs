//! The RPC feed against a real node: a Hardhat 2 node on loopback
//! (`tests/node`, installed by `scripts/setup.sh --tests`) runs the real
//! Uniswap V2/V3 bytecode at the mainnet factory addresses, and the server
//! binary follows it as chain 1.
//!
//! 1. The fixture deploys the tokens, a V2 pair and a V3 pool, with
//!    liquidity; the feed discovers them from the factories' events and
//!    loads their state.
//! 2. The quote is the node's own exact answer (the V2 formula on
//!    `getReserves`; an `eth_call` of the V3 swap).
//! 3. A swap on the node moves the quote to the new exact value within 2
//!    blocks; a reorg (`evm_revert`, then another swap) is rolled back.
//! 4. With the node stopped the feed goes stale and the routes through its
//!    pools get 503 `STALE_MARKET`; with the node back, it recovers by
//!    itself.
//!
//! A second test loads the embedded market's chain-1 world into the node
//! (Curve, the published Balancer Vault and pools, vaults, Aave V3's
//! published bytecode, Compound, Lido) and checks every listed kind against
//! the node's own answer: at start; after a Curve trade, a Vault swap (and a
//! reorg dropping it), a gift of assets to a vault; for a weighted pool
//! registered with the Vault while the feed follows; and for a StableSwap
//! pool listed in a Curve registry while the feed follows (found from
//! `pool_list`, mid-ramp), with routes proven through the new pools.
#![cfg(unix)]
// Blocking test code driving child processes; no async runtime here.
#![allow(clippy::disallowed_methods)]

mod common;

use std::{
    path::Path,
    time::{Duration, Instant},
};

use alloy_primitives::{Address, Bytes, U256, address, aliases::I24, aliases::U24};
use alloy_sol_types::{SolCall, SolValue, sol};
use serde_json::{Value, json};

use common::{
    Proc, free_port,
    node::{Node, http, load_worlds, npm, ours, serve_config},
    wait_for,
};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
const DAI: Address = address!("6b175474e89094c44da98b954eedeac495271d0f");
const WBTC: Address = address!("2260fac5e5542a773aa44fbcfedf7c193bc2c599");
const V2_FACTORY: Address = address!("5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f");
const V3_FACTORY: Address = address!("1f98431c8ad98523631ae4a59f267346ea31f984");

sol! {
    interface Token {
        function mint(address to, uint256 amount) external;
        function balanceOf(address who) external view returns (uint256);
    }
    interface V2Factory {
        function createPair(address tokenA, address tokenB) external returns (address pair);
        function getPair(address a, address b) external view returns (address pair);
    }
    interface Pair {
        function mint(address to) external returns (uint256 liquidity);
        function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 ts);
        function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data) external;
    }
    interface V3Factory {
        function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool);
        function getPool(address a, address b, uint24 fee) external view returns (address pool);
    }
    interface Pool {
        function initialize(uint160 sqrtPriceX96) external;
    }
    interface Swapper {
        function mint(address pool, int24 lower, int24 upper, uint128 liquidity) external returns (uint256 amount0, uint256 amount1);
        function swapExactIn(address pool, bool zeroForOne, uint256 amountIn, address recipient) external returns (uint256 out);
    }
}

/// What the fixture put on the node.
struct Fixture {
    me: Address,
    pair: Address,
    pool: Address,
    swapper: Address,
}

/// Tokens, a USDC/WETH V2 pair and a DAI/WETH V3 pool at their mainnet
/// addresses, with liquidity; the same on every fresh node.
fn deploy(node: &Node) -> Fixture {
    let me = node.accounts()[0];
    for (token, symbol, decimals) in [(USDC, "USDC", 6u8), (WETH, "WETH", 18), (DAI, "DAI", 18)] {
        let mut code = ours("TestERC20");
        code.extend(
            (symbol.to_owned(), symbol.to_owned(), U256::from(decimals)).abi_encode_params(),
        );
        let scratch = node.send(me, None, &code).expect("token deployed");
        node.relocate(scratch, token, &[]);
    }
    // V2: no immutables; the factory creates pairs at their mainnet
    // addresses (same init code).
    let mut code = npm("v2-core/build/UniswapV2Factory.json");
    code.extend(me.abi_encode());
    let scratch = node.send(me, None, &code).expect("v2 factory");
    node.relocate(scratch, V2_FACTORY, &[]);
    let pair = new_pair(
        node,
        me,
        (USDC, U256::from(2_000_000_000_000u64)),
        (WETH, U256::from(10u128.pow(21))),
    );

    // V3: the factory's own address is an immutable (NoDelegateCall), and
    // its owner and fee tiers live in storage.
    let scratch = node
        .send(
            me,
            None,
            &npm("v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json"),
        )
        .expect("v3 factory");
    let mut slots: Vec<U256> = (0..8u64).map(U256::from).collect();
    for fee in [500u64, 3000, 10000] {
        for slot in 0..8u64 {
            let key = (U256::from(fee), U256::from(slot)).abi_encode();
            slots.push(U256::from_be_bytes(alloy_primitives::keccak256(key).0));
        }
    }
    node.relocate(scratch, V3_FACTORY, &slots);
    node.send(
        me,
        Some(V3_FACTORY),
        &V3Factory::createPoolCall { tokenA: DAI, tokenB: WETH, fee: U24::from(3000) }.abi_encode(),
    );
    let pool = Address::from_slice(
        &node.call(
            V3_FACTORY,
            &V3Factory::getPoolCall { a: DAI, b: WETH, fee: U24::from(3000) }.abi_encode(),
        )[12..32],
    );
    // DAI (token0) per WETH at 3000: sqrt(1/3000) in Q64.96.
    let sqrt = U256::from((2f64.powi(96) / 3000f64.sqrt()) as u128);
    node.send(
        me,
        Some(pool),
        &Pool::initializeCall { sqrtPriceX96: alloy_primitives::aliases::U160::from(sqrt) }
            .abi_encode(),
    );
    let swapper = node.send(me, None, &ours("V3Swapper")).expect("swapper");
    for t in [DAI, WETH] {
        node.send(
            me,
            Some(t),
            &Token::mintCall { to: swapper, amount: U256::from(10u128.pow(30)) }.abi_encode(),
        );
    }
    // V3Swapper.mint(pool, lower, upper, liquidity): two overlapping
    // positions around tick -80067.
    for (lo, hi, liq) in
        [(-81_000, -79_020, 10u128.pow(23)), (-82_020, -78_000, 5 * 10u128.pow(22))]
    {
        let data = Swapper::mintCall {
            pool,
            lower: I24::try_from(lo).expect("tick"),
            upper: I24::try_from(hi).expect("tick"),
            liquidity: liq,
        }
        .abi_encode();
        node.send(me, Some(swapper), &data);
    }
    Fixture { me, pair, pool, swapper }
}

/// A V2 pair of `a` and `b` created through the factory, each token minted
/// into it and the pair's own `mint` run.
fn new_pair(node: &Node, me: Address, a: (Address, U256), b: (Address, U256)) -> Address {
    node.send(
        me,
        Some(V2_FACTORY),
        &V2Factory::createPairCall { tokenA: a.0, tokenB: b.0 }.abi_encode(),
    );
    let pair = Address::from_slice(
        &node.call(V2_FACTORY, &V2Factory::getPairCall { a: a.0, b: b.0 }.abi_encode())[12..32],
    );
    for (token, amount) in [a, b] {
        node.send(me, Some(token), &Token::mintCall { to: pair, amount }.abi_encode());
    }
    node.send(me, Some(pair), &Pair::mintCall { to: me }.abi_encode());
    pair
}

/// The V2 pair's exact output for `amount_in` USDC (its token0).
fn v2_out(node: &Node, f: &Fixture, amount_in: U256) -> U256 {
    pair_out0(node, f.pair, amount_in)
}

/// A pair's exact output for `amount_in` of its token0.
fn pair_out0(node: &Node, pair: Address, amount_in: U256) -> U256 {
    let r = Pair::getReservesCall::abi_decode_returns(
        &node.call(pair, &Pair::getReservesCall {}.abi_encode()),
    )
    .expect("reserves");
    let (rin, rout) = (U256::from(r.reserve0), U256::from(r.reserve1));
    let with_fee = amount_in * U256::from(997);
    with_fee * rout / (rin * U256::from(1000) + with_fee)
}

/// A pair's exact output for `amount_in` of `token_in` (the pair's other
/// token being `token_out`), either side.
fn pair_out(
    node: &Node,
    pair: Address,
    token_in: Address,
    token_out: Address,
    amount_in: U256,
) -> U256 {
    let r = Pair::getReservesCall::abi_decode_returns(
        &node.call(pair, &Pair::getReservesCall {}.abi_encode()),
    )
    .expect("reserves");
    let (r0, r1) = (U256::from(r.reserve0), U256::from(r.reserve1));
    // token0 is the smaller address.
    let (rin, rout) = if token_in < token_out { (r0, r1) } else { (r1, r0) };
    let with_fee = amount_in * U256::from(997);
    with_fee * rout / (rin * U256::from(1000) + with_fee)
}

/// Swaps `amount_in` through the V3 pool on the node (DAI in when
/// `zero_for_one`).
fn v3_swap(node: &Node, f: &Fixture, zero_for_one: bool, amount_in: U256) {
    let call = Swapper::swapExactInCall {
        pool: f.pool,
        zeroForOne: zero_for_one,
        amountIn: amount_in,
        recipient: f.me,
    };
    node.send(f.me, Some(f.swapper), &call.abi_encode());
}

/// The V3 pool's exact output for `amount_in` WETH (an `eth_call` of the
/// swap itself).
fn v3_out(node: &Node, f: &Fixture, amount_in: U256) -> U256 {
    let out = node.call(
        f.swapper,
        &Swapper::swapExactInCall {
            pool: f.pool,
            zeroForOne: false,
            amountIn: amount_in,
            recipient: f.me,
        }
        .abi_encode(),
    );
    Swapper::swapExactInCall::abi_decode_returns(&out).expect("out")
}

struct Server {
    addr: String,
    key: String,
    _proc: Proc,
}

impl Server {
    /// `GET path` with the key: the status and the body as JSON (`Null`
    /// when it is not JSON).
    fn get(&self, path: &str) -> (u16, Value) {
        let (code, body) = http(&self.addr, "GET", path, &self.key, "").expect("an answer");
        (code, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    /// `GET path`, which must answer 200.
    fn ok(&self, path: &str) -> Value {
        let (code, v) = self.get(path);
        assert_eq!(code, 200, "{path}: {v}");
        v
    }

    fn quote(&self, token_in: Address, token_out: Address, amount: U256) -> (u16, Value) {
        self.get(&format!(
            "/api/v1/shortcuts/quote?chainId=1&tokenIn={token_in:#x}&tokenOut={token_out:#x}&amountIn={amount}"
        ))
    }

    fn amount_out(&self, token_in: Address, token_out: Address, amount: U256) -> Option<U256> {
        let (code, v) = self.quote(token_in, token_out, amount);
        if code != 200 {
            return None;
        }
        v["amountOut"].as_str().and_then(|s| s.parse().ok())
    }

    fn feeds(&self) -> Vec<Value> {
        let (_, body) = http(&self.addr, "GET", "/ready", "", "").expect("an answer");
        let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        v["feeds"].as_array().cloned().unwrap_or_default()
    }

    /// The status and head of chain 1's feed of `source`.
    fn feed(&self, source: &str) -> (String, u64) {
        self.feeds()
            .iter()
            .find(|f| f["chainId"] == 1 && f["source"] == source)
            .map(|f| {
                (
                    f["status"].as_str().unwrap_or("").to_owned(),
                    f["headBlock"].as_u64().unwrap_or(0),
                )
            })
            .unwrap_or_default()
    }
}

fn serve(dir: &Path, node_port: u16) -> Server {
    serve_with(dir, node_port, "")
}

/// [`serve`], with `extra` appended to the node's table.
fn serve_with(dir: &Path, node_port: u16, extra: &str) -> Server {
    let (addr, key, proc) = serve_config(
        dir,
        &format!(
            "\n[[nodes]]\nchain_id = 1\nurl = \"http://127.0.0.1:{node_port}\"\npoll_ms = 100\n\
             delayed_after_ms = 1000\nstale_after_ms = 2000\nreorg_depth = 16\ntimeout_ms = 1000\n{extra}"
        ),
    );
    Server { addr, key, _proc: proc }
}

/// Mines blocks one at a time until `done`, at most `blocks`; returns how
/// many it took.
fn within_blocks(node: &Node, blocks: u64, mut done: impl FnMut() -> bool) -> Option<u64> {
    for mined in 0..=blocks {
        // The feed polls every 100 ms: give each block a few polls.
        let deadline = Instant::now() + Duration::from_millis(1_500);
        while Instant::now() < deadline {
            if done() {
                return Some(mined);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if mined < blocks {
            node.rpc("evm_mine", json!([]));
        }
    }
    None
}

#[test]
fn the_rpc_feed_follows_a_real_node_through_swaps_reorgs_and_outages() {
    let dir = common::temp_dir("node-feed");
    let node_port = free_port();
    let mut node = Node::start(node_port);
    let fx = deploy(&node);
    let server = serve(&dir, node_port);
    let log = dir.join("server.log");
    let show_log = || std::fs::read_to_string(&log).unwrap_or_default();

    // 1. Discovered and loaded.
    wait_for("both feeds ready", 60, || {
        server.feed("uniswap-v2").0 == "ready" && server.feed("uniswap-v3").0 == "ready"
    });
    // Prometheus sees each of the node's feeds, its head and its lag.
    let (_, metrics) = http(&server.addr, "GET", "/metrics", "", "").expect("metrics");
    for line in [
        "switchyard_feed_up{chain=\"1\",source=\"uniswap-v2\",status=\"ready\"} 1".to_owned(),
        format!(
            "switchyard_feed_head_block{{chain=\"1\",source=\"uniswap-v3\"}} {}",
            node.block_number()
        ),
        "switchyard_feed_lag_blocks{chain=\"1\",source=\"uniswap-v3\"} 0".to_owned(),
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} missing:\n{metrics}");
    }
    let usdc_in = U256::from(25_000_000_000u64); // 25,000 USDC
    let weth_in = U256::from(3u128 * 10u128.pow(18));
    // 2. The node's exact answers.
    let q = |t_in, t_out, a| server.amount_out(t_in, t_out, a);
    assert_eq!(
        q(USDC, WETH, usdc_in),
        Some(v2_out(&node, &fx, usdc_in)),
        "{:?} {:?} {}",
        server.quote(USDC, WETH, usdc_in),
        server.feeds().iter().filter(|f| f["chainId"] == 1).collect::<Vec<_>>(),
        show_log()
    );
    assert_eq!(
        q(WETH, DAI, weth_in),
        Some(v3_out(&node, &fx, weth_in)),
        "{:?}",
        server.quote(WETH, DAI, weth_in)
    );

    // 3. Swaps on the node: the quote follows within 2 blocks.
    let before = q(USDC, WETH, usdc_in);
    let sell = U256::from(100_000_000_000u64);
    let out = v2_out(&node, &fx, sell);
    node.send(fx.me, Some(USDC), &Token::mintCall { to: fx.pair, amount: sell }.abi_encode());
    node.send(
        fx.me,
        Some(fx.pair),
        &Pair::swapCall { amount0Out: U256::ZERO, amount1Out: out, to: fx.me, data: Bytes::new() }
            .abi_encode(),
    );
    let expect = v2_out(&node, &fx, usdc_in);
    assert_ne!(Some(expect), before);
    let took = within_blocks(&node, 2, || q(USDC, WETH, usdc_in) == Some(expect));
    assert!(took.is_some(), "the V2 quote did not follow the swap within 2 blocks: {}", show_log());

    v3_swap(&node, &fx, false, U256::from(40u128 * 10u128.pow(18)));
    let expect = v3_out(&node, &fx, weth_in);
    let took = within_blocks(&node, 2, || q(WETH, DAI, weth_in) == Some(expect));
    assert!(took.is_some(), "the V3 quote did not follow the swap within 2 blocks: {}", show_log());

    // A pair created while the feed follows: discovered from its event,
    // with the first mint of the same blocks (WBTC trades nowhere else, so
    // the quote is this pair's own).
    let mut code = ours("TestERC20");
    code.extend(("WBTC".to_owned(), "WBTC".to_owned(), U256::from(8)).abi_encode_params());
    let scratch = node.send(fx.me, None, &code).expect("token deployed");
    node.relocate(scratch, WBTC, &[]);
    let wbtc_pair = new_pair(
        &node,
        fx.me,
        (WBTC, U256::from(5_000_000_000u64)),
        (USDC, U256::from(4_750_000_000_000u64)),
    );
    let btc_in = U256::from(10_000_000u64); // 0.1 WBTC
    let usdc_out = pair_out0(&node, wbtc_pair, btc_in);
    let took = within_blocks(&node, 2, || q(WBTC, USDC, btc_in) == Some(usdc_out));
    assert!(
        took.is_some(),
        "a new pair was not followed: {:?} {}",
        server.quote(WBTC, USDC, btc_in),
        show_log()
    );

    // A token no catalog lists: read from the node (decimals, symbol,
    // name), listed with its source, quoted exactly and routed through.
    let mut code = ours("TestERC20");
    code.extend(("Node Only".to_owned(), "NODE".to_owned(), U256::from(9)).abi_encode_params());
    let fresh = node.send(fx.me, None, &code).expect("token deployed");
    let fresh_pair = new_pair(
        &node,
        fx.me,
        (fresh, U256::from(8_000_000_000_000u64)),
        (USDC, U256::from(2_000_000_000_000u64)),
    );
    // A token that burns 1% of every transfer, in a pair with liquidity:
    // its metadata is fine, the simulated transfer finds the fee.
    let mut code = ours("TestFeeToken");
    code.extend(("Fee Token".to_owned(), "FEE".to_owned(), U256::from(18)).abi_encode_params());
    let fee_token = node.send(fx.me, None, &code).expect("fee token deployed");
    new_pair(
        &node,
        fx.me,
        (fee_token, U256::from(10u128.pow(24))),
        (USDC, U256::from(1_000_000_000_000u64)),
    );
    // And a pair with a "token" that has no decimals(): read, refused.
    node.send(
        fx.me,
        Some(V2_FACTORY),
        &V2Factory::createPairCall { tokenA: fx.swapper, tokenB: USDC }.abi_encode(),
    );
    let fresh_in = U256::from(1_000_000_000_000u64); // 1,000 NODE
    let out = pair_out(&node, fresh_pair, fresh, USDC, fresh_in);
    let took = within_blocks(&node, 3, || q(fresh, USDC, fresh_in) == Some(out));
    assert!(
        took.is_some(),
        "a pair of a token no catalog lists was not followed: {:?} {}",
        server.quote(fresh, USDC, fresh_in),
        show_log()
    );
    let listed =
        server.ok(&format!("/api/v1/tokens?chainId=1&address={fresh:#x}&includeMetadata=true"));
    let t = &listed["data"][0];
    assert_eq!(
        (t["symbol"].as_str(), t["name"].as_str(), t["decimals"].as_u64(), t["source"].as_str()),
        (Some("NODE"), Some("Node Only"), Some(9), Some("node")),
        "{listed}"
    );
    let usdc = server.ok(&format!("/api/v1/tokens?chainId=1&address={USDC:#x}"));
    assert_eq!(usdc["data"][0]["source"], "catalog", "{usdc}");
    let route = server.ok(&format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={:#x}&tokenIn={fresh:#x}&tokenOut={USDC:#x}&amountIn={fresh_in}&slippage=50",
        fx.me
    ));
    assert_eq!(route["amountOut"].as_str(), Some(out.to_string().as_str()), "{route}");
    assert!(
        within_blocks(&node, 2, || show_log().contains("cannot be used")).is_some(),
        "the token without decimals() is reported: {}",
        show_log()
    );
    // The fee-on-transfer token is found by its transfer, named with what
    // arrived, and kept out of routes (the world's tokens move exact
    // amounts, so a route through it could not be proven there).
    wait_for("the fee token probed", 10, || {
        show_log().contains("does not transfer the amount asked")
    });
    let log_text = show_log();
    let line = log_text
        .lines()
        .find(|l| l.contains("does not transfer the amount asked"))
        .unwrap_or_default();
    assert!(
        line.contains(&format!("{fee_token:#x}")) || line.contains(&format!("{fee_token}")),
        "{line}"
    );
    assert!(line.contains("a fee or rebase on transfer"), "{line}");
    let (code, body) = server.quote(fee_token, USDC, U256::from(10u128.pow(18)));
    assert!((400..500).contains(&code), "{code} {body}");
    let listed_fee = server.get(&format!("/api/v1/tokens?chainId=1&address={fee_token:#x}"));
    assert_eq!(listed_fee.1["data"].as_array().map(Vec::len), Some(0), "{listed_fee:?}");

    // A route through the node's pools is proven in the EVM too.
    let route = server.ok(&format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={:#x}&tokenIn={WETH:#x}&tokenOut={DAI:#x}&amountIn={weth_in}&slippage=50",
        fx.me
    ));
    assert_eq!(route["amountOut"].as_str(), Some(expect.to_string().as_str()), "{route}");

    // The wallet's balances come from the node itself.
    let balances = server
        .ok(&format!("/api/v1/wallet/balances?chainId=1&eoaAddress={:#x}&useEoa=true", fx.me));
    for token in [WETH, DAI] {
        let on_node = U256::from_be_slice(
            &node.call(token, &Token::balanceOfCall { who: fx.me }.abi_encode()),
        );
        assert!(!on_node.is_zero());
        let served = balances
            .as_array()
            .and_then(|a| {
                a.iter().find(|b| {
                    b["token"].as_str().map(str::to_lowercase) == Some(format!("{token:#x}"))
                })
            })
            .and_then(|b| b["amount"].as_str())
            .unwrap_or_else(|| panic!("{token} missing: {balances}"));
        assert_eq!(served, on_node.to_string(), "{token}");
    }

    // 4. A reorg: the swap below is undone and replaced by another block.
    let snapshot = node.rpc("evm_snapshot", json!([]));
    v3_swap(&node, &fx, true, U256::from(200_000u128 * 10u128.pow(18)));
    let moved = v3_out(&node, &fx, weth_in);
    assert!(
        within_blocks(&node, 2, || q(WETH, DAI, weth_in) == Some(moved)).is_some(),
        "{}",
        show_log()
    );
    assert_eq!(node.rpc("evm_revert", json!([snapshot])), json!(true));
    // A different block at the same height, then one more.
    v3_swap(&node, &fx, true, U256::from(1_000u128 * 10u128.pow(18)));
    node.rpc("evm_mine", json!([]));
    let expect = v3_out(&node, &fx, weth_in);
    assert_ne!(expect, moved);
    assert!(
        within_blocks(&node, 2, || q(WETH, DAI, weth_in) == Some(expect)).is_some(),
        "the reorg was not rolled back: {}",
        show_log()
    );
    assert!(show_log().contains("reorg: rolled back"), "{}", show_log());

    // Chain 1 is live (a node follows it); the other chains answer from
    // the embedded demo market, and say so.
    let net =
        |c: u64| server.ok(&format!("/api/v1/networks?chainId={c}"))[0]["isConnected"].clone();
    assert_eq!((net(1), net(10)), (json!(true), json!(false)));
    let op_usdc = server.ok("/api/v1/prices/10/0x0b2c639c533813f4aa9d7837caf62653d097ff85");
    assert_eq!(op_usdc["confidence"], json!(0.1), "{op_usdc}");

    // 5. The node stops: stale, and routes through its pools are refused.
    let confidence = || {
        let v = server.ok(&format!("/api/v1/prices/1/{WETH:#x}"));
        v["confidence"].as_f64().expect("confidence")
    };
    // Read while both feeds are ready (on a loaded machine a poll can run
    // late enough to mark a feed delayed for a moment).
    let ready = || ["uniswap-v2", "uniswap-v3"].iter().all(|s| server.feed(s).0 == "ready");
    wait_for("the feeds ready before the node stops", 15, ready);
    let fresh = confidence();
    assert!(fresh > 0.0, "{fresh}");
    node.stop();
    wait_for("the feeds to go stale", 15, || server.feed("uniswap-v2").0 == "stale");
    // The price stays, marked less certain: a quarter of what it was once
    // every feed of the chain is stale.
    let mut stale = 0.0;
    wait_for("the price marked stale", 15, || {
        stale = confidence();
        (stale - fresh * 0.25).abs() < 1e-9
    });
    assert!(stale > 0.0, "{fresh} then {stale}");
    let (code, body) = server.quote(USDC, WETH, usdc_in);
    assert_eq!(code, 503, "{body}");
    assert_eq!(body["code"], "STALE_MARKET", "{body}");
    // Other chains still route, their transactions proven in worlds that
    // chain 1's blocks never rebuilt.
    server.ok(&format!(
        "/api/v1/shortcuts/route?chainId=10&fromAddress={:#x}&tokenIn=0x0b2c639c533813f4aa9d7837caf62653d097ff85&tokenOut=0x4200000000000000000000000000000000000006&amountIn=1000000000",
        fx.me
    ));

    // 6. The node is back (a fresh chain, the same fixture): the feed finds
    // its blocks are gone, indexes again and routes at the new state.
    let node = Node::start(node_port);
    let fx = deploy(&node);
    let expect = v2_out(&node, &fx, usdc_in);
    wait_for("recovery", 60, || q(USDC, WETH, usdc_in) == Some(expect));
    let head = node.block_number();
    wait_for("the feeds ready at the node's head", 10, || {
        ["uniswap-v2", "uniswap-v3"].iter().all(|s| server.feed(s) == ("ready".to_owned(), head))
    });
    assert_eq!(q(WETH, DAI, weth_in), Some(v3_out(&node, &fx, weth_in)));
    let _ = std::fs::remove_dir_all(&dir);
}

const USDT: Address = address!("dac17f958d2ee523a2206206994597c13d831ec7");
const CURVE_3POOL: Address = address!("bebc44782c7db0a1a60cb6fe97d0b483032ff1c7");
const BALANCER_VAULT: Address = address!("ba12222222228d8ba445958a75a0704d566bf2c8");
const WBTC_WETH_POOL_ID: alloy_primitives::B256 =
    alloy_primitives::b256!("a6f548df93de924d73be7d25dc02554c6bd66db500020000000000000000000e");
const SDAI: Address = address!("83f20f44975d03b1b09e64809b757c47f942beea");
const MORPHO_VAULT: Address = address!("beef01735c132ada46aa9aa4c54623caa92a64cb");
const STETH: Address = address!("ae7ab96520de3a18e5e111b5eaab095312d7fe84");
const WSTETH: Address = address!("7f39c581f595b53c5cb19bd0b3f8da6c935e2ca0");
const AAVE_POOL: Address = address!("87870bca3f3fd6335c3f4ce8392d69350b4fa4e2");
const AUSDC: Address = address!("98c23e9d8f34fefb1b7bd6a91b7ff122f4e16f5c");
const AWETH: Address = address!("4d5f47fa6a74757f35c14fd3a6ef8e3c9bc514e8");
const THREE_CRV: Address = address!("6c3f90f043a72fa612cbac8115ee7e52bde6e490");
const WBTC_WETH_POOL: Address = address!("a6f548df93de924d73be7d25dc02554c6bd66db5");
const CUSDC: Address = address!("39aa39c021dfbae8fac545936693ac917d5e7563");
const CUSDCV3: Address = address!("c3d688b66703497daa19211eedff47f25384cdc3");

sol! {
    interface Curve {
        function get_dy(int128 i, int128 j, uint256 dx) external view returns (uint256);
        function exchange(int128 i, int128 j, uint256 dx, uint256 min_dy) external returns (uint256);
    }
    interface Erc20 {
        function approve(address spender, uint256 amount) external returns (bool);
        function transfer(address to, uint256 amount) external returns (bool);
    }
    interface BalancerVault {
        struct BatchSwapStep { bytes32 poolId; uint256 assetInIndex; uint256 assetOutIndex; uint256 amount; bytes userData; }
        struct FundManagement { address sender; bool fromInternalBalance; address recipient; bool toInternalBalance; }
        struct JoinPoolRequest { address[] assets; uint256[] maxAmountsIn; bytes userData; bool fromInternalBalance; }
        function joinPool(bytes32 poolId, address sender, address recipient, JoinPoolRequest request) external payable;
        function queryBatchSwap(uint8 kind, BatchSwapStep[] swaps, address[] assets, FundManagement funds) external returns (int256[] assetDeltas);
        struct SingleSwap { bytes32 poolId; uint8 kind; address assetIn; address assetOut; uint256 amount; bytes userData; }
        function swap(SingleSwap singleSwap, FundManagement funds, uint256 limit, uint256 deadline) external payable returns (uint256);
    }
    interface Vault4626 {
        function previewDeposit(uint256 assets) external view returns (uint256);
        function totalAssets() external view returns (uint256);
    }
    interface WstEth {
        function getWstETHByStETH(uint256 stETHAmount) external view returns (uint256);
    }
    interface StEth {
        function getSharesByPooledEth(uint256 ethAmount) external view returns (uint256);
        function getPooledEthByShares(uint256 sharesAmount) external view returns (uint256);
    }
    interface AavePool {
        function getReserveNormalizedIncome(address asset) external view returns (uint256);
    }
    interface CToken {
        function exchangeRateCurrent() external returns (uint256);
    }
    interface Comet {
        function totalsBasic() external view returns (uint64, uint64, uint64, uint64, uint104, uint104, uint40, uint8);
    }
}

/// A StableSwap pool of two `coins` (address, decimals and the balance
/// its books hold; `A` 100.5, caught mid-ramp, at `A_PRECISION` 100; 0.04%
/// fee, half to the admin), written into `registry` as its entry `index`
/// (the storage its `pool_list`, `pool_count` and `get_lp_token` read:
/// slots 0, 1 and 2).
fn deploy_stableswap(
    node: &Node,
    me: Address,
    registry: Address,
    index: u64,
    coins: [(Address, u8, U256); 2],
) -> Address {
    use alloy_primitives::keccak256;
    use alloy_sol_types::SolConstructor;
    use switchyard_engine::evm::abi::ReferenceStableSwap as Pool;
    let mut code = ours("ReferenceStableSwap");
    code.extend(
        Pool::constructorCall {
            coins_: coins.iter().map(|c| c.0).collect(),
            decimals_: coins.iter().map(|c| c.1).collect(),
            ampPrecise: U256::from(10_050),
            aPrecision: U256::from(100),
            fee_: U256::from(4_000_000),
            adminFee: U256::from(5_000_000_000u64),
        }
        .abi_encode(),
    );
    let pool = node.send(me, None, &code).expect("pool deployed");
    let set = |at: Address, slot: U256, value: U256| {
        node.rpc(
            "hardhat_setStorageAt",
            json!([at, format!("{slot:#x}"), format!("{value:#066x}")]),
        );
    };
    // The internal balances (a dynamic array at slot 1).
    let data = U256::from_be_bytes(keccak256(U256::from(1).to_be_bytes::<32>()).0);
    set(pool, data, coins[0].2);
    set(pool, data + U256::from(1), coins[1].2);
    let entry = keccak256((U256::from(index), U256::ZERO).abi_encode());
    set(registry, U256::from_be_bytes(entry.0), U256::from_be_slice(pool.as_slice()));
    set(registry, U256::from(1), U256::from(index + 1));
    node.rpc("evm_mine", json!([]));
    pool
}

/// `amount` of `token` moved from `holder` (impersonated) to `to`.
fn take(node: &Node, token: Address, holder: Address, to: Address, amount: U256) {
    node.rpc("hardhat_impersonateAccount", json!([holder]));
    node.rpc("hardhat_setBalance", json!([holder, "0xde0b6b3a7640000"]));
    node.send(holder, Some(token), &Erc20::transferCall { to, amount }.abi_encode());
    node.rpc("hardhat_stopImpersonatingAccount", json!([holder]));
}

/// The Vault's own answer (`queryBatchSwap`) for `amount` of `token_in`
/// sold into pool `id`.
fn vault_out(
    node: &Node,
    me: Address,
    id: alloy_primitives::B256,
    token_in: Address,
    token_out: Address,
    amount: U256,
) -> U256 {
    let query = BalancerVault::queryBatchSwapCall {
        kind: 0,
        swaps: vec![BalancerVault::BatchSwapStep {
            poolId: id,
            assetInIndex: U256::ZERO,
            assetOutIndex: U256::from(1),
            amount,
            userData: Bytes::new(),
        }],
        assets: vec![token_in, token_out],
        funds: BalancerVault::FundManagement {
            sender: me,
            fromInternalBalance: false,
            recipient: me,
            toInternalBalance: false,
        },
    };
    let deltas = BalancerVault::queryBatchSwapCall::abi_decode_returns(
        &node.call(BALANCER_VAULT, &query.abi_encode()),
    )
    .expect("deltas");
    U256::try_from(-deltas[1]).expect("paid out")
}

fn word(bytes: &[u8]) -> U256 {
    U256::from_be_slice(&bytes[..32])
}

#[test]
fn the_pools_a_market_lists_are_read_from_the_node_and_follow_it() {
    let dir = common::temp_dir("node-listed");
    let node_port = free_port();
    let node = Node::start(node_port);
    load_worlds(&[(&node, 1)]);
    let me = node.accounts()[0];
    // One listed vault has no contract on this node: it is left out, the
    // others are not.
    node.rpc("hardhat_setCode", json!([MORPHO_VAULT, "0x"]));
    // Curve's pools are looked for in a registry (the reference one, with
    // the deployed getters): it lists the 3pool, which the market lists
    // too, and a Balancer pool, which is no StableSwap and is set aside.
    let mut code = ours("ReferenceCurveRegistry");
    code.extend(
        (vec![CURVE_3POOL, WBTC_WETH_POOL], vec![THREE_CRV, WBTC_WETH_POOL]).abi_encode_params(),
    );
    let registry = node.send(me, None, &code).expect("registry deployed");
    let server =
        serve_with(&dir, node_port, &format!("[nodes.factories]\ncurve = \"{registry:#x}\"\n"));
    let log = dir.join("server.log");
    let show_log = || std::fs::read_to_string(&log).unwrap_or_default();
    let listed = [
        "curve",
        "balancer-v2",
        "spark-savings",
        "sky-savings",
        "morpho-vaults",
        "aave-v3",
        "compound-v2",
        "compound-v3",
        "lido",
    ];
    wait_for("every listed source ready", 60, || {
        listed.iter().all(|s| server.feed(s).0 == "ready")
    });
    let q = |t_in, t_out, a| server.amount_out(t_in, t_out, a);

    // Each kind quotes the node's own answer.
    let curve_out = |dx: U256| {
        word(&node.call(
            CURVE_3POOL,
            &Curve::get_dyCall { i: 1, j: 2, dx }.abi_encode(), // USDC -> USDT
        ))
    };
    let usdc_in = U256::from(250_000_000_000u64); // 250,000 USDC
    assert_eq!(
        q(USDC, USDT, usdc_in),
        Some(curve_out(usdc_in)),
        "{:?} {}",
        server.quote(USDC, USDT, usdc_in),
        show_log()
    );
    let btc_in = U256::from(150_000_000u64); // 1.5 WBTC
    let weth_out = vault_out(&node, me, WBTC_WETH_POOL_ID, WBTC, WETH, btc_in);
    assert_eq!(q(WBTC, WETH, btc_in), Some(weth_out), "{:?}", server.quote(WBTC, WETH, btc_in));
    let dai_in = U256::from(10u128.pow(23));
    let shares =
        word(&node.call(SDAI, &Vault4626::previewDepositCall { assets: dai_in }.abi_encode()));
    assert_eq!(q(DAI, SDAI, dai_in), Some(shares), "{:?}", server.quote(DAI, SDAI, dai_in));
    // stETH moves shares: the executor receives the amount the shares of
    // `st_in` are worth (a wei less, here), and wraps that.
    let st_in = U256::from(7u128 * 10u128.pow(18));
    let st_shares =
        word(&node.call(STETH, &StEth::getSharesByPooledEthCall { ethAmount: st_in }.abi_encode()));
    let received = word(
        &node
            .call(STETH, &StEth::getPooledEthBySharesCall { sharesAmount: st_shares }.abi_encode()),
    );
    let wst = word(
        &node.call(WSTETH, &WstEth::getWstETHByStETHCall { stETHAmount: received }.abi_encode()),
    );
    assert_eq!(q(STETH, WSTETH, st_in), Some(wst), "{:?}", server.quote(STETH, WSTETH, st_in));
    let usdc_small = U256::from(5_000_000_000u64);
    let rate = word(&node.call(CUSDC, &CToken::exchangeRateCurrentCall {}.abi_encode()));
    assert_eq!(
        q(USDC, CUSDC, usdc_small),
        Some(usdc_small * U256::from(10u128.pow(18)) / rate),
        "{:?}",
        server.quote(USDC, CUSDC, usdc_small)
    );
    // Aave: the aToken balance a supply leaves, at the pool's income index.
    let index =
        word(&node.call(
            AAVE_POOL,
            &AavePool::getReserveNormalizedIncomeCall { asset: USDC }.abi_encode(),
        ));
    let ray = U256::from(10u128.pow(27));
    let scaled = (usdc_small * ray + index / U256::from(2)) / index;
    let a_balance = (scaled * index + ray / U256::from(2)) / ray;
    assert_eq!(
        q(USDC, AUSDC, usdc_small),
        Some(a_balance),
        "{:?}",
        server.quote(USDC, AUSDC, usdc_small)
    );
    // Compound III: the supply index the node's market holds once accrued
    // (`totalsBasic` after `accrueAccount`, as the feed reads it); what a
    // supply reads as, handed over once more by the router's executor.
    let index = {
        let totals = node.call(CUSDCV3, &Comet::totalsBasicCall {}.abi_encode());
        U256::from_be_slice(&totals[..32])
    };
    let scale = U256::from(10u64.pow(15));
    let credited = |x: U256| (x * scale / index) * index / scale;
    assert_eq!(
        q(USDC, CUSDCV3, usdc_small),
        Some(credited(credited(usdc_small))),
        "{:?}",
        server.quote(USDC, CUSDCV3, usdc_small)
    );
    // The vault without a contract is left out, and the log says why.
    let (code, body) = server.quote(USDC, MORPHO_VAULT, usdc_small);
    assert!((400..500).contains(&code), "{code} {body}");
    assert!(show_log().contains("cannot be read from the node"), "{}", show_log());
    // A route through a listed pool is proven in the world built from the
    // records the node answered.
    let route = server.ok(&format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={me:#x}&tokenIn={USDC:#x}&tokenOut={USDT:#x}&amountIn={usdc_in}&slippage=50"
    ));
    assert_eq!(route["amountOut"].as_str(), Some(curve_out(usdc_in).to_string().as_str()));

    // A trade on the node moves the Curve quote to the pool's new answer.
    let before = curve_out(usdc_in);
    let sell = U256::from(2_000_000_000_000u64); // 2M USDC, from the pool's own holdings
    take(&node, USDC, CURVE_3POOL, me, sell);
    node.send(
        me,
        Some(USDC),
        &Erc20::approveCall { spender: CURVE_3POOL, amount: sell }.abi_encode(),
    );
    node.send(
        me,
        Some(CURVE_3POOL),
        &Curve::exchangeCall { i: 1, j: 2, dx: sell, min_dy: U256::ZERO }.abi_encode(),
    );
    let after = curve_out(usdc_in);
    assert_ne!(before, after);
    assert!(
        within_blocks(&node, 2, || q(USDC, USDT, usdc_in) == Some(after)).is_some(),
        "the Curve quote did not follow the trade: {:?} {}",
        server.quote(USDC, USDT, usdc_in),
        show_log()
    );

    // A swap through the published Vault moves the weighted pool's quote to
    // the Vault's new answer; a reorg that drops the swap moves it back.
    let before_swap = node.rpc("evm_snapshot", json!([]));
    let weth_before = vault_out(&node, me, WBTC_WETH_POOL_ID, WBTC, WETH, btc_in);
    let sold = U256::from(50_000_000u64); // 0.5 WBTC
    take(&node, WBTC, BALANCER_VAULT, me, sold);
    node.send(
        me,
        Some(WBTC),
        &Erc20::approveCall { spender: BALANCER_VAULT, amount: sold }.abi_encode(),
    );
    let swap = BalancerVault::swapCall {
        singleSwap: BalancerVault::SingleSwap {
            poolId: WBTC_WETH_POOL_ID,
            kind: 0,
            assetIn: WBTC,
            assetOut: WETH,
            amount: sold,
            userData: Bytes::new(),
        },
        funds: BalancerVault::FundManagement {
            sender: me,
            fromInternalBalance: false,
            recipient: me,
            toInternalBalance: false,
        },
        limit: U256::ZERO,
        deadline: U256::MAX,
    };
    node.send(me, Some(BALANCER_VAULT), &swap.abi_encode());
    let weth_after = vault_out(&node, me, WBTC_WETH_POOL_ID, WBTC, WETH, btc_in);
    assert_ne!(weth_before, weth_after);
    assert!(
        within_blocks(&node, 2, || q(WBTC, WETH, btc_in) == Some(weth_after)).is_some(),
        "the weighted pool's quote did not follow a swap: {:?} {}",
        server.quote(WBTC, WETH, btc_in),
        show_log()
    );
    assert_eq!(node.rpc("evm_revert", json!([before_swap])), json!(true));
    assert_eq!(vault_out(&node, me, WBTC_WETH_POOL_ID, WBTC, WETH, btc_in), weth_before);
    assert!(
        within_blocks(&node, 3, || q(WBTC, WETH, btc_in) == Some(weth_before)).is_some(),
        "the weighted pool's quote did not follow a reorg: {:?} {}",
        server.quote(WBTC, WETH, btc_in),
        show_log()
    );

    // Assets given to a vault (as interest would) move its share price; the
    // quote is the vault's own preview.
    let total = |v: Address| word(&node.call(v, &Vault4626::totalAssetsCall {}.abi_encode()));
    let assets_before = total(SDAI);
    let gift = U256::from(5u128 * 10u128.pow(24)); // 5M DAI
    take(&node, DAI, CURVE_3POOL, SDAI, gift);
    assert_eq!(total(SDAI), assets_before + gift);
    let shares =
        word(&node.call(SDAI, &Vault4626::previewDepositCall { assets: dai_in }.abi_encode()));
    assert!(
        within_blocks(&node, 2, || q(DAI, SDAI, dai_in) == Some(shares)).is_some(),
        "the vault's quote did not follow its assets: {:?} {}",
        server.quote(DAI, SDAI, dai_in),
        show_log()
    );

    // A weighted pool registered with the node's Vault while the feed
    // follows (the published 2021 two-token pool): found from the Vault's
    // events, joined, and quoted as the Vault answers.
    use alloy_sol_types::SolConstructor;
    use switchyard_engine::evm::{Artifact, NpmArtifacts, abi::BalancerWeightedPool2Tokens as Wp};
    let npm = NpmArtifacts::load(&NpmArtifacts::default_dir()).expect("npm artifacts");
    let mut code = npm.initcode(Artifact::BalancerWeightedPool2Tokens).expect("pool").to_vec();
    let half = U256::from(5u128 * 10u128.pow(17));
    code.extend(
        Wp::constructorCall {
            params: Wp::NewPoolParams {
                vault: BALANCER_VAULT,
                name: "50USDC-50WETH".into(),
                symbol: "B-50USDC-50WETH".into(),
                token0: USDC,
                token1: WETH,
                normalizedWeight0: half,
                normalizedWeight1: half,
                swapFeePercentage: U256::from(3u128 * 10u128.pow(15)),
                pauseWindowDuration: U256::ZERO,
                bufferPeriodDuration: U256::ZERO,
                oracleEnabled: false,
                owner: me,
            },
        }
        .abi_encode(),
    );
    let pool = node.send(me, None, &code).expect("weighted pool deployed");
    let id =
        alloy_primitives::B256::from_slice(&node.call(pool, &Wp::getPoolIdCall {}.abi_encode()));
    let amounts = vec![U256::from(3_000_000_000_000u64), U256::from(1_000u128 * 10u128.pow(18))];
    take(&node, USDC, CURVE_3POOL, me, amounts[0]);
    take(&node, WETH, AWETH, me, amounts[1]);
    for (token, amount) in [(USDC, amounts[0]), (WETH, amounts[1])] {
        node.send(
            me,
            Some(token),
            &Erc20::approveCall { spender: BALANCER_VAULT, amount }.abi_encode(),
        );
    }
    let join = BalancerVault::joinPoolCall {
        poolId: id,
        sender: me,
        recipient: me,
        request: BalancerVault::JoinPoolRequest {
            assets: vec![USDC, WETH],
            maxAmountsIn: amounts.clone(),
            userData: (U256::ZERO, amounts).abi_encode_params().into(),
            fromInternalBalance: false,
        },
    };
    node.send(me, Some(BALANCER_VAULT), &join.abi_encode());
    let usdc_buy = U256::from(20_000_000_000u64); // 20,000 USDC
    let expect = vault_out(&node, me, id, USDC, WETH, usdc_buy);
    assert!(
        within_blocks(&node, 2, || q(USDC, WETH, usdc_buy) == Some(expect)).is_some(),
        "a weighted pool registered on the node was not followed: {:?} {}",
        server.quote(USDC, WETH, usdc_buy),
        show_log()
    );
    // The route waits for the world that holds the new pool (built after
    // the snapshot quotes read).
    let path = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={me:#x}&tokenIn={USDC:#x}&tokenOut={WETH:#x}&amountIn={usdc_buy}&slippage=50"
    );
    wait_for("the route through the new pool", 20, || server.get(&path).0 == 200);
    let route = server.ok(&path);
    assert_eq!(route["amountOut"].as_str(), Some(expect.to_string().as_str()), "{route}");
    // A StableSwap pool listed in the registry while the feed follows:
    // found from `pool_list`, proven to price as the kernel does, and
    // quoted as the pool answers. Its WBTC is cheap (near 1:1 with USDT), so
    // no other path competes.
    let wbtc_usdt = [
        (WBTC, 8, U256::from(300_000_000_000u64)), // 3,000 WBTC
        (USDT, 6, U256::from(2_900_000_000u64)),   // 2,900 USDT
    ];
    let curve_pool = deploy_stableswap(&node, me, registry, 2, wbtc_usdt);
    let usdt_in = U256::from(100_000_000u64); // 100 USDT
    let expect =
        word(&node.call(curve_pool, &Curve::get_dyCall { i: 1, j: 0, dx: usdt_in }.abi_encode()));
    assert!(
        within_blocks(&node, 2, || q(USDT, WBTC, usdt_in) == Some(expect)).is_some(),
        "a pool listed in the registry was not found: {:?} {}",
        server.quote(USDT, WBTC, usdt_in),
        show_log()
    );
    // The route waits for the world that holds the found pool.
    let path = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={me:#x}&tokenIn={USDT:#x}&tokenOut={WBTC:#x}&amountIn={usdt_in}&slippage=50"
    );
    let through_it = || {
        let (code, body) = server.get(&path);
        code == 200 && body["route"][0]["poolAddresses"][0] == json!(format!("{curve_pool:#x}"))
    };
    wait_for("the route through the found pool", 20, through_it);
    let route = server.ok(&path);
    assert_eq!(route["amountOut"].as_str(), Some(expect.to_string().as_str()), "{route}");
    // The Balancer pool the registry lists is no StableSwap.
    assert!(show_log().contains("\"found\":1,\"set_aside\":1"), "{}", show_log());

    // Tokens no catalog lists, found only in Curve pools (which lend
    // nothing): read from the node, and their transfers probed out of the
    // pool itself. One moves exact amounts and is routed; one burns 1% of
    // every transfer and is kept out.
    // A new token (`artifact`), in a pool with USDT listed at `index`,
    // 2M of each on its books and 2M of the token in its account.
    let curve_only = |artifact: &str, symbol: &str, index: u64| {
        let mut code = ours(artifact);
        code.extend(
            (format!("{symbol} Coin"), symbol.to_owned(), U256::from(18)).abi_encode_params(),
        );
        let token = node.send(me, None, &code).expect("token deployed");
        let held = U256::from(2_000_000u128 * 10u128.pow(18));
        let usdt = U256::from(2_000_000_000_000u64);
        let pool =
            deploy_stableswap(&node, me, registry, index, [(token, 18, held), (USDT, 6, usdt)]);
        node.send(me, Some(token), &Token::mintCall { to: pool, amount: held }.abi_encode());
        (token, pool)
    };
    let whole = U256::from(10u128.pow(18));
    let (only, only_pool) = curve_only("TestERC20", "CRVONLY", 3);
    let (fee, _) = curve_only("TestFeeToken", "CRVFEE", 4);
    node.rpc("evm_mine", json!([]));
    let only_in = U256::from(1_000u64) * whole;
    let expect =
        word(&node.call(only_pool, &Curve::get_dyCall { i: 0, j: 1, dx: only_in }.abi_encode()));
    assert!(
        within_blocks(&node, 3, || q(only, USDT, only_in) == Some(expect)).is_some(),
        "a Curve pool of a token no catalog lists was not routed: {:?} {}",
        server.quote(only, USDT, only_in),
        show_log()
    );
    let listed =
        server.ok(&format!("/api/v1/tokens?chainId=1&address={only:#x}&includeMetadata=true"));
    let t = &listed["data"][0];
    assert_eq!(
        (t["symbol"].as_str(), t["decimals"].as_u64(), t["source"].as_str()),
        (Some("CRVONLY"), Some(18), Some("node")),
        "{listed}"
    );
    let path = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={me:#x}&tokenIn={only:#x}&tokenOut={USDT:#x}&amountIn={only_in}&slippage=50"
    );
    wait_for("the route through the Curve-only token", 20, || server.get(&path).0 == 200);
    let route = server.ok(&path);
    assert_eq!(route["amountOut"].as_str(), Some(expect.to_string().as_str()), "{route}");
    // The fee pool may be read in the block before its token balance was
    // minted: the token then waits for a holder, and is probed again on a
    // later block, so blocks keep coming while the test waits.
    let probed = || {
        show_log().lines().any(|l| {
            l.contains("does not transfer the amount asked")
                && (l.contains(&format!("{fee:#x}")) || l.contains(&format!("{fee}")))
                && l.contains("a fee or rebase on transfer")
        })
    };
    assert!(
        within_blocks(&node, 12, probed).is_some(),
        "the fee token was not probed: {}",
        show_log()
    );
    let (code, body) = server.quote(fee, USDT, only_in);
    assert!((400..500).contains(&code), "{code} {body}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Uniswap V3's position manager on Ethereum (the embedded world's, bound
/// to the factory at its mainnet address).
const V3_POSITIONS: Address = address!("c36442b4a4522e871399cd717abdd847ab11fe88");

/// `redeemclmm` end to end: a position minted on the node through the
/// position manager (in a DAI/USDC pool created on the node, which the
/// feed finds by its `PoolCreated`), read by the server from the node,
/// redeemed in part through a bundle whose transaction, sent on the node
/// by the position's owner after approving the router for it, pays exactly
/// the `amountsOut` the server answered and leaves the rest of the
/// position with its owner.
#[test]
fn a_position_on_the_node_is_redeemed_in_part_through_a_bundle_to_the_wei() {
    use switchyard_engine::evm::abi::UniswapV3PositionManager as Npm;
    let dir = common::temp_dir("node-redeemclmm");
    let node_port = free_port();
    let node = Node::start(node_port);
    load_worlds(&[(&node, 1)]);
    let me = node.accounts()[0];
    // DAI (token0) and USDC at 1%, one DAI a dollar: sqrt(1e6 / 1e18) in
    // Q64.96.
    let fee = U24::from(10_000);
    node.send(
        me,
        Some(V3_FACTORY),
        &V3Factory::createPoolCall { tokenA: DAI, tokenB: USDC, fee }.abi_encode(),
    );
    let pool = Address::from_slice(
        &node.call(V3_FACTORY, &V3Factory::getPoolCall { a: DAI, b: USDC, fee }.abi_encode())
            [12..32],
    );
    let sqrt = U256::from(1u128 << 96) / U256::from(1_000_000u64);
    node.send(
        me,
        Some(pool),
        &Pool::initializeCall { sqrtPriceX96: alloy_primitives::aliases::U160::from(sqrt) }
            .abi_encode(),
    );
    let (dai, usdc) = (U256::from(10_000u128 * 10u128.pow(18)), U256::from(10_000_000_000u64));
    take(&node, DAI, CURVE_3POOL, me, dai);
    take(&node, USDC, CURVE_3POOL, me, usdc);
    for token in [DAI, USDC] {
        node.send(
            me,
            Some(token),
            &Erc20::approveCall { spender: V3_POSITIONS, amount: U256::MAX }.abi_encode(),
        );
    }
    let mint = Npm::mintCall {
        params: Npm::MintParams {
            token0: DAI,
            token1: USDC,
            fee,
            tickLower: I24::try_from(-277_000).expect("tick"),
            tickUpper: I24::try_from(-275_600).expect("tick"),
            amount0Desired: dai,
            amount1Desired: usdc,
            amount0Min: U256::ZERO,
            amount1Min: U256::ZERO,
            recipient: me,
            deadline: U256::MAX,
        },
    }
    .abi_encode();
    let minted = Npm::mintCall::abi_decode_returns(&node.call_from(me, V3_POSITIONS, &mint))
        .expect("mint answers");
    node.send(me, Some(V3_POSITIONS), &mint);
    let (id, liquidity) = (minted.tokenId, minted.liquidity);
    assert!(liquidity > 0);

    let server = serve(&dir, node_port);
    let log = dir.join("server.log");
    let show_log = || std::fs::read_to_string(&log).unwrap_or_default();
    let half = liquidity / 2;
    let body = json!([{
        "protocol": "uniswap-v3",
        "action": "redeemclmm",
        "args": {
            "tokenIn": V3_POSITIONS,
            "tokenOut": [USDC, DAI],
            "liquidity": half.to_string(),
            "tokenId": id.to_string(),
        }
    }])
    .to_string();
    let path =
        format!("/api/v1/shortcuts/bundle?chainId=1&fromAddress={me:#x}&routingStrategy=router");
    let mut answer = (0, String::new());
    wait_for("the bundle redeeming the node's position", 30, || {
        answer = http(&server.addr, "POST", &path, &server.key, &body).unwrap_or_default();
        answer.0 == 200
    });
    let b: Value = serde_json::from_str(&answer.1).expect("json");
    let out = |t: Address| {
        let v = b["amountsOut"][format!("{t:#x}")].as_str().unwrap_or_else(|| panic!("{b}"));
        U256::from_str_radix(v, 10).expect("amount")
    };
    let (usdc_out, dai_out) = (out(USDC), out(DAI));
    assert!(usdc_out > U256::ZERO && dai_out > U256::ZERO, "{b}");
    let router: Address = serde_json::from_value(b["tx"]["to"].clone()).expect("tx.to");
    let data: Bytes = serde_json::from_value(b["tx"]["data"].clone()).expect("tx.data");
    // The standards now list the redeem on the followed chain.
    let v3 = server.ok("/api/v1/standards/uniswap-v3");
    assert!(v3.to_string().contains("redeemclmm"), "{v3}");

    // On the node: the approvals as answered (the ERC-721 approval of the
    // router for the position: `approve(router, id)`), then the
    // transaction as answered.
    let approvals = b["approvals"].as_array().cloned().unwrap_or_default();
    let nft = Bytes::from(Erc20::approveCall { spender: router, amount: id }.abi_encode());
    assert!(
        approvals.iter().any(|a| a["to"] == json!(format!("{V3_POSITIONS:#x}"))
            && a["data"] == json!(nft.to_string())
            && a["description"].as_str().is_some_and(|d| d.contains("to take token"))),
        "{b}"
    );
    for a in &approvals {
        let to: Address = serde_json::from_value(a["to"].clone()).expect("approval to");
        let data: Bytes = serde_json::from_value(a["data"].clone()).expect("approval data");
        node.send(me, Some(to), &data);
    }
    let balance = |t: Address| word(&node.call(t, &Token::balanceOfCall { who: me }.abi_encode()));
    let before = (balance(USDC), balance(DAI));
    node.transact(me, Some(router), &data);
    assert_eq!(balance(USDC) - before.0, usdc_out, "USDC to the wei: {}", show_log());
    assert_eq!(balance(DAI) - before.1, dai_out, "DAI to the wei");
    let held = Npm::positionsCall::abi_decode_returns(
        &node.call(V3_POSITIONS, &Npm::positionsCall { tokenId: id }.abi_encode()),
    )
    .expect("positions");
    assert_eq!(held.liquidity, liquidity - half, "the rest of the position stays");
    let owner = Npm::ownerOfCall::abi_decode_returns(
        &node.call(V3_POSITIONS, &Npm::ownerOfCall { tokenId: id }.abi_encode()),
    )
    .expect("ownerOf");
    assert_eq!(owner, me, "the position is back with its owner");

    // Someone else's position is refused, naming it.
    let other = node.accounts()[1];
    let path =
        format!("/api/v1/shortcuts/bundle?chainId=1&fromAddress={other:#x}&routingStrategy=router");
    let (code, text) = http(&server.addr, "POST", &path, &server.key, &body).expect("answer");
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("body[0].args.tokenId"), "{text}");
}

/// `ensowallet-v2` with `executionMode=backend` on a chain the server
/// follows: the answered user operation, signed by the sender with the
/// node's `eth_sign` (the EIP-191 message of the EntryPoint's
/// `getUserOpHash`), is submitted by another account through `handleOps` on
/// the node, which runs the EntryPoint v0.7's published bytecode, with the
/// answered `gas` as its limit. The factory deploys the sender's account,
/// the account pulls the input it was approved for and keeps exactly the
/// quoted output.
#[test]
fn a_backend_route_runs_as_a_user_operation_through_the_nodes_entry_point() {
    use switchyard_engine::evm::abi::EntryPoint;
    const ENTRY_POINT: Address = address!("0000000071727de22e5e9d8baf0edac6f37da032");
    let dir = common::temp_dir("node-user-op");
    let node_port = free_port();
    let node = Node::start(node_port);
    load_worlds(&[(&node, 1)]);
    let (me, bundler) = (node.accounts()[0], node.accounts()[1]);
    // A DAI/USDC pair made on the node (the server finds it by its
    // factory's event), 40,000 of each.
    let dai = U256::from(10u64).pow(U256::from(18u64));
    let amount = U256::from(500u64) * dai;
    let (dai_side, usdc_side) = (U256::from(40_000u64) * dai, U256::from(40_000_000_000u64));
    take(&node, DAI, CURVE_3POOL, me, dai_side + amount);
    take(&node, USDC, CURVE_3POOL, me, usdc_side);
    let existing = node.call(V2_FACTORY, &V2Factory::getPairCall { a: DAI, b: USDC }.abi_encode());
    assert_eq!(Address::from_slice(&existing[12..32]), Address::ZERO, "no DAI/USDC pair yet");
    node.send(
        me,
        Some(V2_FACTORY),
        &V2Factory::createPairCall { tokenA: DAI, tokenB: USDC }.abi_encode(),
    );
    let pair = Address::from_slice(
        &node.call(V2_FACTORY, &V2Factory::getPairCall { a: DAI, b: USDC }.abi_encode())[12..32],
    );
    for (token, a) in [(DAI, dai_side), (USDC, usdc_side)] {
        node.send(me, Some(token), &Erc20::transferCall { to: pair, amount: a }.abi_encode());
    }
    node.send(me, Some(pair), &Pair::mintCall { to: me }.abi_encode());

    let server = serve(&dir, node_port);
    let path = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={me:#x}&tokenIn={DAI:#x}&amountIn={amount}&tokenOut={USDC:#x}&routingStrategy=ensowallet-v2&executionMode=backend"
    );
    let mut answer = (0, String::new());
    let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for("the backend route", 30, || {
            answer = http(&server.addr, "GET", &path, &server.key, "").unwrap_or_default();
            answer.0 == 200
        })
    }));
    assert!(waited.is_ok(), "{answer:?}");
    let r: Value = serde_json::from_str(&answer.1).expect("json");
    let amount_out =
        U256::from_str_radix(r["amountOut"].as_str().expect("amountOut"), 10).expect("amount");
    let account: Address = serde_json::from_value(r["userOp"]["sender"].clone()).expect("sender");
    assert_eq!(r["tx"]["to"], json!(format!("{ENTRY_POINT:#x}")), "{r}");
    assert!(node.code(account).is_empty(), "the account is not deployed yet");
    let data: Bytes = serde_json::from_value(r["tx"]["data"].clone()).expect("tx.data");
    let mut handle = EntryPoint::handleOpsCall::abi_decode(&data).expect("handleOps");
    assert_eq!(
        handle.ops[0].callData.to_string(),
        r["userOp"]["callData"].as_str().expect("callData"),
        "{r}"
    );

    // The sender approves its account, signs the operation's hash; another
    // account submits it.
    node.send(me, Some(DAI), &Erc20::approveCall { spender: account, amount }.abi_encode());
    let hash = node.call(
        ENTRY_POINT,
        &EntryPoint::getUserOpHashCall { userOp: handle.ops[0].clone() }.abi_encode(),
    );
    assert_eq!(r["userOpHash"], json!(hash.to_string()), "the answered hash is the node's");
    let signature = node.rpc("eth_sign", json!([me, hash]));
    let signature: Bytes = serde_json::from_value(signature).expect("signature");
    handle.ops[0].signature = signature;
    handle.beneficiary = bundler;
    let usdc = |who: Address| word(&node.call(USDC, &Token::balanceOfCall { who }.abi_encode()));
    let before = usdc(account);
    // With the answered gas as the transaction's limit.
    let gas: u64 = r["gas"].as_str().and_then(|g| g.parse().ok()).expect("gas");
    node.transact_with_gas(bundler, Some(ENTRY_POINT), &handle.abi_encode(), gas);
    assert!(!node.code(account).is_empty(), "the factory deployed the account");
    assert_eq!(usdc(account) - before, amount_out, "the account keeps the quote to the wei");
    let left = word(&node.call(DAI, &Token::balanceOfCall { who: me }.abi_encode()));
    assert_eq!(left, U256::ZERO, "the account pulled the input");

    // Its second operation: the account is on the chain now (read from the
    // node: no initCode, the EntryPoint's nonce 1), and spends its own USDC
    // (spender = the account) back into DAI, which it keeps.
    let spend = usdc(account);
    // Quoted on the pools as the first operation left them. The feed
    // publishes a block's head before the pools its logs touched are read
    // again, so a quote of that block may still see them as before: one
    // block more is mined, and the quote waited for is of that block or
    // later (the feed follows blocks in order).
    node.rpc("evm_mine", json!([]));
    let settled = node.block_number();
    // Each source publishes its own pools (the factories', the listed
    // ones): every one of chain 1's has reached that block.
    wait_for("every source of chain 1 at the settled block", 30, || {
        let metrics = http(&server.addr, "GET", "/metrics", "", "").unwrap_or_default().1;
        let heads: Vec<u64> = metrics
            .lines()
            .filter(|l| l.starts_with("switchyard_feed_head_block{chain=\"1\""))
            .filter_map(|l| l.rsplit(' ').next()?.parse().ok())
            .collect();
        !heads.is_empty() && heads.iter().all(|h| *h >= settled)
    });
    let path = format!(
        "/api/v1/shortcuts/route?chainId=1&fromAddress={me:#x}&tokenIn={USDC:#x}&amountIn={spend}&tokenOut={DAI:#x}&routingStrategy=ensowallet-v2&executionMode=backend&spender={account:#x}"
    );
    let mut answer = (0, String::new());
    let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        wait_for("the second operation, on the deployed account", 30, || {
            answer = http(&server.addr, "GET", &path, &server.key, "").unwrap_or_default();
            answer.0 == 200
                && serde_json::from_str::<Value>(&answer.1).is_ok_and(|r| {
                    r["userOp"]["nonce"] == json!("0x1")
                        && r["createdAt"].as_u64().is_some_and(|b| b >= settled)
                })
        })
    }));
    assert!(waited.is_ok(), "{answer:?}");
    let r: Value = serde_json::from_str(&answer.1).expect("json");
    assert!(r["userOp"].get("factory").is_none(), "no initCode for a deployed account: {r}");
    let amount_out =
        U256::from_str_radix(r["amountOut"].as_str().expect("amountOut"), 10).expect("amount");
    let data: Bytes = serde_json::from_value(r["tx"]["data"].clone()).expect("tx.data");
    let mut handle = EntryPoint::handleOpsCall::abi_decode(&data).expect("handleOps");
    let hash: Bytes = serde_json::from_value(r["userOpHash"].clone()).expect("userOpHash");
    let signature = node.rpc("eth_sign", json!([me, hash]));
    handle.ops[0].signature = serde_json::from_value(signature).expect("signature");
    handle.beneficiary = bundler;
    let dai = |who: Address| word(&node.call(DAI, &Token::balanceOfCall { who }.abi_encode()));
    let before = dai(account);
    let gas: u64 = r["gas"].as_str().and_then(|g| g.parse().ok()).expect("gas");
    node.transact_with_gas(bundler, Some(ENTRY_POINT), &handle.abi_encode(), gas);
    assert_eq!(dai(account) - before, amount_out, "the account keeps the quote to the wei");
    assert_eq!(usdc(account), U256::ZERO, "it spent its own USDC");
}

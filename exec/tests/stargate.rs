//! Stargate V2 in the world: a taxi sent through the published pool on one
//! chain is verified, received and paid out by the published contracts on
//! another, and a composed one reaches Enso's composer, which runs the
//! shortcut or, when it fails, pays the receiver.

use alloy_primitives::{Address, Bytes, U256, address};
use alloy_sol_types::{SolCall, SolValue};
use switchyard_catalog::{Catalog, ChainId, loaders};
use switchyard_exec::{
    bridge::deliver_layerzero,
    evm::{
        ForkEvm, NpmArtifacts,
        abi::{ComposeReceiver, StargatePool as Pool, TestERC20},
        layerzero,
        world::{ChainWorld, World},
    },
};
use switchyard_kernel::{MarketSnapshot, derive_prices, usd_anchors};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const BASE_USDC: Address = address!("833589fcd6edb6e08f4c7c32d4f71b54bda02913");
const POOL: Address = address!("c026395860db2d07ee33e05fe50ed7bd583189c7");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
const FRIEND: Address = address!("00000000000000000000000000000000000f1e2d");
const BASE: ChainId = ChainId(8453);

struct Fixture {
    catalog: Catalog,
    snapshot: MarketSnapshot,
    world: World,
}

fn fixture() -> Fixture {
    let catalog = loaders::load_catalog(&[] as &[&str]).expect("catalog");
    let market = loaders::load_market(None, &catalog).expect("market");
    let snapshot = MarketSnapshot::build(&market, &catalog).expect("snapshot");
    let prices = derive_prices(&snapshot, &usd_anchors(&catalog));
    let npm = NpmArtifacts::load(&NpmArtifacts::default_dir())
        .expect("the npm bytecode (scripts/setup.sh installs it)");
    let world = World::build(&catalog, &market, &snapshot, &prices, &npm).expect("world");
    Fixture { catalog, snapshot, world }
}

/// Sends `amount` of USDC from Ethereum to Base through the pool, as a
/// wallet would; the fork and the source logs.
fn send(
    f: &Fixture,
    amount: U256,
    to: Address,
    compose: Bytes,
) -> (ForkEvm, Vec<alloy_primitives::Log>, Pool::OFTReceipt) {
    let cw = f.world.chain(ChainId(1)).expect("chain 1");
    let mut evm = cw.fork();
    cw.fund(&mut evm, USDC, USER, amount).expect("funded");
    let approve = TestERC20::approveCall { spender: POOL, amount };
    evm.call(USER, USDC, approve.abi_encode().into(), U256::ZERO).expect("approved");
    let param = Pool::SendParam {
        dstEid: 30184,
        to: to.into_word(),
        amountLD: amount,
        minAmountLD: U256::ZERO,
        extraOptions: if compose.is_empty() {
            Bytes::new()
        } else {
            layerzero::lz_compose_options(0, 2_000_000, 0)
        },
        composeMsg: compose,
        oftCmd: Bytes::new(),
    };
    let fee = evm
        .view(POOL, &Pool::quoteSendCall { sendParam: param.clone(), payInLzToken: false })
        .expect("quoted");
    let lz = layerzero::setup(&f.catalog).expect("LayerZero").1;
    assert_eq!(fee.nativeFee, U256::from(lz.message_fee(ChainId(1)).expect("a fee")));
    evm.set_balance(USER, fee.nativeFee);
    let call = Pool::sendCall { sendParam: param, fee: fee.clone(), refundAddress: USER };
    let out = evm.call(USER, POOL, call.abi_encode().into(), fee.nativeFee).expect("sent");
    let receipt = Pool::sendCall::abi_decode_returns(&out.output).expect("a receipt").oftReceipt;
    (evm, out.logs, receipt)
}

fn base_balance(f: &Fixture, who: Address) -> U256 {
    let cw: &ChainWorld = f.world.chain(BASE).expect("Base");
    let mut evm = cw.fork();
    ChainWorld::balance_of(&mut evm, BASE_USDC, who).expect("balance")
}

/// The world places every contract of the six chains' Stargate: nothing
/// of it is left unbuilt.
#[test]
fn the_world_places_stargate_and_layerzero() {
    let f = fixture();
    let lz = layerzero::setup(&f.catalog).expect("LayerZero").1;
    for chain in [1u64, 10, 8453, 42161] {
        let Some(cw) = f.world.chain(ChainId(chain)) else { continue };
        let mut ours = vec![lz.endpoint, layerzero::MESSAGE_LIB];
        ours.extend(lz.token_messaging(ChainId(chain)));
        ours.extend(lz.composer(ChainId(chain)));
        ours.extend(layerzero::pools_on(&f.catalog, ChainId(chain)).map(|p| p.pool));
        for (at, why) in &cw.unbuilt {
            assert!(!ours.contains(at), "chain {chain}: {at} unbuilt: {why}");
        }
        let mut evm = cw.fork();
        for p in layerzero::pools_on(&f.catalog, ChainId(chain)) {
            let composer = lz.composer(ChainId(chain)).expect("a composer");
            let valid = evm
                .view(composer, &ComposeReceiver::validOFTCall { oft: p.pool })
                .expect("the composer answers");
            assert!(valid, "chain {chain}: pool {} is the composer's OFT", p.pool);
        }
    }
}

/// 1,000 USDC to Base: the pool takes FeeLibV1's fee (6 bps, plus one
/// unit), the destination pool pays the rest, and that is the kernel's
/// bridge route to the wei.
#[test]
fn a_taxi_is_paid_out_on_the_destination_as_the_kernel_says() {
    let f = fixture();
    let amount = U256::from(1_000_000_000u64);
    let (_, logs, receipt) = send(&f, amount, FRIEND, Bytes::new());
    assert_eq!(receipt.amountSentLD, amount);
    let delivered =
        deliver_layerzero(&f.world, &f.catalog, ChainId(1), &logs, &[]).expect("delivered");
    let [d] = delivered.as_slice() else { panic!("one delivery: {delivered:?}") };
    assert_eq!((d.to_chain, d.token, d.receiver), (BASE, BASE_USDC, FRIEND));
    assert_eq!((d.token_in, d.amount_in), (USDC, amount));
    assert_eq!(d.amount, U256::from(999_399_999u64));
    assert_eq!(d.amount, receipt.amountReceivedLD);
    let route = f
        .snapshot
        .bridges()
        .iter()
        .find(|r| {
            &*r.name == "stargate"
                && r.from_chain == ChainId(1)
                && r.to_chain == BASE
                && r.token_in == USDC
        })
        .expect("the kernel's route");
    assert_eq!(route.contract, POOL);
    assert_eq!(route.amount_out(amount), Ok(d.amount));
    assert_eq!(base_balance(&f, FRIEND), U256::ZERO, "deliveries run in forks");
}

/// A composed taxi whose shortcut cannot run: the composer emits
/// `ShortcutExecutionFailed` (and pays the composed receiver what arrived),
/// which the delivery reports as the shortcut's failure, with its reason.
#[test]
fn a_composed_taxi_whose_shortcut_fails_is_reported() {
    let f = fixture();
    let lz = layerzero::setup(&f.catalog).expect("LayerZero").1;
    let composer = lz.composer(BASE).expect("Base's composer");
    let shortcut = Bytes::from_static(b"not a shortcut");
    let compose = (FRIEND, U256::ZERO, U256::from(100_000u64), shortcut).abi_encode_params();
    let amount = U256::from(250_000_000u64);
    let (_, logs, _) = send(&f, amount, composer, compose.into());
    let err =
        deliver_layerzero(&f.world, &f.catalog, ChainId(1), &logs, &[vec![(FRIEND, BASE_USDC)]])
            .expect_err("the shortcut fails");
    assert!(err.to_string().contains("the composed shortcut failed on chain 8453"), "{err}");
}

/// 1 ETH through the native pools to Base: the value is the amount and
/// LayerZero's fee; whole shared units cross, less FeeLibV1's fee.
#[test]
fn a_native_taxi_pays_out_the_coin_on_the_destination() {
    const ETH_POOL: Address = address!("77b2043768d28e9c9ab44e1abfc95944bce57931");
    let f = fixture();
    let cw = f.world.chain(ChainId(1)).expect("chain 1");
    let mut evm = cw.fork();
    let amount = U256::from(10u64.pow(18));
    let param = Pool::SendParam {
        dstEid: 30184,
        to: FRIEND.into_word(),
        amountLD: amount,
        minAmountLD: U256::ZERO,
        extraOptions: Bytes::new(),
        composeMsg: Bytes::new(),
        oftCmd: Bytes::new(),
    };
    let fee = evm
        .view(ETH_POOL, &Pool::quoteSendCall { sendParam: param.clone(), payInLzToken: false })
        .expect("quoted");
    evm.set_balance(USER, amount + fee.nativeFee);
    let call = Pool::sendCall { sendParam: param, fee: fee.clone(), refundAddress: USER };
    let out = evm
        .call(USER, ETH_POOL, call.abi_encode().into(), amount + fee.nativeFee)
        .unwrap_or_else(|e| panic!("sent: {e:?}"));
    let delivered =
        deliver_layerzero(&f.world, &f.catalog, ChainId(1), &out.logs, &[]).expect("delivered");
    let [d] = delivered.as_slice() else { panic!("one delivery: {delivered:?}") };
    assert_eq!((d.token, d.receiver), (switchyard_catalog::NATIVE_TOKEN, FRIEND));
    assert_eq!(d.amount, U256::from(999_399_000_000_000_000u128));
}

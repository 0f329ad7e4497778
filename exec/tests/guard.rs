//! The program guard refuses what the deployed contracts cannot run: a
//! call to the executor itself (round 1's `tokenBalance` helpers), to an
//! address nothing listed is deployed at, or to a function the contract
//! there lacks; it lets through calls to listed contracts' real functions
//! and plain native transfers. Every program the engine answers with has
//! passed it (the route, bundle, position and IPOR paths call it before
//! simulating), so every suite's programs are checked too.

use alloy_primitives::{Address, U256, address, keccak256};
use alloy_sol_types::SolCall;
use switchyard_catalog::{ChainId, loaders};
use switchyard_exec::{
    encode::{
        guard::{GuardError, check},
        protocols::IERC20,
        weiroll::{CallKind, In, Out, Program, ProgramBuilder},
    },
    evm::{NpmArtifacts, world::World},
};
use switchyard_kernel::{MarketSnapshot, derive_prices, usd_anchors};

const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");
/// MathHelpers on chain 1 (catalog/data/deployments.json).
const MATH: Address = address!("c02bcd14bad74ad54453cd34a1029cbacc6923fb");

fn selector(signature: &str) -> [u8; 4] {
    let h = keccak256(signature.as_bytes());
    [h[0], h[1], h[2], h[3]]
}

struct Fixture {
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
    Fixture { world }
}

impl Fixture {
    fn guard(&self, program: &Program) -> Result<(), GuardError> {
        let w = self.world.chain(ChainId(1)).expect("chain 1");
        let executor = w.shortcuts.router.expect("router").1;
        check(w, executor, program)
    }

    fn executor(&self) -> Address {
        self.world.chain(ChainId(1)).and_then(|w| w.shortcuts.router).expect("router").1
    }
}

fn program(calls: &[(CallKind, Address, [u8; 4])]) -> Program {
    let mut b = ProgramBuilder::new();
    let who = b.address(USER).expect("slot");
    for (kind, target, sel) in calls {
        b.call(*kind, *target, *sel, std::slice::from_ref(&who), Out::Ignore).expect("command");
    }
    b.build()
}

#[test]
fn the_guard_passes_deployed_functions_and_refuses_the_rest() {
    let f = fixture();
    let balance = IERC20::balanceOfCall::SELECTOR;
    let sub = selector("sub(uint256,uint256)");

    // A token's balance and a helper's checked subtraction: deployed.
    let ok = program(&[(CallKind::StaticCall, USDC, balance), (CallKind::StaticCall, MATH, sub)]);
    assert_eq!(f.guard(&ok), Ok(()));

    // A native transfer (raw call, empty calldata) to the user: no contract call.
    let mut b = ProgramBuilder::new();
    let empty = b.raw(&[]).expect("slot");
    let In::Fixed(wei) = b.uint(U256::from(1u8)).expect("slot") else { panic!("a word") };
    b.raw_call(CallKind::Value(wei), USER, empty, Out::Ignore).expect("command");
    assert_eq!(f.guard(&b.build()), Ok(()));

    // Round 1's first command: a helper on the executor itself.
    let executor = f.executor();
    let own =
        program(&[(CallKind::StaticCall, executor, selector("tokenBalance(address,address)"))]);
    assert!(
        matches!(f.guard(&own), Err(GuardError::OwnAccount { index: 0, target }) if target == executor)
    );

    // An address no catalog entry names.
    let nowhere = address!("00000000000000000000000000000000deadbeef");
    let unlisted = program(&[(CallKind::Call, nowhere, balance)]);
    assert!(
        matches!(f.guard(&unlisted), Err(GuardError::NotListed { target, .. }) if target == nowhere)
    );

    // A function the deployed MathHelpers does not have (round 1's
    // `v2AmountOut`), after a good command: the index says which.
    let v2_amount_out = selector("v2AmountOut(uint256,uint256,uint256,uint256)");
    let missing = program(&[
        (CallKind::StaticCall, USDC, balance),
        (CallKind::StaticCall, MATH, v2_amount_out),
    ]);
    match f.guard(&missing) {
        Err(GuardError::UnknownFunction { index, target, contract, .. }) => {
            assert_eq!((index, target, contract), (1, MATH, "ReferenceMathHelpers"));
        }
        other => panic!("{other:?}"),
    }
}

/// The transaction around a program goes to the strategy's entry point,
/// and no approval lets an executor spend.
#[test]
fn the_entry_is_the_strategys_and_no_approval_names_an_executor() {
    use switchyard_exec::encode::{Approval, Runner, Tx, guard::check_entry};
    let f = fixture();
    let w = f.world.chain(ChainId(1)).expect("chain 1");
    let (router, executor) = w.shortcuts.router.expect("router");
    let runner = Runner::Router { router, executor };
    let tx = |to| Tx { from: USER, to, data: Default::default(), value: U256::ZERO };
    let approval = |spender| Approval {
        token: USDC,
        spender,
        amount: U256::from(1u8),
        owner: USER,
        nft: false,
    };
    assert_eq!(check_entry(w, runner, &tx(router), &[approval(router)]), Ok(()));
    assert_eq!(
        check_entry(w, runner, &tx(executor), &[]),
        Err(GuardError::WrongEntry { to: executor, entry: router })
    );
    assert_eq!(
        check_entry(w, runner, &tx(router), &[approval(executor)]),
        Err(GuardError::ApprovesExecutor { token: USDC, spender: executor })
    );
    // A delegated account is its own entry point.
    let delegate = Runner::Delegate { account: USER };
    assert_eq!(check_entry(w, delegate, &tx(USER), &[]), Ok(()));
    assert!(check_entry(w, delegate, &tx(router), &[]).is_err());
}

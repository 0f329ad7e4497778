//! Bundle JSON → the server's parser → the engine's compiler, on the
//! embedded market and its EVM world: nothing panics, a refusal names where
//! in the body it is, and every bundle that compiles carries a program that
//! decodes back to calls the VM can make: the program inside the router
//! transaction is the one compiled, every command decodes against its state,
//! every call's calldata begins with its command's selector, and every
//! target is a contract of the world (or the executor itself).
//!
//! Seeds: `fuzz/seeds/bundle_compile/*.json`:
//! `cd fuzz && cargo +nightly fuzz run bundle_compile corpus/bundle_compile seeds/bundle_compile`.

#![no_main]

use std::sync::{Arc, OnceLock};

use alloy_primitives::{Address, address};
use alloy_sol_types::SolCall;
use libfuzzer_sys::fuzz_target;
use switchyard_catalog::{ChainId, RoutingStrategy, loaders};
use switchyard_engine::{
    MarketState, StateInputs, build_state,
    bundle::{BundleRequest, Templates, compile_and_prove},
    encode::protocols::IShortcuts,
    evm::{NpmArtifacts, abi::ShortcutsRouter},
};
use switchyard_kernel::MarketSnapshot;
use switchyard_server::{api, query::Query};

const USER: Address = address!("d8da6bf26964af9d7eed9e03e53415d37aa96045");

fn state() -> &'static MarketState {
    static STATE: OnceLock<MarketState> = OnceLock::new();
    STATE.get_or_init(|| {
        let catalog = Arc::new(loaders::load_catalog(&[] as &[&str]).expect("catalog"));
        let market = Arc::new(loaders::load_market(None, &catalog).expect("market"));
        let snapshot = Arc::new(MarketSnapshot::build(&market, &catalog).expect("snapshot"));
        let npm = NpmArtifacts::load(&NpmArtifacts::default_dir())
            .map(Arc::new)
            .map_err(|e| e.to_string());
        assert!(npm.is_ok(), "run scripts/setup.sh first: {npm:?}");
        build_state(&StateInputs { catalog, market, npm }, snapshot)
    })
}

/// The compiler's templates of that state's catalog, kept across runs as
/// the engine's compiler keeps them.
fn templates() -> &'static Templates {
    static TEMPLATES: OnceLock<Templates> = OnceLock::new();
    TEMPLATES.get_or_init(|| Templates::new(Arc::clone(&state().catalog)))
}

fuzz_target!(|data: &[u8]| {
    let state = state();
    let templates = templates();
    let mut buf = data.to_vec();
    let Ok(body) = simd_json::to_borrowed_value(&mut buf) else { return };
    let q = Query::parse(&format!("chainId=1&fromAddress={USER:#x}&routingStrategy=router"))
        .expect("query");
    if api::requests::parse_bundle(&q, &body, &state.catalog).is_err() {
        return;
    }
    // An instance with an operator fee receiver: `ensofee` compiles too.
    let instance = api::bundle::Instance { operator_fee_receiver: Some(USER), backend: true };
    let actions = match api::bundle::parse_actions(&body, "body", instance) {
        Ok(a) => a,
        Err(e) => {
            assert!(e.field.as_deref().is_some_and(|f| f.starts_with("body")), "{e:?}");
            return;
        }
    };
    let req = BundleRequest::new(ChainId(1), USER, RoutingStrategy::Router, "fuzz", actions);
    let tx = match compile_and_prove(state, templates, &req) {
        Ok(tx) => tx,
        Err(switchyard_engine::ExecError::Bundle(e)) => {
            assert!(e.at.starts_with("body"), "{e:?}");
            return;
        }
        Err(e) => {
            // Only a refusal of the request itself is expected; the engine's
            // own failures (a simulation mismatch) are bugs.
            use switchyard_catalog::ApiCode;
            assert!(
                !matches!(e.code(), ApiCode::Internal),
                "an internal error for a bundle the server accepted: {e:?}"
            );
            return;
        }
    };
    // The program inside the router's call is the compiled one.
    let data = match ShortcutsRouter::routeSingleCall::abi_decode(&tx.tx.data) {
        Ok(c) => c.data,
        Err(_) => {
            ShortcutsRouter::routeMultiCall::abi_decode(&tx.tx.data).expect("a router call").data
        }
    };
    let call = IShortcuts::executeShortcutCall::abi_decode(&data).expect("executeShortcut");
    assert_eq!(call.commands, tx.program.commands);
    assert_eq!(call.state, tx.program.state);
    let world = state.world.as_ref().expect("world").chain(ChainId(1)).expect("chain 1");
    let mut evm = world.fork();
    let executor = world.shortcuts.router.expect("router").1;
    for (k, d) in
        tx.program.decode(&tx.program.state).expect("the program decodes").iter().enumerate()
    {
        let raw = tx.program.commands[d.index][4] & 0x20 != 0;
        if !raw {
            assert_eq!(&d.calldata[..4], &tx.program.commands[d.index][..4], "call {k}");
        }
        assert!(
            d.target == executor || !evm.code(d.target).is_empty(),
            "call {k} targets {} (no contract there)",
            d.target
        );
    }
});

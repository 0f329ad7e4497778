//! Scaffolding the differential and contract tests share: seeded proptest
//! runners, coverage counters, and the test token's mint, burn and balance.
//! Each test binary uses part of it.
#![allow(dead_code, unreachable_pub)]

use std::{cell::RefCell, collections::BTreeMap};

use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolConstructor, SolError};
use proptest::{
    prelude::*,
    test_runner::{Config, RngSeed, TestCaseError, TestRunner},
};
use switchyard_catalog::ChainId;
use switchyard_exec::evm::{Artifact, Evm, EvmError, abi::TestERC20};
use switchyard_kernel::{Pool, PoolState, PoolTokens};

/// Deploys the test contracts and owns the test tokens' minting.
pub const DEPLOYER: Address = Address::repeat_byte(0xde);

pub type CaseResult = Result<(), TestCaseError>;

/// `cases` cases from the fixed `seed`, so coverage counters are the same
/// on every run; with `PROPTEST_CASES` set, that many cases from a random
/// seed (`PROPTEST_RNG_SEED` pins one), a longer soak.
pub fn runner(seed: u64, cases: u32) -> TestRunner {
    let defaults = Config::default();
    let soak = std::env::var_os("PROPTEST_CASES").is_some();
    let cases = if soak { defaults.cases } else { cases };
    let rng_seed = if soak { defaults.rng_seed } else { RngSeed::Fixed(seed) };
    // No regression file: a failure prints its minimal case, which belongs
    // in a named test.
    TestRunner::new(Config {
        cases,
        rng_seed,
        max_shrink_iters: 256,
        failure_persistence: None,
        ..defaults
    })
}

/// Runs `test` over `strategy` from `seed`, failing with proptest's
/// minimal case.
pub fn check<S: Strategy>(seed: u64, cases: u32, strategy: S, test: impl Fn(S::Value) -> CaseResult)
where
    S::Value: std::fmt::Debug,
{
    if let Err(e) = runner(seed, cases).run(&strategy, test) {
        panic!("{e}");
    }
}

/// A number of `lo..=hi` significant bits with random bits below the top
/// one: log-uniform over `[2^(lo-1), 2^hi)`.
pub fn bits(lo: u32, hi: u32) -> impl Strategy<Value = U256> {
    (lo..=hi, any::<[u64; 4]>()).prop_map(|(n, limbs)| {
        let low = U256::from_limbs(limbs) & ((U256::ONE << (n - 1)) - U256::ONE);
        low | (U256::ONE << (n - 1))
    })
}

/// `x * share / 2^32`, at least 1.
pub fn part(x: U256, share: u32) -> U256 {
    ((x * U256::from(share)) >> 32usize).max(U256::ONE)
}

/// A distinct address that has never held anything, per `k`.
pub fn fresh(k: u32) -> Address {
    let mut a = [0u8; 20];
    a[0] = 0xf0;
    a[16..].copy_from_slice(&k.to_be_bytes());
    Address::from(a)
}

/// A V2 pair's kernel state (reserves within the pair's `uint112`).
pub fn v2_state(reserves: [U256; 2], fee_bps: u32) -> PoolState {
    PoolState::uniswap_v2(reserves, fee_bps).expect("reserves within uint112")
}

/// A chain-1 kernel pool over `tokens`.
pub fn pool(address: Address, tokens: Vec<Address>, decimals: Vec<u8>, state: PoolState) -> Pool {
    Pool {
        chain: ChainId(1),
        address,
        protocol: "differential".into(),
        tokens: PoolTokens::new(tokens.into_iter().zip(decimals)),
        state,
    }
}

pub fn deploy_token(evm: &mut Evm, decimals: u8) -> Result<Address, EvmError> {
    let args = TestERC20::constructorCall { name: "Token".into(), symbol: "TKN".into(), decimals }
        .abi_encode();
    evm.deploy_artifact(DEPLOYER, Artifact::TestErc20, &args)
}

pub fn mint(evm: &mut Evm, token: Address, to: Address, amount: U256) -> Result<(), EvmError> {
    evm.call_sol(DEPLOYER, token, &TestERC20::mintCall { to, amount }).map(drop)
}

pub fn burn(evm: &mut Evm, token: Address, from: Address, amount: U256) -> Result<(), EvmError> {
    evm.call_sol(DEPLOYER, token, &TestERC20::burnCall { from, amount }).map(drop)
}

pub fn approve(
    evm: &mut Evm,
    token: Address,
    owner: Address,
    spender: Address,
) -> Result<(), EvmError> {
    evm.call_sol(owner, token, &TestERC20::approveCall { spender, amount: U256::MAX }).map(drop)
}

pub fn balance(evm: &mut Evm, token: Address, who: Address) -> Result<U256, EvmError> {
    evm.view(token, &TestERC20::balanceOfCall { who })
}

/// The call reverted with `Error(reason)` (or a message containing it).
pub fn reverted_with_reason<T>(r: &Result<T, EvmError>, reason: &str) -> bool {
    matches!(r, Err(e @ EvmError::Reverted { .. }) if e.to_string().contains(reason))
}

/// The call reverted with exactly `Error(code)`: Aave's numbered errors.
pub fn reverted_with_code<T>(r: &Result<T, EvmError>, code: &str) -> bool {
    let expected = alloy_sol_types::Revert::from(code).abi_encode();
    matches!(r, Err(e) if e.revert_data().is_some_and(|d| d[..] == expected[..]))
}

/// The call reverted with no data (an assembly `revert(0, 0)`).
pub fn reverted_empty<T>(r: &Result<T, EvmError>) -> bool {
    matches!(r, Err(e) if e.revert_data().is_some_and(|d| d.is_empty()))
}

/// Coverage counters: how often each path a property must reach was hit.
#[derive(Default)]
pub struct Stats(RefCell<BTreeMap<&'static str, u32>>);

impl Stats {
    pub fn hit(&self, what: &'static str) {
        *self.0.borrow_mut().entry(what).or_default() += 1;
    }

    pub fn get(&self, what: &str) -> u32 {
        self.0.borrow().get(what).copied().unwrap_or_default()
    }

    /// Prints the counters (`cargo test -- --nocapture` shows them).
    pub fn report(&self, test: &str) {
        let counts: Vec<String> =
            self.0.borrow().iter().map(|(what, n)| format!("{what} {n}")).collect();
        eprintln!("{test}: {}", counts.join(", "));
    }

    pub fn expect_at_least(&self, what: &str, n: u32) {
        let got = self.get(what);
        assert!(got >= n, "only {got} {what} (expected at least {n})");
    }
}

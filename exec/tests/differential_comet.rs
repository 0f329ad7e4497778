//! Differential test of the kernel's Compound III math
//! (`vault::lending_supply`, `comet_principal`, `comet_read`) against the
//! reference market (`contracts/src/ReferenceComet.sol`) run in the
//! engine's EVM. No tolerance.
//!
//! Each case starts a market at a random supply index with random supplied
//! and borrowed principal, lets a random time pass (the market's
//! `lastAccrualTime` set back), and reads the state as a node feed does:
//! `accrueAccount`, then `totalsBasic().baseSupplyIndex`. Then:
//!
//! - a fresh account supplies `x`: its balance is the kernel's
//!   `lending_supply(Comet, index, x)`, and where the kernel refuses (no
//!   principal credited) it reads zero;
//! - it transfers its whole balance to another fresh account, which reads
//!   `comet_read(index, comet_principal(index, balance))` (what the quote
//!   answers for a receiver that an executor hands the balance to);
//! - that account withdraws what it reads and is paid exactly that.

mod common;

use alloy_primitives::{
    Address, Bytes, U256,
    aliases::{U40, U104},
};
use common::{CaseResult, DEPLOYER, Stats, balance, bits, deploy_token, mint};
use proptest::prelude::*;
use switchyard_catalog::market::LendingModel;
use switchyard_exec::evm::{
    Evm, EvmError,
    abi::{ReferenceComet as Comet, TestERC20},
    world::comet_constructor,
};
use switchyard_kernel::amm::vault::{comet_principal, comet_read, lending_supply};

const TRADER: Address = Address::repeat_byte(0x7a);
const RECIPIENT: Address = Address::repeat_byte(0x5e);
const COMET: &str = include_str!("../../contracts/artifacts/ReferenceComet.json");

#[derive(Debug, Clone)]
struct Case {
    /// Starting supply index, 1e15 and up.
    index: u64,
    /// Principal supplied and borrowed before.
    supplied: U256,
    borrowed_share: u32,
    /// Seconds since the last accrual.
    elapsed: u64,
    /// The fresh account's supply.
    x: U256,
}

fn case() -> impl Strategy<Value = Case> {
    (
        1_000_000_000_000_000u64..4_000_000_000_000_000,
        bits(20, 90),
        0u32..95,
        prop_oneof![Just(0u64), 1u64..100_000_000],
        prop_oneof![bits(1, 20), bits(1, 100)],
    )
        .prop_map(|(index, supplied, borrowed_share, elapsed, x)| Case {
            index,
            supplied,
            borrowed_share,
            elapsed,
            x,
        })
}

fn initcode(args: &[u8]) -> Bytes {
    let v: serde_json::Value = serde_json::from_str(COMET).expect("artifact parses");
    let mut code =
        v["bytecode"].as_str().expect("bytecode").parse::<Bytes>().expect("hex").to_vec();
    code.extend_from_slice(args);
    code.into()
}

fn world(c: &Case) -> Result<(Evm, Address, Address), EvmError> {
    let mut evm = Evm::new();
    let base = deploy_token(&mut evm, 6)?;
    let borrowed = c.supplied * U256::from(c.borrowed_share) / U256::from(100u8);
    let args = comet_constructor(
        base,
        ("Compound USDC".into(), "cUSDCv3".into()),
        c.index,
        (U104::from(c.supplied), U104::from(borrowed)),
    );
    let comet = evm.deploy(DEPLOYER, initcode(&args))?;
    // Cash enough for every withdrawal, and time gone by since the last
    // accrual (the totals' second word: `lastAccrualTime` at bit 208).
    mint(&mut evm, base, comet, U256::ONE << 200)?;
    let slot = U256::ONE;
    let word = evm.storage(comet, slot);
    let mask: U256 = (U256::ONE << 40usize) - U256::ONE;
    let at = (word >> 208usize) & mask;
    let earlier = at.saturating_sub(U256::from(c.elapsed));
    evm.set_storage(comet, slot, (word & !(mask << 208usize)) | (earlier << 208usize));
    mint(&mut evm, base, TRADER, c.x)?;
    evm.call_sol(TRADER, base, &TestERC20::approveCall { spender: comet, amount: U256::MAX })?;
    Ok((evm, base, comet))
}

fn differential(c: &Case, stats: &Stats) -> CaseResult {
    let (mut evm, base, comet) = world(c).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let fail = |e: EvmError| TestCaseError::fail(e.to_string());
    // As a node feed reads it.
    evm.call_sol(DEPLOYER, comet, &Comet::accrueAccountCall { account: Address::ZERO })
        .map_err(fail)?;
    let totals = evm.view(comet, &Comet::totalsBasicCall {}).map_err(fail)?;
    let index = U256::from(totals.baseSupplyIndex);
    if c.elapsed > 0 && c.borrowed_share > 0 && index > U256::from(c.index) {
        stats.hit("accrued");
    }
    prop_assert_eq!(totals.lastAccrualTime, U40::from(evm_now(&mut evm, comet)?));
    let kernel = lending_supply(LendingModel::Comet, index, c.x);
    let supplied = evm.call_sol(TRADER, comet, &Comet::supplyCall { asset: base, amount: c.x });
    let reads = evm.view(comet, &Comet::balanceOfCall { account: TRADER }).map_err(fail)?;
    match (kernel, supplied) {
        (Ok(out), Ok(_)) => {
            prop_assert_eq!(reads, out, "supply of {} at index {}", c.x, index);
            stats.hit("supplies");
        }
        (Err(_), Ok(_)) => {
            prop_assert_eq!(reads, U256::ZERO, "the kernel credits nothing");
            stats.hit("supplies of nothing");
            return Ok(());
        }
        (Err(_), Err(_)) => {
            stats.hit("supplies past int104");
            return Ok(());
        }
        (Ok(out), Err(e)) => {
            return Err(TestCaseError::fail(format!(
                "the market refused {} (kernel {out}): {e}",
                c.x
            )));
        }
    }
    // Handed over whole, as an executor's sweep does.
    evm.call_sol(TRADER, comet, &Comet::transferCall { dst: RECIPIENT, amount: reads })
        .map_err(fail)?;
    let arrived = evm.view(comet, &Comet::balanceOfCall { account: RECIPIENT }).map_err(fail)?;
    let expect = comet_principal(index, reads).and_then(|p| comet_read(index, p));
    prop_assert_eq!(Ok(arrived), expect, "transfer of {}", reads);
    if arrived < reads {
        stats.hit("transfers a wei short");
    }
    // Withdrawn whole: paid exactly what it read.
    let before = balance(&mut evm, base, RECIPIENT).map_err(fail)?;
    if !arrived.is_zero() {
        evm.call_sol(RECIPIENT, comet, &Comet::withdrawCall { asset: base, amount: arrived })
            .map_err(fail)?;
        let paid = balance(&mut evm, base, RECIPIENT).map_err(fail)? - before;
        prop_assert_eq!(paid, arrived);
        stats.hit("withdrawals");
    }
    Ok(())
}

/// The market's clock: its `lastAccrualTime` right after an accrual.
fn evm_now(evm: &mut Evm, comet: Address) -> Result<u64, TestCaseError> {
    let word = evm.storage(comet, U256::ONE);
    let mask: U256 = (U256::ONE << 40usize) - U256::ONE;
    Ok(((word >> 208usize) & mask).to::<u64>())
}

#[test]
fn comet_supplies_transfers_and_withdrawals_are_the_kernels() {
    let stats = Stats::default();
    common::check(0x5eed_c0e7, 192, case(), |c| differential(&c, &stats));
    stats.report("compound iii");
    for (what, n) in [
        ("supplies", 100),
        ("supplies of nothing", 3),
        ("accrued", 30),
        ("transfers a wei short", 30),
        ("withdrawals", 100),
    ] {
        stats.expect_at_least(what, n);
    }
}

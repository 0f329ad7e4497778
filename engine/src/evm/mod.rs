//! An in-process EVM (revm at the Cancun spec) over an in-memory state, with
//! a small typed API: deploy initcode, call, read, fund.
//!
//! It runs real contract bytecode without a node: the committed artifacts of
//! [`artifacts`] and their `sol!` interfaces in [`abi`]. Today it holds the
//! kernel's exact pool math to the contracts' (`tests/differential.rs`);
//! later it simulates the transactions the engine builds before they are
//! returned.
//!
//! ```text
//! Evm::new() ──deploy(from, initcode)──▶ Address
//!            ──call(from, to, calldata, value)──▶ CallOutcome {output, gas_used, logs}   (committed)
//!            ──static_call(from, to, calldata)──▶ CallOutcome                            (discarded)
//!            ──call_sol / view (a sol! call struct)──▶ its decoded return
//! ```
//!
//! Every transaction runs with gas price 0 and a 30M gas limit; nonces are
//! not checked (CREATE addresses still follow each sender's nonce), so any
//! address can send without funding. A revert is [`EvmError::Reverted`] with
//! the raw output and, when it is an `Error(string)` or `Panic(uint256)`,
//! its decoded reason; custom errors decode with [`EvmError::revert_as`].

pub mod abi;
pub mod artifacts;

use std::convert::Infallible;

use alloy_primitives::{Address, Bytes, Log, U256};
use alloy_sol_types::{GenericRevertReason, RevertReason, SolCall, SolInterface};
use revm::{
    Context, ExecuteCommitEvm, ExecuteEvm, MainBuilder, MainContext,
    context::{
        ContextTr, TxEnv,
        result::{EVMError, ExecutionResult, HaltReason, Output},
        tx::TxEnvBuildError,
    },
    database::{CacheDB, EmptyDB},
    handler::MainnetContext,
    primitives::{TxKind, hardfork::SpecId},
};

pub use self::artifacts::Artifact;

/// Gas limit of every transaction (and of the block).
pub const GAS_LIMIT: u64 = 30_000_000;

/// Chain id the EVM reports (`block.chainid`).
pub const CHAIN_ID: u64 = 1;

/// Block timestamp the EVM reports, 2023-11-14.
pub const TIMESTAMP: u64 = 1_700_000_000;

type Inner = revm::MainnetEvm<MainnetContext<CacheDB<EmptyDB>>>;

/// Why a deployment or call did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum EvmError {
    /// The transaction could not be built.
    #[error("malformed transaction")]
    Malformed(#[source] TxEnvBuildError),
    /// The EVM refused the transaction before running it, or failed
    /// internally.
    #[error("transaction rejected")]
    Rejected(#[source] EVMError<Infallible>),
    /// The call reverted (`REVERT`): nothing it did is kept.
    #[error("reverted: {}", reason.as_ref().map_or_else(|| output.to_string(), ToString::to_string))]
    Reverted {
        /// The revert data.
        output: Bytes,
        /// `Error(string)` or `Panic(uint256)`, or the data as UTF-8, when
        /// it is one of those.
        reason: Option<GenericRevertReason>,
    },
    /// Execution halted (out of gas, invalid opcode, stack overflow…).
    #[error("halted: {reason}")]
    Halted {
        /// What stopped it.
        reason: HaltReason,
        /// Gas used, normally all of it.
        gas_used: u64,
    },
    /// A deployment succeeded without creating an account.
    #[error("deployment created no contract")]
    NoContract,
    /// The return data does not decode as the call's declared returns.
    #[error("return data does not decode")]
    Decode(#[from] alloy_sol_types::Error),
    /// A committed artifact file does not parse.
    #[error("artifact {name} does not parse")]
    Artifact {
        /// The artifact's name.
        name: &'static str,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
}

impl EvmError {
    /// The revert data, for a revert.
    pub fn revert_data(&self) -> Option<&Bytes> {
        match self {
            Self::Reverted { output, .. } => Some(output),
            _ => None,
        }
    }

    /// The revert decoded as one of a contract's custom errors (the
    /// `…Errors` enum `sol!` generates for a contract).
    pub fn revert_as<E: SolInterface>(&self) -> Option<E> {
        self.revert_data().and_then(|d| E::abi_decode(d).ok())
    }
}

/// A successful call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutcome {
    /// Return data.
    pub output: Bytes,
    /// Gas used by the whole transaction, intrinsic gas and refunds included.
    pub gas_used: u64,
    /// Logs emitted, in order.
    pub logs: Vec<Log>,
}

/// An EVM with its own in-memory state. Cloning it copies the state, so a
/// deployed fixture can be set up once and cloned per test case.
#[derive(Debug)]
pub struct Evm {
    inner: Inner,
}

impl Default for Evm {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for Evm {
    fn clone(&self) -> Self {
        // Between transactions the journal is empty and every change is in
        // the database, so a new EVM over a copy of it is an exact copy.
        Self::with_db(self.inner.ctx.db_ref().clone())
    }
}

impl Evm {
    /// An empty chain at the Cancun spec: no accounts, block 1 at
    /// [`TIMESTAMP`], base fee 0.
    pub fn new() -> Self {
        Self::with_db(CacheDB::new(EmptyDB::default()))
    }

    fn with_db(db: CacheDB<EmptyDB>) -> Self {
        let inner = Context::mainnet()
            .with_db(db)
            .modify_cfg_chained(|cfg| {
                // Not `set_spec`: that keeps the previous spec's gas
                // parameters. Cancun matches the artifacts' evmVersion.
                cfg.set_spec_and_mainnet_gas_params(SpecId::CANCUN);
                cfg.chain_id = CHAIN_ID;
                cfg.disable_nonce_check = true;
            })
            .modify_block_chained(|block| {
                block.number = U256::from(1u8);
                block.timestamp = U256::from(TIMESTAMP);
                block.basefee = 0;
                block.gas_limit = GAS_LIMIT;
            })
            .build_mainnet();
        Self { inner }
    }

    /// Sets the native balance of `who`, keeping its code and nonce.
    pub fn set_balance(&mut self, who: Address, wei: U256) {
        let db = self.inner.ctx.db_mut();
        let mut info = match db.load_account(who) {
            Ok(account) => account.info.clone(),
            Err(never) => match never {},
        };
        info.balance = wei;
        // Written back with `insert_account_info`, not through the loaded
        // account: the database marks an address it never saw as not
        // existing, and a transaction would read it as empty whatever its
        // balance says.
        db.insert_account_info(who, info);
    }

    /// The native balance of `who`.
    pub fn balance(&mut self, who: Address) -> U256 {
        match self.inner.ctx.db_mut().load_account(who) {
            Ok(account) => account.info.balance,
            Err(never) => match never {},
        }
    }

    /// Deploys `initcode` (creation bytecode followed by the ABI-encoded
    /// constructor arguments) from `from`; the address follows `from`'s
    /// nonce, as `CREATE` does.
    pub fn deploy(&mut self, from: Address, initcode: Bytes) -> Result<Address, EvmError> {
        let tx = Self::tx(from, TxKind::Create, initcode, U256::ZERO)?;
        match self.inner.transact_commit(tx).map_err(EvmError::Rejected)? {
            ExecutionResult::Success { output: Output::Create(_, Some(address)), .. } => {
                Ok(address)
            }
            ExecutionResult::Success { .. } => Err(EvmError::NoContract),
            other => Err(Self::failure(other)),
        }
    }

    /// Deploys a committed artifact with ABI-encoded constructor arguments
    /// (`SolConstructor::abi_encode`; empty when it takes none).
    pub fn deploy_artifact(
        &mut self,
        from: Address,
        artifact: Artifact,
        constructor_args: &[u8],
    ) -> Result<Address, EvmError> {
        let code = artifact.initcode_with(constructor_args)?;
        self.deploy(from, code)
    }

    /// Calls `to` from `from` with `calldata` and `value`, and keeps the
    /// resulting state.
    pub fn call(
        &mut self,
        from: Address,
        to: Address,
        calldata: Bytes,
        value: U256,
    ) -> Result<CallOutcome, EvmError> {
        let tx = Self::tx(from, TxKind::Call(to), calldata, value)?;
        Self::outcome(self.inner.transact_commit(tx).map_err(EvmError::Rejected)?)
    }

    /// Calls `to` from `from` and discards whatever the call changed, as
    /// `eth_call` does.
    pub fn static_call(
        &mut self,
        from: Address,
        to: Address,
        calldata: Bytes,
    ) -> Result<CallOutcome, EvmError> {
        let tx = Self::tx(from, TxKind::Call(to), calldata, U256::ZERO)?;
        Self::outcome(self.inner.transact(tx).map_err(EvmError::Rejected)?.result)
    }

    /// [`Self::call`] with a `sol!` call, decoding its return.
    pub fn call_sol<C: SolCall>(
        &mut self,
        from: Address,
        to: Address,
        call: &C,
    ) -> Result<C::Return, EvmError> {
        let out = self.call(from, to, call.abi_encode().into(), U256::ZERO)?;
        Ok(C::abi_decode_returns(&out.output)?)
    }

    /// [`Self::static_call`] with a `sol!` call from the zero address,
    /// decoding its return: a view.
    pub fn view<C: SolCall>(&mut self, to: Address, call: &C) -> Result<C::Return, EvmError> {
        let out = self.static_call(Address::ZERO, to, call.abi_encode().into())?;
        Ok(C::abi_decode_returns(&out.output)?)
    }

    fn tx(from: Address, kind: TxKind, data: Bytes, value: U256) -> Result<TxEnv, EvmError> {
        TxEnv::builder()
            .caller(from)
            .kind(kind)
            .data(data)
            .value(value)
            .gas_limit(GAS_LIMIT)
            .gas_price(0)
            .chain_id(Some(CHAIN_ID))
            .build()
            .map_err(EvmError::Malformed)
    }

    fn outcome(result: ExecutionResult) -> Result<CallOutcome, EvmError> {
        match result {
            ExecutionResult::Success { gas, logs, output, .. } => {
                Ok(CallOutcome { output: output.into_data(), gas_used: gas.tx_gas_used(), logs })
            }
            other => Err(Self::failure(other)),
        }
    }

    fn failure(result: ExecutionResult) -> EvmError {
        match result {
            ExecutionResult::Revert { output, .. } => {
                let reason = RevertReason::decode(&output);
                EvmError::Reverted { output, reason }
            }
            ExecutionResult::Halt { reason, gas, .. } => {
                EvmError::Halted { reason, gas_used: gas.tx_gas_used() }
            }
            ExecutionResult::Success { .. } => EvmError::NoContract,
        }
    }
}

#[cfg(test)]
mod tests {
    use alloy_sol_types::{SolConstructor, SolValue};

    use super::{abi::TestERC20, *};

    const DEPLOYER: Address = Address::repeat_byte(0xd0);
    const ALICE: Address = Address::repeat_byte(0xa1);
    const BOB: Address = Address::repeat_byte(0xb0);

    fn token(evm: &mut Evm, decimals: u8) -> Result<Address, EvmError> {
        let args =
            TestERC20::constructorCall { name: "Token".into(), symbol: "TKN".into(), decimals }
                .abi_encode();
        evm.deploy_artifact(DEPLOYER, Artifact::TestErc20, &args)
    }

    #[test]
    fn deploy_mint_transfer_and_read() -> Result<(), EvmError> {
        let mut evm = Evm::new();
        let t = token(&mut evm, 6)?;
        assert_eq!(evm.view(t, &TestERC20::decimalsCall {})?, 6);
        evm.call_sol(ALICE, t, &TestERC20::mintCall { to: ALICE, amount: U256::from(100u8) })?;
        let out = evm.call(
            ALICE,
            t,
            TestERC20::transferCall { to: BOB, amount: U256::from(30u8) }.abi_encode().into(),
            U256::ZERO,
        )?;
        assert!(bool::abi_decode(&out.output)?);
        assert_eq!(out.logs.len(), 1, "one Transfer event");
        assert!(out.gas_used > 21_000);
        assert_eq!(evm.view(t, &TestERC20::balanceOfCall { who: ALICE })?, U256::from(70u8));
        assert_eq!(evm.view(t, &TestERC20::balanceOfCall { who: BOB })?, U256::from(30u8));
        Ok(())
    }

    #[test]
    fn create_addresses_follow_the_sender_nonce() -> Result<(), EvmError> {
        let mut evm = Evm::new();
        let a = token(&mut evm, 18)?;
        let b = token(&mut evm, 18)?;
        assert_eq!(a, DEPLOYER.create(0));
        assert_eq!(b, DEPLOYER.create(1));
        Ok(())
    }

    #[test]
    fn a_revert_is_an_error_and_keeps_nothing() -> Result<(), EvmError> {
        let mut evm = Evm::new();
        let t = token(&mut evm, 18)?;
        // Transferring more than the balance underflows: Panic(0x11).
        let e = evm.call_sol(ALICE, t, &TestERC20::transferCall { to: BOB, amount: U256::ONE });
        match e {
            Err(EvmError::Reverted { reason: Some(RevertReason::ContractError(c)), .. }) => {
                assert!(c.to_string().contains("overflow"), "{c}");
            }
            other => panic!("expected a panic revert, got {other:?}"),
        }
        assert_eq!(evm.view(t, &TestERC20::balanceOfCall { who: BOB })?, U256::ZERO);
        Ok(())
    }

    #[test]
    fn a_static_call_changes_nothing() -> Result<(), EvmError> {
        let mut evm = Evm::new();
        let t = token(&mut evm, 18)?;
        let mint = TestERC20::mintCall { to: ALICE, amount: U256::from(5u8) };
        evm.static_call(ALICE, t, mint.abi_encode().into())?;
        assert_eq!(evm.view(t, &TestERC20::totalSupplyCall {})?, U256::ZERO);
        Ok(())
    }

    #[test]
    fn balances_and_clones_are_independent() {
        let mut evm = Evm::new();
        evm.set_balance(ALICE, U256::from(7u8));
        let mut copy = evm.clone();
        copy.set_balance(ALICE, U256::from(9u8));
        assert_eq!(evm.balance(ALICE), U256::from(7u8));
        assert_eq!(copy.balance(ALICE), U256::from(9u8));
    }

    /// An address the chain has never seen, funded, can send value.
    #[test]
    fn a_funded_new_address_can_send_value() -> Result<(), EvmError> {
        let mut evm = Evm::new();
        evm.set_balance(ALICE, U256::from(7u8));
        evm.call(ALICE, BOB, Bytes::new(), U256::from(5u8))?;
        assert_eq!(evm.balance(ALICE), U256::from(2u8));
        assert_eq!(evm.balance(BOB), U256::from(5u8));
        Ok(())
    }

    #[test]
    fn calling_code_that_does_not_exist_succeeds_empty() -> Result<(), EvmError> {
        let mut evm = Evm::new();
        let out = evm.call(ALICE, BOB, Bytes::new(), U256::ZERO)?;
        assert!(out.output.is_empty());
        Ok(())
    }
}

//! An in-process EVM (revm at the Prague spec) over an in-memory state, with
//! a small typed API: deploy initcode, call, read, fund, and place code and
//! storage at chosen addresses.
//!
//! It runs real contract bytecode without a node: the artifacts of
//! [`artifacts`] and their `sol!` interfaces in [`abi`]. It holds the
//! kernel's exact pool math to the contracts' (`tests/differential*.rs`),
//! and [`world`] builds one EVM state per chain of the market snapshot in
//! which every transaction the engine returns is executed first.
//!
//! ```text
//! Evm::new() ──deploy(from, initcode)──▶ Address
//!            ──call(from, to, calldata, value)──▶ CallOutcome {output, gas_used, logs}   (committed)
//!            ──static_call(from, to, calldata)──▶ CallOutcome                            (discarded)
//!            ──call_sol / view (a sol! call struct)──▶ its decoded return
//!            ──relocate(from, to)──▶ a deployed contract moved to its real address
//! Evm::freeze() ──▶ Arc<BaseDb> ──Evm::over(base)──▶ a cheap fork per request
//! ```
//!
//! Every transaction runs with gas price 0 and a 30M gas limit; nonces are
//! not checked (CREATE addresses still follow each sender's nonce), so any
//! address can send without funding. Prague, not Cancun: the `delegate`
//! strategy runs a shortcut as the sender's own EIP-7702-delegated code. A
//! revert is [`EvmError::Reverted`] with the raw output and, when it is an
//! `Error(string)` or `Panic(uint256)`, its decoded reason; custom errors
//! decode with [`EvmError::revert_as`].

pub mod aave;
pub mod abi;
pub mod artifacts;
pub mod cctp;
pub mod clmm;
pub mod fixtures;
pub mod layerzero;
pub mod lazy;
pub mod pool_lens;
pub mod world;

use std::{convert::Infallible, sync::Arc};

use alloy_primitives::{Address, B256, Bytes, Log, U256, keccak256};
use alloy_sol_types::{GenericRevertReason, RevertReason, SolCall, SolInterface};
use revm::{
    Context, ExecuteCommitEvm, ExecuteEvm, MainBuilder, MainContext,
    bytecode::Bytecode,
    context::{
        ContextTr, TxEnv,
        result::{EVMError, ExecutionResult, HaltReason, Output},
        tx::TxEnvBuildError,
    },
    database::{CacheDB, EmptyDB},
    database_interface::DatabaseRef,
    handler::MainnetContext,
    primitives::{TxKind, hardfork::SpecId},
    state::AccountInfo,
};

pub use self::artifacts::{Artifact, NpmArtifacts, Selectors};

/// Gas limit of every transaction (and of the block).
pub const GAS_LIMIT: u64 = 30_000_000;

/// Chain id a bare [`Evm::new`] reports (`block.chainid`).
pub const CHAIN_ID: u64 = 1;

/// Block timestamp a bare [`Evm::new`] reports, 2023-11-14.
pub const TIMESTAMP: u64 = 1_700_000_000;

/// The state of a built world, shared read-only by the forks over it: what
/// it placed, over the pools it derives on first touch.
pub type BaseDb = lazy::WorldDb;

/// An EVM over a fork of a frozen world.
pub type ForkEvm = Evm<Arc<BaseDb>>;

type Inner<Ext> = revm::MainnetEvm<MainnetContext<CacheDB<Ext>>>;

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
    #[error("halted: {reason:?}")]
    Halted {
        /// What stopped it.
        reason: HaltReason,
        /// Gas used, normally all of it.
        gas_used: u64,
    },
    /// A deployment succeeded without creating an account.
    #[error("deployment created no contract")]
    NoContract,
    /// A contract cannot be deployed where code already is.
    #[error("{0} already holds code")]
    Occupied(Address),
    /// The return data does not decode as the call's declared returns.
    #[error("return data does not decode")]
    Decode(#[from] alloy_sol_types::Error),
    /// A contract artifact does not parse.
    #[error("artifact {name} does not parse")]
    Artifact {
        /// The artifact's name.
        name: &'static str,
        /// The parse error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An npm artifact file could not be read.
    #[error("cannot read {} (run scripts/setup.sh, which installs the Uniswap packages)", path.display())]
    NpmArtifact {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The npm artifacts of the default directory are missing (the message
    /// of the first failure).
    #[error("uniswap bytecode unavailable: {0}")]
    NpmUnavailable(String),
    /// A contract to relocate has no code.
    #[error("no contract at {0}")]
    NotAContract(Address),
    /// A storage write did not read back through the contract's own getter:
    /// the layout assumed for a published contract is not its own.
    #[error("the storage layout of {0} is not the one assumed")]
    Layout(&'static str),
    /// A fixture parameter the contract cannot hold (an index below one
    /// ray, a price past `int256`).
    #[error("cannot set up {0}")]
    Parameter(String),
    /// A balance no account could hold: more of a token than exists or
    /// could be minted.
    #[error("more than can exist ({0})")]
    Unfundable(String),
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

/// The chain and block an EVM reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockEnv {
    /// `block.chainid`.
    pub chain_id: u64,
    /// `block.number`.
    pub number: u64,
    /// `block.timestamp`.
    pub timestamp: u64,
}

impl Default for BlockEnv {
    fn default() -> Self {
        Self { chain_id: CHAIN_ID, number: 1, timestamp: TIMESTAMP }
    }
}

/// An EVM with its own in-memory state over a read-only base (`EmptyDB` for
/// a fresh chain, a frozen world for a fork). Cloning an `Evm<EmptyDB>`
/// copies its state, so a deployed fixture can be set up once and cloned per
/// test case.
#[derive(Debug)]
pub struct Evm<Ext = EmptyDB>
where
    Ext: DatabaseRef<Error = Infallible> + std::fmt::Debug,
{
    inner: Inner<Ext>,
    block: BlockEnv,
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
        Self::with_db(self.inner.ctx.db_ref().clone(), self.block)
    }
}

impl Evm {
    /// An empty chain at the Prague spec: no accounts, block 1 at
    /// [`TIMESTAMP`], chain [`CHAIN_ID`], base fee 0.
    pub fn new() -> Self {
        Self::at(BlockEnv::default())
    }

    /// An empty chain reporting `block`.
    pub fn at(block: BlockEnv) -> Self {
        Self::with_db(CacheDB::new(EmptyDB::default()), block)
    }

    /// A copy of a frozen world's placed contracts to change, reporting
    /// `block` (freeze it again, beside the world's derived pools).
    pub fn thaw(base: &BaseDb, block: BlockEnv) -> Self {
        Self::with_db(CacheDB::clone(&base.placed), block)
    }

    /// Freezes the state (a world's placed contracts, [`BaseDb::placed`]).
    /// Accounts with the same code share one copy of it (every token of
    /// one kind): each was created with its own; zero slots are dropped.
    pub fn freeze(mut self) -> (CacheDB<EmptyDB>, BlockEnv) {
        let cache = &mut self.inner.ctx.db_mut().cache;
        let contracts = &cache.contracts;
        for account in cache.accounts.values_mut() {
            if account.info.code.is_some()
                && let Some(shared) = contracts.get(&account.info.code_hash)
            {
                account.info.code = Some(shared.clone());
            }
            // A zero slot reads as zero whether it is kept or not (the
            // frozen world has nothing beneath it), and costs the same gas.
            account.storage.retain(|_, v| !v.is_zero());
            account.storage.shrink_to_fit();
        }
        // Moved out, not cloned: no second copy of the world at its peak.
        (std::mem::take(self.inner.ctx.db_mut()), self.block)
    }
}

impl ForkEvm {
    /// A fork of a frozen world: reads fall through to `base`, writes stay
    /// in the fork.
    pub fn over(base: Arc<BaseDb>, block: BlockEnv) -> Self {
        Self::with_db(CacheDB::new(base), block)
    }
}

impl<Ext> Evm<Ext>
where
    Ext: DatabaseRef<Error = Infallible> + std::fmt::Debug,
{
    fn with_db(db: CacheDB<Ext>, block: BlockEnv) -> Self {
        let inner = Context::mainnet()
            .with_db(db)
            .modify_cfg_chained(|cfg| {
                // Not `set_spec`: that keeps the previous spec's gas
                // parameters.
                cfg.set_spec_and_mainnet_gas_params(SpecId::PRAGUE);
                cfg.chain_id = block.chain_id;
                cfg.disable_nonce_check = true;
                // A contract wallet (a Safe) sends through its own
                // execution, so the call's sender has code: what is
                // simulated is the call it makes, not a transaction
                // signed by it (EIP-3607 would refuse that).
                cfg.disable_eip3607 = true;
            })
            .modify_block_chained(|b| {
                b.number = U256::from(block.number);
                b.timestamp = U256::from(block.timestamp);
                b.basefee = 0;
                b.gas_limit = GAS_LIMIT;
            })
            .build_mainnet();
        Self { inner, block }
    }

    /// The chain and block this EVM reports.
    pub const fn block(&self) -> BlockEnv {
        self.block
    }

    fn account(&mut self, who: Address) -> &mut revm::database::DbAccount {
        match self.inner.ctx.db_mut().load_account(who) {
            Ok(account) => account,
            Err(never) => match never {},
        }
    }

    /// Sets the native balance of `who`, keeping its code and nonce.
    pub fn set_balance(&mut self, who: Address, wei: U256) {
        let account = self.account(who);
        // An account the database has never seen is marked as not
        // existing, and would read back as empty: it exists now.
        if account.account_state == revm::database::AccountState::NotExisting {
            account.account_state = revm::database::AccountState::None;
        }
        account.info.balance = wei;
    }

    /// The native balance of `who`.
    pub fn balance(&mut self, who: Address) -> U256 {
        self.account(who).info.balance
    }

    /// The code at `who` (empty for an account without code).
    pub fn code(&mut self, who: Address) -> Bytes {
        let info = self.account(who).info.clone();
        match info.code {
            Some(c) => c.original_bytes(),
            None => match self.inner.ctx.db_ref().code_by_hash_ref(info.code_hash) {
                Ok(c) => c.original_bytes(),
                Err(never) => match never {},
            },
        }
    }

    /// Places `code` (runtime bytecode) at `who`, keeping its balance.
    pub fn set_code(&mut self, who: Address, code: Bytecode) {
        let mut info = self.account(who).info.clone();
        info.code_hash = code.hash_slow();
        info.code = Some(code);
        self.inner.ctx.db_mut().insert_account_info(who, info);
    }

    /// Delegates `account` to `delegate` the way EIP-7702 does: its code
    /// becomes the designator `0xef0100 ‖ delegate`, calls to it run the
    /// delegate's code in its context, and it may still send transactions.
    pub fn delegate_account(&mut self, account: Address, delegate: Address) {
        self.set_code(account, Bytecode::new_eip7702(delegate));
    }

    /// A storage slot of `who`.
    pub fn storage(&mut self, who: Address, slot: U256) -> U256 {
        match self.inner.ctx.db_mut().storage_ref(who, slot) {
            Ok(v) => v,
            Err(never) => match never {},
        }
    }

    /// Writes a storage slot of `who`.
    pub fn set_storage(&mut self, who: Address, slot: U256, value: U256) {
        match self.inner.ctx.db_mut().insert_account_storage(who, slot, value) {
            Ok(()) => {}
            Err(never) => match never {},
        }
    }

    /// Replaces every occurrence of the address `from` in `at`'s code with
    /// `to` (an immutable naming another contract that moved).
    pub fn patch_address(
        &mut self,
        at: Address,
        from: Address,
        to: Address,
    ) -> Result<(), EvmError> {
        let code = self.code(at);
        if code.is_empty() {
            return Err(EvmError::NotAContract(at));
        }
        let patched = replace_address(&code, from, to);
        self.set_code(at, Bytecode::new_raw(patched.into()));
        Ok(())
    }

    /// Moves the contract at `from` (code, storage, balance) to `to`, as if
    /// it had been deployed there, and empties `from`. Occurrences of `from`
    /// in the runtime code (immutables that hold the contract's own address,
    /// such as Uniswap's no-delegatecall guard) become `to`, so checks of
    /// `address(this)` against them still pass.
    pub fn relocate(&mut self, from: Address, to: Address) -> Result<(), EvmError> {
        let code = self.code(from);
        if code.is_empty() {
            return Err(EvmError::NotAContract(from));
        }
        let patched = replace_address(&code, from, to);
        let source = self.account(from).clone();
        let balance = source.info.balance;
        let code = Bytecode::new_raw(patched.into());
        let info = AccountInfo {
            balance,
            nonce: source.info.nonce,
            code_hash: code.hash_slow(),
            code: Some(code),
            ..Default::default()
        };
        let db = self.inner.ctx.db_mut();
        db.insert_account_info(to, info);
        for (slot, value) in &source.storage {
            match db.insert_account_storage(to, *slot, *value) {
                Ok(()) => {}
                Err(never) => match never {},
            }
        }
        db.insert_account_info(from, AccountInfo::default());
        match db.replace_account_storage(from, Default::default()) {
            Ok(()) => {}
            Err(never) => match never {},
        }
        Ok(())
    }

    /// Deploys `initcode` (creation bytecode followed by the ABI-encoded
    /// constructor arguments) from `from`; the address follows `from`'s
    /// nonce, as `CREATE` does.
    pub fn deploy(&mut self, from: Address, initcode: Bytes) -> Result<Address, EvmError> {
        let tx = Self::tx(self.block, from, TxKind::Create, initcode, U256::ZERO)?;
        match self.inner.transact_commit(tx).map_err(EvmError::Rejected)? {
            ExecutionResult::Success { output: Output::Create(_, Some(address)), .. } => {
                Ok(address)
            }
            ExecutionResult::Success { .. } => Err(EvmError::NoContract),
            other => Err(failure(other)),
        }
    }

    /// Runs `initcode` (creation code and constructor arguments) as if it
    /// were created at `at` by `from`, and leaves its runtime code there: the
    /// constructor sees `address(this) == at`, so a contract that registers
    /// itself (a Balancer pool with its Vault) or hashes its own address
    /// does so with its real one. `at` must hold no code.
    pub fn deploy_in_place(
        &mut self,
        from: Address,
        at: Address,
        initcode: Bytes,
    ) -> Result<(), EvmError> {
        if !self.code(at).is_empty() {
            return Err(EvmError::Occupied(at));
        }
        self.set_code(at, Bytecode::new_raw(initcode));
        let runtime = match self.call(from, at, Bytes::new(), U256::ZERO) {
            Ok(out) => out.output,
            Err(e) => {
                self.set_code(at, Bytecode::default());
                return Err(e);
            }
        };
        if runtime.is_empty() {
            self.set_code(at, Bytecode::default());
            return Err(EvmError::NoContract);
        }
        self.set_code(at, Bytecode::new_raw(runtime));
        // A contract starts at nonce 1 (EIP-161).
        let mut info = self.account(at).info.clone();
        info.nonce = info.nonce.max(1);
        self.inner.ctx.db_mut().insert_account_info(at, info);
        Ok(())
    }

    /// Deploys an artifact with ABI-encoded constructor arguments
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
        let tx = Self::tx(self.block, from, TxKind::Call(to), calldata, value)?;
        outcome(self.inner.transact_commit(tx).map_err(EvmError::Rejected)?)
    }

    /// [`Self::call`] with a gas limit of `gas` (intrinsic gas included),
    /// as a relayer bounds what it runs.
    pub fn call_with_gas(
        &mut self,
        from: Address,
        to: Address,
        calldata: Bytes,
        value: U256,
        gas: u64,
    ) -> Result<CallOutcome, EvmError> {
        let mut tx = Self::tx(self.block, from, TxKind::Call(to), calldata, value)?;
        tx.gas_limit = gas;
        outcome(self.inner.transact_commit(tx).map_err(EvmError::Rejected)?)
    }

    /// Calls `to` from `from` and discards whatever the call changed, as
    /// `eth_call` does.
    pub fn static_call(
        &mut self,
        from: Address,
        to: Address,
        calldata: Bytes,
    ) -> Result<CallOutcome, EvmError> {
        let tx = Self::tx(self.block, from, TxKind::Call(to), calldata, U256::ZERO)?;
        outcome(self.inner.transact(tx).map_err(EvmError::Rejected)?.result)
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

    fn tx(
        block: BlockEnv,
        from: Address,
        kind: TxKind,
        data: Bytes,
        value: U256,
    ) -> Result<TxEnv, EvmError> {
        TxEnv::builder()
            .caller(from)
            .kind(kind)
            .data(data)
            .value(value)
            .gas_limit(GAS_LIMIT)
            .gas_price(0)
            .chain_id(Some(block.chain_id))
            .build()
            .map_err(EvmError::Malformed)
    }
}

fn outcome(result: ExecutionResult) -> Result<CallOutcome, EvmError> {
    match result {
        ExecutionResult::Success { gas, logs, output, .. } => {
            Ok(CallOutcome { output: output.into_data(), gas_used: gas.tx_gas_used(), logs })
        }
        other => Err(failure(other)),
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

/// `code` with every occurrence of the 20 bytes of `from` replaced by `to`.
pub fn replace_address(code: &[u8], from: Address, to: Address) -> Vec<u8> {
    let mut out = code.to_vec();
    let (f, t) = (from.as_slice(), to.as_slice());
    let mut k = 0;
    while k + 20 <= out.len() {
        if &out[k..k + 20] == f {
            out[k..k + 20].copy_from_slice(t);
            k += 20;
        } else {
            k += 1;
        }
    }
    out
}

/// The address CREATE2 gives: `keccak256(0xff ‖ deployer ‖ salt ‖
/// keccak256(initcode))[12..]`.
pub fn create2_address(deployer: Address, salt: B256, initcode: &[u8]) -> Address {
    deployer.create2(salt, keccak256(initcode))
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

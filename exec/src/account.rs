//! ERC-4337 user operations for Enso's accounts (`ensowallet-v2` with
//! `executionMode=backend`).
//!
//! Enso deploys an ERC-4337 account per user (`EnsoReceiver`, cloned by
//! `ERC4337CloneFactory`; the world's `ReceiverAccount` and
//! `AccountFactory`) that trusts the EntryPoint v0.7. A backend drives it:
//! it signs nothing of the user's, it submits the user's signed operation.
//! The operation's `callData` is the account's own
//! `safeExecute(tokenIn, amountIn, executeShortcut(…))`, which the owner
//! could also send directly ([`crate::encode::transaction`]).
//!
//! ```text
//! account call ─▶ UserOp (nonce from the EntryPoint, initCode if the account is not there yet)
//!              ─▶ fork: EntryPointSimulations over the EntryPoint ─▶ simulateHandleOp ─▶ measured gas
//!              ─▶ the operation with its limits ─▶ simulated again: the proof ─▶ handleOps tx
//! ```
//!
//! The operation is unsigned: the account's signer (the sender, or the
//! operator's backend signer the account was deployed for) signs the
//! EIP-191 message of `EntryPoint.getUserOpHash(op)`. The simulation is the
//! EntryPoint's own code (`simulateHandleOp`, which bundlers run the same
//! way) and tolerates exactly that: the account must answer "signature
//! failed" (1) and nothing else. Its fees are zero: the account never pays
//! a prefund (`EnsoReceiver.validateUserOp` ignores it) and no paymaster is
//! named, so the backend that submits it pays the gas.

use alloy_primitives::{Address, B256, Bytes, Log, U256};
use alloy_sol_types::{SolCall, SolEvent, SolValue};
use revm::bytecode::Bytecode;

use crate::{
    encode::Tx,
    evm::{
        abi::{
            AccountFactory,
            EntryPoint::{self, PackedUserOperation},
            ReceiverAccount,
        },
        world::{AccountContracts, ChainWorld},
    },
    simulate::{SimError, SimOutcome, SimSetup, describe, prepare, run_prepared},
};

/// The limits of the first, measuring simulation.
const PROBE_VERIFICATION_GAS: u128 = 2_000_000;
const PROBE_CALL_GAS: u128 = 20_000_000;
/// What the answered limits add to what was measured: half again, and a
/// floor for the EntryPoint's own bookkeeping around the call.
const MARGIN_NUM: u128 = 3;
const MARGIN_DEN: u128 = 2;
const CALL_GAS_FLOOR: u128 = 50_000;
/// The reference bundler's `preVerificationGas` constants (ERC-4337's
/// `calcPreVerificationGas`): the transaction's base cost shared by a
/// bundle of one, the per-operation overhead, the cost per word of the
/// packed operation, per zero and non-zero calldata byte, and the length
/// of the signature it will carry.
const PVG_FIXED: u64 = 21_000;
const PVG_PER_OP: u64 = 18_300;
const PVG_PER_WORD: u64 = 4;
const PVG_ZERO_BYTE: u64 = 4;
const PVG_NONZERO_BYTE: u64 = 16;
const SIGNATURE_LEN: usize = 65;
/// The EntryPoint v0.7's `INNER_GAS_OVERHEAD`, which the call must have
/// left besides its limit.
const INNER_GAS_OVERHEAD: u128 = 10_000;
/// The EntryPoint's bookkeeping around one operation in `handleOps`
/// (nonce, deposits, the event, the beneficiary), a bound.
const ENTRY_POINT_OVERHEAD: u64 = 60_000;
/// `SIG_VALIDATION_FAILED`: what the account answers for the empty
/// signature, and the only validation failure a proof tolerates.
const SIGNATURE_FAILED: U256 = U256::ONE;

/// An ERC-4337 v0.7 user operation, unpacked as the API answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserOp {
    /// The account.
    pub sender: Address,
    /// `EntryPoint.getNonce(sender, 0)`.
    pub nonce: U256,
    /// The factory, while the account has no code yet.
    pub factory: Option<Address>,
    /// `deploy(owner)` (or `delegateDeploy(owner, signer)`) for that
    /// factory.
    pub factory_data: Bytes,
    /// The account's call.
    pub call_data: Bytes,
    /// Gas for the call.
    pub call_gas_limit: u128,
    /// Gas for creating the account and validating the operation.
    pub verification_gas_limit: u128,
    /// Gas paid for what the EntryPoint cannot measure (calldata, the
    /// bundle's base cost).
    pub pre_verification_gas: U256,
    /// Zero: the backend pays.
    pub max_fee_per_gas: u128,
    /// Zero.
    pub max_priority_fee_per_gas: u128,
    /// Empty until the signer signs.
    pub signature: Bytes,
    /// `EntryPoint.getUserOpHash` of the operation (the signature left
    /// out): the signer signs its EIP-191 message.
    pub hash: B256,
}

impl UserOp {
    /// The operation as the EntryPoint takes it.
    pub fn packed(&self) -> PackedUserOperation {
        let init_code = self.factory.map_or_else(Bytes::new, |f| {
            let mut v = f.to_vec();
            v.extend_from_slice(&self.factory_data);
            v.into()
        });
        PackedUserOperation {
            sender: self.sender,
            nonce: self.nonce,
            initCode: init_code,
            callData: self.call_data.clone(),
            accountGasLimits: pack(self.verification_gas_limit, self.call_gas_limit),
            preVerificationGas: self.pre_verification_gas,
            gasFees: pack(self.max_priority_fee_per_gas, self.max_fee_per_gas),
            paymasterAndData: Bytes::new(),
            signature: self.signature.clone(),
        }
    }

    /// `handleOps([self], beneficiary)` to `entry_point`, sent by `from`.
    pub fn handle_ops(&self, entry_point: Address, from: Address, beneficiary: Address) -> Tx {
        let data = EntryPoint::handleOpsCall { ops: vec![self.packed()], beneficiary }.abi_encode();
        Tx { from, to: entry_point, data: data.into(), value: U256::ZERO }
    }

    /// The gas limit a `handleOps` of this operation alone needs: the
    /// transaction's intrinsic gas, the verification limit, the call's
    /// limit with the EntryPoint's `INNER_GAS_OVERHEAD` passed through two
    /// calls' 63/64 (`innerHandleOp` refuses to start the call with less:
    /// AA95), and the EntryPoint's own bookkeeping.
    pub fn handle_ops_gas(&self, tx: &Tx) -> u64 {
        let calldata: u64 =
            tx.data.iter().map(|b| if *b == 0 { PVG_ZERO_BYTE } else { PVG_NONZERO_BYTE }).sum();
        let call = self.call_gas_limit.saturating_add(INNER_GAS_OVERHEAD);
        let call = call.saturating_mul(64 * 64) / (63 * 63);
        let total = u128::from(PVG_FIXED + calldata + ENTRY_POINT_OVERHEAD)
            .saturating_add(self.verification_gas_limit)
            .saturating_add(call);
        u64::try_from(total).unwrap_or(u64::MAX)
    }

    /// The reference bundler's `preVerificationGas` for this operation,
    /// with a 65-byte signature in place.
    fn pre_verification_gas(&self) -> U256 {
        let mut op = self.packed();
        op.signature = vec![0xff; SIGNATURE_LEN].into();
        let bytes = op.abi_encode();
        let calldata: u64 =
            bytes.iter().map(|b| if *b == 0 { PVG_ZERO_BYTE } else { PVG_NONZERO_BYTE }).sum();
        let words = (bytes.len() as u64).div_ceil(32);
        U256::from(PVG_FIXED + PVG_PER_OP + PVG_PER_WORD * words + calldata)
    }
}

/// Two 128-bit values packed high then low, as v0.7 packs its gas fields.
fn pack(high: u128, low: u128) -> B256 {
    let mut word = [0u8; 32];
    word[..16].copy_from_slice(&high.to_be_bytes());
    word[16..].copy_from_slice(&low.to_be_bytes());
    B256::from(word)
}

/// The sender's account as the chain holds it (read from the node that
/// follows the chain, at the snapshot's block), when it is deployed: the
/// proof's fork holds it the same, and the operation takes its nonce and
/// no `initCode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldAccount {
    /// The account.
    pub account: Address,
    /// Its owner.
    pub owner: Address,
    /// Its signer.
    pub signer: Address,
    /// The EntryPoint it trusts.
    pub entry_point: Address,
    /// `EntryPoint.getNonce(account, 0)`.
    pub nonce: U256,
}

/// What the chain's node said of the sender's account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountRead {
    /// No code there yet: the operation deploys it.
    Absent,
    /// Deployed, as it is.
    Held(HeldAccount),
    /// The node could not say.
    Failed(String),
}

/// The view calls that read a deployed account: `owner()`, `signer()`,
/// `entryPoint()` on it.
pub fn read_calls() -> [Bytes; 3] {
    [
        ReceiverAccount::ownerCall {}.abi_encode().into(),
        ReceiverAccount::signerCall {}.abi_encode().into(),
        ReceiverAccount::entryPointCall {}.abi_encode().into(),
    ]
}

/// `EntryPoint.getNonce(account, 0)`'s call data.
pub fn nonce_call(account: Address) -> Bytes {
    EntryPoint::getNonceCall { sender: account, key: alloy_primitives::aliases::U192::ZERO }
        .abi_encode()
        .into()
}

/// A deployed account from its three reads and the EntryPoint's nonce.
pub fn decode_held(
    account: Address,
    [owner, signer, entry_point]: [&[u8]; 3],
    nonce: &[u8],
) -> Result<HeldAccount, String> {
    let address = |what: &str, b: &[u8]| {
        <Address as SolValue>::abi_decode(b).map_err(|e| format!("{what} of {account}: {e}"))
    };
    Ok(HeldAccount {
        account,
        owner: address("owner()", owner)?,
        signer: address("signer()", signer)?,
        entry_point: address("entryPoint()", entry_point)?,
        nonce: <U256 as SolValue>::abi_decode(nonce)
            .map_err(|e| format!("the EntryPoint's nonce of {account}: {e}"))?,
    })
}

/// Storage of the account and of EntryPoint v0.7 that a held account is
/// written into: its owner, signer and EntryPoint slots, OpenZeppelin's
/// namespaced `Initializable` slot, and the EntryPoint's
/// `nonceSequenceNumber` mapping (slot 1, after `StakeManager.deposits`).
const OWNER_SLOT: u64 = 0;
const SIGNER_SLOT: u64 = 1;
const ENTRY_POINT_SLOT: u64 = 2;
const INITIALIZABLE_SLOT: B256 =
    alloy_primitives::b256!("f0c57e16840df040f15088dc2f81fe391c3923bec73e23a9662efc9c229c6a00");
const NONCE_MAPPING_SLOT: u64 = 1;

/// Puts `held` in a fork as the chain holds it: the minimal proxy to the
/// implementation at its address with its slots, and its nonce in the
/// EntryPoint.
pub fn place_held(evm: &mut crate::evm::ForkEvm, accounts: &AccountContracts, held: &HeldAccount) {
    let mut code = alloy_primitives::hex!("3d3d3d3d363d3d37363d73").to_vec();
    code.extend_from_slice(accounts.implementation.as_slice());
    code.extend_from_slice(&alloy_primitives::hex!("5af43d3d93803e602a57fd5bf3"));
    evm.set_code(held.account, Bytecode::new_raw(code.into()));
    let word = |a: Address| U256::from_be_slice(a.into_word().as_slice());
    evm.set_storage(held.account, U256::from(OWNER_SLOT), word(held.owner));
    evm.set_storage(held.account, U256::from(SIGNER_SLOT), word(held.signer));
    evm.set_storage(held.account, U256::from(ENTRY_POINT_SLOT), word(held.entry_point));
    evm.set_storage(held.account, U256::from_be_bytes(INITIALIZABLE_SLOT.0), U256::ONE);
    // nonceSequenceNumber[account][0]: the key's 192 bits are 0, the
    // sequence is the nonce's low 64 bits.
    let outer =
        alloy_primitives::keccak256((held.account, U256::from(NONCE_MAPPING_SLOT)).abi_encode());
    let inner = alloy_primitives::keccak256((U256::ZERO, outer).abi_encode());
    let sequence = held.nonce & U256::from(u64::MAX);
    evm.set_storage(accounts.entry_point, U256::from_be_bytes(inner.0), sequence);
}

/// A user operation proven in a fork of the world.
#[derive(Debug, Clone)]
pub struct ProvenOp {
    /// The operation answered (unsigned).
    pub op: UserOp,
    /// `handleOps` with it.
    pub tx: Tx,
    /// The proof: the operation's simulation with the balances watched.
    pub outcome: SimOutcome,
    /// The gas `tx` needs ([`UserOp::handle_ops_gas`]).
    pub gas: u64,
}

/// The owner's direct call that runs the same program as `call` (the
/// account's `safeExecute(token, amount, executeShortcut(…))`): the inner
/// `executeShortcut`, whose return is the program's final state.
pub fn direct(call: &Tx, owner: Address) -> Option<Tx> {
    let inner = ReceiverAccount::safeExecuteCall::abi_decode(&call.data).ok()?;
    Some(Tx { from: owner, to: call.to, data: inner.data, value: U256::ZERO })
}

/// The factory's call that deploys the account of `owner` signed for by
/// `signer`: `deploy(owner)` when that is the owner itself, else
/// `delegateDeploy(owner, signer)`.
pub fn deploy_call(owner: Address, signer: Address) -> Bytes {
    if signer == owner {
        AccountFactory::deployCall { account: owner }.abi_encode().into()
    } else {
        AccountFactory::delegateDeployCall { account: owner, signer }.abi_encode().into()
    }
}

/// The user operation running `call` (the account's own call) of the
/// account of `owner` signed for by `signer`, proven through the EntryPoint's code: measured once, then simulated
/// again with the limits it answers. `setup` funds and approves as for any
/// transaction, and its watched balances are measured around the second
/// simulation.
pub fn prove(
    cw: &ChainWorld,
    accounts: &AccountContracts,
    (owner, signer): (Address, Address),
    call: &Tx,
    setup: &SimSetup,
) -> Result<ProvenOp, SimError> {
    let sender = call.to;
    // The operation deploys the account itself (unless the chain holds it).
    let setup = &SimSetup { accounts: Vec::new(), ..setup.clone() };
    let mut evm = cw.fork();
    for held in &setup.held_accounts {
        place_held(&mut evm, accounts, held);
    }
    let deployed = !evm.code(sender).is_empty();
    let nonce = evm
        .view(
            accounts.entry_point,
            &EntryPoint::getNonceCall { sender, key: alloy_primitives::aliases::U192::ZERO },
        )
        .map_err(|e| SimError::Setup(format!("the account's nonce: {}", describe(&e))))?;
    let mut op = UserOp {
        sender,
        nonce,
        factory: (!deployed).then_some(accounts.factory),
        factory_data: if deployed { Bytes::new() } else { deploy_call(owner, signer) },
        call_data: call.data.clone(),
        call_gas_limit: PROBE_CALL_GAS,
        verification_gas_limit: PROBE_VERIFICATION_GAS,
        pre_verification_gas: U256::ZERO,
        max_fee_per_gas: 0,
        max_priority_fee_per_gas: 0,
        signature: Bytes::new(),
        hash: B256::ZERO,
    };
    op.pre_verification_gas = op.pre_verification_gas();
    let (probe, _) = simulate_op(cw, accounts, &op, call.from, setup)?;
    let pvg = u128::try_from(op.pre_verification_gas).unwrap_or(u128::MAX);
    let validation = probe.pre_op_gas.saturating_sub(pvg);
    // `actualGasUsed` past `preOpGas` is the call's gas plus the penalty of
    // 10% of what the call left unused of its limit: a = u + (L - u) / 10.
    let after = probe.actual_gas_used.saturating_sub(probe.pre_op_gas);
    let execution = after.saturating_mul(10).saturating_sub(PROBE_CALL_GAS) / 9;
    op.verification_gas_limit = validation.saturating_mul(MARGIN_NUM) / MARGIN_DEN;
    op.call_gas_limit = (execution.saturating_mul(MARGIN_NUM) / MARGIN_DEN).max(CALL_GAS_FLOOR);
    op.pre_verification_gas = op.pre_verification_gas();
    let (_, outcome) = simulate_op(cw, accounts, &op, call.from, setup)?;
    op.hash = evm
        .view(accounts.entry_point, &EntryPoint::getUserOpHashCall { userOp: op.packed() })
        .map_err(|e| SimError::Setup(format!("the operation's hash: {}", describe(&e))))?;
    let tx = op.handle_ops(accounts.entry_point, call.from, call.from);
    let gas = op.handle_ops_gas(&tx).max(outcome.gas_used);
    Ok(ProvenOp { op, tx, outcome, gas })
}

/// What a simulation measured of the operation.
struct Measured {
    /// `preOpGas`: validation, creation and `preVerificationGas`.
    pre_op_gas: u128,
    /// The operation's `actualGasUsed` (its event).
    actual_gas_used: u128,
}

/// `simulateHandleOp(op)` in a prepared fork with the simulations code over
/// the EntryPoint; an operation whose validation fails other than by its
/// missing signature, or whose call failed, is an error.
fn simulate_op(
    cw: &ChainWorld,
    accounts: &AccountContracts,
    op: &UserOp,
    from: Address,
    setup: &SimSetup,
) -> Result<(Measured, SimOutcome), SimError> {
    let mut evm = cw.fork();
    prepare(cw, &mut evm, setup)?;
    evm.set_code(accounts.entry_point, Bytecode::new_raw(accounts.simulations.clone()));
    let call = EntryPoint::simulateHandleOpCall {
        op: op.packed(),
        target: Address::ZERO,
        targetCallData: Bytes::new(),
    };
    let tx =
        Tx { from, to: accounts.entry_point, data: call.abi_encode().into(), value: U256::ZERO };
    let outcome = run_prepared(&mut evm, &tx, &setup.watch)?;
    let result = EntryPoint::simulateHandleOpCall::abi_decode_returns(&outcome.output)
        .map_err(|e| SimError::Setup(format!("simulateHandleOp's result: {e}")))?;
    if result.accountValidationData > SIGNATURE_FAILED
        || result.paymasterValidationData != U256::ZERO
    {
        return Err(SimError::Setup(format!(
            "the account's validation answered {} (only the missing signature is expected)",
            result.accountValidationData
        )));
    }
    if let Some(reason) = failed_shortcut(&outcome.logs, op.sender) {
        return Err(SimError::Setup(format!("the account's shortcut failed: {reason}")));
    }
    let event = outcome
        .logs
        .iter()
        .filter(|l| l.address == accounts.entry_point)
        .find_map(|l| EntryPoint::UserOperationEvent::decode_log_data(&l.data).ok())
        .ok_or_else(|| SimError::Setup("the EntryPoint emitted no UserOperationEvent".into()))?;
    if !event.success {
        return Err(SimError::Setup("the operation's call reverted".into()));
    }
    let as_u128 = |v: U256| u128::try_from(v).unwrap_or(u128::MAX);
    let measured = Measured {
        pre_op_gas: as_u128(result.preOpGas),
        actual_gas_used: as_u128(event.actualGasUsed),
    };
    Ok((measured, outcome))
}

/// The reason a `ShortcutExecutionFailed` of `account` carries, if it
/// emitted one (`safeExecute` then returned the input to the owner).
fn failed_shortcut(logs: &[Log], account: Address) -> Option<String> {
    logs.iter().filter(|l| l.address == account).find_map(|l| {
        ReceiverAccount::ShortcutExecutionFailed::decode_log_data(&l.data).ok().map(|e| {
            crate::simulate::decode_revert(&e.error)
                .unwrap_or_else(|| alloy_primitives::hex::encode_prefixed(&e.error))
        })
    })
}

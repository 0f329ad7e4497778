//! Bundles: a list of actions (the API's `/shortcuts/bundle`) compiled into
//! one weiroll program, turned into the strategy's transaction, and
//! executed in the chain's EVM world before it is returned.
//!
//! ```text
//! [Action] ──compile──▶ Program: per action its calls, outputs in slots
//!            (route/swap/deposit/redeem planned by the kernel on the snapshot
//!             as earlier actions leave it; `useOutputOfCallAt` = that slot)
//!          ──prologue──▶ pull inputs, read balances before
//!          ──epilogue──▶ sweep a shared executor to the receiver
//!          ──tx + simulate──▶ every kernel-predicted output equal to the
//!             executed one (read back from the program's final state),
//!             amountsOut = what the beneficiaries gained
//! ```
//!
//! The [`BundleCompiler`] actor owns this work: it keeps the [`Templates`]
//! of the current catalog and compiles each bundle on the rayon pool, so a
//! slow bundle never blocks the HTTP runtime or the actor.

mod call;
mod compile;
mod templates;

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, U256};
use switchyard_catalog::{ApiCode, ChainId, RoutingStrategy};
use switchyard_kernel::Plan;

pub use self::{call::CallArg, compile::compile_and_prove, templates::Templates};
/// The two-operand helper functions, which are also bundle actions.
pub use crate::encode::helpers::BinaryOp;
use crate::encode::{Approval, Tx};

/// An amount: a literal, or the output of an earlier action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Amount {
    /// Wei.
    Value(U256),
    /// `{useOutputOfCallAt, index}`.
    Output {
        /// The earlier action's index.
        action: usize,
        /// Which of its outputs.
        index: usize,
    },
}

/// A condition: a literal, or the boolean output of an earlier action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// A literal.
    Value(bool),
    /// An earlier action's output.
    Output {
        /// The earlier action's index.
        action: usize,
        /// Which of its outputs.
        index: usize,
    },
}

/// A route action's arguments (also used for `split` and `merge` legs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteArgs {
    /// Input token.
    pub token_in: Address,
    /// Output token.
    pub token_out: Address,
    /// Input amount.
    pub amount_in: Amount,
    /// Slippage, bps (50 when neither it nor `min_amount_out` is given).
    pub slippage_bps: Option<u32>,
    /// Minimum out (slippage wins when both are given).
    pub min_amount_out: Option<Amount>,
    /// Receiver of the output (default: stays in the account).
    pub receiver: Option<Address>,
    /// Fee, bps of the input, and its receiver.
    pub fee: Option<(u32, Address)>,
    /// Sources to leave out.
    pub ignore_aggregators: Vec<String>,
    /// Standards to leave out.
    pub ignore_standards: Vec<String>,
    /// Chain the output arrives on, when not the bundle's: the route ends
    /// with a CCTP transfer to the receiver there.
    pub destination_chain: Option<ChainId>,
}

/// One action of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionKind {
    /// `enso route`: the best route, any protocol.
    Route(RouteArgs),
    /// `<protocol> swap`: through that protocol's pools (`primary`: one of
    /// its pools, or its router, which any of its pools stands for).
    Swap {
        /// Input token.
        token_in: Address,
        /// Output token.
        token_out: Address,
        /// Input amount.
        amount_in: Amount,
        /// Pool or router.
        primary: Address,
        /// Receiver of the output.
        receiver: Option<Address>,
        /// Slippage, bps: checked against the predicted output when given.
        slippage_bps: Option<u32>,
    },
    /// `<protocol> deposit` (and its single-token variants).
    Deposit {
        /// Input token.
        token_in: Address,
        /// The position token, when named.
        token_out: Option<Address>,
        /// Input amount.
        amount_in: Amount,
        /// The protocol's contract.
        primary: Address,
        /// Receiver of the position token.
        receiver: Option<Address>,
    },
    /// `<protocol> redeem` (and its single-token variants).
    Redeem {
        /// The position token, when named.
        token_in: Option<Address>,
        /// The token received.
        token_out: Address,
        /// Amount of the position token.
        amount_in: Amount,
        /// The protocol's contract.
        primary: Address,
        /// Receiver of the output.
        receiver: Option<Address>,
    },
    /// `<protocol> multideposit` (and `tokenizedmultideposit`): several
    /// coins into one position at once (a tokenized Curve pool's
    /// `add_liquidity`, a Uniswap V2 pair through Router02's
    /// `addLiquidity`, a Balancer pool's `EXACT_TOKENS_IN_FOR_BPT_OUT`
    /// join).
    MultiDeposit {
        /// Input tokens, each a coin of the pool.
        tokens_in: Vec<Address>,
        /// One amount per input token.
        amounts_in: Vec<Amount>,
        /// The position token, when named.
        token_out: Option<Address>,
        /// The pool, or its LP token (or the Router02 or the Vault through
        /// which it is entered, the position then named by its token).
        primary: Address,
        /// Receiver of the position token.
        receiver: Option<Address>,
    },
    /// `<protocol> depositclmm`: a concentrated-liquidity position over
    /// `ticks` in the pool of the two tokens and `fee`, minted through the
    /// protocol's `NonfungiblePositionManager` (an ERC-721 to the
    /// receiver); what the pool does not take goes back.
    DepositClmm {
        /// The pool's two tokens, in any order.
        tokens_in: Vec<Address>,
        /// One amount per input token.
        amounts_in: Vec<Amount>,
        /// The position manager (the position token).
        token_out: Address,
        /// Lower and upper tick.
        ticks: (i32, i32),
        /// The pool's fee (hundredths of a bip), when named.
        fee: Option<u32>,
        /// The pool's tick spacing, when named (checked).
        tick_spacing: Option<i32>,
        /// Receiver of the position (default: the bundle's beneficiary).
        receiver: Option<Address>,
    },
    /// `<protocol> redeemclmm`: `liquidity` out of the user's
    /// concentrated-liquidity position `token_id` (a token of `manager`,
    /// the protocol's `NonfungiblePositionManager`): `decreaseLiquidity`,
    /// then `collect` of exactly what that burn owes (fees the position
    /// had earned stay owed to it), and the position token back to its
    /// owner. The position's range is read from the chain
    /// ([`BundleRequest::positions`]).
    RedeemClmm {
        /// The position manager.
        manager: Address,
        /// The position's token id.
        token_id: U256,
        /// Liquidity to remove.
        liquidity: Amount,
        /// The pool's two tokens, in the order the outputs are wanted.
        tokens_out: Vec<Address>,
        /// Receiver of both tokens (default: the bundle's beneficiary).
        receiver: Option<Address>,
    },
    /// `<protocol> flashloan`: borrow `loans` from the protocol (an Aave
    /// V3 pool, one token; a Uniswap V3 pool, either coin or both) through
    /// Enso's flash-loan router adapter, run `callback` (its own action
    /// list, with its own output indexes) in the router's executor with the
    /// loan, and pay back the loan and its fee from what the executor then
    /// holds.
    Flashloan {
        /// Each token borrowed, with the amount.
        loans: Vec<(Address, U256)>,
        /// What the caller brings besides (pulled in with the bundle's
        /// inputs).
        tokens_in: Vec<Address>,
        /// One amount per `tokens_in`.
        amounts_in: Vec<Amount>,
        /// The tokens the account holds after the loan is repaid: the
        /// action's outputs, in this order.
        tokens_out: Vec<Address>,
        /// The lender, when named (the protocol's pool).
        primary: Option<Address>,
        /// Receiver of `tokens_out` (default: they stay in the account).
        receiver: Option<Address>,
        /// The actions run with the loan.
        callback: Vec<Action>,
    },
    /// `<protocol> multiredeem` (and `tokenizedmultiredeem`): a position
    /// into several tokens at once, every coin in proportion (a tokenized
    /// Curve pool's `remove_liquidity`, a Uniswap V2 pair through
    /// Router02's `removeLiquidity`, a Balancer pool's
    /// `EXACT_BPT_IN_FOR_TOKENS_OUT` exit).
    MultiRedeem {
        /// The position token, when named.
        token_in: Option<Address>,
        /// The tokens received: every coin of the pool, in any order.
        tokens_out: Vec<Address>,
        /// Amount of the position token.
        amount_in: Amount,
        /// The pool, or its LP token (or the Router02 or the Vault through
        /// which it is entered, the position then named by its token).
        primary: Address,
        /// Receiver of the outputs.
        receiver: Option<Address>,
    },
    /// `<protocol> withdraw` (and `singlewithdraw`): take `amount_out` of
    /// `token_out` out of a non-tokenized position at `primary` (a Curve
    /// gauge: its staked LP token, 1:1 for the gauge tokens burned).
    Withdraw {
        /// The token withdrawn.
        token_out: Address,
        /// Amount withdrawn.
        amount_out: Amount,
        /// The position's contract.
        primary: Address,
        /// Receiver of the withdrawn tokens.
        receiver: Option<Address>,
    },
    /// `<protocol> borrow`.
    Borrow {
        /// Token borrowed.
        token_out: Address,
        /// Amount borrowed.
        amount_out: Amount,
        /// The lending pool (Aave) or market (Compound cToken).
        primary: Address,
        /// Receiver of the borrowed tokens.
        receiver: Option<Address>,
        /// Collateral markets to enter first (Compound: cTokens, or their
        /// underlying tokens); Aave uses every supplied asset anyway.
        collateral: Vec<Address>,
    },
    /// `<protocol> repay`.
    Repay {
        /// Token repaid.
        token_in: Address,
        /// Amount repaid.
        amount_in: Amount,
        /// The lending pool or market.
        primary: Address,
    },
    /// `<protocol> harvest`: claim rewards of `primary` (a gauge).
    Harvest {
        /// The reward token expected.
        token: Address,
        /// The gauge.
        primary: Address,
    },
    /// `erc20 approve`.
    Approve {
        /// Token.
        token: Address,
        /// Spender.
        spender: Address,
        /// Allowance.
        amount: Amount,
    },
    /// `transfer`.
    Transfer {
        /// Token (the native coin too).
        token: Address,
        /// Amount.
        amount: Amount,
        /// Receiver.
        receiver: Address,
    },
    /// `transferfrom`: pull from `sender`, who approved the account.
    TransferFrom {
        /// Token.
        token: Address,
        /// Owner of the tokens.
        sender: Address,
        /// Receiver (default: the account).
        receiver: Address,
        /// Amount.
        amount: Amount,
    },
    /// `erc20 permittransferfrom`: pull from `sender` through Permit2 on
    /// its signature (`sender` approved Permit2, and signed a
    /// `PermitTransferFrom` naming the account as spender, or a
    /// `PermitBatchTransferFrom` for several tokens).
    PermitTransferFrom {
        /// Each token, with the amount permitted and moved.
        permitted: Vec<(Address, U256)>,
        /// Owner of the tokens, the signer.
        sender: Address,
        /// Receiver (default: the account).
        receiver: Address,
        /// The permit's unordered nonce.
        nonce: U256,
        /// The permit's deadline, unix seconds.
        deadline: U256,
        /// The owner's signature (65 bytes, 64 bytes EIP-2098, or what the
        /// owner's contract checks under EIP-1271).
        signature: alloy_primitives::Bytes,
    },
    /// `enso split`: one input routed into several outputs in equal shares.
    Split {
        /// Input token.
        token_in: Address,
        /// Output tokens.
        tokens_out: Vec<Address>,
        /// Input amount.
        amount_in: Amount,
        /// Receiver of the outputs.
        receiver: Option<Address>,
    },
    /// `enso merge`: several inputs routed into one output.
    Merge {
        /// Input tokens.
        tokens_in: Vec<Address>,
        /// Output token.
        token_out: Address,
        /// Input amounts.
        amounts_in: Vec<Amount>,
        /// Receiver of the output.
        receiver: Option<Address>,
    },
    /// `enso balance`: a balance read at this point of the program.
    Balance {
        /// Token.
        token: Address,
        /// Whose (default: the account).
        account: Option<Address>,
        /// What the caller expects it to be (to plan later actions).
        estimate: Option<U256>,
    },
    /// `enso minamountout`: reverts when `amount_out < min_amount_out`.
    MinAmountOut {
        /// The amount checked.
        amount_out: Amount,
        /// Its minimum.
        min_amount_out: Amount,
    },
    /// `enso slippage`: reverts when `amount_out` falls more than `bps`
    /// below its predicted value.
    Slippage {
        /// Allowance, bps.
        bps: u32,
        /// The amount checked.
        amount_out: Amount,
    },
    /// `enso fee`: sends `bps` of `amount` to `receiver`; outputs the rest.
    Fee {
        /// Token.
        token: Address,
        /// Amount the fee is taken from.
        amount: Amount,
        /// Fee, bps.
        bps: u32,
        /// Fee receiver.
        receiver: Address,
    },
    /// `call`: any contract function, from its human-readable signature.
    Call {
        /// Contract.
        address: Address,
        /// Function name.
        method: String,
        /// `function name(type,…) …`.
        abi: String,
        /// Arguments.
        args: Vec<CallArg>,
        /// Native value sent.
        value: Option<Amount>,
    },
    /// `<bridge> bridge`, with a destination-chain callback bundle.
    Bridge {
        /// Token sent.
        token_in: Address,
        /// Amount sent.
        amount_in: Amount,
        /// The bridge's contract.
        primary: Address,
        /// Destination chain.
        destination_chain: ChainId,
        /// Receiver on the destination chain.
        receiver: Address,
        /// Actions run on the destination chain with what arrives.
        callback: Vec<Action>,
        /// The destination's native coin the callback is run with, beside
        /// what arrives (`callbackValue`; zero for none).
        callback_value: U256,
    },
    /// `math` / `helpers` comparisons.
    Binary {
        /// Operation.
        op: BinaryOp,
        /// First operand.
        a: Amount,
        /// Second operand.
        b: Amount,
    },
    /// `helpers not`.
    Not(Condition),
    /// `helpers check`: reverts when false.
    Check(Condition),
    /// `helpers toggle`: `a` when the condition holds, else `b`.
    Toggle {
        /// Condition.
        condition: Condition,
        /// When true.
        a: Amount,
        /// When false.
        b: Amount,
    },
}

/// One action with its protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// Protocol slug.
    pub protocol: String,
    /// What it does.
    pub kind: ActionKind,
}

/// A bundle request, already parsed by the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRequest {
    /// Chain.
    pub chain: ChainId,
    /// Sender.
    pub from: Address,
    /// Routing strategy.
    pub strategy: RoutingStrategy,
    /// Receiver of what the bundle leaves (shared executor: swept to it;
    /// default the sender).
    pub receiver: Option<Address>,
    /// Owner of the inputs for delegate strategies.
    pub spender: Option<Address>,
    /// Receiver of leftovers (shared executor).
    pub refund_receiver: Option<Address>,
    /// Sources to leave out of every route.
    pub ignore_aggregators: Vec<String>,
    /// Answer without `gas` and `amountsOut` (the transaction is still
    /// executed before it is returned).
    pub skip_quote: bool,
    /// Referral code.
    pub referral_code: Option<String>,
    /// The API key's account id.
    pub account_id: String,
    /// The actions.
    pub actions: Vec<Action>,
    /// The positions the `redeemclmm` actions name, as the chain's node
    /// holds them at the snapshot's block (read by the engine before
    /// compiling; [`BundleRequest::positions_to_read`]).
    pub positions: Vec<PositionRead>,
    /// `executionMode=backend`: an `ensowallet-v2` bundle runs in the
    /// sender's ERC-4337 account, as a user operation ([`crate::account`]).
    pub backend: bool,
    /// The operator's backend signer (configuration; the engine sets it).
    pub backend_signer: Option<Address>,
    /// The sender's ERC-4337 account as the chain's node holds it (the
    /// engine reads it where a node follows the chain).
    pub account_read: Option<crate::account::AccountRead>,
    /// What the entry point takes in before the actions run, besides what
    /// they spend: a callback on arrival's bridged token, which the
    /// composer passes to the router and the callback's first `balance`
    /// action reads.
    pub arriving: Vec<(Address, U256)>,
}

/// A position a `redeemclmm` names, read from the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionRead {
    /// The position manager.
    pub manager: Address,
    /// The token id.
    pub token_id: U256,
    /// The position, or why the chain could not say.
    pub read: Result<crate::evm::clmm::HeldPosition, String>,
}

impl BundleRequest {
    /// `actions` on `chain`, sent by `from` through `strategy`, every other
    /// option at the API's default: the sender receives and is refunded,
    /// nothing left out, quoted, no referral code.
    pub fn new(
        chain: ChainId,
        from: Address,
        strategy: RoutingStrategy,
        account_id: impl Into<String>,
        actions: Vec<Action>,
    ) -> Self {
        Self {
            chain,
            from,
            strategy,
            receiver: None,
            spender: None,
            refund_receiver: None,
            ignore_aggregators: Vec::new(),
            skip_quote: false,
            referral_code: None,
            account_id: account_id.into(),
            actions,
            positions: Vec::new(),
            backend: false,
            backend_signer: None,
            account_read: None,
            arriving: Vec::new(),
        }
    }

    /// The positions (manager, token id) this bundle's `redeemclmm`
    /// actions name, each once.
    pub fn positions_to_read(&self) -> Vec<(Address, U256)> {
        let mut out: Vec<(Address, U256)> = self
            .actions
            .iter()
            .filter_map(|a| match &a.kind {
                ActionKind::RedeemClmm { manager, token_id, .. } => Some((*manager, *token_id)),
                _ => None,
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A compiled and executed bundle.
#[derive(Debug, Clone, PartialEq)]
pub struct BundleTx {
    /// The ERC-4337 operation `tx` submits (`executionMode=backend`),
    /// unsigned.
    pub user_op: Option<crate::account::UserOp>,
    /// The program the transaction runs.
    pub program: crate::encode::Program,
    /// The transaction.
    pub tx: Tx,
    /// Gas it used in the simulation.
    pub gas: u64,
    /// What the beneficiaries gained, by token.
    pub amounts_out: BTreeMap<Address, U256>,
    /// Minimums enforced on chain, by output token (the checks on
    /// intermediates are enforced too, and not listed).
    pub min_amounts_out: BTreeMap<Address, U256>,
    /// Fees taken, by token.
    pub fee_amounts: BTreeMap<Address, U256>,
    /// Allowances to grant first.
    pub approvals: Vec<Approval>,
    /// Plans of the route-like actions, in action order.
    pub plans: Vec<Plan>,
    /// The request id of the event.
    pub request_id: B256,
    /// Block of the state it was executed on.
    pub block_number: u64,
    /// Unix seconds after which to fetch it again.
    pub valid_until: u64,
}

/// Why a bundle was refused: the action (path into the body) and field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {message}")]
pub struct BundleError {
    /// What the caller should do (bad request, or valid but unroutable).
    pub code: ApiCode,
    /// Where, as the body's JSON path (`body[2].args.amountIn`).
    pub at: String,
    /// Why.
    pub message: String,
}

impl BundleError {
    /// A bad request at `at`.
    pub fn invalid(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self { code: ApiCode::InvalidParameter, at: at.into(), message: message.into() }
    }

    /// A valid action nothing can satisfy (no route, no liquidity).
    pub fn unroutable(at: impl Into<String>, message: impl Into<String>) -> Self {
        Self { code: ApiCode::BundleUnprocessable, at: at.into(), message: message.into() }
    }
}

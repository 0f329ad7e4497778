//! Errors of the transaction layer: a request that cannot be quoted,
//! encoded, proven or answered as asked.

use switchyard_catalog::ApiCode;

/// Why a quote, a transaction or a bundle was not built.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// A route that pays the native coin to an account delegated to the
    /// legacy delegate, which has no `receive()`: the payment would revert.
    #[error(
        "an account delegated to the legacy delegate (SafeEnsoShortcuts) cannot receive the \
         native coin: it has no receive(); use delegate, or ask for the wrapped token"
    )]
    NativeToLegacyDelegate,
    /// No route, and pools the request could have used are left out
    /// because their feed is stale.
    #[error("the market of chain {chain} is stale")]
    StaleMarket {
        /// Chain.
        chain: switchyard_catalog::ChainId,
    },
    /// The route search refused the request or found no route.
    #[error("route search")]
    Route(#[source] switchyard_kernel::KernelError),
    /// The system could not get randomness for a key or a request id.
    #[error("no randomness available")]
    Random,
    /// An exact output names several inputs or outputs, or another chain.
    #[error("amountOut takes one tokenIn and one tokenOut on one chain")]
    ExactOutShape,
    /// An exact output of or into a token the routers' exact-output
    /// functions cannot deliver exactly.
    #[error(
        "amountOut cannot be delivered exactly with {token} (the native coin, or a rebasing or scaled-balance token): use its wrapped form, or amountIn"
    )]
    ExactOutToken {
        /// The token.
        token: switchyard_catalog::Address,
    },
    /// An exact-output route the deployed routers cannot execute as one
    /// exact-output call per path.
    #[error("amountOut: this route cannot be executed as exact-output router calls ({0})")]
    ExactOutRoute(String),
    /// An input is all fee.
    #[error("amountIn[{index}] is zero after the fee")]
    ZeroAfterFee {
        /// Input index.
        index: usize,
    },
    /// A requested minimum is above what the route delivers.
    #[error("minAmountOut[{index}] is {min}, above the {quoted} the best route delivers")]
    MinAmountOut {
        /// Output index.
        index: usize,
        /// The minimum asked for.
        min: alloy_primitives::U256,
        /// The route's output.
        quoted: alloy_primitives::U256,
    },
    /// The routing strategy has no contracts on the chain.
    #[error("routing strategy {strategy} is not deployed on chain {chain}")]
    StrategyUnavailable {
        /// Strategy.
        strategy: switchyard_catalog::RoutingStrategy,
        /// Chain.
        chain: switchyard_catalog::ChainId,
    },
    /// A cross-chain route needs more than the world can prove: a bridge
    /// whose deployed contracts the world does not run on both chains, or
    /// anything after the crossing on the destination chain. A transaction
    /// could strand the funds, so none is returned.
    #[error(
        "a cross-chain transaction is built only as a CCTP transfer of USDC to the receiver, or \
         a Stargate taxi (with a program on arrival through Enso's composer), on chain \
         {chain}: no other crossing is proven there"
    )]
    BridgeUnavailable {
        /// The destination chain.
        chain: switchyard_catalog::ChainId,
    },
    /// More than one message of a bridge may carry (CCTP's per-message
    /// burn limit).
    #[error("{amount} is more than one {bridge} message carries (at most {limit})")]
    BridgeLimit {
        /// The bridge.
        bridge: String,
        /// What the route would send.
        amount: alloy_primitives::U256,
        /// The most one message carries.
        limit: alloy_primitives::U256,
    },
    /// A non-tokenized position the world holds no fixture for.
    #[error("position {position} cannot be entered here: {why}")]
    PositionUnavailable {
        /// The position's address.
        position: alloy_primitives::Address,
        /// Why.
        why: String,
    },
    /// Non-tokenized positions are entered on the owner's behalf by the
    /// router's executor or the caller's own account, not by a wallet.
    #[error("non-tokenized positions are entered through the router or a delegate strategy")]
    PositionNeedsDelegate,
    /// An IPOR shortcut was refused.
    #[error("ipor")]
    Ipor(#[from] crate::ipor::IporError),
    /// A native input cannot be pulled from a spender.
    #[error("a native-coin input cannot be taken from a spender")]
    SpenderNative,
    /// `executionMode=backend` on a chain where Enso deploys no ERC-4337
    /// accounts.
    #[error(
        "Enso's ERC-4337 accounts (ensowallet-v2 with executionMode=backend) are not deployed on chain {chain}"
    )]
    AccountsUnavailable {
        /// Chain.
        chain: switchyard_catalog::ChainId,
    },
    /// The node following the chain could not say how it holds the
    /// sender's ERC-4337 account.
    #[error(
        "the sender's ERC-4337 account on chain {chain} could not be read from its node: {reason}"
    )]
    AccountUnreadable {
        /// Chain.
        chain: switchyard_catalog::ChainId,
        /// Why.
        reason: String,
    },
    /// The sender's ERC-4337 account trusts another EntryPoint (its owner
    /// changed it): the v0.7 EntryPoint cannot run its operations.
    #[error(
        "the ERC-4337 account {account} trusts the EntryPoint {entry_point}, not v0.7's: its owner changed it"
    )]
    AccountEntryPoint {
        /// The account.
        account: alloy_primitives::Address,
        /// The EntryPoint it trusts.
        entry_point: alloy_primitives::Address,
    },
    /// A native-coin input for an ERC-4337 account that does not hold it:
    /// a user operation carries no value.
    #[error(
        "a native-coin input must already be in the ERC-4337 account (a user operation carries \
         no value): use the wrapped token, or spend the account's own balance (spender = the account)"
    )]
    AccountNative,
    /// A crossing whose bridge charges its message fee in the native coin,
    /// from an ERC-4337 account (a user operation carries no value).
    #[error(
        "a Stargate crossing pays LayerZero's fee in the native coin, which a user operation \
         cannot carry: send it through the router"
    )]
    AccountMessageFee,
    /// The EVM world is missing (no Uniswap bytecode, or it failed to build).
    #[error("transaction simulation unavailable: {0}")]
    SimulatorUnavailable(String),
    /// A transaction could not be encoded.
    #[error("encoding")]
    Encode(#[source] crate::encode::EncodeError),
    /// A transaction the engine built failed in simulation: a bug, never
    /// returned.
    #[error("simulation failed: {0}")]
    SimulationFailed(String),
    /// An input amount is more of the token than can exist.
    #[error("{amount} of {token} is more than can exist")]
    Unfundable {
        /// The token.
        token: alloy_primitives::Address,
        /// The amount.
        amount: alloy_primitives::U256,
    },
    /// An approval was refused.
    #[error("approval")]
    Approve(#[from] crate::wallet::ApproveError),
    /// A bundle was refused: the action and why.
    #[error("bundle")]
    Bundle(#[from] crate::bundle::BundleError),
    /// A simulated output differs from the quote: a bug, never returned.
    #[error("simulated output {index} differs from the quote")]
    SimulationMismatch {
        /// Output index.
        index: usize,
    },
}

impl ExecError {
    /// What the API answers: every variant, and every nested error,
    /// exhaustively.
    pub const fn code(&self) -> ApiCode {
        match self {
            Self::StaleMarket { .. } => ApiCode::StaleMarket,
            Self::Route(e) => e.code(),
            Self::ZeroAfterFee { .. }
            | Self::ExactOutShape
            | Self::ExactOutToken { .. }
            | Self::SpenderNative
            | Self::AccountNative
            | Self::AccountMessageFee
            | Self::AccountsUnavailable { .. }
            | Self::AccountEntryPoint { .. }
            | Self::StrategyUnavailable { .. }
            | Self::PositionNeedsDelegate
            | Self::NativeToLegacyDelegate => ApiCode::InvalidParameter,
            Self::MinAmountOut { .. } => ApiCode::MinAmountOut,
            Self::ExactOutRoute(_) => ApiCode::NoRoute,
            Self::BridgeUnavailable { .. } => ApiCode::BridgeUnavailable,
            Self::PositionUnavailable { .. } => ApiCode::PositionUnavailable,
            Self::AccountUnreadable { .. } => ApiCode::Unavailable,
            Self::Unfundable { .. } | Self::BridgeLimit { .. } => ApiCode::AmountTooLarge,
            Self::Ipor(e) => e.code(),
            Self::Bundle(e) => e.code,
            Self::Approve(e) => e.code(),
            Self::Encode(e) => e.code(),
            Self::SimulatorUnavailable(_) => ApiCode::SimulatorUnavailable,
            Self::SimulationFailed(_) | Self::SimulationMismatch { .. } | Self::Random => {
                ApiCode::Internal
            }
        }
    }
}

impl From<crate::encode::guard::GuardError> for ExecError {
    /// A program or transaction the guard refuses: an encoder defect.
    fn from(e: crate::encode::guard::GuardError) -> Self {
        Self::Encode(crate::encode::EncodeError::Guard(e))
    }
}

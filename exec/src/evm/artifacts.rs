//! The contract bytecode the EVM runs.
//!
//! Our own contracts (`contracts/src/*.sol`) are compiled once by
//! `contracts/build.mjs` (solc 0.8.37, `evmVersion: cancun`) and committed
//! under `contracts/artifacts/`; they are compiled into this crate with
//! `include_str!`, so building needs neither npm nor a compiler.
//!
//! The published protocols' contracts are not ours and not committed: they
//! are the official npm packages' bytecode (Uniswap V2/V3 and their
//! periphery, whose init code hashes are mainnet's; Balancer V2; Aave V3,
//! whose `Pool` links its logic libraries at deployment), which
//! `scripts/setup.sh` installs under `contracts/node_modules` and
//! [`NpmArtifacts::load`] reads at run time. Without them the engine still
//! quotes, but cannot build the EVM world that proves its transactions.

use std::{
    path::{Path, PathBuf},
    sync::OnceLock,
};

use alloy_primitives::Bytes;
use serde::Deserialize;

use super::EvmError;

/// A contract the EVM can deploy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Artifact {
    /// `TestERC20.sol`: ERC-20 with public mint and burn; constructor
    /// `(string name, string symbol, uint8 decimals)`.
    TestErc20,
    /// `V3Swapper.sol`: mints and swaps through Uniswap V3 pools from its own
    /// balance; no constructor arguments.
    V3Swapper,
    /// `ReferenceVault.sol`: ERC-4626 with solmate rounding; constructor
    /// `(address asset, string name, string symbol, uint8 decimals)`.
    ReferenceVault,
    /// `ReferenceWETH.sol`: WETH9 interface; constructor `(string, string)`.
    ReferenceWeth,
    /// `ShortcutsExecutor.sol`: the router's executor; no arguments.
    ShortcutsExecutor,
    /// `ShortcutsDelegate.sol`: the `delegate` strategy's account code.
    ShortcutsDelegate,
    /// `LegacyShortcutsDelegate.sol`: the `delegate-legacy` account code.
    LegacyShortcutsDelegate,
    /// `ShortcutsRouter.sol`: constructor `(address executor)`.
    ShortcutsRouter,
    /// `LegacyShortcutsRouter.sol`: constructor `(address executor)`.
    LegacyShortcutsRouter,
    /// `SmartWallet.sol`: the `ensowallet-v2` wallet implementation.
    SmartWallet,
    /// `WalletFactory.sol`: constructor `(address implementation)`.
    WalletFactory,
    /// `ReceiverAccount.sol`: Enso's ERC-4337 account (`EnsoReceiver`)
    /// implementation; no constructor arguments.
    ReceiverAccount,
    /// `AccountFactory.sol`: the accounts' factory (`ERC4337CloneFactory`);
    /// constructor `(address implementation, address entryPoint)`.
    AccountFactory,
    /// `ComposeReceiver.sol`: Enso's `LayerZeroReceiver`, the composer a
    /// Stargate transfer names; constructor `(address endpoint, address
    /// router, address owner)`.
    ComposeReceiver,
    /// `ReferenceStableSwap.sol`: a Curve plain pool.
    ReferenceStableSwap,
    /// `ReferenceStableSwapLp.sol`: a tokenized Curve plain pool of 2 coins
    /// (the constructor of `ReferenceStableSwap` and its LP token).
    ReferenceStableSwap2,
    /// The same, 3 coins.
    ReferenceStableSwap3,
    /// The same, 4 coins.
    ReferenceStableSwap4,
    /// `ReferenceCurveToken.sol`: a Curve LP token, minted and burnt by its
    /// pool; constructor `(name, symbol, decimals, minter)`.
    ReferenceCurveToken,
    /// `ReferenceBalancerVault.sol`: the Balancer V2 Vault's swap path.
    ReferenceBalancerVault,
    /// `ReferenceCToken.sol`: a Compound V2 cToken.
    ReferenceCToken,
    /// `ReferenceComet.sol`: a Compound III market's base side.
    ReferenceComet,
    /// `ReferenceStETH.sol`: Lido's stETH over shares.
    ReferenceStETH,
    /// `ReferenceWstETH.sol`: Lido's wstETH.
    ReferenceWstETH,
    /// `ReferenceV2Pair.sol`: a V2 pair with a fee in bps.
    ReferenceV2Pair,
    /// `ReferenceComptroller.sol`: Compound V2's comptroller and oracle.
    ReferenceComptroller,
    /// `ReferencePermit2.sol`: Permit2's signature transfers, no
    /// constructor arguments; placed at Permit2's address.
    ReferencePermit2,
    /// `ReferenceFiatToken.sol`: USDC with FiatToken's minter interface
    /// (`ReferenceERC20`'s storage); constructor `(string, string, uint8,
    /// address minter, uint256 allowance)`.
    ReferenceFiatToken,
    /// `ReferenceCctpV2.sol`: CCTP V2's `MessageTransmitterV2`; constructor
    /// `(uint32 localDomain, uint32 version, address[] attesters, uint256
    /// signatureThreshold, uint256 maxMessageBodySize)`.
    ReferenceMessageTransmitterV2,
    /// `ReferenceCctpV2.sol`: CCTP V2's `TokenMessengerV2`; constructor
    /// `(address transmitter, uint32 bodyVersion, address minter, address
    /// feeRecipient, uint32[] domains, bytes32[] messengers)`.
    ReferenceTokenMessengerV2,
    /// `ReferenceCctpV2.sol`: CCTP V2's `TokenMinterV2`; constructor
    /// `(address messenger, address token, uint256 burnLimit, uint32[]
    /// domains, bytes32[] remoteTokens)`.
    ReferenceTokenMinterV2,
    /// `ReferenceCurveGauge.sol`: constructor `(address lpToken, address
    /// rewardToken)`.
    ReferenceCurveGauge,
    /// `ReferenceDualVault.sol`: a two-token vault; constructor `(address
    /// tokenA, address tokenB, uint256 priceBInA, string, string)`.
    ReferenceDualVault,
    /// `PoolLens.sol`: never deployed; its initcode, sent as an `eth_call`,
    /// reads many pools' state at one block (the RPC feed's batched load).
    PoolLens,
    /// `StateLens.sol`: never deployed; its initcode, sent as an `eth_call`,
    /// makes many getter calls at one block (the RPC feed's read of the
    /// pools a catalog lists).
    StateLens,
    /// `TransferProbe.sol`: never deployed; its initcode, sent as an
    /// `eth_call`, flash-borrows tokens from their pools to see whether a
    /// transfer moves the amount asked.
    TransferProbe,
    /// `HeldProbe.sol`: never deployed; its runtime code is lent, through
    /// an `eth_call`'s state override set, to accounts holding tokens
    /// without a flash swap (a Curve pool, the Balancer Vault) to see
    /// whether a transfer out of them moves the amount asked.
    HeldProbe,
    /// `TestFeeToken.sol`: a token burning 1% of each transfer (tests only).
    TestFeeToken,
    /// `@uniswap/v2-core@1.0.1` factory (npm); constructor `(address feeToSetter)`.
    UniswapV2Factory,
    /// `@uniswap/v2-core@1.0.1` pair (npm; the factory embeds it).
    UniswapV2Pair,
    /// `@uniswap/v3-core@1.0.1` factory (npm); no constructor arguments. Fee
    /// tiers 500, 3000 and 10000 are enabled at deployment.
    UniswapV3Factory,
    /// `@uniswap/v3-core@1.0.1` pool (npm; the factory embeds it).
    UniswapV3Pool,
    /// `LegacyShortcutsExecutor.sol`: the legacy router's executor, created
    /// by the legacy router's constructor.
    LegacyShortcutsExecutor,
    /// `ReferenceMathHelpers.sol`: Enso's `MathHelpers`.
    ReferenceMathHelpers,
    /// `ReferenceShortcutsHelpers.sol`: Enso's `EnsoShortcutsHelpers` v3.
    ReferenceShortcutsHelpers,
    /// `ReferenceERC20.sol`: a plain ERC-20 token (the interface only);
    /// constructor `(string name, string symbol, uint8 decimals)`.
    ReferenceErc20,
    /// `ReferencePercentageMathHelpers.sol`: Enso's `PercentageMathHelpers`.
    ReferencePercentageMathHelpers,
    /// `ReferenceBalancerHelpers.sol`: Enso's `BalancerHelpers` (VERSION 2).
    ReferenceBalancerHelpers,
    /// `OpenZeppelinVault.sol`: `@openzeppelin/contracts@5.7.0`'s `ERC4626`;
    /// constructor `(address asset, string name, string symbol, uint8
    /// decimalsOffset)`.
    OpenZeppelinVault,
    /// `ReferenceShortcutsHelpers.sol`: Enso's `EnsoShortcutsHelpers` v2
    /// (no `check`).
    ReferenceShortcutsHelpersV2,
    /// `ReferenceV2Router.sol`: a V2 fork's Router02; constructor `(address
    /// factory, address weth, bytes32 initCodeHash, uint256 feeBps)`.
    ReferenceV2Router,
    /// `@uniswap/v2-periphery@1.1.0-beta.0` `UniswapV2Router02` (npm);
    /// constructor `(address factory, address WETH)`.
    UniswapV2Router02,
    /// `@uniswap/v3-periphery@1.4.4` `SwapRouter` (npm); constructor
    /// `(address factory, address WETH9)`.
    UniswapV3SwapRouter,
    /// `@uniswap/swap-router-contracts@1.3.1` `SwapRouter02` (npm);
    /// constructor `(address factoryV2, address factoryV3, address
    /// positionManager, address WETH9)`.
    UniswapV3SwapRouter02,
    /// `@uniswap/v3-periphery@1.4.4` `NonfungiblePositionManager` (npm);
    /// constructor `(address factory, address WETH9, address
    /// tokenDescriptor)`.
    UniswapV3PositionManager,
    /// `@balancer-labs/v2-deployments@3.2.0` `20210418-authorizer`
    /// `Authorizer` (npm); constructor `(address admin)`.
    BalancerAuthorizer,
    /// `@balancer-labs/v2-deployments@3.2.0` `20210418-vault` `Vault`
    /// (npm); constructor `(address authorizer, address weth, uint256
    /// pauseWindowDuration, uint256 bufferPeriodDuration)`.
    BalancerVault,
    /// `@balancer-labs/v2-deployments@3.2.0` `20210418-weighted-pool`
    /// `WeightedPool2Tokens` (npm), the 2021 two-token pool; constructor
    /// `(NewPoolParams)`, registering itself with the Vault.
    BalancerWeightedPool2Tokens,
    /// `@balancer-labs/v2-deployments@3.2.0`
    /// `20220725-protocol-fee-percentages-provider`
    /// `ProtocolFeePercentagesProvider` (npm), which later pools read their
    /// protocol fees from; constructor `(address vault, uint256
    /// maxYieldValue, uint256 maxAUMValue)`.
    BalancerProtocolFeeProvider,
    /// `@balancer-labs/v2-deployments@3.2.0` `20230206-weighted-pool-v3`
    /// `WeightedPool` (npm), 2 to 8 tokens, the current pow rule.
    BalancerWeightedPoolV3,
    /// `ReferencePriceOracle.sol`: Compound V2's price oracle interface.
    ReferencePriceOracle,
    /// `ReferenceFlashloanRouterAdapter.sol`: Enso's flash-loan router
    /// adapter; constructor `(address[] lenders, uint8[] protocols, address
    /// router, address owner)`.
    ReferenceFlashloanRouterAdapter,
    /// `ReferencePriceFeed.sol`: a Chainlink price feed's read interface;
    /// constructor `(int256 answer, uint8 decimals)`.
    ReferencePriceFeed,
    /// `@aave/core-v3@1.19.3` `PoolAddressesProvider` (npm); constructor
    /// `(string marketId, address owner)`.
    AaveAddressesProvider,
    /// `@aave/core-v3@1.19.3` `Pool` (npm), linked with the logic
    /// libraries; constructor `(address provider)`.
    AavePool,
    /// `@aave/core-v3@1.19.3` `AToken` (npm); constructor `(address pool)`.
    AaveAToken,
    /// `@aave/core-v3@1.19.3` `VariableDebtToken` (npm); constructor
    /// `(address pool)`.
    AaveVariableDebtToken,
    /// `@aave/core-v3@1.19.3` `StableDebtToken` (npm); constructor
    /// `(address pool)`.
    AaveStableDebtToken,
    /// `@aave/core-v3@1.19.3` `DefaultReserveInterestRateStrategy` (npm).
    AaveRateStrategy,
    /// `@aave/core-v3@1.19.3` `AaveOracle` (npm); constructor `(provider,
    /// assets, sources, fallbackOracle, baseCurrency, baseCurrencyUnit)`.
    AaveOracle,
    /// `@aave/core-v3@1.19.3` logic library `BorrowLogic` (npm).
    AaveBorrowLogic,
    /// `@aave/core-v3@1.19.3` logic library `BridgeLogic` (npm).
    AaveBridgeLogic,
    /// `@aave/core-v3@1.19.3` logic library `EModeLogic` (npm).
    AaveEModeLogic,
    /// `@aave/core-v3@1.19.3` logic library `FlashLoanLogic` (npm), linked
    /// with `BorrowLogic`.
    AaveFlashLoanLogic,
    /// `@aave/core-v3@1.19.3` logic library `LiquidationLogic` (npm).
    AaveLiquidationLogic,
    /// `@aave/core-v3@1.19.3` logic library `PoolLogic` (npm).
    AavePoolLogic,
    /// `@aave/core-v3@1.19.3` logic library `SupplyLogic` (npm).
    AaveSupplyLogic,
    /// `@account-abstraction/contracts@0.7.0` `EntryPoint` (npm), ERC-4337
    /// v0.7's; its constructor creates its `SenderCreator`.
    EntryPoint,
    /// `@account-abstraction/contracts@0.7.0` `SenderCreator` (npm).
    SenderCreator,
    /// `@account-abstraction/contracts@0.7.0` `EntryPointSimulations`
    /// (npm): the EntryPoint with `simulateHandleOp`, which bundlers place
    /// over the EntryPoint's code to simulate a user operation.
    EntryPointSimulations,
    /// `@layerzerolabs/lz-evm-protocol-v2@3.0.168` `EndpointV2` (npm);
    /// constructor `(uint32 eid, address owner)`.
    LzEndpointV2,
    /// `@layerzerolabs/lz-evm-protocol-v2@3.0.168` `SimpleMessageLib`
    /// (npm): LayerZero's send-and-receive library of a fixed fee, whose
    /// `validatePacket` verifies a packet on the endpoint; constructor
    /// `(address endpoint, address treasury)`.
    LzSimpleMessageLib,
    /// `@stargatefinance/stg-evm-v2@2.0.6` `StargatePoolUSDC` (npm).
    StargatePoolUsdc,
    /// `@stargatefinance/stg-evm-v2@2.0.6` `StargatePool` (npm).
    StargatePool,
    /// `@stargatefinance/stg-evm-v2@2.0.6` `StargatePoolMigratable` (npm):
    /// the USDT pools.
    StargatePoolMigratable,
    /// `@stargatefinance/stg-evm-v2@2.0.6` `StargatePoolNative` (npm).
    StargatePoolNative,
    /// `@stargatefinance/stg-evm-v2@2.0.6` `TokenMessaging` (npm): the
    /// creation code of its mainnet deployment record (the package's
    /// artifact adds a queue-capacity check the deployed one lacks).
    StargateTokenMessaging,
    /// `@stargatefinance/stg-evm-v2@2.0.6` `FeeLibV1` (npm).
    StargateFeeLib,
    /// `@morpho-org/morpho-blue@1.0.0` `Morpho` (npm source, compiled as
    /// deployed by `contracts/published.mjs`); constructor
    /// `(address newOwner)`.
    MorphoBlue,
}

/// The 4-byte selectors of a contract's external functions.
pub type Selectors = std::collections::BTreeSet<[u8; 4]>;

/// The selectors of the functions of an ABI (its JSON array), but those
/// named in `except`.
fn abi_selectors(abi: &[serde_json::Value], except: &[&str]) -> Selectors {
    fn canonical(param: &serde_json::Value) -> String {
        let ty = param["type"].as_str().unwrap_or_default();
        match ty.strip_prefix("tuple") {
            Some(suffix) => {
                let members = param["components"].as_array().map_or(&[][..], Vec::as_slice);
                let inner: Vec<String> = members.iter().map(canonical).collect();
                format!("({}){suffix}", inner.join(","))
            }
            None => ty.to_owned(),
        }
    }
    abi.iter()
        .filter(|item| item["type"] == "function")
        .filter(|item| !except.iter().any(|name| item["name"] == *name))
        .map(|item| {
            let inputs = item["inputs"].as_array().map_or(&[][..], Vec::as_slice);
            let args: Vec<String> = inputs.iter().map(canonical).collect();
            let signature =
                format!("{}({})", item["name"].as_str().unwrap_or_default(), args.join(","));
            let hash = alloy_primitives::keccak256(signature.as_bytes());
            [hash[0], hash[1], hash[2], hash[3]]
        })
        .collect()
}

/// The part of an artifact file the EVM needs.
#[derive(Deserialize)]
struct ArtifactFile {
    /// Initcode, hex, with or without `0x`.
    bytecode: String,
    /// The ABI.
    #[serde(default)]
    abi: Vec<serde_json::Value>,
    /// State variable → storage slot (our own contracts only).
    #[serde(default)]
    storage: std::collections::BTreeMap<String, u64>,
}

impl Artifact {
    /// Every artifact.
    pub const ALL: [Self; 89] = [
        Self::TestErc20,
        Self::V3Swapper,
        Self::ReferenceVault,
        Self::ReferenceWeth,
        Self::ShortcutsExecutor,
        Self::ShortcutsDelegate,
        Self::LegacyShortcutsDelegate,
        Self::ShortcutsRouter,
        Self::LegacyShortcutsRouter,
        Self::SmartWallet,
        Self::WalletFactory,
        Self::ReceiverAccount,
        Self::AccountFactory,
        Self::ComposeReceiver,
        Self::ReferenceStableSwap,
        Self::ReferenceStableSwap2,
        Self::ReferenceStableSwap3,
        Self::ReferenceStableSwap4,
        Self::ReferenceCurveToken,
        Self::ReferenceBalancerVault,
        Self::ReferenceCToken,
        Self::ReferenceComet,
        Self::ReferenceStETH,
        Self::ReferenceWstETH,
        Self::ReferenceV2Pair,
        Self::ReferenceComptroller,
        Self::ReferenceCurveGauge,
        Self::ReferencePermit2,
        Self::ReferenceFiatToken,
        Self::ReferenceMessageTransmitterV2,
        Self::ReferenceTokenMessengerV2,
        Self::ReferenceTokenMinterV2,
        Self::ReferenceDualVault,
        Self::PoolLens,
        Self::StateLens,
        Self::TransferProbe,
        Self::HeldProbe,
        Self::TestFeeToken,
        Self::UniswapV2Factory,
        Self::UniswapV2Pair,
        Self::UniswapV3Factory,
        Self::UniswapV3Pool,
        Self::LegacyShortcutsExecutor,
        Self::ReferenceMathHelpers,
        Self::ReferenceShortcutsHelpers,
        Self::ReferenceShortcutsHelpersV2,
        Self::ReferenceErc20,
        Self::ReferencePercentageMathHelpers,
        Self::ReferenceBalancerHelpers,
        Self::OpenZeppelinVault,
        Self::ReferenceV2Router,
        Self::UniswapV2Router02,
        Self::UniswapV3SwapRouter,
        Self::UniswapV3SwapRouter02,
        Self::UniswapV3PositionManager,
        Self::BalancerAuthorizer,
        Self::BalancerVault,
        Self::BalancerWeightedPool2Tokens,
        Self::BalancerProtocolFeeProvider,
        Self::BalancerWeightedPoolV3,
        Self::ReferencePriceFeed,
        Self::ReferencePriceOracle,
        Self::ReferenceFlashloanRouterAdapter,
        Self::AaveAddressesProvider,
        Self::AavePool,
        Self::AaveAToken,
        Self::AaveVariableDebtToken,
        Self::AaveStableDebtToken,
        Self::AaveRateStrategy,
        Self::AaveOracle,
        Self::AaveBorrowLogic,
        Self::AaveBridgeLogic,
        Self::AaveEModeLogic,
        Self::AaveFlashLoanLogic,
        Self::AaveLiquidationLogic,
        Self::AavePoolLogic,
        Self::AaveSupplyLogic,
        Self::EntryPoint,
        Self::SenderCreator,
        Self::EntryPointSimulations,
        Self::LzEndpointV2,
        Self::LzSimpleMessageLib,
        Self::StargatePoolUsdc,
        Self::StargatePool,
        Self::StargatePoolMigratable,
        Self::StargatePoolNative,
        Self::StargateTokenMessaging,
        Self::StargateFeeLib,
        Self::MorphoBlue,
    ];

    /// The contract's name (its file name under `contracts/artifacts/`, or
    /// in its npm package).
    pub const fn name(self) -> &'static str {
        match self {
            Self::TestErc20 => "TestERC20",
            Self::V3Swapper => "V3Swapper",
            Self::ReferenceVault => "ReferenceVault",
            Self::ReferenceWeth => "ReferenceWETH",
            Self::ShortcutsExecutor => "ShortcutsExecutor",
            Self::ShortcutsDelegate => "ShortcutsDelegate",
            Self::LegacyShortcutsDelegate => "LegacyShortcutsDelegate",
            Self::ShortcutsRouter => "ShortcutsRouter",
            Self::LegacyShortcutsRouter => "LegacyShortcutsRouter",
            Self::SmartWallet => "SmartWallet",
            Self::WalletFactory => "WalletFactory",
            Self::ReceiverAccount => "ReceiverAccount",
            Self::AccountFactory => "AccountFactory",
            Self::ReferenceStableSwap => "ReferenceStableSwap",
            Self::ReferenceStableSwap2 => "ReferenceStableSwap2",
            Self::ReferenceStableSwap3 => "ReferenceStableSwap3",
            Self::ReferenceStableSwap4 => "ReferenceStableSwap4",
            Self::ReferenceCurveToken => "ReferenceCurveToken",
            Self::ReferenceBalancerVault => "ReferenceBalancerVault",
            Self::ReferenceCToken => "ReferenceCToken",
            Self::ReferenceComet => "ReferenceComet",
            Self::ReferenceStETH => "ReferenceStETH",
            Self::ReferenceWstETH => "ReferenceWstETH",
            Self::ReferenceV2Pair => "ReferenceV2Pair",
            Self::ReferenceComptroller => "ReferenceComptroller",
            Self::ReferenceCurveGauge => "ReferenceCurveGauge",
            Self::ReferencePermit2 => "ReferencePermit2",
            Self::ReferenceFiatToken => "ReferenceFiatToken",
            Self::ReferenceMessageTransmitterV2 => "ReferenceMessageTransmitterV2",
            Self::ReferenceTokenMessengerV2 => "ReferenceTokenMessengerV2",
            Self::ReferenceTokenMinterV2 => "ReferenceTokenMinterV2",
            Self::ReferenceDualVault => "ReferenceDualVault",
            Self::PoolLens => "PoolLens",
            Self::StateLens => "StateLens",
            Self::TransferProbe => "TransferProbe",
            Self::HeldProbe => "HeldProbe",
            Self::TestFeeToken => "TestFeeToken",
            Self::UniswapV2Factory => "UniswapV2Factory",
            Self::UniswapV2Pair => "UniswapV2Pair",
            Self::UniswapV3Factory => "UniswapV3Factory",
            Self::UniswapV3Pool => "UniswapV3Pool",
            Self::LegacyShortcutsExecutor => "LegacyShortcutsExecutor",
            Self::ReferenceMathHelpers => "ReferenceMathHelpers",
            Self::ReferenceShortcutsHelpers => "ReferenceShortcutsHelpers",
            Self::ReferenceShortcutsHelpersV2 => "ReferenceShortcutsHelpersV2",
            Self::ReferenceErc20 => "ReferenceERC20",
            Self::ReferencePercentageMathHelpers => "ReferencePercentageMathHelpers",
            Self::ReferenceBalancerHelpers => "ReferenceBalancerHelpers",
            Self::OpenZeppelinVault => "OpenZeppelinVault",
            Self::ReferenceV2Router => "ReferenceV2Router",
            Self::UniswapV2Router02 => "UniswapV2Router02",
            Self::UniswapV3SwapRouter => "SwapRouter",
            Self::UniswapV3SwapRouter02 => "SwapRouter02",
            Self::UniswapV3PositionManager => "NonfungiblePositionManager",
            Self::BalancerAuthorizer => "Authorizer",
            Self::BalancerVault => "Vault",
            Self::BalancerWeightedPool2Tokens => "WeightedPool2Tokens",
            Self::BalancerProtocolFeeProvider => "ProtocolFeePercentagesProvider",
            Self::BalancerWeightedPoolV3 => "WeightedPool",
            Self::ReferencePriceFeed => "ReferencePriceFeed",
            Self::ReferencePriceOracle => "ReferencePriceOracle",
            Self::ReferenceFlashloanRouterAdapter => "ReferenceFlashloanRouterAdapter",
            Self::AaveAddressesProvider => "PoolAddressesProvider",
            Self::AavePool => "Pool",
            Self::AaveAToken => "AToken",
            Self::AaveVariableDebtToken => "VariableDebtToken",
            Self::AaveStableDebtToken => "StableDebtToken",
            Self::AaveRateStrategy => "DefaultReserveInterestRateStrategy",
            Self::AaveOracle => "AaveOracle",
            Self::AaveBorrowLogic => "BorrowLogic",
            Self::AaveBridgeLogic => "BridgeLogic",
            Self::AaveEModeLogic => "EModeLogic",
            Self::AaveFlashLoanLogic => "FlashLoanLogic",
            Self::AaveLiquidationLogic => "LiquidationLogic",
            Self::AavePoolLogic => "PoolLogic",
            Self::AaveSupplyLogic => "SupplyLogic",
            Self::EntryPoint => "EntryPoint",
            Self::SenderCreator => "SenderCreator",
            Self::EntryPointSimulations => "EntryPointSimulations",
            Self::ComposeReceiver => "ComposeReceiver",
            Self::LzEndpointV2 => "EndpointV2",
            Self::LzSimpleMessageLib => "SimpleMessageLib",
            Self::StargatePoolUsdc => "StargatePoolUSDC",
            Self::StargatePool => "StargatePool",
            Self::StargatePoolMigratable => "StargatePoolMigratable",
            Self::StargatePoolNative => "StargatePoolNative",
            Self::StargateTokenMessaging => "TokenMessaging",
            Self::StargateFeeLib => "FeeLibV1",
            Self::MorphoBlue => "Morpho",
        }
    }

    /// The committed artifact file of our own contracts; `None` for the npm
    /// ones.
    const fn committed(self) -> Option<&'static str> {
        Some(match self {
            Self::TestErc20 => include_str!("../../../contracts/artifacts/TestERC20.json"),
            Self::V3Swapper => include_str!("../../../contracts/artifacts/V3Swapper.json"),
            Self::ReferenceVault => {
                include_str!("../../../contracts/artifacts/ReferenceVault.json")
            }
            Self::ReferenceWeth => include_str!("../../../contracts/artifacts/ReferenceWETH.json"),
            Self::ShortcutsExecutor => {
                include_str!("../../../contracts/artifacts/ShortcutsExecutor.json")
            }
            Self::ShortcutsDelegate => {
                include_str!("../../../contracts/artifacts/ShortcutsDelegate.json")
            }
            Self::LegacyShortcutsDelegate => {
                include_str!("../../../contracts/artifacts/LegacyShortcutsDelegate.json")
            }
            Self::ShortcutsRouter => {
                include_str!("../../../contracts/artifacts/ShortcutsRouter.json")
            }
            Self::LegacyShortcutsRouter => {
                include_str!("../../../contracts/artifacts/LegacyShortcutsRouter.json")
            }
            Self::SmartWallet => include_str!("../../../contracts/artifacts/SmartWallet.json"),
            Self::WalletFactory => include_str!("../../../contracts/artifacts/WalletFactory.json"),
            Self::ComposeReceiver => {
                include_str!("../../../contracts/artifacts/ComposeReceiver.json")
            }
            Self::ReceiverAccount => {
                include_str!("../../../contracts/artifacts/ReceiverAccount.json")
            }
            Self::AccountFactory => {
                include_str!("../../../contracts/artifacts/AccountFactory.json")
            }
            Self::ReferenceStableSwap => {
                include_str!("../../../contracts/artifacts/ReferenceStableSwap.json")
            }
            Self::ReferenceStableSwap2 => {
                include_str!("../../../contracts/artifacts/ReferenceStableSwap2.json")
            }
            Self::ReferenceStableSwap3 => {
                include_str!("../../../contracts/artifacts/ReferenceStableSwap3.json")
            }
            Self::ReferenceStableSwap4 => {
                include_str!("../../../contracts/artifacts/ReferenceStableSwap4.json")
            }
            Self::ReferenceCurveToken => {
                include_str!("../../../contracts/artifacts/ReferenceCurveToken.json")
            }
            Self::ReferenceBalancerVault => {
                include_str!("../../../contracts/artifacts/ReferenceBalancerVault.json")
            }
            Self::ReferenceCToken => {
                include_str!("../../../contracts/artifacts/ReferenceCToken.json")
            }
            Self::ReferenceComet => {
                include_str!("../../../contracts/artifacts/ReferenceComet.json")
            }
            Self::ReferenceStETH => {
                include_str!("../../../contracts/artifacts/ReferenceStETH.json")
            }
            Self::ReferenceWstETH => {
                include_str!("../../../contracts/artifacts/ReferenceWstETH.json")
            }
            Self::ReferenceV2Pair => {
                include_str!("../../../contracts/artifacts/ReferenceV2Pair.json")
            }
            Self::ReferenceComptroller => {
                include_str!("../../../contracts/artifacts/ReferenceComptroller.json")
            }
            Self::ReferencePermit2 => {
                include_str!("../../../contracts/artifacts/ReferencePermit2.json")
            }
            Self::ReferenceFiatToken => {
                include_str!("../../../contracts/artifacts/ReferenceFiatToken.json")
            }
            Self::ReferenceMessageTransmitterV2 => {
                include_str!("../../../contracts/artifacts/ReferenceMessageTransmitterV2.json")
            }
            Self::ReferenceTokenMessengerV2 => {
                include_str!("../../../contracts/artifacts/ReferenceTokenMessengerV2.json")
            }
            Self::ReferenceTokenMinterV2 => {
                include_str!("../../../contracts/artifacts/ReferenceTokenMinterV2.json")
            }
            Self::ReferenceCurveGauge => {
                include_str!("../../../contracts/artifacts/ReferenceCurveGauge.json")
            }
            Self::ReferenceDualVault => {
                include_str!("../../../contracts/artifacts/ReferenceDualVault.json")
            }
            Self::PoolLens => include_str!("../../../contracts/artifacts/PoolLens.json"),
            Self::StateLens => include_str!("../../../contracts/artifacts/StateLens.json"),
            Self::TransferProbe => include_str!("../../../contracts/artifacts/TransferProbe.json"),
            Self::HeldProbe => include_str!("../../../contracts/artifacts/HeldProbe.json"),
            Self::TestFeeToken => include_str!("../../../contracts/artifacts/TestFeeToken.json"),
            Self::LegacyShortcutsExecutor => {
                include_str!("../../../contracts/artifacts/LegacyShortcutsExecutor.json")
            }
            Self::ReferenceMathHelpers => {
                include_str!("../../../contracts/artifacts/ReferenceMathHelpers.json")
            }
            Self::ReferenceShortcutsHelpers => {
                include_str!("../../../contracts/artifacts/ReferenceShortcutsHelpers.json")
            }
            Self::ReferenceShortcutsHelpersV2 => {
                include_str!("../../../contracts/artifacts/ReferenceShortcutsHelpersV2.json")
            }
            Self::ReferenceErc20 => {
                include_str!("../../../contracts/artifacts/ReferenceERC20.json")
            }
            Self::ReferencePercentageMathHelpers => {
                include_str!("../../../contracts/artifacts/ReferencePercentageMathHelpers.json")
            }
            Self::ReferenceBalancerHelpers => {
                include_str!("../../../contracts/artifacts/ReferenceBalancerHelpers.json")
            }
            Self::OpenZeppelinVault => {
                include_str!("../../../contracts/artifacts/OpenZeppelinVault.json")
            }
            Self::ReferenceV2Router => {
                include_str!("../../../contracts/artifacts/ReferenceV2Router.json")
            }
            Self::ReferencePriceFeed => {
                include_str!("../../../contracts/artifacts/ReferencePriceFeed.json")
            }
            Self::ReferencePriceOracle => {
                include_str!("../../../contracts/artifacts/ReferencePriceOracle.json")
            }
            Self::ReferenceFlashloanRouterAdapter => {
                include_str!("../../../contracts/artifacts/ReferenceFlashloanRouterAdapter.json")
            }
            Self::UniswapV2Factory
            | Self::UniswapV2Pair
            | Self::UniswapV3Factory
            | Self::UniswapV3Pool
            | Self::UniswapV2Router02
            | Self::UniswapV3SwapRouter
            | Self::UniswapV3SwapRouter02
            | Self::UniswapV3PositionManager
            | Self::BalancerAuthorizer
            | Self::BalancerVault
            | Self::BalancerWeightedPool2Tokens
            | Self::BalancerProtocolFeeProvider
            | Self::BalancerWeightedPoolV3
            | Self::AaveAddressesProvider
            | Self::AavePool
            | Self::AaveAToken
            | Self::AaveVariableDebtToken
            | Self::AaveStableDebtToken
            | Self::AaveRateStrategy
            | Self::AaveOracle
            | Self::AaveBorrowLogic
            | Self::AaveBridgeLogic
            | Self::AaveEModeLogic
            | Self::AaveFlashLoanLogic
            | Self::AaveLiquidationLogic
            | Self::AavePoolLogic
            | Self::AaveSupplyLogic
            | Self::EntryPoint
            | Self::SenderCreator
            | Self::EntryPointSimulations
            | Self::LzEndpointV2
            | Self::LzSimpleMessageLib
            | Self::StargatePoolUsdc
            | Self::StargatePool
            | Self::StargatePoolMigratable
            | Self::StargatePoolNative
            | Self::StargateTokenMessaging
            | Self::StargateFeeLib
            | Self::MorphoBlue => return None,
        })
    }

    /// The initcode (creation bytecode), without constructor arguments.
    /// The published contracts come from the default npm directory
    /// ([`NpmArtifacts::default_dir`]).
    pub fn initcode(self) -> Result<Bytes, EvmError> {
        match self.own() {
            Some(parsed) => Ok(parsed?.code.clone()),
            None => NpmArtifacts::shared()?.initcode(self),
        }
    }

    /// One of our own (committed) artifacts, parsed once per process: a
    /// world build asks for initcode and storage slots hundreds of times.
    /// `None` for the npm ones.
    fn own(self) -> Option<Result<&'static Own, EvmError>> {
        static PARSED: [OnceLock<Result<Own, String>>; Artifact::ALL.len()] =
            [const { OnceLock::new() }; Artifact::ALL.len()];
        let json = self.committed()?;
        let parsed = PARSED
            .get(self as usize)?
            .get_or_init(|| parse(self, json).map_err(|e| error_chain(&e)));
        Some(
            parsed
                .as_ref()
                .map_err(|e| EvmError::Artifact { name: self.name(), source: e.clone().into() }),
        )
    }

    /// The runtime code the constructor leaves, for a contract without
    /// constructor arguments whose code is lent rather than deployed
    /// ([`Artifact::HeldProbe`]): run once in a scratch EVM.
    pub fn runtime(self) -> Result<Bytes, EvmError> {
        let mut evm = super::Evm::new();
        let at = evm.deploy(alloy_primitives::Address::repeat_byte(0x5a), self.initcode()?)?;
        Ok(evm.code(at))
    }

    /// The storage slot of one of our own contracts' state variables (from
    /// solc's storage layout in the artifact), e.g. the `balanceOf` mapping
    /// whose entries the world writes to fund an account.
    pub fn storage_slot(self, variable: &str) -> Option<u64> {
        self.own()?.ok()?.storage.get(variable).copied()
    }

    /// The selectors of one of our own contracts' functions (its ABI in the
    /// committed artifact); `None` for the npm ones
    /// ([`NpmArtifacts::selectors`]).
    pub fn own_selectors(self) -> Option<Selectors> {
        Some(self.own()?.ok()?.selectors.clone())
    }

    /// Functions a test-only contract has that the contract it stands for
    /// lacks (the test token's `mint`, the reference Balancer Vault's
    /// registration and quote). The world never places these contracts (it
    /// writes state into storage instead, `super::fixtures`), and the
    /// program guard's ABI leaves the functions out all the same.
    pub const fn fixture_functions(self) -> &'static [&'static str] {
        match self {
            Self::TestErc20 => &["mint", "burn"],
            Self::ReferenceBalancerVault => {
                &["deployer", "registerPool", "quoteGivenIn", "getPoolParameters"]
            }
            _ => &[],
        }
    }

    /// The initcode followed by ABI-encoded constructor arguments (from
    /// `SolConstructor::abi_encode`), ready for [`super::Evm::deploy`].
    pub fn initcode_with(self, constructor_args: &[u8]) -> Result<Bytes, EvmError> {
        let mut code = self.initcode()?.to_vec();
        code.extend_from_slice(constructor_args);
        Ok(code.into())
    }
}

/// One of our own artifacts, parsed: its initcode, storage layout and the
/// selectors of its ABI.
#[derive(Debug)]
struct Own {
    code: Bytes,
    storage: std::collections::BTreeMap<String, u64>,
    selectors: Selectors,
}

fn parse(artifact: Artifact, json: &str) -> Result<Own, EvmError> {
    let name = artifact.name();
    let file: ArtifactFile = serde_json::from_str(json)
        .map_err(|source| EvmError::Artifact { name, source: source.into() })?;
    let hex = file.bytecode.trim_start_matches("0x");
    let code = alloy_primitives::hex::decode(hex)
        .map(Bytes::from)
        .map_err(|e| EvmError::Artifact { name, source: e.into() })?;
    let selectors = abi_selectors(&file.abi, artifact.fixture_functions());
    Ok(Own { code, storage: file.storage, selectors })
}

/// The published bytecode of the npm packages (Uniswap, Balancer), read
/// from a `node_modules` directory: each artifact's initcode and the
/// selectors of its ABI.
#[derive(Debug, Clone)]
pub struct NpmArtifacts {
    artifacts: Vec<NpmArtifact>,
    /// The selectors of our own (committed) artifacts, parsed once here.
    own: Vec<(Artifact, std::sync::Arc<Selectors>)>,
}

/// Where each npm artifact lives under `node_modules`. A Balancer
/// `bytecode/<Name>.json` holds only `creationCode`; its ABI is the bare
/// array in the task's `abi/<Name>.json`.
const NPM_FILES: [(Artifact, &str); 39] = [
    (Artifact::UniswapV2Factory, "@uniswap/v2-core/build/UniswapV2Factory.json"),
    (Artifact::UniswapV2Pair, "@uniswap/v2-core/build/UniswapV2Pair.json"),
    (
        Artifact::UniswapV3Factory,
        "@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
    ),
    (
        Artifact::UniswapV3Pool,
        "@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json",
    ),
    (Artifact::UniswapV2Router02, "@uniswap/v2-periphery/build/UniswapV2Router02.json"),
    (
        Artifact::UniswapV3SwapRouter,
        "@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json",
    ),
    (
        Artifact::UniswapV3SwapRouter02,
        "@uniswap/swap-router-contracts/artifacts/contracts/SwapRouter02.sol/SwapRouter02.json",
    ),
    (
        Artifact::UniswapV3PositionManager,
        "@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
    ),
    (
        Artifact::BalancerAuthorizer,
        "@balancer-labs/v2-deployments/dist/tasks/20210418-authorizer/artifact/Authorizer.json",
    ),
    (
        Artifact::BalancerVault,
        "@balancer-labs/v2-deployments/dist/tasks/20210418-vault/artifact/Vault.json",
    ),
    (
        Artifact::BalancerWeightedPool2Tokens,
        "@balancer-labs/v2-deployments/dist/tasks/20210418-weighted-pool/bytecode/WeightedPool2Tokens.json",
    ),
    (
        Artifact::BalancerProtocolFeeProvider,
        "@balancer-labs/v2-deployments/dist/tasks/20220725-protocol-fee-percentages-provider/artifact/ProtocolFeePercentagesProvider.json",
    ),
    (
        Artifact::BalancerWeightedPoolV3,
        "@balancer-labs/v2-deployments/dist/tasks/20230206-weighted-pool-v3/artifact/WeightedPool.json",
    ),
    (
        Artifact::AaveAddressesProvider,
        "@aave/core-v3/artifacts/contracts/protocol/configuration/PoolAddressesProvider.sol/PoolAddressesProvider.json",
    ),
    (Artifact::AavePool, "@aave/core-v3/artifacts/contracts/protocol/pool/Pool.sol/Pool.json"),
    (
        Artifact::AaveAToken,
        "@aave/core-v3/artifacts/contracts/protocol/tokenization/AToken.sol/AToken.json",
    ),
    (
        Artifact::AaveVariableDebtToken,
        "@aave/core-v3/artifacts/contracts/protocol/tokenization/VariableDebtToken.sol/VariableDebtToken.json",
    ),
    (
        Artifact::AaveStableDebtToken,
        "@aave/core-v3/artifacts/contracts/protocol/tokenization/StableDebtToken.sol/StableDebtToken.json",
    ),
    (
        Artifact::AaveRateStrategy,
        "@aave/core-v3/artifacts/contracts/protocol/pool/DefaultReserveInterestRateStrategy.sol/DefaultReserveInterestRateStrategy.json",
    ),
    (Artifact::AaveOracle, "@aave/core-v3/artifacts/contracts/misc/AaveOracle.sol/AaveOracle.json"),
    (
        Artifact::AaveBorrowLogic,
        "@aave/core-v3/artifacts/contracts/protocol/libraries/logic/BorrowLogic.sol/BorrowLogic.json",
    ),
    (
        Artifact::AaveBridgeLogic,
        "@aave/core-v3/artifacts/contracts/protocol/libraries/logic/BridgeLogic.sol/BridgeLogic.json",
    ),
    (
        Artifact::AaveEModeLogic,
        "@aave/core-v3/artifacts/contracts/protocol/libraries/logic/EModeLogic.sol/EModeLogic.json",
    ),
    (
        Artifact::AaveFlashLoanLogic,
        "@aave/core-v3/artifacts/contracts/protocol/libraries/logic/FlashLoanLogic.sol/FlashLoanLogic.json",
    ),
    (
        Artifact::AaveLiquidationLogic,
        "@aave/core-v3/artifacts/contracts/protocol/libraries/logic/LiquidationLogic.sol/LiquidationLogic.json",
    ),
    (
        Artifact::AavePoolLogic,
        "@aave/core-v3/artifacts/contracts/protocol/libraries/logic/PoolLogic.sol/PoolLogic.json",
    ),
    (
        Artifact::AaveSupplyLogic,
        "@aave/core-v3/artifacts/contracts/protocol/libraries/logic/SupplyLogic.sol/SupplyLogic.json",
    ),
    (Artifact::EntryPoint, "@account-abstraction/contracts/artifacts/EntryPoint.json"),
    (Artifact::SenderCreator, "@account-abstraction/contracts/artifacts/SenderCreator.json"),
    (
        Artifact::EntryPointSimulations,
        "@account-abstraction/contracts/artifacts/EntryPointSimulations.json",
    ),
    (
        Artifact::LzEndpointV2,
        "@layerzerolabs/lz-evm-protocol-v2/artifacts/contracts/EndpointV2.sol/EndpointV2.json",
    ),
    (
        Artifact::LzSimpleMessageLib,
        "@layerzerolabs/lz-evm-protocol-v2/artifacts/contracts/messagelib/SimpleMessageLib.sol/SimpleMessageLib.json",
    ),
    (
        Artifact::StargatePoolUsdc,
        "@stargatefinance/stg-evm-v2/artifacts/src/usdc/StargatePoolUSDC.sol/StargatePoolUSDC.json",
    ),
    (
        Artifact::StargatePool,
        "@stargatefinance/stg-evm-v2/artifacts/src/StargatePool.sol/StargatePool.json",
    ),
    (
        Artifact::StargatePoolMigratable,
        "@stargatefinance/stg-evm-v2/artifacts/src/StargatePoolMigratable.sol/StargatePoolMigratable.json",
    ),
    (
        Artifact::StargatePoolNative,
        "@stargatefinance/stg-evm-v2/artifacts/src/StargatePoolNative.sol/StargatePoolNative.json",
    ),
    (
        Artifact::StargateTokenMessaging,
        "@stargatefinance/stg-evm-v2/deployments/ethereum-mainnet/TokenMessaging.json",
    ),
    (
        Artifact::StargateFeeLib,
        "@stargatefinance/stg-evm-v2/artifacts/src/feelibs/FeeLibV1.sol/FeeLibV1.json",
    ),
    (Artifact::MorphoBlue, ".published/MorphoBlue.json"),
];

/// One npm artifact: its initcode (library placeholders zeroed), the
/// selectors of its ABI, and where its initcode links libraries.
#[derive(Debug, Clone)]
struct NpmArtifact {
    artifact: Artifact,
    code: Bytes,
    /// The runtime code, for the one artifact only ever placed as such
    /// (`EntryPointSimulations`); empty for the others.
    runtime: Bytes,
    selectors: std::sync::Arc<Selectors>,
    /// (library name, byte offset into the initcode) of each link.
    links: Vec<(String, usize)>,
}

/// The `linkReferences` of a Hardhat artifact: `{source: {Lib: [{start,
/// length}]}}`, as (library name, byte offset).
fn link_references(file: &serde_json::Value) -> Vec<(String, usize)> {
    let mut links = Vec::new();
    let Some(sources) = file["linkReferences"].as_object() else { return links };
    for libs in sources.values() {
        for (lib, refs) in libs.as_object().into_iter().flatten() {
            for r in refs.as_array().into_iter().flatten() {
                if let Some(start) = r["start"].as_u64().and_then(|s| usize::try_from(s).ok()) {
                    links.push((lib.clone(), start));
                }
            }
        }
    }
    links
}

/// Hex initcode with each library placeholder (`__$<34 hex>$__`, 40
/// characters) zeroed, ready to decode and link.
fn zero_placeholders(hex: &str) -> String {
    let mut out = String::with_capacity(hex.len());
    let mut rest = hex;
    while let Some(at) = rest.find("__$") {
        out.push_str(&rest[..at]);
        out.push_str(&"0".repeat(40));
        rest = rest.get(at + 40..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// One npm artifact file.
fn read_npm(dir: &Path, artifact: Artifact, rel: &str) -> Result<NpmArtifact, EvmError> {
    let name = artifact.name();
    let read = |path: PathBuf| -> Result<serde_json::Value, EvmError> {
        let text = std::fs::read_to_string(&path)
            .map_err(|source| EvmError::NpmArtifact { path: path.clone(), source })?;
        serde_json::from_str(&text)
            .map_err(|source| EvmError::Artifact { name, source: source.into() })
    };
    let path = dir.join(rel);
    let file = read(path.clone())?;
    let code = file["bytecode"]
        .as_str()
        .or_else(|| file["creationCode"].as_str())
        .ok_or_else(|| EvmError::Artifact { name, source: "no bytecode or creationCode".into() })?;
    let code = alloy_primitives::hex::decode(zero_placeholders(code.trim_start_matches("0x")))
        .map(Bytes::from)
        .map_err(|e| EvmError::Artifact { name, source: e.into() })?;
    let abi = match file["abi"].as_array() {
        Some(abi) => abi.clone(),
        None => {
            // `<task>/bytecode/<Name>.json` → `<task>/abi/<Name>.json`.
            let file_name = path.file_name().map(ToOwned::to_owned).unwrap_or_default();
            let abi_path = path
                .parent()
                .and_then(Path::parent)
                .map(|task| task.join("abi").join(file_name))
                .unwrap_or_default();
            read(abi_path)?.as_array().cloned().unwrap_or_default()
        }
    };
    let links = link_references(&file);
    if links.iter().any(|(_, at)| at + 20 > code.len()) {
        return Err(EvmError::Artifact { name, source: "a library link past the code".into() });
    }
    // The simulations contract refuses to be deployed (its constructor
    // reverts past block 100): it is only ever placed as runtime code.
    let runtime = match artifact {
        Artifact::EntryPointSimulations => {
            let hex = file["deployedBytecode"]
                .as_str()
                .ok_or_else(|| EvmError::Artifact { name, source: "no deployedBytecode".into() })?;
            alloy_primitives::hex::decode(hex.trim_start_matches("0x"))
                .map(Bytes::from)
                .map_err(|e| EvmError::Artifact { name, source: e.into() })?
        }
        _ => Bytes::new(),
    };
    Ok(NpmArtifact {
        artifact,
        code,
        runtime,
        selectors: std::sync::Arc::new(abi_selectors(&abi, &[])),
        links,
    })
}

impl NpmArtifacts {
    /// `contracts/node_modules` of the source tree this crate was built
    /// from, unless `SWITCHYARD_NODE_MODULES` names another directory.
    pub fn default_dir() -> PathBuf {
        std::env::var_os("SWITCHYARD_NODE_MODULES").map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("../contracts/node_modules"),
            PathBuf::from,
        )
    }

    /// Reads the npm artifacts under `dir`.
    pub fn load(dir: &Path) -> Result<Self, EvmError> {
        let artifacts = NPM_FILES
            .iter()
            .map(|(a, rel)| read_npm(dir, *a, rel))
            .collect::<Result<_, EvmError>>()?;
        let own = Artifact::ALL
            .iter()
            .filter_map(|a| Some((*a, std::sync::Arc::new(a.own_selectors()?))))
            .collect();
        Ok(Self { artifacts, own })
    }

    /// The artifacts of [`Self::default_dir`], read once per process.
    pub fn shared() -> Result<&'static Self, EvmError> {
        static SHARED: OnceLock<Result<NpmArtifacts, String>> = OnceLock::new();
        let dir = Self::default_dir();
        match SHARED.get_or_init(|| Self::load(&dir).map_err(|e| error_chain(&e))) {
            Ok(a) => Ok(a),
            Err(message) => Err(EvmError::NpmUnavailable(message.clone())),
        }
    }

    fn npm(&self, artifact: Artifact) -> Option<&NpmArtifact> {
        self.artifacts.iter().find(|a| a.artifact == artifact)
    }

    /// The selectors of any artifact's functions: the npm ABI for the npm
    /// ones, the committed one for ours.
    pub fn selectors(&self, artifact: Artifact) -> std::sync::Arc<Selectors> {
        let npm = self.npm(artifact).map(|a| &a.selectors);
        let own = || self.own.iter().find(|(a, _)| *a == artifact).map(|(_, s)| s);
        npm.or_else(own).cloned().unwrap_or_default()
    }

    /// The published runtime code of an artifact placed without its
    /// constructor (`EntryPointSimulations`).
    pub fn runtime(&self, artifact: Artifact) -> Result<Bytes, EvmError> {
        self.npm(artifact).map(|a| a.runtime.clone()).filter(|c| !c.is_empty()).ok_or_else(|| {
            EvmError::Artifact { name: artifact.name(), source: "no published runtime code".into() }
        })
    }

    /// One artifact's initcode (ours from the committed files). One that
    /// links libraries is refused ([`Self::linked_initcode`] links them).
    pub fn initcode(&self, artifact: Artifact) -> Result<Bytes, EvmError> {
        self.linked_initcode(artifact, &[])
    }

    /// One artifact's initcode with each library it links at the address
    /// `libraries` gives it; a library it needs and is not given is an
    /// error.
    pub fn linked_initcode(
        &self,
        artifact: Artifact,
        libraries: &[(Artifact, alloy_primitives::Address)],
    ) -> Result<Bytes, EvmError> {
        let Some(npm) = self.npm(artifact) else { return artifact.initcode() };
        if npm.links.is_empty() {
            return Ok(npm.code.clone());
        }
        let mut code = npm.code.to_vec();
        for (lib, at) in &npm.links {
            let address = libraries
                .iter()
                .find(|(a, _)| a.name() == lib)
                .map(|(_, address)| address)
                .ok_or_else(|| EvmError::Artifact {
                    name: artifact.name(),
                    source: format!("library {lib} is not linked").into(),
                })?;
            code[*at..*at + 20].copy_from_slice(address.as_slice());
        }
        Ok(code.into())
    }
}

/// An error and its causes on one line.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{b256, keccak256};

    use super::*;

    /// Our own artifacts are parsed once into a table indexed by the
    /// variant: every variant has its own place in it.
    #[test]
    fn each_artifact_has_its_own_parsed_place() {
        let mut seen = std::collections::BTreeSet::new();
        for a in Artifact::ALL {
            assert!((a as usize) < Artifact::ALL.len() && seen.insert(a as usize), "{}", a.name());
            if a.committed().is_some() {
                let own = a.own().expect("committed").expect("parses");
                assert!(std::ptr::eq(own, a.own().expect("committed").expect("parses")));
                assert_eq!(a.initcode().expect("initcode"), own.code);
            }
        }
    }

    #[test]
    fn every_artifact_has_initcode() {
        // The libraries Aave's `Pool` and `FlashLoanLogic` link, anywhere.
        let libraries: Vec<_> = Artifact::ALL
            .iter()
            .map(|a| (*a, alloy_primitives::Address::repeat_byte(0x11)))
            .collect();
        for a in Artifact::ALL {
            let code = NpmArtifacts::shared().and_then(|n| n.linked_initcode(a, &libraries));
            assert!(code.as_ref().is_ok_and(|c| c.len() > 100), "{}: {code:?}", a.name());
        }
    }

    /// The npm Uniswap bytecode is mainnet's: the init code hashes the
    /// catalog uses for CREATE2 pool addresses.
    #[test]
    fn uniswap_init_code_hashes_are_mainnet() {
        let hash = |a: Artifact| a.initcode().map(keccak256).ok();
        assert_eq!(
            hash(Artifact::UniswapV2Pair),
            Some(b256!("96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f"))
        );
        assert_eq!(
            hash(Artifact::UniswapV3Pool),
            Some(b256!("e34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54"))
        );
    }

    #[test]
    fn fiat_token_keeps_the_erc20_layout() {
        // The world funds USDC as it funds any `ReferenceERC20`.
        for v in ["name", "symbol", "totalSupply", "balanceOf", "allowance"] {
            let slot = Artifact::ReferenceErc20.storage_slot(v);
            assert!(slot.is_some(), "{v}");
            assert_eq!(Artifact::ReferenceFiatToken.storage_slot(v), slot, "{v}");
        }
    }

    #[test]
    fn storage_slots_come_from_the_layout() {
        assert_eq!(Artifact::TestErc20.storage_slot("balanceOf"), Some(3));
        assert_eq!(Artifact::ReferenceWeth.storage_slot("balanceOf"), Some(2));
        assert_eq!(Artifact::TestErc20.storage_slot("nothing"), None);
        assert_eq!(Artifact::UniswapV2Pair.storage_slot("reserve0"), None);
    }

    /// An artifact that links libraries is refused unlinked, and linked
    /// with each library's address where its placeholders were.
    #[test]
    fn linked_artifacts_carry_their_libraries_addresses() {
        let npm = NpmArtifacts::shared().expect("npm artifacts");
        assert!(npm.initcode(Artifact::AavePool).is_err());
        let at = alloy_primitives::Address::repeat_byte(0x42);
        let libraries = [
            Artifact::AaveBorrowLogic,
            Artifact::AaveBridgeLogic,
            Artifact::AaveEModeLogic,
            Artifact::AaveFlashLoanLogic,
            Artifact::AaveLiquidationLogic,
            Artifact::AavePoolLogic,
            Artifact::AaveSupplyLogic,
        ]
        .map(|a| (a, at));
        let code = npm.linked_initcode(Artifact::AavePool, &libraries).expect("linked");
        // BorrowLogic's six, BridgeLogic's two, … 23 links in all.
        let links = code.windows(20).filter(|w| *w == at.as_slice()).count();
        assert_eq!(links, 23);
        assert!(npm.linked_initcode(Artifact::AavePool, &libraries[1..]).is_err());
    }

    #[test]
    fn a_missing_npm_directory_is_a_typed_error() {
        let e = NpmArtifacts::load(Path::new("/nonexistent/node_modules"));
        assert!(matches!(e, Err(EvmError::NpmArtifact { .. })), "{e:?}");
    }
}

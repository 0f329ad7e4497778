//! Solidity interfaces of the contracts in [`super::artifacts`], as `sol!`
//! bindings: each function `f` becomes a `fCall` struct (its arguments) with
//! `abi_encode` and `abi_decode_returns`, each error and event a struct.
//!
//! Only what the engine and its tests call is declared; the full ABIs are in
//! the artifact files.

// `sol!` generates the call, return and event types; the Solidity below is
// their documentation.
#![allow(missing_docs)]
// An event's constructor takes every field (CCTP's `DepositForBurn` has ten).
#![allow(clippy::too_many_arguments)]

use alloy_sol_types::sol;

sol! {
    /// `contracts/src/TestERC20.sol`.
    #[sol(all_derives)]
    contract TestERC20 {
        event Transfer(address indexed from, address indexed to, uint256 value);
        event Approval(address indexed owner, address indexed spender, uint256 value);

        constructor(string name, string symbol, uint8 decimals);

        function name() external view returns (string);
        function symbol() external view returns (string);
        function decimals() external view returns (uint8);
        function totalSupply() external view returns (uint256);
        function balanceOf(address who) external view returns (uint256);
        function allowance(address owner, address spender) external view returns (uint256);
        function transfer(address to, uint256 amount) external returns (bool);
        function approve(address spender, uint256 amount) external returns (bool);
        function transferFrom(address from, address to, uint256 amount) external returns (bool);
        function mint(address to, uint256 amount) external;
        function burn(address from, uint256 amount) external;
    }

    /// `contracts/src/V3Swapper.sol`.
    #[sol(all_derives)]
    contract V3Swapper {
        error UnexpectedCallback(address caller);
        error AmountTooLarge(uint256 amount);

        function mint(address pool, int24 lower, int24 upper, uint128 liquidity)
            external returns (uint256 amount0, uint256 amount1);
        function swapExactIn(address pool, bool zeroForOne, uint256 amountIn, address recipient)
            external returns (uint256 out);
    }

    /// `contracts/src/OpenZeppelinVault.sol`: OpenZeppelin 5.7's `ERC4626`
    /// (the rest of its interface is `ReferenceVault`'s, selector for
    /// selector).
    #[sol(all_derives)]
    contract OpenZeppelinVault {
        constructor(address asset_, string name_, string symbol_, uint8 offset_);
    }

    /// `contracts/src/ReferenceVault.sol`: the ERC-4626 interface.
    #[sol(all_derives)]
    contract ReferenceVault {
        error ZeroShares();
        error ZeroAssets();
        error DivisionOverflow();

        event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
        event Withdraw(
            address indexed sender,
            address indexed receiver,
            address indexed owner,
            uint256 assets,
            uint256 shares
        );

        constructor(address asset, string name, string symbol, uint8 decimals);

        function asset() external view returns (address);
        function totalAssets() external view returns (uint256);
        function totalSupply() external view returns (uint256);
        function balanceOf(address who) external view returns (uint256);
        function convertToShares(uint256 assets) external view returns (uint256);
        function convertToAssets(uint256 shares) external view returns (uint256);
        function previewDeposit(uint256 assets) external view returns (uint256);
        function previewMint(uint256 shares) external view returns (uint256);
        function previewWithdraw(uint256 assets) external view returns (uint256);
        function previewRedeem(uint256 shares) external view returns (uint256);
        function deposit(uint256 assets, address receiver) external returns (uint256 shares);
        function mint(uint256 shares, address receiver) external returns (uint256 assets);
        function withdraw(uint256 assets, address receiver, address owner)
            external returns (uint256 shares);
        function redeem(uint256 shares, address receiver, address owner)
            external returns (uint256 assets);
    }

    /// `contracts/src/ReferenceWETH.sol`: the WETH9 interface.
    #[sol(all_derives)]
    contract ReferenceWETH {
        event Deposit(address indexed dst, uint256 wad);
        event Withdrawal(address indexed src, uint256 wad);

        constructor(string name_, string symbol_);

        function deposit() external payable;
        function withdraw(uint256 wad) external;
        function balanceOf(address who) external view returns (uint256);
    }

    /// `contracts/src/ShortcutsRouter.sol`, ABI-compatible with the public
    /// router.
    #[sol(all_derives)]
    contract ShortcutsRouter {
        /// The router's token kinds.
        enum TokenType { Native, ERC20, ERC721, ERC1155 }

        /// A token and its amount, as the router takes them: Native
        /// `abi.encode(amount)`, ERC20 `abi.encode(token, amount)`; for
        /// outputs the amount is the minimum.
        struct Token {
            TokenType tokenType;
            bytes data;
        }

        error WrongMsgValue(uint256 value, uint256 expectedAmount);
        error AmountTooLow(Token token, uint256 amount, uint256 minAmount);
        error DuplicateNativeAsset();
        error UnsupportedTokenType(uint8 tokenType);
        error SafeERC20FailedOperation(address token);

        constructor();

        function shortcuts() external view returns (address);
        function routeSingle(Token tokenIn, bytes data) external payable returns (bytes);
        function routeMulti(Token[] tokensIn, bytes data) external payable returns (bytes);
        function safeRouteSingle(Token tokenIn, Token tokenOut, address receiver, bytes data)
            external payable returns (bytes);
        function safeRouteMulti(Token[] tokensIn, Token[] tokensOut, address receiver, bytes data)
            external payable returns (bytes);
    }

    /// `contracts/src/LegacyShortcutsRouter.sol`: the legacy router ABI.
    #[sol(all_derives)]
    contract LegacyShortcutsRouter {
        struct TokenAmount {
            address token;
            uint256 amount;
        }

        error WrongValue(uint256 value, uint256 amount);
        error AmountTooLow(address token);
        error Duplicate(address token);

        constructor(address owner_);

        function enso() external view returns (address);
        function routeSingle(address tokenIn, uint256 amountIn, bytes32[] commands, bytes[] state)
            external payable returns (bytes[]);
        function routeMulti(TokenAmount[] tokensIn, bytes32[] commands, bytes[] state)
            external payable returns (bytes[]);
        function safeRouteSingle(
            address tokenIn,
            address tokenOut,
            uint256 amountIn,
            uint256 minAmountOut,
            address receiver,
            bytes32[] commands,
            bytes[] state
        ) external payable returns (bytes[]);
        function safeRouteMulti(
            TokenAmount[] tokensIn,
            TokenAmount[] tokensOut,
            address receiver,
            bytes32[] commands,
            bytes[] state
        ) external payable returns (bytes[]);
    }

    /// The shortcuts executor (Enso's `EnsoShortcuts`), whose VM the
    /// delegates and the wallet share: the entry point and the VM's error.
    #[sol(all_derives)]
    contract ShortcutsExecutor {
        event ShortcutExecuted(bytes32 accountId, bytes32 requestId);

        error ExecutionFailed(uint256 command_index, address target, string message);
        error NotPermitted();
        error OnlyDelegateCall();
        error NotOwner(address caller);

        constructor(address executor_);

        function executor() external view returns (address);
        function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] commands, bytes[] state)
            external payable returns (bytes[]);
    }

    /// `contracts/src/LegacyShortcutsExecutor.sol`: the legacy router's
    /// executor.
    #[sol(all_derives)]
    contract LegacyShortcutsExecutor {
        error NotPermitted();

        constructor(address owner_, address executor_);

        function executor() external view returns (address);
        function executeShortcut(bytes32[] commands, bytes[] state) external payable returns (bytes[]);
    }

    /// `contracts/src/ReferenceV2Router.sol`: a V2 fork's Router02.
    #[sol(all_derives)]
    contract ReferenceV2Router {
        constructor(address factory_, address weth_, bytes32 initCodeHash_, uint256 feeBps_);
    }

    /// `@uniswap/v2-periphery` `UniswapV2Router02`.
    #[sol(all_derives)]
    contract UniswapV2Router02 {
        constructor(address factory, address WETH);
    }

    /// `@uniswap/v3-periphery` `SwapRouter`.
    #[sol(all_derives)]
    contract UniswapV3SwapRouter {
        constructor(address factory, address WETH9);
    }

    /// `@uniswap/swap-router-contracts` `SwapRouter02`.
    #[sol(all_derives)]
    contract UniswapV3SwapRouter02 {
        constructor(address factoryV2, address factoryV3, address positionManager, address WETH9);
    }

    /// `@uniswap/v3-periphery` `NonfungiblePositionManager`.
    #[sol(all_derives)]
    contract UniswapV3PositionManager {
        constructor(address factory, address WETH9, address tokenDescriptor);

        struct MintParams {
            address token0;
            address token1;
            uint24 fee;
            int24 tickLower;
            int24 tickUpper;
            uint256 amount0Desired;
            uint256 amount1Desired;
            uint256 amount0Min;
            uint256 amount1Min;
            address recipient;
            uint256 deadline;
        }
        struct DecreaseLiquidityParams {
            uint256 tokenId;
            uint128 liquidity;
            uint256 amount0Min;
            uint256 amount1Min;
            uint256 deadline;
        }
        struct CollectParams {
            uint256 tokenId;
            address recipient;
            uint128 amount0Max;
            uint128 amount1Max;
        }

        function mint(MintParams params) external payable
            returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1);
        function decreaseLiquidity(DecreaseLiquidityParams params) external payable
            returns (uint256 amount0, uint256 amount1);
        function collect(CollectParams params) external payable
            returns (uint256 amount0, uint256 amount1);
        function positions(uint256 tokenId) external view returns (
            uint96 nonce,
            address operator,
            address token0,
            address token1,
            uint24 fee,
            int24 tickLower,
            int24 tickUpper,
            uint128 liquidity,
            uint256 feeGrowthInside0LastX128,
            uint256 feeGrowthInside1LastX128,
            uint128 tokensOwed0,
            uint128 tokensOwed1
        );
        function ownerOf(uint256 tokenId) external view returns (address owner);
        function transferFrom(address from, address to, uint256 tokenId) external;
        function factory() external view returns (address);
    }

    /// `contracts/src/LegacyShortcutsDelegate.sol`: the legacy delegate
    /// (`SafeEnsoShortcuts`), whose event carries the shortcut id only.
    #[sol(all_derives)]
    contract LegacyShortcutsDelegate {
        event ShortcutExecuted(bytes32 shortcutId);

        function executeShortcut(bytes32 shortcutId, bytes32[] commands, bytes[] state)
            external payable returns (bytes[]);
    }

    /// `contracts/src/WalletFactory.sol`: Enso's `EnsoWalletV2Factory`
    /// (`ensowallet-v2`).
    #[sol(all_derives)]
    contract WalletFactory {
        event EnsoWalletV2Deployed(address wallet, address indexed account);

        constructor(address implementation);

        function IMPLEMENTATION() external view returns (address);
        function getAddress(address account) external view returns (address);
        function deploy(address account) external returns (address wallet);
        function deployAndExecute(
            ShortcutsRouter.Token[] tokensIn,
            bytes data,
            address[] executors,
            bool revokeExecutorsAfterExecution
        ) external payable returns (address wallet, bytes response);
    }

    /// `contracts/src/SmartWallet.sol`: Enso's `EnsoWalletV2`, the program
    /// entry point the factory calls.
    #[sol(all_derives)]
    contract SmartWallet {
        event ShortcutExecuted(bytes32 accountId, bytes32 requestId);

        function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] commands, bytes[] state)
            external payable returns (bytes[]);
        function owner() external view returns (address);
        function factory() external view returns (address);
        function executors(address executor) external view returns (bool);
    }

    /// `@account-abstraction/contracts@0.7.0`'s `EntryPoint` and
    /// `EntryPointSimulations` (npm): what the engine calls of them.
    #[sol(all_derives)]
    contract EntryPoint {
        /// ERC-4337 v0.7's packed user operation.
        struct PackedUserOperation {
            address sender;
            uint256 nonce;
            bytes initCode;
            bytes callData;
            bytes32 accountGasLimits;
            uint256 preVerificationGas;
            bytes32 gasFees;
            bytes paymasterAndData;
            bytes signature;
        }

        struct ExecutionResult {
            uint256 preOpGas;
            uint256 paid;
            uint256 accountValidationData;
            uint256 paymasterValidationData;
            bool targetSuccess;
            bytes targetResult;
        }

        event UserOperationEvent(
            bytes32 indexed userOpHash,
            address indexed sender,
            address indexed paymaster,
            uint256 nonce,
            bool success,
            uint256 actualGasCost,
            uint256 actualGasUsed
        );

        error FailedOp(uint256 opIndex, string reason);
        error FailedOpWithRevert(uint256 opIndex, string reason, bytes inner);

        function handleOps(PackedUserOperation[] ops, address beneficiary) external;
        function getNonce(address sender, uint192 key) external view returns (uint256 nonce);
        function getUserOpHash(PackedUserOperation userOp) external view returns (bytes32);
        function balanceOf(address account) external view returns (uint256);
        function depositTo(address account) external payable;
        function simulateHandleOp(PackedUserOperation op, address target, bytes targetCallData)
            external returns (ExecutionResult);
    }

    /// `contracts/src/AccountFactory.sol`: Enso's `ERC4337CloneFactory`.
    #[sol(all_derives)]
    contract AccountFactory {
        event CloneDeployed(address clone, address account, address signer);

        constructor(address implementation_, address entryPoint_);

        function implementation() external view returns (address);
        function entryPoint() external view returns (address);
        function deploy(address account) external returns (address clone);
        function delegateDeploy(address account, address signer) external returns (address clone);
        function getAddress(address account) external view returns (address);
        function getDelegateAddress(address account, address signer) external view returns (address);
    }

    /// `contracts/src/ReceiverAccount.sol`: Enso's `EnsoReceiver`, the
    /// ERC-4337 account a backend drives through the EntryPoint.
    #[sol(all_derives)]
    contract ReceiverAccount {
        event ShortcutExecuted(bytes32 accountId, bytes32 requestId);
        event ShortcutExecutionSuccessful();
        event ShortcutExecutionFailed(bytes error);

        function initialize(address owner_, address signer_, address entryPoint_) external;
        function owner() external view returns (address);
        function signer() external view returns (address);
        function entryPoint() external view returns (address);
        function safeExecute(address token, uint256 amount, bytes data) external;
        function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] commands, bytes[] state)
            external payable returns (bytes[]);
    }

    /// `contracts/src/ReferenceStableSwap.sol`: a Curve plain pool; the world
    /// deploys it with the snapshot's parameters and seeds its balances.
    #[sol(all_derives)]
    contract ReferenceStableSwap {
        constructor(
            address[] coins_,
            uint8[] decimals_,
            uint256 ampPrecise,
            uint256 aPrecision,
            uint256 fee_,
            uint256 adminFee
        );

        function balances(uint256 i) external view returns (uint256);
    }

    /// `contracts/src/ReferenceStableSwapLp.sol`: a tokenized Curve plain
    /// pool (`ReferenceStableSwap2`, `3` and `4` share the constructor).
    #[sol(all_derives)]
    contract ReferenceStableSwapLp {
        constructor(
            address[] coins_,
            uint8[] decimals_,
            uint256 ampPrecise,
            uint256 aPrecision,
            uint256 fee_,
            uint256 adminFee,
            address lpToken
        );
    }

    /// `contracts/src/ReferenceCurveToken.sol`: a Curve LP token.
    #[sol(all_derives)]
    contract ReferenceCurveToken {
        constructor(string name_, string symbol_, uint8 decimals_, address minter_);
    }

    /// `contracts/src/ReferenceBalancerVault.sol`: the Vault's swap path for
    /// weighted pools; the world registers each pool with its state.
    #[sol(all_derives)]
    contract ReferenceBalancerVault {
        function registerPool(
            bytes32 poolId,
            address[] tokens,
            uint8[] decimals,
            uint256[] balances,
            uint256[] normalizedWeights,
            uint256 swapFeePercentage,
            uint8 powRule
        ) external;
        function getPoolTokens(bytes32 poolId) external view
            returns (address[] tokens, uint256[] balances, uint256 lastChangeBlock);
    }

    /// Balancer V2's `Authorizer` (`@balancer-labs/v2-deployments`).
    #[sol(all_derives)]
    contract BalancerAuthorizer {
        constructor(address admin);
    }

    /// Balancer V2's `Vault` (`@balancer-labs/v2-deployments`): the part
    /// the world uses to set pools up.
    #[sol(all_derives)]
    contract BalancerVault {
        struct JoinPoolRequest {
            address[] assets;
            uint256[] maxAmountsIn;
            bytes userData;
            bool fromInternalBalance;
        }

        struct ExitPoolRequest {
            address[] assets;
            uint256[] minAmountsOut;
            bytes userData;
            bool toInternalBalance;
        }

        constructor(address authorizer, address weth, uint256 pauseWindowDuration, uint256 bufferPeriodDuration);

        function registerPool(uint8 specialization) external returns (bytes32);
        function joinPool(bytes32 poolId, address sender, address recipient, JoinPoolRequest request)
            external payable;
        function exitPool(bytes32 poolId, address sender, address recipient, ExitPoolRequest request)
            external;
        function getPoolTokens(bytes32 poolId) external view
            returns (address[] tokens, uint256[] balances, uint256 lastChangeBlock);
    }

    /// Balancer V2's `ProtocolFeePercentagesProvider`
    /// (`@balancer-labs/v2-deployments`).
    #[sol(all_derives)]
    contract BalancerProtocolFeeProvider {
        constructor(address vault, uint256 maxYieldValue, uint256 maxAUMValue);
    }

    /// Balancer V2's 2023 `WeightedPool` (v3, `@balancer-labs/v2-deployments`).
    #[sol(all_derives)]
    contract BalancerWeightedPoolV3 {
        struct NewPoolParams {
            string name;
            string symbol;
            address[] tokens;
            uint256[] normalizedWeights;
            address[] rateProviders;
            address[] assetManagers;
            uint256 swapFeePercentage;
        }

        constructor(
            NewPoolParams params,
            address vault,
            address protocolFeeProvider,
            uint256 pauseWindowDuration,
            uint256 bufferPeriodDuration,
            address owner,
            string version
        );

        function getPoolId() external view returns (bytes32);
    }

    /// Balancer V2's 2021 `WeightedPool2Tokens`
    /// (`@balancer-labs/v2-deployments`).
    #[sol(all_derives)]
    contract BalancerWeightedPool2Tokens {
        struct NewPoolParams {
            address vault;
            string name;
            string symbol;
            address token0;
            address token1;
            uint256 normalizedWeight0;
            uint256 normalizedWeight1;
            uint256 swapFeePercentage;
            uint256 pauseWindowDuration;
            uint256 bufferPeriodDuration;
            bool oracleEnabled;
            address owner;
        }

        constructor(NewPoolParams params);

        function getPoolId() external view returns (bytes32);
    }

    /// `@aave/core-v3@1.19.3` `PoolAddressesProvider`: the owner's
    /// registry the pool and its tokens read each other's addresses from.
    #[sol(all_derives)]
    contract AaveAddressesProvider {
        constructor(string marketId, address owner);
        function setAddress(bytes32 id, address newAddress) external;
        function setPriceOracle(address newPriceOracle) external;
        function getPool() external view returns (address);
        function getPriceOracle() external view returns (address);
    }

    /// `@aave/core-v3@1.19.3` `Pool`: the calls the world and the engine
    /// make (supply, withdraw, borrow and repay are the programs').
    #[sol(all_derives)]
    contract AavePool {
        /// `DataTypes.ReserveConfigurationMap`.
        struct ReserveConfigurationMap {
            uint256 data;
        }

        /// `DataTypes.ReserveData` (v3.0).
        struct ReserveData {
            ReserveConfigurationMap configuration;
            uint128 liquidityIndex;
            uint128 currentLiquidityRate;
            uint128 variableBorrowIndex;
            uint128 currentVariableBorrowRate;
            uint128 currentStableBorrowRate;
            uint40 lastUpdateTimestamp;
            uint16 id;
            address aTokenAddress;
            address stableDebtTokenAddress;
            address variableDebtTokenAddress;
            address interestRateStrategyAddress;
            uint128 accruedToTreasury;
            uint128 unbacked;
            uint128 isolationModeTotalDebt;
        }

        constructor(address provider);
        function initialize(address provider) external;
        function initReserve(address asset, address aTokenAddress, address stableDebtAddress, address variableDebtAddress, address interestRateStrategyAddress) external;
        function setConfiguration(address asset, ReserveConfigurationMap configuration) external;
        function getReserveData(address asset) external view returns (ReserveData);
        function getReserveNormalizedIncome(address asset) external view returns (uint256);
        function updateFlashloanPremiums(uint128 flashLoanPremiumTotal, uint128 flashLoanPremiumToProtocol) external;
        function getReserveNormalizedVariableDebt(address asset) external view returns (uint256);
        function getUserAccountData(address user) external view returns (uint256 totalCollateralBase, uint256 totalDebtBase, uint256 availableBorrowsBase, uint256 currentLiquidationThreshold, uint256 ltv, uint256 healthFactor);
        function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external;
        function withdraw(address asset, uint256 amount, address to) external returns (uint256);
        function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf) external;
        function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf) external returns (uint256);
    }

    /// `@aave/core-v3@1.19.3` `AToken`, `VariableDebtToken` and
    /// `StableDebtToken`: their constructor and `initialize`.
    #[sol(all_derives)]
    contract AaveToken {
        constructor(address pool);
        function scaledBalanceOf(address user) external view returns (uint256);
        function scaledTotalSupply() external view returns (uint256);
    }

    /// `AToken.initialize`.
    #[sol(all_derives)]
    contract AaveATokenInit {
        function initialize(address initializingPool, address treasury, address underlyingAsset, address incentivesController, uint8 aTokenDecimals, string aTokenName, string aTokenSymbol, bytes params) external;
    }

    /// `VariableDebtToken.initialize` and `StableDebtToken.initialize`.
    #[sol(all_derives)]
    contract AaveDebtTokenInit {
        function initialize(address initializingPool, address underlyingAsset, address incentivesController, uint8 debtTokenDecimals, string debtTokenName, string debtTokenSymbol, bytes params) external;
    }

    /// `@aave/core-v3@1.19.3` `DefaultReserveInterestRateStrategy`.
    #[sol(all_derives)]
    contract AaveRateStrategy {
        constructor(address provider, uint256 optimalUsageRatio, uint256 baseVariableBorrowRate, uint256 variableRateSlope1, uint256 variableRateSlope2, uint256 stableRateSlope1, uint256 stableRateSlope2, uint256 baseStableRateOffset, uint256 stableRateExcessOffset, uint256 optimalStableToTotalDebtRatio);
    }

    /// `@aave/core-v3@1.19.3` `AaveOracle`.
    #[sol(all_derives)]
    contract AaveOracle {
        constructor(address provider, address[] assets, address[] sources, address fallbackOracle, address baseCurrency, uint256 baseCurrencyUnit);
        function getAssetPrice(address asset) external view returns (uint256);
        function getSourceOfAsset(address asset) external view returns (address);
    }

    /// `contracts/src/ReferenceFlashloanRouterAdapter.sol` (Enso's
    /// `EnsoRouterFlashloanAdapter`).
    #[sol(all_derives)]
    contract ReferenceFlashloanRouterAdapter {
        constructor(address[] lenders, uint8[] protocols, address router_, address owner_);
    }

    /// `contracts/src/ReferencePriceFeed.sol`.
    #[sol(all_derives)]
    contract ReferencePriceFeed {
        constructor(int256 answer_, uint8 decimals_, string description_);
        function latestAnswer() external view returns (int256);
    }

    /// `contracts/src/ReferenceCToken.sol`.
    #[sol(all_derives)]
    contract ReferenceCToken {
        constructor(address underlying_, uint256 exchangeRate_, string name_, string symbol_, uint8 decimals_);
        function _setComptroller(address newComptroller) external returns (uint256);
        function borrowBalanceStored(address account) external view returns (uint256);
    }

    /// `contracts/src/ReferenceComet.sol`: Compound III's market (the base
    /// side of `Comet` and `CometExt`).
    #[sol(all_derives)]
    contract ReferenceComet {
        struct TotalsBasic {
            uint64 baseSupplyIndex;
            uint64 baseBorrowIndex;
            uint64 trackingSupplyIndex;
            uint64 trackingBorrowIndex;
            uint104 totalSupplyBase;
            uint104 totalBorrowBase;
            uint40 lastAccrualTime;
            uint8 pauseFlags;
        }
        constructor(
            address baseToken_,
            string name_,
            string symbol_,
            uint256 baseBorrowMin_,
            uint256[4] supplyRates,
            uint256[4] borrowRates,
            uint64 supplyIndex,
            uint64 borrowIndex,
            uint104 supplyBase,
            uint104 borrowBase
        );
        function supply(address asset, uint256 amount) external;
        function supplyTo(address dst, address asset, uint256 amount) external;
        function withdraw(address asset, uint256 amount) external;
        function withdrawTo(address to, address asset, uint256 amount) external;
        function transfer(address dst, uint256 amount) external returns (bool);
        function accrueAccount(address account) external;
        function balanceOf(address account) external view returns (uint256);
        function borrowBalanceOf(address account) external view returns (uint256);
        function totalSupply() external view returns (uint256);
        function totalsBasic() external view returns (TotalsBasic);
        function getUtilization() external view returns (uint256);
        function getSupplyRate(uint256 utilization) external view returns (uint64);
        function supplyKink() external view returns (uint256);
        function supplyPerSecondInterestRateSlopeLow() external view returns (uint256);
        function supplyPerSecondInterestRateSlopeHigh() external view returns (uint256);
        function supplyPerSecondInterestRateBase() external view returns (uint256);
        function baseToken() external view returns (address);
        function allow(address manager, bool isAllowed) external;
    }

    /// `contracts/src/ReferenceComptroller.sol`.
    #[sol(all_derives)]
    contract ReferenceComptroller {
        function _supportMarket(address cToken) external returns (uint256);
        function _setCollateralFactor(address cToken, uint256 newCollateralFactorMantissa) external returns (uint256);
        function _setPriceOracle(address newOracle) external returns (uint256);
        function enterMarkets(address[] cTokens) external returns (uint256[]);
    }

    /// `contracts/src/ReferenceCurveGauge.sol`.
    #[sol(all_derives)]
    contract ReferenceCurveGauge {
        constructor(address lpToken, address rewardToken);
    }

    /// `contracts/src/ReferenceDualVault.sol`.
    #[sol(all_derives)]
    contract ReferenceDualVault {
        event Deposit(address indexed sender, address indexed owner, uint256 amountA, uint256 amountB, uint256 shares);

        constructor(address tokenA_, address tokenB_, uint256 priceBInA_, string name_, string symbol_);
        function deposit(uint256 amountA, uint256 amountB, address receiver) external returns (uint256 shares);
        function previewDeposit(uint256 amountA, uint256 amountB) external view returns (uint256 shares);
    }

    /// `contracts/src/ReferenceStETH.sol`.
    #[sol(all_derives)]
    contract ReferenceStETH {
        function sharesOf(address account) external view returns (uint256);
        function getTotalPooledEther() external view returns (uint256);
        function getTotalShares() external view returns (uint256);
    }

    /// `contracts/src/ReferenceWstETH.sol`.
    #[sol(all_derives)]
    contract ReferenceWstETH {
        constructor(address stETH);
    }

    /// `contracts/src/ReferenceV2Pair.sol`.
    #[sol(all_derives)]
    contract ReferenceV2Pair {
        constructor(address token0, address token1, uint16 feeBps);
    }

    /// `@uniswap/v2-core` `UniswapV2Factory`.
    #[sol(all_derives)]
    contract UniswapV2Factory {
        event PairCreated(address indexed token0, address indexed token1, address pair, uint256);

        constructor(address feeToSetter);

        function getPair(address tokenA, address tokenB) external view returns (address pair);
        function allPairsLength() external view returns (uint256);
        function createPair(address tokenA, address tokenB) external returns (address pair);
        function feeTo() external view returns (address);
        function setFeeTo(address feeTo) external;
    }

    /// `@uniswap/v2-core` `UniswapV2Pair`.
    #[sol(all_derives)]
    contract UniswapV2Pair {
        event Swap(
            address indexed sender,
            uint256 amount0In,
            uint256 amount1In,
            uint256 amount0Out,
            uint256 amount1Out,
            address indexed to
        );
        event Sync(uint112 reserve0, uint112 reserve1);

        function token0() external view returns (address);
        function token1() external view returns (address);
        function getReserves() external view
            returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
        function mint(address to) external returns (uint256 liquidity);
        function burn(address to) external returns (uint256 amount0, uint256 amount1);
        function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data) external;
        function skim(address to) external;
        function sync() external;
        function totalSupply() external view returns (uint256);
        function kLast() external view returns (uint256);
        function balanceOf(address owner) external view returns (uint256);
        function approve(address spender, uint256 value) external returns (bool);
    }

    /// `@uniswap/v3-core` `UniswapV3Factory`.
    #[sol(all_derives)]
    contract UniswapV3Factory {
        event PoolCreated(
            address indexed token0,
            address indexed token1,
            uint24 indexed fee,
            int24 tickSpacing,
            address pool
        );

        function feeAmountTickSpacing(uint24 fee) external view returns (int24);
        function enableFeeAmount(uint24 fee, int24 tickSpacing) external;
        function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
        function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool);
    }

    /// `@uniswap/v3-core` `UniswapV3Pool`.
    #[sol(all_derives)]
    contract UniswapV3Pool {
        event Swap(
            address indexed sender,
            address indexed recipient,
            int256 amount0,
            int256 amount1,
            uint160 sqrtPriceX96,
            uint128 liquidity,
            int24 tick
        );

        function token0() external view returns (address);
        function token1() external view returns (address);
        function factory() external view returns (address);
        function fee() external view returns (uint24);
        function tickSpacing() external view returns (int24);
        function liquidity() external view returns (uint128);
        function slot0() external view returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            uint8 feeProtocol,
            bool unlocked
        );
        function ticks(int24 tick) external view returns (
            uint128 liquidityGross,
            int128 liquidityNet,
            uint256 feeGrowthOutside0X128,
            uint256 feeGrowthOutside1X128,
            int56 tickCumulativeOutside,
            uint160 secondsPerLiquidityOutsideX128,
            uint32 secondsOutside,
            bool initialized
        );
        function tickBitmap(int16 wordPosition) external view returns (uint256);
        function initialize(uint160 sqrtPriceX96) external;
    }
}

sol! {
    /// `contracts/src/ReferenceFiatToken.sol`: USDC as CCTP mints it.
    #[sol(all_derives)]
    contract ReferenceFiatToken {
        constructor(string name_, string symbol_, uint8 decimals_, address minter_, uint256 allowance_);
        function isMinter(address account) external view returns (bool);
        function minterAllowance(address minter) external view returns (uint256);
    }

    /// `contracts/src/ReferenceCctpV2.sol`: CCTP V2's message transmitter.
    #[sol(all_derives)]
    contract CctpMessageTransmitterV2 {
        constructor(
            uint32 localDomain_,
            uint32 version_,
            address[] attesters_,
            uint256 signatureThreshold_,
            uint256 maxMessageBodySize_
        );
        event MessageSent(bytes message);
        event MessageReceived(
            address indexed caller,
            uint32 sourceDomain,
            bytes32 indexed nonce,
            bytes32 sender,
            uint32 indexed finalityThresholdExecuted,
            bytes messageBody
        );
        function receiveMessage(bytes message, bytes attestation) external returns (bool success);
        function usedNonces(bytes32 nonce) external view returns (uint256);
        function localDomain() external view returns (uint32);
    }

    /// `contracts/src/ReferenceCctpV2.sol`: CCTP V2's token messenger.
    #[sol(all_derives)]
    contract CctpTokenMessengerV2 {
        constructor(
            address messageTransmitter_,
            uint32 messageBodyVersion_,
            address tokenMinter_,
            address feeRecipient_,
            uint32[] remoteDomains_,
            bytes32[] remoteTokenMessengers_
        );
        event DepositForBurn(
            address indexed burnToken,
            uint256 amount,
            address indexed depositor,
            bytes32 mintRecipient,
            uint32 destinationDomain,
            bytes32 destinationTokenMessenger,
            bytes32 destinationCaller,
            uint256 maxFee,
            uint32 indexed minFinalityThreshold,
            bytes hookData
        );
        event MintAndWithdraw(
            address indexed mintRecipient,
            uint256 amount,
            address indexed mintToken,
            uint256 feeCollected
        );
        function depositForBurn(
            uint256 amount,
            uint32 destinationDomain,
            bytes32 mintRecipient,
            address burnToken,
            bytes32 destinationCaller,
            uint256 maxFee,
            uint32 minFinalityThreshold
        ) external;
        function remoteTokenMessengers(uint32 domain) external view returns (bytes32);
    }

    /// `contracts/src/ReferenceCctpV2.sol`: CCTP V2's token minter.
    #[sol(all_derives)]
    contract CctpTokenMinterV2 {
        constructor(
            address localTokenMessenger_,
            address localToken_,
            uint256 burnLimitPerMessage_,
            uint32[] remoteDomains_,
            bytes32[] remoteTokens_
        );
        function getLocalToken(uint32 remoteDomain, bytes32 remoteToken) external view returns (address);
    }
}

sol! {
    /// `@layerzerolabs/lz-evm-protocol-v2` `EndpointV2` (npm).
    #[sol(all_derives)]
    contract LzEndpointV2 {
        struct Origin {
            uint32 srcEid;
            bytes32 sender;
            uint64 nonce;
        }
        constructor(uint32 eid, address owner);
        event PacketSent(bytes encodedPayload, bytes options, address sendLibrary);
        event PacketVerified(Origin origin, address receiver, bytes32 payloadHash);
        event PacketDelivered(Origin origin, address receiver);
        event ComposeSent(address from, address to, bytes32 guid, uint16 index, bytes message);
        event ComposeDelivered(address from, address to, bytes32 guid, uint16 index);
        function eid() external view returns (uint32);
        function registerLibrary(address lib) external;
        function setDefaultSendLibrary(uint32 eid, address newLib) external;
        function setDefaultReceiveLibrary(uint32 eid, address newLib, uint256 gracePeriod) external;
        function lzReceive(Origin origin, address receiver, bytes32 guid, bytes message, bytes extraData) external payable;
        function lzCompose(address from, address to, bytes32 guid, uint16 index, bytes message, bytes extraData) external payable;
        function composeQueue(address from, address to, bytes32 guid, uint16 index) external view returns (bytes32);
        function inboundPayloadHash(address receiver, uint32 srcEid, bytes32 sender, uint64 nonce) external view returns (bytes32);
        function lazyInboundNonce(address receiver, uint32 srcEid, bytes32 sender) external view returns (uint64);
    }

    /// `@layerzerolabs/lz-evm-protocol-v2` `SimpleMessageLib` (npm).
    #[sol(all_derives)]
    contract LzSimpleMessageLib {
        constructor(address endpoint, address treasury);
        function setMessagingFee(uint256 nativeFee, uint256 lzTokenFee) external;
        function validatePacket(bytes packetBytes) external;
        function nativeFee() external view returns (uint256);
    }

    /// `@stargatefinance/stg-evm-v2` pools: `StargatePoolUSDC`,
    /// `StargatePoolMigratable`, `StargatePool` (the constructor with a
    /// token) and `StargatePoolNative` (without).
    #[sol(all_derives)]
    contract StargatePool {
        struct AddressConfig {
            address feeLib;
            address planner;
            address treasurer;
            address tokenMessaging;
            address creditMessaging;
            address lzToken;
        }
        struct SendParam {
            uint32 dstEid;
            bytes32 to;
            uint256 amountLD;
            uint256 minAmountLD;
            bytes extraOptions;
            bytes composeMsg;
            bytes oftCmd;
        }
        struct MessagingFee {
            uint256 nativeFee;
            uint256 lzTokenFee;
        }
        struct MessagingReceipt {
            bytes32 guid;
            uint64 nonce;
            MessagingFee fee;
        }
        struct OFTReceipt {
            uint256 amountSentLD;
            uint256 amountReceivedLD;
        }
        constructor(
            string lpTokenName,
            string lpTokenSymbol,
            address token,
            uint8 tokenDecimals,
            uint8 sharedDecimals,
            address endpoint,
            address owner
        );
        event OFTSent(bytes32 indexed guid, uint32 dstEid, address indexed fromAddress, uint256 amountSentLD, uint256 amountReceivedLD);
        event OFTReceived(bytes32 indexed guid, uint32 srcEid, address indexed toAddress, uint256 amountReceivedLD);
        function setAddressConfig(AddressConfig config) external;
        function setOFTPath(uint32 dstEid, bool oft) external;
        function deposit(address receiver, uint256 amountLD) external payable returns (uint256 amountLD_);
        function send(SendParam sendParam, MessagingFee fee, address refundAddress) external payable returns (MessagingReceipt msgReceipt, OFTReceipt oftReceipt);
        function quoteSend(SendParam sendParam, bool payInLzToken) external view returns (MessagingFee fee);
        function token() external view returns (address);
    }

    /// `StargatePoolNative`'s constructor.
    #[sol(all_derives)]
    contract StargatePoolNative {
        constructor(
            string lpTokenName,
            string lpTokenSymbol,
            uint8 tokenDecimals,
            uint8 sharedDecimals,
            address endpoint,
            address owner
        );
    }

    /// `@stargatefinance/stg-evm-v2` `TokenMessaging` (npm).
    #[sol(all_derives)]
    contract StargateTokenMessaging {
        struct EnforcedOptionParam {
            uint32 eid;
            uint16 msgType;
            bytes options;
        }
        constructor(address endpoint, address owner, uint16 queueCapacity);
        function setAssetId(address stargate, uint16 assetId) external;
        function setPeer(uint32 eid, bytes32 peer) external;
        function setEnforcedOptions(EnforcedOptionParam[] enforcedOptions) external;
    }

    /// Morpho Blue (`@morpho-org/morpho-blue@1.0.0`'s source, compiled as
    /// deployed): what the world and the flash loans use of it.
    #[sol(all_derives)]
    contract MorphoBlue {
        constructor(address newOwner);
        function owner() external view returns (address);
        function flashLoan(address token, uint256 assets, bytes data) external;
        event FlashLoan(address indexed caller, address indexed token, uint256 assets);
    }

    /// `@stargatefinance/stg-evm-v2` `FeeLibV1` (npm).
    #[sol(all_derives)]
    contract StargateFeeLib {
        constructor(address stargate);
        function setFeeConfig(
            uint32 dstEid,
            uint64 zone1UpperBound,
            uint64 zone2UpperBound,
            uint24 zone1FeeMillionth,
            uint24 zone2FeeMillionth,
            uint24 zone3FeeMillionth,
            uint24 rewardMillionth
        ) external;
    }

    /// `contracts/src/ComposeReceiver.sol`: Enso's `LayerZeroReceiver`.
    #[sol(all_derives)]
    contract ComposeReceiver {
        constructor(address endpoint, address router, address owner);
        event ShortcutExecutionSuccessful(bytes32 guid);
        event ShortcutExecutionFailed(bytes32 guid, bytes error);
        function setOFTs(address[] ofts) external;
        function validOFT(address oft) external view returns (bool);
    }
}

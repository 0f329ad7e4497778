// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {mulDivDown} from "./WideMath.sol";

interface IAaveERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

interface IReferenceATokenLike {
    function POOL() external view returns (address);
    function UNDERLYING_ASSET_ADDRESS() external view returns (address);
    function decimals() external view returns (uint8);
    function balanceOf(address user) external view returns (uint256);
    function mint(address caller, address onBehalfOf, uint256 amount, uint256 index) external returns (bool);
    function burn(address from, address receiverOfUnderlying, uint256 amount, uint256 index) external;
}

interface IReferenceDebtTokenLike {
    function POOL() external view returns (address);
    function UNDERLYING_ASSET_ADDRESS() external view returns (address);
    function balanceOf(address user) external view returns (uint256);
    function mint(address caller, address onBehalfOf, uint256 amount) external returns (bool, uint256);
    function burn(address from, uint256 amount) external returns (uint256);
}

/// @title Reference Aave V3 pool for differential tests.
/// @notice The supply and variable-borrow sides of Aave V3's `Pool`
/// interface (`supply`, the legacy `deposit`, `withdraw`, `borrow`, `repay`,
/// `getUserAccountData`, `getReserveNormalizedIncome`) over reserves whose
/// indexes are fixed: the liquidity index is set once by `initReserve` and the
/// variable borrow index is one ray; neither ever accrues (no interest rates,
/// no time). The receipts are `ReferenceAToken`s, whose scaled arithmetic
/// rounds half up, and the debts `ReferenceVariableDebtToken`s, in which one
/// unit of debt is one unit borrowed.
///
/// The pool itself holds the underlying of every reserve (Aave keeps it in
/// the aToken): a reserve's available liquidity is the asset's
/// `balanceOf(pool)`, which a fixture raises by minting the asset to the pool
/// (other suppliers' cash) and lowers by burning it from there, and which
/// `borrow` lowers and `repay` raises.
///
/// - `supply(asset, amount, onBehalfOf, _)`: pulls `amount` from the caller
///   and mints `rayDiv(amount, index)` scaled units to `onBehalfOf`.
/// - `withdraw(asset, amount, to)`: `amount == type(uint256).max` withdraws
///   the caller's whole balance, `rayMul(scaled, index)`. Reverts with
///   `NotEnoughAvailableUserBalance` above the caller's balance, with
///   `NotEnoughLiquidity` above the pool's balance of the asset, and with the
///   aToken's `InvalidBurnAmount` when `rayDiv(amount, index)` is zero; pays
///   `amount` to `to` 1:1 otherwise. An account that owes anything must stay
///   healthy afterwards (below), or it reverts with
///   `HealthFactorLowerThanLiquidationThreshold`; aToken transfers out of such
///   an account are held to the same check (`finalizeTransfer`).
/// - `borrow(asset, amount, 2, _, onBehalfOf)`: variable rate only, and only
///   for oneself (`onBehalfOf == msg.sender`: no credit delegation). Mints
///   `amount` of debt to the caller and pays it `amount` of the asset, if the
///   pool holds that much and the caller stays healthy with the new debt.
/// - `repay(asset, amount, 2, onBehalfOf)`: pulls `min(amount, debt)` from the
///   caller (`type(uint256).max`: the whole debt, only for oneself, as Aave)
///   and clears that much of `onBehalfOf`'s debt; returns it.
///
/// Risk arithmetic, all integer, in USD with 8 decimals ("base"), over every
/// listed reserve in listing order. `price` is the deployer's
/// `setAssetPrice` (USD 1e8 per whole token), `ltv` its `setLtv` (bps),
/// `unit = 10^aToken.decimals()`:
///
/// - collateral of a reserve, when `ltv > 0` and `price > 0` (the others are
///   not collateral; every aToken balance of such a reserve is, there is no
///   per-user switch): `value = floor(aToken.balanceOf(user) * price / unit)`;
///   its borrowing capacity `floor(value * ltv / 10000)`;
/// - debt of a reserve: `ceil(debtToken.balanceOf(user) * price / unit)`;
/// - `totalCollateralBase = Σ value`, `capacity = Σ floor(value * ltv / 1e4)`,
///   `totalDebtBase = Σ debt` (rounded per reserve; the collateral down, the
///   debt up, both against the borrower);
/// - an account is healthy when `totalDebtBase <= capacity`. `borrow` checks
///   it with the borrowed reserve's debt balance raised by `amount` before
///   rounding, and reverts with `CollateralCannotCoverNewBorrow(debt,
///   capacity)` otherwise.
///
/// Unlike Aave there is no separate liquidation threshold (it equals the
/// LTV), no liquidation, e-mode, isolation, caps or stable rate.
contract ReferenceAavePool {
    uint256 private constant RAY = 1e27;
    uint256 private constant WAD = 1e18;
    uint256 private constant PERCENTAGE_FACTOR = 1e4;
    /// @notice Aave's `InterestRateMode.VARIABLE`, the only one served.
    uint256 private constant VARIABLE_RATE_MODE = 2;

    /// @notice Who may call `initReserve`, `initDebt`, `setAssetPrice` and
    /// `setLtv`.
    address public immutable deployer;

    struct Reserve {
        address aToken;
        uint256 liquidityIndex;
    }

    mapping(address => Reserve) private _reserves;
    /// @dev Listed assets, in `initReserve` order.
    address[] private _reserveList;
    mapping(address => address) private _debtTokens;
    /// @dev USD per whole token, 8 decimals.
    mapping(address => uint256) private _prices;
    /// @dev Loan to value, bps.
    mapping(address => uint16) private _ltvs;

    event ReserveInitialized(address indexed asset, address indexed aToken, uint256 liquidityIndex);
    event DebtInitialized(address indexed asset, address indexed variableDebtToken);
    event AssetPriceSet(address indexed asset, uint256 priceUsd1e8);
    event LtvSet(address indexed asset, uint16 ltvBps);
    /// @notice Aave V3's `IPool.Supply`, also emitted by `deposit`.
    event Supply(
        address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode
    );
    /// @notice Aave V3's `IPool.Withdraw`.
    event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount);
    /// @notice Aave V3's `IPool.Borrow` (`interestRateMode` is the
    /// `DataTypes.InterestRateMode` enum, 2 here; `borrowRate` is 0: nothing
    /// accrues).
    event Borrow(
        address indexed reserve,
        address user,
        address indexed onBehalfOf,
        uint256 amount,
        uint8 interestRateMode,
        uint256 borrowRate,
        uint16 indexed referralCode
    );
    /// @notice Aave V3's `IPool.Repay`; `useATokens` is always false.
    event Repay(address indexed reserve, address indexed user, address indexed repayer, uint256 amount, bool useATokens);

    error NotDeployer();
    error ReserveAlreadyInitialized(address asset);
    error ReserveNotInitialized(address asset);
    error InvalidLiquidityIndex(uint256 liquidityIndex);
    error ATokenMismatch(address aToken);
    error InvalidAmount();
    error NotEnoughAvailableUserBalance(uint256 requested, uint256 balance);
    error NotEnoughLiquidity(uint256 requested, uint256 available);
    error TransferFailed();
    error DebtAlreadyInitialized(address asset);
    error DebtTokenMismatch(address debtToken);
    error BorrowingNotEnabled(address asset);
    error InvalidPrice();
    error InvalidLtv(uint16 ltvBps);
    error AssetPriceNotSet(address asset);
    error InvalidInterestRateModeSelected(uint256 interestRateMode);
    error CreditDelegationNotSupported(address onBehalfOf);
    error CollateralCannotCoverNewBorrow(uint256 debtBase, uint256 borrowCapacityBase);
    error NoDebtOfSelectedType();
    error NoExplicitAmountToRepayOnBehalf();
    error HealthFactorLowerThanLiquidationThreshold(uint256 debtBase, uint256 borrowCapacityBase);
    error CallerNotAToken();

    constructor() {
        deployer = msg.sender;
    }

    modifier onlyDeployer() {
        if (msg.sender != deployer) revert NotDeployer();
        _;
    }

    /// @notice Lists `asset` with its receipt `aToken` (deployed with this
    /// pool and `asset`) at a fixed `liquidityIndex`, at least one ray as
    /// Aave's index always is. Deployer only, once per asset.
    function initReserve(address asset, address aToken, uint256 liquidityIndex) external onlyDeployer {
        if (_reserves[asset].aToken != address(0)) revert ReserveAlreadyInitialized(asset);
        if (liquidityIndex < RAY) revert InvalidLiquidityIndex(liquidityIndex);
        if (
            aToken == address(0) || IReferenceATokenLike(aToken).POOL() != address(this)
                || IReferenceATokenLike(aToken).UNDERLYING_ASSET_ADDRESS() != asset
        ) revert ATokenMismatch(aToken);
        _reserves[asset] = Reserve(aToken, liquidityIndex);
        _reserveList.push(asset);
        emit ReserveInitialized(asset, aToken, liquidityIndex);
    }

    /// @notice Enables variable borrowing of the listed `asset`, recording
    /// debts in `debtToken` (a `ReferenceVariableDebtToken` deployed with this
    /// pool and `asset`). Deployer only, once per asset.
    function initDebt(address asset, address debtToken) external onlyDeployer {
        _reserve(asset);
        if (_debtTokens[asset] != address(0)) revert DebtAlreadyInitialized(asset);
        if (
            debtToken == address(0) || IReferenceDebtTokenLike(debtToken).POOL() != address(this)
                || IReferenceDebtTokenLike(debtToken).UNDERLYING_ASSET_ADDRESS() != asset
        ) revert DebtTokenMismatch(debtToken);
        _debtTokens[asset] = debtToken;
        emit DebtInitialized(asset, debtToken);
    }

    /// @notice Sets the price of the listed `asset`: USD per whole token with
    /// 8 decimals (Aave's base currency), not zero. Deployer only, any time.
    function setAssetPrice(address asset, uint256 priceUsd1e8) external onlyDeployer {
        _reserve(asset);
        if (priceUsd1e8 == 0) revert InvalidPrice();
        _prices[asset] = priceUsd1e8;
        emit AssetPriceSet(asset, priceUsd1e8);
    }

    /// @notice Sets the loan to value of the listed `asset` in bps (at most
    /// 10000; 0, the default, means it is not collateral). Deployer only.
    function setLtv(address asset, uint16 ltvBps) external onlyDeployer {
        _reserve(asset);
        if (ltvBps > PERCENTAGE_FACTOR) revert InvalidLtv(ltvBps);
        _ltvs[asset] = ltvBps;
        emit LtvSet(asset, ltvBps);
    }

    // ---- views ----

    /// @notice The reserve's liquidity index (ray); 0 for an unlisted asset.
    function getReserveNormalizedIncome(address asset) external view returns (uint256) {
        return _reserves[asset].liquidityIndex;
    }

    /// @notice The reserve's variable borrow index: one ray for a listed
    /// asset (it never accrues here), 0 for an unlisted one.
    function getReserveNormalizedVariableDebt(address asset) external view returns (uint256) {
        return _reserves[asset].aToken == address(0) ? 0 : RAY;
    }

    /// @notice The aToken of `asset` (the `aTokenAddress` of Aave's
    /// `getReserveData`); the zero address for an unlisted asset.
    function aTokenOf(address asset) external view returns (address) {
        return _reserves[asset].aToken;
    }

    /// @notice The variable debt token of `asset` (the
    /// `variableDebtTokenAddress` of Aave's `getReserveData`); the zero
    /// address where borrowing is not enabled.
    function debtTokenOf(address asset) external view returns (address) {
        return _debtTokens[asset];
    }

    /// @notice The listed assets, in listing order (Aave's `getReservesList`).
    function getReservesList() external view returns (address[] memory) {
        return _reserveList;
    }

    /// @notice The deployer's price of `asset`, USD with 8 decimals per whole
    /// token (what Aave's oracle, a separate contract, answers); 0 if unset.
    function getAssetPrice(address asset) external view returns (uint256) {
        return _prices[asset];
    }

    /// @notice The loan to value of `asset`, bps.
    function getLtv(address asset) external view returns (uint16) {
        return _ltvs[asset];
    }

    /// @notice Aave's account summary, in USD with 8 decimals:
    /// `totalCollateralBase` and `totalDebtBase` as in the contract notice;
    /// `availableBorrowsBase = capacity - totalDebtBase`, or 0 when the debt
    /// is not below the capacity; `ltv` (and `currentLiquidationThreshold`,
    /// the same here) the collateral-weighted average
    /// `floor(Σ value * ltv / totalCollateralBase)`, 0 without collateral;
    /// `healthFactor = floor(capacity * 1e18 / totalDebtBase)` (Aave's wad),
    /// `type(uint256).max` without debt. An account is healthy exactly when
    /// `healthFactor >= 1e18`, and may borrow a further `x` exactly when its
    /// debt with `x` added is at most `capacity`.
    function getUserAccountData(address user)
        external
        view
        returns (
            uint256 totalCollateralBase,
            uint256 totalDebtBase,
            uint256 availableBorrowsBase,
            uint256 currentLiquidationThreshold,
            uint256 ltv,
            uint256 healthFactor
        )
    {
        uint256 capacity;
        uint256 weighted;
        (totalCollateralBase, capacity, weighted, totalDebtBase) = _accountTotals(user, address(0), 0);
        availableBorrowsBase = capacity > totalDebtBase ? capacity - totalDebtBase : 0;
        ltv = totalCollateralBase == 0 ? 0 : weighted / totalCollateralBase;
        currentLiquidationThreshold = ltv;
        healthFactor = totalDebtBase == 0 ? type(uint256).max : mulDivDown(capacity, WAD, totalDebtBase);
    }

    // ---- actions ----

    /// @notice Supplies `amount` of `asset` from the caller; `onBehalfOf`
    /// receives the aTokens.
    function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) public {
        Reserve memory r = _reserve(asset);
        if (amount == 0) revert InvalidAmount();
        (bool ok, bytes memory ret) =
            asset.call(abi.encodeCall(IAaveERC20Like.transferFrom, (msg.sender, address(this), amount)));
        _checkTransfer(ok, ret);
        IReferenceATokenLike(r.aToken).mint(msg.sender, onBehalfOf, amount, r.liquidityIndex);
        emit Supply(asset, msg.sender, onBehalfOf, amount, referralCode);
    }

    /// @notice Aave V2's name for `supply`, kept by V3.
    function deposit(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external {
        supply(asset, amount, onBehalfOf, referralCode);
    }

    /// @notice Burns the caller's aTokens for `amount` (`type(uint256).max`:
    /// the whole balance) and pays that much of `asset` to `to`. A caller
    /// that owes anything must stay healthy.
    /// @return The amount withdrawn.
    function withdraw(address asset, uint256 amount, address to) external returns (uint256) {
        Reserve memory r = _reserve(asset);
        uint256 balance = IReferenceATokenLike(r.aToken).balanceOf(msg.sender);
        uint256 amountToWithdraw = amount == type(uint256).max ? balance : amount;
        if (amountToWithdraw == 0) revert InvalidAmount();
        if (amountToWithdraw > balance) revert NotEnoughAvailableUserBalance(amountToWithdraw, balance);
        uint256 available = IAaveERC20Like(asset).balanceOf(address(this));
        if (amountToWithdraw > available) revert NotEnoughLiquidity(amountToWithdraw, available);
        IReferenceATokenLike(r.aToken).burn(msg.sender, to, amountToWithdraw, r.liquidityIndex);
        (bool ok, bytes memory ret) = asset.call(abi.encodeCall(IAaveERC20Like.transfer, (to, amountToWithdraw)));
        _checkTransfer(ok, ret);
        _requireHealthyIfBorrowing(msg.sender);
        emit Withdraw(asset, msg.sender, to, amountToWithdraw);
        return amountToWithdraw;
    }

    /// @notice Borrows `amount` of `asset` at the variable rate
    /// (`interestRateMode == 2`) against the caller's collateral, paying it to
    /// the caller. `onBehalfOf` must be the caller: there is no credit
    /// delegation. Checks, in order: the reserve is listed
    /// (`ReserveNotInitialized`) and borrowable (`BorrowingNotEnabled`),
    /// `amount > 0` (`InvalidAmount`), the rate mode
    /// (`InvalidInterestRateModeSelected`), `onBehalfOf`
    /// (`CreditDelegationNotSupported`), the asset's price
    /// (`AssetPriceNotSet`), the pool's balance of the asset
    /// (`NotEnoughLiquidity`), then health with the new debt
    /// (`CollateralCannotCoverNewBorrow(debtBase, capacityBase)`).
    function borrow(address asset, uint256 amount, uint256 interestRateMode, uint16 referralCode, address onBehalfOf)
        external
    {
        address debtToken = _debtToken(asset);
        if (amount == 0) revert InvalidAmount();
        if (interestRateMode != VARIABLE_RATE_MODE) revert InvalidInterestRateModeSelected(interestRateMode);
        if (onBehalfOf != msg.sender) revert CreditDelegationNotSupported(onBehalfOf);
        if (_prices[asset] == 0) revert AssetPriceNotSet(asset);
        uint256 available = IAaveERC20Like(asset).balanceOf(address(this));
        if (amount > available) revert NotEnoughLiquidity(amount, available);
        (, uint256 capacity,, uint256 debt) = _accountTotals(onBehalfOf, asset, amount);
        if (debt > capacity) revert CollateralCannotCoverNewBorrow(debt, capacity);
        IReferenceDebtTokenLike(debtToken).mint(msg.sender, onBehalfOf, amount);
        (bool ok, bytes memory ret) = asset.call(abi.encodeCall(IAaveERC20Like.transfer, (msg.sender, amount)));
        _checkTransfer(ok, ret);
        emit Borrow(asset, msg.sender, onBehalfOf, amount, uint8(VARIABLE_RATE_MODE), 0, referralCode);
    }

    /// @notice Repays `min(amount, debt)` of `onBehalfOf`'s variable debt in
    /// `asset`, pulling it from the caller. `type(uint256).max` repays the
    /// whole debt and is only allowed for oneself
    /// (`NoExplicitAmountToRepayOnBehalf`); an account that owes nothing
    /// reverts with `NoDebtOfSelectedType`.
    /// @return The amount repaid.
    function repay(address asset, uint256 amount, uint256 interestRateMode, address onBehalfOf)
        external
        returns (uint256)
    {
        address debtToken = _debtToken(asset);
        if (amount == 0) revert InvalidAmount();
        if (interestRateMode != VARIABLE_RATE_MODE) revert InvalidInterestRateModeSelected(interestRateMode);
        if (amount == type(uint256).max && onBehalfOf != msg.sender) revert NoExplicitAmountToRepayOnBehalf();
        uint256 debt = IReferenceDebtTokenLike(debtToken).balanceOf(onBehalfOf);
        if (debt == 0) revert NoDebtOfSelectedType();
        uint256 paybackAmount = amount < debt ? amount : debt;
        IReferenceDebtTokenLike(debtToken).burn(onBehalfOf, paybackAmount);
        (bool ok, bytes memory ret) =
            asset.call(abi.encodeCall(IAaveERC20Like.transferFrom, (msg.sender, address(this), paybackAmount)));
        _checkTransfer(ok, ret);
        emit Repay(asset, onBehalfOf, msg.sender, paybackAmount, false);
        return paybackAmount;
    }

    /// @notice Called by a reserve's aToken after it moved `amount` from
    /// `from` to `to` (Aave's hook): an account that owes anything must still
    /// be healthy, or the transfer reverts with
    /// `HealthFactorLowerThanLiquidationThreshold`.
    function finalizeTransfer(address asset, address from, address to, uint256 amount, uint256, uint256)
        external
        view
    {
        if (msg.sender != _reserves[asset].aToken || msg.sender == address(0)) revert CallerNotAToken();
        if (from != to && amount != 0) _requireHealthyIfBorrowing(from);
    }

    // ---- internals ----

    function _reserve(address asset) private view returns (Reserve memory r) {
        r = _reserves[asset];
        if (r.aToken == address(0)) revert ReserveNotInitialized(asset);
    }

    function _debtToken(address asset) private view returns (address debtToken) {
        _reserve(asset);
        debtToken = _debtTokens[asset];
        if (debtToken == address(0)) revert BorrowingNotEnabled(asset);
    }

    /// @dev Reverts when `user` owes anything and is not healthy. An account
    /// without debt costs one `balanceOf` per borrowable reserve.
    function _requireHealthyIfBorrowing(address user) private view {
        uint256 n = _reserveList.length;
        for (uint256 i = 0; i < n; ++i) {
            address debtToken = _debtTokens[_reserveList[i]];
            if (debtToken != address(0) && IReferenceDebtTokenLike(debtToken).balanceOf(user) != 0) {
                (, uint256 capacity,, uint256 debt) = _accountTotals(user, address(0), 0);
                if (debt > capacity) revert HealthFactorLowerThanLiquidationThreshold(debt, capacity);
                return;
            }
        }
    }

    /// @dev The contract notice's sums for `user`, with `extraDebt` added to
    /// its debt balance in `debtAsset` before that reserve's rounding:
    /// `collateral = Σ value`, `capacity = Σ floor(value * ltv / 1e4)`,
    /// `weighted = Σ value * ltv`, `debt = Σ ceil(balance * price / unit)`.
    function _accountTotals(address user, address debtAsset, uint256 extraDebt)
        private
        view
        returns (uint256 collateral, uint256 capacity, uint256 weighted, uint256 debt)
    {
        uint256 n = _reserveList.length;
        for (uint256 i = 0; i < n; ++i) {
            address asset = _reserveList[i];
            (uint256 value, uint256 ltv) = _collateralValue(user, asset);
            if (value != 0) {
                collateral += value;
                capacity += value * ltv / PERCENTAGE_FACTOR;
                weighted += value * ltv;
            }
            debt += _debtValue(user, asset, asset == debtAsset ? extraDebt : 0);
        }
    }

    /// @dev `floor(aToken.balanceOf(user) * price / unit)` and the LTV, for a
    /// reserve with a price and a nonzero LTV; `(0, 0)` for the others.
    function _collateralValue(address user, address asset) private view returns (uint256 value, uint256 ltv) {
        uint256 price = _prices[asset];
        ltv = _ltvs[asset];
        if (ltv == 0 || price == 0) return (0, 0);
        address aToken = _reserves[asset].aToken;
        uint256 balance = IReferenceATokenLike(aToken).balanceOf(user);
        if (balance != 0) value = mulDivDown(balance, price, _unit(aToken));
    }

    /// @dev `ceil((debtToken.balanceOf(user) + extra) * price / unit)`; 0
    /// where borrowing is not enabled.
    function _debtValue(address user, address asset, uint256 extra) private view returns (uint256) {
        address debtToken = _debtTokens[asset];
        if (debtToken == address(0)) return 0;
        uint256 owed = IReferenceDebtTokenLike(debtToken).balanceOf(user) + extra;
        if (owed == 0) return 0;
        return _mulDivUp(owed, _prices[asset], _unit(_reserves[asset].aToken));
    }

    /// @dev One whole token of the reserve: `10^decimals` of its aToken
    /// (an aToken has its underlying's decimals).
    function _unit(address aToken) private view returns (uint256) {
        return 10 ** uint256(IReferenceATokenLike(aToken).decimals());
    }

    /// @dev `ceil(x * y / d)` at 512-bit precision.
    function _mulDivUp(uint256 x, uint256 y, uint256 d) private pure returns (uint256 q) {
        q = mulDivDown(x, y, d);
        if (mulmod(x, y, d) != 0) q += 1;
    }

    /// @dev A token call succeeded and returned `true` or nothing.
    function _checkTransfer(bool ok, bytes memory ret) private pure {
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}

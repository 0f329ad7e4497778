// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IAaveERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

interface IReferenceATokenLike {
    function POOL() external view returns (address);
    function UNDERLYING_ASSET_ADDRESS() external view returns (address);
    function balanceOf(address user) external view returns (uint256);
    function mint(address caller, address onBehalfOf, uint256 amount, uint256 index) external returns (bool);
    function burn(address from, address receiverOfUnderlying, uint256 amount, uint256 index) external;
}

/// @title Reference Aave V3 pool for differential tests.
/// @notice The supply side of Aave V3's `Pool` interface (`supply`, the
/// legacy `deposit`, `withdraw`, `getReserveNormalizedIncome`) over reserves
/// whose liquidity index is fixed: it is set once by `initReserve` and never
/// accrues (no borrowing, no interest, no time). The receipts are
/// `ReferenceAToken`s, whose scaled arithmetic rounds half up.
///
/// The pool itself holds the underlying of every reserve (Aave keeps it in
/// the aToken): a reserve's available liquidity is the asset's
/// `balanceOf(pool)`, which a fixture raises by minting the asset to the pool
/// (other suppliers' cash) and lowers by burning it from there (borrowers).
///
/// - `supply(asset, amount, onBehalfOf, _)`: pulls `amount` from the caller
///   and mints `rayDiv(amount, index)` scaled units to `onBehalfOf`.
/// - `withdraw(asset, amount, to)`: `amount == type(uint256).max` withdraws
///   the caller's whole balance, `rayMul(scaled, index)`. Reverts with
///   `NotEnoughAvailableUserBalance` above the caller's balance, with
///   `NotEnoughLiquidity` above the pool's balance of the asset, and with the
///   aToken's `InvalidBurnAmount` when `rayDiv(amount, index)` is zero; pays
///   `amount` to `to` 1:1 otherwise.
contract ReferenceAavePool {
    uint256 private constant RAY = 1e27;

    /// @notice Who may call `initReserve`.
    address public immutable deployer;

    struct Reserve {
        address aToken;
        uint256 liquidityIndex;
    }

    mapping(address => Reserve) private _reserves;

    event ReserveInitialized(address indexed asset, address indexed aToken, uint256 liquidityIndex);
    /// @notice Aave V3's `IPool.Supply`, also emitted by `deposit`.
    event Supply(
        address indexed reserve, address user, address indexed onBehalfOf, uint256 amount, uint16 indexed referralCode
    );
    /// @notice Aave V3's `IPool.Withdraw`.
    event Withdraw(address indexed reserve, address indexed user, address indexed to, uint256 amount);

    error NotDeployer();
    error ReserveAlreadyInitialized(address asset);
    error ReserveNotInitialized(address asset);
    error InvalidLiquidityIndex(uint256 liquidityIndex);
    error ATokenMismatch(address aToken);
    error InvalidAmount();
    error NotEnoughAvailableUserBalance(uint256 requested, uint256 balance);
    error NotEnoughLiquidity(uint256 requested, uint256 available);
    error TransferFailed();

    constructor() {
        deployer = msg.sender;
    }

    /// @notice Lists `asset` with its receipt `aToken` (deployed with this
    /// pool and `asset`) at a fixed `liquidityIndex`, at least one ray as
    /// Aave's index always is. Deployer only, once per asset.
    function initReserve(address asset, address aToken, uint256 liquidityIndex) external {
        if (msg.sender != deployer) revert NotDeployer();
        if (_reserves[asset].aToken != address(0)) revert ReserveAlreadyInitialized(asset);
        if (liquidityIndex < RAY) revert InvalidLiquidityIndex(liquidityIndex);
        if (
            aToken == address(0) || IReferenceATokenLike(aToken).POOL() != address(this)
                || IReferenceATokenLike(aToken).UNDERLYING_ASSET_ADDRESS() != asset
        ) revert ATokenMismatch(aToken);
        _reserves[asset] = Reserve(aToken, liquidityIndex);
        emit ReserveInitialized(asset, aToken, liquidityIndex);
    }

    // ---- views ----

    /// @notice The reserve's liquidity index (ray); 0 for an unlisted asset.
    function getReserveNormalizedIncome(address asset) external view returns (uint256) {
        return _reserves[asset].liquidityIndex;
    }

    /// @notice The aToken of `asset` (the `aTokenAddress` of Aave's
    /// `getReserveData`); the zero address for an unlisted asset.
    function aTokenOf(address asset) external view returns (address) {
        return _reserves[asset].aToken;
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
    /// the whole balance) and pays that much of `asset` to `to`.
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
        emit Withdraw(asset, msg.sender, to, amountToWithdraw);
        return amountToWithdraw;
    }

    // ---- internals ----

    function _reserve(address asset) private view returns (Reserve memory r) {
        r = _reserves[asset];
        if (r.aToken == address(0)) revert ReserveNotInitialized(asset);
    }

    /// @dev A token call succeeded and returned `true` or nothing.
    function _checkTransfer(bool ok, bytes memory ret) private pure {
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}

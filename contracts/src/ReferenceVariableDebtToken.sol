// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reference Aave V3 variable debt token for tests.
/// @notice The public variable-debt-token interface of one reserve of
/// `ReferenceAavePool`: an ERC-20-shaped record of what each account owes,
/// which only the pool mints (on `borrow`) and burns (on `repay`).
///
/// The variable borrow index is fixed at one ray in this fixture (nothing
/// accrues: no rates, no time), so a scaled unit is one unit of debt:
/// `balanceOf(user) == scaledBalanceOf(user)` is exactly the amount borrowed
/// less the amount repaid, with no rounding anywhere, and `totalSupply` is the
/// sum of the balances.
///
/// Debt cannot be moved: `transfer`, `transferFrom`, `approve`, `allowance`,
/// `increaseAllowance` and `decreaseAllowance` revert with
/// `OperationNotSupported`, as Aave's debt tokens do. There is no credit
/// delegation (`approveDelegation`/`borrowAllowance` are absent): the pool
/// only lets an account borrow for itself.
contract ReferenceVariableDebtToken {
    /// @notice The variable borrow index of the fixture: one ray, forever.
    uint256 private constant RAY = 1e27;

    /// @notice The pool allowed to mint and burn.
    address public immutable POOL;
    /// @notice The asset whose debt this token records.
    address public immutable UNDERLYING_ASSET_ADDRESS;
    string public name;
    string public symbol;
    uint8 public immutable decimals;

    mapping(address => uint256) private _scaledBalance;
    uint256 private _scaledTotalSupply;

    event Transfer(address indexed from, address indexed to, uint256 value);
    /// @notice Aave V3's `IScaledBalanceToken.Mint`; `balanceIncrease` (the
    /// interest accrued since the account's last action) is always 0 here and
    /// `index` always one ray.
    event Mint(
        address indexed caller, address indexed onBehalfOf, uint256 value, uint256 balanceIncrease, uint256 index
    );
    /// @notice Aave V3's `IScaledBalanceToken.Burn`; `balanceIncrease` is 0
    /// and `index` one ray.
    event Burn(address indexed from, address indexed target, uint256 value, uint256 balanceIncrease, uint256 index);

    error OnlyPool();
    error InvalidMintAmount();
    error InvalidBurnAmount();
    error OperationNotSupported();

    constructor(address pool, address underlying, string memory name_, string memory symbol_, uint8 decimals_) {
        POOL = pool;
        UNDERLYING_ASSET_ADDRESS = underlying;
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    modifier onlyPool() {
        if (msg.sender != POOL) revert OnlyPool();
        _;
    }

    // ---- balances ----

    /// @notice What `user` owes: its scaled balance times an index of one ray,
    /// i.e. exactly its scaled balance.
    function balanceOf(address user) external view returns (uint256) {
        return _scaledBalance[user];
    }

    /// @notice The reserve's total variable debt (the sum of the balances).
    function totalSupply() external view returns (uint256) {
        return _scaledTotalSupply;
    }

    function scaledBalanceOf(address user) external view returns (uint256) {
        return _scaledBalance[user];
    }

    function scaledTotalSupply() external view returns (uint256) {
        return _scaledTotalSupply;
    }

    function getScaledUserBalanceAndSupply(address user) external view returns (uint256, uint256) {
        return (_scaledBalance[user], _scaledTotalSupply);
    }

    // ---- pool-only ----

    /// @notice Records `amount` more debt for `onBehalfOf`.
    /// @return firstBorrow Whether `onBehalfOf` owed nothing before.
    /// @return totalDebt The reserve's total variable debt afterwards.
    function mint(address caller, address onBehalfOf, uint256 amount) external onlyPool returns (bool, uint256) {
        if (amount == 0) revert InvalidMintAmount();
        bool firstBorrow = _scaledBalance[onBehalfOf] == 0;
        _scaledTotalSupply += amount;
        unchecked {
            // No balance exceeds the total.
            _scaledBalance[onBehalfOf] += amount;
        }
        emit Transfer(address(0), onBehalfOf, amount);
        emit Mint(caller, onBehalfOf, amount, 0, RAY);
        return (firstBorrow, _scaledTotalSupply);
    }

    /// @notice Clears `amount` of `from`'s debt; reverts (checked arithmetic)
    /// above what it owes.
    /// @return The reserve's total variable debt afterwards.
    function burn(address from, uint256 amount) external onlyPool returns (uint256) {
        if (amount == 0) revert InvalidBurnAmount();
        _scaledBalance[from] -= amount;
        unchecked {
            _scaledTotalSupply -= amount;
        }
        emit Transfer(from, address(0), amount);
        emit Burn(from, address(0), amount, 0, RAY);
        return _scaledTotalSupply;
    }

    // ---- ERC-20 surface: debt does not move ----

    function transfer(address, uint256) external pure returns (bool) {
        revert OperationNotSupported();
    }

    function transferFrom(address, address, uint256) external pure returns (bool) {
        revert OperationNotSupported();
    }

    function approve(address, uint256) external pure returns (bool) {
        revert OperationNotSupported();
    }

    function allowance(address, address) external pure returns (uint256) {
        revert OperationNotSupported();
    }

    function increaseAllowance(address, uint256) external pure returns (bool) {
        revert OperationNotSupported();
    }

    function decreaseAllowance(address, uint256) external pure returns (bool) {
        revert OperationNotSupported();
    }
}

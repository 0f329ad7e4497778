// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {rayDiv, rayMul} from "./RayMath.sol";

interface IAaveIndexSource {
    function getReserveNormalizedIncome(address asset) external view returns (uint256);
    function finalizeTransfer(
        address asset,
        address from,
        address to,
        uint256 amount,
        uint256 balanceFromBefore,
        uint256 balanceToBefore
    ) external view;
}

/// @title Reference Aave V3 aToken for differential tests.
/// @notice The public aToken interface over scaled balances. A holder owns
/// scaled units; what it reads as a balance is `rayMul(scaled, index)`,
/// where `index` is the pool's `getReserveNormalizedIncome(underlying)`:
///
/// - a supply of `amount` mints `rayDiv(amount, index)` scaled units (and
///   reverts with `InvalidMintAmount` when that is zero), so a fresh holder
///   reads back `rayMul(rayDiv(amount, index), index)`, which can differ from
///   `amount` by up to `index / (2 ray) + 1/2` wei either way (at most 1 wei
///   for an index below 2 ray);
/// - a withdrawal of `amount` burns `rayDiv(amount, index)` scaled units
///   (reverting with `InvalidBurnAmount` when that is zero, which happens for
///   `amount < index / (2 * RAY)`, so only for indexes above 2 ray);
/// - `transfer(to, amount)` moves `rayDiv(amount, index)` scaled units and
///   checks nothing else: the recipient's balance grows by what those units
///   read as, not necessarily by `amount`. For an index of at least one ray,
///   `rayDiv(rayMul(s, index), index) == s`, so transferring a whole balance
///   moves every scaled unit and the recipient reads exactly that balance.
///   After moving, it calls the pool's `finalizeTransfer`, which reverts when
///   the sender owes debt and is no longer healthy (Aave's hook).
///
/// Ray math rounds half up as in Aave V3 up to v3.4 (`RayMath.sol`); Aave
/// v3.5 rounds the scaled amount of a mint down and of a burn up instead.
/// Scaled balances are full 256-bit words (Aave stores them in 128 bits and
/// reverts past that). The index never accrues here: the pool's fixture
/// index is fixed. Unlike Aave, this token does not hold the underlying; the
/// pool does (`ReferenceAavePool`), so `burn` only burns.
contract ReferenceAToken {
    /// @notice The pool allowed to mint and burn, and whose index it reads.
    address public immutable POOL;
    /// @notice The asset this token is a receipt for.
    address public immutable UNDERLYING_ASSET_ADDRESS;
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    mapping(address => mapping(address => uint256)) public allowance;

    mapping(address => uint256) private _scaledBalance;
    uint256 private _scaledTotalSupply;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    /// @notice Aave V3's `IScaledBalanceToken.Mint`; `balanceIncrease` is the
    /// interest accrued since the holder's last action, always 0 here.
    event Mint(
        address indexed caller, address indexed onBehalfOf, uint256 value, uint256 balanceIncrease, uint256 index
    );
    /// @notice Aave V3's `IScaledBalanceToken.Burn`; `balanceIncrease` is 0.
    event Burn(address indexed from, address indexed target, uint256 value, uint256 balanceIncrease, uint256 index);
    /// @notice Aave V3's `IAToken.BalanceTransfer`: `value` is in scaled units.
    event BalanceTransfer(address indexed from, address indexed to, uint256 value, uint256 index);

    error OnlyPool();
    error InvalidMintAmount();
    error InvalidBurnAmount();

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

    /// @notice `rayMul(scaledBalanceOf(user), index)`.
    function balanceOf(address user) public view returns (uint256) {
        return rayMul(_scaledBalance[user], _index());
    }

    /// @notice `rayMul(scaledTotalSupply(), index)`: not the sum of the
    /// balances, each of which rounds on its own.
    function totalSupply() external view returns (uint256) {
        return rayMul(_scaledTotalSupply, _index());
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

    /// @notice Mints `rayDiv(amount, index)` scaled units to `onBehalfOf`.
    /// @return firstSupply Whether `onBehalfOf` held nothing before.
    function mint(address caller, address onBehalfOf, uint256 amount, uint256 index)
        external
        onlyPool
        returns (bool firstSupply)
    {
        uint256 scaled = rayDiv(amount, index);
        if (scaled == 0) revert InvalidMintAmount();
        firstSupply = _scaledBalance[onBehalfOf] == 0;
        _scaledTotalSupply += scaled;
        unchecked {
            // No balance exceeds the scaled total supply.
            _scaledBalance[onBehalfOf] += scaled;
        }
        emit Transfer(address(0), onBehalfOf, amount);
        emit Mint(caller, onBehalfOf, amount, 0, index);
    }

    /// @notice Burns `rayDiv(amount, index)` scaled units of `from`; the pool
    /// pays `receiverOfUnderlying` itself.
    function burn(address from, address receiverOfUnderlying, uint256 amount, uint256 index) external onlyPool {
        uint256 scaled = rayDiv(amount, index);
        if (scaled == 0) revert InvalidBurnAmount();
        _scaledBalance[from] -= scaled;
        unchecked {
            _scaledTotalSupply -= scaled;
        }
        emit Transfer(from, address(0), amount);
        emit Burn(from, receiverOfUnderlying, amount, 0, index);
    }

    // ---- ERC-20 ----

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice Spends `amount` (balance units) of the allowance, with no
    /// unlimited value, as Aave's aToken does.
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        // Checked: reverts on an insufficient allowance.
        allowance[from][msg.sender] = allowed - amount;
        emit Approval(from, msg.sender, allowed - amount);
        _transfer(from, to, amount);
        return true;
    }

    // ---- internals ----

    function _index() private view returns (uint256) {
        return IAaveIndexSource(POOL).getReserveNormalizedIncome(UNDERLYING_ASSET_ADDRESS);
    }

    /// @dev Moves `rayDiv(amount, index)` scaled units; reverts (underflow)
    /// when the sender holds fewer, or when the pool's `finalizeTransfer`
    /// refuses (a sender with debt left unhealthy).
    function _transfer(address from, address to, uint256 amount) private {
        uint256 index = _index();
        uint256 scaled = rayDiv(amount, index);
        uint256 fromBefore = rayMul(_scaledBalance[from], index);
        uint256 toBefore = rayMul(_scaledBalance[to], index);
        _scaledBalance[from] -= scaled;
        unchecked {
            _scaledBalance[to] += scaled;
        }
        emit Transfer(from, to, amount);
        emit BalanceTransfer(from, to, scaled, index);
        IAaveIndexSource(POOL).finalizeTransfer(UNDERLYING_ASSET_ADDRESS, from, to, amount, fromBefore, toBefore);
    }
}

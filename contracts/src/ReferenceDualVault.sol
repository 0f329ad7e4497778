// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {mulDivDown} from "./WideMath.sol";

interface IDualVaultERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference two-token ("IPOR-style") vault for tests.
/// @notice A Switchyard reference fixture, not IPOR's code or exact
/// interface: a vault that takes two tokens at once, `tokenA` and `tokenB`
/// (each of at most 18 decimals), and mints ERC-20 shares of 18 decimals
/// that are claims on a pro-rata part of both holdings.
///
/// Holdings are the vault's balances of the two tokens (`totalAssets`), read
/// before a deposit's tokens arrive; tokens sent to the vault directly count.
/// With `S` shares outstanding, `heldA`/`heldB` held, `scaleX = 10^(18 -
/// decimalsX)`, `price` the price of one whole B in A (1e18 fixed
/// point) and every division rounding down:
///
/// - first deposit (`S == 0`):
///   `shares = amountA * scaleA + floor(amountB * scaleB * price / 1e18)`,
///   whatever the vault already holds (which the first depositor then owns);
/// - later deposits (`S > 0`): the smaller of `floor(amountA * S / heldA)`
///   and `floor(amountB * S / heldB)`, a token the vault holds none of being
///   left out of the minimum (it reverts with `NoAssets` when it holds
///   neither). The whole of both amounts is taken either way: what exceeds
///   the minimum ratio stays in the vault for every holder, so no deposit
///   dilutes the others and a depositor should bring the two in proportion;
/// - `redeem(shares)` pays `floor(shares * heldA / S)` and
///   `floor(shares * heldB / S)`.
///
/// A deposit that would mint no share reverts with `ZeroShares`, as does
/// redeeming 0. Products are taken at 512-bit precision (`WideMath.sol`),
/// except `amountB * scaleB` and `amountA * scaleA`, which revert past 256
/// bits.
contract ReferenceDualVault {
    uint256 private constant WAD = 1e18;

    address public immutable tokenA;
    address public immutable tokenB;
    uint256 private immutable _scaleA;
    uint256 private immutable _scaleB;

    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    /// @notice Whole B in whole A, 1e18 fixed point: what a first deposit's
    /// B counts for (set at deployment; the world writes a moved price into
    /// storage).
    uint256 public priceBInA;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Deposit(address indexed sender, address indexed owner, uint256 amountA, uint256 amountB, uint256 shares);
    event Withdraw(
        address indexed sender,
        address indexed receiver,
        address indexed owner,
        uint256 amountA,
        uint256 amountB,
        uint256 shares
    );

    error SameToken();
    error UnsupportedDecimals(address token);
    error ZeroShares();
    error NoAssets();
    error InsufficientBalance(uint256 requested, uint256 balance);
    error InsufficientAllowance(uint256 requested, uint256 allowed);
    error TransferFailed();

    constructor(address tokenA_, address tokenB_, uint256 priceBInA_, string memory name_, string memory symbol_) {
        if (tokenA_ == tokenB_) revert SameToken();
        tokenA = tokenA_;
        tokenB = tokenB_;
        _scaleA = 10 ** (18 - _decimals(tokenA_));
        _scaleB = 10 ** (18 - _decimals(tokenB_));
        name = name_;
        symbol = symbol_;
        priceBInA = priceBInA_;
    }

    // ---- views ----

    /// @notice The vault's holdings of `tokenA` and `tokenB`.
    function totalAssets() public view returns (uint256 a, uint256 b) {
        a = IDualVaultERC20Like(tokenA).balanceOf(address(this));
        b = IDualVaultERC20Like(tokenB).balanceOf(address(this));
    }

    /// @notice The shares `deposit(amountA, amountB, _)` would mint now; 0
    /// where it would revert with `ZeroShares` or `NoAssets`.
    function previewDeposit(uint256 amountA, uint256 amountB) external view returns (uint256 shares) {
        (uint256 a, uint256 b) = totalAssets();
        (shares,) = _sharesFor(amountA, amountB, a, b);
    }

    /// @notice What `redeem(shares, _, _)` would pay now.
    function previewRedeem(uint256 shares) public view returns (uint256 amountA, uint256 amountB) {
        uint256 supply = totalSupply;
        if (supply == 0) return (0, 0);
        (uint256 a, uint256 b) = totalAssets();
        amountA = mulDivDown(shares, a, supply);
        amountB = mulDivDown(shares, b, supply);
    }

    // ---- actions ----

    /// @notice Takes `amountA` of A and `amountB` of B from the caller and
    /// mints shares to `receiver` (contract notice).
    function deposit(uint256 amountA, uint256 amountB, address receiver) external returns (uint256 shares) {
        (uint256 a, uint256 b) = totalAssets();
        bool any;
        (shares, any) = _sharesFor(amountA, amountB, a, b);
        if (!any) revert NoAssets();
        if (shares == 0) revert ZeroShares();
        if (amountA != 0) _pull(tokenA, amountA);
        if (amountB != 0) _pull(tokenB, amountB);
        totalSupply += shares;
        unchecked {
            // No balance exceeds the total supply.
            balanceOf[receiver] += shares;
        }
        emit Transfer(address(0), receiver, shares);
        emit Deposit(msg.sender, receiver, amountA, amountB, shares);
    }

    /// @notice Burns `shares` of `owner` (the caller, or one that approved
    /// it) and pays their part of both holdings to `receiver`.
    function redeem(uint256 shares, address receiver, address owner)
        external
        returns (uint256 amountA, uint256 amountB)
    {
        if (shares == 0) revert ZeroShares();
        if (msg.sender != owner) _spendAllowance(owner, msg.sender, shares);
        (amountA, amountB) = previewRedeem(shares);
        uint256 held = balanceOf[owner];
        if (shares > held) revert InsufficientBalance(shares, held);
        unchecked {
            balanceOf[owner] = held - shares;
            totalSupply -= shares;
        }
        if (amountA != 0) _send(tokenA, receiver, amountA);
        if (amountB != 0) _send(tokenB, receiver, amountB);
        emit Transfer(owner, address(0), shares);
        emit Withdraw(msg.sender, receiver, owner, amountA, amountB, shares);
    }

    // ---- ERC-20 ----

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice An allowance of `type(uint256).max` is never spent.
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spendAllowance(from, msg.sender, amount);
        _move(from, to, amount);
        return true;
    }

    // ---- internals ----

    /// @dev The contract notice's share formula over holdings `a`, `b`;
    /// `any` is false when shares exist but neither token is held.
    function _sharesFor(uint256 amountA, uint256 amountB, uint256 a, uint256 b)
        private
        view
        returns (uint256 shares, bool any)
    {
        uint256 supply = totalSupply;
        if (supply == 0) {
            return (amountA * _scaleA + mulDivDown(amountB * _scaleB, priceBInA, WAD), true);
        }
        shares = type(uint256).max;
        if (a != 0) {
            shares = mulDivDown(amountA, supply, a);
            any = true;
        }
        if (b != 0) {
            uint256 byB = mulDivDown(amountB, supply, b);
            if (byB < shares) shares = byB;
            any = true;
        }
        if (!any) shares = 0;
    }

    function _spendAllowance(address owner, address spender, uint256 amount) private {
        uint256 allowed = allowance[owner][spender];
        if (allowed == type(uint256).max) return;
        if (amount > allowed) revert InsufficientAllowance(amount, allowed);
        unchecked {
            allowance[owner][spender] = allowed - amount;
        }
    }

    function _move(address from, address to, uint256 amount) private {
        uint256 held = balanceOf[from];
        if (amount > held) revert InsufficientBalance(amount, held);
        unchecked {
            balanceOf[from] = held - amount;
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }

    function _pull(address token, uint256 amount) private {
        _call(token, abi.encodeCall(IDualVaultERC20Like.transferFrom, (msg.sender, address(this), amount)));
    }

    function _send(address token, address to, uint256 amount) private {
        _call(token, abi.encodeCall(IDualVaultERC20Like.transfer, (to, amount)));
    }

    /// @dev A token call that must succeed and return `true` or nothing.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }

    /// @dev The token's `decimals()`, at most 18.
    function _decimals(address token) private view returns (uint256 d) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSignature("decimals()"));
        if (!ok || ret.length < 32) revert UnsupportedDecimals(token);
        d = abi.decode(ret, (uint256));
        if (d > 18) revert UnsupportedDecimals(token);
    }
}

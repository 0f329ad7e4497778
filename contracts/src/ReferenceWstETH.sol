// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IStETHLike {
    function getSharesByPooledEth(uint256 ethAmount) external view returns (uint256);
    function getPooledEthByShares(uint256 sharesAmount) external view returns (uint256);
    function transferFrom(address sender, address recipient, uint256 amount) external returns (bool);
    function transferShares(address recipient, uint256 sharesAmount) external returns (uint256);
    function submit(address referral) external payable returns (uint256);
}

/// @title Reference Lido wstETH for differential tests.
/// @notice Lido's public wstETH interface: a plain ERC-20 whose units are
/// stETH shares, over `ReferenceStETH`.
///
/// - `wrap(x)` mints `getSharesByPooledEth(x)` wstETH (rounded down; zero for
///   dust, which still takes the stETH, as Lido does) and pulls `x` stETH
///   with `transferFrom`, which moves that same number of shares. The caller
///   must have approved this contract for `x` on stETH.
/// - `unwrap(w)` burns `w` wstETH, sends exactly `w` shares back with
///   `transferShares`, and returns `getPooledEthByShares(w)`, rounded down:
///   what a holder with no shares before reads as its stETH balance after.
/// - A plain ETH transfer stakes it through `submit` and mints the shares
///   received as wstETH.
///
/// Neither wrapping nor unwrapping changes stETH's totals.
contract ReferenceWstETH {
    string public constant name = "Wrapped liquid staked Ether 2.0";
    string public constant symbol = "wstETH";
    uint8 public constant decimals = 18;

    /// @notice The stETH this token wraps.
    address public immutable stETH;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error ZeroWrap();
    error ZeroUnwrap();
    error TransferToZeroAddress();
    error TransferFailed();

    constructor(address stETH_) {
        stETH = stETH_;
    }

    /// @notice Wraps `stETHAmount` stETH of the caller.
    /// @return The wstETH minted, `getSharesByPooledEth(stETHAmount)`.
    function wrap(uint256 stETHAmount) external returns (uint256) {
        if (stETHAmount == 0) revert ZeroWrap();
        uint256 wstETHAmount = IStETHLike(stETH).getSharesByPooledEth(stETHAmount);
        _mint(msg.sender, wstETHAmount);
        if (!IStETHLike(stETH).transferFrom(msg.sender, address(this), stETHAmount)) revert TransferFailed();
        return wstETHAmount;
    }

    /// @notice Unwraps `wstETHAmount` wstETH of the caller into as many stETH
    /// shares.
    /// @return The stETH they are worth, `getPooledEthByShares(wstETHAmount)`.
    function unwrap(uint256 wstETHAmount) external returns (uint256) {
        if (wstETHAmount == 0) revert ZeroUnwrap();
        uint256 stETHAmount = IStETHLike(stETH).getPooledEthByShares(wstETHAmount);
        _burn(msg.sender, wstETHAmount);
        IStETHLike(stETH).transferShares(msg.sender, wstETHAmount);
        return stETHAmount;
    }

    /// @notice Stakes the ETH received and mints its shares as wstETH.
    receive() external payable {
        uint256 shares = IStETHLike(stETH).submit{value: msg.value}(address(0));
        _mint(msg.sender, shares);
    }

    // ---- conversions ----

    function getWstETHByStETH(uint256 stETHAmount) external view returns (uint256) {
        return IStETHLike(stETH).getSharesByPooledEth(stETHAmount);
    }

    function getStETHByWstETH(uint256 wstETHAmount) external view returns (uint256) {
        return IStETHLike(stETH).getPooledEthByShares(wstETHAmount);
    }

    /// @notice stETH per 1e18 wstETH.
    function stEthPerToken() external view returns (uint256) {
        return IStETHLike(stETH).getPooledEthByShares(1 ether);
    }

    /// @notice wstETH per 1e18 stETH.
    function tokensPerStEth() external view returns (uint256) {
        return IStETHLike(stETH).getSharesByPooledEth(1 ether);
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
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return true;
    }

    // ---- internals ----

    function _mint(address to, uint256 amount) private {
        totalSupply += amount;
        unchecked {
            balanceOf[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    function _burn(address from, uint256 amount) private {
        balanceOf[from] -= amount;
        unchecked {
            totalSupply -= amount;
        }
        emit Transfer(from, address(0), amount);
    }

    function _move(address from, address to, uint256 amount) private {
        if (to == address(0)) revert TransferToZeroAddress();
        balanceOf[from] -= amount;
        unchecked {
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {mulDivDown} from "./WideMath.sol";

/// @title Reference Lido stETH for differential tests.
/// @notice Lido's public stETH interface over shares. Holders own shares;
/// balances are derived, rounding down:
///
///     getSharesByPooledEth(x) = x * totalShares / totalPooledEther
///     getPooledEthByShares(s) = s * totalPooledEther / totalShares
///     balanceOf(a) = getPooledEthByShares(sharesOf(a))
///     totalSupply() = totalPooledEther
///
/// - `submit` (and a plain ETH transfer) mints `getSharesByPooledEth(value)`
///   shares at the totals before the deposit, then adds the ETH and the
///   shares to the totals, so the depositor reads back
///   `shares * (P + value) / (S + shares)`, not `shares * P / S`. A deposit
///   too small for one share mints nothing and keeps the ETH, as Lido does.
/// - `transfer(to, amount)` moves `getSharesByPooledEth(amount)` shares, so
///   the recipient's balance grows by `getPooledEthByShares` of those shares:
///   up to `ceil(P / S)` wei less than `amount` (1 or 2 wei at Lido's ratio
///   of about 1.2). `transferShares` moves exact shares.
///
/// The world writes the totals and the holders' shares into storage (Lido's
/// own state, which its oracle reports move); the contract has no function
/// to set them. There are no validators, oracle reports, rebases or withdrawals, and the ETH
/// received is only counted, never used. Products are taken at 512-bit
/// precision like the kernel's `mul_div` (`WideMath.sol`); Lido's SafeMath
/// reverts when they overflow 256 bits instead. Every
/// conversion (and so `submit` and `balanceOf`) reverts while the totals are
/// zero.
contract ReferenceStETH {
    string public constant name = "Liquid staked Ether 2.0";
    string public constant symbol = "stETH";
    uint8 public constant decimals = 18;

    uint256 private _totalPooledEther;
    uint256 private _totalShares;
    mapping(address => uint256) private _shares;
    mapping(address => mapping(address => uint256)) private _allowances;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    /// @notice Lido's `TransferShares`, beside every `Transfer`.
    event TransferShares(address indexed from, address indexed to, uint256 sharesValue);
    /// @notice Lido's `Submitted`.
    event Submitted(address indexed sender, uint256 amount, address referral);

    error ZeroDeposit();
    error BalanceExceeded(uint256 shares, uint256 held);
    error AllowanceExceeded(uint256 amount, uint256 allowed);
    error TransferToZeroAddress();
    error TransferToStETHContract();

    // ---- staking ----

    /// @notice Stakes `msg.value`: mints `getSharesByPooledEth(msg.value)`
    /// shares to the caller.
    /// @return The shares minted (possibly zero).
    function submit(address referral) external payable returns (uint256) {
        return _submit(referral);
    }

    /// @notice A plain ETH transfer stakes it, as `submit(address(0))`.
    receive() external payable {
        _submit(address(0));
    }

    // ---- views ----

    function getTotalPooledEther() external view returns (uint256) {
        return _totalPooledEther;
    }

    function getTotalShares() external view returns (uint256) {
        return _totalShares;
    }

    function totalSupply() external view returns (uint256) {
        return _totalPooledEther;
    }

    function sharesOf(address account) external view returns (uint256) {
        return _shares[account];
    }

    function balanceOf(address account) external view returns (uint256) {
        return getPooledEthByShares(_shares[account]);
    }

    /// @notice `ethAmount * totalShares / totalPooledEther`, rounded down.
    function getSharesByPooledEth(uint256 ethAmount) public view returns (uint256) {
        return mulDivDown(ethAmount, _totalShares, _totalPooledEther);
    }

    /// @notice `sharesAmount * totalPooledEther / totalShares`, rounded down.
    function getPooledEthByShares(uint256 sharesAmount) public view returns (uint256) {
        return mulDivDown(sharesAmount, _totalPooledEther, _totalShares);
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    // ---- ERC-20 over shares ----

    function approve(address spender, uint256 amount) external returns (bool) {
        _approve(msg.sender, spender, amount);
        return true;
    }

    function increaseAllowance(address spender, uint256 addedValue) external returns (bool) {
        _approve(msg.sender, spender, _allowances[msg.sender][spender] + addedValue);
        return true;
    }

    function decreaseAllowance(address spender, uint256 subtractedValue) external returns (bool) {
        uint256 allowed = _allowances[msg.sender][spender];
        if (allowed < subtractedValue) revert AllowanceExceeded(subtractedValue, allowed);
        _approve(msg.sender, spender, allowed - subtractedValue);
        return true;
    }

    /// @notice Moves `getSharesByPooledEth(amount)` shares; the `Transfer`
    /// event says `amount`.
    function transfer(address recipient, uint256 amount) external returns (bool) {
        _transfer(msg.sender, recipient, amount);
        return true;
    }

    /// @notice As `transfer`, spending `amount` of the allowance (an
    /// allowance of `type(uint256).max` is never spent).
    function transferFrom(address sender, address recipient, uint256 amount) external returns (bool) {
        _spendAllowance(sender, amount);
        _transfer(sender, recipient, amount);
        return true;
    }

    /// @notice Moves exactly `sharesAmount` shares.
    /// @return The amount they are worth, `getPooledEthByShares(sharesAmount)`.
    function transferShares(address recipient, uint256 sharesAmount) external returns (uint256) {
        _transferShares(msg.sender, recipient, sharesAmount);
        uint256 tokens = getPooledEthByShares(sharesAmount);
        _emitTransferEvents(msg.sender, recipient, tokens, sharesAmount);
        return tokens;
    }

    /// @notice As `transferShares`, spending `getPooledEthByShares(sharesAmount)`
    /// of the allowance.
    function transferSharesFrom(address sender, address recipient, uint256 sharesAmount) external returns (uint256) {
        uint256 tokens = getPooledEthByShares(sharesAmount);
        _spendAllowance(sender, tokens);
        _transferShares(sender, recipient, sharesAmount);
        _emitTransferEvents(sender, recipient, tokens, sharesAmount);
        return tokens;
    }

    // ---- internals ----

    /// @dev The shares are priced at the totals before the deposit; the
    /// totals then take the ETH and the shares, and the `Transfer` event
    /// reports what the new shares are worth at the new totals.
    function _submit(address referral) private returns (uint256 shares) {
        if (msg.value == 0) revert ZeroDeposit();
        shares = getSharesByPooledEth(msg.value);
        _totalShares += shares;
        unchecked {
            _shares[msg.sender] += shares;
        }
        _totalPooledEther += msg.value;
        emit Submitted(msg.sender, msg.value, referral);
        _emitTransferEvents(address(0), msg.sender, getPooledEthByShares(shares), shares);
    }

    function _transfer(address sender, address recipient, uint256 amount) private {
        uint256 shares = getSharesByPooledEth(amount);
        _transferShares(sender, recipient, shares);
        _emitTransferEvents(sender, recipient, amount, shares);
    }

    function _transferShares(address sender, address recipient, uint256 shares) private {
        if (recipient == address(0)) revert TransferToZeroAddress();
        if (recipient == address(this)) revert TransferToStETHContract();
        uint256 held = _shares[sender];
        if (shares > held) revert BalanceExceeded(shares, held);
        unchecked {
            _shares[sender] = held - shares;
            _shares[recipient] += shares;
        }
    }

    function _spendAllowance(address owner, uint256 amount) private {
        uint256 allowed = _allowances[owner][msg.sender];
        if (allowed == type(uint256).max) return;
        if (amount > allowed) revert AllowanceExceeded(amount, allowed);
        _approve(owner, msg.sender, allowed - amount);
    }

    function _approve(address owner, address spender, uint256 amount) private {
        _allowances[owner][spender] = amount;
        emit Approval(owner, spender, amount);
    }

    function _emitTransferEvents(address from, address to, uint256 tokens, uint256 shares) private {
        emit Transfer(from, to, tokens);
        emit TransferShares(from, to, shares);
    }
}

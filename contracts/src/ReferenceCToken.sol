// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {mulDivDown} from "./WideMath.sol";

interface ICompoundERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference Compound V2 cToken (CErc20) for differential tests.
/// @notice The public CErc20 interface at a fixed exchange rate (underlying
/// per cToken, scaled by 1e18, as `exchangeRateStored`): no interest accrues
/// and there is no borrowing, so `exchangeRateCurrent` returns the same rate.
/// The cash (`getCash`) is this contract's balance of the underlying, which a
/// fixture raises by minting the underlying to it and lowers by burning it
/// from here.
///
/// - `mint(amount)` pulls `amount` and mints `amount * 1e18 / rate` cTokens,
///   rounded down, even when that is zero (as Compound does: the underlying
///   is then kept for nothing).
/// - `redeem(tokens)` burns `tokens` and pays `tokens * rate / 1e18`, rounded
///   down (possibly zero), reverting with `RedeemTransferOutNotPossible` when
///   that exceeds the cash.
/// - `redeemUnderlying(amount)` burns `amount * 1e18 / rate` cTokens, rounded
///   down, and pays `amount`; it reverts with `RedeemTokensZero` when that
///   burns nothing (the comptroller's `redeemVerify` check).
///
/// Errors revert (custom errors); success returns 0, Compound's `NO_ERROR`.
/// Products are taken at 512-bit precision like the kernel's `mul_div`
/// (`WideMath.sol`); Compound reverts when they overflow 256 bits instead.
contract ReferenceCToken {
    uint256 private constant WAD = 1e18;

    /// @notice The underlying asset.
    address public immutable underlying;
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    /// @notice Always true: CErc20's marker.
    bool public constant isCToken = true;

    uint256 private immutable _exchangeRate;
    mapping(address => uint256) private _balances;
    mapping(address => mapping(address => uint256)) private _allowances;

    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Approval(address indexed owner, address indexed spender, uint256 amount);
    /// @notice Compound's `Mint` (no indexed fields).
    event Mint(address minter, uint256 mintAmount, uint256 mintTokens);
    /// @notice Compound's `Redeem` (no indexed fields).
    event Redeem(address redeemer, uint256 redeemAmount, uint256 redeemTokens);

    error ZeroExchangeRate();
    error RedeemTransferOutNotPossible();
    error RedeemTokensZero();
    error TransferNotAllowed();
    error TransferFailed();

    constructor(
        address underlying_,
        uint256 exchangeRate_,
        string memory name_,
        string memory symbol_,
        uint8 decimals_
    ) {
        if (exchangeRate_ == 0) revert ZeroExchangeRate();
        underlying = underlying_;
        _exchangeRate = exchangeRate_;
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    // ---- rates and cash ----

    /// @notice Underlying per cToken, scaled by 1e18.
    function exchangeRateStored() public view returns (uint256) {
        return _exchangeRate;
    }

    /// @notice The same as `exchangeRateStored`: nothing accrues here.
    function exchangeRateCurrent() external view returns (uint256) {
        return _exchangeRate;
    }

    /// @notice The underlying this market holds.
    function getCash() public view returns (uint256) {
        return ICompoundERC20Like(underlying).balanceOf(address(this));
    }

    /// @notice `balanceOf(owner) * rate / 1e18`, rounded down.
    function balanceOfUnderlying(address owner) external view returns (uint256) {
        return mulDivDown(_balances[owner], _exchangeRate, WAD);
    }

    // ---- actions ----

    /// @notice Supplies `mintAmount` of the underlying from the caller.
    /// @return 0 (success).
    function mint(uint256 mintAmount) external returns (uint256) {
        (bool ok, bytes memory ret) = underlying.call(
            abi.encodeCall(ICompoundERC20Like.transferFrom, (msg.sender, address(this), mintAmount))
        );
        _checkTransfer(ok, ret);
        uint256 mintTokens = mulDivDown(mintAmount, WAD, _exchangeRate);
        totalSupply += mintTokens;
        unchecked {
            _balances[msg.sender] += mintTokens;
        }
        emit Mint(msg.sender, mintAmount, mintTokens);
        emit Transfer(address(this), msg.sender, mintTokens);
        return 0;
    }

    /// @notice Burns `redeemTokens` of the caller's cTokens for their
    /// underlying.
    /// @return 0 (success).
    function redeem(uint256 redeemTokens) external returns (uint256) {
        return _redeem(msg.sender, redeemTokens, mulDivDown(redeemTokens, _exchangeRate, WAD));
    }

    /// @notice Burns the caller's cTokens worth `redeemAmount` of the
    /// underlying, rounded down, and pays `redeemAmount`.
    /// @return 0 (success).
    function redeemUnderlying(uint256 redeemAmount) external returns (uint256) {
        uint256 redeemTokens = mulDivDown(redeemAmount, WAD, _exchangeRate);
        if (redeemTokens == 0 && redeemAmount > 0) revert RedeemTokensZero();
        return _redeem(msg.sender, redeemTokens, redeemAmount);
    }

    // ---- ERC-20 ----

    function balanceOf(address owner) external view returns (uint256) {
        return _balances[owner];
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        _allowances[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address dst, uint256 amount) external returns (bool) {
        _transferTokens(msg.sender, msg.sender, dst, amount);
        return true;
    }

    /// @notice An allowance of `type(uint256).max` is never spent.
    function transferFrom(address src, address dst, uint256 amount) external returns (bool) {
        _transferTokens(msg.sender, src, dst, amount);
        return true;
    }

    // ---- internals ----

    function _redeem(address redeemer, uint256 redeemTokens, uint256 redeemAmount) private returns (uint256) {
        if (getCash() < redeemAmount) revert RedeemTransferOutNotPossible();
        // Checked: reverts when the redeemer holds fewer tokens.
        _balances[redeemer] -= redeemTokens;
        unchecked {
            totalSupply -= redeemTokens;
        }
        (bool ok, bytes memory ret) =
            underlying.call(abi.encodeCall(ICompoundERC20Like.transfer, (redeemer, redeemAmount)));
        _checkTransfer(ok, ret);
        emit Transfer(redeemer, address(this), redeemTokens);
        emit Redeem(redeemer, redeemAmount, redeemTokens);
        return 0;
    }

    /// @dev Compound's `transferTokens`: no self-transfers, the owner spends
    /// without allowance, an unlimited allowance stays unlimited.
    function _transferTokens(address spender, address src, address dst, uint256 tokens) private {
        if (src == dst) revert TransferNotAllowed();
        if (spender != src) {
            uint256 allowed = _allowances[src][spender];
            if (allowed != type(uint256).max) _allowances[src][spender] = allowed - tokens;
        }
        _balances[src] -= tokens;
        unchecked {
            _balances[dst] += tokens;
        }
        emit Transfer(src, dst, tokens);
    }

    /// @dev A token call succeeded and returned `true` or nothing.
    function _checkTransfer(bool ok, bytes memory ret) private pure {
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {mulDivDown} from "./WideMath.sol";

interface ICompoundERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @dev Compound's comptroller marker.
interface ICompoundComptrollerMarker {
    function isComptroller() external view returns (bool);
}

/// @dev The part of Compound's comptroller a cToken consults
/// (`ReferenceComptroller`); each returns 0 (`NO_ERROR`) or an error code.
interface ICompoundComptrollerLike {
    function borrowAllowed(address cToken, address borrower, uint256 borrowAmount) external returns (uint256);
    function redeemAllowed(address cToken, address redeemer, uint256 redeemTokens) external view returns (uint256);
    function transferAllowed(address cToken, address src, address dst, uint256 transferTokens)
        external
        view
        returns (uint256);
}

/// @title Reference Compound V2 cToken (CErc20) for differential tests.
/// @notice The public CErc20 interface at a fixed exchange rate (underlying
/// per cToken, scaled by 1e18, as `exchangeRateStored`): no interest accrues,
/// so `exchangeRateCurrent` returns the same rate and borrows never grow
/// (`borrowIndex` is fixed at 1e18: a borrow balance is exactly what was
/// borrowed less what was repaid). The cash (`getCash`) is this contract's
/// balance of the underlying, which a fixture raises by minting the
/// underlying to it and lowers by burning it from here, and which `borrow`
/// lowers and `repayBorrow` raises; borrows do not enter the exchange rate.
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
/// - `borrow(amount)` needs a comptroller (`setComptroller`; without one it
///   reverts with `ComptrollerNotSet`): its `borrowAllowed` (which enters the
///   borrower into this market if needed and checks the account's liquidity
///   with the new borrow) must answer 0, else `BorrowComptrollerRejection(code)`;
///   then the cash must cover `amount` (`BorrowCashNotAvailable`). Pays
///   `amount` to the caller.
/// - `repayBorrow(amount)` / `repayBorrowBehalf(borrower, amount)` pull
///   `amount` (`type(uint256).max`: the whole borrow balance) from the
///   caller; more than the balance reverts with `RepayBorrowTooMuch`. Repaying
///   does not consult the comptroller.
/// - With a comptroller set, `redeem`, `redeemUnderlying`, `transfer` and
///   `transferFrom` first ask its `redeemAllowed`/`transferAllowed`
///   (`RedeemComptrollerRejection(code)`, `TransferComptrollerRejection(code)`
///   otherwise), so collateral backing a borrow stays put. Without one they
///   behave as before borrowing existed.
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

    /// @notice Always 1e18: borrows accrue no interest here.
    uint256 public constant borrowIndex = 1e18;
    /// @notice Who may call `_setComptroller`.
    address public immutable admin;

    uint256 private immutable _exchangeRate;
    mapping(address => uint256) private _balances;
    mapping(address => mapping(address => uint256)) private _allowances;
    /// @notice The comptroller consulted by `borrow`, `redeem` and
    /// transfers; the zero address until the admin sets one.
    address public comptroller;
    /// @notice The sum of every account's borrow balance.
    uint256 public totalBorrows;
    mapping(address => uint256) private _accountBorrows;

    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Approval(address indexed owner, address indexed spender, uint256 amount);
    /// @notice Compound's `Mint` (no indexed fields).
    event Mint(address minter, uint256 mintAmount, uint256 mintTokens);
    /// @notice Compound's `Redeem` (no indexed fields).
    event Redeem(address redeemer, uint256 redeemAmount, uint256 redeemTokens);
    /// @notice Compound's `Borrow` (no indexed fields).
    event Borrow(address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows);
    /// @notice Compound's `RepayBorrow` (no indexed fields).
    event RepayBorrow(
        address payer, address borrower, uint256 repayAmount, uint256 accountBorrows, uint256 totalBorrows
    );
    /// @notice Compound's `NewComptroller`.
    event NewComptroller(address oldComptroller, address newComptroller);

    error ZeroExchangeRate();
    error RedeemTransferOutNotPossible();
    error RedeemTokensZero();
    error TransferNotAllowed();
    error TransferFailed();
    error ComptrollerNotSet();
    error BorrowComptrollerRejection(uint256 errorCode);
    error BorrowCashNotAvailable();
    error RedeemComptrollerRejection(uint256 errorCode);
    error TransferComptrollerRejection(uint256 errorCode);
    error RepayBorrowTooMuch(uint256 repayAmount, uint256 borrowBalance);

    constructor(
        address underlying_,
        uint256 exchangeRate_,
        string memory name_,
        string memory symbol_,
        uint8 decimals_
    ) {
        if (exchangeRate_ == 0) revert ZeroExchangeRate();
        admin = msg.sender;
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

    /// @notice What `account` owes: borrowed less repaid (nothing accrues).
    function borrowBalanceStored(address account) public view returns (uint256) {
        return _accountBorrows[account];
    }

    /// @notice The same as `borrowBalanceStored`: nothing accrues here.
    function borrowBalanceCurrent(address account) external view returns (uint256) {
        return _accountBorrows[account];
    }

    /// @notice Compound's snapshot for the comptroller: `(0, cToken balance,
    /// borrow balance, exchange rate)`.
    function getAccountSnapshot(address account) external view returns (uint256, uint256, uint256, uint256) {
        return (0, _balances[account], _accountBorrows[account], _exchangeRate);
    }

    // ---- configuration ----

    /// @notice Sets (or replaces) the comptroller, which must say
    /// `isComptroller()`. Compound's: anyone but the admin gets
    /// `UNAUTHORIZED` (1), not a revert.
    function _setComptroller(address newComptroller) external returns (uint256) {
        if (msg.sender != admin) return 1;
        require(ICompoundComptrollerMarker(newComptroller).isComptroller(), "marker method returned false");
        emit NewComptroller(comptroller, newComptroller);
        comptroller = newComptroller;
        return 0;
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

    /// @notice Borrows `borrowAmount` of the underlying, paid to the caller,
    /// if the comptroller allows it and the cash covers it.
    /// @return 0 (success).
    function borrow(uint256 borrowAmount) external returns (uint256) {
        address c = comptroller;
        if (c == address(0)) revert ComptrollerNotSet();
        uint256 code = ICompoundComptrollerLike(c).borrowAllowed(address(this), msg.sender, borrowAmount);
        if (code != 0) revert BorrowComptrollerRejection(code);
        if (getCash() < borrowAmount) revert BorrowCashNotAvailable();
        uint256 accountBorrows = _accountBorrows[msg.sender] + borrowAmount;
        uint256 newTotalBorrows = totalBorrows + borrowAmount;
        _accountBorrows[msg.sender] = accountBorrows;
        totalBorrows = newTotalBorrows;
        (bool ok, bytes memory ret) =
            underlying.call(abi.encodeCall(ICompoundERC20Like.transfer, (msg.sender, borrowAmount)));
        _checkTransfer(ok, ret);
        emit Borrow(msg.sender, borrowAmount, accountBorrows, newTotalBorrows);
        return 0;
    }

    /// @notice Repays `repayAmount` (`type(uint256).max`: all) of the caller's
    /// borrow, pulling it from the caller.
    /// @return 0 (success).
    function repayBorrow(uint256 repayAmount) external returns (uint256) {
        return _repayBorrow(msg.sender, msg.sender, repayAmount);
    }

    /// @notice Repays `repayAmount` (`type(uint256).max`: all) of
    /// `borrower`'s borrow, pulling it from the caller.
    /// @return 0 (success).
    function repayBorrowBehalf(address borrower, uint256 repayAmount) external returns (uint256) {
        return _repayBorrow(msg.sender, borrower, repayAmount);
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
        address c = comptroller;
        if (c != address(0)) {
            uint256 code = ICompoundComptrollerLike(c).redeemAllowed(address(this), redeemer, redeemTokens);
            if (code != 0) revert RedeemComptrollerRejection(code);
        }
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

    function _repayBorrow(address payer, address borrower, uint256 repayAmount) private returns (uint256) {
        uint256 owed = _accountBorrows[borrower];
        uint256 actual = repayAmount == type(uint256).max ? owed : repayAmount;
        if (actual > owed) revert RepayBorrowTooMuch(actual, owed);
        (bool ok, bytes memory ret) =
            underlying.call(abi.encodeCall(ICompoundERC20Like.transferFrom, (payer, address(this), actual)));
        _checkTransfer(ok, ret);
        uint256 accountBorrows;
        uint256 newTotalBorrows;
        unchecked {
            // `actual <= owed <= totalBorrows`.
            accountBorrows = owed - actual;
            newTotalBorrows = totalBorrows - actual;
        }
        _accountBorrows[borrower] = accountBorrows;
        totalBorrows = newTotalBorrows;
        emit RepayBorrow(payer, borrower, actual, accountBorrows, newTotalBorrows);
        return 0;
    }

    /// @dev Compound's `transferTokens`: the comptroller's `transferAllowed`
    /// when one is set, no self-transfers, the owner spends without
    /// allowance, an unlimited allowance stays unlimited.
    function _transferTokens(address spender, address src, address dst, uint256 tokens) private {
        address c = comptroller;
        if (c != address(0)) {
            uint256 code = ICompoundComptrollerLike(c).transferAllowed(address(this), src, dst, tokens);
            if (code != 0) revert TransferComptrollerRejection(code);
        }
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

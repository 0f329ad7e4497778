// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {mulDivDown} from "./WideMath.sol";

/// @dev Compound's `PriceOracle` (`ReferencePriceOracle`).
interface IComptrollerOracleLike {
    function getUnderlyingPrice(address cToken) external view returns (uint256);
}

interface IComptrollerCTokenLike {
    function isCToken() external view returns (bool);
    function getAccountSnapshot(address account) external view returns (uint256, uint256, uint256, uint256);
}

/// @title Reference Compound V2 comptroller for tests.
/// @notice A subset of Compound V2's public `Comptroller` interface over
/// `ReferenceCToken` markets, reading prices from its `oracle()`
/// (`ReferencePriceOracle`, Compound's `PriceOracle` interface). Written for
/// Switchyard from the published interface and formulas, not Compound's code.
///
/// Prices follow Compound's oracle convention: `price(cToken)` is the USD
/// value of one whole underlying token, scaled by `1e36 / 10^decimals` of the
/// underlying, so that `price * amount / 1e18` is the USD value of `amount`
/// base units of the underlying with 18 decimals (e.g. 1e18 for a $1 token of
/// 18 decimals, 1e30 for a $1 token of 6 decimals).
///
/// Liquidity, Compound's `getHypotheticalAccountLiquidity`, with every
/// product rounded down (at 512-bit precision, `WideMath.sol`; Compound's
/// 256-bit products agree wherever they do not overflow). Over the markets
/// the account has entered, in the order it entered them, with
/// `(tokens, borrows, rate) = cToken.getAccountSnapshot(account)`, `cf` the
/// market's collateral factor and `p` its price:
///
///     perToken   = floor(floor(cf * rate / 1e18) * p / 1e18)
///     collateral += floor(perToken * tokens / 1e18)
///     debt       += floor(p * borrows / 1e18)
///     // for the market being acted on (`cTokenModify`) only:
///     debt       += floor(perToken * redeemTokens / 1e18)
///     debt       += floor(p * borrowAmount / 1e18)
///
/// `liquidity = collateral - debt` and `shortfall = 0` when `collateral >
/// debt`, else `liquidity = 0` and `shortfall = debt - collateral` (both in
/// USD with 18 decimals). An entered market without a price gives
/// `PRICE_ERROR` (13). `borrowAllowed`/`redeemAllowed`/`transferAllowed` answer
/// `INSUFFICIENT_LIQUIDITY` (4) on any shortfall, `MARKET_NOT_LISTED` (9) for
/// an unlisted market, and 0 (`NO_ERROR`) otherwise; a cToken reverts on a
/// nonzero answer. Redeeming or transferring cTokens of a market the account
/// has not entered is always allowed, as in Compound.
///
/// Simplified: no exit from markets, liquidation, close factor, caps, pause
/// guardians, COMP rewards (`isComped` is false) or admin beyond Compound's
/// own `_supportMarket`, `_setCollateralFactor` and `_setPriceOracle`, which
/// answer its error codes (`UNAUTHORIZED` (1) for anyone but the admin,
/// `MARKET_ALREADY_LISTED` (10), `MARKET_NOT_LISTED` (9),
/// `INVALID_COLLATERAL_FACTOR` (6), `PRICE_ERROR` (13) for a collateral
/// factor on an unpriced market) rather than reverting.
contract ReferenceComptroller {
    uint256 private constant WAD = 1e18;
    /// @notice Compound's `collateralFactorMaxMantissa`: 0.9.
    uint256 private constant MAX_COLLATERAL_FACTOR = 0.9e18;

    uint256 private constant NO_ERROR = 0;
    uint256 private constant UNAUTHORIZED = 1;
    uint256 private constant INVALID_COLLATERAL_FACTOR = 6;
    uint256 private constant MARKET_ALREADY_LISTED = 10;
    uint256 private constant INSUFFICIENT_LIQUIDITY = 4;
    uint256 private constant MARKET_NOT_LISTED = 9;
    uint256 private constant PRICE_ERROR = 13;
    uint256 private constant SNAPSHOT_ERROR = 15;

    /// @notice Always true: Compound's marker.
    bool public constant isComptroller = true;
    /// @notice Who may list markets and set collateral factors and the
    /// oracle.
    address public immutable admin;
    /// @notice Where prices come from.
    address public oracle;

    struct Market {
        bool isListed;
        uint256 collateralFactorMantissa;
        mapping(address => bool) accountMembership;
    }

    mapping(address => Market) private _markets;
    mapping(address => address[]) private _accountAssets;

    /// @notice Compound's `MarketListed`.
    event MarketListed(address cToken);
    /// @notice Compound's `NewCollateralFactor`.
    event NewCollateralFactor(address cToken, uint256 oldCollateralFactorMantissa, uint256 newCollateralFactorMantissa);
    /// @notice Compound's `MarketEntered`.
    event MarketEntered(address cToken, address account);
    /// @notice Compound's `NewPriceOracle`.
    event NewPriceOracle(address oldPriceOracle, address newPriceOracle);

    error NotACToken(address cToken);
    error SenderMustBeCToken();

    constructor() {
        admin = msg.sender;
    }

    // ---- administration (Compound's, error codes rather than reverts) ----

    /// @notice Lists `cToken` (collateral factor 0). Once per market.
    function _supportMarket(address cToken) external returns (uint256) {
        if (msg.sender != admin) return UNAUTHORIZED;
        Market storage m = _markets[cToken];
        if (m.isListed) return MARKET_ALREADY_LISTED;
        if (!IComptrollerCTokenLike(cToken).isCToken()) revert NotACToken(cToken);
        m.isListed = true;
        emit MarketListed(cToken);
        return NO_ERROR;
    }

    /// @notice Sets a listed market's collateral factor (1e18 = 100%, at
    /// most 0.9e18); a nonzero one needs the oracle's price.
    function _setCollateralFactor(address cToken, uint256 newCollateralFactorMantissa) external returns (uint256) {
        if (msg.sender != admin) return UNAUTHORIZED;
        Market storage m = _markets[cToken];
        if (!m.isListed) return MARKET_NOT_LISTED;
        if (newCollateralFactorMantissa > MAX_COLLATERAL_FACTOR) return INVALID_COLLATERAL_FACTOR;
        if (newCollateralFactorMantissa != 0 && _price(cToken) == 0) return PRICE_ERROR;
        uint256 old = m.collateralFactorMantissa;
        m.collateralFactorMantissa = newCollateralFactorMantissa;
        emit NewCollateralFactor(cToken, old, newCollateralFactorMantissa);
        return NO_ERROR;
    }

    /// @notice Sets the price oracle.
    function _setPriceOracle(address newOracle) external returns (uint256) {
        if (msg.sender != admin) return UNAUTHORIZED;
        emit NewPriceOracle(oracle, newOracle);
        oracle = newOracle;
        return NO_ERROR;
    }

    // ---- views ----

    /// @notice `(isListed, collateralFactorMantissa, isComped)`; `isComped`
    /// is always false.
    function markets(address cToken) external view returns (bool, uint256, bool) {
        Market storage m = _markets[cToken];
        return (m.isListed, m.collateralFactorMantissa, false);
    }

    /// @notice The markets `account` has entered, in order.
    function getAssetsIn(address account) external view returns (address[] memory) {
        return _accountAssets[account];
    }

    function checkMembership(address account, address cToken) external view returns (bool) {
        return _markets[cToken].accountMembership[account];
    }

    /// @notice `(error, liquidity, shortfall)` of `account` as it stands.
    function getAccountLiquidity(address account) external view returns (uint256, uint256, uint256) {
        return _hypotheticalLiquidity(account, address(0), 0, 0);
    }

    /// @notice `(error, liquidity, shortfall)` of `account` were it to redeem
    /// `redeemTokens` of `cTokenModify` and borrow `borrowAmount` of it.
    function getHypotheticalAccountLiquidity(
        address account,
        address cTokenModify,
        uint256 redeemTokens,
        uint256 borrowAmount
    ) external view returns (uint256, uint256, uint256) {
        return _hypotheticalLiquidity(account, cTokenModify, redeemTokens, borrowAmount);
    }

    // ---- accounts ----

    /// @notice Enters the caller into each market: per market, 0 on success
    /// (or when already in), `MARKET_NOT_LISTED` (9) for an unlisted one.
    function enterMarkets(address[] calldata cTokens) external returns (uint256[] memory results) {
        results = new uint256[](cTokens.length);
        for (uint256 i = 0; i < cTokens.length; ++i) {
            results[i] = _enter(cTokens[i], msg.sender);
        }
    }

    // ---- cToken hooks ----

    /// @notice May `borrower` borrow `borrowAmount` of `cToken`? A borrower
    /// not in the market is entered into it, which only the cToken itself may
    /// ask for (`SenderMustBeCToken`).
    function borrowAllowed(address cToken, address borrower, uint256 borrowAmount) external returns (uint256) {
        Market storage m = _markets[cToken];
        if (!m.isListed) return MARKET_NOT_LISTED;
        if (!m.accountMembership[borrower]) {
            if (msg.sender != cToken) revert SenderMustBeCToken();
            _enter(cToken, borrower);
        }
        if (_price(cToken) == 0) return PRICE_ERROR;
        return _check(borrower, cToken, 0, borrowAmount);
    }

    /// @notice May `redeemer` give up `redeemTokens` of `cToken`?
    function redeemAllowed(address cToken, address redeemer, uint256 redeemTokens) public view returns (uint256) {
        Market storage m = _markets[cToken];
        if (!m.isListed) return MARKET_NOT_LISTED;
        if (!m.accountMembership[redeemer]) return NO_ERROR;
        return _check(redeemer, cToken, redeemTokens, 0);
    }

    /// @notice May `src` transfer `transferTokens` of `cToken`? The same as
    /// redeeming them.
    function transferAllowed(address cToken, address src, address, uint256 transferTokens)
        external
        view
        returns (uint256)
    {
        return redeemAllowed(cToken, src, transferTokens);
    }

    // ---- internals ----

    function _enter(address cToken, address account) private returns (uint256) {
        Market storage m = _markets[cToken];
        if (!m.isListed) return MARKET_NOT_LISTED;
        if (m.accountMembership[account]) return NO_ERROR;
        m.accountMembership[account] = true;
        _accountAssets[account].push(cToken);
        emit MarketEntered(cToken, account);
        return NO_ERROR;
    }

    function _check(address account, address cToken, uint256 redeemTokens, uint256 borrowAmount)
        private
        view
        returns (uint256)
    {
        (uint256 err,, uint256 shortfall) = _hypotheticalLiquidity(account, cToken, redeemTokens, borrowAmount);
        if (err != NO_ERROR) return err;
        return shortfall > 0 ? INSUFFICIENT_LIQUIDITY : NO_ERROR;
    }

    /// @dev The contract notice's sums.
    function _hypotheticalLiquidity(
        address account,
        address cTokenModify,
        uint256 redeemTokens,
        uint256 borrowAmount
    ) private view returns (uint256, uint256, uint256) {
        address[] storage assets = _accountAssets[account];
        uint256 collateral;
        uint256 debt;
        for (uint256 i = 0; i < assets.length; ++i) {
            address asset = assets[i];
            (uint256 err, uint256 c, uint256 d) = asset == cTokenModify
                ? _marketTerms(account, asset, redeemTokens, borrowAmount)
                : _marketTerms(account, asset, 0, 0);
            if (err != NO_ERROR) return (err, 0, 0);
            collateral += c;
            debt += d;
        }
        if (collateral > debt) return (NO_ERROR, collateral - debt, 0);
        return (NO_ERROR, 0, debt - collateral);
    }

    /// @dev One market's `(error, collateral, debt)` terms of the sums.
    function _marketTerms(address account, address asset, uint256 redeemTokens, uint256 borrowAmount)
        private
        view
        returns (uint256 err, uint256 collateral, uint256 debt)
    {
        uint256 tokens;
        uint256 borrows;
        uint256 rate;
        (err, tokens, borrows, rate) = IComptrollerCTokenLike(asset).getAccountSnapshot(account);
        if (err != NO_ERROR) return (SNAPSHOT_ERROR, 0, 0);
        uint256 price = _price(asset);
        if (price == 0) return (PRICE_ERROR, 0, 0);
        uint256 perToken = mulDivDown(mulDivDown(_markets[asset].collateralFactorMantissa, rate, WAD), price, WAD);
        collateral = mulDivDown(perToken, tokens, WAD);
        debt = mulDivDown(price, borrows, WAD) + mulDivDown(perToken, redeemTokens, WAD)
            + mulDivDown(price, borrowAmount, WAD);
    }

    /// @dev The oracle's price of `cToken`'s underlying; 0 without an oracle.
    function _price(address cToken) private view returns (uint256) {
        return oracle == address(0) ? 0 : IComptrollerOracleLike(oracle).getUnderlyingPrice(cToken);
    }
}

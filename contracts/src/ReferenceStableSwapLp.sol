// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {ReferenceStableSwap} from "./ReferenceStableSwap.sol";

interface ICurveLpToken {
    function totalSupply() external view returns (uint256);
    function mint(address to, uint256 value) external returns (bool);
    function burnFrom(address from, uint256 value) external returns (bool);
}

/// @title A tokenized Curve plain pool's liquidity functions (3pool,
/// stETH/ETH), over `ReferenceStableSwap`'s curve.
/// @notice Written for Switchyard from the pools' public interface and the
/// StableSwap formulas as the kernel computes them
/// (`kernel/src/amm/stableswap.rs`: `add_liquidity`,
/// `remove_liquidity_one_coin`), integer for integer:
///
/// - `add_liquidity`: `D0` of the balances, `D1` with the amounts in; each
///   coin's distance from `D1 * old / D0` pays the imbalance fee
///   `fee * N / (4 * (N - 1))` (its admin share leaves the internal
///   balance), `D2` of what is left, and `supply * (D2 - D0) / D0` is
///   minted (`D1` into an empty pool, which takes every coin);
/// - `remove_liquidity_one_coin`: `D1 = D0 - amount * D0 / supply`, the
///   coin's balance at `D1`, every coin charged the imbalance fee on its
///   distance from a proportional withdrawal, the coin's balance at `D1`
///   again, one unit kept against rounding; the admin takes its share of
///   the fee out of the internal balance;
/// - `remove_liquidity`: every coin in proportion,
///   `balances[i] * amount / supply`, no fee;
/// - `calc_token_amount` (no fee, as in the pools) and
///   `calc_withdraw_one_coin` (exactly what a withdrawal pays).
///
/// The LP token is its own contract (`ReferenceCurveToken`) whose minter is
/// the pool, as 3Crv and steCRV are. The fixed-size amount arrays make a
/// pool's function selectors depend on its coin count, so each count is
/// its own contract below, with only its own count's functions. The
/// deposit returns the amount minted; the 3pool's returns nothing, which a
/// caller cannot tell apart except by reading the return data.
abstract contract StableSwapLiquidity is ReferenceStableSwap {
    /// The LP token this pool mints.
    address internal immutable _lpToken;

    event RemoveLiquidityOne(address indexed provider, uint256 token_amount, uint256 coin_amount);

    error NothingAdded();
    error EmptyPoolNeedsEveryCoin(uint256 index);
    error TooMuchLp(uint256 amount, uint256 supply);
    error MintFailed();

    constructor(
        address[] memory coins_,
        uint8[] memory decimals_,
        uint256 ampPrecise,
        uint256 aPrecision,
        uint256 fee_,
        uint256 adminFee,
        address lpToken,
        uint256 nCoins
    ) ReferenceStableSwap(coins_, decimals_, ampPrecise, aPrecision, fee_, adminFee) {
        if (coins_.length != nCoins) revert BadCoinCount(coins_.length);
        if (lpToken == address(0)) revert BadParameters();
        _lpToken = lpToken;
    }

    /// What `remove_liquidity_one_coin(token_amount, i, 0)` pays now.
    function calc_withdraw_one_coin(uint256 token_amount, int128 i) external view returns (uint256) {
        (uint256 dy,) = _withdrawOne(token_amount, _index(i));
        return dy;
    }

    /// Burns `token_amount` of the caller's LP tokens for coin `i`, at least
    /// `min_amount` of it.
    function remove_liquidity_one_coin(uint256 token_amount, int128 i, uint256 min_amount)
        external
        returns (uint256)
    {
        if (_entered) revert Reentrancy();
        _entered = true;
        uint256 k = _index(i);
        (uint256 dy, uint256 dyFee) = _withdrawOne(token_amount, k);
        if (dy < min_amount) revert Slippage(dy, min_amount);
        balances[k] -= dy + dyFee * admin_fee / FEE_DENOMINATOR;
        if (!ICurveLpToken(_lpToken).burnFrom(msg.sender, token_amount)) revert MintFailed();
        address coin = coins[k];
        if (coin == NATIVE) {
            (bool ok,) = msg.sender.call{value: dy}("");
            if (!ok) revert TransferFailed(coin);
        } else {
            _call(coin, abi.encodeWithSelector(0xa9059cbb, msg.sender, dy));
        }
        emit RemoveLiquidityOne(msg.sender, token_amount, dy);
        _entered = false;
        return dy;
    }

    /// Normalized balances of raw ones.
    function _xp(uint256[] memory raw) internal view returns (uint256[] memory xp) {
        uint256 n = raw.length;
        xp = new uint256[](n);
        for (uint256 k = 0; k < n; ++k) {
            xp[k] = raw[k] * _rates[k] / PRECISION;
        }
    }

    function _balancesNow() internal view returns (uint256[] memory b) {
        uint256 n = coins.length;
        b = new uint256[](n);
        for (uint256 k = 0; k < n; ++k) {
            b[k] = balances[k];
        }
    }

    function _imbalanceFee() internal view returns (uint256) {
        uint256 n = coins.length;
        return fee * n / (4 * (n - 1));
    }

    /// `get_y_D`: coin `i`'s normalized balance that gives invariant `d`.
    function _getYD(uint256 i, uint256[] memory xp, uint256 d) internal view returns (uint256) {
        uint256 n = xp.length;
        uint256 aP = A_PRECISION;
        uint256 ann = _amp * n;
        uint256 c = d;
        uint256 s = 0;
        for (uint256 k = 0; k < n; ++k) {
            if (k == i) continue;
            s += xp[k];
            c = c * d / (xp[k] * n);
        }
        c = c * d * aP / (ann * n);
        uint256 b = s + d * aP / ann;
        uint256 y = d;
        for (uint256 it = 0; it < MAX_ITERATIONS; ++it) {
            uint256 prev = y;
            y = (y * y + c) / (2 * y + b - d);
            if (y > prev ? y - prev <= 1 : prev - y <= 1) return y;
        }
        revert NoConvergence();
    }

    /// `(dy, fee)` of a one-coin withdrawal, raw units of coin `i`.
    function _withdrawOne(uint256 tokenAmount, uint256 i) internal view returns (uint256, uint256) {
        uint256 supply = ICurveLpToken(_lpToken).totalSupply();
        if (tokenAmount > supply) revert TooMuchLp(tokenAmount, supply);
        uint256[] memory xp = _xp(_balancesNow());
        uint256 d0 = _getD(xp);
        uint256 d1 = d0 - tokenAmount * d0 / supply;
        uint256 newY = _getYD(i, xp, d1);
        uint256[] memory reduced = _reduced(xp, d0, d1, newY, i);
        uint256 dy = (reduced[i] - _getYD(i, reduced, d1) - 1) * PRECISION / _rates[i];
        uint256 dy0 = (xp[i] - newY) * PRECISION / _rates[i];
        return (dy, dy0 - dy);
    }

    /// The normalized balances less the imbalance fee on each coin's
    /// distance from a proportional withdrawal to `d1`.
    function _reduced(uint256[] memory xp, uint256 d0, uint256 d1, uint256 newY, uint256 i)
        internal
        view
        returns (uint256[] memory reduced)
    {
        uint256 n = xp.length;
        uint256 feeNow = _imbalanceFee();
        reduced = new uint256[](n);
        for (uint256 k = 0; k < n; ++k) {
            uint256 expected = k == i ? xp[k] * d1 / d0 - newY : xp[k] - xp[k] * d1 / d0;
            reduced[k] = xp[k] - feeNow * expected / FEE_DENOMINATOR;
        }
    }

    /// `(minted, fees, D1, balances to store)` of a deposit of `amounts`.
    function _deposit(uint256[] memory amounts)
        internal
        view
        returns (uint256 mintAmount, uint256[] memory fees, uint256 d1, uint256[] memory stored)
    {
        uint256 n = coins.length;
        uint256 supply = ICurveLpToken(_lpToken).totalSupply();
        uint256[] memory old = _balancesNow();
        uint256 d0 = supply == 0 ? 0 : _getD(_xp(old));
        uint256[] memory fresh = new uint256[](n);
        for (uint256 k = 0; k < n; ++k) {
            if (supply == 0 && amounts[k] == 0) revert EmptyPoolNeedsEveryCoin(k);
            fresh[k] = old[k] + amounts[k];
        }
        d1 = _getD(_xp(fresh));
        if (d1 <= d0) revert NothingAdded();
        fees = new uint256[](n);
        if (supply == 0) {
            return (d1, fees, d1, fresh);
        }
        stored = new uint256[](n);
        uint256 feeNow = _imbalanceFee();
        for (uint256 k = 0; k < n; ++k) {
            uint256 ideal = d1 * old[k] / d0;
            uint256 difference = ideal > fresh[k] ? ideal - fresh[k] : fresh[k] - ideal;
            fees[k] = feeNow * difference / FEE_DENOMINATOR;
            stored[k] = fresh[k] - fees[k] * admin_fee / FEE_DENOMINATOR;
            fresh[k] -= fees[k];
        }
        uint256 d2 = _getD(_xp(fresh));
        mintAmount = supply * (d2 - d0) / d0;
    }

    /// Takes the coins, stores the balances, mints; returns the amount
    /// minted and what the event reports.
    function _addLiquidity(uint256[] memory amounts, uint256 minMint)
        internal
        returns (uint256 mintAmount, uint256[] memory fees, uint256 d1)
    {
        if (_entered) revert Reentrancy();
        _entered = true;
        uint256[] memory stored;
        (mintAmount, fees, d1, stored) = _deposit(amounts);
        if (mintAmount < minMint) revert Slippage(mintAmount, minMint);
        uint256 native = 0;
        for (uint256 k = 0; k < amounts.length; ++k) {
            address c = coins[k];
            if (c == NATIVE) {
                native = amounts[k];
            } else if (amounts[k] > 0) {
                _call(c, abi.encodeWithSelector(0x23b872dd, msg.sender, address(this), amounts[k]));
            }
            balances[k] = stored[k];
        }
        if (msg.value != native) revert BadValue(msg.value);
        if (!ICurveLpToken(_lpToken).mint(msg.sender, mintAmount)) revert MintFailed();
        _entered = false;
    }

    /// Burns `amount` of the caller's LP tokens for every coin in
    /// proportion, each at least its minimum; returns what each paid and
    /// the supply after.
    function _removeLiquidity(uint256 amount, uint256[] memory mins)
        internal
        returns (uint256[] memory paid, uint256 supplyAfter)
    {
        if (_entered) revert Reentrancy();
        _entered = true;
        uint256 supply = _supply();
        if (amount > supply) revert TooMuchLp(amount, supply);
        uint256 n = coins.length;
        paid = new uint256[](n);
        for (uint256 k = 0; k < n; ++k) {
            uint256 v = balances[k] * amount / supply;
            if (v < mins[k]) revert Slippage(v, mins[k]);
            balances[k] -= v;
            paid[k] = v;
        }
        if (!ICurveLpToken(_lpToken).burnFrom(msg.sender, amount)) revert MintFailed();
        for (uint256 k = 0; k < n; ++k) {
            address coin = coins[k];
            if (coin == NATIVE) {
                (bool ok,) = msg.sender.call{value: paid[k]}("");
                if (!ok) revert TransferFailed(coin);
            } else {
                _call(coin, abi.encodeWithSelector(0xa9059cbb, msg.sender, paid[k]));
            }
        }
        supplyAfter = supply - amount;
        _entered = false;
    }

    /// `calc_token_amount`: the LP tokens a deposit (or withdrawal) of
    /// `amounts` would mint (or burn), without fees.
    function _calcTokenAmount(uint256[] memory amounts, bool isDeposit) internal view returns (uint256) {
        uint256[] memory b = _balancesNow();
        uint256 d0 = _getD(_xp(b));
        for (uint256 k = 0; k < b.length; ++k) {
            b[k] = isDeposit ? b[k] + amounts[k] : b[k] - amounts[k];
        }
        uint256 d1 = _getD(_xp(b));
        uint256 diff = isDeposit ? d1 - d0 : d0 - d1;
        return diff * ICurveLpToken(_lpToken).totalSupply() / d0;
    }

    function _supply() internal view returns (uint256) {
        return ICurveLpToken(_lpToken).totalSupply();
    }
}

/// @title Reference tokenized Curve plain pool of 2 coins (stETH/ETH).
contract ReferenceStableSwap2 is StableSwapLiquidity {
    event AddLiquidity(
        address indexed provider, uint256[2] token_amounts, uint256[2] fees, uint256 invariant, uint256 token_supply
    );
    event RemoveLiquidity(
        address indexed provider, uint256[2] token_amounts, uint256[2] fees, uint256 token_supply
    );

    constructor(
        address[] memory coins_,
        uint8[] memory decimals_,
        uint256 ampPrecise,
        uint256 aPrecision,
        uint256 fee_,
        uint256 adminFee,
        address lpToken
    ) StableSwapLiquidity(coins_, decimals_, ampPrecise, aPrecision, fee_, adminFee, lpToken, 2) {}

    function add_liquidity(uint256[2] calldata amounts, uint256 min_mint_amount)
        external
        payable
        returns (uint256 minted)
    {
        uint256[] memory a = new uint256[](2);
        for (uint256 k = 0; k < 2; ++k) {
            a[k] = amounts[k];
        }
        (uint256 m, uint256[] memory f, uint256 d1) = _addLiquidity(a, min_mint_amount);
        emit AddLiquidity(msg.sender, amounts, [f[0], f[1]], d1, _supply());
        return m;
    }

    /// Burns `_amount` LP tokens for every coin in proportion.
    function remove_liquidity(uint256 _amount, uint256[2] calldata min_amounts)
        external
        returns (uint256[2] memory amounts)
    {
        uint256[] memory m = new uint256[](2);
        for (uint256 k = 0; k < 2; ++k) {
            m[k] = min_amounts[k];
        }
        (uint256[] memory paid, uint256 supplyAfter) = _removeLiquidity(_amount, m);
        for (uint256 k = 0; k < 2; ++k) {
            amounts[k] = paid[k];
        }
        uint256[2] memory noFees;
        emit RemoveLiquidity(msg.sender, amounts, noFees, supplyAfter);
    }

    function calc_token_amount(uint256[2] calldata amounts, bool is_deposit) external view returns (uint256) {
        uint256[] memory a = new uint256[](2);
        for (uint256 k = 0; k < 2; ++k) {
            a[k] = amounts[k];
        }
        return _calcTokenAmount(a, is_deposit);
    }
}

/// @title Reference tokenized Curve plain pool of 3 coins (3pool).
contract ReferenceStableSwap3 is StableSwapLiquidity {
    event AddLiquidity(
        address indexed provider, uint256[3] token_amounts, uint256[3] fees, uint256 invariant, uint256 token_supply
    );
    event RemoveLiquidity(
        address indexed provider, uint256[3] token_amounts, uint256[3] fees, uint256 token_supply
    );

    constructor(
        address[] memory coins_,
        uint8[] memory decimals_,
        uint256 ampPrecise,
        uint256 aPrecision,
        uint256 fee_,
        uint256 adminFee,
        address lpToken
    ) StableSwapLiquidity(coins_, decimals_, ampPrecise, aPrecision, fee_, adminFee, lpToken, 3) {}

    function add_liquidity(uint256[3] calldata amounts, uint256 min_mint_amount)
        external
        payable
        returns (uint256 minted)
    {
        uint256[] memory a = new uint256[](3);
        for (uint256 k = 0; k < 3; ++k) {
            a[k] = amounts[k];
        }
        (uint256 m, uint256[] memory f, uint256 d1) = _addLiquidity(a, min_mint_amount);
        emit AddLiquidity(msg.sender, amounts, [f[0], f[1], f[2]], d1, _supply());
        return m;
    }

    /// Burns `_amount` LP tokens for every coin in proportion.
    function remove_liquidity(uint256 _amount, uint256[3] calldata min_amounts)
        external
        returns (uint256[3] memory amounts)
    {
        uint256[] memory m = new uint256[](3);
        for (uint256 k = 0; k < 3; ++k) {
            m[k] = min_amounts[k];
        }
        (uint256[] memory paid, uint256 supplyAfter) = _removeLiquidity(_amount, m);
        for (uint256 k = 0; k < 3; ++k) {
            amounts[k] = paid[k];
        }
        uint256[3] memory noFees;
        emit RemoveLiquidity(msg.sender, amounts, noFees, supplyAfter);
    }

    function calc_token_amount(uint256[3] calldata amounts, bool is_deposit) external view returns (uint256) {
        uint256[] memory a = new uint256[](3);
        for (uint256 k = 0; k < 3; ++k) {
            a[k] = amounts[k];
        }
        return _calcTokenAmount(a, is_deposit);
    }
}

/// @title Reference tokenized Curve plain pool of 4 coins (sUSD-style).
contract ReferenceStableSwap4 is StableSwapLiquidity {
    event AddLiquidity(
        address indexed provider, uint256[4] token_amounts, uint256[4] fees, uint256 invariant, uint256 token_supply
    );
    event RemoveLiquidity(
        address indexed provider, uint256[4] token_amounts, uint256[4] fees, uint256 token_supply
    );

    constructor(
        address[] memory coins_,
        uint8[] memory decimals_,
        uint256 ampPrecise,
        uint256 aPrecision,
        uint256 fee_,
        uint256 adminFee,
        address lpToken
    ) StableSwapLiquidity(coins_, decimals_, ampPrecise, aPrecision, fee_, adminFee, lpToken, 4) {}

    function add_liquidity(uint256[4] calldata amounts, uint256 min_mint_amount)
        external
        payable
        returns (uint256 minted)
    {
        uint256[] memory a = new uint256[](4);
        for (uint256 k = 0; k < 4; ++k) {
            a[k] = amounts[k];
        }
        (uint256 m, uint256[] memory f, uint256 d1) = _addLiquidity(a, min_mint_amount);
        emit AddLiquidity(msg.sender, amounts, [f[0], f[1], f[2], f[3]], d1, _supply());
        return m;
    }

    /// Burns `_amount` LP tokens for every coin in proportion.
    function remove_liquidity(uint256 _amount, uint256[4] calldata min_amounts)
        external
        returns (uint256[4] memory amounts)
    {
        uint256[] memory m = new uint256[](4);
        for (uint256 k = 0; k < 4; ++k) {
            m[k] = min_amounts[k];
        }
        (uint256[] memory paid, uint256 supplyAfter) = _removeLiquidity(_amount, m);
        for (uint256 k = 0; k < 4; ++k) {
            amounts[k] = paid[k];
        }
        uint256[4] memory noFees;
        emit RemoveLiquidity(msg.sender, amounts, noFees, supplyAfter);
    }

    function calc_token_amount(uint256[4] calldata amounts, bool is_deposit) external view returns (uint256) {
        uint256[] memory a = new uint256[](4);
        for (uint256 k = 0; k < 4; ++k) {
            a[k] = amounts[k];
        }
        return _calcTokenAmount(a, is_deposit);
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IStableSwapToken {
    function balanceOf(address who) external view returns (uint256);
}

/// @title Reference Curve StableSwap plain pool for differential tests.
/// @notice The public Curve pool interface (`coins`, `balances`, `A`, `fee`,
/// `admin_fee`, `get_dy`, `exchange`, `TokenExchange`) over 2 to 4 coins,
/// one of which may be the native coin (`NATIVE`, 18 decimals). Written
/// from the StableSwap invariant as Switchyard's kernel computes it
/// (`kernel/src/amm/stableswap.rs`), integer for integer:
///
/// - balances are internal storage, as in the 3pool: the pool's token
///   holdings are not read, so what the admin fee leaves behind and any
///   donation stay outside the curve (`admin_balances`);
/// - every balance is normalized to 18 decimals with
///   `xp = balance * rate / 1e18`, `rate = 10^(36 - decimals)` (exact for
///   decimals <= 18, rounding down above);
/// - `D` and `y` by Newton iteration from `D = S` and `y = D`, stopping when
///   a step moves by at most 1; 255 steps without that revert;
/// - `A` is carried as `A * A_PRECISION`: with `A_PRECISION = 1` these are
///   the older pools' formulas (`Ann - 1`), with 100 the newer ones'; the
///   constructor takes it that way, so a pool caught mid-ramp (its
///   `A_precise()` between two multiples of `A_PRECISION`) is reproduced
///   at the value it had;
/// - `dy = xp[j] - y - 1` (one unit kept in the pool against rounding),
///   `fee = dy * fee / 1e10` and `admin = fee * admin_fee / 1e10`, all
///   rounding down; the trader gets `(dy - fee) * 1e18 / rate[j]` and the
///   admin part `admin * 1e18 / rate[j]` leaves the internal balance, both
///   rounding down.
///
/// Every intermediate is checked: where the kernel reports an overflow, a
/// division by zero or no convergence, this reverts. Where the kernel
/// refuses a trade that buys nothing (`dy` rounds to 0), the pool, like
/// Curve's, pays 0.
///
/// Simplifications: no liquidity functions here (the world writes the
/// internal `balances` into storage, as the pool's liquidity history left
/// them; `ReferenceStableSwapLp.sol` adds a tokenized pool's one-coin
/// deposit and withdrawal), `A`
/// fixed where the world deploys it (a ramp moves it between blocks, and
/// the world is rebuilt per block), no admin actions, no kill switch.
contract ReferenceStableSwap {
    /// The native coin's placeholder address.
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    uint256 internal constant FEE_DENOMINATOR = 1e10;
    uint256 internal constant PRECISION = 1e18;
    uint256 internal constant MAX_FEE = 5e9;
    uint256 internal constant MAX_ADMIN_FEE = 1e10;
    uint256 internal constant MAX_COINS = 4;
    uint256 internal constant MAX_ITERATIONS = 255;

    /// Coin addresses, pool order.
    address[] public coins;
    /// Internal balances, pool order, raw units of each coin.
    uint256[] public balances;
    /// `10^(36 - decimals)` of each coin.
    uint256[] internal _rates;

    /// `A_PRECISION` of the pool's code (1 or 100 on mainnet).
    uint256 public immutable A_PRECISION;
    /// `A * A_PRECISION`.
    uint256 internal immutable _amp;
    /// Fee, 1e-10 units (4e6 is 0.04%).
    uint256 public immutable fee;
    /// The admin's share of the fee, 1e-10 units (5e9 is half).
    uint256 public immutable admin_fee;

    bool internal _entered;

    event TokenExchange(
        address indexed buyer, int128 sold_id, uint256 tokens_sold, int128 bought_id, uint256 tokens_bought
    );

    error BadCoinCount(uint256 n);
    error LengthMismatch();
    error BadCoin(uint256 index);
    error BadDecimals(uint256 index, uint8 decimals);
    error BadParameters();
    error BadIndex(int128 index);
    error SameCoin();
    error Slippage(uint256 dy, uint256 minDy);
    error BadValue(uint256 value);
    error TransferFailed(address coin);
    error NoConvergence();
    error Reentrancy();

    /// @param coins_ 2 to 4 distinct coins; `NATIVE` for the native coin.
    /// @param decimals_ Decimals of each coin, at most 36; 18 for `NATIVE`.
    /// @param ampPrecise `A * A_PRECISION` (`A_precise()`; at least
    /// `aPrecision`).
    /// @param aPrecision `A_PRECISION` (at least 1).
    /// @param fee_ Fee, 1e-10 units, at most 5e9.
    /// @param adminFee Admin share of the fee, 1e-10 units, at most 1e10.
    constructor(
        address[] memory coins_,
        uint8[] memory decimals_,
        uint256 ampPrecise,
        uint256 aPrecision,
        uint256 fee_,
        uint256 adminFee
    ) {
        uint256 n = coins_.length;
        if (n < 2 || n > MAX_COINS) revert BadCoinCount(n);
        if (decimals_.length != n) revert LengthMismatch();
        if (aPrecision == 0 || ampPrecise < aPrecision || fee_ > MAX_FEE || adminFee > MAX_ADMIN_FEE) {
            revert BadParameters();
        }
        for (uint256 k = 0; k < n; ++k) {
            address c = coins_[k];
            if (c == address(0)) revert BadCoin(k);
            for (uint256 m = 0; m < k; ++m) {
                if (coins_[m] == c) revert BadCoin(k);
            }
            uint8 d = decimals_[k];
            if (d > 36 || (c == NATIVE && d != 18)) revert BadDecimals(k, d);
            coins.push(c);
            balances.push(0);
            _rates.push(10 ** (36 - uint256(d)));
        }
        A_PRECISION = aPrecision;
        _amp = ampPrecise;
        fee = fee_;
        admin_fee = adminFee;
    }

    /// Accepts the native coin (funding a pool with a native coin; it joins
    /// the curve only through the balances the world writes).
    receive() external payable {}

    // ---- views ----

    /// The amplification coefficient, without precision.
    function A() external view returns (uint256) {
        return _amp / A_PRECISION;
    }

    /// `A * A_PRECISION`.
    function A_precise() external view returns (uint256) {
        return _amp;
    }

    /// Number of coins.
    function N_COINS() external view returns (uint256) {
        return coins.length;
    }

    /// What the pool holds of coin `i` beyond its internal balance: the
    /// admin fees collected (and any donation). Reverts if the holdings are
    /// below the internal balance (balances written but not funded).
    function admin_balances(uint256 i) external view returns (uint256) {
        address c = coins[i];
        uint256 held = c == NATIVE ? address(this).balance : IStableSwapToken(c).balanceOf(address(this));
        return held - balances[i];
    }

    /// What `exchange(i, j, dx, 0)` pays now.
    function get_dy(int128 i, int128 j, uint256 dx) external view returns (uint256) {
        (uint256 dy,) = _exchangeOut(_index(i), _index(j), dx);
        return dy;
    }

    // ---- actions ----

    /// Sells `dx` of coin `i` for coin `j`, paying at least `min_dy` to the
    /// caller. Coin `i` is pulled with `transferFrom(msg.sender, pool, dx)`,
    /// or is `msg.value` (exactly `dx`) when it is the native coin; for an
    /// ERC-20 `msg.value` must be 0.
    function exchange(int128 i, int128 j, uint256 dx, uint256 min_dy) external payable returns (uint256) {
        if (_entered) revert Reentrancy();
        _entered = true;
        uint256 a = _index(i);
        uint256 b = _index(j);
        (uint256 dy, uint256 adminPart) = _exchangeOut(a, b, dx);
        if (dy < min_dy) revert Slippage(dy, min_dy);

        address coinIn = coins[a];
        if (coinIn == NATIVE) {
            if (msg.value != dx) revert BadValue(msg.value);
        } else {
            if (msg.value != 0) revert BadValue(msg.value);
            _call(coinIn, abi.encodeWithSelector(0x23b872dd, msg.sender, address(this), dx));
        }

        balances[a] += dx;
        balances[b] = balances[b] - dy - adminPart;

        address coinOut = coins[b];
        if (coinOut == NATIVE) {
            (bool ok,) = msg.sender.call{value: dy}("");
            if (!ok) revert TransferFailed(coinOut);
        } else {
            _call(coinOut, abi.encodeWithSelector(0xa9059cbb, msg.sender, dy));
        }
        emit TokenExchange(msg.sender, i, dx, j, dy);
        _entered = false;
        return dy;
    }

    // ---- the curve ----

    function _index(int128 i) internal view returns (uint256) {
        if (i < 0 || uint256(int256(i)) >= coins.length) revert BadIndex(i);
        return uint256(int256(i));
    }

    /// `(dy, admin part)` of `exchange(i, j, dx)`, raw units of coin `j`.
    function _exchangeOut(uint256 i, uint256 j, uint256 dx) internal view returns (uint256, uint256) {
        if (i == j) revert SameCoin();
        uint256 n = coins.length;
        uint256[] memory xp = new uint256[](n);
        for (uint256 k = 0; k < n; ++k) {
            xp[k] = balances[k] * _rates[k] / PRECISION;
        }
        uint256 x = xp[i] + dx * _rates[i] / PRECISION;
        uint256 y = _getY(i, j, x, xp);
        uint256 dy = xp[j] - y - 1;
        uint256 dyFee = dy * fee / FEE_DENOMINATOR;
        uint256 dyAdmin = dyFee * admin_fee / FEE_DENOMINATOR;
        uint256 rate = _rates[j];
        return ((dy - dyFee) * PRECISION / rate, dyAdmin * PRECISION / rate);
    }

    /// The invariant `D` of normalized balances `xp`.
    function _getD(uint256[] memory xp) internal view returns (uint256) {
        uint256 n = xp.length;
        uint256 s = 0;
        for (uint256 k = 0; k < n; ++k) {
            s += xp[k];
        }
        if (s == 0) return 0;
        uint256 aP = A_PRECISION;
        uint256 ann = _amp * n;
        uint256 d = s;
        for (uint256 it = 0; it < MAX_ITERATIONS; ++it) {
            uint256 dP = d;
            for (uint256 k = 0; k < n; ++k) {
                dP = dP * d / (xp[k] * n);
            }
            uint256 prev = d;
            uint256 num = (ann * s / aP + dP * n) * d;
            uint256 den = (ann - aP) * d / aP + (n + 1) * dP;
            d = num / den;
            if (d > prev ? d - prev <= 1 : prev - d <= 1) return d;
        }
        revert NoConvergence();
    }

    /// The normalized balance of coin `j` that keeps `D` when coin `i`'s is
    /// `x`, the others as in `xp`.
    function _getY(uint256 i, uint256 j, uint256 x, uint256[] memory xp) internal view returns (uint256) {
        uint256 n = xp.length;
        uint256 aP = A_PRECISION;
        uint256 d = _getD(xp);
        uint256 ann = _amp * n;
        uint256 c = d;
        uint256 s = 0;
        for (uint256 k = 0; k < n; ++k) {
            uint256 xk;
            if (k == i) {
                xk = x;
            } else if (k != j) {
                xk = xp[k];
            } else {
                continue;
            }
            s += xk;
            c = c * d / (xk * n);
        }
        c = c * d * aP / (ann * n);
        uint256 b = s + d * aP / ann;
        uint256 y = d;
        for (uint256 it = 0; it < MAX_ITERATIONS; ++it) {
            uint256 prev = y;
            uint256 num = y * y + c;
            y = num / (2 * y + b - d);
            if (y > prev ? y - prev <= 1 : prev - y <= 1) return y;
        }
        revert NoConvergence();
    }

    /// Calls an ERC-20, accepting tokens that return nothing.
    function _call(address token, bytes memory data) internal {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool))) || (ret.length == 0 && token.code.length == 0)) {
            revert TransferFailed(token);
        }
    }
}

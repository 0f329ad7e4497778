// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Minimal {
    function transfer(address to, uint256 amount) external returns (bool);
}

/// The part of the Uniswap V3 pool interface the swapper calls.
interface IUniswapV3PoolActions {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external
        returns (uint256 amount0, uint256 amount1);
    function swap(
        address recipient,
        bool zeroForOne,
        int256 amountSpecified,
        uint160 sqrtPriceLimitX96,
        bytes calldata data
    ) external returns (int256 amount0, int256 amount1);
}

/// @title Test helper that mints positions in and swaps through Uniswap V3
/// pools, paying them from its own token balance.
/// @notice Fund it by minting tokens to it. Callbacks are accepted only from
/// the pool the current call is talking to (kept in transient storage), so
/// nobody can make it pay anyone else.
contract V3Swapper {
    /// `TickMath.MIN_SQRT_RATIO + 1`: the lowest price limit a swap may set.
    uint160 internal constant MIN_SQRT_LIMIT = 4295128740;
    /// `TickMath.MAX_SQRT_RATIO - 1`: the highest price limit a swap may set.
    uint160 internal constant MAX_SQRT_LIMIT = 1461446703485210103287273052203988822378723970341;

    address private transient activePool;

    error UnexpectedCallback(address caller);
    error AmountTooLarge(uint256 amount);

    /// Adds `liquidity` to `pool` over `[lower, upper)`, owned by this
    /// contract; returns what the pool took.
    function mint(address pool, int24 lower, int24 upper, uint128 liquidity)
        external
        returns (uint256 amount0, uint256 amount1)
    {
        activePool = pool;
        (amount0, amount1) = IUniswapV3PoolActions(pool).mint(address(this), lower, upper, liquidity, "");
        activePool = address(0);
    }

    /// Sells up to `amountIn` of one token for the other, with no price limit
    /// beyond the pool's own bounds, sending the output to `recipient`.
    /// When the pool runs out of liquidity it takes less than `amountIn`; the
    /// pool's `Swap` event says how much.
    function swapExactIn(address pool, bool zeroForOne, uint256 amountIn, address recipient)
        external
        returns (uint256 out)
    {
        if (amountIn > uint256(type(int256).max)) revert AmountTooLarge(amountIn);
        activePool = pool;
        (int256 amount0, int256 amount1) = IUniswapV3PoolActions(pool).swap(
            recipient, zeroForOne, int256(amountIn), zeroForOne ? MIN_SQRT_LIMIT : MAX_SQRT_LIMIT, ""
        );
        activePool = address(0);
        // The output leg is negative (paid out by the pool).
        out = uint256(-(zeroForOne ? amount1 : amount0));
    }

    function uniswapV3MintCallback(uint256 amount0Owed, uint256 amount1Owed, bytes calldata) external {
        _pay(amount0Owed, amount1Owed);
    }

    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external {
        // Positive deltas are what the pool is owed.
        _pay(amount0Delta > 0 ? uint256(amount0Delta) : 0, amount1Delta > 0 ? uint256(amount1Delta) : 0);
    }

    function _pay(uint256 amount0, uint256 amount1) private {
        if (msg.sender != activePool) revert UnexpectedCallback(msg.sender);
        IUniswapV3PoolActions pool = IUniswapV3PoolActions(msg.sender);
        if (amount0 > 0) require(IERC20Minimal(pool.token0()).transfer(msg.sender, amount0));
        if (amount1 > 0) require(IERC20Minimal(pool.token1()).transfer(msg.sender, amount1));
    }
}

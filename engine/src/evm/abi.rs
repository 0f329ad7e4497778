//! Solidity interfaces of the contracts in [`super::artifacts`], as `sol!`
//! bindings: each function `f` becomes a `fCall` struct (its arguments) with
//! `abi_encode` and `abi_decode_returns`, each error and event a struct.
//!
//! Only what the engine and its tests call is declared; the full ABIs are in
//! the artifact files.

// `sol!` generates the call, return and event types; the Solidity below is
// their documentation.
#![allow(missing_docs)]

use alloy_sol_types::sol;

sol! {
    /// `contracts/src/TestERC20.sol`.
    #[sol(all_derives)]
    contract TestERC20 {
        event Transfer(address indexed from, address indexed to, uint256 value);
        event Approval(address indexed owner, address indexed spender, uint256 value);

        constructor(string name, string symbol, uint8 decimals);

        function name() external view returns (string);
        function symbol() external view returns (string);
        function decimals() external view returns (uint8);
        function totalSupply() external view returns (uint256);
        function balanceOf(address who) external view returns (uint256);
        function allowance(address owner, address spender) external view returns (uint256);
        function transfer(address to, uint256 amount) external returns (bool);
        function approve(address spender, uint256 amount) external returns (bool);
        function transferFrom(address from, address to, uint256 amount) external returns (bool);
        function mint(address to, uint256 amount) external;
        function burn(address from, uint256 amount) external;
    }

    /// `contracts/src/V3Swapper.sol`.
    #[sol(all_derives)]
    contract V3Swapper {
        error UnexpectedCallback(address caller);
        error AmountTooLarge(uint256 amount);

        function mint(address pool, int24 lower, int24 upper, uint128 liquidity)
            external returns (uint256 amount0, uint256 amount1);
        function swapExactIn(address pool, bool zeroForOne, uint256 amountIn, address recipient)
            external returns (uint256 out);
    }

    /// `contracts/src/ReferenceVault.sol`: the ERC-4626 interface.
    #[sol(all_derives)]
    contract ReferenceVault {
        error ZeroShares();
        error ZeroAssets();
        error DivisionOverflow();

        event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
        event Withdraw(
            address indexed sender,
            address indexed receiver,
            address indexed owner,
            uint256 assets,
            uint256 shares
        );

        constructor(address asset, string name, string symbol, uint8 decimals);

        function asset() external view returns (address);
        function totalAssets() external view returns (uint256);
        function totalSupply() external view returns (uint256);
        function balanceOf(address who) external view returns (uint256);
        function convertToShares(uint256 assets) external view returns (uint256);
        function convertToAssets(uint256 shares) external view returns (uint256);
        function previewDeposit(uint256 assets) external view returns (uint256);
        function previewMint(uint256 shares) external view returns (uint256);
        function previewWithdraw(uint256 assets) external view returns (uint256);
        function previewRedeem(uint256 shares) external view returns (uint256);
        function deposit(uint256 assets, address receiver) external returns (uint256 shares);
        function mint(uint256 shares, address receiver) external returns (uint256 assets);
        function withdraw(uint256 assets, address receiver, address owner)
            external returns (uint256 shares);
        function redeem(uint256 shares, address receiver, address owner)
            external returns (uint256 assets);
    }

    /// `@uniswap/v2-core` `UniswapV2Factory`.
    #[sol(all_derives)]
    contract UniswapV2Factory {
        event PairCreated(address indexed token0, address indexed token1, address pair, uint256);

        constructor(address feeToSetter);

        function getPair(address tokenA, address tokenB) external view returns (address pair);
        function allPairsLength() external view returns (uint256);
        function createPair(address tokenA, address tokenB) external returns (address pair);
    }

    /// `@uniswap/v2-core` `UniswapV2Pair`.
    #[sol(all_derives)]
    contract UniswapV2Pair {
        event Swap(
            address indexed sender,
            uint256 amount0In,
            uint256 amount1In,
            uint256 amount0Out,
            uint256 amount1Out,
            address indexed to
        );
        event Sync(uint112 reserve0, uint112 reserve1);

        function token0() external view returns (address);
        function token1() external view returns (address);
        function getReserves() external view
            returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
        function mint(address to) external returns (uint256 liquidity);
        function burn(address to) external returns (uint256 amount0, uint256 amount1);
        function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data) external;
        function skim(address to) external;
        function sync() external;
    }

    /// `@uniswap/v3-core` `UniswapV3Factory`.
    #[sol(all_derives)]
    contract UniswapV3Factory {
        event PoolCreated(
            address indexed token0,
            address indexed token1,
            uint24 indexed fee,
            int24 tickSpacing,
            address pool
        );

        function feeAmountTickSpacing(uint24 fee) external view returns (int24);
        function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address pool);
        function createPool(address tokenA, address tokenB, uint24 fee) external returns (address pool);
    }

    /// `@uniswap/v3-core` `UniswapV3Pool`.
    #[sol(all_derives)]
    contract UniswapV3Pool {
        event Swap(
            address indexed sender,
            address indexed recipient,
            int256 amount0,
            int256 amount1,
            uint160 sqrtPriceX96,
            uint128 liquidity,
            int24 tick
        );

        function token0() external view returns (address);
        function token1() external view returns (address);
        function fee() external view returns (uint24);
        function tickSpacing() external view returns (int24);
        function liquidity() external view returns (uint128);
        function slot0() external view returns (
            uint160 sqrtPriceX96,
            int24 tick,
            uint16 observationIndex,
            uint16 observationCardinality,
            uint16 observationCardinalityNext,
            uint8 feeProtocol,
            bool unlocked
        );
        function ticks(int24 tick) external view returns (
            uint128 liquidityGross,
            int128 liquidityNet,
            uint256 feeGrowthOutside0X128,
            uint256 feeGrowthOutside1X128,
            int56 tickCumulativeOutside,
            uint160 secondsPerLiquidityOutsideX128,
            uint32 secondsOutside,
            bool initialized
        );
        function tickBitmap(int16 wordPosition) external view returns (uint256);
        function initialize(uint160 sqrtPriceX96) external;
    }
}

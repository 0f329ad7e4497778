//! The public interfaces programs call, as `sol!` bindings: each function
//! `f` gives an `fCall` with its `SELECTOR` and typed arguments. These are
//! the protocols' own ABIs and their periphery's (the fixtures in
//! `contracts/` follow them); Enso's helper contracts are in `helpers.rs`.

// `sol!` generates the call types; the Solidity below is their
// documentation.
#![allow(missing_docs)]

use alloy_sol_types::sol;

sol! {
    /// ERC-20.
    interface IERC20 {
        function transfer(address to, uint256 amount) external returns (bool);
        function transferFrom(address from, address to, uint256 amount) external returns (bool);
        function approve(address spender, uint256 amount) external returns (bool);
        function balanceOf(address who) external view returns (uint256);
    }

    /// WETH9.
    interface IWETH {
        function deposit() external payable;
        function withdraw(uint256 wad) external;
    }

    /// Uniswap V2 pair (and forks).
    interface IUniswapV2Pair {
        function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data) external;
    }

    /// Uniswap V3 pool (and forks).
    interface IUniswapV3Pool {
        function swap(
            address recipient,
            bool zeroForOne,
            int256 amountSpecified,
            uint160 sqrtPriceLimitX96,
            bytes data
        ) external returns (int256 amount0, int256 amount1);
    }

    /// ERC-4626.
    interface IERC4626 {
        function deposit(uint256 assets, address receiver) external returns (uint256 shares);
        function redeem(uint256 shares, address receiver, address owner) external returns (uint256 assets);
        function mint(uint256 shares, address receiver) external returns (uint256 assets);
        function withdraw(uint256 assets, address receiver, address owner) external returns (uint256 shares);
    }

    /// Curve StableSwap.
    interface ICurvePool {
        function get_dy(int128 i, int128 j, uint256 dx) external view returns (uint256);
        function exchange(int128 i, int128 j, uint256 dx, uint256 min_dy) external payable returns (uint256);
        function calc_withdraw_one_coin(uint256 token_amount, int128 i) external view returns (uint256);
        function remove_liquidity_one_coin(uint256 token_amount, int128 i, uint256 min_amount) external;
    }

    /// A tokenized Curve pool of 2 coins (stETH/ETH); the deposit's
    /// selector depends on the coin count.
    interface ICurvePool2 {
        function add_liquidity(uint256[2] amounts, uint256 min_mint_amount) external payable;
        function remove_liquidity(uint256 amount, uint256[2] min_amounts) external;
    }

    /// A tokenized Curve pool of 3 coins (3pool).
    interface ICurvePool3 {
        function add_liquidity(uint256[3] amounts, uint256 min_mint_amount) external;
        function remove_liquidity(uint256 amount, uint256[3] min_amounts) external;
    }

    /// A tokenized Curve pool of 4 coins.
    interface ICurvePool4 {
        function add_liquidity(uint256[4] amounts, uint256 min_mint_amount) external;
        function remove_liquidity(uint256 amount, uint256[4] min_amounts) external;
    }

    /// Balancer V2 Vault.
    interface IBalancerVault {
        struct SingleSwap {
            bytes32 poolId;
            uint8 kind;
            address assetIn;
            address assetOut;
            uint256 amount;
            bytes userData;
        }
        struct FundManagement {
            address sender;
            bool fromInternalBalance;
            address recipient;
            bool toInternalBalance;
        }
        function swap(SingleSwap singleSwap, FundManagement funds, uint256 limit, uint256 deadline)
            external payable returns (uint256 amountCalculated);
        struct JoinPoolRequest {
            address[] assets;
            uint256[] maxAmountsIn;
            bytes userData;
            bool fromInternalBalance;
        }
        struct ExitPoolRequest {
            address[] assets;
            uint256[] minAmountsOut;
            bytes userData;
            bool toInternalBalance;
        }
        function joinPool(bytes32 poolId, address sender, address recipient, JoinPoolRequest request)
            external payable;
        function exitPool(bytes32 poolId, address sender, address recipient, ExitPoolRequest request)
            external;
    }

    /// Enso's `BalancerHelpers` (VERSION 2, the deployed interface).
    interface IBalancerHelpers {
        function encodeDataForJoinKindOne(uint256 joinKind, uint256[] amounts, uint256 minimumBPT)
            external pure returns (bytes);
        function encodeDataForExitKindZero(uint256 exitKind, uint256 amount, uint256 tokenIndex)
            external pure returns (bytes);
    }

    /// Aave V3 pool.
    interface IAavePool {
        function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode) external;
        function withdraw(address asset, uint256 amount, address to) external returns (uint256);
    }

    /// Compound V2 cToken.
    interface ICToken {
        function mint(uint256 mintAmount) external returns (uint256);
        function redeem(uint256 redeemTokens) external returns (uint256);
    }

    /// Compound III market (Comet).
    interface IComet {
        function supply(address asset, uint256 amount) external;
        function withdraw(address asset, uint256 amount) external;
    }

    /// Lido stETH.
    interface IStETH {
        function submit(address referral) external payable returns (uint256);
        function sharesOf(address account) external view returns (uint256);
        function transferShares(address recipient, uint256 sharesAmount) external returns (uint256);
    }

    /// Lido wstETH.
    interface IWstETH {
        function wrap(uint256 stETHAmount) external returns (uint256);
        function unwrap(uint256 wstETHAmount) external returns (uint256);
    }

    /// What every executor carries for its programs (`ShortcutsBase.sol`).
    /// Uniswap V2 `Router02` (and forks' identical routers).
    interface IUniswapV2Router {
        function swapExactTokensForTokens(
            uint256 amountIn,
            uint256 amountOutMin,
            address[] path,
            address to,
            uint256 deadline
        ) external returns (uint256[] amounts);
        function swapTokensForExactTokens(
            uint256 amountOut,
            uint256 amountInMax,
            address[] path,
            address to,
            uint256 deadline
        ) external returns (uint256[] amounts);
        function getAmountsIn(uint256 amountOut, address[] path) external view returns (uint256[] amounts);
        function addLiquidity(
            address tokenA,
            address tokenB,
            uint256 amountADesired,
            uint256 amountBDesired,
            uint256 amountAMin,
            uint256 amountBMin,
            address to,
            uint256 deadline
        ) external returns (uint256 amountA, uint256 amountB, uint256 liquidity);
        function removeLiquidity(
            address tokenA,
            address tokenB,
            uint256 liquidity,
            uint256 amountAMin,
            uint256 amountBMin,
            address to,
            uint256 deadline
        ) external returns (uint256 amountA, uint256 amountB);
    }

    /// Uniswap V3 `SwapRouter` (`@uniswap/v3-periphery`).
    interface ISwapRouter {
        struct ExactInputSingleParams {
            address tokenIn;
            address tokenOut;
            uint24 fee;
            address recipient;
            uint256 deadline;
            uint256 amountIn;
            uint256 amountOutMinimum;
            uint160 sqrtPriceLimitX96;
        }
        function exactInputSingle(ExactInputSingleParams params) external payable returns (uint256 amountOut);
        struct ExactOutputSingleParams {
            address tokenIn;
            address tokenOut;
            uint24 fee;
            address recipient;
            uint256 deadline;
            uint256 amountOut;
            uint256 amountInMaximum;
            uint160 sqrtPriceLimitX96;
        }
        function exactOutputSingle(ExactOutputSingleParams params) external payable returns (uint256 amountIn);
        struct ExactOutputParams {
            bytes path;
            address recipient;
            uint256 deadline;
            uint256 amountOut;
            uint256 amountInMaximum;
        }
        function exactOutput(ExactOutputParams params) external payable returns (uint256 amountIn);
    }

    /// Uniswap `SwapRouter02` (`@uniswap/swap-router-contracts`).
    interface ISwapRouter02 {
        struct ExactInputSingleParams {
            address tokenIn;
            address tokenOut;
            uint24 fee;
            address recipient;
            uint256 amountIn;
            uint256 amountOutMinimum;
            uint160 sqrtPriceLimitX96;
        }
        function exactInputSingle(ExactInputSingleParams params) external payable returns (uint256 amountOut);
        struct ExactOutputParams {
            bytes path;
            address recipient;
            uint256 amountOut;
            uint256 amountInMaximum;
        }
        function exactOutput(ExactOutputParams params) external payable returns (uint256 amountIn);
    }

    /// The shortcut entry points.
    interface IShortcuts {
        function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] commands, bytes[] state)
            external payable returns (bytes[]);
    }

    /// The legacy delegate entry point.
    interface ILegacyShortcuts {
        function executeShortcut(bytes32 shortcutId, bytes32[] commands, bytes[] state)
            external payable returns (bytes[]);
    }
}

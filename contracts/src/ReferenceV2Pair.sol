// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IV2ERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

/// @title Reference Uniswap-V2-style pair with a configurable fee.
/// @notice The swap side of the Uniswap V2 pair interface (`token0`,
/// `token1`, `getReserves`, `swap`, `sync`, `skim`, the `Swap` and `Sync`
/// events) for constant-product forks whose fee is not 30 bps (PancakeSwap
/// V2: 25). `swap` pays the outputs, infers the inputs from the balances
/// and accepts when
///
///     (balance0 * 10000 - amount0In * feeBps) * (balance1 * 10000 - amount1In * feeBps)
///         >= reserve0 * reserve1 * 10000^2
///
/// which is exactly what `getAmountOut` with `(10000 - feeBps) / 10000`
/// allows: its output passes, one wei more fails.
///
/// There are no LP tokens: a fixture sets the reserves by minting the tokens
/// to the pair and calling `sync()`. Flash swaps are not supported: a `swap`
/// with non-empty `data` reverts with `FlashSwapUnsupported` (the input must
/// already be in the pair). There is no protocol fee, no price oracle
/// (`price0CumulativeLast`) and no factory.
contract ReferenceV2Pair {
    uint256 private constant BPS = 10_000;

    address public immutable token0;
    address public immutable token1;
    /// @notice The swap fee on the input, in basis points.
    uint16 public immutable feeBps;

    uint112 private _reserve0;
    uint112 private _reserve1;
    uint32 private _blockTimestampLast;
    bool private _locked;

    /// @notice As Uniswap V2's.
    event Swap(
        address indexed sender,
        uint256 amount0In,
        uint256 amount1In,
        uint256 amount0Out,
        uint256 amount1Out,
        address indexed to
    );
    /// @notice As Uniswap V2's.
    event Sync(uint112 reserve0, uint112 reserve1);

    error UnsortedTokens();
    error InvalidFee(uint16 feeBps);
    error Locked();
    error InsufficientOutputAmount();
    error InsufficientLiquidity();
    error InvalidTo();
    error FlashSwapUnsupported();
    error InsufficientInputAmount();
    error K();
    error Overflow();
    error TransferFailed();

    /// @param token0_ The lower token address.
    /// @param token1_ The higher token address.
    /// @param feeBps_ The fee, below 10000.
    constructor(address token0_, address token1_, uint16 feeBps_) {
        if (token0_ >= token1_ || token0_ == address(0)) revert UnsortedTokens();
        if (feeBps_ >= BPS) revert InvalidFee(feeBps_);
        token0 = token0_;
        token1 = token1_;
        feeBps = feeBps_;
    }

    modifier lock() {
        if (_locked) revert Locked();
        _locked = true;
        _;
        _locked = false;
    }

    function getReserves() public view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast) {
        return (_reserve0, _reserve1, _blockTimestampLast);
    }

    /// @notice Pays `amount0Out` and `amount1Out` to `to`, given inputs already
    /// transferred to the pair. `data` must be empty.
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external lock {
        if (amount0Out == 0 && amount1Out == 0) revert InsufficientOutputAmount();
        (uint112 r0, uint112 r1,) = getReserves();
        if (amount0Out >= r0 || amount1Out >= r1) revert InsufficientLiquidity();
        if (to == token0 || to == token1) revert InvalidTo();
        if (data.length != 0) revert FlashSwapUnsupported();

        if (amount0Out > 0) _pay(token0, to, amount0Out);
        if (amount1Out > 0) _pay(token1, to, amount1Out);
        uint256 balance0 = IV2ERC20Like(token0).balanceOf(address(this));
        uint256 balance1 = IV2ERC20Like(token1).balanceOf(address(this));

        // What came in beyond the reserve left after the outputs.
        uint256 amount0In = balance0 > r0 - amount0Out ? balance0 - (r0 - amount0Out) : 0;
        uint256 amount1In = balance1 > r1 - amount1Out ? balance1 - (r1 - amount1Out) : 0;
        if (amount0In == 0 && amount1In == 0) revert InsufficientInputAmount();
        {
            uint256 adjusted0 = balance0 * BPS - amount0In * feeBps;
            uint256 adjusted1 = balance1 * BPS - amount1In * feeBps;
            if (adjusted0 * adjusted1 < uint256(r0) * uint256(r1) * (BPS * BPS)) revert K();
        }
        _update(balance0, balance1);
        emit Swap(msg.sender, amount0In, amount1In, amount0Out, amount1Out, to);
    }

    /// @notice Sends the balances above the reserves to `to`.
    function skim(address to) external lock {
        _pay(token0, to, IV2ERC20Like(token0).balanceOf(address(this)) - _reserve0);
        _pay(token1, to, IV2ERC20Like(token1).balanceOf(address(this)) - _reserve1);
    }

    /// @notice Sets the reserves to the balances.
    function sync() external lock {
        _update(IV2ERC20Like(token0).balanceOf(address(this)), IV2ERC20Like(token1).balanceOf(address(this)));
    }

    // ---- internals ----

    function _update(uint256 balance0, uint256 balance1) private {
        if (balance0 > type(uint112).max || balance1 > type(uint112).max) revert Overflow();
        _reserve0 = uint112(balance0);
        _reserve1 = uint112(balance1);
        _blockTimestampLast = uint32(block.timestamp);
        emit Sync(_reserve0, _reserve1);
    }

    /// @dev Transfers `amount` of `token`; the call must succeed and return
    /// `true` or nothing.
    function _pay(address token, address to, uint256 amount) private {
        (bool ok, bytes memory ret) = token.call(abi.encodeCall(IV2ERC20Like.transfer, (to, amount)));
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IV2PairLike {
    function getReserves() external view returns (uint112, uint112, uint32);
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}

/// @title Reference of a Uniswap V2 fork's `Router02` (PancakeSwap's router
/// on BNB Chain, SushiSwap's elsewhere), whose bytecode no registry
/// publishes.
/// @notice The part of Router02's interface programs call, with its
/// behaviour: `factory()`, `WETH()`, `getAmountsOut(amountIn, path)` and
/// `swapExactTokensForTokens(amountIn, amountOutMin, path, to, deadline)`
/// (pairs found by CREATE2 from the factory and its init code hash, amounts
/// by `getAmountOut` with the fork's fee, `UniswapV2Router: EXPIRED` and
/// `UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT` as Router02 reverts). The
/// constructor takes the fork's constants. Written here, not copied.
contract ReferenceV2Router {
    address public immutable factory;
    address public immutable WETH;
    bytes32 private immutable initCodeHash;
    uint256 private immutable feeBps;

    constructor(address factory_, address weth_, bytes32 initCodeHash_, uint256 feeBps_) {
        factory = factory_;
        WETH = weth_;
        initCodeHash = initCodeHash_;
        feeBps = feeBps_;
    }

    function getAmountsOut(uint256 amountIn, address[] calldata path) public view returns (uint256[] memory amounts) {
        require(path.length >= 2, "UniswapV2Library: INVALID_PATH");
        amounts = new uint256[](path.length);
        amounts[0] = amountIn;
        for (uint256 k; k + 1 < path.length; ++k) {
            (uint256 rIn, uint256 rOut) = _reserves(path[k], path[k + 1]);
            amounts[k + 1] = _amountOut(amounts[k], rIn, rOut);
        }
    }

    function swapExactTokensForTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external returns (uint256[] memory amounts) {
        require(deadline >= block.timestamp, "UniswapV2Router: EXPIRED");
        amounts = getAmountsOut(amountIn, path);
        require(amounts[amounts.length - 1] >= amountOutMin, "UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT");
        _transferFrom(path[0], msg.sender, _pair(path[0], path[1]), amounts[0]);
        for (uint256 k; k + 1 < path.length; ++k) {
            (address a, address b) = (path[k], path[k + 1]);
            uint256 out = amounts[k + 1];
            (uint256 out0, uint256 out1) = a < b ? (uint256(0), out) : (out, uint256(0));
            address next = k + 2 < path.length ? _pair(b, path[k + 2]) : to;
            IV2PairLike(_pair(a, b)).swap(out0, out1, next, new bytes(0));
        }
    }

    function _pair(address a, address b) private view returns (address) {
        (address t0, address t1) = a < b ? (a, b) : (b, a);
        bytes32 h = keccak256(abi.encodePacked(hex"ff", factory, keccak256(abi.encodePacked(t0, t1)), initCodeHash));
        return address(uint160(uint256(h)));
    }

    function _reserves(address a, address b) private view returns (uint256 rIn, uint256 rOut) {
        (uint112 r0, uint112 r1,) = IV2PairLike(_pair(a, b)).getReserves();
        (rIn, rOut) = a < b ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
    }

    function _amountOut(uint256 amountIn, uint256 rIn, uint256 rOut) private view returns (uint256) {
        require(amountIn > 0, "UniswapV2Library: INSUFFICIENT_INPUT_AMOUNT");
        require(rIn > 0 && rOut > 0, "UniswapV2Library: INSUFFICIENT_LIQUIDITY");
        uint256 x = amountIn * (10_000 - feeBps);
        return x * rOut / (rIn * 10_000 + x);
    }

    function _transferFrom(address token, address from, address to, uint256 amount) private {
        (bool ok, bytes memory r) = token.call(abi.encodeWithSelector(0x23b872dd, from, to, amount));
        require(ok && (r.length == 0 || abi.decode(r, (bool))), "TransferHelper: TRANSFER_FROM_FAILED");
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {Measured, ProbeResult, resultOf} from "./ProbeResult.sol";

interface IProbeToken {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

interface IProbeV2Pair {
    function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes calldata data) external;
}

interface IProbeV3Pool {
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data)
        external
        returns (int256, int256);
}

/// @title Finds whether tokens move the amount asked, without being deployed.
/// @notice The RPC feed sends this contract's initcode (plus the constructor
/// arguments) as the `data` of an `eth_call` with no `to`, pinned to one
/// block. For each token it borrows a thousandth of what one of the token's
/// pools holds through that pool's own flash swap (a Uniswap V2 `swap` with
/// callback data, or a V3 exact-output `swap`): the pool sends the amount
/// asked, and inside the callback the probe measures what arrived, sends
/// all of it on to a fresh address, and measures what arrived there. It
/// then reverts with the four numbers, so the pool never wants its tokens
/// back and nothing of the block changes. A token that takes a fee on
/// transfer, rebases on transfer, or refuses the transfers shows it here.
contract TransferProbe {
    struct Request {
        address token;
        address pool;
        /// 0: a Uniswap V2 pair; 1: a Uniswap V3 pool.
        uint8 kind;
        /// Whether `token` is the pool's token0.
        bool isToken0;
    }

    constructor(Request[] memory requests) {
        ProbeAgent agent = new ProbeAgent();
        ProbeResult[] memory results = new ProbeResult[](requests.length);
        for (uint256 i = 0; i < requests.length; i++) {
            Request memory r = requests[i];
            try agent.probe(r.token, r.pool, r.kind, r.isToken0) {
                results[i].reason = "the pool did not call back";
            } catch (bytes memory reason) {
                results[i] = resultOf(reason);
            }
        }
        bytes memory out = abi.encode(results);
        assembly {
            return(add(out, 32), mload(out))
        }
    }
}

/// @notice The probe's deployed half (created inside the `eth_call` only):
/// the pool's flash-swap callbacks need code at the receiving address.
contract ProbeAgent {
    /// Where the probe sends the borrowed tokens on: an address no one holds
    /// a key to, with no balance of anything.
    address private constant ONWARD = address(uint160(uint256(keccak256("switchyard transfer probe"))));
    uint160 private constant MIN_SQRT_RATIO = 4295128739;
    uint160 private constant MAX_SQRT_RATIO = 1461446703485210103287273052203988937;

    error NothingToBorrow();

    address private token;
    uint256 private asked;
    bool private borrowsToken0;

    function probe(address token_, address pool, uint8 kind, bool isToken0) external {
        uint256 amount = IProbeToken(token_).balanceOf(pool) / 1000;
        if (amount == 0) revert NothingToBorrow();
        token = token_;
        asked = amount;
        borrowsToken0 = isToken0;
        if (kind == 0) {
            (uint256 out0, uint256 out1) = isToken0 ? (amount, uint256(0)) : (uint256(0), amount);
            IProbeV2Pair(pool).swap(out0, out1, address(this), hex"01");
        } else {
            // Exact output of `token`: the other token goes in.
            bool zeroForOne = !isToken0;
            IProbeV3Pool(pool).swap(
                address(this),
                zeroForOne,
                -int256(amount),
                zeroForOne ? MIN_SQRT_RATIO + 1 : MAX_SQRT_RATIO - 1,
                hex"01"
            );
        }
    }

    function uniswapV2Call(address, uint256, uint256, bytes calldata) external {
        _measure(asked);
    }

    /// A V3 pool may pay less than asked (its liquidity ran out before the
    /// price limit): what it paid is the negative delta.
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external {
        int256 paid = borrowsToken0 ? amount0Delta : amount1Delta;
        _measure(paid < 0 ? uint256(-paid) : 0);
    }

    function _measure(uint256 paid) private {
        IProbeToken t = IProbeToken(token);
        uint256 received = t.balanceOf(address(this));
        uint256 before = t.balanceOf(ONWARD);
        t.transfer(ONWARD, received);
        uint256 arrived = t.balanceOf(ONWARD) - before;
        revert Measured(paid, received, received, arrived);
    }
}

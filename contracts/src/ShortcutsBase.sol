// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {WeirollVM} from "./WeirollVM.sol";

interface IERC20Min {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

interface IUniswapV2PairMin {
    function token0() external view returns (address);
    function getReserves() external view returns (uint112, uint112, uint32);
}

interface IUniswapV3PoolMin {
    function token0() external view returns (address);
    function token1() external view returns (address);
}

/// @title What every shortcuts executor shares: the VM, the pure helpers a
/// program calls on its own address, and the swap callbacks.
/// @notice Helpers are `view`/`pure` and take everything from their
/// arguments, so a program calls them with STATICCALL on the executor's own
/// address (the account's, for the delegate running in an account). They
/// hold the arithmetic a program needs between protocol calls: balances,
/// differences, fee and slippage shares, minimum checks, and the outputs of
/// pools whose swap functions return nothing usable.
abstract contract ShortcutsBase is WeirollVM {
    /// The native coin, as the API names it.
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    /// `ccipSend(uint64,(bytes,bytes,(address,uint256)[],address,bytes))`.
    bytes4 internal constant CCIP_SEND = 0x96f4e9f9;

    struct CcipTokenAmount {
        address token;
        uint256 amount;
    }

    struct CcipMessage {
        bytes receiver;
        bytes data;
        CcipTokenAmount[] tokenAmounts;
        address feeToken;
        bytes extraArgs;
    }

    /// A callback came from a contract the program is not calling.
    error UnexpectedCallback(address caller);
    /// `requireAtLeast`: an amount below its minimum.
    error AmountBelowMinimum(uint256 amount, uint256 minimum);
    /// `check`: a condition that is false.
    error CheckFailed();
    /// A basis-point share above 10,000.
    error BadBps(uint256 bps);

    receive() external payable {}

    // ------------------------------------------------------------ balances

    /// `account`'s balance of `token` (the native coin's for `NATIVE`).
    function tokenBalance(address token, address account) external view returns (uint256) {
        return token == NATIVE ? account.balance : IERC20Min(token).balanceOf(account);
    }

    // ---------------------------------------------------------------- math

    function add(uint256 a, uint256 b) external pure returns (uint256) {
        return a + b;
    }

    function sub(uint256 a, uint256 b) external pure returns (uint256) {
        return a - b;
    }

    function mul(uint256 a, uint256 b) external pure returns (uint256) {
        return a * b;
    }

    function div(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    function min(uint256 a, uint256 b) external pure returns (uint256) {
        return a < b ? a : b;
    }

    function max(uint256 a, uint256 b) external pure returns (uint256) {
        return a > b ? a : b;
    }

    function isEqual(uint256 a, uint256 b) external pure returns (bool) {
        return a == b;
    }

    function isLessThan(uint256 a, uint256 b) external pure returns (bool) {
        return a < b;
    }

    function isEqualOrLessThan(uint256 a, uint256 b) external pure returns (bool) {
        return a <= b;
    }

    function isGreaterThan(uint256 a, uint256 b) external pure returns (bool) {
        return a > b;
    }

    function isEqualOrGreaterThan(uint256 a, uint256 b) external pure returns (bool) {
        return a >= b;
    }

    function not(bool c) external pure returns (bool) {
        return !c;
    }

    /// Reverts unless `c`.
    function check(bool c) external pure returns (bool) {
        if (!c) revert CheckFailed();
        return true;
    }

    /// `a` when `c`, else `b`.
    function toggle(bool c, uint256 a, uint256 b) external pure returns (uint256) {
        return c ? a : b;
    }

    /// `amount * bps / 10_000`, rounded down: a fee share.
    function bpsOf(uint256 amount, uint256 bps) external pure returns (uint256) {
        if (bps > 10_000) revert BadBps(bps);
        return amount * bps / 10_000;
    }

    /// `amount * (10_000 - bps) / 10_000`, rounded down: what is left after
    /// a slippage allowance (or a fee) of `bps`.
    function lessBps(uint256 amount, uint256 bps) external pure returns (uint256) {
        if (bps > 10_000) revert BadBps(bps);
        return amount * (10_000 - bps) / 10_000;
    }

    /// `amount` itself, or a revert when it is below `minimum`.
    function requireAtLeast(uint256 amount, uint256 minimum) external pure returns (uint256) {
        if (amount < minimum) revert AmountBelowMinimum(amount, minimum);
        return amount;
    }

    // ------------------------------------------------------- pool outputs

    /// What a constant-product pair pays for `amountIn` of `tokenIn` now,
    /// with its fee in bps: `getAmountOut` on the pair's stored reserves.
    function v2AmountOut(address pair, address tokenIn, uint256 amountIn, uint256 feeBps)
        external
        view
        returns (uint256)
    {
        (uint112 r0, uint112 r1,) = IUniswapV2PairMin(pair).getReserves();
        (uint256 rIn, uint256 rOut) =
            IUniswapV2PairMin(pair).token0() == tokenIn ? (uint256(r0), uint256(r1)) : (uint256(r1), uint256(r0));
        uint256 withFee = amountIn * (10_000 - feeBps);
        return withFee * rOut / (rIn * 10_000 + withFee);
    }

    /// The output of a Uniswap V3 `swap` from its raw return
    /// `(int256 amount0, int256 amount1)`: the negated delta of the token
    /// paid out.
    function v3AmountOut(bytes calldata ret, bool zeroForOne) external pure returns (uint256) {
        (int256 a0, int256 a1) = abi.decode(ret, (int256, int256));
        return uint256(-(zeroForOne ? a1 : a0));
    }

    // ------------------------------------------------------------- calldata

    /// The calldata of a CCIP `ccipSend(destinationChainSelector, message)`
    /// carrying `amount` of one `token` to `receiver` with `data`: the
    /// message's token list is an array of structs, which a program cannot
    /// fill from a slot directly, so it is encoded here for a raw call
    /// (flag 0x20) that follows.
    ///
    /// Laid out for the VM, not as an ABI `bytes`: the VM stores a single
    /// variable-length return without its leading word, and a raw call sends
    /// its slot as it is. So this returns the word 32, then the calldata
    /// itself, zero-padded to whole words (a Solidity callee ignores the
    /// trailing zeros), and the slot the VM stores is exactly the calldata.
    /// Call it with a variable-length output slot.
    function ccipSendCalldata(
        uint64 destinationChainSelector,
        address receiver,
        bytes calldata data,
        address token,
        uint256 amount
    ) external pure {
        CcipTokenAmount[] memory tokens = new CcipTokenAmount[](1);
        tokens[0] = CcipTokenAmount(token, amount);
        bytes memory cd = abi.encodeWithSelector(
            CCIP_SEND, destinationChainSelector, CcipMessage(abi.encode(receiver), data, tokens, address(0), "")
        );
        assembly ("memory-safe") {
            let len := mload(cd)
            // Zero the padding after the data, then put the leading word
            // where the length was.
            mstore(add(add(cd, 32), len), 0)
            mstore(cd, 32)
            return(cd, add(32, mul(div(add(len, 31), 32), 32)))
        }
    }

    // ------------------------------------------------------------ callbacks

    /// Uniswap V3 (and its forks) pay-as-you-swap: only the pool the program
    /// is calling may collect, and only what it says it is owed.
    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata) external {
        if (msg.sender != _callTarget || msg.sender == address(0)) revert UnexpectedCallback(msg.sender);
        if (amount0Delta > 0) {
            _pay(IUniswapV3PoolMin(msg.sender).token0(), msg.sender, uint256(amount0Delta));
        }
        if (amount1Delta > 0) {
            _pay(IUniswapV3PoolMin(msg.sender).token1(), msg.sender, uint256(amount1Delta));
        }
    }

    function _pay(address token, address to, uint256 amount) private {
        (bool ok, bytes memory ret) = token.call(abi.encodeCall(IERC20Min.transfer, (to, amount)));
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert UnexpectedCallback(token);
    }
}

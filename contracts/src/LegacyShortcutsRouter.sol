// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {LegacyShortcutsExecutor} from "./LegacyShortcutsExecutor.sol";

interface IERC20Legacy {
    function balanceOf(address who) external view returns (uint256);
}

/// @title Reference of Enso's deployed legacy router (`EnsoShortcutRouter`,
/// `0x80EbA3855878739F4710233A8a19d89Bdd2ffB8E`).
/// @notice Mirrors its external surface and behaviour, nothing more; written
/// here from the public interface. `0xeeee…eeee` is the native coin.
///
/// - The constructor `(owner)` creates its executor at its first CREATE
///   address; `enso()` returns it.
/// - `routeSingle`: a native input must equal `msg.value`
///   (`WrongValue(value, amount)`); otherwise `msg.value` must be 0 before
///   the input is pulled from `msg.sender` into the executor. Then the
///   executor runs `executeShortcut(commands, state)` with the value.
/// - `routeMulti`: the same per input; a second native input reverts
///   `Duplicate(token)`.
/// - `safeRouteSingle`/`safeRouteMulti`: the receiver's balance of each
///   output is read first; a gain below its minimum reverts
///   `AmountTooLow(token)`.
contract LegacyShortcutsRouter {
    struct Token {
        address token;
        uint256 amount;
    }

    address private constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    address public immutable enso;

    error WrongValue(uint256 value, uint256 amount);
    error AmountTooLow(address token);
    error Duplicate(address token);

    constructor(address owner_) {
        enso = address(new LegacyShortcutsExecutor(owner_, address(this)));
    }

    function routeSingle(address tokenIn, uint256 amountIn, bytes32[] calldata commands, bytes[] calldata state)
        public
        payable
        returns (bytes[] memory)
    {
        if (tokenIn == NATIVE) {
            if (msg.value != amountIn) revert WrongValue(msg.value, amountIn);
        } else {
            if (msg.value != 0) revert WrongValue(msg.value, 0);
            _pull(tokenIn, amountIn);
        }
        return LegacyShortcutsExecutor(payable(enso)).executeShortcut{value: msg.value}(commands, state);
    }

    function routeMulti(Token[] calldata tokensIn, bytes32[] calldata commands, bytes[] calldata state)
        public
        payable
        returns (bytes[] memory)
    {
        bool native;
        for (uint256 k; k < tokensIn.length; ++k) {
            if (tokensIn[k].token == NATIVE) {
                if (native) revert Duplicate(NATIVE);
                native = true;
                if (msg.value != tokensIn[k].amount) revert WrongValue(msg.value, tokensIn[k].amount);
            } else {
                _pull(tokensIn[k].token, tokensIn[k].amount);
            }
        }
        if (!native && msg.value != 0) revert WrongValue(msg.value, 0);
        return LegacyShortcutsExecutor(payable(enso)).executeShortcut{value: msg.value}(commands, state);
    }

    function safeRouteSingle(
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 minAmountOut,
        address receiver,
        bytes32[] calldata commands,
        bytes[] calldata state
    ) external payable returns (bytes[] memory response) {
        uint256 before = _balance(tokenOut, receiver);
        response = routeSingle(tokenIn, amountIn, commands, state);
        if (_balance(tokenOut, receiver) - before < minAmountOut) revert AmountTooLow(tokenOut);
    }

    function safeRouteMulti(
        Token[] calldata tokensIn,
        Token[] calldata tokensOut,
        address receiver,
        bytes32[] calldata commands,
        bytes[] calldata state
    ) external payable returns (bytes[] memory response) {
        uint256 n = tokensOut.length;
        uint256[] memory before = new uint256[](n);
        for (uint256 k; k < n; ++k) {
            before[k] = _balance(tokensOut[k].token, receiver);
        }
        response = routeMulti(tokensIn, commands, state);
        for (uint256 k; k < n; ++k) {
            if (_balance(tokensOut[k].token, receiver) - before[k] < tokensOut[k].amount) {
                revert AmountTooLow(tokensOut[k].token);
            }
        }
    }

    /// A checked `transferFrom(msg.sender → executor)`: a revert passes on,
    /// a `false` or a call to no code reverts with SafeERC20's message.
    function _pull(address token, uint256 amount) private {
        (bool ok, bytes memory r) = token.call(abi.encodeWithSelector(0x23b872dd, msg.sender, enso, amount));
        if (!ok) {
            if (r.length == 0) revert("SafeERC20: low-level call failed");
            assembly ("memory-safe") {
                revert(add(r, 32), mload(r))
            }
        }
        if (r.length == 0) {
            require(token.code.length != 0, "Address: call to non-contract");
        } else {
            require(abi.decode(r, (bool)), "SafeERC20: ERC20 operation did not succeed");
        }
    }

    function _balance(address token, address who) private view returns (uint256) {
        return token == NATIVE ? who.balance : IERC20Legacy(token).balanceOf(who);
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

enum TokenType {
    Native,
    ERC20,
    ERC721,
    ERC1155
}

/// A token and an amount: Native `abi.encode(amount)`, ERC20
/// `abi.encode(token, amount)`. For outputs the amount is the minimum.
struct Token {
    TokenType tokenType;
    bytes data;
}

/// @title The router users approve, ABI-compatible with the public
/// deployment (`routeSingle`, `routeMulti`, `safeRouteSingle`,
/// `safeRouteMulti`).
/// @notice It pulls the caller's inputs (only from `msg.sender`) into the
/// executor and calls the executor with `data` (an `executeShortcut` call),
/// forwarding the native value. The safe forms measure what `receiver` gains
/// of each output, from after the inputs are taken to the end, and revert
/// with `AmountTooLow` below its minimum. This is
/// the only contract users approve; the executor never is.
contract ShortcutsRouter {
    address public immutable executor;

    error WrongMsgValue(uint256 value, uint256 expected);
    error UnsupportedTokenType(TokenType tokenType);
    error AmountTooLow(address token, uint256 received, uint256 minAmountOut);
    error TransferFailed(address token);

    constructor(address executor_) {
        executor = executor_;
    }

    function routeSingle(Token calldata tokenIn, bytes calldata data) external payable returns (bytes memory) {
        _pull(tokenIn, msg.value);
        return _call(data);
    }

    function routeMulti(Token[] calldata tokensIn, bytes calldata data) external payable returns (bytes memory) {
        _pullAll(tokensIn);
        return _call(data);
    }

    function safeRouteSingle(Token calldata tokenIn, Token calldata tokenOut, address receiver, bytes calldata data)
        external
        payable
        returns (bytes memory ret)
    {
        (address out, uint256 minOut) = _output(tokenOut);
        _pull(tokenIn, msg.value);
        // Measured after the inputs are taken: a receiver that is also the
        // payer gains what the shortcut delivers, not that less its input.
        uint256 before = _balance(out, receiver);
        ret = _call(data);
        _checkGain(out, receiver, before, minOut);
    }

    function safeRouteMulti(Token[] calldata tokensIn, Token[] calldata tokensOut, address receiver, bytes calldata data)
        external
        payable
        returns (bytes memory ret)
    {
        uint256 n = tokensOut.length;
        uint256[] memory before = new uint256[](n);
        _pullAll(tokensIn);
        for (uint256 k; k < n; ++k) {
            (address out,) = _output(tokensOut[k]);
            before[k] = _balance(out, receiver);
        }
        ret = _call(data);
        for (uint256 k; k < n; ++k) {
            (address out, uint256 minOut) = _output(tokensOut[k]);
            _checkGain(out, receiver, before[k], minOut);
        }
    }

    function _pullAll(Token[] calldata tokensIn) private {
        uint256 native;
        for (uint256 k; k < tokensIn.length; ++k) {
            if (tokensIn[k].tokenType == TokenType.Native) {
                native += abi.decode(tokensIn[k].data, (uint256));
            } else {
                _pull(tokensIn[k], 0);
            }
        }
        if (native != msg.value) revert WrongMsgValue(msg.value, native);
    }

    /// Moves one input into the executor; a native input must equal `value`.
    function _pull(Token calldata t, uint256 value) private {
        if (t.tokenType == TokenType.Native) {
            uint256 amount = abi.decode(t.data, (uint256));
            if (value != amount) revert WrongMsgValue(value, amount);
        } else if (t.tokenType == TokenType.ERC20) {
            if (value != 0) revert WrongMsgValue(value, 0);
            (address token, uint256 amount) = abi.decode(t.data, (address, uint256));
            (bool ok, bytes memory r) =
                token.call(abi.encodeCall(IERC20Like.transferFrom, (msg.sender, executor, amount)));
            if (!ok || (r.length != 0 && !abi.decode(r, (bool)))) revert TransferFailed(token);
        } else {
            revert UnsupportedTokenType(t.tokenType);
        }
    }

    function _output(Token calldata t) private pure returns (address token, uint256 minOut) {
        if (t.tokenType == TokenType.Native) {
            return (address(0), abi.decode(t.data, (uint256)));
        }
        if (t.tokenType == TokenType.ERC20) {
            return abi.decode(t.data, (address, uint256));
        }
        revert UnsupportedTokenType(t.tokenType);
    }

    function _balance(address token, address who) private view returns (uint256) {
        return token == address(0) ? who.balance : IERC20Like(token).balanceOf(who);
    }

    function _checkGain(address token, address receiver, uint256 before, uint256 minOut) private view {
        uint256 now_ = _balance(token, receiver);
        uint256 gained = now_ > before ? now_ - before : 0;
        if (gained < minOut) revert AmountTooLow(token, gained, minOut);
    }

    function _call(bytes calldata data) private returns (bytes memory ret) {
        bool ok;
        (ok, ret) = executor.call{value: msg.value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 32), mload(ret))
            }
        }
    }
}

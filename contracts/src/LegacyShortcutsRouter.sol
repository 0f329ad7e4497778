// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Legacy {
    function balanceOf(address who) external view returns (uint256);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

interface IShortcutsExecutor {
    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory);
}

/// @title The legacy router ABI (`router-legacy`): inputs as (token, amount)
/// with the program's commands and state passed directly.
/// @notice `0xeeee…eeee` is the native coin. The legacy ABI has no account
/// or request id: the executor's event carries zeros.
contract LegacyShortcutsRouter {
    struct TokenAmount {
        address token;
        uint256 amount;
    }

    address private constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    address public immutable executor;

    error WrongValue(uint256 value, uint256 amount);
    error AmountTooLow(address token);
    error TransferFailed(address token);

    constructor(address executor_) {
        executor = executor_;
    }

    function routeSingle(address tokenIn, uint256 amountIn, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory)
    {
        _pull(tokenIn, amountIn);
        if (tokenIn != NATIVE && msg.value != 0) revert WrongValue(msg.value, 0);
        return IShortcutsExecutor(executor).executeShortcut{value: msg.value}(0, 0, commands, state);
    }

    function routeMulti(TokenAmount[] calldata tokensIn, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory)
    {
        uint256 native;
        for (uint256 k; k < tokensIn.length; ++k) {
            if (tokensIn[k].token == NATIVE) {
                native += tokensIn[k].amount;
            } else {
                _pull(tokensIn[k].token, tokensIn[k].amount);
            }
        }
        if (native != msg.value) revert WrongValue(msg.value, native);
        return IShortcutsExecutor(executor).executeShortcut{value: msg.value}(0, 0, commands, state);
    }

    function safeRouteSingle(
        address tokenIn,
        address tokenOut,
        uint256 amountIn,
        uint256 minAmountOut,
        address receiver,
        bytes32[] calldata commands,
        bytes[] calldata state
    ) external payable returns (bytes[] memory ret) {
        _pull(tokenIn, amountIn);
        uint256 before = _balance(tokenOut, receiver);
        if (tokenIn != NATIVE && msg.value != 0) revert WrongValue(msg.value, 0);
        ret = IShortcutsExecutor(executor).executeShortcut{value: msg.value}(0, 0, commands, state);
        uint256 after_ = _balance(tokenOut, receiver);
        if (after_ < before || after_ - before < minAmountOut) revert AmountTooLow(tokenOut);
    }

    function _pull(address token, uint256 amount) private {
        if (token == NATIVE) {
            if (msg.value != amount) revert WrongValue(msg.value, amount);
            return;
        }
        (bool ok, bytes memory r) =
            token.call(abi.encodeCall(IERC20Legacy.transferFrom, (msg.sender, executor, amount)));
        if (!ok || (r.length != 0 && !abi.decode(r, (bool)))) revert TransferFailed(token);
    }

    function _balance(address token, address who) private view returns (uint256) {
        return token == NATIVE ? who.balance : IERC20Legacy(token).balanceOf(who);
    }
}

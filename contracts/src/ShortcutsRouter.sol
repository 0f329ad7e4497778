// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {ShortcutsExecutor} from "./ShortcutsExecutor.sol";
import {
    IERC1155Like, IERC20Like, IERC721Like, Token, TokenTransfers, TokenType
} from "./TokenTransfers.sol";

/// @title Reference of Enso's deployed router (`EnsoRouter`,
/// `0xF75584eF6673aD213a685a1B58Cc0330B8eA22Cf`, the April 2025 build).
/// @notice Mirrors its external surface and behaviour, nothing more; written
/// here from the public interface:
///
/// - the constructor creates its executor (`new`, so at the router's first
///   CREATE address) and `shortcuts()` returns it;
/// - inputs are pulled only from `msg.sender` into the executor (ERC-20 by a
///   checked `transferFrom`; a Native input's `abi.encode(amount)` must equal
///   `msg.value`, else `WrongMsgValue`; a second Native input in
///   `routeMulti` reverts `DuplicateNativeAsset`); a non-native call with
///   value reverts `WrongMsgValue(value, 0)`;
/// - `data` is sent to the executor with the whole `msg.value`; a revert is
///   passed on unchanged;
/// - `safeRouteSingle`/`safeRouteMulti` read the receiver's balance of each
///   output **before** pulling the inputs and revert
///   `AmountTooLow(tokenOut, gained, minimum)` when the gain is short.
/// No storage, no owner, no events.
contract ShortcutsRouter is TokenTransfers {
    address public immutable shortcuts;

    error WrongMsgValue(uint256 value, uint256 expectedAmount);
    error AmountTooLow(Token token, uint256 amount, uint256 minAmount);
    error DuplicateNativeAsset();
    error UnsupportedTokenType(TokenType tokenType);

    constructor() {
        shortcuts = address(new ShortcutsExecutor(address(this)));
    }

    function routeSingle(Token calldata tokenIn, bytes calldata data) public payable returns (bytes memory response) {
        bool native = _transfer(tokenIn);
        if (!native && msg.value != 0) revert WrongMsgValue(msg.value, 0);
        response = _execute(data);
    }

    function routeMulti(Token[] calldata tokensIn, bytes calldata data) public payable returns (bytes memory response) {
        bool native;
        for (uint256 k; k < tokensIn.length; ++k) {
            if (_transfer(tokensIn[k])) {
                if (native) revert DuplicateNativeAsset();
                native = true;
            }
        }
        if (!native && msg.value != 0) revert WrongMsgValue(msg.value, 0);
        response = _execute(data);
    }

    function safeRouteSingle(Token calldata tokenIn, Token calldata tokenOut, address receiver, bytes calldata data)
        external
        payable
        returns (bytes memory response)
    {
        uint256 before = _balance(tokenOut, receiver);
        response = routeSingle(tokenIn, data);
        _check(tokenOut, receiver, before);
    }

    function safeRouteMulti(
        Token[] calldata tokensIn,
        Token[] calldata tokensOut,
        address receiver,
        bytes calldata data
    ) external payable returns (bytes memory response) {
        uint256 n = tokensOut.length;
        uint256[] memory before = new uint256[](n);
        for (uint256 k; k < n; ++k) {
            before[k] = _balance(tokensOut[k], receiver);
        }
        response = routeMulti(tokensIn, data);
        for (uint256 k; k < n; ++k) {
            _check(tokensOut[k], receiver, before[k]);
        }
    }

    /// Moves one input into the executor; true for the native coin, whose
    /// `abi.encode(amount)` must equal `msg.value`.
    function _transfer(Token calldata t) private returns (bool native) {
        native = _pull(t, shortcuts);
        if (native) {
            uint256 amount = abi.decode(t.data, (uint256));
            if (msg.value != amount) revert WrongMsgValue(msg.value, amount);
        }
    }

    function _unsupportedTokenType(TokenType tokenType) internal pure override {
        revert UnsupportedTokenType(tokenType);
    }

    function _balance(Token calldata t, address who) private view returns (uint256) {
        if (t.tokenType == TokenType.Native) return who.balance;
        if (t.tokenType == TokenType.ERC20) {
            (address token,) = abi.decode(t.data, (address, uint256));
            return IERC20Like(token).balanceOf(who);
        }
        if (t.tokenType == TokenType.ERC721) {
            (address token,) = abi.decode(t.data, (address, uint256));
            return IERC721Like(token).balanceOf(who);
        }
        if (t.tokenType == TokenType.ERC1155) {
            (address token, uint256 id,) = abi.decode(t.data, (address, uint256, uint256));
            return IERC1155Like(token).balanceOf(who, id);
        }
        revert UnsupportedTokenType(t.tokenType);
    }

    function _check(Token calldata t, address receiver, uint256 before) private view {
        uint256 minimum;
        if (t.tokenType == TokenType.Native) {
            minimum = abi.decode(t.data, (uint256));
        } else if (t.tokenType == TokenType.ERC1155) {
            (,, minimum) = abi.decode(t.data, (address, uint256, uint256));
        } else {
            (, minimum) = abi.decode(t.data, (address, uint256));
        }
        uint256 gained = _balance(t, receiver) - before;
        if (gained < minimum) revert AmountTooLow(t, gained, minimum);
    }

    function _execute(bytes calldata data) private returns (bytes memory response) {
        bool ok;
        (ok, response) = shortcuts.call{value: msg.value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(response, 32), mload(response))
            }
        }
    }
}

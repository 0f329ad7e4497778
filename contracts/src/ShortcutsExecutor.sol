// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {TokenReceiverHooks} from "./TokenReceiverHooks.sol";
import {WeirollVM} from "./WeirollVM.sol";

/// @title Reference of Enso's deployed executor (`EnsoShortcuts`).
/// @notice Mirrors the public source's external surface and behaviour, and
/// nothing more: a weiroll VM that only its router may start. It has no
/// helper functions and no swap callbacks; a program calls protocols,
/// their periphery and Enso's separately deployed helper contracts.
/// Written here from the public interface, not copied.
///
/// - `executeShortcut` reverts `NotPermitted()` unless the caller is
///   `executor` (the router that created it), runs the program, then emits
///   `ShortcutExecuted(accountId, requestId)`.
/// - `executor()`, `receive()`, the ERC-721/1155 receiver hooks and
///   `supportsInterface`.
contract ShortcutsExecutor is WeirollVM, TokenReceiverHooks {
    address public immutable executor;

    event ShortcutExecuted(bytes32 accountId, bytes32 requestId);

    error NotPermitted();

    constructor(address executor_) {
        executor = executor_;
    }

    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        public
        payable
        returns (bytes[] memory response)
    {
        if (msg.sender != executor) revert NotPermitted();
        response = _execute(commands, state);
        emit ShortcutExecuted(accountId, requestId);
    }
}

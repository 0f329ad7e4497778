// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {ShortcutsBase} from "./ShortcutsBase.sol";

/// @title The legacy delegate ABI: `executeShortcut(shortcutId, commands,
/// state)`, run as a smart account's own code like `ShortcutsDelegate`.
/// @notice The legacy ABI has no account id; the event carries zero for it
/// and the request id as the shortcut id.
contract LegacyShortcutsDelegate is ShortcutsBase {
    event ShortcutExecuted(bytes32 accountId, bytes32 requestId);

    error NotAccount(address caller);

    function executeShortcut(bytes32 shortcutId, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory)
    {
        if (msg.sender != address(this)) revert NotAccount(msg.sender);
        bytes[] memory out = _execute(commands, state);
        emit ShortcutExecuted(bytes32(0), shortcutId);
        return out;
    }
}

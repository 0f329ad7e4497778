// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {WeirollVM} from "./WeirollVM.sol";

/// @title Reference of Enso's deployed legacy delegate (`SafeEnsoShortcuts`,
/// `0x38147794FF247e5Fc179eDbAE6C37fff88f68C52`).
/// @notice `executeShortcut(shortcutId, commands, state)` reverts
/// `OnlyDelegateCall()` in the contract's own context; otherwise it runs the
/// program as the account and emits `ShortcutExecuted(shortcutId)`. The
/// deployed contract is the VM and this function only: no `receive()`, no
/// token hooks. Mirrors its external surface and behaviour; written here.
contract LegacyShortcutsDelegate is WeirollVM {
    address private immutable __self = address(this);

    event ShortcutExecuted(bytes32 shortcutId);

    error OnlyDelegateCall();

    function executeShortcut(bytes32 shortcutId, bytes32[] calldata commands, bytes[] calldata state)
        public
        payable
        returns (bytes[] memory response)
    {
        if (address(this) == __self) revert OnlyDelegateCall();
        response = _execute(commands, state);
        emit ShortcutExecuted(shortcutId);
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {TokenReceiverHooks} from "./TokenReceiverHooks.sol";
import {WeirollVM} from "./WeirollVM.sol";

/// @title Reference of Enso's deployed delegate (`DelegateEnsoShortcuts`,
/// `0xa2f4f9c6ec598ca8c633024f8851c79ca5f43e48`, the build with the fixed
/// check).
/// @notice Code an account runs as its own (a Safe's delegatecall, or an
/// EIP-7702 delegation): `executeShortcut` reverts `OnlyDelegateCall()` when
/// run in the contract's own context, and otherwise runs the program as the
/// account, then emits `ShortcutExecuted(accountId, requestId)`. It does not
/// check the caller: the account's own code (or its owner) must. Also
/// `receive()`, the ERC-721/1155 receiver hooks and `supportsInterface`.
/// Mirrors the deployed external surface and behaviour, nothing more;
/// written here, not copied.
contract ShortcutsDelegate is WeirollVM, TokenReceiverHooks {
    address private immutable __self = address(this);

    event ShortcutExecuted(bytes32 accountId, bytes32 requestId);

    error OnlyDelegateCall();

    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        public
        payable
        returns (bytes[] memory response)
    {
        if (address(this) == __self) revert OnlyDelegateCall();
        response = _execute(commands, state);
        emit ShortcutExecuted(accountId, requestId);
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {ShortcutsBase} from "./ShortcutsBase.sol";

/// @title The shortcuts implementation a smart account runs as its own code.
/// @notice For the `delegate` strategy the transaction goes to the caller's
/// own account, whose code is this contract's (an EIP-7702 delegation, or a
/// proxy that delegates every call here): the program runs in the account's
/// context, spends the account's own balances and needs no approval.
/// Only the account itself may start a shortcut (`msg.sender ==
/// address(this)`: the owner sending a transaction to its own delegated
/// address), so nobody else can spend from it.
contract ShortcutsDelegate is ShortcutsBase {
    event ShortcutExecuted(bytes32 accountId, bytes32 requestId);

    error NotAccount(address caller);

    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory)
    {
        if (msg.sender != address(this)) revert NotAccount(msg.sender);
        bytes[] memory out = _execute(commands, state);
        emit ShortcutExecuted(accountId, requestId);
        return out;
    }
}

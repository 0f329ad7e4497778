// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {ShortcutsBase} from "./ShortcutsBase.sol";

/// @title The shortcuts executor behind the router.
/// @notice The router moves the caller's tokens here and calls
/// `executeShortcut`; the program then runs with this contract as the
/// caller of every protocol. It holds nothing between transactions and
/// holds no approvals from users: anyone may call it, but a program can only
/// spend what its own transaction brought in. Never approve this contract.
contract ShortcutsExecutor is ShortcutsBase {
    /// Emitted once per executed shortcut: the API key's account and the
    /// request (referral code in its high 16 bytes).
    event ShortcutExecuted(bytes32 accountId, bytes32 requestId);

    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory)
    {
        bytes[] memory out = _execute(commands, state);
        emit ShortcutExecuted(accountId, requestId);
        return out;
    }
}

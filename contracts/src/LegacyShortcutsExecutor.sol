// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {TokenReceiverHooks} from "./TokenReceiverHooks.sol";
import {WeirollVM} from "./WeirollVM.sol";

/// @title Reference of the legacy router's deployed executor (`EnsoShortcuts`
/// of 2023, `0x7d585B0e27BBb3D981b7757115EC11F47c476994`).
/// @notice `executeShortcut(commands, state)` reverts `NotPermitted()` unless
/// the caller is `executor` (its router), then runs the program; it emits
/// no event. `executor` is a storage variable (slot 0), set at construction
/// with the owner. The deployed contract also has owner-only permission,
/// withdrawal and approval-revocation functions, which programs never call
/// and are left out; nothing here is absent from it. Written here.
contract LegacyShortcutsExecutor is WeirollVM, TokenReceiverHooks {
    address public executor;

    error NotPermitted();

    /// `owner_` holds the deployed contract's owner role, which guards only
    /// the functions left out here.
    constructor(address owner_, address executor_) {
        owner_;
        executor = executor_;
    }

    function executeShortcut(bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory)
    {
        if (msg.sender != executor) revert NotPermitted();
        return _execute(commands, state);
    }
}

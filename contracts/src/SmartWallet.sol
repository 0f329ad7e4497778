// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {WeirollVM} from "./WeirollVM.sol";

/// @title A user's own shortcuts wallet (`ensowallet-v2`), one per owner,
/// deployed by `WalletFactory` as a minimal proxy to this implementation.
/// @notice Positions live in the wallet. A shortcut runs in the wallet's
/// context; it may pull the owner's tokens with `transferFrom` (the owner
/// approves their own wallet, which nobody else can drive). Only the owner,
/// or the factory acting for the owner in the same transaction, starts one.
contract SmartWallet is WeirollVM {
    address public owner;
    address public factory;

    event ShortcutExecuted(bytes32 accountId, bytes32 requestId);

    error AlreadyInitialized();
    error NotOwner(address caller);

    function initialize(address owner_) external {
        if (factory != address(0)) revert AlreadyInitialized();
        owner = owner_;
        factory = msg.sender;
    }

    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory)
    {
        if (msg.sender != owner && msg.sender != factory) revert NotOwner(msg.sender);
        bytes[] memory out = _execute(commands, state);
        emit ShortcutExecuted(accountId, requestId);
        return out;
    }

    receive() external payable {}
}

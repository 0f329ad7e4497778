// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {TokenReceiverHooks} from "./TokenReceiverHooks.sol";
import {runMultiSend} from "./MultiSend.sol";
import {WeirollVM} from "./WeirollVM.sol";
import {sendERC1155s, sendERC721s, sendToken} from "./Withdrawals.sol";

/// @title Reference of Enso's deployed `EnsoWalletV2` (`ensowallet-v2`,
/// implementation `0xA04df79c7e91f393B64e7BfECbfFA13A9f9F2829`, VERSION
/// "1.0.1"), each user's wallet behind a minimal proxy from
/// `WalletFactory`.
/// @notice Mirrors the public source's external surface, storage and
/// behaviour, nothing more; written here from its interface:
///
/// - storage: slot 0 `factory`, slot 1 the owner, slot 2 `executors`; the
///   initialised version sits in OpenZeppelin 5's namespaced
///   `Initializable` slot, and the implementation disables it in its
///   constructor;
/// - `initialize(owner)` once: the caller becomes `factory`, and both it and
///   the owner become executors;
/// - `executeShortcut` and `executeMultiSend` for executors only
///   (`EnsoWalletV2_InvalidSender`), `setExecutor` for the owner or the
///   factory, `execute` and the `withdraw*` functions for the owner only;
/// - the ERC-721/1155 receiver hooks, `supportsInterface` and `receive()`.
contract SmartWallet is WeirollVM, TokenReceiverHooks {
    string public constant VERSION = "1.0.1";

    address public factory;
    address private _owner;
    mapping(address executor => bool isAllowed) public executors;

    /// keccak256(abi.encode(uint256(keccak256("openzeppelin.storage.Initializable")) - 1)) & ~0xff
    bytes32 private constant INITIALIZABLE_SLOT = 0xf0c57e16840df040f15088dc2f81fe391c3923bec73e23a9662efc9c229c6a00;

    event ShortcutExecuted(bytes32 accountId, bytes32 requestId);
    event MultiSendExecuted(bytes32 accountId, bytes32 requestId);
    event ExecutorSet(address indexed executor, bool allowed);
    event Initialized(uint64 version);

    error EnsoWalletV2_ExecutionFailedNoReason();
    error EnsoWalletV2_InvalidSender(address sender);
    error InvalidInitialization();
    error ArrayLengthMismatch(uint256 array1Length, uint256 array2Length);
    error WithdrawFailed();

    constructor() {
        _setInitialized(type(uint64).max);
    }

    function initialize(address owner_) external {
        if (_initialized() != 0) revert InvalidInitialization();
        _setInitialized(1);
        _owner = owner_;
        factory = msg.sender;
        executors[msg.sender] = true;
        executors[owner_] = true;
    }

    function owner() public view returns (address) {
        return _owner;
    }

    function execute(address target, uint256 value, bytes memory data) external payable returns (bool success) {
        _onlyOwner();
        bytes memory response;
        (success, response) = target.call{value: value}(data);
        if (!success) _bubble(response);
    }

    function setExecutor(address executor, bool allowed) external {
        if (msg.sender != _owner && msg.sender != factory) revert EnsoWalletV2_InvalidSender(msg.sender);
        executors[executor] = allowed;
        emit ExecutorSet(executor, allowed);
    }

    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        public
        payable
        returns (bytes[] memory response)
    {
        _onlyExecutor();
        response = _execute(commands, state);
        emit ShortcutExecuted(accountId, requestId);
    }

    /// Runs packed records (`MultiSend.sol`).
    function executeMultiSend(bytes32 accountId, bytes32 requestId, bytes memory transactions) public payable {
        _onlyExecutor();
        emit MultiSendExecuted(accountId, requestId);
        runMultiSend(transactions);
    }

    function withdrawNative(uint256 amount) external {
        _onlyOwner();
        _sendNative(amount);
    }

    function withdrawERC20s(address[] calldata erc20s, uint256[] calldata amounts) external {
        _onlyOwner();
        if (erc20s.length != amounts.length) revert ArrayLengthMismatch(erc20s.length, amounts.length);
        for (uint256 k; k < erc20s.length; ++k) {
            sendToken(erc20s[k], _owner, amounts[k]);
        }
    }

    function withdrawERC721s(address erc721, uint256[] calldata ids) external {
        _onlyOwner();
        sendERC721s(erc721, address(this), _owner, ids);
    }

    function withdrawERC1155s(address erc1155, uint256[] calldata ids, uint256[] calldata amounts) external {
        _onlyOwner();
        sendERC1155s(erc1155, address(this), _owner, ids, amounts);
    }

    function _onlyOwner() private view {
        if (msg.sender != _owner) revert EnsoWalletV2_InvalidSender(msg.sender);
    }

    function _onlyExecutor() private view {
        if (!executors[msg.sender]) revert EnsoWalletV2_InvalidSender(msg.sender);
    }

    function _sendNative(uint256 amount) private {
        (bool ok,) = _owner.call{value: amount}("");
        if (!ok) revert WithdrawFailed();
    }

    function _bubble(bytes memory response) private pure {
        if (response.length > 0) {
            assembly ("memory-safe") {
                revert(add(response, 32), mload(response))
            }
        }
        revert EnsoWalletV2_ExecutionFailedNoReason();
    }

    function _initialized() private view returns (uint64 version) {
        bytes32 slot = INITIALIZABLE_SLOT;
        assembly ("memory-safe") {
            version := and(sload(slot), 0xffffffffffffffff)
        }
    }

    function _setInitialized(uint64 version) private {
        bytes32 slot = INITIALIZABLE_SLOT;
        assembly ("memory-safe") {
            sstore(slot, version)
        }
        emit Initialized(version);
    }
}

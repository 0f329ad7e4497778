// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {runMultiSend} from "./MultiSend.sol";
import {TokenReceiverHooks} from "./TokenReceiverHooks.sol";
import {WeirollVM} from "./WeirollVM.sol";
import {sendERC1155s, sendERC721s, sendToken} from "./Withdrawals.sol";

/// ERC-4337 v0.7's packed user operation, as the EntryPoint passes it.
struct PackedUserOperation {
    address sender;
    uint256 nonce;
    bytes initCode;
    bytes callData;
    bytes32 accountGasLimits;
    uint256 preVerificationGas;
    bytes32 gasFees;
    bytes paymasterAndData;
    bytes signature;
}

/// @title Reference of Enso's deployed `EnsoReceiver` (VERSION "1.0.0",
/// implementation `0xdDE9D7E5665954c77Faa50A1476b65C8e6FDECCD` on Ethereum,
/// Optimism, BNB, Polygon, Arbitrum and Base), each account a minimal proxy
/// from `AccountFactory` (`ERC4337CloneFactory`): an ERC-4337 account that
/// runs shortcuts in itself.
/// @notice Mirrors the public source's external surface, storage and
/// behaviour, nothing more; written here from its interface:
///
/// - storage: slot 0 the owner, slot 1 `signer`, slot 2 `entryPoint`; the
///   initialised version in OpenZeppelin 5's namespaced `Initializable`
///   slot; the reentrancy lock in `ReentrancyGuardTransient`'s transient
///   slot;
/// - `initialize(owner, signer, entryPoint)` once (the deployer bricks the
///   implementation with zeros);
/// - `validateUserOp` (the EntryPoint only, a view): 0 when `signature` is
///   the signer's ECDSA signature of the EIP-191 message of `userOpHash`,
///   or the signer's ERC-1271 approval of `userOpHash` itself; 1 otherwise.
///   It pays no prefund (a deposit or a paymaster must), and refuses the
///   nonce key-and-sequence `type(uint64).max` (`UnorderedNonceNotSupported`);
/// - `safeExecute(token, amount, data)` (the EntryPoint or the owner): calls
///   itself with `data`; if that fails it emits `ShortcutExecutionFailed`
///   and sends `amount` of `token` to the owner instead of reverting;
/// - `executeShortcut` / `executeMultiSend` for itself or the owner, behind
///   one reentrancy lock; `setSigner`, `setEntryPoint` and the `withdraw*`
///   functions for the owner; the ERC-721/1155 receiver hooks and
///   `receive()`.
contract ReceiverAccount is WeirollVM, TokenReceiverHooks {
    string public constant VERSION = "1.0.0";

    address private _owner;
    address public signer;
    address public entryPoint;

    /// keccak256(abi.encode(uint256(keccak256("openzeppelin.storage.Initializable")) - 1)) & ~0xff
    bytes32 private constant INITIALIZABLE_SLOT = 0xf0c57e16840df040f15088dc2f81fe391c3923bec73e23a9662efc9c229c6a00;
    /// keccak256(abi.encode(uint256(keccak256("openzeppelin.storage.ReentrancyGuard")) - 1)) & ~0xff
    bytes32 private constant REENTRANCY_SLOT = 0x9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00;
    address private constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    /// Half the secp256k1 order: OpenZeppelin's `ECDSA` refuses a larger `s`.
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    event ShortcutExecutionSuccessful();
    event ShortcutExecutionFailed(bytes error);
    event NewSigner(address newSigner);
    event NewEntryPoint(address newEntryPoint);
    event ShortcutExecuted(bytes32 accountId, bytes32 requestId);
    event MultiSendExecuted(bytes32 accountId, bytes32 requestId);
    event Initialized(uint64 version);

    error InvalidSender(address sender);
    error UnorderedNonceNotSupported();
    error InvalidInitialization();
    error ReentrancyGuardReentrantCall();
    error ArrayLengthMismatch(uint256 array1Length, uint256 array2Length);
    error WithdrawFailed();

    function initialize(address owner_, address signer_, address entryPoint_) external {
        uint64 version;
        bytes32 slot = INITIALIZABLE_SLOT;
        assembly ("memory-safe") {
            version := and(sload(slot), 0xffffffffffffffff)
        }
        if (version != 0 && !(version == 1 && address(this).code.length == 0)) revert InvalidInitialization();
        assembly ("memory-safe") {
            sstore(slot, 1)
        }
        _owner = owner_;
        signer = signer_;
        entryPoint = entryPoint_;
        emit Initialized(1);
    }

    function owner() public view returns (address) {
        return _owner;
    }

    function safeExecute(address token, uint256 amount, bytes calldata data) external {
        if (msg.sender != entryPoint && msg.sender != _owner) revert InvalidSender(msg.sender);
        (bool success, bytes memory response) = address(this).call(data);
        if (success) {
            emit ShortcutExecutionSuccessful();
        } else {
            emit ShortcutExecutionFailed(response);
            if (token == NATIVE) {
                _sendNative(amount);
            } else {
                sendToken(token, _owner, amount);
            }
        }
    }

    function setSigner(address newSigner) external {
        _onlyOwner();
        signer = newSigner;
        emit NewSigner(newSigner);
    }

    function setEntryPoint(address newEntryPoint) external {
        _onlyOwner();
        entryPoint = newEntryPoint;
        emit NewEntryPoint(newEntryPoint);
    }

    function validateUserOp(PackedUserOperation calldata userOp, bytes32 userOpHash, uint256)
        external
        view
        returns (uint256 validationData)
    {
        if (msg.sender != entryPoint) revert InvalidSender(msg.sender);
        validationData = _signedBySigner(userOpHash, userOp.signature) ? 0 : 1;
        if (userOp.nonce == type(uint64).max) revert UnorderedNonceNotSupported();
    }

    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        public
        payable
        returns (bytes[] memory response)
    {
        _enter();
        _onlySelfOrOwner();
        response = _execute(commands, state);
        emit ShortcutExecuted(accountId, requestId);
        _leave();
    }

    function executeMultiSend(bytes32 accountId, bytes32 requestId, bytes memory transactions) public payable {
        _enter();
        _onlySelfOrOwner();
        emit MultiSendExecuted(accountId, requestId);
        runMultiSend(transactions);
        _leave();
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

    /// The signer's ECDSA signature of the EIP-191 message of `hash` (65
    /// bytes, low `s`), else its ERC-1271 approval of `hash`.
    function _signedBySigner(bytes32 hash, bytes calldata signature) private view returns (bool) {
        if (signature.length == 65) {
            bytes32 r = bytes32(signature[0:32]);
            bytes32 s = bytes32(signature[32:64]);
            uint8 v = uint8(signature[64]);
            if (uint256(s) <= HALF_ORDER) {
                bytes32 message = keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", hash));
                address recovered = ecrecover(message, v, r, s);
                if (recovered != address(0) && recovered == signer) return true;
            }
        }
        (bool ok, bytes memory returned) =
            signer.staticcall(abi.encodeWithSelector(0x1626ba7e, hash, signature));
        return ok && returned.length >= 32 && bytes32(returned) == bytes32(bytes4(0x1626ba7e));
    }

    function _enter() private {
        bytes32 slot = REENTRANCY_SLOT;
        uint256 locked;
        assembly ("memory-safe") {
            locked := tload(slot)
        }
        if (locked != 0) revert ReentrancyGuardReentrantCall();
        assembly ("memory-safe") {
            tstore(slot, 1)
        }
    }

    function _leave() private {
        bytes32 slot = REENTRANCY_SLOT;
        assembly ("memory-safe") {
            tstore(slot, 0)
        }
    }

    function _onlyOwner() private view {
        if (msg.sender != _owner) revert InvalidSender(msg.sender);
    }

    function _onlySelfOrOwner() private view {
        if (msg.sender != address(this) && msg.sender != _owner) revert InvalidSender(msg.sender);
    }

    function _sendNative(uint256 amount) private {
        (bool ok,) = _owner.call{value: amount}("");
        if (!ok) revert WithdrawFailed();
    }
}

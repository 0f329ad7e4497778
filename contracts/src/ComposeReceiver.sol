// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Token, TokenType} from "./TokenTransfers.sol";

/// The router entry points the receiver calls.
interface IShortcutsRouterEntry {
    function routeSingle(Token calldata tokenIn, bytes calldata data) external payable returns (bytes memory);
    function routeMulti(Token[] calldata tokensIn, bytes calldata data) external payable returns (bytes memory);
}

/// What the receiver asks of the OFT (a Stargate pool) that composed.
interface IComposingOft {
    function token() external view returns (address);
}

/// @title Reference of Enso's deployed `LayerZeroReceiver` (CREATE2 salt
/// "LayerZeroReceiver", `0xbf7773ad9d1abcc0a01981e3bff7e6408a775939` on
/// Ethereum, Optimism, BNB, Polygon, Arbitrum and Base, with the LayerZero
/// V2 endpoint `0x1a44…728c` and the router `0xF755…22Cf`): the composer a
/// Stargate V2 transfer names to run a shortcut with what arrived.
/// @notice Mirrors the public source's external surface and behaviour,
/// nothing more; written here from its interface:
///
/// - `lzCompose(from, guid, message, executor, extraData)`, from the
///   endpoint only (`NotEndpoint`), for an OFT a registrar listed
///   (`InvalidOFT`), once per `getMessageKey(from, guid, message)`
///   (`MessageExecuted`). `message` is the OFT compose message: nonce
///   (8 bytes), source eid (4), `amountLD` (32), compose sender (32), then
///   `abi.encode(receiver, nativeDrop, estimatedGas, shortcutData)`. It
///   needs `msg.value >= nativeDrop` (`InvalidMsgValue`) and
///   `gasleft() >= estimatedGas` (`InsufficientGas`), then runs
///   `this.execute(token, amountLD, shortcutData, msg.value)`: success
///   emits `ShortcutExecutionSuccessful(guid)`; a failure emits
///   `ShortcutExecutionFailed(guid, error)` and sends the amount (and any
///   value) to `receiver`. The key is not marked on success or failure
///   (the deployed contract marks it only in `sweep`).
/// - `execute` (itself only, `NotSelf`): an ERC-20 is approved to the
///   router and passed with `routeSingle`, or with `routeMulti` beside the
///   value when there is value; the native coin (`address(0)`) passes
///   amount + value as one native input.
/// - registrars (the owner at construction, then whom the owner sets)
///   list and unlist OFTs; the owner may `sweep` a message's funds to
///   itself, which marks the message executed.
contract ComposeReceiver is Ownable {
    using SafeERC20 for IERC20;

    address public immutable endpoint;
    IShortcutsRouterEntry public immutable router;

    mapping(address => bool) public validOFT;
    mapping(address => bool) public validRegistrar;
    mapping(bytes32 => bool) public messageExecuted;

    event ShortcutExecutionSuccessful(bytes32 guid);
    event ShortcutExecutionFailed(bytes32 guid, bytes error);
    event OFTAdded(address oft);
    event OFTRemoved(address oft);
    event RegistrarAdded(address account);
    event RegistrarRemoved(address account);
    event FundsCollected(address token, uint256 amount);

    error InsufficientGas(bytes32 guid, uint256 estimatedGas, uint256 availableGas);
    error NotEndpoint(address sender);
    error NotRegistrar(address sender);
    error NotSelf();
    error TransferFailed(address receiver);
    error InvalidOFT(address oft);
    error EndpointNotSet();
    error RouterNotSet();
    error InvalidMsgValue(uint256 actual, uint256 expected);
    error MessageExecuted(bytes32 key);

    /// Where the compose message's fields start.
    uint256 private constant AMOUNT_AT = 12;
    uint256 private constant COMPOSED_AT = 76;

    constructor(address endpoint_, address router_, address owner_) Ownable(owner_) {
        if (endpoint_ == address(0)) revert EndpointNotSet();
        if (router_ == address(0)) revert RouterNotSet();
        endpoint = endpoint_;
        router = IShortcutsRouterEntry(router_);
        validRegistrar[owner_] = true;
        emit RegistrarAdded(owner_);
    }

    function lzCompose(address from, bytes32 guid, bytes calldata message, address, bytes calldata)
        external
        payable
    {
        if (msg.sender != endpoint) revert NotEndpoint(msg.sender);
        if (!validOFT[from]) revert InvalidOFT(from);
        bytes32 key = getMessageKey(from, guid, message);
        if (messageExecuted[key]) revert MessageExecuted(key);
        address token = IComposingOft(from).token();
        uint256 amount = uint256(bytes32(message[AMOUNT_AT:COMPOSED_AT - 32]));
        (address receiver, uint256 nativeDrop, uint256 estimatedGas, bytes memory shortcut) =
            abi.decode(message[COMPOSED_AT:], (address, uint256, uint256, bytes));
        if (msg.value < nativeDrop) revert InvalidMsgValue(msg.value, nativeDrop);
        uint256 left = gasleft();
        if (left < estimatedGas) revert InsufficientGas(guid, estimatedGas, left);
        try this.execute(token, amount, shortcut, msg.value) {
            emit ShortcutExecutionSuccessful(guid);
        } catch (bytes memory reason) {
            emit ShortcutExecutionFailed(guid, reason);
            _send(token, receiver, amount);
            if (msg.value != 0) _send(address(0), receiver, msg.value);
        }
    }

    function execute(address token, uint256 amount, bytes calldata data, uint256 value) external {
        if (msg.sender != address(this)) revert NotSelf();
        if (token == address(0)) {
            uint256 total = value + amount;
            router.routeSingle{value: total}(Token(TokenType.Native, abi.encode(total)), data);
            return;
        }
        IERC20(token).forceApprove(address(router), amount);
        Token memory input = Token(TokenType.ERC20, abi.encode(token, amount));
        if (value == 0) {
            router.routeSingle(input, data);
            return;
        }
        Token[] memory inputs = new Token[](2);
        inputs[0] = input;
        inputs[1] = Token(TokenType.Native, abi.encode(value));
        router.routeMulti{value: value}(inputs, data);
    }

    function setOFTs(address[] calldata ofts) external {
        if (!validRegistrar[msg.sender]) revert NotRegistrar(msg.sender);
        for (uint256 k; k < ofts.length; ++k) {
            validOFT[ofts[k]] = true;
            emit OFTAdded(ofts[k]);
        }
    }

    function removeOFTs(address[] calldata ofts) external {
        if (!validRegistrar[msg.sender]) revert NotRegistrar(msg.sender);
        for (uint256 k; k < ofts.length; ++k) {
            delete validOFT[ofts[k]];
            emit OFTRemoved(ofts[k]);
        }
    }

    function setRegistrar(address account) external onlyOwner {
        validRegistrar[account] = true;
        emit RegistrarAdded(account);
    }

    function removeRegistrar(address account) external onlyOwner {
        delete validRegistrar[account];
        emit RegistrarRemoved(account);
    }

    function sweep(bytes32 messageKey, address token, uint256 amount) external onlyOwner {
        messageExecuted[messageKey] = true;
        _send(token, owner(), amount);
        emit FundsCollected(token, amount);
    }

    function getMessageKey(address from, bytes32 guid, bytes calldata message) public pure returns (bytes32) {
        return keccak256(abi.encode(from, guid, message));
    }

    function _send(address token, address to, uint256 amount) private {
        if (token == address(0)) {
            (bool ok,) = to.call{value: amount}("");
            if (!ok) revert TransferFailed(to);
        } else {
            IERC20(token).safeTransfer(to, amount);
        }
    }

    receive() external payable {}
}

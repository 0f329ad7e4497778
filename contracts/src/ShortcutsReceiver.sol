// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Move {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
}

interface IShortcutsExecutor {
    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory);
}

interface IOFTToken {
    function token() external view returns (address);
}

/// @title The destination side of a cross-chain route.
/// @notice Bridged funds arrive here, then `endpoint` (the only caller that
/// may deliver) hands them with the destination program to the chain's
/// shortcuts executor: the funds move into the executor and
/// `executeShortcut` runs the program decoded from the payload,
///
///     payload = abi.encode(bytes32 accountId, bytes32 requestId,
///                          bytes32[] commands, bytes[] state, address refundTo)
///
/// If the program reverts, the move into the executor is undone with it and
/// the whole amount goes to `refundTo` instead (`DeliveryRefunded`, with the
/// revert data), so a failed program never strands the funds. A delivery
/// reverts, leaving the funds here for the bridge to retry, only when the
/// funds are not here, the payload does not even name a `refundTo`, or the
/// refund itself fails.
///
/// Three ways in, all endpoint-only, all ending in the same delivery:
///
/// - `deliver(token, amount, payload)`: the funds (ERC-20 `token`, or
///   native value for `0xEeee…EEeE`) are already here. In Switchyard's EVM
///   world `endpoint` is the engine's relayer; in production, a relayer that
///   completes the bridge's message (CCTP `receiveMessage`, a Relay fill)
///   and calls this in the same transaction.
/// - `lzCompose(from, guid, message, executor, extraData)` (LayerZero V2
///   `IOAppComposer`; `endpoint` is the LayerZero endpoint): `message` is
///   an OFT compose message, `nonce (8 bytes) ‖ srcEid (4) ‖ amountLD (32)
///   ‖ composeFrom (32) ‖ payload`, the OFT (a Stargate pool) is `from` and
///   the token its `token()` (the native coin for `address(0)`).
/// - `ccipReceive(Any2EVMMessage)` (CCIP `IAny2EVMMessageReceiver`;
///   `endpoint` is the CCIP router): one token amount, `data` the payload.
///
/// A production deployment must also check `from` (LayerZero) and the
/// source chain and sender (CCIP) against the pools and senders it trusts:
/// the endpoint alone vouches that a message was sent, not who sent it.
contract ShortcutsReceiver {
    /// The native coin, as the API names it.
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    /// Bytes before the payload in an OFT compose message.
    uint256 internal constant COMPOSE_HEADER = 76;

    struct EVMTokenAmount {
        address token;
        uint256 amount;
    }

    struct Any2EVMMessage {
        bytes32 messageId;
        uint64 sourceChainSelector;
        bytes sender;
        bytes data;
        EVMTokenAmount[] destTokenAmounts;
    }

    /// The shortcuts executor programs run on.
    address public immutable executor;
    /// The only caller allowed to deliver.
    address public immutable endpoint;

    /// The program ran and kept what it was given.
    event DeliveryExecuted(bytes32 requestId, address token, uint256 amount);
    /// The program reverted with `reason`; `amount` went to `refundTo`.
    event DeliveryRefunded(bytes32 requestId, address refundTo, address token, uint256 amount, bytes reason);

    /// A caller other than the endpoint.
    error NotEndpoint(address caller);
    /// `run` called from outside.
    error OnlySelf();
    /// Fewer funds here than the delivery hands over.
    error InsufficientBalance(address token, uint256 amount, uint256 balance);
    /// A payload too short to name `refundTo`, or naming the zero address.
    error BadPayload();
    /// A compose message shorter than its 76-byte header.
    error BadComposeMessage(uint256 length);
    /// A CCIP message without exactly one token amount.
    error UnsupportedTokenCount(uint256 count);
    /// An ERC-20 transfer failed or returned false.
    error TransferFailed(address token, address to);
    /// A native transfer failed.
    error NativeTransferFailed(address to, uint256 amount);

    constructor(address executor_, address endpoint_) {
        executor = executor_;
        endpoint = endpoint_;
    }

    /// Native value arrives by plain transfer (a bridge paying out).
    receive() external payable {}

    modifier onlyEndpoint() {
        if (msg.sender != endpoint) revert NotEndpoint(msg.sender);
        _;
    }

    /// Runs `payload`'s program on `amount` of `token` (`0xEeee…EEeE`: the
    /// native coin), which is already here.
    function deliver(address token, uint256 amount, bytes calldata payload) external onlyEndpoint {
        _deliver(token, amount, payload);
    }

    /// LayerZero V2 compose: delivers the amount of an OFT compose message
    /// with its payload. Not payable: a compose carrying value reverts.
    function lzCompose(
        address from,
        bytes32, /* guid */
        bytes calldata message,
        address, /* lzExecutor */
        bytes calldata /* extraData */
    ) external onlyEndpoint {
        if (message.length < COMPOSE_HEADER) revert BadComposeMessage(message.length);
        uint256 amountLD = uint256(bytes32(message[12:44]));
        address token = IOFTToken(from).token();
        _deliver(token == address(0) ? NATIVE : token, amountLD, message[COMPOSE_HEADER:]);
    }

    /// CCIP: delivers the message's one token amount with `data` as payload.
    function ccipReceive(Any2EVMMessage calldata message) external onlyEndpoint {
        if (message.destTokenAmounts.length != 1) revert UnsupportedTokenCount(message.destTokenAmounts.length);
        _deliver(message.destTokenAmounts[0].token, message.destTokenAmounts[0].amount, message.data);
    }

    /// ERC-165, which CCIP's off-ramp asks before calling `ccipReceive`:
    /// IERC165 and IAny2EVMMessageReceiver (`ccipReceive`'s selector).
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x01ffc9a7 || interfaceId == this.ccipReceive.selector;
    }

    /// The delivery's inner step, callable only by this contract: moves the
    /// funds into the executor and runs the program. It runs in its own call
    /// frame so that a revert undoes the move as well.
    function run(address token, uint256 amount, bytes calldata payload) external {
        if (msg.sender != address(this)) revert OnlySelf();
        (bytes32 accountId, bytes32 requestId, bytes32[] memory commands, bytes[] memory state,) =
            abi.decode(payload, (bytes32, bytes32, bytes32[], bytes[], address));
        uint256 value;
        if (token == NATIVE) {
            value = amount;
        } else {
            _transfer(token, executor, amount);
        }
        IShortcutsExecutor(executor).executeShortcut{value: value}(accountId, requestId, commands, state);
    }

    function _deliver(address token, uint256 amount, bytes calldata payload) private {
        uint256 balance = token == NATIVE ? address(this).balance : IERC20Move(token).balanceOf(address(this));
        if (balance < amount) revert InsufficientBalance(token, amount, balance);
        // `refundTo` is the fifth head word; read it before anything that a
        // malformed payload could make revert.
        if (payload.length < 160) revert BadPayload();
        uint256 refundWord = uint256(bytes32(payload[128:160]));
        if (refundWord == 0 || refundWord >> 160 != 0) revert BadPayload();
        address refundTo = address(uint160(refundWord));
        bytes32 requestId = bytes32(payload[32:64]);

        try this.run(token, amount, payload) {
            emit DeliveryExecuted(requestId, token, amount);
        } catch (bytes memory reason) {
            if (token == NATIVE) {
                (bool ok,) = refundTo.call{value: amount}("");
                if (!ok) revert NativeTransferFailed(refundTo, amount);
            } else {
                _transfer(token, refundTo, amount);
            }
            emit DeliveryRefunded(requestId, refundTo, token, amount, reason);
        }
    }

    function _transfer(address token, address to, uint256 amount) private {
        (bool ok, bytes memory r) = token.call(abi.encodeCall(IERC20Move.transfer, (to, amount)));
        if (!ok || (r.length != 0 && !abi.decode(r, (bool)))) revert TransferFailed(token, to);
    }
}

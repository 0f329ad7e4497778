// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Pull {
    function allowance(address owner, address spender) external view returns (uint256);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference Relay depository (source side).
/// @notice The EVM Relay Depository's deposit interface with the mainnet
/// selectors: `depositNative(depositor, id)`, `depositErc20(depositor,
/// token, amount, id)` and `depositErc20(depositor, token, id)` (the whole
/// allowance), and its `RelayNativeDeposit` / `RelayErc20Deposit` events
/// (`from` is `depositor`, or the caller when `depositor` is zero). What is
/// deposited stays here; no fee is charged, the engine models the fee on
/// delivery.
///
/// Relay carries nothing about the destination on chain: the order `id`
/// names a quote whose destination chain and recipient live off chain. So,
/// specific to Switchyard, a deposit must be preceded **in the same
/// transaction, by the same caller** by `announce(id, destinationChainId,
/// recipient)`. The announcement is kept in transient storage (one pending
/// at a time: a new one replaces it), the deposit of that caller and `id`
/// consumes it, and the deposit then emits
/// Switchyard's `BridgeRequest` with that chain and recipient (the token,
/// `0xEeee…EEeE` for the native coin, the amount and an empty payload). A
/// deposit that was not announced reverts `Unannounced`: a route whose
/// destination cannot be known must not pass the simulation. A program run
/// by the shortcuts executor announces, approves and deposits in one
/// transaction; the public deposit functions keep their mainnet ABI.
///
/// Simplified: no allocator, withdrawals or call requests.
contract ReferenceRelayDepository {
    /// The native coin, as Switchyard names it in `BridgeRequest`.
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;

    /// The pending announcement (transient: it lasts one transaction):
    /// `keccak256(caller, id)`, the destination chain and the recipient.
    bytes32 private transient pendingKey;
    uint256 private transient pendingChainId;
    address private transient pendingRecipient;

    /// Relay's native deposit event.
    event RelayNativeDeposit(address from, uint256 amount, bytes32 id);
    /// Relay's ERC-20 deposit event.
    event RelayErc20Deposit(address from, address token, uint256 amount, bytes32 id);

    /// Switchyard's uniform bridge event, identical in every reference bridge.
    event BridgeRequest(
        uint256 indexed destinationChainId, address indexed token, uint256 amount, address recipient, bytes payload
    );

    /// A deposit the same caller did not announce earlier in the transaction.
    error Unannounced(address caller, bytes32 id);
    /// An announcement for chain 0 or for this chain.
    error InvalidDestination(uint256 destinationChainId);
    /// An announcement for the zero address.
    error InvalidRecipient();
    /// The token's `transferFrom` failed or returned false.
    error TransferFailed(address token);

    /// Switchyard-specific: records, for the rest of this transaction, that
    /// the caller's next deposit with order `id` goes to `recipient` on
    /// `destinationChainId`. One announcement is pending at a time: a second
    /// replaces the first.
    function announce(bytes32 id, uint256 destinationChainId, address recipient) external {
        if (destinationChainId == 0 || destinationChainId == block.chainid) {
            revert InvalidDestination(destinationChainId);
        }
        if (recipient == address(0)) revert InvalidRecipient();
        pendingKey = _key(msg.sender, id);
        pendingChainId = destinationChainId;
        pendingRecipient = recipient;
    }

    /// Deposits `msg.value` of the native coin for order `id`.
    function depositNative(address depositor, bytes32 id) external payable {
        (uint256 chainId, address recipient) = _consume(id);
        emit RelayNativeDeposit(_from(depositor), msg.value, id);
        emit BridgeRequest(chainId, NATIVE, msg.value, recipient, "");
    }

    /// Deposits `amount` of `token` from the caller for order `id`.
    function depositErc20(address depositor, address token, uint256 amount, bytes32 id) external {
        _depositErc20(depositor, token, amount, id);
    }

    /// Deposits the caller's whole allowance of `token` to this contract for
    /// order `id`.
    function depositErc20(address depositor, address token, bytes32 id) external {
        _depositErc20(depositor, token, IERC20Pull(token).allowance(msg.sender, address(this)), id);
    }

    function _depositErc20(address depositor, address token, uint256 amount, bytes32 id) private {
        (uint256 chainId, address recipient) = _consume(id);
        (bool ok, bytes memory r) =
            token.call(abi.encodeCall(IERC20Pull.transferFrom, (msg.sender, address(this), amount)));
        if (!ok || (r.length != 0 && !abi.decode(r, (bool)))) revert TransferFailed(token);
        emit RelayErc20Deposit(_from(depositor), token, amount, id);
        emit BridgeRequest(chainId, token, amount, recipient, "");
    }

    /// The caller's announcement of `id`, cleared; a revert without one.
    function _consume(bytes32 id) private returns (uint256 chainId, address recipient) {
        if (pendingKey != _key(msg.sender, id)) revert Unannounced(msg.sender, id);
        chainId = pendingChainId;
        recipient = pendingRecipient;
        pendingKey = bytes32(0);
        pendingChainId = 0;
        pendingRecipient = address(0);
    }

    function _key(address caller, bytes32 id) private pure returns (bytes32) {
        return keccak256(abi.encode(caller, id));
    }

    function _from(address depositor) private view returns (address) {
        return depositor == address(0) ? msg.sender : depositor;
    }
}

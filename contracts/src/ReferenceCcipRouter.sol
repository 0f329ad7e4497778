// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Pull {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference Chainlink CCIP Router (source side).
/// @notice The CCIP Router's public sending interface with the mainnet
/// selectors: `ccipSend(destinationChainSelector, Client.EVM2AnyMessage)`,
/// `getFee` and `isChainSupported`. The message's one token amount is taken
/// from the caller with `transferFrom` and kept here (locked, standing for
/// the token pool's lock or burn). The fee is 0 (`getFee`), and none is
/// taken: a call with `msg.value` reverts `InvalidMsgValue`, and a fee token
/// is accepted but never charged; the engine models the bridge fee on
/// delivery.
///
/// Every send emits Switchyard's `BridgeRequest`: the destination's EVM
/// chain id (from the chain selector), the token, the amount, the receiver
/// decoded from `abi.encode(address)` and `message.data`. Mainnet's router
/// emits nothing on a send (its on-ramp emits `CCIPMessageSent` with the
/// full ramp message), so nothing else is emitted here.
///
/// Simplified: exactly one token amount, any ERC-20 (mainnet needs a token
/// pool registered for the lane); no on-ramps, rate limits, fee tokens or
/// `extraArgs` decoding; the message id is this router's own hash of the
/// message and a counter. The destination selector must be in the table
/// below and not this chain's, and the receiver a 32-byte ABI-encoded EVM
/// address.
contract ReferenceCcipRouter {
    struct EVMTokenAmount {
        address token;
        uint256 amount;
    }

    struct EVM2AnyMessage {
        bytes receiver;
        bytes data;
        EVMTokenAmount[] tokenAmounts;
        address feeToken;
        bytes extraArgs;
    }

    /// Messages sent so far.
    uint64 internal sequenceNumber;

    /// Switchyard's uniform bridge event, identical in every reference bridge.
    event BridgeRequest(
        uint256 indexed destinationChainId, address indexed token, uint256 amount, address recipient, bytes payload
    );

    /// A chain selector outside the table, or this chain's own.
    error UnsupportedDestinationChain(uint64 destChainSelector);
    /// Native value sent with a message (the fee is 0).
    error InvalidMsgValue();
    /// The receiver is not `abi.encode(address)` of a non-zero address.
    error InvalidEVMAddress(bytes encodedAddress);
    /// Not exactly one token amount.
    error UnsupportedTokenCount(uint256 count);
    /// A token amount of zero.
    error CannotSendZeroTokens();
    /// The token's `transferFrom` failed or returned false.
    error TransferFailed(address token);

    /// Whether messages can go to `chainSelector` from here.
    function isChainSupported(uint64 chainSelector) public view returns (bool) {
        uint256 chainId = selectorChainId(chainSelector);
        return chainId != 0 && chainId != block.chainid;
    }

    /// The fee of a message: 0 for a supported destination.
    function getFee(uint64 destinationChainSelector, EVM2AnyMessage calldata) external view returns (uint256 fee) {
        if (!isChainSupported(destinationChainSelector)) {
            revert UnsupportedDestinationChain(destinationChainSelector);
        }
        return 0;
    }

    /// Sends `message` (its one token amount and its data) to its receiver
    /// on the chain of `destinationChainSelector`.
    function ccipSend(uint64 destinationChainSelector, EVM2AnyMessage calldata message)
        external
        payable
        returns (bytes32 messageId)
    {
        uint256 chainId = selectorChainId(destinationChainSelector);
        if (chainId == 0 || chainId == block.chainid) revert UnsupportedDestinationChain(destinationChainSelector);
        if (msg.value != 0) revert InvalidMsgValue();
        address receiver = _evmAddress(message.receiver);
        if (message.tokenAmounts.length != 1) revert UnsupportedTokenCount(message.tokenAmounts.length);
        address token = message.tokenAmounts[0].token;
        uint256 amount = message.tokenAmounts[0].amount;
        if (amount == 0) revert CannotSendZeroTokens();

        (bool ok, bytes memory r) =
            token.call(abi.encodeCall(IERC20Pull.transferFrom, (msg.sender, address(this), amount)));
        if (!ok || (r.length != 0 && !abi.decode(r, (bool)))) revert TransferFailed(token);

        uint64 sequence = ++sequenceNumber;
        messageId = keccak256(
            abi.encode(block.chainid, destinationChainSelector, sequence, msg.sender, keccak256(abi.encode(message)))
        );
        emit BridgeRequest(chainId, token, amount, receiver, message.data);
    }

    /// The EVM chain id of a CCIP chain selector, 0 for one not in the table.
    ///
    /// Chainlink's chain selectors (github.com/smartcontractkit/chain-selectors,
    /// `selectors.yml`; docs.chain.link/ccip/directory/mainnet), for the
    /// chains of Switchyard's catalog: 5009297550715157269 Ethereum 1,
    /// 3734403246176062136 OP Mainnet 10, 11344663589394136015 BNB Chain 56,
    /// 465200170687744372 Gnosis 100, 1923510103922296319 Unichain 130,
    /// 4051577828743386545 Polygon 137, 1673871237479749969 Sonic 146,
    /// 15971525489660198786 Base 8453, 4949039107694359620 Arbitrum One 42161,
    /// 6433500567565415381 Avalanche 43114, 4627098889531055414 Linea 59144,
    /// 1294465214383781161 Berachain 80094.
    function selectorChainId(uint64 chainSelector) public pure returns (uint256) {
        if (chainSelector == 5009297550715157269) return 1;
        if (chainSelector == 3734403246176062136) return 10;
        if (chainSelector == 11344663589394136015) return 56;
        if (chainSelector == 465200170687744372) return 100;
        if (chainSelector == 1923510103922296319) return 130;
        if (chainSelector == 4051577828743386545) return 137;
        if (chainSelector == 1673871237479749969) return 146;
        if (chainSelector == 15971525489660198786) return 8453;
        if (chainSelector == 4949039107694359620) return 42161;
        if (chainSelector == 6433500567565415381) return 43114;
        if (chainSelector == 4627098889531055414) return 59144;
        if (chainSelector == 1294465214383781161) return 80094;
        return 0;
    }

    /// The address in `abi.encode(address)`, or a revert.
    function _evmAddress(bytes calldata encoded) private pure returns (address) {
        if (encoded.length != 32) revert InvalidEVMAddress(encoded);
        uint256 word = uint256(bytes32(encoded));
        if (word == 0 || word >> 160 != 0) revert InvalidEVMAddress(encoded);
        return address(uint160(word));
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

// References of Circle's CCTP V2 contracts (TokenMessengerV2 at
// 0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d, MessageTransmitterV2 at
// 0x81D40F21F12A8F0E3252Bccb954D722d4c464B64, TokenMinterV2 at
// 0xfd78EE919681417d192449715b2594ab58f5D002, the same on every EVM chain),
// written for Switchyard from their published interfaces, message formats
// and revert strings, not from their code. No registry publishes their
// bytecode. The world configures them in their constructors where the
// deployed proxies are initialized by their owners; a function the deployed
// contracts lack is not here.
//
// Message (MessageV2), packed: version uint32 | sourceDomain uint32 |
// destinationDomain uint32 | nonce bytes32 | sender bytes32 | recipient
// bytes32 | destinationCaller bytes32 | minFinalityThreshold uint32 |
// finalityThresholdExecuted uint32 | messageBody (from byte 148).
//
// Burn message (BurnMessageV2), packed: version uint32 | burnToken bytes32 |
// mintRecipient bytes32 | amount uint256 | messageSender bytes32 | maxFee
// uint256 | feeExecuted uint256 | expirationBlock uint256 | hookData (from
// byte 228).
//
// The source chain emits the message with the nonce, the finality executed,
// the fee executed and the expiration block empty; Circle's attestation
// service fills them and signs keccak256 of the message it returns.

interface ICctpMintBurnToken {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function mint(address to, uint256 amount) external returns (bool);
    function burn(uint256 amount) external;
}

interface ICctpTokenMinterV2 {
    function burn(address burnToken, uint256 burnAmount) external;
    function mint(uint32 sourceDomain, bytes32 burnToken, address to, uint256 amount) external returns (address);
    function mint(
        uint32 sourceDomain,
        bytes32 burnToken,
        address recipientOne,
        address recipientTwo,
        uint256 amountOne,
        uint256 amountTwo
    ) external returns (address);
}

interface ICctpMessageHandlerV2 {
    function handleReceiveFinalizedMessage(
        uint32 remoteDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool);

    function handleReceiveUnfinalizedMessage(
        uint32 remoteDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool);
}

interface ICctpRelayerV2 {
    function sendMessage(
        uint32 destinationDomain,
        bytes32 recipient,
        bytes32 destinationCaller,
        uint32 minFinalityThreshold,
        bytes calldata messageBody
    ) external;
}

/// @title Reference MessageTransmitterV2.
/// @notice `sendMessage` formats and emits `MessageSent`; `receiveMessage`
/// checks the attestation (exactly `signatureThreshold` 65-byte ECDSA
/// signatures of keccak256(message), signers enabled attesters in
/// increasing address order), the destination domain, the destination
/// caller (when not zero), the version and the nonce (each once), then
/// hands the body to the recipient's finalized or unfinalized handler
/// (finalized from threshold 2000) and emits `MessageReceived`. The empty
/// nonce is used from the start.
contract ReferenceMessageTransmitterV2 {
    uint32 public immutable localDomain;
    uint32 public immutable version;
    uint256 public maxMessageBodySize;
    uint256 public signatureThreshold;
    mapping(bytes32 => uint256) public usedNonces;
    address[] private enabledAttesters;
    mapping(address => bool) private attesterEnabled;

    uint32 private constant FINALITY_THRESHOLD_FINALIZED = 2000;
    uint256 private constant SIGNATURE_LENGTH = 65;
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    event MessageSent(bytes message);
    event MessageReceived(
        address indexed caller,
        uint32 sourceDomain,
        bytes32 indexed nonce,
        bytes32 sender,
        uint32 indexed finalityThresholdExecuted,
        bytes messageBody
    );

    constructor(
        uint32 localDomain_,
        uint32 version_,
        address[] memory attesters_,
        uint256 signatureThreshold_,
        uint256 maxMessageBodySize_
    ) {
        require(signatureThreshold_ > 0, "Signature threshold is zero");
        require(signatureThreshold_ <= attesters_.length, "Signature threshold exceeds attesters");
        require(maxMessageBodySize_ > 0, "MaxMessageBodySize is zero");
        localDomain = localDomain_;
        version = version_;
        signatureThreshold = signatureThreshold_;
        maxMessageBodySize = maxMessageBodySize_;
        // The empty nonce, the one a message has before attestation, is
        // never receivable.
        usedNonces[bytes32(0)] = 1;
        for (uint256 i; i < attesters_.length; i++) {
            require(!attesterEnabled[attesters_[i]], "Attester already enabled");
            attesterEnabled[attesters_[i]] = true;
            enabledAttesters.push(attesters_[i]);
        }
    }

    function isEnabledAttester(address attester) public view returns (bool) {
        return attesterEnabled[attester];
    }

    function getNumEnabledAttesters() external view returns (uint256) {
        return enabledAttesters.length;
    }

    function getEnabledAttester(uint256 index) external view returns (address) {
        return enabledAttesters[index];
    }

    function sendMessage(
        uint32 destinationDomain,
        bytes32 recipient,
        bytes32 destinationCaller,
        uint32 minFinalityThreshold,
        bytes calldata messageBody
    ) external {
        require(destinationDomain != localDomain, "Domain is local domain");
        require(messageBody.length <= maxMessageBodySize, "Message body exceeds max size");
        require(recipient != bytes32(0), "Recipient must be nonzero");
        emit MessageSent(
            abi.encodePacked(
                version,
                localDomain,
                destinationDomain,
                bytes32(0),
                bytes32(uint256(uint160(msg.sender))),
                recipient,
                destinationCaller,
                minFinalityThreshold,
                uint32(0),
                messageBody
            )
        );
    }

    function receiveMessage(bytes calldata message, bytes calldata attestation) external returns (bool success) {
        _verifyAttestationSignatures(message, attestation);
        require(message.length >= 148, "Invalid message: too short");
        require(uint32(bytes4(message[8:12])) == localDomain, "Invalid destination domain");
        bytes32 destinationCaller = bytes32(message[108:140]);
        if (destinationCaller != bytes32(0)) {
            require(destinationCaller == bytes32(uint256(uint160(msg.sender))), "Invalid caller for message");
        }
        require(uint32(bytes4(message[0:4])) == version, "Invalid message version");
        bytes32 nonce = bytes32(message[12:44]);
        require(usedNonces[nonce] == 0, "Nonce already used");
        usedNonces[nonce] = 1;

        uint32 sourceDomain = uint32(bytes4(message[4:8]));
        bytes32 sender = bytes32(message[44:76]);
        address recipient = address(uint160(uint256(bytes32(message[76:108]))));
        uint32 finalityThresholdExecuted = uint32(bytes4(message[144:148]));
        bytes calldata body = message[148:];
        if (finalityThresholdExecuted < FINALITY_THRESHOLD_FINALIZED) {
            require(
                ICctpMessageHandlerV2(recipient).handleReceiveUnfinalizedMessage(
                    sourceDomain, sender, finalityThresholdExecuted, body
                ),
                "handleReceiveUnfinalizedMessage() failed"
            );
        } else {
            require(
                ICctpMessageHandlerV2(recipient).handleReceiveFinalizedMessage(
                    sourceDomain, sender, finalityThresholdExecuted, body
                ),
                "handleReceiveFinalizedMessage() failed"
            );
        }
        emit MessageReceived(msg.sender, sourceDomain, nonce, sender, finalityThresholdExecuted, body);
        return true;
    }

    function _verifyAttestationSignatures(bytes calldata message, bytes calldata attestation) private view {
        require(attestation.length == SIGNATURE_LENGTH * signatureThreshold, "Invalid attestation length");
        bytes32 digest = keccak256(message);
        address latest = address(0);
        for (uint256 i; i < signatureThreshold; i++) {
            bytes calldata sig = attestation[i * SIGNATURE_LENGTH:(i + 1) * SIGNATURE_LENGTH];
            address signer = _recover(digest, sig);
            require(signer > latest, "Invalid signature order or dupe");
            require(attesterEnabled[signer], "Invalid signature: not attester");
            latest = signer;
        }
    }

    /// ECDSA recovery of an `r | s | v` signature: `s` in the lower half
    /// order, `v` 27 or 28.
    function _recover(bytes32 digest, bytes calldata sig) private pure returns (address signer) {
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        require(uint256(s) <= HALF_ORDER, "ECDSA: invalid signature 's' value");
        require(v == 27 || v == 28, "ECDSA: invalid signature 'v' value");
        signer = ecrecover(digest, v, r, s);
        require(signer != address(0), "ECDSA: invalid signature");
    }
}

/// @title Reference TokenMinterV2.
/// @notice Burns what its TokenMessenger deposited (within the token's
/// per-message limit) and mints the local token linked to a remote one
/// (`getLocalToken(domain, token)`: keccak256 of the packed pair), to one
/// recipient or to two.
contract ReferenceTokenMinterV2 {
    address public localTokenMessenger;
    mapping(address => uint256) public burnLimitsPerMessage;
    mapping(bytes32 => address) public remoteTokensToLocalTokens;

    constructor(
        address localTokenMessenger_,
        address localToken_,
        uint256 burnLimitPerMessage_,
        uint32[] memory remoteDomains_,
        bytes32[] memory remoteTokens_
    ) {
        require(remoteDomains_.length == remoteTokens_.length, "Invalid remote token configuration");
        localTokenMessenger = localTokenMessenger_;
        burnLimitsPerMessage[localToken_] = burnLimitPerMessage_;
        for (uint256 i; i < remoteDomains_.length; i++) {
            remoteTokensToLocalTokens[keccak256(abi.encodePacked(remoteDomains_[i], remoteTokens_[i]))] = localToken_;
        }
    }

    modifier onlyLocalTokenMessenger() {
        require(msg.sender == localTokenMessenger, "Caller not local TokenMessenger");
        _;
    }

    function getLocalToken(uint32 remoteDomain, bytes32 remoteToken) public view returns (address) {
        return remoteTokensToLocalTokens[keccak256(abi.encodePacked(remoteDomain, remoteToken))];
    }

    function burn(address burnToken, uint256 burnAmount) external onlyLocalTokenMessenger {
        uint256 limit = burnLimitsPerMessage[burnToken];
        require(limit > 0, "Burn token not supported");
        require(burnAmount <= limit, "Burn amount exceeds per tx limit");
        ICctpMintBurnToken(burnToken).burn(burnAmount);
    }

    function mint(uint32 sourceDomain, bytes32 burnToken, address to, uint256 amount)
        external
        onlyLocalTokenMessenger
        returns (address mintToken)
    {
        mintToken = _localToken(sourceDomain, burnToken);
        require(ICctpMintBurnToken(mintToken).mint(to, amount), "Mint operation failed");
    }

    function mint(
        uint32 sourceDomain,
        bytes32 burnToken,
        address recipientOne,
        address recipientTwo,
        uint256 amountOne,
        uint256 amountTwo
    ) external onlyLocalTokenMessenger returns (address mintToken) {
        mintToken = _localToken(sourceDomain, burnToken);
        require(ICctpMintBurnToken(mintToken).mint(recipientOne, amountOne), "First mint operation failed");
        require(ICctpMintBurnToken(mintToken).mint(recipientTwo, amountTwo), "Second mint operation failed");
    }

    function _localToken(uint32 sourceDomain, bytes32 burnToken) private view returns (address token) {
        token = getLocalToken(sourceDomain, burnToken);
        require(token != address(0), "Mint token not supported");
    }
}

/// @title Reference TokenMessengerV2.
/// @notice `depositForBurn` / `depositForBurnWithHook` take `amount` of the
/// burn token from the caller to the minter, burn it and send a burn
/// message to the destination domain's TokenMessenger; both handlers mint
/// what a received burn message carries, less the fee executed (at most
/// the burn's `maxFee`), which is minted to the fee recipient.
contract ReferenceTokenMessengerV2 is ICctpMessageHandlerV2 {
    address public immutable localMessageTransmitter;
    uint32 public immutable messageBodyVersion;
    address public localMinter;
    address public feeRecipient;
    mapping(uint32 => bytes32) public remoteTokenMessengers;

    uint32 private constant TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD = 500;

    event DepositForBurn(
        address indexed burnToken,
        uint256 amount,
        address indexed depositor,
        bytes32 mintRecipient,
        uint32 destinationDomain,
        bytes32 destinationTokenMessenger,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 indexed minFinalityThreshold,
        bytes hookData
    );
    event MintAndWithdraw(address indexed mintRecipient, uint256 amount, address indexed mintToken, uint256 feeCollected);

    constructor(
        address messageTransmitter_,
        uint32 messageBodyVersion_,
        address tokenMinter_,
        address feeRecipient_,
        uint32[] memory remoteDomains_,
        bytes32[] memory remoteTokenMessengers_
    ) {
        require(tokenMinter_ != address(0), "TokenMinter is the zero address");
        require(remoteDomains_.length == remoteTokenMessengers_.length, "Invalid remote domain configuration");
        localMessageTransmitter = messageTransmitter_;
        messageBodyVersion = messageBodyVersion_;
        localMinter = tokenMinter_;
        feeRecipient = feeRecipient_;
        for (uint256 i; i < remoteDomains_.length; i++) {
            require(remoteTokenMessengers_[i] != bytes32(0), "Invalid TokenMessenger");
            remoteTokenMessengers[remoteDomains_[i]] = remoteTokenMessengers_[i];
        }
    }

    function depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold
    ) external {
        _depositForBurn(
            amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold, ""
        );
    }

    function depositForBurnWithHook(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold,
        bytes calldata hookData
    ) external {
        require(hookData.length > 0, "Hook data is empty");
        _depositForBurn(
            amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold, hookData
        );
    }

    function handleReceiveFinalizedMessage(uint32 remoteDomain, bytes32 sender, uint32, bytes calldata messageBody)
        external
        returns (bool)
    {
        _onlyFromRemoteMessenger(remoteDomain, sender);
        return _handleReceiveMessage(messageBody, remoteDomain);
    }

    function handleReceiveUnfinalizedMessage(
        uint32 remoteDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool) {
        _onlyFromRemoteMessenger(remoteDomain, sender);
        require(finalityThresholdExecuted >= TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD, "Unsupported finality threshold");
        return _handleReceiveMessage(messageBody, remoteDomain);
    }

    function _onlyFromRemoteMessenger(uint32 remoteDomain, bytes32 sender) private view {
        require(msg.sender == localMessageTransmitter, "Invalid message transmitter");
        require(
            sender != bytes32(0) && remoteTokenMessengers[remoteDomain] == sender, "Remote TokenMessenger unsupported"
        );
    }

    /// Either handler: the burn message checked (length, version, expiry,
    /// the fee executed against the amount and the burn's most fee), then
    /// the amount less the fee minted to the recipient, the fee to the fee
    /// recipient.
    function _handleReceiveMessage(bytes calldata body, uint32 remoteDomain) private returns (bool) {
        require(body.length >= 228, "Invalid burn message: too short");
        require(uint32(bytes4(body[0:4])) == messageBodyVersion, "Invalid message body version");
        uint256 expirationBlock = uint256(bytes32(body[196:228]));
        require(expirationBlock == 0 || expirationBlock > block.number, "Message expired and must be re-signed");
        uint256 amount = uint256(bytes32(body[68:100]));
        uint256 fee = uint256(bytes32(body[164:196]));
        require(fee == 0 || fee < amount, "Fee equals or exceeds amount");
        require(fee <= uint256(bytes32(body[132:164])), "Fee exceeds max fee");
        address mintRecipient = address(uint160(uint256(bytes32(body[36:68]))));
        _mintAndWithdraw(remoteDomain, bytes32(body[4:36]), mintRecipient, amount - fee, fee);
        return true;
    }

    function _depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold,
        bytes memory hookData
    ) private {
        require(amount > 0, "Amount must be nonzero");
        require(mintRecipient != bytes32(0), "Mint recipient must be nonzero");
        require(maxFee < amount, "Max fee must be less than amount");
        bytes32 destinationTokenMessenger = remoteTokenMessengers[destinationDomain];
        require(destinationTokenMessenger != bytes32(0), "No TokenMessenger for domain");

        address minter = localMinter;
        require(ICctpMintBurnToken(burnToken).transferFrom(msg.sender, minter, amount), "Transfer operation failed");
        ICctpTokenMinterV2(minter).burn(burnToken, amount);

        bytes memory burnMessage = abi.encodePacked(
            messageBodyVersion,
            bytes32(uint256(uint160(burnToken))),
            mintRecipient,
            amount,
            bytes32(uint256(uint160(msg.sender))),
            maxFee,
            uint256(0),
            uint256(0),
            hookData
        );
        ICctpRelayerV2(localMessageTransmitter).sendMessage(
            destinationDomain, destinationTokenMessenger, destinationCaller, minFinalityThreshold, burnMessage
        );
        emit DepositForBurn(
            burnToken,
            amount,
            msg.sender,
            mintRecipient,
            destinationDomain,
            destinationTokenMessenger,
            destinationCaller,
            maxFee,
            minFinalityThreshold,
            hookData
        );
    }

    function _mintAndWithdraw(
        uint32 remoteDomain,
        bytes32 burnToken,
        address mintRecipient,
        uint256 amount,
        uint256 fee
    ) private {
        address mintToken;
        if (fee > 0) {
            mintToken =
                ICctpTokenMinterV2(localMinter).mint(remoteDomain, burnToken, mintRecipient, feeRecipient, amount, fee);
        } else {
            mintToken = ICctpTokenMinterV2(localMinter).mint(remoteDomain, burnToken, mintRecipient, amount);
        }
        emit MintAndWithdraw(mintRecipient, amount, mintToken, fee);
    }
}

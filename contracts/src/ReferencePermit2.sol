// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IPermit2ERC20Like {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

interface IPermit2ERC1271 {
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4);
}

/// @title Reference Permit2, signature transfers.
/// @notice The signature-transfer side of Uniswap's Permit2 (deployed at
/// 0x000000000022D473030F116dDEE9F6B43aC78BA3 on every chain), written for
/// Switchyard from its published interface and EIP-712 types, not from its
/// code. A signature made for the deployed contract is valid here when this
/// contract sits at the same address on the same chain id.
///
/// - `DOMAIN_SEPARATOR()`: EIP-712 over `EIP712Domain(string name,uint256
///   chainId,address verifyingContract)`, name `Permit2`, no version.
/// - `permitTransferFrom(permit, transferDetails, owner, signature)`: the
///   signed struct is `PermitTransferFrom(TokenPermissions permitted,address
///   spender,uint256 nonce,uint256 deadline)` with `spender` the caller.
///   Checks, in order: the deadline (`SignatureExpired` once
///   `block.timestamp` is past it), the amount (`InvalidAmount` above the
///   permitted one), the nonce (an unordered bitmap per owner: word
///   `nonce >> 8`, bit `nonce & 0xff`; `InvalidNonce` if already used), the
///   signature (65 bytes `r,s,v` or 64 bytes EIP-2098 `r,vs` for an owner
///   without code, `InvalidSignatureLength` otherwise, `InvalidSignature`
///   when nothing recovers, `InvalidSigner` for another signer; an owner
///   with code answers EIP-1271, `InvalidContractSignature` unless it
///   returns the selector); then the owner's tokens go to
///   `transferDetails.to` through `transferFrom` (the owner approves this
///   contract), `TRANSFER_FROM_FAILED` if the token refuses.
/// - The batch `permitTransferFrom(permit, transferDetails[], owner,
///   signature)`: the signed struct is `PermitBatchTransferFrom(
///   TokenPermissions[] permitted,address spender,uint256 nonce,uint256
///   deadline)`, the array hashed as the packed hashes of its items.
///   Checks, in order: the deadline, one transfer detail per permitted token
///   (`LengthMismatch`), the nonce, the signature; then each token in turn,
///   `InvalidAmount` above its permitted amount, a zero request skipped.
/// - `nonceBitmap(owner, word)` and `invalidateUnorderedNonces(word, mask)`.
///
/// Not here: the allowance side (`approve`, `permit`, `transferFrom`,
/// `allowance`, `lockdown`, `invalidateNonces`) and witness transfers.
contract ReferencePermit2 {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct PermitBatchTransferFrom {
        TokenPermissions[] permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    bytes32 private constant _DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)");
    bytes32 private constant _NAME_HASH = keccak256("Permit2");
    bytes32 private constant _TOKEN_PERMISSIONS_TYPEHASH = keccak256("TokenPermissions(address token,uint256 amount)");
    bytes32 private constant _PERMIT_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );

    bytes32 private constant _PERMIT_BATCH_TRANSFER_FROM_TYPEHASH = keccak256(
        "PermitBatchTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)"
    );

    /// @notice Used nonces: owner → word → bits.
    mapping(address => mapping(uint256 => uint256)) public nonceBitmap;

    event UnorderedNonceInvalidation(address indexed owner, uint256 word, uint256 mask);

    error InvalidAmount(uint256 maxAmount);
    error SignatureExpired(uint256 signatureDeadline);
    error InvalidNonce();
    error InvalidSignatureLength();
    error InvalidSignature();
    error InvalidSigner();
    error InvalidContractSignature();
    error LengthMismatch();

    /// @notice The EIP-712 domain of this chain and address.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(_DOMAIN_TYPEHASH, _NAME_HASH, block.chainid, address(this)));
    }

    /// @notice Moves `transferDetails.requestedAmount` of the permitted token
    /// from `owner` to `transferDetails.to` on `owner`'s signature.
    function permitTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        uint256 requested = transferDetails.requestedAmount;
        if (requested > permit.permitted.amount) revert InvalidAmount(permit.permitted.amount);
        _useNonce(owner, permit.nonce);
        bytes32 permitted = keccak256(abi.encode(_TOKEN_PERMISSIONS_TYPEHASH, permit.permitted));
        bytes32 data =
            keccak256(abi.encode(_PERMIT_TRANSFER_FROM_TYPEHASH, permitted, msg.sender, permit.nonce, permit.deadline));
        _verify(signature, keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), data)), owner);
        _transferFrom(permit.permitted.token, owner, transferDetails.to, requested);
    }

    /// @notice Moves each `transferDetails[i].requestedAmount` of the i-th
    /// permitted token from `owner` to `transferDetails[i].to` on `owner`'s
    /// one signature.
    function permitTransferFrom(
        PermitBatchTransferFrom calldata permit,
        SignatureTransferDetails[] calldata transferDetails,
        address owner,
        bytes calldata signature
    ) external {
        uint256 n = permit.permitted.length;
        if (block.timestamp > permit.deadline) revert SignatureExpired(permit.deadline);
        if (n != transferDetails.length) revert LengthMismatch();
        _useNonce(owner, permit.nonce);
        bytes32[] memory hashes = new bytes32[](n);
        for (uint256 i = 0; i < n; ++i) {
            hashes[i] = keccak256(abi.encode(_TOKEN_PERMISSIONS_TYPEHASH, permit.permitted[i]));
        }
        bytes32 data = keccak256(
            abi.encode(
                _PERMIT_BATCH_TRANSFER_FROM_TYPEHASH,
                keccak256(abi.encodePacked(hashes)),
                msg.sender,
                permit.nonce,
                permit.deadline
            )
        );
        _verify(signature, keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), data)), owner);
        for (uint256 i = 0; i < n; ++i) {
            uint256 requested = transferDetails[i].requestedAmount;
            if (requested > permit.permitted[i].amount) revert InvalidAmount(permit.permitted[i].amount);
            if (requested != 0) _transferFrom(permit.permitted[i].token, owner, transferDetails[i].to, requested);
        }
    }

    /// @notice Marks the bits of `mask` in the caller's nonce word `word` used.
    function invalidateUnorderedNonces(uint256 word, uint256 mask) external {
        nonceBitmap[msg.sender][word] |= mask;
        emit UnorderedNonceInvalidation(msg.sender, word, mask);
    }

    function _useNonce(address owner, uint256 nonce) private {
        uint256 word = nonce >> 8;
        uint256 bit = 1 << (nonce & 0xff);
        uint256 flipped = nonceBitmap[owner][word] ^ bit;
        nonceBitmap[owner][word] = flipped;
        if (flipped & bit == 0) revert InvalidNonce();
    }

    function _verify(bytes calldata signature, bytes32 hash, address claimed) private view {
        if (claimed.code.length > 0) {
            if (IPermit2ERC1271(claimed).isValidSignature(hash, signature) != IPermit2ERC1271.isValidSignature.selector) {
                revert InvalidContractSignature();
            }
            return;
        }
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (signature.length == 65) {
            r = bytes32(signature[0:32]);
            s = bytes32(signature[32:64]);
            v = uint8(signature[64]);
        } else if (signature.length == 64) {
            r = bytes32(signature[0:32]);
            bytes32 vs = bytes32(signature[32:64]);
            s = vs & bytes32(uint256(type(uint256).max >> 1));
            v = uint8(uint256(vs) >> 255) + 27;
        } else {
            revert InvalidSignatureLength();
        }
        address signer = ecrecover(hash, v, r, s);
        if (signer == address(0)) revert InvalidSignature();
        if (signer != claimed) revert InvalidSigner();
    }

    function _transferFrom(address token, address from, address to, uint256 amount) private {
        (bool ok, bytes memory ret) =
            token.call(abi.encodeCall(IPermit2ERC20Like.transferFrom, (from, to, amount)));
        require(ok && (ret.length == 0 || abi.decode(ret, (bool))) && token.code.length > 0, "TRANSFER_FROM_FAILED");
    }
}

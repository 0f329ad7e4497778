// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Pull {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference Stargate V2 pool (source side), one token or the native coin.
/// @notice The LayerZero OFT interface a Stargate V2 pool exposes, with the
/// mainnet selectors: `send(SendParam, MessagingFee, refundAddress)`,
/// `quoteSend`, `quoteOFT`, `token`, `sharedDecimals`, and the `OFTSent`
/// event. A pool for an ERC-20 takes the amount with `transferFrom`; a
/// native pool (`token()` is `address(0)`, as on mainnet) takes it from
/// `msg.value`. What it takes it keeps (locked). No fee on this side: the
/// quoted LayerZero fee is 0, the OFT receipt's received amount equals the
/// sent amount, and the engine models the bridge fee on delivery.
///
/// Amounts move in shared decimals, as Stargate's do: `amountLD` loses its
/// dust below `10^(localDecimals - 6)` (the sent amount is the rest), an
/// ERC-20 pool pulls only the sent amount, and a native pool refunds the
/// dust to `refundAddress`. `msg.value` must be `fee.nativeFee` exactly (an ERC-20 pool) or
/// `amountLD + fee.nativeFee` exactly (a native pool); since the real fee is
/// 0, whatever is paid as `nativeFee` is refunded to `refundAddress`, as the
/// LayerZero endpoint refunds an overpaid fee.
///
/// Every send also emits Switchyard's `BridgeRequest`: the destination's
/// EVM chain id (from `dstEid`), the token (`0xEeee…EEeE` for the native
/// coin), the amount received, `to` as an address and the compose message.
///
/// Simplified: no credits, paths, bus, treasury fee, rewards, LP token,
/// pause or LayerZero endpoint; `extraOptions` and `oftCmd` are ignored
/// (every send is a taxi); `guid` and `nonce` are this pool's own counter,
/// shaped like LayerZero's. `dstEid` must be in the table below and not
/// this chain's, and `to` an EVM address.
contract ReferenceStargatePool {
    /// The native coin, as Switchyard names it in `BridgeRequest`.
    address internal constant NATIVE = 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE;
    /// Stargate V2's shared decimals.
    uint8 internal constant SHARED_DECIMALS = 6;

    struct SendParam {
        uint32 dstEid;
        bytes32 to;
        uint256 amountLD;
        uint256 minAmountLD;
        bytes extraOptions;
        bytes composeMsg;
        bytes oftCmd;
    }

    struct MessagingFee {
        uint256 nativeFee;
        uint256 lzTokenFee;
    }

    struct MessagingReceipt {
        bytes32 guid;
        uint64 nonce;
        MessagingFee fee;
    }

    struct OFTReceipt {
        uint256 amountSentLD;
        uint256 amountReceivedLD;
    }

    struct OFTLimit {
        uint256 minAmountLD;
        uint256 maxAmountLD;
    }

    struct OFTFeeDetail {
        int256 feeAmountLD;
        string description;
    }

    /// The pooled token; `address(0)` for the native coin.
    address public immutable token;
    /// `10^(localDecimals - 6)`: local units per shared unit.
    uint256 internal immutable conversionRate;
    /// Messages sent so far.
    uint64 internal outboundNonce;

    /// The OFT event every Stargate V2 send emits.
    event OFTSent(
        bytes32 indexed guid, uint32 dstEid, address indexed fromAddress, uint256 amountSentLD, uint256 amountReceivedLD
    );

    /// Switchyard's uniform bridge event, identical in every reference bridge.
    event BridgeRequest(
        uint256 indexed destinationChainId, address indexed token, uint256 amount, address recipient, bytes payload
    );

    /// Local decimals below the shared 6.
    error InvalidLocalDecimals();
    /// Nothing left to send once the dust is removed, or more than
    /// `2^64 - 1` shared units.
    error InvalidAmount();
    /// The amount sent is below `minAmountLD`.
    error SlippageExceeded(uint256 amountLD, uint256 minAmountLD);
    /// `msg.value` is not what the send needs.
    error WrongMsgValue(uint256 value, uint256 expected);
    /// A fee in the LayerZero token, which this pool does not take.
    error LzTokenUnavailable();
    /// An endpoint id outside the table, or this chain's own.
    error UnknownEid(uint32 eid);
    /// `to` is zero or not an EVM address (high 12 bytes set).
    error InvalidRecipient(bytes32 to);
    /// The token's `transferFrom` failed or returned false.
    error TransferFailed(address token);
    /// A refund of native value to `refundAddress` failed.
    error RefundFailed(address refundAddress, uint256 amount);

    /// @param token_ The pooled ERC-20, or the native coin as `address(0)`
    /// or `0xEeee…EEeE` (either way `token()` is then `address(0)`).
    /// @param localDecimals The token's decimals (18 for the native coin), at
    /// least 6.
    constructor(address token_, uint8 localDecimals) {
        if (localDecimals < SHARED_DECIMALS) revert InvalidLocalDecimals();
        token = token_ == NATIVE ? address(0) : token_;
        conversionRate = 10 ** (localDecimals - SHARED_DECIMALS);
    }

    /// The decimals amounts travel in between chains.
    function sharedDecimals() external pure returns (uint8) {
        return SHARED_DECIMALS;
    }

    /// The LayerZero fee of a send: always 0 here.
    function quoteSend(SendParam calldata sendParam, bool payInLzToken)
        external
        view
        returns (MessagingFee memory fee)
    {
        _destination(sendParam.dstEid);
        if (_removeDust(sendParam.amountLD) == 0) revert InvalidAmount();
        if (payInLzToken) revert LzTokenUnavailable();
        return MessagingFee(0, 0);
    }

    /// The limits, fees (none) and receipt of a send of `amountLD`.
    function quoteOFT(SendParam calldata sendParam)
        external
        view
        returns (OFTLimit memory limit, OFTFeeDetail[] memory oftFeeDetails, OFTReceipt memory receipt)
    {
        limit = OFTLimit(conversionRate, uint256(type(uint64).max) * conversionRate);
        uint256 amount = sendParam.amountLD > limit.maxAmountLD ? limit.maxAmountLD : sendParam.amountLD;
        uint256 sent = _removeDust(amount);
        oftFeeDetails = new OFTFeeDetail[](0);
        receipt = OFTReceipt(sent, sent);
    }

    /// Sends `sendParam.amountLD` (less its dust) to `sendParam.to` on the
    /// chain of `sendParam.dstEid`, with `sendParam.composeMsg` for it.
    function send(SendParam calldata sendParam, MessagingFee calldata fee, address refundAddress)
        external
        payable
        returns (MessagingReceipt memory msgReceipt, OFTReceipt memory oftReceipt)
    {
        uint256 chainId = _destination(sendParam.dstEid);
        if (sendParam.to == bytes32(0) || uint256(sendParam.to) >> 160 != 0) revert InvalidRecipient(sendParam.to);
        if (fee.lzTokenFee != 0) revert LzTokenUnavailable();
        uint256 sent = _removeDust(sendParam.amountLD);
        if (sent == 0 || sent / conversionRate > type(uint64).max) revert InvalidAmount();
        if (sent < sendParam.minAmountLD) revert SlippageExceeded(sent, sendParam.minAmountLD);

        (address tokenOut, uint256 refund) = _take(sendParam.amountLD, sent, fee.nativeFee);
        msgReceipt = _record(sendParam, chainId, tokenOut, sent);
        oftReceipt = OFTReceipt(sent, sent);

        if (refund != 0) {
            (bool ok,) = refundAddress.call{value: refund}("");
            if (!ok) revert RefundFailed(refundAddress, refund);
        }
    }

    /// Numbers the message and emits `OFTSent` and `BridgeRequest`.
    function _record(SendParam calldata sendParam, uint256 chainId, address tokenOut, uint256 sent)
        private
        returns (MessagingReceipt memory)
    {
        uint64 nonce = ++outboundNonce;
        bytes32 guid = keccak256(
            abi.encodePacked(
                nonce, _localEid(), bytes32(uint256(uint160(address(this)))), sendParam.dstEid, sendParam.to
            )
        );
        emit OFTSent(guid, sendParam.dstEid, msg.sender, sent, sent);
        emit BridgeRequest(chainId, tokenOut, sent, address(uint160(uint256(sendParam.to))), sendParam.composeMsg);
        return MessagingReceipt(guid, nonce, MessagingFee(0, 0));
    }

    /// Takes `sent` from the caller (`transferFrom`, or out of `msg.value`
    /// for the native pool) after checking `msg.value`; returns the token as
    /// `BridgeRequest` names it and the native value to refund.
    function _take(uint256 amountLD, uint256 sent, uint256 nativeFee)
        private
        returns (address tokenOut, uint256 refund)
    {
        if (token == address(0)) {
            uint256 expected = amountLD + nativeFee;
            if (msg.value != expected) revert WrongMsgValue(msg.value, expected);
            return (NATIVE, msg.value - sent);
        }
        if (msg.value != nativeFee) revert WrongMsgValue(msg.value, nativeFee);
        (bool ok, bytes memory r) =
            token.call(abi.encodeCall(IERC20Pull.transferFrom, (msg.sender, address(this), sent)));
        if (!ok || (r.length != 0 && !abi.decode(r, (bool)))) revert TransferFailed(token);
        return (token, msg.value);
    }

    /// This chain's endpoint id, 0 when it is not in the table.
    function _localEid() private view returns (uint32) {
        uint256 id = block.chainid;
        if (id == 1) return 30101;
        if (id == 56) return 30102;
        if (id == 43114) return 30106;
        if (id == 137) return 30109;
        if (id == 42161) return 30110;
        if (id == 10) return 30111;
        if (id == 100) return 30145;
        if (id == 59144) return 30183;
        if (id == 8453) return 30184;
        if (id == 130) return 30320;
        if (id == 146) return 30332;
        if (id == 80094) return 30362;
        return 0;
    }

    /// The EVM chain id of a LayerZero V2 endpoint id, 0 for one not in the
    /// table.
    ///
    /// LayerZero V2's deployed-contracts table
    /// (docs.layerzero.network/v2/deployments/deployed-contracts), mainnet
    /// ids, for the chains Stargate V2 serves in Switchyard's catalog
    /// (`catalog/data/layerzero.json` carries the same eids): 30101 Ethereum
    /// 1, 30102 BNB Chain 56, 30106 Avalanche 43114, 30109 Polygon 137,
    /// 30110 Arbitrum 42161, 30111 Optimism 10, 30145 Gnosis 100, 30183
    /// Linea 59144, 30184 Base 8453, 30320 Unichain 130, 30332 Sonic 146,
    /// 30362 Berachain 80094.
    function eidChainId(uint32 eid) public pure returns (uint256) {
        if (eid == 30101) return 1;
        if (eid == 30102) return 56;
        if (eid == 30106) return 43114;
        if (eid == 30109) return 137;
        if (eid == 30110) return 42161;
        if (eid == 30111) return 10;
        if (eid == 30145) return 100;
        if (eid == 30183) return 59144;
        if (eid == 30184) return 8453;
        if (eid == 30320) return 130;
        if (eid == 30332) return 146;
        if (eid == 30362) return 80094;
        return 0;
    }

    /// The chain id of `dstEid`, or a revert for an unknown or local one.
    function _destination(uint32 dstEid) private view returns (uint256 chainId) {
        chainId = eidChainId(dstEid);
        if (chainId == 0 || chainId == block.chainid) revert UnknownEid(dstEid);
    }

    /// `amountLD` rounded down to whole shared units.
    function _removeDust(uint256 amountLD) private view returns (uint256) {
        return amountLD / conversionRate * conversionRate;
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Pull {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference Circle CCTP v2 TokenMessengerV2 (source side).
/// @notice The public `depositForBurn` and `depositForBurnWithHook` of
/// CCTP v2 with their mainnet selectors, and its `DepositForBurn` event. The
/// caller's `burnToken` is taken with `transferFrom` and kept here (locked,
/// standing for Circle's burn); no fee is charged on this side (`maxFee` is
/// only checked, as Circle checks it, against the amount), the engine
/// models the fee on delivery.
///
/// Every deposit also emits Switchyard's `BridgeRequest`: the destination's
/// EVM chain id (from the CCTP domain), the token, the amount, the mint
/// recipient as an address and the hook data (empty for `depositForBurn`).
///
/// Simplified: any ERC-20 is accepted as `burnToken` (mainnet accepts only
/// tokens its TokenMinter knows, USDC); no burn limit, pause, denylist or
/// message transmitter; `destinationCaller` and `minFinalityThreshold` are
/// emitted but have no effect. A destination domain must be one of the EVM
/// domains below and not this chain's (mainnet has no remote messenger for
/// the local domain), and the mint recipient must be an EVM address.
contract ReferenceTokenMessengerV2 {
    /// Circle's `DepositForBurn` of CCTP v2.
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

    /// Switchyard's uniform bridge event, identical in every reference bridge.
    event BridgeRequest(
        uint256 indexed destinationChainId, address indexed token, uint256 amount, address recipient, bytes payload
    );

    /// A zero amount.
    error ZeroAmount();
    /// `maxFee` is not below the amount.
    error MaxFeeTooHigh(uint256 maxFee, uint256 amount);
    /// The mint recipient is zero or not an EVM address (high 12 bytes set).
    error InvalidMintRecipient(bytes32 mintRecipient);
    /// `depositForBurnWithHook` with empty hook data.
    error EmptyHookData();
    /// A domain outside the table, or this chain's own domain.
    error UnknownDomain(uint32 domain);
    /// The token's `transferFrom` failed or returned false.
    error TransferFailed(address token);

    /// Burns (here: locks) `amount` of `burnToken` from the caller for
    /// `mintRecipient` on `destinationDomain`.
    function depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold
    ) external {
        _deposit(
            amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold, ""
        );
    }

    /// `depositForBurn` with hook data for the destination (non-empty).
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
        if (hookData.length == 0) revert EmptyHookData();
        _deposit(
            amount,
            destinationDomain,
            mintRecipient,
            burnToken,
            destinationCaller,
            maxFee,
            minFinalityThreshold,
            hookData
        );
    }

    function _deposit(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold,
        bytes memory hookData
    ) private {
        if (amount == 0) revert ZeroAmount();
        if (maxFee >= amount) revert MaxFeeTooHigh(maxFee, amount);
        if (mintRecipient == bytes32(0) || uint256(mintRecipient) >> 160 != 0) {
            revert InvalidMintRecipient(mintRecipient);
        }
        uint256 chainId = domainChainId(destinationDomain);
        if (chainId == 0 || chainId == block.chainid) revert UnknownDomain(destinationDomain);

        (bool ok, bytes memory r) =
            burnToken.call(abi.encodeCall(IERC20Pull.transferFrom, (msg.sender, address(this), amount)));
        if (!ok || (r.length != 0 && !abi.decode(r, (bool)))) revert TransferFailed(burnToken);

        emit DepositForBurn(
            burnToken,
            amount,
            msg.sender,
            mintRecipient,
            destinationDomain,
            // The messenger has the same address on every chain.
            bytes32(uint256(uint160(address(this)))),
            destinationCaller,
            maxFee,
            minFinalityThreshold,
            hookData
        );
        emit BridgeRequest(chainId, burnToken, amount, address(uint160(uint256(mintRecipient))), hookData);
    }

    /// The EVM chain id of a CCTP domain, 0 for a domain not in the table.
    ///
    /// Circle's domain list (developers.circle.com/cctp/supported-domains,
    /// "CCTP V2 Domains"), EVM domains only, with their public chain ids:
    /// 0 Ethereum 1, 1 Avalanche C-Chain 43114, 2 OP Mainnet 10,
    /// 3 Arbitrum One 42161, 6 Base 8453, 7 Polygon PoS 137, 10 Unichain 130,
    /// 11 Linea 59144, 12 Codex 81224, 13 Sonic 146, 14 World Chain 480,
    /// 16 Sei 1329. (4 Noble, 5 Solana, 8 Sui and 9 Aptos are not EVM; 17,
    /// BNB Smart Chain, carries USYC only.)
    function domainChainId(uint32 domain) public pure returns (uint256) {
        if (domain == 0) return 1;
        if (domain == 1) return 43114;
        if (domain == 2) return 10;
        if (domain == 3) return 42161;
        if (domain == 6) return 8453;
        if (domain == 7) return 137;
        if (domain == 10) return 130;
        if (domain == 11) return 59144;
        if (domain == 12) return 81224;
        if (domain == 13) return 146;
        if (domain == 14) return 480;
        if (domain == 16) return 1329;
        return 0;
    }
}

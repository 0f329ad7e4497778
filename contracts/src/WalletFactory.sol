// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {deployProxy, proxyAddress} from "./MinimalProxy.sol";
import {Token, TokenTransfers, TokenType} from "./TokenTransfers.sol";

interface IShortcutsWallet {
    function initialize(address owner) external;
    function setExecutor(address executor, bool allowed) external;
}

/// @title Reference of Enso's deployed `EnsoWalletV2Factory`
/// (`0xc914a663837eB21C5A650716E015659686597E55`).
/// @notice Mirrors the public source's external surface and behaviour,
/// nothing more; written here from its interface:
///
/// - each account's wallet is a 44-byte minimal proxy (the solady clone
///   layout) to `IMPLEMENTATION`, created with CREATE2 at salt
///   `keccak256(abi.encode(account))`; `getAddress(account)` predicts it;
/// - `deploy(account)` creates and initialises it for anyone, once;
/// - `deployAndExecute(tokensIn, data, executors, revoke)` does that for the
///   caller, pulls the caller's inputs into the wallet (a Native entry is
///   settled by `msg.value`; two revert, and value without one reverts),
///   adds `executors`, calls the wallet with `data` and the whole
///   `msg.value` (a revert passed on), revokes the executors if asked, and
///   returns the wallet and the call's return data.
contract WalletFactory is TokenTransfers {
    address public immutable IMPLEMENTATION;

    event EnsoWalletV2Deployed(address wallet, address indexed account);

    error EnsoWalletV2Factory_ExecutionFailedNoReason();
    error EnsoWalletV2Factory_UnsupportedTokenType(TokenType tokenType);
    error EnsoWalletV2Factory_WrongMsgValue(uint256 value, uint256 expectedAmount);
    error EnsoWalletV2Factory_DuplicateNativeAsset();

    constructor(address implementation) {
        IMPLEMENTATION = implementation;
    }

    function deploy(address account) external returns (address wallet) {
        wallet = _deploy(account);
    }

    function deployAndExecute(
        Token[] calldata tokensIn,
        bytes calldata data,
        address[] calldata executors,
        bool revokeExecutorsAfterExecution
    ) external payable returns (address wallet, bytes memory response) {
        wallet = _deploy(msg.sender);
        bool native;
        for (uint256 k; k < tokensIn.length; ++k) {
            if (_pull(tokensIn[k], wallet)) {
                if (native) revert EnsoWalletV2Factory_DuplicateNativeAsset();
                native = true;
            }
        }
        if (!native && msg.value != 0) revert EnsoWalletV2Factory_WrongMsgValue(msg.value, 0);
        _setExecutors(wallet, executors, true);
        bool ok;
        (ok, response) = wallet.call{value: msg.value}(data);
        if (!ok) {
            if (response.length > 0) {
                assembly ("memory-safe") {
                    revert(add(response, 32), mload(response))
                }
            }
            revert EnsoWalletV2Factory_ExecutionFailedNoReason();
        }
        if (revokeExecutorsAfterExecution) _setExecutors(wallet, executors, false);
    }

    function getAddress(address account) public view returns (address) {
        return proxyAddress(address(this), IMPLEMENTATION, _salt(account));
    }

    function _deploy(address account) private returns (address wallet) {
        wallet = getAddress(account);
        if (wallet.code.length != 0) return wallet;
        deployProxy(IMPLEMENTATION, _salt(account));
        IShortcutsWallet(wallet).initialize(account);
        emit EnsoWalletV2Deployed(wallet, account);
    }

    function _setExecutors(address wallet, address[] calldata executors, bool allowed) private {
        for (uint256 k; k < executors.length; ++k) {
            IShortcutsWallet(wallet).setExecutor(executors[k], allowed);
        }
    }

    function _unsupportedTokenType(TokenType tokenType) internal pure override {
        revert EnsoWalletV2Factory_UnsupportedTokenType(tokenType);
    }

    function _salt(address account) private pure returns (bytes32) {
        return keccak256(abi.encode(account));
    }
}

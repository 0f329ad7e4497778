// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface ISmartWallet {
    function initialize(address owner) external;
    function executeShortcut(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (bytes[] memory);
}

/// @title Deploys each owner's `SmartWallet` on first use and runs a
/// shortcut in it (`ensowallet-v2`).
/// @notice The wallet of `owner` is an EIP-1167 minimal proxy to
/// `implementation`, created with CREATE2 at salt `bytes32(owner)`, so its
/// address is known before it exists: `walletOf(owner)`, or off-chain
/// `keccak256(0xff ++ factory ++ salt ++ keccak256(proxy initcode))`.
contract WalletFactory {
    address public immutable implementation;

    event WalletDeployed(address indexed owner, address wallet);

    error DeployFailed();

    constructor(address implementation_) {
        implementation = implementation_;
    }

    /// Creates the caller's wallet if needed, then runs the shortcut in it
    /// with the value sent; returns the wallet and the program's final state.
    function deploy(bytes32 accountId, bytes32 requestId, bytes32[] calldata commands, bytes[] calldata state)
        external
        payable
        returns (address wallet, bytes[] memory result)
    {
        wallet = walletOf(msg.sender);
        if (wallet.code.length == 0) {
            bytes memory code = _proxyInitcode();
            bytes32 salt = bytes32(uint256(uint160(msg.sender)));
            address created;
            assembly ("memory-safe") {
                created := create2(0, add(code, 32), mload(code), salt)
            }
            if (created != wallet) revert DeployFailed();
            ISmartWallet(wallet).initialize(msg.sender);
            emit WalletDeployed(msg.sender, wallet);
        }
        result = ISmartWallet(wallet).executeShortcut{value: msg.value}(accountId, requestId, commands, state);
    }

    function walletOf(address owner) public view returns (address) {
        bytes32 salt = bytes32(uint256(uint160(owner)));
        bytes32 h = keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, keccak256(_proxyInitcode())));
        return address(uint160(uint256(h)));
    }

    function _proxyInitcode() private view returns (bytes memory) {
        return abi.encodePacked(
            hex"3d602d80600a3d3981f3363d3d373d3d3d363d73", implementation, hex"5af43d82803e903d91602b57fd5bf3"
        );
    }
}

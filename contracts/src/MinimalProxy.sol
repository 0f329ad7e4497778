// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// The 44-byte minimal proxy to `implementation` that solady's `LibClone`
/// deploys (`cloneDeterministic`), as Enso's wallet and account factories
/// create it: its initcode, for CREATE2 and for predicting the address.
function proxyInitcode(address implementation) pure returns (bytes memory) {
    return abi.encodePacked(
        hex"602c3d8160093d39f33d3d3d3d363d3d37363d73", implementation, hex"5af43d3d93803e602a57fd5bf3"
    );
}

/// The CREATE2 address `deployer` gives the proxy to `implementation` under
/// `salt`.
function proxyAddress(address deployer, address implementation, bytes32 salt) pure returns (address) {
    bytes32 h = keccak256(abi.encodePacked(bytes1(0xff), deployer, salt, keccak256(proxyInitcode(implementation))));
    return address(uint160(uint256(h)));
}

/// Deploys the proxy to `implementation` under `salt`; reverts
/// `DeploymentFailed()` (solady's) if CREATE2 fails.
function deployProxy(address implementation, bytes32 salt) returns (address created) {
    bytes memory code = proxyInitcode(implementation);
    assembly ("memory-safe") {
        created := create2(0, add(code, 32), mload(code), salt)
    }
    if (created == address(0)) revert DeploymentFailed();
}

error DeploymentFailed();

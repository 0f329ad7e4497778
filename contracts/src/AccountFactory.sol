// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {deployProxy, proxyAddress} from "./MinimalProxy.sol";

interface IAccountInitializer {
    function initialize(address owner, address signer, address entryPoint) external;
}

/// @title Reference of Enso's deployed `ERC4337CloneFactory`
/// (`0x1a59347d28f64091079fa04a2CbD03dA63dff154`, implementation the
/// `EnsoReceiver` that `ReceiverAccount` stands for, EntryPoint v0.7).
/// @notice Mirrors the public source's external surface and behaviour;
/// written here from its interface. Each account is a minimal proxy (solady
/// `LibClone`) at the CREATE2 address of salt `keccak256(abi.encode(account,
/// signer))`: `deploy(account)` makes the account its own signer,
/// `delegateDeploy(account, signer)` names another. Deploying an existing
/// account returns it. Anyone may call either.
contract AccountFactory {
    address public immutable implementation;
    address public immutable entryPoint;

    event CloneDeployed(address clone, address account, address signer);

    constructor(address implementation_, address entryPoint_) {
        implementation = implementation_;
        entryPoint = entryPoint_;
    }

    function deploy(address account) external returns (address clone) {
        return _deploy(account, account);
    }

    function delegateDeploy(address account, address signer) external returns (address clone) {
        return _deploy(account, signer);
    }

    function getAddress(address account) external view returns (address) {
        return proxyAddress(address(this), implementation, _salt(account, account));
    }

    function getDelegateAddress(address account, address signer) external view returns (address) {
        return proxyAddress(address(this), implementation, _salt(account, signer));
    }

    function _deploy(address account, address signer) private returns (address clone) {
        bytes32 salt = _salt(account, signer);
        address predicted = proxyAddress(address(this), implementation, salt);
        if (predicted.code.length > 0) return predicted;
        clone = deployProxy(implementation, salt);
        IAccountInitializer(clone).initialize(account, signer, entryPoint);
        emit CloneDeployed(clone, account, signer);
    }

    function _salt(address account, address signer) private pure returns (bytes32) {
        return keccak256(abi.encode(account, signer));
    }
}

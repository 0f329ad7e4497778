// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title The functions every deployed generation of Enso's
/// `EnsoShortcutsHelpers` since version 2 has, with the same results and
/// reverts; written here from the verified sources' interface.
abstract contract ShortcutsHelpersFunctions {
    function getBalance(address balanceAddress) external view returns (uint256 balance) {
        balance = balanceAddress.balance;
    }

    function getBlockTimestamp() external view returns (uint256 timestamp) {
        timestamp = block.timestamp;
    }

    function toggle(bool condition, uint256 a, uint256 b) external pure returns (uint256) {
        return condition ? a : b;
    }

    function not(bool condition) external pure returns (bool) {
        return !condition;
    }

    function isEqual(uint256 a, uint256 b) external pure returns (bool) {
        return a == b;
    }

    function isLessThan(uint256 a, uint256 b) external pure returns (bool) {
        return a < b;
    }

    function isEqualOrLessThan(uint256 a, uint256 b) external pure returns (bool) {
        return !(a > b);
    }

    function isGreaterThan(uint256 a, uint256 b) external pure returns (bool) {
        return a > b;
    }

    function isEqualOrGreaterThan(uint256 a, uint256 b) external pure returns (bool) {
        return !(a < b);
    }

    function isAddressEqual(address a, address b) external pure returns (bool) {
        return a == b;
    }

    function bytesToString(bytes calldata input) external pure returns (string memory) {
        return string(input);
    }

    function bytesToUint256(bytes calldata input) external pure returns (uint256) {
        require(input.length == 32, "EnsoShortcutsHelpers: input length is not 32 bytes");
        return uint256(bytes32(input));
    }

    function bytesToBytes32(bytes calldata input) external pure returns (bytes32) {
        return bytes32(input);
    }

    function bytes32ToUint256(bytes32 input) external pure returns (uint256) {
        return uint256(input);
    }

    function bytes32ToAddress(bytes32 input) external pure returns (address) {
        return address(uint160(uint256(input)));
    }

    function uint256ToInt256(uint256 value) public pure returns (int256) {
        require(value <= uint256(type(int256).max), "Value does not fit in an int256");
        return int256(value);
    }

    function int256ToUint256(int256 value) public pure returns (uint256) {
        require(value >= 0, "Value must be positive");
        return uint256(value);
    }
}

/// @title Reference of Enso's `EnsoShortcutsHelpers` VERSION 2 (the 2022-12
/// generation, `0x2b7f5C0ae63365eb033bbC2e67821d3a6650986f` on chains 1, 137
/// and 42161; verified source in smart-contract-sanctuary-ethereum). It has no
/// `check`.
contract ReferenceShortcutsHelpersV2 is ShortcutsHelpersFunctions {
    uint256 public constant VERSION = 2;
}

/// @title Reference of Enso's `EnsoShortcutsHelpers` VERSION 3 (the 2023
/// generation, `0x7E7d64D987cAb6EeD08A191C4C2459dAF2f8ED0B` on the other chains
/// Enso recorded it): version 2 and `check`.
contract ReferenceShortcutsHelpers is ShortcutsHelpersFunctions {
    uint256 public constant VERSION = 3;

    /// Reverts "Condition not met" unless `condition` holds.
    function check(bool condition) external pure {
        require(condition, "Condition not met");
    }
}

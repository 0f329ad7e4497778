// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reference of Enso's deployed `EnsoShortcutsHelpers` (VERSION 3, the
/// 2023 generation at `0x7E7d64D987cAb6EeD08A191C4C2459dAF2f8ED0B` on every
/// chain Enso recorded it).
/// @notice The same functions with the same results and reverts; written
/// here from the verified source's interface.
contract ReferenceShortcutsHelpers {
    uint256 public constant VERSION = 3;

    function getBalance(address balanceAddress) external view returns (uint256 balance) {
        balance = balanceAddress.balance;
    }

    function getBlockTimestamp() external view returns (uint256 timestamp) {
        timestamp = block.timestamp;
    }

    /// Reverts "Condition not met" unless `condition` holds.
    function check(bool condition) external pure {
        require(condition, "Condition not met");
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

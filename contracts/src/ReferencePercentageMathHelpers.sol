// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reference of Enso's deployed `PercentageMathHelpers` (VERSION 1;
/// Ethereum `0x7CA714435CceCdb4969A66Ed72CAf8b7A8241B14`, and the 2023
/// generation `0xD0aF6F692bFa10d6a535A3A321Dc8377F4EeEF12`).
/// @notice The same functions with the same results and reverts, written
/// here from the verified source's interface: percentages in basis points
/// (10 000 = 100 %), rounded half up, Aave's PercentageMath rules.
contract ReferencePercentageMathHelpers {
    uint256 public constant VERSION = 1;

    uint256 private constant PERCENTAGE_FACTOR = 1e4;
    uint256 private constant HALF_PERCENT = 0.5e4;

    /// `value * percentage / 10 000`, rounded half up; 0 when either is 0.
    function percentMul(uint256 value, uint256 percentage) external pure returns (uint256) {
        if (value == 0 || percentage == 0) return 0;
        require(value <= (type(uint256).max - HALF_PERCENT) / percentage, "multiplication overflow");
        return (value * percentage + HALF_PERCENT) / PERCENTAGE_FACTOR;
    }

    /// `value * 10 000 / percentage`, rounded half up.
    function percentDiv(uint256 value, uint256 percentage) external pure returns (uint256) {
        require(percentage != 0, "Division by 0");
        uint256 halfPercentage = percentage / 2;
        require(value <= (type(uint256).max - halfPercentage) / PERCENTAGE_FACTOR, "multiplication overflow");
        return (value * PERCENTAGE_FACTOR + halfPercentage) / percentage;
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reference of Compound V2's price oracle, as its comptroller reads
/// it.
/// @notice Compound's `PriceOracle` interface (`isPriceOracle`,
/// `getUnderlyingPrice`) and nothing more: the prices are the world's,
/// written into `_prices` (the deployed oracles' reporters and feeds move
/// theirs); 0 for a market without one. A price is the USD value of one
/// whole underlying token scaled by `1e36 / 10^decimals`.
contract ReferencePriceOracle {
    /// @notice Always true: Compound's marker.
    bool public constant isPriceOracle = true;

    mapping(address => uint256) private _prices;

    /// @notice The price of `cToken`'s underlying.
    function getUnderlyingPrice(address cToken) external view returns (uint256) {
        return _prices[cToken];
    }
}

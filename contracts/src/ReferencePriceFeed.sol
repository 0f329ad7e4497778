// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reference of a Chainlink price feed (an `EACAggregatorProxy`), as
/// Aave's oracle reads one for each reserve.
/// @notice The read side of Chainlink's `AggregatorV3Interface` plus the
/// legacy `latestAnswer`/`latestTimestamp`/`latestRound`, one round that
/// never moves: the answer and its decimals are set at deployment and
/// nothing can change them (the deployed proxy's owner-only functions,
/// `proposeAggregator` and friends, are left out). Written from the
/// interface Chainlink documents.
contract ReferencePriceFeed {
    int256 private immutable answer;
    uint8 public immutable decimals;
    uint256 private immutable updatedAt;
    string public description;

    /// The round every read reports.
    uint80 private constant ROUND = 1;

    constructor(int256 answer_, uint8 decimals_, string memory description_) {
        answer = answer_;
        decimals = decimals_;
        description = description_;
        updatedAt = block.timestamp;
    }

    function version() external pure returns (uint256) {
        return 4;
    }

    function latestAnswer() external view returns (int256) {
        return answer;
    }

    function latestTimestamp() external view returns (uint256) {
        return updatedAt;
    }

    function latestRound() external pure returns (uint256) {
        return ROUND;
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer_, uint256 startedAt, uint256 updatedAt_, uint80 answeredInRound)
    {
        return (ROUND, answer, updatedAt, updatedAt, ROUND);
    }
}

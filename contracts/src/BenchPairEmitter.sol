// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Emits a Uniswap V2 factory's `PairCreated` events for pairs that
/// a benchmark places directly (code and storage set on a local node).
/// @notice Only the node-chain benchmark (`benches/examples/node_chain.rs`)
/// uses it: placed at the V2 factory's address, it lets a local node hold
/// 100k pairs in minutes instead of 100k `createPair` transactions. The
/// world never places it.
contract BenchPairEmitter {
    event PairCreated(address indexed token0, address indexed token1, address pair, uint256 count);

    /// Emits one `PairCreated` per pair, numbering them from `first + 1`.
    function emitPairs(address[] calldata token0s, address[] calldata token1s, address[] calldata pairs, uint256 first)
        external
    {
        for (uint256 i = 0; i < pairs.length; i++) {
            emit PairCreated(token0s[i], token1s[i], pairs[i], first + i + 1);
        }
    }
}

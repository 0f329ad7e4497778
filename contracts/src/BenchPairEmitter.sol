// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Emits a Uniswap V2 factory's `PairCreated` events, or a V3
/// factory's `PoolCreated` events, for pools that a benchmark places
/// directly (code and storage set on a local node).
/// @notice Only the node-chain benchmark (`benches/examples/node_chain.rs`)
/// uses it: placed at a factory's address, it lets a local node hold 100k
/// pools in minutes instead of 100k `createPair`/`createPool` transactions.
/// The world never places it.
contract BenchPairEmitter {
    event PairCreated(address indexed token0, address indexed token1, address pair, uint256 count);
    event PoolCreated(
        address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool
    );
    event Mint(
        address sender,
        address indexed owner,
        int24 indexed tickLower,
        int24 indexed tickUpper,
        uint128 amount,
        uint256 amount0,
        uint256 amount1
    );

    /// Emits one `PairCreated` per pair, numbering them from `first + 1`.
    function emitPairs(address[] calldata token0s, address[] calldata token1s, address[] calldata pairs, uint256 first)
        external
    {
        for (uint256 i = 0; i < pairs.length; i++) {
            emit PairCreated(token0s[i], token1s[i], pairs[i], first + i + 1);
        }
    }

    /// Emits one `PoolCreated` per pool.
    function emitPools(
        address[] calldata token0s,
        address[] calldata token1s,
        uint24[] calldata fees,
        int24[] calldata spacings,
        address[] calldata pools
    ) external {
        for (uint256 i = 0; i < pools.length; i++) {
            emit PoolCreated(token0s[i], token1s[i], fees[i], spacings[i], pools[i]);
        }
    }

    /// Run at a V3 pool's address (the emitter's code placed there before
    /// the pool's own): emits the pool's `Mint` event for each position.
    function emitMints(int24[] calldata lowers, int24[] calldata uppers, uint128[] calldata amounts) external {
        for (uint256 i = 0; i < lowers.length; i++) {
            emit Mint(msg.sender, msg.sender, lowers[i], uppers[i], amounts[i], 0, 0);
        }
    }

    /// Has each of `pools` (holding the emitter's code) emit its `Mint`s.
    function mintAll(
        address[] calldata pools,
        int24[][] calldata lowers,
        int24[][] calldata uppers,
        uint128[][] calldata amounts
    ) external {
        for (uint256 i = 0; i < pools.length; i++) {
            BenchPairEmitter(pools[i]).emitMints(lowers[i], uppers[i], amounts[i]);
        }
    }
}

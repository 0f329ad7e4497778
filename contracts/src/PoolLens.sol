// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IV2PairState {
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);
}

interface IV3PoolState {
    function slot0()
        external
        view
        returns (uint160 sqrtPriceX96, int24 tick, uint16, uint16, uint16, uint8, bool);
    function liquidity() external view returns (uint128);
    function tickBitmap(int16 wordPosition) external view returns (uint256);
    function ticks(int24 tick)
        external
        view
        returns (uint128 liquidityGross, int128 liquidityNet, uint256, uint256, int56, uint160, uint32, bool);
}

/// @title Reads the state of many pools in one `eth_call`, without being deployed.
/// @notice The RPC feed sends this contract's initcode (plus the constructor
/// arguments) as the `data` of an `eth_call` with no `to`, pinned to one
/// block: the constructor reads every pool and returns the results as the
/// call's output, so the whole batch is one consistent view of that block.
/// Nothing is ever deployed.
///
/// A V3 pool's initialized ticks are found by scanning its tick bitmap over
/// the words `[fromWord, toWord]` (kind 1); the feed splits a pool with a
/// small tick spacing into several requests so that no call runs out of
/// gas. Or, when the feed knows every tick a position ever started or ended
/// at (the pool's `Mint` events since its creation, kind 2), only those
/// ticks are read, and the ones initialized answered: one tick read instead
/// of hundreds of bitmap words.
contract PoolLens {
    struct Request {
        address pool;
        /// 0: a Uniswap V2 pair; 1: a Uniswap V3 pool, by its bitmap; 2: a
        /// Uniswap V3 pool, at `ticks`.
        uint8 kind;
        int16 fromWord;
        int16 toWord;
        int24 tickSpacing;
        int24[] ticks;
    }

    struct Tick {
        int24 index;
        uint128 liquidityGross;
        int128 liquidityNet;
    }

    /// For a V2 pair: `reserve0`, `reserve1`; the rest is zero or empty.
    struct Result {
        uint256 reserve0;
        uint256 reserve1;
        uint160 sqrtPriceX96;
        int24 tick;
        uint128 liquidity;
        Tick[] ticks;
    }

    constructor(Request[] memory requests) {
        Result[] memory results = new Result[](requests.length);
        for (uint256 i = 0; i < requests.length; i++) {
            Request memory r = requests[i];
            if (r.kind == 0) {
                (uint112 a, uint112 b,) = IV2PairState(r.pool).getReserves();
                results[i].reserve0 = a;
                results[i].reserve1 = b;
            } else if (r.kind == 1) {
                results[i] = _v3(r);
            } else {
                results[i] = _v3At(r);
            }
        }
        bytes memory out = abi.encode(results);
        assembly {
            return(add(out, 32), mload(out))
        }
    }

    function _v3(Request memory r) private view returns (Result memory res) {
        IV3PoolState pool = IV3PoolState(r.pool);
        (res.sqrtPriceX96, res.tick,,,,,) = pool.slot0();
        res.liquidity = pool.liquidity();
        // First count, then fill: memory arrays cannot grow.
        uint256 n = 0;
        uint256[] memory words = new uint256[](uint256(int256(r.toWord) - int256(r.fromWord) + 1));
        for (int256 w = r.fromWord; w <= r.toWord; w++) {
            uint256 bits = pool.tickBitmap(int16(w));
            words[uint256(w - r.fromWord)] = bits;
            for (uint256 b = bits; b != 0; b &= b - 1) n++;
        }
        res.ticks = new Tick[](n);
        uint256 k = 0;
        for (int256 w = r.fromWord; w <= r.toWord; w++) {
            uint256 bits = words[uint256(w - r.fromWord)];
            for (uint256 bit = 0; bits != 0; bit++) {
                if (bits & 1 == 1) {
                    int24 t = int24((w * 256 + int256(bit)) * int256(r.tickSpacing));
                    (uint128 gross, int128 net,,,,,,) = pool.ticks(t);
                    res.ticks[k++] = Tick(t, gross, net);
                }
                bits >>= 1;
            }
        }
    }

    function _v3At(Request memory r) private view returns (Result memory res) {
        IV3PoolState pool = IV3PoolState(r.pool);
        (res.sqrtPriceX96, res.tick,,,,,) = pool.slot0();
        res.liquidity = pool.liquidity();
        Tick[] memory found = new Tick[](r.ticks.length);
        uint256 n = 0;
        for (uint256 k = 0; k < r.ticks.length; k++) {
            (uint128 gross, int128 net,,,,,,) = pool.ticks(r.ticks[k]);
            if (gross != 0) found[n++] = Tick(r.ticks[k], gross, net);
        }
        assembly {
            mstore(found, n)
        }
        res.ticks = found;
    }
}

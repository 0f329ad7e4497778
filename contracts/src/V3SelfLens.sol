// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reads Uniswap V3 pools from their own storage, without being deployed.
/// @notice The RPC feed lends this runtime code, through an `eth_call`'s
/// state override set, to the call's target (the coordinator) and to every
/// pool of the batch. The coordinator asks each pool, which (running this
/// code over its own storage) reads its state with one `SLOAD` a value:
/// `slot0`, `liquidity`, and the first word of each tick (`liquidityGross`,
/// `liquidityNet`), found by scanning its bitmap or at the ticks asked. A
/// getter call costs a call and four slots a tick (`PoolLens`); this costs
/// one slot. It assumes the deployed Uniswap V3 pool's storage layout
/// (slots 0, 4, 5 and 6), which the feed checks on a few pools of each
/// factory against `PoolLens` before it reads the rest this way.
contract V3SelfLens {
    /// The same as `PoolLens.Request` (kind 1: by the bitmap, kind 2: at
    /// `ticks`).
    struct Request {
        address pool;
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

    /// The same as `PoolLens.Result`.
    struct Result {
        uint256 reserve0;
        uint256 reserve1;
        uint160 sqrtPriceX96;
        int24 tick;
        uint128 liquidity;
        Tick[] ticks;
    }

    uint256 private constant TICKS_SLOT = 5;
    uint256 private constant BITMAP_SLOT = 6;

    /// At the coordinator: every request, each read by its pool.
    function readAll(Request[] calldata requests) external view returns (Result[] memory results) {
        results = new Result[](requests.length);
        for (uint256 i = 0; i < requests.length; i++) {
            results[i] = V3SelfLens(requests[i].pool).readSelf(requests[i]);
        }
    }

    /// At a pool: its own state.
    function readSelf(Request calldata r) external view returns (Result memory res) {
        uint256 s0 = _load(0);
        res.sqrtPriceX96 = uint160(s0);
        res.tick = int24(uint24(s0 >> 160));
        res.liquidity = uint128(_load(4));
        if (r.kind == 2) {
            Tick[] memory found = new Tick[](r.ticks.length);
            uint256 n = 0;
            for (uint256 k = 0; k < r.ticks.length; k++) {
                uint256 info = _load(_slotOf(int256(r.ticks[k]), TICKS_SLOT));
                if (uint128(info) != 0) found[n++] = Tick(r.ticks[k], uint128(info), int128(uint128(info >> 128)));
            }
            assembly {
                mstore(found, n)
            }
            res.ticks = found;
            return res;
        }
        // First count, then fill: memory arrays cannot grow.
        uint256 count = 0;
        uint256[] memory words = new uint256[](uint256(int256(r.toWord) - int256(r.fromWord) + 1));
        for (int256 w = r.fromWord; w <= r.toWord; w++) {
            uint256 bits = _load(_slotOf(w, BITMAP_SLOT));
            words[uint256(w - r.fromWord)] = bits;
            for (uint256 b = bits; b != 0; b &= b - 1) count++;
        }
        res.ticks = new Tick[](count);
        uint256 j = 0;
        for (int256 w = r.fromWord; w <= r.toWord; w++) {
            uint256 bits = words[uint256(w - r.fromWord)];
            for (uint256 bit = 0; bits != 0; bit++) {
                if (bits & 1 == 1) {
                    int24 t = int24((w * 256 + int256(bit)) * int256(r.tickSpacing));
                    uint256 info = _load(_slotOf(int256(t), TICKS_SLOT));
                    res.ticks[j++] = Tick(t, uint128(info), int128(uint128(info >> 128)));
                }
                bits >>= 1;
            }
        }
    }

    /// The slot of `mapping[key]` for a mapping at `slot` (a signed key,
    /// sign-extended as Solidity hashes it).
    function _slotOf(int256 key, uint256 slot) private pure returns (uint256) {
        return uint256(keccak256(abi.encode(key, slot)));
    }

    function _load(uint256 slot) private view returns (uint256 v) {
        assembly {
            v := sload(slot)
        }
    }
}

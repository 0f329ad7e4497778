// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reads the state of many pools in one `eth_call`, without being deployed.
/// @notice The RPC feed sends this contract's initcode, followed by a packed
/// list of requests and that list's length in bytes (one 32-byte word), as
/// the `data` of an `eth_call` with no `to`, pinned to one block: the
/// constructor reads every pool through its own getters and returns the
/// packed results as the call's output, so the whole batch is one
/// consistent view of that block. Nothing is ever deployed.
///
/// Requests and results are packed bytes, not ABI: a node that traces every
/// step of an `eth_call` (Hardhat does) spends its time in the steps, and
/// ABI decoding and encoding a batch costs more steps than the getters it
/// calls. Every request starts with its kind (1 byte) and the pool
/// (20 bytes), and so does every result (its kind, then what it read):
///
/// - kind 0, a Uniswap V2 pair: nothing more. Result: the kind (1 byte),
///   `reserve0`, `reserve1` (14 bytes each).
/// - kind 1, a Uniswap V3 pool by its tick bitmap: `fromWord`, `toWord`
///   (2 bytes each, signed), `tickSpacing` (3 bytes, signed); every
///   initialized tick of those words is read.
/// - kind 2, a Uniswap V3 pool at listed ticks: their count `n` (1 byte, so
///   at most 255 a request),
///   then `n` ticks (3 bytes each, signed); the initialized ones are read
///   (the feed lists every tick the pool's `Mint` events named).
///
/// A V3 result: the kind (1 byte), `sqrtPriceX96` (20), `tick` (3),
/// `liquidity` (16), the count `m` of ticks found (2), then per tick its index (3), `liquidityGross` (16) and `liquidityNet`
/// (16). A getter that reverts or answers short makes the whole call
/// revert: the feed halves the batch to find the pool.
contract PoolLens {
    constructor() {
        assembly {
            // Calls `selector()` on `target` into 0x80; reverts unless it
            // answers at least `size` bytes.
            function call0(target, selector, size) {
                mstore(0x80, shl(224, selector))
                if iszero(staticcall(gas(), target, 0x80, 4, 0x80, size)) { revert(0, 0) }
                if lt(returndatasize(), size) { revert(0, 0) }
            }

            // Every initialized tick of the words `head` names (fromWord,
            // toWord, tickSpacing, packed at its top), appended at `at`.
            function scan(target, head, at) -> next, count {
                next := at
                let spacing := signextend(2, and(shr(200, head), 0xffffff))
                let last := signextend(1, and(shr(224, head), 0xffff))
                for { let w := signextend(1, shr(240, head)) } iszero(sgt(w, last)) { w := add(w, 1) } {
                    // tickBitmap(int16)
                    mstore(0x80, shl(224, 0x5339c296))
                    mstore(0x84, w)
                    if iszero(staticcall(gas(), target, 0x80, 36, 0x80, 32)) { revert(0, 0) }
                    if lt(returndatasize(), 32) { revert(0, 0) }
                    let bits := mload(0x80)
                    for { let bit := 0 } bits { bit := add(bit, 1) } {
                        if and(bits, 1) {
                            next := readTick(target, mul(add(mul(w, 256), bit), spacing), next)
                            count := add(count, 1)
                        }
                        bits := shr(1, bits)
                    }
                }
            }

            // The initialized ones of the ticks listed at `p` (a count,
            // then 3 bytes a tick), appended at `at`; where the list ends.
            function listed(target, p, at) -> nextP, next, count {
                next := at
                let n := byte(0, mload(p))
                nextP := add(p, 1)
                for { let k := 0 } lt(k, n) { k := add(k, 1) } {
                    let t := signextend(2, shr(232, mload(nextP)))
                    nextP := add(nextP, 3)
                    let after := readTick(target, t, next)
                    if gt(after, next) { count := add(count, 1) }
                    next := after
                }
            }

            // ticks(int24): appends the tick at `at` if it is initialized
            // (its gross liquidity is not zero); the new end.
            function readTick(target, index, at) -> next {
                mstore(0x80, shl(224, 0xf30dba93))
                mstore(0x84, index)
                if iszero(staticcall(gas(), target, 0x80, 36, 0x80, 64)) { revert(0, 0) }
                if lt(returndatasize(), 64) { revert(0, 0) }
                next := at
                let gross := mload(0x80)
                if gross {
                    let net := mload(0xa0)
                    mstore(at, shl(232, index))
                    mstore(add(at, 3), shl(128, gross))
                    mstore(add(at, 19), shl(128, net))
                    next := add(at, 35)
                }
            }

            // The requests' length is the last word of the initcode; the
            // requests come just before it and are copied to 0x200. A
            // getter's call and answer use 0x80 to 0x200.
            codecopy(0, sub(codesize(), 32), 32)
            codecopy(0x200, sub(sub(codesize(), 32), mload(0)), mload(0))
            let end := add(0x200, mload(0))
            let out := add(end, 32)
            let o := out
            for { let p := 0x200 } lt(p, end) {} {
                let kind := byte(0, mload(p))
                let pool := shr(96, mload(add(p, 1)))
                p := add(p, 21)
                mstore8(o, kind)
                o := add(o, 1)
                switch kind
                case 0 {
                    // getReserves()
                    call0(pool, 0x0902f1ac, 64)
                    let r1 := mload(0xa0)
                    mstore(o, shl(144, mload(0x80)))
                    mstore(add(o, 14), shl(144, r1))
                    o := add(o, 28)
                }
                default {
                    // slot0(): the price and the tick; liquidity().
                    call0(pool, 0x3850c7bd, 64)
                    let tick := mload(0xa0)
                    mstore(o, shl(96, mload(0x80)))
                    mstore(add(o, 20), shl(232, tick))
                    call0(pool, 0x1a686502, 32)
                    mstore(add(o, 23), shl(128, mload(0x80)))
                    let countAt := add(o, 39)
                    let found := 0
                    switch kind
                    case 1 {
                        o, found := scan(pool, mload(p), add(o, 41))
                        p := add(p, 7)
                    }
                    default {
                        p, o, found := listed(pool, p, add(o, 41))
                    }
                    mstore8(countAt, shr(8, found))
                    mstore8(add(countAt, 1), found)
                }
            }
            return(out, sub(o, out))
        }
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Makes many calls in one `eth_call`, without being deployed.
/// @notice The RPC feed sends this contract's initcode, followed by a packed
/// list of calls and that list's length in bytes (one 32-byte word), as the
/// `data` of an `eth_call` with no `to`, pinned to one block: the
/// constructor makes every call and returns each one's success and return
/// data, so the whole batch is one consistent view of that block. Nothing
/// is ever deployed.
///
/// A call is its target (20 bytes), its data's length (2) and its data. An
/// answer is whether it succeeded on an account with code and answered at
/// most 65,535 bytes (1 byte), its return data's length (2) and its return
/// data. Packed bytes, not ABI: a
/// node that traces every step of an `eth_call` (Hardhat does) spends its
/// time in the steps, and ABI decoding and encoding cost more of them than
/// the getters themselves.
///
/// The calls are plain `call`s, not `staticcall`s: a getter that accrues
/// interest first (a Compound cToken's `exchangeRateCurrent`) answers what a
/// transaction in that block would see, and the `eth_call` throws every
/// write away. A call that reverts is reported, not fatal: one pool without
/// code at its address leaves the others readable.
contract StateLens {
    constructor() {
        assembly {
            // The calls' length is the last word of the initcode; the calls
            // come just before it and are copied to 0x80.
            codecopy(0, sub(codesize(), 32), 32)
            codecopy(0x80, sub(sub(codesize(), 32), mload(0)), mload(0))
            let end := add(0x80, mload(0))
            let out := add(end, 32)
            let o := out
            for { let p := 0x80 } lt(p, end) {} {
                let target := shr(96, mload(p))
                let size := shr(240, mload(add(p, 20)))
                let ok := call(gas(), target, 0, add(p, 22), size, 0, 0)
                p := add(add(p, 22), size)
                let answered := returndatasize()
                // An answer whose length does not fit two bytes: failed.
                if gt(answered, 0xffff) {
                    answered := 0
                    ok := 0
                }
                mstore8(o, and(ok, gt(extcodesize(target), 0)))
                mstore8(add(o, 1), shr(8, answered))
                mstore8(add(o, 2), answered)
                returndatacopy(add(o, 3), 0, answered)
                o := add(add(o, 3), answered)
            }
            return(out, sub(o, out))
        }
    }
}

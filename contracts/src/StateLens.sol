// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Makes many calls in one `eth_call`, without being deployed.
/// @notice The RPC feed sends this contract's initcode (plus the constructor
/// arguments) as the `data` of an `eth_call` with no `to`, pinned to one
/// block: the constructor makes every call and returns each one's success
/// and return data, so the whole batch is one consistent view of that block.
/// Nothing is ever deployed.
///
/// The calls are plain `call`s, not `staticcall`s: a getter that accrues
/// interest first (a Compound cToken's `exchangeRateCurrent`) answers what a
/// transaction in that block would see, and the `eth_call` throws every
/// write away. A call that reverts is reported, not fatal: one pool without
/// code at its address leaves the others readable.
contract StateLens {
    struct Call {
        address target;
        bytes data;
    }

    struct Answer {
        bool ok;
        bytes data;
    }

    constructor(Call[] memory calls) {
        Answer[] memory answers = new Answer[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory data) = calls[i].target.call(calls[i].data);
            // A call to an address without code "succeeds" with no data; no
            // getter answers that way.
            answers[i] = Answer(ok && calls[i].target.code.length > 0, data);
        }
        bytes memory out = abi.encode(answers);
        assembly {
            return(add(out, 32), mload(out))
        }
    }
}

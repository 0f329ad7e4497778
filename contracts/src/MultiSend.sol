// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// Runs packed records `operation(1) ‖ to(20) ‖ value(32) ‖ length(32) ‖
/// data`, as the deployed `executeMultiSend` of Enso's wallets and
/// receivers does: operation 0 is a call (its revert is passed on), any
/// other operation reverts. Like the deployed loop, a record is read while
/// its start lies more than 32 bytes before the end. Written here.
function runMultiSend(bytes memory transactions) {
    uint256 offset;
    while (offset + 32 < transactions.length) {
        uint8 operation = uint8(transactions[offset]);
        address to;
        uint256 value;
        uint256 length;
        bytes memory data;
        assembly ("memory-safe") {
            let record := add(add(transactions, 32), offset)
            to := shr(96, mload(add(record, 1)))
            value := mload(add(record, 21))
            length := mload(add(record, 53))
        }
        data = new bytes(length);
        for (uint256 k; k < length; ++k) {
            data[k] = transactions[offset + 85 + k];
        }
        if (operation != 0) revert();
        (bool ok, bytes memory r) = to.call{value: value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(r, 32), mload(r))
            }
        }
        offset += 85 + length;
    }
}

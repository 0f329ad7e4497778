// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// What a transfer probe (`TransferProbe`, `HeldProbe`) answers per token.
/// `ok`: the tokens were paid and measured; then `asked` was paid out,
/// `received` arrived, `sent` was sent on and `arrived` reached the fresh
/// address. Else `reason` holds the revert data of the attempt.
struct ProbeResult {
    bool ok;
    uint256 asked;
    uint256 received;
    uint256 sent;
    uint256 arrived;
    bytes reason;
}

/// How a probe reports its numbers: it reverts with them, so nothing it did
/// stays.
error Measured(uint256 asked, uint256 received, uint256 sent, uint256 arrived);

/// The result a probe's revert data gives: its four numbers, or the data as
/// the reason.
function resultOf(bytes memory reason) pure returns (ProbeResult memory) {
    if (reason.length != 132 || bytes4(reason) != Measured.selector) {
        return ProbeResult(false, 0, 0, 0, 0, reason);
    }
    bytes memory body = new bytes(128);
    for (uint256 k = 0; k < 128; k++) {
        body[k] = reason[k + 4];
    }
    (uint256 asked, uint256 received, uint256 sent, uint256 arrived) =
        abi.decode(body, (uint256, uint256, uint256, uint256));
    return ProbeResult(true, asked, received, sent, arrived, "");
}

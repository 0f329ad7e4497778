// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {Measured, ProbeResult, resultOf} from "./ProbeResult.sol";

interface IHeldToken {
    function balanceOf(address who) external view returns (uint256);
}

/// @title Finds whether tokens move the amount asked, out of pools that lend nothing.
/// @notice Never deployed. A Curve pool or the Balancer Vault has no flash
/// swap to borrow through (`TransferProbe`'s way), so the RPC feed lends
/// this contract's runtime code to the accounts involved for one
/// `eth_call`, through the call's state override set: the coordinator (the
/// call's `to`), a relay, and every holder of a token to probe. The holder,
/// running this code, sends a thousandth of its balance to the relay; the
/// relay sends what arrived on to a fresh address. The token's own storage
/// is untouched, so its `transfer` runs as it would for the holder. Each
/// probe reverts with its four numbers, and nothing of the block changes.
contract HeldProbe {
    struct Request {
        address token;
        address holder;
    }

    error NothingToBorrow();
    error TransferRefused(bytes data);

    /// The relay: an address no one holds a key to.
    address public constant RELAY = address(uint160(uint256(keccak256("switchyard held probe relay"))));
    /// Where the relay sends on: the same fresh address `TransferProbe` uses.
    address public constant ONWARD = address(uint160(uint256(keccak256("switchyard transfer probe"))));

    /// Probes every request, each on its own (a revert undoes it).
    function probeAll(Request[] calldata requests) external returns (ProbeResult[] memory results) {
        results = new ProbeResult[](requests.length);
        for (uint256 i = 0; i < requests.length; i++) {
            try this.probeOne(requests[i].token, requests[i].holder) {
                results[i].reason = "the probe did not measure";
            } catch (bytes memory reason) {
                results[i] = resultOf(reason);
            }
        }
    }

    /// One probe; always reverts.
    function probeOne(address token, address holder) external {
        IHeldToken t = IHeldToken(token);
        uint256 asked = t.balanceOf(holder) / 1000;
        if (asked == 0) revert NothingToBorrow();
        uint256 relayBefore = t.balanceOf(RELAY);
        HeldProbe(payable(holder)).pass(token, RELAY, asked);
        uint256 received = t.balanceOf(RELAY) - relayBefore;
        uint256 onwardBefore = t.balanceOf(ONWARD);
        HeldProbe(payable(RELAY)).pass(token, ONWARD, received);
        uint256 arrived = t.balanceOf(ONWARD) - onwardBefore;
        revert Measured(asked, received, received, arrived);
    }

    /// `token.transfer(to, amount)` from this account; a token answering
    /// nothing (USDT) is accepted, one answering `false` is refused.
    function pass(address token, address to, uint256 amount) external {
        (bool ok, bytes memory data) = token.call(abi.encodeWithSignature("transfer(address,uint256)", to, amount));
        if (!ok || (data.length > 0 && (data.length != 32 || abi.decode(data, (uint256)) != 1))) {
            revert TransferRefused(data);
        }
    }

    /// A token that calls its holder back (hooks) finds code that accepts.
    fallback() external payable {}

    receive() external payable {}
}

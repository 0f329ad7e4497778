// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reference of Enso's deployed `BalancerHelpers` (VERSION 2; the
/// same CREATE2 address `0x4b6959658aBAa91121bEd0bf07fd35080276e47e` on
/// every chain its deployment records list).
/// @notice Exactly the deployed interface, written here from its published
/// ABI: the `userData` of a Balancer V2 join or exit, ABI-encoded from
/// values a program computes at run time (a weiroll call cannot splice a
/// runtime word into `bytes`). The later helper generations' functions are
/// not deployed at that address and are not here.
contract ReferenceBalancerHelpers {
    uint256 public constant VERSION = 2;

    /// `abi.encode(joinKind, amounts, minimumBPT)`: a join of
    /// `EXACT_TOKENS_IN_FOR_BPT_OUT` when `joinKind` is 1.
    function encodeDataForJoinKindOne(uint256 joinKind, uint256[] memory amounts, uint256 minimumBPT)
        public
        pure
        returns (bytes memory)
    {
        return abi.encode(joinKind, amounts, minimumBPT);
    }

    /// `abi.encode(exitKind, amount, tokenIndex)`: an exit of
    /// `EXACT_BPT_IN_FOR_ONE_TOKEN_OUT` when `exitKind` is 0.
    function encodeDataForExitKindZero(uint256 exitKind, uint256 amount, uint256 tokenIndex)
        public
        pure
        returns (bytes memory)
    {
        return abi.encode(exitKind, amount, tokenIndex);
    }
}

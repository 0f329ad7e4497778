// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reference of Enso's deployed `MathHelpers` (VERSION 1; Ethereum
/// `0xC02BcD14bad74Ad54453cD34a1029cbaCc6923FB`).
/// @notice The same functions with the same results and reverts (checked
/// 0.8 arithmetic: `add`/`sub`/`mul` panic on overflow, `div`/`mod` on a
/// zero divisor); written here from the verified source's interface.
contract ReferenceMathHelpers {
    uint256 public constant VERSION = 1;

    function max(uint256 a, uint256 b) external pure returns (uint256) {
        return a < b ? b : a;
    }

    function min(uint256 a, uint256 b) external pure returns (uint256) {
        return b <= a ? b : a;
    }

    /// The mean, rounded down, without overflow.
    function average(uint256 a, uint256 b) external pure returns (uint256) {
        return a / 2 + b / 2 + (a % 2 + b % 2) / 2;
    }

    function add(uint256 a, uint256 b) external pure returns (uint256) {
        return a + b;
    }

    function sub(uint256 a, uint256 b) external pure returns (uint256) {
        return a - b;
    }

    function mul(uint256 a, uint256 b) external pure returns (uint256) {
        return a * b;
    }

    function div(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    function mod(uint256 a, uint256 b) external pure returns (uint256) {
        return a % b;
    }

    /// `method(a, b)` on this contract when `condition` holds and the call
    /// succeeds; `a` otherwise.
    function conditional(bool condition, bytes4 method, uint256 a, uint256 b) external view returns (uint256) {
        if (!condition) return a;
        (bool ok, bytes memory ret) = address(this).staticcall(abi.encodeWithSelector(method, a, b));
        return ok ? abi.decode(ret, (uint256)) : a;
    }
}

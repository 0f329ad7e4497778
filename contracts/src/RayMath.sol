// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

// Ray (1e27) fixed-point helpers of the Aave V3 reference fixtures, written
// as free functions so that they compile into the contracts that import them
// and produce no artifact of their own.
//
// Both round half up, as Aave V3 up to v3.4 does (v3.5 rounds the scaled
// amounts of mints down and of burns up instead), and both revert on
// overflow through checked arithmetic, as the kernel's `ray_mul`/`ray_div`
// (`kernel/src/amm/vault.rs`) return `InvalidState`.

uint256 constant RAY = 1e27;
uint256 constant HALF_RAY = RAY / 2;

/// @notice `a * b / RAY`, rounded half up: `(a * b + RAY / 2) / RAY`.
function rayMul(uint256 a, uint256 b) pure returns (uint256) {
    return (a * b + HALF_RAY) / RAY;
}

/// @notice `a * RAY / b`, rounded half up: `(a * RAY + b / 2) / b`. Reverts
/// (division by zero) when `b` is zero.
function rayDiv(uint256 a, uint256 b) pure returns (uint256) {
    return (a * RAY + b / 2) / b;
}

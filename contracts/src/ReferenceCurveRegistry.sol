// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title Reference Curve pool list for node tests.
/// @notice The three getters of Curve's registry (and, for the first two, of
/// its factories) that Switchyard's RPC feed reads to find StableSwap pools:
/// `pool_count()`, `pool_list(i)` and `get_lp_token(pool)`, with the
/// deployed contract's selectors and answers (`pool_list` answers the zero
/// address past the end; `get_lp_token` answers it for a pool not listed).
///
/// Only getters: the deployed registry's writers are admin-only functions
/// whose signatures changed between its versions, so none is given here.
/// The constructor lists the first pools; a test lists more by writing the
/// storage, as the registry's history would have left it:
///
/// - slot 0: `pool_list`, a mapping from index to pool;
/// - slot 1: `pool_count`;
/// - slot 2: `get_lp_token`, a mapping from pool to LP token.
contract ReferenceCurveRegistry {
    mapping(uint256 => address) public pool_list;
    uint256 public pool_count;
    mapping(address => address) public get_lp_token;

    error LengthMismatch();

    /// @param pools The pools listed first, in order.
    /// @param lpTokens Each pool's LP token (the pool itself for a pool that
    /// is its own token).
    constructor(address[] memory pools, address[] memory lpTokens) {
        if (pools.length != lpTokens.length) revert LengthMismatch();
        for (uint256 i = 0; i < pools.length; ++i) {
            pool_list[i] = pools[i];
            get_lp_token[pools[i]] = lpTokens[i];
        }
        pool_count = pools.length;
    }
}

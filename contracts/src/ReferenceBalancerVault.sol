// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {WeightedMath} from "./WeightedMath.sol";

interface IBalancerToken {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference Balancer V2 Vault, swap path of weighted pools, for
/// differential tests.
/// @notice The public Vault interface for single swaps (`swap`,
/// `getPoolTokens`, `getPool`, `Swap`) over weighted pools that the deployer
/// registers with their balances and parameters (`registerPool`). Each
/// pool's address is the first 20 bytes of its id and holds no code: its
/// math (`WeightedMath`, integer for integer Switchyard's kernel) runs
/// inside the Vault.
///
/// An exact-in swap (kind 0, `GIVEN_IN`) pays
/// `WeightedMath.outGivenIn` with the pool's pow rule: the fee comes off the
/// amount in (rounded up), balances and amount are upscaled to 18 decimals,
/// the output rounds down. The pool's balance of the input token grows by
/// the whole amount, fee included; its balance of the output token shrinks
/// by the output. A swap that buys nothing pays 0, as the Vault does.
///
/// Simplifications: only `GIVEN_IN`; no batch swaps, joins, exits, internal
/// balances, relayers, native ETH or protocol fees; `funds.sender` must be
/// the caller; tokens are pulled with `transferFrom` and paid with
/// `transfer`.
contract ReferenceBalancerVault {
    struct SingleSwap {
        bytes32 poolId;
        uint8 kind;
        address assetIn;
        address assetOut;
        uint256 amount;
        bytes userData;
    }

    struct FundManagement {
        address sender;
        bool fromInternalBalance;
        address recipient;
        bool toInternalBalance;
    }

    struct Pool {
        address[] tokens;
        uint8[] decimals;
        uint256[] balances;
        uint256[] weights;
        uint256 swapFee;
        uint256 lastChangeBlock;
        uint8 specialization;
        uint8 powRule;
        bool registered;
    }

    /// `PoolSpecialization.MINIMAL_SWAP_INFO` and `TWO_TOKEN`.
    uint8 private constant MINIMAL_SWAP_INFO = 1;
    uint8 private constant TWO_TOKEN = 2;
    uint256 private constant MAX_TOKENS = 8;
    uint256 private constant MIN_WEIGHT = 0.01e18;
    uint256 private constant MIN_SWAP_FEE = 1e12;
    uint256 private constant MAX_SWAP_FEE = 0.1e18;

    /// Who deployed the Vault: the only caller of `registerPool`.
    address public immutable deployer;

    mapping(bytes32 => Pool) private _pools;
    bool private _entered;

    event PoolRegistered(bytes32 indexed poolId, address indexed poolAddress, uint8 specialization);
    event Swap(
        bytes32 indexed poolId, address indexed tokenIn, address indexed tokenOut, uint256 amountIn, uint256 amountOut
    );

    error NotDeployer();
    error PoolAlreadyRegistered(bytes32 poolId);
    error PoolNotRegistered(bytes32 poolId);
    error BadPoolId(bytes32 poolId);
    error BadTokenCount(uint256 n);
    error LengthMismatch();
    error BadToken(uint256 index);
    error BadWeights();
    error BadSwapFee(uint256 swapFee);
    error BadPowRule(uint8 powRule);
    error SwapDeadline(uint256 deadline);
    error UnsupportedSwapKind(uint8 kind);
    error InternalBalanceNotSupported();
    error NativeNotSupported();
    error SenderNotCaller(address sender);
    error ZeroAmount();
    error SameToken();
    error TokenNotRegistered(address token);
    error SwapLimit(uint256 amountOut, uint256 limit);
    error TransferFailed(address token);
    error Reentrancy();

    constructor() {
        deployer = msg.sender;
    }

    // ---- the fixture world ----

    /// Registers a weighted pool. Only the deployer.
    /// @param poolId Balancer's layout: pool address (20 bytes), then the
    /// specialization (2 bytes: 1 `MINIMAL_SWAP_INFO`, or 2 `TWO_TOKEN` for
    /// exactly two tokens), then a nonce (10 bytes).
    /// @param tokens 2 to 8 distinct ERC-20 tokens (no zero address).
    /// @param decimals Their decimals, at most 18.
    /// @param balances Their balances, raw units (the tokens themselves
    /// must be minted to the Vault separately).
    /// @param normalizedWeights 18-decimal weights, each at least 0.01e18,
    /// summing to exactly 1e18.
    /// @param swapFeePercentage 18-decimal fee, 1e12 (0.0001%) to 1e17 (10%).
    /// @param powRule 0: the `powUp` of the first 2021 deployments
    /// (`WeightedPool` and `WeightedPool2Tokens` v1: always `LogExpMath`);
    /// 1: the current one (exponents 1, 2 and 4 by multiplication).
    function registerPool(
        bytes32 poolId,
        address[] memory tokens,
        uint8[] memory decimals,
        uint256[] memory balances,
        uint256[] memory normalizedWeights,
        uint256 swapFeePercentage,
        uint8 powRule
    ) external {
        if (msg.sender != deployer) revert NotDeployer();
        Pool storage p = _pools[poolId];
        if (p.registered) revert PoolAlreadyRegistered(poolId);
        uint256 n = tokens.length;
        uint8 specialization = _specialization(poolId, n);
        if (n < 2 || n > MAX_TOKENS) revert BadTokenCount(n);
        if (decimals.length != n || balances.length != n || normalizedWeights.length != n) revert LengthMismatch();
        _checkTokens(tokens, decimals);
        _checkWeights(normalizedWeights);
        if (swapFeePercentage < MIN_SWAP_FEE || swapFeePercentage > MAX_SWAP_FEE) {
            revert BadSwapFee(swapFeePercentage);
        }
        if (powRule != WeightedMath.POW_RULE_FIRST && powRule != WeightedMath.POW_RULE_CURRENT) {
            revert BadPowRule(powRule);
        }
        p.tokens = tokens;
        p.decimals = decimals;
        p.balances = balances;
        p.weights = normalizedWeights;
        p.swapFee = swapFeePercentage;
        p.lastChangeBlock = block.number;
        p.specialization = specialization;
        p.powRule = powRule;
        p.registered = true;
        emit PoolRegistered(poolId, address(bytes20(poolId)), specialization);
    }

    /// The specialization a pool id carries, checked: 1, or 2 with two
    /// tokens; and a non-zero pool address.
    function _specialization(bytes32 poolId, uint256 n) private pure returns (uint8) {
        uint256 s = uint256(poolId) >> 80 & 0xffff;
        if (address(bytes20(poolId)) == address(0) || !(s == MINIMAL_SWAP_INFO || (s == TWO_TOKEN && n == 2))) {
            revert BadPoolId(poolId);
        }
        return uint8(s);
    }

    function _checkTokens(address[] memory tokens, uint8[] memory decimals) private pure {
        for (uint256 k = 0; k < tokens.length; ++k) {
            if (tokens[k] == address(0) || decimals[k] > 18) revert BadToken(k);
            for (uint256 m = 0; m < k; ++m) {
                if (tokens[m] == tokens[k]) revert BadToken(k);
            }
        }
    }

    function _checkWeights(uint256[] memory weights) private pure {
        uint256 sum = 0;
        for (uint256 k = 0; k < weights.length; ++k) {
            if (weights[k] < MIN_WEIGHT) revert BadWeights();
            sum += weights[k];
        }
        if (sum != WeightedMath.ONE) revert BadWeights();
    }

    // ---- views ----

    /// The pool's tokens, balances and the block of its last change.
    function getPoolTokens(bytes32 poolId)
        external
        view
        returns (address[] memory tokens, uint256[] memory balances, uint256 lastChangeBlock)
    {
        Pool storage p = _pool(poolId);
        return (p.tokens, p.balances, p.lastChangeBlock);
    }

    /// The pool's address and specialization.
    function getPool(bytes32 poolId) external view returns (address, uint8) {
        Pool storage p = _pool(poolId);
        return (address(bytes20(poolId)), p.specialization);
    }

    /// Not in Balancer's Vault (the pool contract answers these there): the
    /// registered weights, swap fee, pow rule and decimals.
    function getPoolParameters(bytes32 poolId)
        external
        view
        returns (uint256[] memory normalizedWeights, uint256 swapFeePercentage, uint8 powRule, uint8[] memory decimals)
    {
        Pool storage p = _pool(poolId);
        return (p.weights, p.swapFee, p.powRule, p.decimals);
    }

    /// Not in Balancer's Vault: what `swap` would pay for `amount` of
    /// `assetIn` now (reverting where the swap would on the pool's math).
    function quoteGivenIn(bytes32 poolId, address assetIn, address assetOut, uint256 amount)
        external
        view
        returns (uint256)
    {
        if (assetIn == assetOut) revert SameToken();
        Pool storage p = _pool(poolId);
        return _outGivenIn(p, _indexOf(p, assetIn), _indexOf(p, assetOut), amount);
    }

    // ---- the swap ----

    /// A single exact-in swap: pulls `singleSwap.amount` of `assetIn` from
    /// `funds.sender` (the caller), pays the output to `funds.recipient`,
    /// reverting if it is below `limit` or the block is past `deadline`.
    function swap(SingleSwap calldata singleSwap, FundManagement calldata funds, uint256 limit, uint256 deadline)
        external
        payable
        returns (uint256 amountCalculated)
    {
        if (_entered) revert Reentrancy();
        _entered = true;
        if (block.timestamp > deadline) revert SwapDeadline(deadline);
        if (singleSwap.kind != 0) revert UnsupportedSwapKind(singleSwap.kind);
        if (funds.fromInternalBalance || funds.toInternalBalance) revert InternalBalanceNotSupported();
        if (msg.value != 0) revert NativeNotSupported();
        if (funds.sender != msg.sender) revert SenderNotCaller(funds.sender);
        if (singleSwap.amount == 0) revert ZeroAmount();
        if (singleSwap.assetIn == singleSwap.assetOut) revert SameToken();

        Pool storage p = _pool(singleSwap.poolId);
        uint256 i = _indexOf(p, singleSwap.assetIn);
        uint256 j = _indexOf(p, singleSwap.assetOut);
        uint256 amountIn = singleSwap.amount;
        amountCalculated = _outGivenIn(p, i, j, amountIn);
        if (amountCalculated < limit) revert SwapLimit(amountCalculated, limit);

        p.balances[i] += amountIn;
        p.balances[j] -= amountCalculated;
        p.lastChangeBlock = block.number;

        _call(singleSwap.assetIn, abi.encodeCall(IBalancerToken.transferFrom, (msg.sender, address(this), amountIn)));
        _call(singleSwap.assetOut, abi.encodeCall(IBalancerToken.transfer, (funds.recipient, amountCalculated)));
        emit Swap(singleSwap.poolId, singleSwap.assetIn, singleSwap.assetOut, amountIn, amountCalculated);
        _entered = false;
    }

    // ---- internals ----

    function _pool(bytes32 poolId) private view returns (Pool storage p) {
        p = _pools[poolId];
        if (!p.registered) revert PoolNotRegistered(poolId);
    }

    function _indexOf(Pool storage p, address token) private view returns (uint256) {
        uint256 n = p.tokens.length;
        for (uint256 k = 0; k < n; ++k) {
            if (p.tokens[k] == token) return k;
        }
        revert TokenNotRegistered(token);
    }

    function _outGivenIn(Pool storage p, uint256 i, uint256 j, uint256 amountIn) private view returns (uint256) {
        return WeightedMath.outGivenIn(
            p.powRule,
            p.balances[i],
            p.decimals[i],
            p.weights[i],
            p.balances[j],
            p.decimals[j],
            p.weights[j],
            p.swapFee,
            amountIn
        );
    }

    /// Calls an ERC-20, accepting tokens that return nothing.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool))) || (ret.length == 0 && token.code.length == 0)) {
            revert TransferFailed(token);
        }
    }
}

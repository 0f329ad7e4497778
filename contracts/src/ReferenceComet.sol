// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface ICometERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function decimals() external view returns (uint8);
}

/// @title Reference Compound III market (Comet), its base asset's side.
/// @notice Written here from Compound III's published interface and
/// arithmetic: a base token supplied and withdrawn as signed principal at a
/// supply index (scale 1e15), the balance read back as
/// `principal * index / 1e15`, the principal of a balance as
/// `balance * 1e15 / index` (a debt's rounded up), the indices accrued per
/// second from the utilization through the kinked rate model, and the
/// base's ERC-20 face (`transfer`, `transferFrom`, `approve` of 0 or all,
/// `allow`). It holds no collateral assets: a withdrawal or transfer that
/// would leave a negative balance reverts `NotCollateralized` (after
/// `BorrowTooSmall` below the minimum), as the deployed market does for an
/// account without collateral. Every function here is one the deployed
/// market has; the collateral, liquidation, reward-tracking and signature
/// functions are not written. The storage keeps the deployed order of the
/// variables it has.
contract ReferenceComet {
    struct TotalsBasic {
        uint64 baseSupplyIndex;
        uint64 baseBorrowIndex;
        uint64 trackingSupplyIndex;
        uint64 trackingBorrowIndex;
        uint104 totalSupplyBase;
        uint104 totalBorrowBase;
        uint40 lastAccrualTime;
        uint8 pauseFlags;
    }

    struct UserBasic {
        int104 principal;
        uint64 baseTrackingIndex;
        uint64 baseTrackingAccrued;
        uint16 assetsIn;
        uint8 _reserved;
    }

    error BadAmount();
    error BadAsset();
    error BorrowTooSmall();
    error InvalidInt104();
    error InvalidInt256();
    error InvalidUInt64();
    error InvalidUInt104();
    error NegativeNumber();
    error NoSelfTransfer();
    error NotCollateralized();
    error Paused();
    error TransferInFailed();
    error TransferOutFailed();
    error Unauthorized();

    event Supply(address indexed from, address indexed dst, uint256 amount);
    event Withdraw(address indexed src, address indexed to, uint256 amount);
    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Approval(address indexed owner, address indexed spender, uint256 amount);

    uint64 internal constant FACTOR_SCALE = 1e18;
    uint64 internal constant BASE_INDEX_SCALE = 1e15;
    uint8 internal constant PAUSE_SUPPLY_OFFSET = 0;
    uint8 internal constant PAUSE_TRANSFER_OFFSET = 1;
    uint8 internal constant PAUSE_WITHDRAW_OFFSET = 2;

    // CometStorage, in its order.
    uint64 internal baseSupplyIndex;
    uint64 internal baseBorrowIndex;
    uint64 internal trackingSupplyIndex;
    uint64 internal trackingBorrowIndex;
    uint104 internal totalSupplyBase;
    uint104 internal totalBorrowBase;
    uint40 internal lastAccrualTime;
    uint8 internal pauseFlags;
    mapping(address => mapping(address => bool)) public isAllowed;
    mapping(address => uint256) public userNonce;
    mapping(address => UserBasic) public userBasic;

    address public immutable baseToken;
    uint8 public immutable decimals;
    uint256 public immutable baseScale;
    uint256 public immutable baseBorrowMin;
    uint256 public immutable supplyKink;
    uint256 public immutable supplyPerSecondInterestRateSlopeLow;
    uint256 public immutable supplyPerSecondInterestRateSlopeHigh;
    uint256 public immutable supplyPerSecondInterestRateBase;
    uint256 public immutable borrowKink;
    uint256 public immutable borrowPerSecondInterestRateSlopeLow;
    uint256 public immutable borrowPerSecondInterestRateSlopeHigh;
    uint256 public immutable borrowPerSecondInterestRateBase;

    string public name;
    string public symbol;

    /// @param supplyRates and `borrowRates`: kink, slope below it, slope
    /// above it, base (per second, 1e18 scale). The market starts at
    /// `supplyIndex` and `borrowIndex`, with `supplyBase` and `borrowBase`
    /// of principal, accrued up to now.
    constructor(
        address baseToken_,
        string memory name_,
        string memory symbol_,
        uint256 baseBorrowMin_,
        uint256[4] memory supplyRates,
        uint256[4] memory borrowRates,
        uint64 supplyIndex,
        uint64 borrowIndex,
        uint104 supplyBase,
        uint104 borrowBase
    ) {
        baseToken = baseToken_;
        decimals = ICometERC20Like(baseToken_).decimals();
        baseScale = 10 ** decimals;
        baseBorrowMin = baseBorrowMin_;
        (supplyKink, supplyPerSecondInterestRateSlopeLow, supplyPerSecondInterestRateSlopeHigh) =
            (supplyRates[0], supplyRates[1], supplyRates[2]);
        supplyPerSecondInterestRateBase = supplyRates[3];
        (borrowKink, borrowPerSecondInterestRateSlopeLow, borrowPerSecondInterestRateSlopeHigh) =
            (borrowRates[0], borrowRates[1], borrowRates[2]);
        borrowPerSecondInterestRateBase = borrowRates[3];
        name = name_;
        symbol = symbol_;
        baseSupplyIndex = supplyIndex;
        baseBorrowIndex = borrowIndex;
        trackingSupplyIndex = 0;
        trackingBorrowIndex = 0;
        totalSupplyBase = supplyBase;
        totalBorrowBase = borrowBase;
        lastAccrualTime = uint40(block.timestamp);
    }

    // ----- Views -----

    function totalsBasic() external view returns (TotalsBasic memory) {
        return TotalsBasic({
            baseSupplyIndex: baseSupplyIndex,
            baseBorrowIndex: baseBorrowIndex,
            trackingSupplyIndex: trackingSupplyIndex,
            trackingBorrowIndex: trackingBorrowIndex,
            totalSupplyBase: totalSupplyBase,
            totalBorrowBase: totalBorrowBase,
            lastAccrualTime: lastAccrualTime,
            pauseFlags: pauseFlags
        });
    }

    function baseIndexScale() external pure returns (uint64) {
        return BASE_INDEX_SCALE;
    }

    function factorScale() external pure returns (uint64) {
        return FACTOR_SCALE;
    }

    function getUtilization() public view returns (uint256) {
        uint256 supplied = presentValueSupply(baseSupplyIndex, totalSupplyBase);
        uint256 borrowed = presentValueBorrow(baseBorrowIndex, totalBorrowBase);
        if (supplied == 0) return 0;
        return borrowed * FACTOR_SCALE / supplied;
    }

    function getSupplyRate(uint256 utilization) public view returns (uint64) {
        if (utilization <= supplyKink) {
            return uint64(supplyPerSecondInterestRateBase + mulFactor(supplyPerSecondInterestRateSlopeLow, utilization));
        }
        return uint64(
            supplyPerSecondInterestRateBase + mulFactor(supplyPerSecondInterestRateSlopeLow, supplyKink)
                + mulFactor(supplyPerSecondInterestRateSlopeHigh, utilization - supplyKink)
        );
    }

    function getBorrowRate(uint256 utilization) public view returns (uint64) {
        if (utilization <= borrowKink) {
            return uint64(borrowPerSecondInterestRateBase + mulFactor(borrowPerSecondInterestRateSlopeLow, utilization));
        }
        return uint64(
            borrowPerSecondInterestRateBase + mulFactor(borrowPerSecondInterestRateSlopeLow, borrowKink)
                + mulFactor(borrowPerSecondInterestRateSlopeHigh, utilization - borrowKink)
        );
    }

    function balanceOf(address account) public view returns (uint256) {
        (uint64 supplyIndex,) = accruedInterestIndices(getNowInternal() - lastAccrualTime);
        int104 principal = userBasic[account].principal;
        return principal > 0 ? presentValueSupply(supplyIndex, unsigned104(principal)) : 0;
    }

    function borrowBalanceOf(address account) public view returns (uint256) {
        (, uint64 borrowIndex) = accruedInterestIndices(getNowInternal() - lastAccrualTime);
        int104 principal = userBasic[account].principal;
        return principal < 0 ? presentValueBorrow(borrowIndex, unsigned104(-principal)) : 0;
    }

    function totalSupply() external view returns (uint256) {
        (uint64 supplyIndex,) = accruedInterestIndices(getNowInternal() - lastAccrualTime);
        return presentValueSupply(supplyIndex, totalSupplyBase);
    }

    function totalBorrow() external view returns (uint256) {
        (, uint64 borrowIndex) = accruedInterestIndices(getNowInternal() - lastAccrualTime);
        return presentValueBorrow(borrowIndex, totalBorrowBase);
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return hasPermission(owner, spender) ? type(uint256).max : 0;
    }

    function hasPermission(address owner, address manager) public view returns (bool) {
        return owner == manager || isAllowed[owner][manager];
    }

    function isSupplyPaused() public view returns (bool) {
        return toBool(pauseFlags & (uint8(1) << PAUSE_SUPPLY_OFFSET));
    }

    function isTransferPaused() public view returns (bool) {
        return toBool(pauseFlags & (uint8(1) << PAUSE_TRANSFER_OFFSET));
    }

    function isWithdrawPaused() public view returns (bool) {
        return toBool(pauseFlags & (uint8(1) << PAUSE_WITHDRAW_OFFSET));
    }

    // ----- Permissions -----

    function approve(address spender, uint256 amount) external returns (bool) {
        if (amount == type(uint256).max) {
            allowInternal(msg.sender, spender, true);
        } else if (amount == 0) {
            allowInternal(msg.sender, spender, false);
        } else {
            revert BadAmount();
        }
        return true;
    }

    function allow(address manager, bool isAllowed_) external {
        allowInternal(msg.sender, manager, isAllowed_);
    }

    // ----- Supply, withdraw, transfer -----

    function supply(address asset, uint256 amount) external {
        supplyInternal(msg.sender, msg.sender, msg.sender, asset, amount);
    }

    function supplyTo(address dst, address asset, uint256 amount) external {
        supplyInternal(msg.sender, msg.sender, dst, asset, amount);
    }

    function supplyFrom(address from, address dst, address asset, uint256 amount) external {
        supplyInternal(msg.sender, from, dst, asset, amount);
    }

    function withdraw(address asset, uint256 amount) external {
        withdrawInternal(msg.sender, msg.sender, msg.sender, asset, amount);
    }

    function withdrawTo(address to, address asset, uint256 amount) external {
        withdrawInternal(msg.sender, msg.sender, to, asset, amount);
    }

    function withdrawFrom(address src, address to, address asset, uint256 amount) external {
        withdrawInternal(msg.sender, src, to, asset, amount);
    }

    function transfer(address dst, uint256 amount) external returns (bool) {
        transferInternal(msg.sender, msg.sender, dst, baseToken, amount);
        return true;
    }

    function transferFrom(address src, address dst, uint256 amount) external returns (bool) {
        transferInternal(msg.sender, src, dst, baseToken, amount);
        return true;
    }

    function transferAsset(address dst, address asset, uint256 amount) external {
        transferInternal(msg.sender, msg.sender, dst, asset, amount);
    }

    function transferAssetFrom(address src, address dst, address asset, uint256 amount) external {
        transferInternal(msg.sender, src, dst, asset, amount);
    }

    function accrueAccount(address) external {
        accrueInternal();
    }

    // ----- Internals -----

    function supplyInternal(address operator, address from, address dst, address asset, uint256 amount) internal {
        if (isSupplyPaused()) revert Paused();
        if (!hasPermission(from, operator)) revert Unauthorized();
        if (asset != baseToken) revert BadAsset();
        if (amount == type(uint256).max) amount = borrowBalanceOf(dst);
        amount = doTransferIn(from, amount);
        accrueInternal();
        (uint104 repayAmount, uint104 supplyAmount) = credit(dst, amount);
        totalSupplyBase += supplyAmount;
        totalBorrowBase -= repayAmount;
        emit Supply(from, dst, amount);
        if (supplyAmount > 0) {
            emit Transfer(address(0), dst, presentValueSupply(baseSupplyIndex, supplyAmount));
        }
    }

    function withdrawInternal(address operator, address src, address to, address asset, uint256 amount) internal {
        if (isWithdrawPaused()) revert Paused();
        if (!hasPermission(src, operator)) revert Unauthorized();
        if (asset != baseToken) revert BadAsset();
        if (amount == type(uint256).max) amount = balanceOf(src);
        accrueInternal();
        (int256 srcBalance, uint104 withdrawAmount, uint104 borrowAmount) = debit(src, amount);
        totalSupplyBase -= withdrawAmount;
        totalBorrowBase += borrowAmount;
        if (srcBalance < 0) {
            if (uint256(-srcBalance) < baseBorrowMin) revert BorrowTooSmall();
            revert NotCollateralized();
        }
        doTransferOut(to, amount);
        emit Withdraw(src, to, amount);
        if (withdrawAmount > 0) {
            emit Transfer(src, address(0), presentValueSupply(baseSupplyIndex, withdrawAmount));
        }
    }

    function transferInternal(address operator, address src, address dst, address asset, uint256 amount) internal {
        if (isTransferPaused()) revert Paused();
        if (!hasPermission(src, operator)) revert Unauthorized();
        if (src == dst) revert NoSelfTransfer();
        if (asset != baseToken) revert BadAsset();
        if (amount == type(uint256).max) {
            accrueInternal();
            amount = balanceOf(src);
        }
        transferBase(src, dst, amount);
    }

    /// Both principals are computed from the balances before (the two
    /// accounts differ, so each is read before it is written).
    function transferBase(address src, address dst, uint256 amount) internal {
        accrueInternal();
        (int256 srcBalance, uint104 withdrawAmount, uint104 borrowAmount) = debit(src, amount);
        (uint104 repayAmount, uint104 supplyAmount) = credit(dst, amount);
        totalSupplyBase = totalSupplyBase + supplyAmount - withdrawAmount;
        totalBorrowBase = totalBorrowBase + borrowAmount - repayAmount;
        if (srcBalance < 0) {
            if (uint256(-srcBalance) < baseBorrowMin) revert BorrowTooSmall();
            revert NotCollateralized();
        }
        if (withdrawAmount > 0) {
            emit Transfer(src, address(0), presentValueSupply(baseSupplyIndex, withdrawAmount));
        }
        if (supplyAmount > 0) {
            emit Transfer(address(0), dst, presentValueSupply(baseSupplyIndex, supplyAmount));
        }
    }

    function debit(address src, uint256 amount) internal returns (int256, uint104, uint104) {
        int104 principal = userBasic[src].principal;
        int256 balance = presentValue(principal) - signed256(amount);
        int104 principalNew = principalValue(balance);
        (uint104 withdrawAmount, uint104 borrowAmount) = withdrawAndBorrowAmount(principal, principalNew);
        userBasic[src].principal = principalNew;
        return (balance, withdrawAmount, borrowAmount);
    }

    function credit(address dst, uint256 amount) internal returns (uint104, uint104) {
        int104 principal = userBasic[dst].principal;
        int104 principalNew = principalValue(presentValue(principal) + signed256(amount));
        (uint104 repayAmount, uint104 supplyAmount) = repayAndSupplyAmount(principal, principalNew);
        userBasic[dst].principal = principalNew;
        return (repayAmount, supplyAmount);
    }

    function allowInternal(address owner, address manager, bool isAllowed_) internal {
        isAllowed[owner][manager] = isAllowed_;
        emit Approval(owner, manager, isAllowed_ ? type(uint256).max : 0);
    }

    function accrueInternal() internal {
        uint40 now_ = getNowInternal();
        uint256 timeElapsed = uint256(now_ - lastAccrualTime);
        if (timeElapsed > 0) {
            (baseSupplyIndex, baseBorrowIndex) = accruedInterestIndices(timeElapsed);
            lastAccrualTime = now_;
        }
    }

    function accruedInterestIndices(uint256 timeElapsed) internal view returns (uint64, uint64) {
        uint64 supplyIndex = baseSupplyIndex;
        uint64 borrowIndex = baseBorrowIndex;
        if (timeElapsed > 0) {
            uint256 utilization = getUtilization();
            uint256 supplyRate = getSupplyRate(utilization);
            uint256 borrowRate = getBorrowRate(utilization);
            supplyIndex += safe64(mulFactor(supplyIndex, supplyRate * timeElapsed));
            borrowIndex += safe64(mulFactor(borrowIndex, borrowRate * timeElapsed));
        }
        return (supplyIndex, borrowIndex);
    }

    function doTransferIn(address from, uint256 amount) internal returns (uint256) {
        uint256 before = ICometERC20Like(baseToken).balanceOf(address(this));
        (bool ok, bytes memory ret) = baseToken.call(
            abi.encodeWithSelector(ICometERC20Like.transferFrom.selector, from, address(this), amount)
        );
        if (!ok || (ret.length > 0 && !abi.decode(ret, (bool)))) revert TransferInFailed();
        return ICometERC20Like(baseToken).balanceOf(address(this)) - before;
    }

    function doTransferOut(address to, uint256 amount) internal {
        (bool ok, bytes memory ret) =
            baseToken.call(abi.encodeWithSelector(ICometERC20Like.transfer.selector, to, amount));
        if (!ok || (ret.length > 0 && !abi.decode(ret, (bool)))) revert TransferOutFailed();
    }

    function repayAndSupplyAmount(int104 oldPrincipal, int104 newPrincipal) internal pure returns (uint104, uint104) {
        if (newPrincipal < oldPrincipal) return (0, 0);
        if (newPrincipal <= 0) {
            return (uint104(newPrincipal - oldPrincipal), 0);
        } else if (oldPrincipal >= 0) {
            return (0, uint104(newPrincipal - oldPrincipal));
        } else {
            return (uint104(-oldPrincipal), uint104(newPrincipal));
        }
    }

    function withdrawAndBorrowAmount(int104 oldPrincipal, int104 newPrincipal)
        internal
        pure
        returns (uint104, uint104)
    {
        if (newPrincipal > oldPrincipal) return (0, 0);
        if (newPrincipal >= 0) {
            return (uint104(oldPrincipal - newPrincipal), 0);
        } else if (oldPrincipal <= 0) {
            return (0, uint104(oldPrincipal - newPrincipal));
        } else {
            return (uint104(oldPrincipal), uint104(-newPrincipal));
        }
    }

    function presentValue(int104 principal) internal view returns (int256) {
        if (principal >= 0) {
            return signed256(presentValueSupply(baseSupplyIndex, uint104(principal)));
        } else {
            return -signed256(presentValueBorrow(baseBorrowIndex, uint104(-principal)));
        }
    }

    function principalValue(int256 present) internal view returns (int104) {
        if (present >= 0) {
            return signed104(principalValueSupply(baseSupplyIndex, uint256(present)));
        } else {
            return -signed104(principalValueBorrow(baseBorrowIndex, uint256(-present)));
        }
    }

    function presentValueSupply(uint64 index, uint104 principal) internal pure returns (uint256) {
        return uint256(principal) * index / BASE_INDEX_SCALE;
    }

    function presentValueBorrow(uint64 index, uint104 principal) internal pure returns (uint256) {
        return uint256(principal) * index / BASE_INDEX_SCALE;
    }

    function principalValueSupply(uint64 index, uint256 present) internal pure returns (uint104) {
        return safe104((present * BASE_INDEX_SCALE) / index);
    }

    function principalValueBorrow(uint64 index, uint256 present) internal pure returns (uint104) {
        return safe104((present * BASE_INDEX_SCALE + index - 1) / index);
    }

    function mulFactor(uint256 n, uint256 factor) internal pure returns (uint256) {
        return n * factor / FACTOR_SCALE;
    }

    function getNowInternal() internal view returns (uint40) {
        if (block.timestamp >= 2 ** 40) revert InvalidUInt64();
        return uint40(block.timestamp);
    }

    function safe64(uint256 n) internal pure returns (uint64) {
        if (n > type(uint64).max) revert InvalidUInt64();
        return uint64(n);
    }

    function safe104(uint256 n) internal pure returns (uint104) {
        if (n > type(uint104).max) revert InvalidUInt104();
        return uint104(n);
    }

    function signed104(uint104 n) internal pure returns (int104) {
        if (n > uint104(type(int104).max)) revert InvalidInt104();
        return int104(n);
    }

    function signed256(uint256 n) internal pure returns (int256) {
        if (n > uint256(type(int256).max)) revert InvalidInt256();
        return int256(n);
    }

    function unsigned104(int104 n) internal pure returns (uint104) {
        if (n < 0) revert NegativeNumber();
        return uint104(n);
    }

    function toBool(uint8 x) internal pure returns (bool) {
        return x != 0;
    }
}

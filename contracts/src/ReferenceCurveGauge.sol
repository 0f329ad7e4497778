// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IGaugeERC20Like {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference Curve liquidity gauge for tests.
/// @notice The public interface of a Curve liquidity gauge (V4/V5 shape) for
/// one LP token and one reward token, written for Switchyard from the
/// published ABI, not Curve's code. Gauge tokens are minted 1:1 for the LP
/// tokens deposited (18 decimals whatever the LP token's) and are ordinary
/// ERC-20s.
///
/// Rewards do not stream: an account's pending reward is what the world
/// wrote into `_claimable` (0 otherwise), independent of its balance and of
/// time; the contract has no function of its own to set it. Claiming pays all of it in the reward token from this
/// gauge's own balance (a fixture mints the reward token to the gauge; a
/// claim the gauge cannot pay reverts with `TransferFailed`) and resets it to
/// 0; claiming nothing transfers nothing. No CRV, boosts, checkpoints or
/// reward distributors.
///
/// - `deposit(v[, addr[, claim]])`: pulls `v` LP tokens from the caller and
///   credits `addr` (default the caller) `v` gauge tokens; with `claim`,
///   first pays `addr`'s pending reward to `addr`.
/// - `withdraw(v[, claim])`: burns `v` of the caller's gauge tokens
///   (`InsufficientBalance` above its balance) and returns `v` LP tokens.
/// - `claim_rewards()`, `claim_rewards(addr)` (anyone, paid to `addr`),
///   `claim_rewards(addr, receiver)` (only `addr` itself, paid to
///   `receiver`, or to `addr` when `receiver` is the zero address).
contract ReferenceCurveGauge {
    /// @notice The LP token staked here.
    address public immutable lp_token;
    address private immutable _rewardToken;

    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    mapping(address => uint256) private _claimable;
    mapping(address => uint256) private _claimed;

    /// @notice Curve's gauge `Deposit`.
    event Deposit(address indexed provider, uint256 value);
    /// @notice Curve's gauge `Withdraw`.
    event Withdraw(address indexed provider, uint256 value);
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error ZeroAddress();
    error RewardIsLpToken();
    error InsufficientBalance(uint256 requested, uint256 balance);
    error InsufficientAllowance(uint256 requested, uint256 allowed);
    error ReceiverOnlyForSelf();
    error TransferFailed();

    constructor(address lpToken, address rewardToken) {
        if (lpToken == address(0) || rewardToken == address(0)) revert ZeroAddress();
        // The LP tokens held back the deposits; rewards are a separate balance.
        if (lpToken == rewardToken) revert RewardIsLpToken();
        lp_token = lpToken;
        _rewardToken = rewardToken;
        string memory lpSymbol = _symbolOf(lpToken);
        name = string.concat("Curve.fi ", lpSymbol, " Gauge Deposit");
        symbol = string.concat(lpSymbol, "-gauge");
    }

    // ---- rewards ----

    /// @notice The reward token at `index`: the one reward token at 0, the
    /// zero address elsewhere (Curve's empty slots).
    function reward_tokens(uint256 index) external view returns (address) {
        return index == 0 ? _rewardToken : address(0);
    }

    /// @notice Always 1.
    function reward_count() external pure returns (uint256) {
        return 1;
    }

    /// @notice `user`'s pending reward in `rewardToken` (0 for any other
    /// token).
    function claimable_reward(address user, address rewardToken) external view returns (uint256) {
        return rewardToken == _rewardToken ? _claimable[user] : 0;
    }

    /// @notice What `user` has claimed of `rewardToken` so far.
    function claimed_reward(address user, address rewardToken) external view returns (uint256) {
        return rewardToken == _rewardToken ? _claimed[user] : 0;
    }

    function claim_rewards() external {
        _claim(msg.sender, msg.sender);
    }

    function claim_rewards(address addr) external {
        _claim(addr, addr);
    }

    function claim_rewards(address addr, address receiver) external {
        if (receiver != address(0) && addr != msg.sender) revert ReceiverOnlyForSelf();
        _claim(addr, receiver == address(0) ? addr : receiver);
    }

    // ---- staking ----

    function deposit(uint256 value) external {
        _deposit(value, msg.sender, false);
    }

    function deposit(uint256 value, address addr) external {
        _deposit(value, addr, false);
    }

    function deposit(uint256 value, address addr, bool claimRewards) external {
        _deposit(value, addr, claimRewards);
    }

    function withdraw(uint256 value) external {
        _withdraw(value, false);
    }

    function withdraw(uint256 value, bool claimRewards) external {
        _withdraw(value, claimRewards);
    }

    // ---- ERC-20 ----

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    /// @notice An allowance of `type(uint256).max` is never spent.
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (amount > allowed) revert InsufficientAllowance(amount, allowed);
            unchecked {
                allowance[from][msg.sender] = allowed - amount;
            }
        }
        _move(from, to, amount);
        return true;
    }

    // ---- internals ----

    function _deposit(uint256 value, address addr, bool claimRewards) private {
        if (claimRewards) _claim(addr, addr);
        if (value != 0) {
            _call(lp_token, abi.encodeCall(IGaugeERC20Like.transferFrom, (msg.sender, address(this), value)));
            totalSupply += value;
            unchecked {
                // No balance exceeds the total supply.
                balanceOf[addr] += value;
            }
        }
        emit Deposit(addr, value);
        emit Transfer(address(0), addr, value);
    }

    function _withdraw(uint256 value, bool claimRewards) private {
        if (claimRewards) _claim(msg.sender, msg.sender);
        uint256 held = balanceOf[msg.sender];
        if (value > held) revert InsufficientBalance(value, held);
        unchecked {
            balanceOf[msg.sender] = held - value;
            totalSupply -= value;
        }
        if (value != 0) _call(lp_token, abi.encodeCall(IGaugeERC20Like.transfer, (msg.sender, value)));
        emit Withdraw(msg.sender, value);
        emit Transfer(msg.sender, address(0), value);
    }

    function _claim(address addr, address receiver) private {
        uint256 amount = _claimable[addr];
        if (amount == 0) return;
        _claimable[addr] = 0;
        _claimed[addr] += amount;
        _call(_rewardToken, abi.encodeCall(IGaugeERC20Like.transfer, (receiver, amount)));
    }

    function _move(address from, address to, uint256 amount) private {
        uint256 held = balanceOf[from];
        if (amount > held) revert InsufficientBalance(amount, held);
        unchecked {
            balanceOf[from] = held - amount;
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }

    /// @dev A token call that must succeed and return `true` or nothing.
    function _call(address token, bytes memory data) private {
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }

    /// @dev The token's `symbol()`, or "LP" when it has none readable.
    function _symbolOf(address token) private view returns (string memory) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSignature("symbol()"));
        if (!ok || ret.length < 64) return "LP";
        return abi.decode(ret, (string));
    }
}

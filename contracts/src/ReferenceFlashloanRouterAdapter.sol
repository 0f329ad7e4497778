// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {IERC20Like, Token, TokenType, requireTokenCall} from "./TokenTransfers.sol";

/// Who lends, as the deployed adapter numbers them (ABI-stable).
enum LenderProtocol {
    None,
    Morpho,
    AaveV3,
    BalancerV3,
    Dolomite,
    UniswapV3
}

interface IRouterLike {
    function routeSingle(Token calldata tokenIn, bytes calldata data) external payable returns (bytes memory);
    function routeMulti(Token[] calldata tokensIn, bytes calldata data) external payable returns (bytes memory);
}

interface IAaveV3PoolLike {
    function flashLoanSimple(address receiver, address asset, uint256 amount, bytes calldata params, uint16 referral)
        external;
}

interface IMorphoLike {
    function flashLoan(address token, uint256 assets, bytes calldata data) external;
}

interface IBalancerV3VaultLike {
    function unlock(bytes calldata data) external returns (bytes memory);
    function sendTo(address token, address to, uint256 amount) external;
    function settle(address token, uint256 amountHint) external returns (uint256);
}

interface IUniswapV3PoolLike {
    function flash(address recipient, uint256 amount0, uint256 amount1, bytes calldata data) external;
    function factory() external view returns (address);
    function fee() external view returns (uint24);
}

interface IUniswapV3FactoryLike {
    function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address);
}

/// Dolomite's account and action shapes, as `operate` takes them.
struct DolomiteAccountInfo {
    address owner;
    uint256 number;
}

struct DolomiteAssetAmount {
    bool sign;
    uint8 denomination;
    uint8 ref;
    uint256 value;
}

struct DolomiteActionArgs {
    uint8 actionType;
    uint256 accountId;
    DolomiteAssetAmount amount;
    uint256 primaryMarketId;
    uint256 secondaryMarketId;
    address otherAddress;
    uint256 otherAccountId;
    bytes data;
}

interface IDolomiteMarginLike {
    function getMarketIdByTokenAddress(address token) external view returns (uint256);
    function operate(DolomiteAccountInfo[] calldata accounts, DolomiteActionArgs[] calldata actions) external;
}

struct BalancerV3FlashloanParams {
    address wallet;
    address[] tokens;
    uint256[] amounts;
    bytes32 accountId;
    bytes32 requestId;
    bytes32[] commands;
    bytes[] state;
}

struct DolomiteFlashloanParams {
    address wallet;
    address token;
    uint256 amount;
    bytes32 accountId;
    bytes32 requestId;
    bytes32[] commands;
    bytes[] state;
}

struct UniswapV3FlashloanParams {
    address wallet;
    address token0;
    address token1;
    uint256 amount0;
    uint256 amount1;
    bytes32 accountId;
    bytes32 requestId;
    bytes32[] commands;
    bytes[] state;
}

/// @title Reference of Enso's deployed flash-loan router adapter
/// (`EnsoRouterFlashloanAdapter`, `0x66a6da113aee7cc1682e41599ffc2d2f492fab88`
/// on Ethereum, the February 2026 build; the same on the other chains it was
/// recorded on).
/// @notice Mirrors its external surface and behaviour, nothing more; written
/// here from the public interface and the deployment records:
///
/// - `executeFlashloan(protocol, data, accountId, requestId, commands, state)`
///   (anyone, while not paused) borrows from the lender `data` names
///   (Morpho and Aave V3: `(lender, token, amount)`; Balancer V3: `(vault,
///   tokens, amounts)`; Dolomite: `(margin, token, amount)`; Uniswap V3:
///   `(pool, token0, token1, amount0, amount1)`), under a transient context
///   keyed by `(protocol, lender, token)` (the token is zero for the
///   several-token lenders) that a second loan of the same key reverts
///   `FlashloanInProgress` and a callback outside it `FlashloanNotInProgress`;
/// - the lender's callback checks the lender is trusted for that protocol
///   (`trustedLenders`, set by the constructor, only ever removed; a Uniswap
///   V3 pool through its factory, and it must be the factory's pool of its
///   tokens and fee; Aave's `initiator` and Dolomite's `sender` must be the
///   adapter), approves the router exactly the loan and runs the program in
///   the router's executor through `routeSingle` / `routeMulti` with the loan
///   as the input and `executeShortcut(accountId, requestId, commands,
///   state)` as the call;
/// - the program must send the repayment (the loan plus Aave's premium or
///   the Uniswap pool's fee) back to the adapter: less than its balance
///   before the loan plus that reverts `IncorrectPaybackAmount(token,
///   received, required)`; the lender is then repaid (approved for Morpho,
///   Aave and Dolomite, paid and settled for Balancer V3, paid for Uniswap
///   V3). Nothing else leaves the adapter, and it has no sweep;
/// - an owner (the constructor's) may pause, unpause, remove a lender and
///   hand over or renounce ownership (OpenZeppelin's `Ownable` and
///   `Pausable` errors and events).
contract ReferenceFlashloanRouterAdapter {
    address public immutable ROUTER;

    mapping(address => LenderProtocol) public trustedLenders;
    address private _owner;
    bool private _paused;

    bytes32 private constant CONTEXT = keccak256("enso.flashloan.context");
    bytes4 private constant EXECUTE_SHORTCUT = 0x95352c9f;

    event LenderRemoved(address indexed lender);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event Paused(address account);
    event Unpaused(address account);

    error UnsupportedProtocol();
    error NotAuthorized();
    error UnknownLender();
    error FlashloanInProgress();
    error FlashloanNotInProgress();
    error IncorrectPaybackAmount(address asset, uint256 amount, uint256 requiredAmount);
    error WrongConstrutorParams();
    error OwnableUnauthorizedAccount(address account);
    error OwnableInvalidOwner(address owner);
    error EnforcedPause();
    error ExpectedPause();

    constructor(address[] memory lenders, LenderProtocol[] memory protocols, address router_, address owner_) {
        if (lenders.length != protocols.length) revert WrongConstrutorParams();
        if (owner_ == address(0)) revert OwnableInvalidOwner(address(0));
        for (uint256 k; k < lenders.length; ++k) {
            trustedLenders[lenders[k]] = protocols[k];
        }
        ROUTER = router_;
        _owner = owner_;
        emit OwnershipTransferred(address(0), owner_);
    }

    // --- Owner ---

    modifier onlyOwner() {
        if (msg.sender != _owner) revert OwnableUnauthorizedAccount(msg.sender);
        _;
    }

    function owner() external view returns (address) {
        return _owner;
    }

    function paused() external view returns (bool) {
        return _paused;
    }

    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert OwnableInvalidOwner(address(0));
        emit OwnershipTransferred(_owner, newOwner);
        _owner = newOwner;
    }

    function renounceOwnership() external onlyOwner {
        emit OwnershipTransferred(_owner, address(0));
        _owner = address(0);
    }

    function pause() external onlyOwner {
        if (_paused) revert EnforcedPause();
        _paused = true;
        emit Paused(msg.sender);
    }

    function unpause() external onlyOwner {
        if (!_paused) revert ExpectedPause();
        _paused = false;
        emit Unpaused(msg.sender);
    }

    function removeLender(address lender) external onlyOwner {
        delete trustedLenders[lender];
        emit LenderRemoved(lender);
    }

    // --- Loans ---

    function executeFlashloan(
        LenderProtocol protocol,
        bytes calldata data,
        bytes32 accountId,
        bytes32 requestId,
        bytes32[] calldata commands,
        bytes[] calldata state
    ) external {
        if (_paused) revert EnforcedPause();
        if (protocol == LenderProtocol.Morpho) {
            (address morpho, address token, uint256 amount) = abi.decode(data, (address, address, uint256));
            bytes32 key = _open(protocol, morpho, token);
            IMorphoLike(morpho).flashLoan(
                token, amount, abi.encode(msg.sender, token, accountId, requestId, commands, state)
            );
            _close(key);
        } else if (protocol == LenderProtocol.AaveV3) {
            (address pool, address token, uint256 amount) = abi.decode(data, (address, address, uint256));
            bytes32 key = _open(protocol, pool, token);
            IAaveV3PoolLike(pool).flashLoanSimple(
                address(this), token, amount, abi.encode(msg.sender, accountId, requestId, commands, state), 0
            );
            _close(key);
        } else if (protocol == LenderProtocol.BalancerV3) {
            (address vault, address[] memory tokens, uint256[] memory amounts) =
                abi.decode(data, (address, address[], uint256[]));
            bytes32 key = _open(protocol, vault, address(0));
            BalancerV3FlashloanParams memory p =
                BalancerV3FlashloanParams(msg.sender, tokens, amounts, accountId, requestId, commands, state);
            IBalancerV3VaultLike(vault).unlock(abi.encodeWithSelector(this.onBalancerV3Flashloan.selector, p));
            _close(key);
        } else if (protocol == LenderProtocol.Dolomite) {
            (address margin, address token, uint256 amount) = abi.decode(data, (address, address, uint256));
            bytes32 key = _open(protocol, margin, address(0));
            _dolomite(margin, DolomiteFlashloanParams(msg.sender, token, amount, accountId, requestId, commands, state));
            _close(key);
        } else if (protocol == LenderProtocol.UniswapV3) {
            _uniswapLoan(data, accountId, requestId, commands, state);
        } else {
            revert UnsupportedProtocol();
        }
    }

    function _uniswapLoan(
        bytes calldata data,
        bytes32 accountId,
        bytes32 requestId,
        bytes32[] calldata commands,
        bytes[] calldata state
    ) private {
        UniswapV3FlashloanParams memory p;
        address pool;
        (pool, p.token0, p.token1, p.amount0, p.amount1) =
            abi.decode(data, (address, address, address, uint256, uint256));
        (p.wallet, p.accountId, p.requestId, p.commands, p.state) = (msg.sender, accountId, requestId, commands, state);
        bytes32 key = _open(LenderProtocol.UniswapV3, pool, address(0));
        IUniswapV3PoolLike(pool).flash(address(this), p.amount0, p.amount1, abi.encode(p));
        _close(key);
    }

    function _dolomite(address margin, DolomiteFlashloanParams memory p) private {
        uint256 market = IDolomiteMarginLike(margin).getMarketIdByTokenAddress(p.token);
        DolomiteAccountInfo[] memory accounts = new DolomiteAccountInfo[](1);
        accounts[0] = DolomiteAccountInfo(address(this), 0);
        DolomiteActionArgs[] memory actions = new DolomiteActionArgs[](3);
        // Withdraw (the loan), Call (the program), Deposit (the repayment).
        actions[0] = DolomiteActionArgs(1, 0, DolomiteAssetAmount(false, 0, 0, p.amount), market, 0, address(this), 0, "");
        actions[1] = DolomiteActionArgs(8, 0, DolomiteAssetAmount(false, 0, 0, 0), 0, 0, address(this), 0, abi.encode(p));
        actions[2] = DolomiteActionArgs(0, 0, DolomiteAssetAmount(true, 0, 0, p.amount), market, 0, address(this), 0, "");
        _approve(p.token, margin, p.amount);
        IDolomiteMarginLike(margin).operate(accounts, actions);
    }

    // --- Callbacks ---

    function onMorphoFlashLoan(uint256 amount, bytes calldata data) external {
        _trusted(msg.sender, LenderProtocol.Morpho);
        (, address token, bytes32 accountId, bytes32 requestId, bytes32[] memory commands, bytes[] memory state) =
            abi.decode(data, (address, address, bytes32, bytes32, bytes32[], bytes[]));
        _inside(LenderProtocol.Morpho, msg.sender, token);
        uint256 before = _routeOne(token, amount, accountId, requestId, commands, state);
        _repaid(token, before, amount);
        _approve(token, msg.sender, amount);
    }

    function executeOperation(address token, uint256 amount, uint256 premium, address initiator, bytes calldata data)
        external
        returns (bool)
    {
        _trusted(msg.sender, LenderProtocol.AaveV3);
        if (initiator != address(this)) revert NotAuthorized();
        _inside(LenderProtocol.AaveV3, msg.sender, token);
        (, bytes32 accountId, bytes32 requestId, bytes32[] memory commands, bytes[] memory state) =
            abi.decode(data, (address, bytes32, bytes32, bytes32[], bytes[]));
        uint256 before = _routeOne(token, amount, accountId, requestId, commands, state);
        _repaid(token, before, amount + premium);
        _approve(token, msg.sender, amount + premium);
        return true;
    }

    function onBalancerV3Flashloan(BalancerV3FlashloanParams memory p) external {
        _trusted(msg.sender, LenderProtocol.BalancerV3);
        _inside(LenderProtocol.BalancerV3, msg.sender, address(0));
        uint256 n = p.tokens.length;
        for (uint256 k; k < n; ++k) {
            IBalancerV3VaultLike(msg.sender).sendTo(p.tokens[k], address(this), p.amounts[k]);
        }
        uint256[] memory before = _routeMany(p.tokens, p.amounts, p.accountId, p.requestId, p.commands, p.state);
        for (uint256 k; k < n; ++k) {
            _repaid(p.tokens[k], before[k], p.amounts[k]);
            _transfer(p.tokens[k], msg.sender, p.amounts[k]);
            IBalancerV3VaultLike(msg.sender).settle(p.tokens[k], p.amounts[k]);
        }
    }

    function callFunction(address sender, DolomiteAccountInfo memory, bytes memory data) external {
        _trusted(msg.sender, LenderProtocol.Dolomite);
        if (sender != address(this)) revert NotAuthorized();
        _inside(LenderProtocol.Dolomite, msg.sender, address(0));
        DolomiteFlashloanParams memory p = abi.decode(data, (DolomiteFlashloanParams));
        uint256 before = _routeOne(p.token, p.amount, p.accountId, p.requestId, p.commands, p.state);
        _repaid(p.token, before, p.amount);
    }

    function uniswapV3FlashCallback(uint256 fee0, uint256 fee1, bytes calldata data) external {
        UniswapV3FlashloanParams memory p = abi.decode(data, (UniswapV3FlashloanParams));
        address factory = IUniswapV3PoolLike(msg.sender).factory();
        _trusted(factory, LenderProtocol.UniswapV3);
        uint24 fee = IUniswapV3PoolLike(msg.sender).fee();
        if (IUniswapV3FactoryLike(factory).getPool(p.token0, p.token1, fee) != msg.sender) revert UnknownLender();
        _inside(LenderProtocol.UniswapV3, msg.sender, address(0));
        uint256 n = (p.amount0 > 0 ? 1 : 0) + (p.amount1 > 0 ? 1 : 0);
        address[] memory tokens = new address[](n);
        uint256[] memory amounts = new uint256[](n);
        uint256 k;
        if (p.amount0 > 0) (tokens[k], amounts[k++]) = (p.token0, p.amount0);
        if (p.amount1 > 0) (tokens[k], amounts[k++]) = (p.token1, p.amount1);
        uint256[] memory before = _routeMany(tokens, amounts, p.accountId, p.requestId, p.commands, p.state);
        k = 0;
        if (p.amount0 > 0) _repaid(p.token0, before[k++], p.amount0 + fee0);
        if (p.amount1 > 0) _repaid(p.token1, before[k++], p.amount1 + fee1);
        if (p.amount0 + fee0 > 0) _transfer(p.token0, msg.sender, p.amount0 + fee0);
        if (p.amount1 + fee1 > 0) _transfer(p.token1, msg.sender, p.amount1 + fee1);
    }

    // --- Internals ---

    function _key(LenderProtocol protocol, address lender, address token) private pure returns (bytes32) {
        return keccak256(abi.encode(CONTEXT, protocol, lender, token));
    }

    function _open(LenderProtocol protocol, address lender, address token) private returns (bytes32 key) {
        key = _key(protocol, lender, token);
        uint256 open;
        assembly ("memory-safe") {
            open := tload(key)
        }
        if (open != 0) revert FlashloanInProgress();
        assembly ("memory-safe") {
            tstore(key, 1)
        }
    }

    function _close(bytes32 key) private {
        assembly ("memory-safe") {
            tstore(key, 0)
        }
    }

    function _inside(LenderProtocol protocol, address lender, address token) private view {
        bytes32 key = _key(protocol, lender, token);
        uint256 open;
        assembly ("memory-safe") {
            open := tload(key)
        }
        if (open == 0) revert FlashloanNotInProgress();
    }

    function _trusted(address lender, LenderProtocol protocol) private view {
        if (trustedLenders[lender] != protocol) revert UnknownLender();
    }

    /// The loan of `token` (already here) into the router's executor with
    /// the program; the balance before the loan arrived.
    function _routeOne(
        address token,
        uint256 amount,
        bytes32 accountId,
        bytes32 requestId,
        bytes32[] memory commands,
        bytes[] memory state
    ) private returns (uint256 before) {
        before = IERC20Like(token).balanceOf(address(this)) - amount;
        _approve(token, ROUTER, amount);
        IRouterLike(ROUTER).routeSingle(
            Token(TokenType.ERC20, abi.encode(token, amount)),
            abi.encodeWithSelector(EXECUTE_SHORTCUT, accountId, requestId, commands, state)
        );
    }

    function _routeMany(
        address[] memory tokens,
        uint256[] memory amounts,
        bytes32 accountId,
        bytes32 requestId,
        bytes32[] memory commands,
        bytes[] memory state
    ) private returns (uint256[] memory before) {
        uint256 n = tokens.length;
        before = new uint256[](n);
        Token[] memory tokensIn = new Token[](n);
        for (uint256 k; k < n; ++k) {
            before[k] = IERC20Like(tokens[k]).balanceOf(address(this)) - amounts[k];
            _approve(tokens[k], ROUTER, amounts[k]);
            tokensIn[k] = Token(TokenType.ERC20, abi.encode(tokens[k], amounts[k]));
        }
        IRouterLike(ROUTER).routeMulti(
            tokensIn, abi.encodeWithSelector(EXECUTE_SHORTCUT, accountId, requestId, commands, state)
        );
    }

    function _repaid(address token, uint256 before, uint256 required) private view {
        uint256 held = IERC20Like(token).balanceOf(address(this));
        if (held < before + required) revert IncorrectPaybackAmount(token, held > before ? held - before : 0, required);
    }

    /// OpenZeppelin's `forceApprove`: `approve(spender, amount)`, and if the
    /// token refuses, `approve(spender, 0)` first.
    function _approve(address token, address spender, uint256 amount) private {
        (bool ok, bytes memory r) = token.call(abi.encodeWithSelector(0x095ea7b3, spender, amount));
        if (!ok || (r.length != 0 && (r.length < 32 || abi.decode(r, (uint256)) != 1)) || (r.length == 0 && token.code.length == 0)) {
            (ok, r) = token.call(abi.encodeWithSelector(0x095ea7b3, spender, 0));
            requireTokenCall(token, ok, r);
            (ok, r) = token.call(abi.encodeWithSelector(0x095ea7b3, spender, amount));
            requireTokenCall(token, ok, r);
        }
    }

    function _transfer(address token, address to, uint256 amount) private {
        (bool ok, bytes memory r) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        requireTokenCall(token, ok, r);
    }
}

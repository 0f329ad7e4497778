// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Like {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// @title Reference ERC-4626 vault for differential tests.
/// @notice The public ERC-4626 interface with solmate's rounding: deposits and
/// redeems round down, `previewMint`/`previewWithdraw` round up, and an empty
/// vault (no shares) converts 1:1. `totalAssets` is the vault's balance of
/// the asset, so a transfer to the vault (a donation) raises the share price
/// and a burn from it lowers it.
///
/// The products are taken at full 512-bit precision, like the kernel's
/// `mul_div` (solmate's `mulDivDown` reverts when `x * y` overflows 256 bits
/// instead; the two agree whenever it does not).
contract ReferenceVault {
    address public immutable asset;
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
    event Withdraw(
        address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares
    );

    error ZeroShares();
    error ZeroAssets();
    error DivisionOverflow();

    constructor(address asset_, string memory name_, string memory symbol_, uint8 decimals_) {
        asset = asset_;
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    // ---- ERC-20 (the shares) ----

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _spendAllowance(from, amount);
        _move(from, to, amount);
        return true;
    }

    // ---- ERC-4626 accounting ----

    function totalAssets() public view returns (uint256) {
        return IERC20Like(asset).balanceOf(address(this));
    }

    function convertToShares(uint256 assets) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? assets : _mulDiv(assets, supply, totalAssets(), false);
    }

    function convertToAssets(uint256 shares) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? shares : _mulDiv(shares, totalAssets(), supply, false);
    }

    function previewDeposit(uint256 assets) public view returns (uint256) {
        return convertToShares(assets);
    }

    function previewMint(uint256 shares) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? shares : _mulDiv(shares, totalAssets(), supply, true);
    }

    function previewWithdraw(uint256 assets) public view returns (uint256) {
        uint256 supply = totalSupply;
        return supply == 0 ? assets : _mulDiv(assets, supply, totalAssets(), true);
    }

    function previewRedeem(uint256 shares) public view returns (uint256) {
        return convertToAssets(shares);
    }

    function maxDeposit(address) external pure returns (uint256) {
        return type(uint256).max;
    }

    function maxMint(address) external pure returns (uint256) {
        return type(uint256).max;
    }

    function maxWithdraw(address owner) external view returns (uint256) {
        return convertToAssets(balanceOf[owner]);
    }

    function maxRedeem(address owner) external view returns (uint256) {
        return balanceOf[owner];
    }

    // ---- ERC-4626 actions ----

    function deposit(uint256 assets, address receiver) external returns (uint256 shares) {
        shares = previewDeposit(assets);
        if (shares == 0) revert ZeroShares();
        _pull(assets);
        _mint(receiver, shares);
        emit Deposit(msg.sender, receiver, assets, shares);
    }

    function mint(uint256 shares, address receiver) external returns (uint256 assets) {
        assets = previewMint(shares);
        _pull(assets);
        _mint(receiver, shares);
        emit Deposit(msg.sender, receiver, assets, shares);
    }

    function withdraw(uint256 assets, address receiver, address owner) external returns (uint256 shares) {
        shares = previewWithdraw(assets);
        if (msg.sender != owner) _spendAllowance(owner, shares);
        _burn(owner, shares);
        emit Withdraw(msg.sender, receiver, owner, assets, shares);
        require(IERC20Like(asset).transfer(receiver, assets));
    }

    function redeem(uint256 shares, address receiver, address owner) external returns (uint256 assets) {
        if (msg.sender != owner) _spendAllowance(owner, shares);
        assets = previewRedeem(shares);
        if (assets == 0) revert ZeroAssets();
        _burn(owner, shares);
        emit Withdraw(msg.sender, receiver, owner, assets, shares);
        require(IERC20Like(asset).transfer(receiver, assets));
    }

    // ---- internals ----

    function _pull(uint256 assets) private {
        require(IERC20Like(asset).transferFrom(msg.sender, address(this), assets));
    }

    function _mint(address to, uint256 shares) private {
        totalSupply += shares;
        unchecked {
            balanceOf[to] += shares;
        }
        emit Transfer(address(0), to, shares);
    }

    function _burn(address from, uint256 shares) private {
        balanceOf[from] -= shares;
        unchecked {
            totalSupply -= shares;
        }
        emit Transfer(from, address(0), shares);
    }

    function _move(address from, address to, uint256 amount) private {
        balanceOf[from] -= amount;
        unchecked {
            balanceOf[to] += amount;
        }
        emit Transfer(from, to, amount);
    }

    function _spendAllowance(address owner, uint256 amount) private {
        uint256 allowed = allowance[owner][msg.sender];
        if (allowed != type(uint256).max) allowance[owner][msg.sender] = allowed - amount;
    }

    /// `x * y / d`, rounded down (or up), with the product held in 512 bits.
    /// Reverts when `d` is zero or the result does not fit 256 bits.
    function _mulDiv(uint256 x, uint256 y, uint256 d, bool roundUp) private pure returns (uint256 q) {
        if (d == 0) revert DivisionOverflow();
        uint256 lo;
        uint256 hi;
        unchecked {
            // The product modulo 2^256 and modulo 2^256 - 1 differ by the high
            // word (the Chinese remainder theorem over the two moduli).
            uint256 mm = mulmod(x, y, type(uint256).max);
            lo = x * y;
            hi = mm - lo - (mm < lo ? 1 : 0);
        }
        if (hi == 0) {
            q = lo / d;
            if (roundUp && lo % d != 0) q += 1;
            return q;
        }
        if (hi >= d) revert DivisionOverflow();
        // Schoolbook binary long division of (hi, lo) by d. The remainder
        // stays below d, so twice it plus one bit fits in 257 bits: `carry`
        // is the 257th.
        uint256 r = hi;
        unchecked {
            for (uint256 i = 0; i < 256; ++i) {
                uint256 carry = r >> 255;
                r = (r << 1) | (lo >> 255);
                lo <<= 1;
                q <<= 1;
                if (carry == 1 || r >= d) {
                    r -= d;
                    q |= 1;
                }
            }
        }
        if (roundUp && r != 0) q += 1;
    }
}

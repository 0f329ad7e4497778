// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {ReferenceERC20} from "./ReferenceERC20.sol";

/// @title Reference of Circle's USDC (FiatToken) as CCTP sees it.
/// @notice `ReferenceERC20` (the same storage, so the world sets balances
/// the same way) with FiatToken's minter interface, written for Switchyard
/// from FiatToken's published interface and revert strings, not its code.
/// It is what CCTP's TokenMinter burns and mints through:
///
/// - `masterMinter()`, `isMinter(minter)`, `minterAllowance(minter)`;
/// - `configureMinter(minter, allowance)` and `removeMinter(minter)`, by the
///   master minter only;
/// - `mint(to, amount)`, by a minter within its allowance, which it
///   lowers: not to the zero address, not zero;
/// - `burn(amount)`, by a minter, of its own balance: not zero.
///
/// Pausing, blacklisting, permits and authorizations of the deployed token
/// are left out: no program the world runs uses them.
contract ReferenceFiatToken is ReferenceERC20 {
    address public masterMinter;
    mapping(address => bool) internal minters;
    mapping(address => uint256) internal minterAllowed;

    event Mint(address indexed minter, address indexed to, uint256 amount);
    event Burn(address indexed burner, uint256 amount);
    event MinterConfigured(address indexed minter, uint256 minterAllowedAmount);
    event MinterRemoved(address indexed oldMinter);

    /// @param minter_ A minter configured at deployment (CCTP's TokenMinter
    /// where the chain has one; the zero address for none).
    constructor(string memory name_, string memory symbol_, uint8 decimals_, address minter_, uint256 allowance_)
        ReferenceERC20(name_, symbol_, decimals_)
    {
        masterMinter = msg.sender;
        if (minter_ != address(0)) {
            minters[minter_] = true;
            minterAllowed[minter_] = allowance_;
            emit MinterConfigured(minter_, allowance_);
        }
    }

    function isMinter(address account) external view returns (bool) {
        return minters[account];
    }

    function minterAllowance(address minter) external view returns (uint256) {
        return minterAllowed[minter];
    }

    function configureMinter(address minter, uint256 minterAllowedAmount) external returns (bool) {
        require(msg.sender == masterMinter, "FiatToken: caller is not the masterMinter");
        minters[minter] = true;
        minterAllowed[minter] = minterAllowedAmount;
        emit MinterConfigured(minter, minterAllowedAmount);
        return true;
    }

    function removeMinter(address minter) external returns (bool) {
        require(msg.sender == masterMinter, "FiatToken: caller is not the masterMinter");
        minters[minter] = false;
        minterAllowed[minter] = 0;
        emit MinterRemoved(minter);
        return true;
    }

    function mint(address to, uint256 amount) external returns (bool) {
        require(minters[msg.sender], "FiatToken: caller is not a minter");
        require(to != address(0), "FiatToken: mint to the zero address");
        require(amount > 0, "FiatToken: mint amount not greater than 0");
        uint256 allowed = minterAllowed[msg.sender];
        require(amount <= allowed, "FiatToken: mint amount exceeds minterAllowance");
        totalSupply += amount;
        balanceOf[to] += amount;
        minterAllowed[msg.sender] = allowed - amount;
        emit Mint(msg.sender, to, amount);
        emit Transfer(address(0), to, amount);
        return true;
    }

    function burn(uint256 amount) external {
        require(minters[msg.sender], "FiatToken: caller is not a minter");
        uint256 held = balanceOf[msg.sender];
        require(amount > 0, "FiatToken: burn amount not greater than 0");
        require(held >= amount, "FiatToken: burn amount exceeds balance");
        totalSupply -= amount;
        balanceOf[msg.sender] = held - amount;
        emit Burn(msg.sender, amount);
        emit Transfer(msg.sender, address(0), amount);
    }
}

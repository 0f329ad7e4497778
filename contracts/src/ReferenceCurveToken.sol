// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {ReferenceERC20} from "./ReferenceERC20.sol";

/// @title Reference of a Curve LP token (3Crv, steCRV: `CurveTokenV2`/`V3`).
/// @notice The ERC-20 interface and the functions every deployed Curve LP
/// token shares: `minter`, `set_minter`, `mint` and `burnFrom`, the last
/// three callable by the minter (its pool) alone. `burnFrom` needs no
/// allowance: the pool burns what a withdrawal gives back. Written for
/// Switchyard from the published ABI, not Curve's code. The storage of the
/// balances and the supply is `ReferenceERC20`'s, so the world writes them
/// the same way. Left out: `set_name`, `increaseAllowance` and
/// `decreaseAllowance`, which not every deployed version has.
contract ReferenceCurveToken is ReferenceERC20 {
    /// The pool allowed to mint and burn.
    address public minter;

    error NotMinter(address caller);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address minter_)
        ReferenceERC20(name_, symbol_, decimals_)
    {
        minter = minter_;
    }

    modifier onlyMinter() {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        _;
    }

    /// Hands the minter role to `minter_`.
    function set_minter(address minter_) external onlyMinter {
        minter = minter_;
    }

    /// Mints `value` to `to`.
    function mint(address to, uint256 value) external onlyMinter returns (bool) {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
        return true;
    }

    /// Burns `value` of `from`'s tokens (the pool, on a withdrawal).
    function burnFrom(address from, uint256 value) external onlyMinter returns (bool) {
        balanceOf[from] -= value;
        totalSupply -= value;
        emit Transfer(from, address(0), value);
        return true;
    }
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {ReferenceERC20} from "./ReferenceERC20.sol";

/// @title A plain ERC-20 for tests: `ReferenceERC20` with public `mint` and
/// `burn`.
/// @notice Anyone may mint and burn: tests use `mint` to fund accounts and
/// pools, and `burn` to take assets out of a vault (a loss) without a
/// privileged role. The EVM world never places it.
contract TestERC20 is ReferenceERC20 {
    constructor(string memory name_, string memory symbol_, uint8 decimals_) ReferenceERC20(name_, symbol_, decimals_) {}

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        unchecked {
            // Cannot overflow: no balance exceeds the total supply.
            balanceOf[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    function burn(address from, uint256 amount) external {
        balanceOf[from] -= amount;
        unchecked {
            totalSupply -= amount;
        }
        emit Transfer(from, address(0), amount);
    }
}

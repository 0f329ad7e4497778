// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {IERC20, ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";

/// @title OpenZeppelin's ERC-4626 (`@openzeppelin/contracts@5.7.0`), as
/// vaults built on it deploy it: MetaMorpho vaults, for one, inherit it with
/// a decimals offset of `18 - asset decimals`.
/// @notice Nothing is added to the library's contract: the constructor only
/// names the asset, the share token and the offset, whose virtual shares and
/// assets decide the rounding (`assets * (supply + 10^offset) / (total + 1)`)
/// the kernel's `VaultRule::OpenZeppelin` reproduces.
contract OpenZeppelinVault is ERC4626 {
    uint8 private immutable OFFSET;

    constructor(IERC20 asset_, string memory name_, string memory symbol_, uint8 offset_)
        ERC20(name_, symbol_)
        ERC4626(asset_)
    {
        OFFSET = offset_;
    }

    function _decimalsOffset() internal view override returns (uint8) {
        return OFFSET;
    }
}

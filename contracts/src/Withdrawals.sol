// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

import {requireTokenCall} from "./TokenTransfers.sol";

/// What Enso's wallets and accounts send their owner on `withdraw*`
/// (OpenZeppelin's SafeERC20 rules for an ERC-20, `safeTransferFrom` for
/// ERC-721 ids, one `safeBatchTransferFrom` for ERC-1155 ids). Written here.
interface IERC721Transfer {
    function safeTransferFrom(address from, address to, uint256 id) external;
}

interface IERC1155Transfer {
    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata amounts,
        bytes calldata data
    ) external;
}

function sendToken(address token, address to, uint256 amount) {
    (bool ok, bytes memory r) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
    requireTokenCall(token, ok, r);
}

function sendERC721s(address erc721, address from, address to, uint256[] calldata ids) {
    for (uint256 k; k < ids.length; ++k) {
        IERC721Transfer(erc721).safeTransferFrom(from, to, ids[k]);
    }
}

function sendERC1155s(
    address erc1155,
    address from,
    address to,
    uint256[] calldata ids,
    uint256[] calldata amounts
) {
    IERC1155Transfer(erc1155).safeBatchTransferFrom(from, to, ids, amounts, "");
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title What Enso's deployed executors and delegates inherit from
/// OpenZeppelin's `ERC721Holder` and `ERC1155Holder`, plus `receive()`.
/// @notice The ERC-721/1155 receiver hooks accept every token and return
/// their own selectors; `supportsInterface` answers for ERC-165 and
/// `IERC1155Receiver`. Written here.
abstract contract TokenReceiverHooks {
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC721Received.selector;
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == 0x4e2312e0 || interfaceId == 0x01ffc9a7;
    }

    receive() external payable {}
}

// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

interface IERC20Like {
    function balanceOf(address who) external view returns (uint256);
}

interface IERC721Like {
    function balanceOf(address who) external view returns (uint256);
    function safeTransferFrom(address from, address to, uint256 id) external;
}

interface IERC1155Like {
    function balanceOf(address who, uint256 id) external view returns (uint256);
    function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes calldata data) external;
}

enum TokenType {
    Native,
    ERC20,
    ERC721,
    ERC1155
}

/// ERC20 `abi.encode(token, amount)`; Native `abi.encode(amount)`; ERC721
/// `abi.encode(token, id)`; ERC1155 `abi.encode(token, id, amount)`. For an
/// output the amount is the minimum.
struct Token {
    TokenType tokenType;
    bytes data;
}

/// OpenZeppelin SafeERC20's error for a token call that returned false or
/// nothing from a non-contract.
error SafeERC20FailedOperation(address token);

/// OpenZeppelin SafeERC20's rule for the outcome of a token call: a revert
/// is passed on as it came; otherwise the return must be empty from a
/// contract, or decode to true.
function requireTokenCall(address token, bool ok, bytes memory returned) view {
    if (!ok) {
        assembly ("memory-safe") {
            revert(add(returned, 32), mload(returned))
        }
    }
    if (returned.length == 0 ? token.code.length == 0 : (returned.length < 32 || abi.decode(returned, (uint256)) != 1)) {
        revert SafeERC20FailedOperation(token);
    }
}

/// @title How Enso's router and wallet factory move a caller's inputs.
/// @notice ERC-20 by a checked `transferFrom` (OpenZeppelin SafeERC20's
/// rules and error), ERC-721/1155 by `safeTransferFrom` (data `"0x"` for
/// 1155), all from `msg.sender`; a Native entry moves nothing here and is
/// reported to the caller, which settles it against `msg.value`.
abstract contract TokenTransfers {
    /// The deployed contract's own revert for a token type it does not know.
    function _unsupportedTokenType(TokenType tokenType) internal pure virtual;

    /// Moves `t` from `msg.sender` to `to`; true for a Native entry.
    function _pull(Token calldata t, address to) internal returns (bool native) {
        TokenType kind = t.tokenType;
        if (kind == TokenType.ERC20) {
            (address token, uint256 amount) = abi.decode(t.data, (address, uint256));
            _safeTransferFrom(token, msg.sender, to, amount);
        } else if (kind == TokenType.Native) {
            native = true;
        } else if (kind == TokenType.ERC721) {
            (address token, uint256 id) = abi.decode(t.data, (address, uint256));
            IERC721Like(token).safeTransferFrom(msg.sender, to, id);
        } else if (kind == TokenType.ERC1155) {
            (address token, uint256 id, uint256 amount) = abi.decode(t.data, (address, uint256, uint256));
            IERC1155Like(token).safeTransferFrom(msg.sender, to, id, amount, "0x");
        } else {
            _unsupportedTokenType(kind);
        }
    }

    function _safeTransferFrom(address token, address from, address to, uint256 amount) private {
        (bool ok, bytes memory r) = token.call(abi.encodeWithSelector(0x23b872dd, from, to, amount));
        requireTokenCall(token, ok, r);
    }
}

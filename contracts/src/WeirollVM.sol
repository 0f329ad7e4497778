// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title The weiroll VM in the variant the shortcuts executors run.
/// @notice A program is a list of `bytes32` commands over a `bytes[]` state.
/// Each command calls one contract with arguments taken from state slots and
/// may write the call's return into a slot, so one step's real output feeds
/// the next step's input.
///
/// Command layout, most significant byte first:
///
///     bytes 0-3    selector
///     byte  4      flags
///     bytes 5-10   six input index bytes
///     byte  11     output index byte
///     bytes 12-31  target address
///
/// Flags: the low two bits are the call type (0x01 CALL, 0x02 STATICCALL,
/// 0x03 CALL with value, whose first input names the wei amount; 0x00, a
/// delegatecall, is refused). 0x20: the single input slot is the whole
/// calldata (no selector is prepended). 0x40: extended command, the next
/// `bytes32` of the program holds 32 input index bytes. 0x80: the raw return
/// bytes are stored in the output slot as a `bytes` value (length word, then
/// the data), to be decoded by a later command.
///
/// Index bytes: bit 0x80 marks a variable-length slot (its bytes are the tail
/// of an ABI encoding, a multiple of 32 bytes) and the low 7 bits name the
/// slot; a fixed slot must hold exactly 32 bytes. Special values: 0xff ends
/// the list (or, as output, ignores the return); 0xfe passes the whole state
/// as one `bytes[]` argument (or, as output, replaces the state with the
/// return decoded as `bytes[]`); 0xfd starts an array argument and 0xfc a
/// tuple argument, whose elements are the following indices up to 0xfb.
/// Array elements are all fixed or all variable-length; arrays and tuples do
/// not nest. A variable-length output stores the return without its leading
/// offset word.
///
/// Every CALL records its target in transient storage for the duration of
/// the call, so a callback (a Uniswap V3 swap paying through its caller) can
/// check that it comes from the contract the program is calling.
abstract contract WeirollVM {
    uint256 private constant CALLTYPE_MASK = 0x03;
    uint256 private constant CALLTYPE_CALL = 0x01;
    uint256 private constant CALLTYPE_STATICCALL = 0x02;
    uint256 private constant CALLTYPE_VALUECALL = 0x03;
    uint256 private constant FLAG_DATA = 0x20;
    uint256 private constant FLAG_EXTENDED = 0x40;
    uint256 private constant FLAG_TUPLE_RETURN = 0x80;

    uint256 private constant IDX_VARIABLE = 0x80;
    uint256 private constant IDX_SLOT_MASK = 0x7f;
    uint256 private constant IDX_END = 0xff;
    uint256 private constant IDX_USE_STATE = 0xfe;
    uint256 private constant IDX_ARRAY_START = 0xfd;
    uint256 private constant IDX_TUPLE_START = 0xfc;
    uint256 private constant IDX_DYNAMIC_END = 0xfb;

    /// The contract the running command calls, for callback checks.
    address internal transient _callTarget;

    /// A command's call failed; `message` is the callee's `Error(string)`
    /// reason, or its raw revert data in hex (`0x…`), or "empty".
    error ExecutionFailed(uint256 command_index, address target, string message);
    /// A command asked for a delegatecall, which this variant refuses.
    error DelegateCallRefused(uint256 command_index);
    /// An extended command is the last word of the program.
    error MissingIndices(uint256 command_index);
    /// An argument does not fit its slot: a fixed slot that is not 32 bytes,
    /// a variable one that is not a multiple of 32, a mixed or nested array
    /// or tuple, or a return that does not fit its output slot.
    error BadEncoding(uint256 command_index);

    /// Runs `commands` over `state` and returns the final state.
    function _execute(bytes32[] calldata commands, bytes[] memory state) internal returns (bytes[] memory) {
        uint256 n = commands.length;
        for (uint256 i; i < n; ++i) {
            bytes32 command = commands[i];
            uint256 cmdIndex = i;
            uint256 flags = uint8(command[4]);
            bytes32 indices;
            if (flags & FLAG_EXTENDED != 0) {
                if (i + 1 >= n) revert MissingIndices(cmdIndex);
                indices = commands[++i];
            } else {
                // The six input bytes, then 0xff everywhere after them.
                indices = (command << 40) | bytes32(type(uint256).max >> 48);
            }
            state = _run(cmdIndex, command, flags, indices, state);
        }
        return state;
    }

    function _run(uint256 cmdIndex, bytes32 command, uint256 flags, bytes32 indices, bytes[] memory state)
        private
        returns (bytes[] memory)
    {
        address target = address(uint160(uint256(command)));
        uint256 callType = flags & CALLTYPE_MASK;
        uint256 value;
        if (callType == 0) revert DelegateCallRefused(cmdIndex);
        if (callType == CALLTYPE_VALUECALL) {
            uint256 v = uint8(indices[0]);
            if (v & IDX_VARIABLE != 0 || state[v].length != 32) revert BadEncoding(cmdIndex);
            value = abi.decode(state[v], (uint256));
            indices = (indices << 8) | bytes32(uint256(IDX_END));
        }
        bytes memory data;
        if (flags & FLAG_DATA != 0) {
            data = state[uint8(indices[0]) & IDX_SLOT_MASK];
        } else {
            data = _encode(cmdIndex, bytes4(command), indices, state);
        }
        bool ok;
        bytes memory ret;
        if (callType == CALLTYPE_STATICCALL) {
            (ok, ret) = target.staticcall(data);
        } else {
            _callTarget = target;
            (ok, ret) = target.call{value: value}(data);
            _callTarget = address(0);
        }
        if (!ok) revert ExecutionFailed(cmdIndex, target, _reason(ret));

        uint256 out = uint8(command[11]);
        if (out == IDX_END) return state;
        if (flags & FLAG_TUPLE_RETURN != 0) {
            // Stored as the ABI tail of `bytes` (length word, data padded),
            // so it can be passed on as a variable-length `bytes` argument.
            bytes memory enc = abi.encode(ret);
            state[out & IDX_SLOT_MASK] = _slice(enc, 32, enc.length - 32);
        } else if (out == IDX_USE_STATE) {
            state = abi.decode(ret, (bytes[]));
        } else if (out & IDX_VARIABLE != 0) {
            // A single dynamic return: an offset word (32), then the tail.
            if (ret.length < 64 || ret.length % 32 != 0 || _word(ret, 0) != 32) revert BadEncoding(cmdIndex);
            state[out & IDX_SLOT_MASK] = _slice(ret, 32, ret.length - 32);
        } else {
            if (ret.length != 32) revert BadEncoding(cmdIndex);
            state[out & IDX_SLOT_MASK] = ret;
        }
        return state;
    }

    /// ABI-encodes the arguments the index list names, after `selector`.
    function _encode(uint256 cmdIndex, bytes4 selector, bytes32 indices, bytes[] memory state)
        private
        pure
        returns (bytes memory)
    {
        // First pass: how many head words the top-level arguments take.
        uint256 heads;
        for (uint256 k; k < 32; ++k) {
            uint256 idx = uint8(indices[k]);
            if (idx == IDX_END) break;
            if (idx == IDX_ARRAY_START || idx == IDX_TUPLE_START) {
                k = _groupEnd(cmdIndex, indices, k);
            }
            ++heads;
        }
        bytes memory head = abi.encodePacked(selector);
        bytes memory tail;
        uint256 headBytes = heads * 32;
        bytes memory stateTail;
        for (uint256 k; k < 32; ++k) {
            uint256 idx = uint8(indices[k]);
            if (idx == IDX_END) break;
            if (idx == IDX_USE_STATE) {
                if (stateTail.length == 0) {
                    bytes memory whole = abi.encode(state);
                    stateTail = _slice(whole, 32, whole.length - 32);
                }
                head = bytes.concat(head, bytes32(headBytes + tail.length));
                tail = bytes.concat(tail, stateTail);
            } else if (idx == IDX_ARRAY_START || idx == IDX_TUPLE_START) {
                uint256 end = _groupEnd(cmdIndex, indices, k);
                bytes memory body = idx == IDX_ARRAY_START
                    ? _array(cmdIndex, indices, k + 1, end, state)
                    : _tuple(cmdIndex, indices, k + 1, end, state);
                head = bytes.concat(head, bytes32(headBytes + tail.length));
                tail = bytes.concat(tail, body);
                k = end;
            } else if (idx & IDX_VARIABLE != 0) {
                bytes memory v = state[idx & IDX_SLOT_MASK];
                if (v.length % 32 != 0) revert BadEncoding(cmdIndex);
                head = bytes.concat(head, bytes32(headBytes + tail.length));
                tail = bytes.concat(tail, v);
            } else {
                head = bytes.concat(head, _fixed(cmdIndex, state, idx));
            }
        }
        return bytes.concat(head, tail);
    }

    /// Position of the 0xfb closing the group opened cmdIndex `start`.
    function _groupEnd(uint256 cmdIndex, bytes32 indices, uint256 start) private pure returns (uint256) {
        for (uint256 k = start + 1; k < 32; ++k) {
            uint256 idx = uint8(indices[k]);
            if (idx == IDX_DYNAMIC_END) return k;
            if (idx == IDX_END || idx == IDX_USE_STATE || idx == IDX_ARRAY_START || idx == IDX_TUPLE_START) {
                break;
            }
        }
        revert BadEncoding(cmdIndex);
    }

    /// The tail of an array argument: the count, then the elements (fixed
    /// words, or offsets then tails for variable-length elements).
    function _array(uint256 cmdIndex, bytes32 indices, uint256 from, uint256 to, bytes[] memory state)
        private
        pure
        returns (bytes memory body)
    {
        uint256 count = to - from;
        body = abi.encodePacked(count);
        if (count == 0) return body;
        bool variable = uint8(indices[from]) & IDX_VARIABLE != 0;
        bytes memory tails;
        for (uint256 k = from; k < to; ++k) {
            uint256 idx = uint8(indices[k]);
            if ((idx & IDX_VARIABLE != 0) != variable) revert BadEncoding(cmdIndex);
            if (variable) {
                bytes memory v = state[idx & IDX_SLOT_MASK];
                if (v.length % 32 != 0) revert BadEncoding(cmdIndex);
                body = bytes.concat(body, bytes32(count * 32 + tails.length));
                tails = bytes.concat(tails, v);
            } else {
                body = bytes.concat(body, _fixed(cmdIndex, state, idx));
            }
        }
        return bytes.concat(body, tails);
    }

    /// The encoding of a tuple argument: fixed members in place, offsets
    /// (from the tuple's start) for variable-length ones, then their tails.
    function _tuple(uint256 cmdIndex, bytes32 indices, uint256 from, uint256 to, bytes[] memory state)
        private
        pure
        returns (bytes memory body)
    {
        uint256 headBytes = (to - from) * 32;
        bytes memory tails;
        for (uint256 k = from; k < to; ++k) {
            uint256 idx = uint8(indices[k]);
            if (idx & IDX_VARIABLE != 0) {
                bytes memory v = state[idx & IDX_SLOT_MASK];
                if (v.length % 32 != 0) revert BadEncoding(cmdIndex);
                body = bytes.concat(body, bytes32(headBytes + tails.length));
                tails = bytes.concat(tails, v);
            } else {
                body = bytes.concat(body, _fixed(cmdIndex, state, idx));
            }
        }
        return bytes.concat(body, tails);
    }

    function _fixed(uint256 cmdIndex, bytes[] memory state, uint256 idx) private pure returns (bytes32 w) {
        bytes memory v = state[idx];
        if (v.length != 32) revert BadEncoding(cmdIndex);
        assembly ("memory-safe") {
            w := mload(add(v, 32))
        }
    }

    function _word(bytes memory b, uint256 offset) private pure returns (uint256 w) {
        assembly ("memory-safe") {
            w := mload(add(add(b, 32), offset))
        }
    }

    function _slice(bytes memory b, uint256 from, uint256 len) private pure returns (bytes memory out) {
        out = new bytes(len);
        for (uint256 k; k < len; k += 32) {
            uint256 w = _word(b, from + k);
            assembly ("memory-safe") {
                mstore(add(add(out, 32), k), w)
            }
        }
    }

    /// A readable reason for a failed call.
    function _reason(bytes memory ret) private pure returns (string memory) {
        if (ret.length == 0) return "empty";
        // Error(string): selector, offset, length, bytes.
        if (ret.length >= 68 && bytes4(ret) == 0x08c379a0) {
            uint256 len = _word(ret, 36);
            if (len <= ret.length - 68) {
                bytes memory s = new bytes(len);
                for (uint256 k; k < len; ++k) {
                    s[k] = ret[68 + k];
                }
                return string(s);
            }
        }
        bytes16 digits = "0123456789abcdef";
        uint256 shown = ret.length > 256 ? 256 : ret.length;
        bytes memory hexed = new bytes(2 + 2 * shown);
        hexed[0] = "0";
        hexed[1] = "x";
        for (uint256 k; k < shown; ++k) {
            hexed[2 + 2 * k] = digits[uint8(ret[k]) >> 4];
            hexed[3 + 2 * k] = digits[uint8(ret[k]) & 0x0f];
        }
        return string(hexed);
    }
}

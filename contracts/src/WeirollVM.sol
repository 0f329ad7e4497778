// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity 0.8.37;

/// @title The weiroll VM as Enso's deployed executors run it.
/// @notice Written here from the behaviour of the public `enso-weiroll`
/// VM (`contracts/VM.sol`, `contracts/CommandBuilder.sol`), which every
/// deployed `EnsoShortcuts` executor and delegate embeds; it has the same
/// external effects (calls, state, revert data), not the same code.
///
/// A program is a list of `bytes32` commands over a `bytes[]` state. Each
/// command calls one contract with arguments taken from state slots and may
/// write the call's return into a slot.
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
/// 0x03 CALL with value, whose first input names the wei amount; 0x00 reverts
/// "Invalid calltype"). 0x20: the (first non-value) input slot is the whole
/// calldata. 0x40: extended command, the next `bytes32` holds 32 input index
/// bytes. 0x80: the raw return is stored as its length word followed by the
/// bytes, unpadded.
///
/// Index bytes: bit 0x80 marks a variable-length slot (the ABI tail of a
/// dynamic value, a non-zero multiple of 32 bytes), the low 7 bits name the
/// slot; a fixed slot holds exactly 32 bytes. 0xff ends the list (as output:
/// ignore the return); 0xfe is the whole state as one `bytes[]` (as output:
/// replace the state with the return decoded as `bytes[]`); 0xfd opens an
/// array, whose first index names a 32-byte slot holding the array's length,
/// followed by its elements; 0xfc opens a tuple; 0xfb closes either. Groups
/// nest, at most 10 in one command.
///
/// A failed call reverts `ExecutionFailed(index, target, message)`, where
/// `message` is the callee's revert string when its revert data is shaped
/// like `Error(string)` (the selector is not checked), else "Unknown".
abstract contract WeirollVM {
    uint256 private constant CALLTYPE_MASK = 0x03;
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

    error ExecutionFailed(uint256 command_index, address target, string message);

    /// Runs `commands` over `state` and returns the final state.
    function _execute(bytes32[] calldata commands, bytes[] memory state) internal returns (bytes[] memory) {
        uint256 n = commands.length;
        for (uint256 i; i < n; ++i) {
            bytes32 command = commands[i];
            uint256 index = i;
            uint256 flags = uint8(command[4]);
            bytes32 indices;
            uint256 count;
            if (flags & FLAG_EXTENDED != 0) {
                // Reading past the program panics (0x32), as the VM does.
                indices = commands[++i];
                count = 32;
            } else {
                indices = (command << 40) | bytes32(type(uint256).max >> 48);
                count = 6;
            }
            state = _step(index, command, flags, indices, count, state);
        }
        return state;
    }

    function _step(uint256 index, bytes32 command, uint256 flags, bytes32 indices, uint256 count, bytes[] memory state)
        private
        returns (bytes[] memory)
    {
        address target = address(uint160(uint256(command)));
        uint256 callType = flags & CALLTYPE_MASK;
        if (callType == 0) revert("Invalid calltype");
        uint256 value;
        if (callType == CALLTYPE_VALUECALL) {
            bytes memory v = state[uint8(indices[0]) & IDX_SLOT_MASK];
            require(v.length == 32, "Value must be 32 bytes");
            value = uint256(bytes32(v));
            // The remaining indices; the byte shifted in is 0x00.
            indices = indices << 8;
            count -= 1;
        }
        bytes memory data = flags & FLAG_DATA != 0
            ? state[uint8(indices[0]) & IDX_SLOT_MASK]
            : _calldata(bytes4(command), indices, count, state);
        bool ok;
        bytes memory ret;
        if (callType == CALLTYPE_STATICCALL) {
            (ok, ret) = target.staticcall(data);
        } else {
            (ok, ret) = target.call{value: value}(data);
        }
        if (!ok) revert ExecutionFailed(index, target, _message(ret));
        return _store(flags, uint8(command[11]), ret, state);
    }

    function _store(uint256 flags, uint256 out, bytes memory ret, bytes[] memory state)
        private
        pure
        returns (bytes[] memory)
    {
        if (flags & FLAG_TUPLE_RETURN != 0) {
            if (out != IDX_END) state[out & IDX_SLOT_MASK] = abi.encodePacked(ret.length, ret);
            return state;
        }
        if (out == IDX_END) return state;
        if (out == IDX_USE_STATE) return abi.decode(ret, (bytes[]));
        if (out & IDX_VARIABLE != 0) {
            uint256 slot = out & IDX_SLOT_MASK;
            require(slot < state.length, "Index out-of-bounds");
            require(ret.length >= 32 && _word(ret, 0) == 32, "Only one return value permitted (variable)");
            state[slot] = _slice(ret, 32, ret.length - 32);
            return state;
        }
        require(out < state.length, "Index out-of-bounds");
        require(ret.length == 32, "Only one return value permitted (static)");
        state[out] = ret;
        return state;
    }

    // ------------------------------------------------------------ calldata

    /// Where the encoder is in a command's index list.
    struct Cursor {
        bytes32 indices;
        uint256 k;
        uint256 count;
        uint256 groups;
    }

    /// `selector` followed by the ABI encoding of the arguments `indices`
    /// names (its first `count` bytes at most).
    function _calldata(bytes4 selector, bytes32 indices, uint256 count, bytes[] memory state)
        private
        pure
        returns (bytes memory)
    {
        Cursor memory c = Cursor(indices, 0, count, 0);
        return bytes.concat(selector, _sequence(c, state, false));
    }

    /// Encodes the arguments from the cursor until its count (top level: an
    /// 0xff or the end) or the 0xfb closing a group (`inGroup`), as a head
    /// of words and offsets followed by the tails; leaves the cursor after
    /// the sequence.
    function _sequence(Cursor memory c, bytes[] memory state, bool inGroup) private pure returns (bytes memory) {
        bytes[] memory parts = new bytes[](32);
        bool[] memory dynamic = new bool[](32);
        uint256 n;
        while (true) {
            if (c.k >= c.count) {
                require(!inGroup, "Dynamic type was not properly closed");
                break;
            }
            uint256 idx = uint8(c.indices[c.k]);
            if (inGroup && idx == IDX_DYNAMIC_END) {
                ++c.k;
                break;
            }
            if (!inGroup && idx == IDX_END) break;
            ++c.k;
            (parts[n], dynamic[n]) = _argument(c, state, inGroup, idx);
            ++n;
        }
        bytes memory head;
        bytes memory tail;
        for (uint256 j; j < n; ++j) {
            if (dynamic[j]) {
                head = bytes.concat(head, bytes32(n * 32 + tail.length));
                tail = bytes.concat(tail, parts[j]);
            } else {
                head = bytes.concat(head, parts[j]);
            }
        }
        return bytes.concat(head, tail);
    }

    /// One argument's encoding (its tail, for a dynamic one) and whether it
    /// is dynamic.
    function _argument(Cursor memory c, bytes[] memory state, bool inGroup, uint256 idx)
        private
        pure
        returns (bytes memory, bool)
    {
        if (idx == IDX_USE_STATE) {
            require(!inGroup, "Cannot use state from inside dynamic type");
            bytes memory enc = abi.encode(state);
            return (_slice(enc, 32, enc.length - 32), true);
        }
        if (idx == IDX_ARRAY_START || idx == IDX_TUPLE_START) {
            ++c.groups;
            require(c.groups <= 10, "Too many dynamic types");
            if (idx == IDX_TUPLE_START) return (_sequence(c, state, true), true);
            bytes memory len = state[uint8(c.indices[c.k])];
            ++c.k;
            require(len.length == 32, "Array length must be 32 bytes");
            return (bytes.concat(len, _sequence(c, state, true)), true);
        }
        if (idx & IDX_VARIABLE != 0) {
            bytes memory v = state[idx & IDX_SLOT_MASK];
            require(v.length != 0 && v.length % 32 == 0, "Dynamic state variables must be a multiple of 32 bytes");
            return (v, true);
        }
        bytes memory w = state[idx];
        require(w.length == 32, "Static state variables must be 32 bytes");
        return (w, false);
    }

    // --------------------------------------------------------------- bytes

    function _word(bytes memory b, uint256 offset) private pure returns (uint256 w) {
        assembly ("memory-safe") {
            w := mload(add(add(b, 32), offset))
        }
    }

    function _slice(bytes memory b, uint256 from, uint256 len) private pure returns (bytes memory out) {
        out = new bytes(len);
        assembly ("memory-safe") {
            mcopy(add(out, 32), add(add(b, 32), from), len)
        }
    }

    /// The revert string of `ret` when it is shaped like `Error(string)`
    /// with a string up to its first zero byte, else "Unknown".
    function _message(bytes memory ret) private pure returns (string memory) {
        if (ret.length <= 68 || _word(ret, 4) != 32) return "Unknown";
        uint256 size = _word(ret, 36);
        uint256 end = 68;
        while (end < ret.length && ret[end] != 0) ++end;
        if (size != end - 68) return "Unknown";
        return string(_slice(ret, 68, size));
    }
}

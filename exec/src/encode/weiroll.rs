//! Weiroll programs in the variant the executors run
//! (`contracts/src/WeirollVM.sol`): a builder that lays out the state slots
//! and commands, and [`Program::calldata`], the same argument encoding the
//! VM performs, so a program can be checked call by call without an EVM.
//!
//! ```text
//! ProgramBuilder::constant / bytes      ──▶ Slot (state entry, deduplicated)
//! ProgramBuilder::call(kind, target, selector, [In], Out) ──▶ command word(s), output Slot
//! ProgramBuilder::build ──▶ Program { commands: Vec<B256>, state: Vec<Bytes> }
//! ```
//!
//! Command layout, most significant byte first: selector (4), flags (1), six
//! input index bytes, one output index byte, target (20). Flags: call type
//! in the low two bits (1 CALL, 2 STATICCALL, 3 CALL with value whose first
//! input is the wei amount), `0x20` raw calldata from one slot, `0x40`
//! extended (the next word holds 32 input indices), `0x80` the raw return
//! stored as `bytes`. Index bytes: `0x80` marks a variable-length slot,
//! `0xff` ends the list, `0xfe` is the whole state, `0xfd`/`0xfc` open an
//! array/tuple closed by `0xfb`.

use std::collections::HashMap;

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolValue;

/// Most state slots a program may have (the index byte's low 7 bits).
pub const MAX_SLOTS: usize = 127;

const FLAG_DATA: u8 = 0x20;
const FLAG_EXTENDED: u8 = 0x40;
const FLAG_TUPLE_RETURN: u8 = 0x80;
const IDX_VARIABLE: u8 = 0x80;
const IDX_END: u8 = 0xff;
const IDX_USE_STATE: u8 = 0xfe;
const IDX_ARRAY_START: u8 = 0xfd;
const IDX_TUPLE_START: u8 = 0xfc;
const IDX_DYNAMIC_END: u8 = 0xfb;

/// Why a program cannot be built or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WeirollError {
    /// More than [`MAX_SLOTS`] state entries.
    #[error("a program may use at most {MAX_SLOTS} state slots")]
    TooManySlots,
    /// More input indices than an extended command holds.
    #[error("a command takes at most 32 input indices")]
    TooManyInputs,
    /// A value call's first input must be a fixed slot.
    #[error("the value of a call must be a fixed slot")]
    BadValue,
    /// A fixed slot that is not 32 bytes, a variable one that is not a
    /// multiple of 32, a mixed array, a nested group, an unclosed group.
    #[error("command {0}: argument does not fit its slot")]
    BadEncoding(usize),
    /// A slot index past the state.
    #[error("command {0}: slot out of range")]
    SlotOutOfRange(usize),
    /// An extended command is the last word.
    #[error("command {0}: extended command without its index word")]
    MissingIndices(usize),
    /// A delegatecall command.
    #[error("command {0}: delegatecall is refused")]
    Delegatecall(usize),
}

/// A state slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(u8);

impl Slot {
    /// Its index in the state.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a command calls its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// `CALL` without value.
    Call,
    /// `STATICCALL`.
    StaticCall,
    /// `CALL` with the wei amount in a slot.
    Value(Slot),
}

/// One argument of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum In {
    /// A 32-byte slot (a static value).
    Fixed(Slot),
    /// A variable-length slot: the ABI tail of a dynamic value.
    Var(Slot),
    /// An array `T[]` of the given elements (all fixed or all variable).
    Array(Vec<Self>),
    /// A dynamic tuple of the given members (fixed or variable, not nested).
    Tuple(Vec<Self>),
    /// The whole state as one `bytes[]`.
    State,
}

/// Where a call's return goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    /// Ignored.
    Ignore,
    /// One static word into a new slot.
    Word,
    /// One dynamic value's tail into a new variable slot.
    Var,
    /// The raw return bytes, as a `bytes` value, into a new variable slot.
    Raw,
}

/// A built program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Program {
    /// Command words (extended commands take two).
    pub commands: Vec<B256>,
    /// Initial state.
    pub state: Vec<Bytes>,
}

/// Lays out a program: constants become deduplicated state slots, each
/// call's output a new slot.
#[derive(Debug, Default, Clone)]
pub struct ProgramBuilder {
    program: Program,
    constants: HashMap<Bytes, Slot>,
    /// Command index (first word) of each call, in order.
    calls: usize,
    /// The chain's helper contracts.
    helpers: super::helpers::Helpers,
}

impl ProgramBuilder {
    /// An empty program with no helper contracts.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty program for a chain with these helper contracts.
    pub fn with_helpers(helpers: super::helpers::Helpers) -> Self {
        Self { helpers, ..Self::default() }
    }

    /// The chain's helper contracts.
    pub const fn helpers(&self) -> super::helpers::Helpers {
        self.helpers
    }

    fn slot(&mut self, value: Bytes) -> Result<Slot, WeirollError> {
        if self.program.state.len() >= MAX_SLOTS {
            return Err(WeirollError::TooManySlots);
        }
        let s = Slot(self.program.state.len() as u8);
        self.program.state.push(value);
        Ok(s)
    }

    fn constant_bytes(&mut self, encoded: Bytes) -> Result<Slot, WeirollError> {
        if let Some(s) = self.constants.get(&encoded) {
            return Ok(*s);
        }
        let s = self.slot(encoded.clone())?;
        self.constants.insert(encoded, s);
        Ok(s)
    }

    /// A static constant (`uint256`, `address`, `bool`, `bytes32`…): its
    /// 32-byte ABI word, shared by every use.
    pub fn word<T: SolValue>(&mut self, value: T) -> Result<In, WeirollError> {
        self.constant_bytes(value.abi_encode().into()).map(In::Fixed)
    }

    /// A `uint256` constant.
    pub fn uint(&mut self, value: U256) -> Result<In, WeirollError> {
        self.word(value)
    }

    /// An `address` constant.
    pub fn address(&mut self, value: Address) -> Result<In, WeirollError> {
        self.word(value)
    }

    /// A dynamic `bytes` constant (its length word and padded data).
    pub fn bytes(&mut self, value: &[u8]) -> Result<In, WeirollError> {
        let enc = Bytes::from(value.to_vec()).abi_encode();
        // `abi.encode(bytes)` is an offset word, then the tail.
        self.constant_bytes(Bytes::from(enc[32..].to_vec())).map(In::Var)
    }

    /// A dynamic constant (`address[]`, `uint256[]`…) as a member of a
    /// tuple takes it: its ABI tail (length word and elements).
    pub fn dynamic<T: SolValue>(&mut self, value: &T) -> Result<In, WeirollError> {
        let enc = value.abi_encode();
        // `abi.encode(T)` of a dynamic `T` is an offset word, then the tail.
        let tail = enc.get(32..).ok_or(WeirollError::BadEncoding(0))?;
        self.constant_bytes(Bytes::from(tail.to_vec())).map(In::Var)
    }

    /// A slot holding `value` exactly, as raw calldata for [`Self::raw_call`].
    pub fn raw(&mut self, value: &[u8]) -> Result<Slot, WeirollError> {
        self.constant_bytes(Bytes::from(value.to_vec()))
    }

    /// A fresh mutable slot (never shared), initialised to zero.
    pub fn scratch_word(&mut self) -> Result<Slot, WeirollError> {
        self.slot(U256::ZERO.abi_encode().into())
    }

    /// Appends a call of `selector` on `target` with `args`; returns the
    /// output slot (a new one) unless the output is ignored.
    pub fn call(
        &mut self,
        kind: CallKind,
        target: Address,
        selector: [u8; 4],
        args: &[In],
        out: Out,
    ) -> Result<Option<Slot>, WeirollError> {
        let mut indices = Vec::with_capacity(8);
        if let CallKind::Value(v) = kind {
            indices.push(v.0);
        }
        for a in args {
            self.push_indices(&mut indices, a, false)?;
        }
        self.emit(kind, target, selector, 0, &indices, out)
    }

    /// Appends a call whose calldata is the whole content of `data` (no
    /// selector is prepended): a plain value transfer with an empty slot, or
    /// a precomputed call.
    pub fn raw_call(
        &mut self,
        kind: CallKind,
        target: Address,
        data: Slot,
        out: Out,
    ) -> Result<Option<Slot>, WeirollError> {
        let mut indices = Vec::with_capacity(2);
        if let CallKind::Value(v) = kind {
            indices.push(v.0);
        }
        indices.push(data.0 | IDX_VARIABLE);
        self.emit(kind, target, [0; 4], FLAG_DATA, &indices, out)
    }

    /// The index bytes of one argument. An array opens with the slot of
    /// its length (the deployed VM's layout), then its elements.
    fn push_indices(
        &mut self,
        out: &mut Vec<u8>,
        arg: &In,
        nested: bool,
    ) -> Result<(), WeirollError> {
        match arg {
            In::Fixed(s) => out.push(s.0),
            In::Var(s) => out.push(s.0 | IDX_VARIABLE),
            In::State if !nested => out.push(IDX_USE_STATE),
            In::Array(items) if !nested => {
                let len = self.constant_bytes(U256::from(items.len()).abi_encode().into())?;
                out.push(IDX_ARRAY_START);
                out.push(len.0);
                for i in items {
                    self.push_indices(out, i, true)?;
                }
                out.push(IDX_DYNAMIC_END);
            }
            In::Tuple(items) if !nested => {
                out.push(IDX_TUPLE_START);
                for i in items {
                    self.push_indices(out, i, true)?;
                }
                out.push(IDX_DYNAMIC_END);
            }
            _ => return Err(WeirollError::BadEncoding(0)),
        }
        Ok(())
    }

    fn emit(
        &mut self,
        kind: CallKind,
        target: Address,
        selector: [u8; 4],
        extra_flags: u8,
        indices: &[u8],
        out: Out,
    ) -> Result<Option<Slot>, WeirollError> {
        if indices.len() > 32 {
            return Err(WeirollError::TooManyInputs);
        }
        let out_slot = match out {
            Out::Ignore => None,
            Out::Word => Some(self.scratch_word()?),
            Out::Var | Out::Raw => Some(self.slot(Bytes::new())?),
        };
        let out_byte = match (out, out_slot) {
            (Out::Word, Some(s)) => s.0,
            (Out::Var | Out::Raw, Some(s)) => s.0 | IDX_VARIABLE,
            _ => IDX_END,
        };
        let mut flags = extra_flags
            | match kind {
                CallKind::Call => 0x01,
                CallKind::StaticCall => 0x02,
                CallKind::Value(_) => 0x03,
            };
        if out == Out::Raw {
            flags |= FLAG_TUPLE_RETURN;
        }
        let extended = indices.len() > 6;
        if extended {
            flags |= FLAG_EXTENDED;
        }
        let mut word = [0u8; 32];
        word[..4].copy_from_slice(&selector);
        word[4] = flags;
        word[5..11].fill(IDX_END);
        if !extended {
            word[5..5 + indices.len()].copy_from_slice(indices);
        }
        word[11] = out_byte;
        word[12..].copy_from_slice(target.as_slice());
        self.program.commands.push(B256::from(word));
        if extended {
            let mut ext = [IDX_END; 32];
            ext[..indices.len()].copy_from_slice(indices);
            self.program.commands.push(B256::from(ext));
        }
        self.calls += 1;
        Ok(out_slot)
    }

    /// Number of calls so far.
    pub const fn calls(&self) -> usize {
        self.calls
    }

    /// Number of command words so far (a mark for [`Self::move_to_front`]).
    pub fn words(&self) -> usize {
        self.program.commands.len()
    }

    /// Moves the command words from `mark` on to the start of the program:
    /// a prologue decided after the body was written (the inputs to pull,
    /// the balances to read before). Slots are unaffected.
    pub fn move_to_front(&mut self, mark: usize) {
        let n = self.program.commands.len();
        self.program.commands.rotate_right(n - mark.min(n));
    }

    /// The program so far (to run a prefix of it).
    pub fn snapshot(&self) -> Program {
        self.program.clone()
    }

    /// The program.
    pub fn build(self) -> Program {
        self.program
    }
}

/// One decoded command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedCall {
    /// Index of the command's first word.
    pub index: usize,
    /// Target.
    pub target: Address,
    /// Call type.
    pub kind: DecodedKind,
    /// Wei sent (value calls).
    pub value: U256,
    /// The calldata the VM would send.
    pub calldata: Bytes,
    /// Output index byte.
    pub output: u8,
    /// Whether the return is stored raw.
    pub raw_return: bool,
}

/// Call type of a decoded command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodedKind {
    /// CALL.
    Call,
    /// STATICCALL.
    StaticCall,
    /// CALL with value.
    ValueCall,
}

/// What one command calls, read from its words alone (no state at run
/// time needed): for the program guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandTarget {
    /// Index of the command's first word.
    pub index: usize,
    /// Target.
    pub target: Address,
    /// Call type.
    pub kind: DecodedKind,
    /// The function selector; `None` for a raw call whose calldata is
    /// empty (a plain transfer of the native coin).
    pub selector: Option<[u8; 4]>,
}

/// One command as laid out: the index of its first word, the word, its
/// flags and its 32 argument indices (a short command's six, padded).
struct Laid {
    at: usize,
    word: [u8; 32],
    flags: u8,
    indices: [u8; 32],
}

impl Program {
    /// The commands in order, each with its indices (an extended
    /// command's from the word after it).
    fn laid_out(&self) -> Result<Vec<Laid>, WeirollError> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.commands.len() {
            let at = i;
            let word = self.commands[i].0;
            let flags = word[4];
            let indices: [u8; 32] = if flags & FLAG_EXTENDED != 0 {
                i += 1;
                self.commands.get(i).ok_or(WeirollError::MissingIndices(at))?.0
            } else {
                let mut x = [IDX_END; 32];
                x[..6].copy_from_slice(&word[5..11]);
                x
            };
            out.push(Laid { at, word, flags, indices });
            i += 1;
        }
        Ok(out)
    }

    /// Each command's target and selector. A raw-calldata command
    /// (`FLAG_DATA`) takes its selector from the program's initial state.
    pub fn targets(&self) -> Result<Vec<CommandTarget>, WeirollError> {
        self.laid_out()?
            .into_iter()
            .map(|Laid { at, word: w, flags, indices }| {
                let kind = match flags & 0x03 {
                    0x01 => DecodedKind::Call,
                    0x02 => DecodedKind::StaticCall,
                    0x03 => DecodedKind::ValueCall,
                    _ => return Err(WeirollError::Delegatecall(at)),
                };
                let selector = if flags & FLAG_DATA == 0 {
                    Some([w[0], w[1], w[2], w[3]])
                } else {
                    let slot = indices[usize::from(kind == DecodedKind::ValueCall)] & 0x7f;
                    let data = self
                        .state
                        .get(usize::from(slot))
                        .ok_or(WeirollError::SlotOutOfRange(at))?;
                    match data.len() {
                        0 => None,
                        1..4 => return Err(WeirollError::BadEncoding(at)),
                        _ => Some([data[0], data[1], data[2], data[3]]),
                    }
                };
                Ok(CommandTarget {
                    index: at,
                    target: Address::from_slice(&w[12..]),
                    kind,
                    selector,
                })
            })
            .collect()
    }

    /// Every command's call as the VM would make it with `state` as the
    /// state at that point (for a program that writes outputs, pass a state
    /// with the outputs filled in).
    pub fn decode(&self, state: &[Bytes]) -> Result<Vec<DecodedCall>, WeirollError> {
        self.laid_out()?
            .into_iter()
            .map(|c| decode_one(c.at, &c.word, c.flags, c.indices, state))
            .collect()
    }
}

fn fixed(at: usize, state: &[Bytes], idx: u8) -> Result<[u8; 32], WeirollError> {
    let v = state.get(usize::from(idx)).ok_or(WeirollError::SlotOutOfRange(at))?;
    <[u8; 32]>::try_from(v.as_ref()).map_err(|_| WeirollError::BadEncoding(at))
}

fn variable(at: usize, state: &[Bytes], idx: u8) -> Result<&Bytes, WeirollError> {
    let v = state.get(usize::from(idx & 0x7f)).ok_or(WeirollError::SlotOutOfRange(at))?;
    if v.len() % 32 != 0 {
        return Err(WeirollError::BadEncoding(at));
    }
    Ok(v)
}

fn word(n: usize) -> [u8; 32] {
    U256::from(n).to_be_bytes()
}

fn decode_one(
    at: usize,
    w: &[u8; 32],
    flags: u8,
    mut indices: [u8; 32],
    state: &[Bytes],
) -> Result<DecodedCall, WeirollError> {
    let target = Address::from_slice(&w[12..]);
    let kind = match flags & 0x03 {
        0x01 => DecodedKind::Call,
        0x02 => DecodedKind::StaticCall,
        0x03 => DecodedKind::ValueCall,
        _ => return Err(WeirollError::Delegatecall(at)),
    };
    let mut value = U256::ZERO;
    if kind == DecodedKind::ValueCall {
        if indices[0] & IDX_VARIABLE != 0 {
            return Err(WeirollError::BadEncoding(at));
        }
        value = U256::from_be_bytes(fixed(at, state, indices[0])?);
        indices.copy_within(1.., 0);
        indices[31] = IDX_END;
    }
    let calldata = if flags & FLAG_DATA != 0 {
        state.get(usize::from(indices[0] & 0x7f)).ok_or(WeirollError::SlotOutOfRange(at))?.clone()
    } else {
        encode_args(at, &w[..4], &indices, state)?
    };
    Ok(DecodedCall {
        index: at,
        target,
        kind,
        value,
        calldata,
        output: w[11],
        raw_return: flags & FLAG_TUPLE_RETURN != 0,
    })
}

/// The argument groups of an index list: `(opening byte or 0, members)`.
fn groups(at: usize, indices: &[u8; 32]) -> Result<Vec<(u8, Vec<u8>)>, WeirollError> {
    let mut out = Vec::new();
    let mut k = 0;
    while k < 32 && indices[k] != IDX_END {
        let idx = indices[k];
        if idx == IDX_ARRAY_START || idx == IDX_TUPLE_START {
            let mut members = Vec::new();
            k += 1;
            loop {
                let m = *indices.get(k).ok_or(WeirollError::BadEncoding(at))?;
                if m == IDX_DYNAMIC_END {
                    break;
                }
                if matches!(m, IDX_END | IDX_USE_STATE | IDX_ARRAY_START | IDX_TUPLE_START) {
                    return Err(WeirollError::BadEncoding(at));
                }
                members.push(m);
                k += 1;
            }
            out.push((idx, members));
        } else if idx == IDX_DYNAMIC_END {
            return Err(WeirollError::BadEncoding(at));
        } else {
            out.push((0, vec![idx]));
        }
        k += 1;
    }
    Ok(out)
}

fn encode_args(
    at: usize,
    selector: &[u8],
    indices: &[u8; 32],
    state: &[Bytes],
) -> Result<Bytes, WeirollError> {
    let args = groups(at, indices)?;
    let head_bytes = args.len() * 32;
    let mut head = selector.to_vec();
    let mut tail: Vec<u8> = Vec::new();
    for (open, members) in &args {
        match (*open, members.as_slice()) {
            (0, [IDX_USE_STATE]) => {
                let whole = state.to_vec().abi_encode();
                head.extend(word(head_bytes + tail.len()));
                tail.extend_from_slice(&whole[32..]);
            }
            (0, [idx]) if idx & IDX_VARIABLE != 0 => {
                let v = variable(at, state, *idx)?;
                head.extend(word(head_bytes + tail.len()));
                tail.extend_from_slice(v);
            }
            (0, [idx]) => head.extend(fixed(at, state, *idx)?),
            (IDX_ARRAY_START, [len, items @ ..]) => {
                head.extend(word(head_bytes + tail.len()));
                tail.extend(fixed(at, state, *len)?);
                let var = items.first().is_some_and(|i| i & IDX_VARIABLE != 0);
                let mut tails: Vec<u8> = Vec::new();
                for i in items {
                    if (i & IDX_VARIABLE != 0) != var {
                        return Err(WeirollError::BadEncoding(at));
                    }
                    if var {
                        tail.extend(word(items.len() * 32 + tails.len()));
                        tails.extend_from_slice(variable(at, state, *i)?);
                    } else {
                        tail.extend(fixed(at, state, *i)?);
                    }
                }
                tail.extend(tails);
            }
            (IDX_TUPLE_START, items) => {
                head.extend(word(head_bytes + tail.len()));
                let mut tails: Vec<u8> = Vec::new();
                for i in items {
                    if i & IDX_VARIABLE != 0 {
                        tail.extend(word(items.len() * 32 + tails.len()));
                        tails.extend_from_slice(variable(at, state, *i)?);
                    } else {
                        tail.extend(fixed(at, state, *i)?);
                    }
                }
                tail.extend(tails);
            }
            _ => return Err(WeirollError::BadEncoding(at)),
        }
    }
    head.extend(tail);
    Ok(head.into())
}

#[cfg(test)]
mod tests {
    use alloy_primitives::address;
    use alloy_sol_types::{SolCall, sol};

    use super::*;

    sol! {
        struct Swap { bytes32 poolId; uint8 kind; address assetIn; address assetOut; uint256 amount; bytes userData; }
        function plain(uint256 a, address b) external;
        function withBytes(uint256 a, bytes data, bool c) external;
        function withArray(uint256[] xs, bytes[] ys) external;
        function withTuple(Swap s, address to, bool a, address b, bool c, uint256 limit, uint256 deadline) external;
        function withState(bytes[] state) external;
    }

    const T: Address = address!("00000000000000000000000000000000000000aa");

    fn only_call(b: ProgramBuilder) -> DecodedCall {
        let p = b.build();
        let calls = p.decode(&p.state).expect("decodes");
        assert_eq!(calls.len(), 1);
        calls.into_iter().next().expect("one call")
    }

    #[test]
    fn static_arguments_encode_like_the_abi() -> Result<(), WeirollError> {
        let mut b = ProgramBuilder::new();
        let a = b.uint(U256::from(7u8))?;
        let t = b.address(T)?;
        b.call(CallKind::Call, T, plainCall::SELECTOR, &[a, t], Out::Ignore)?;
        let call = only_call(b);
        assert_eq!(call.calldata, Bytes::from(plainCall { a: U256::from(7u8), b: T }.abi_encode()));
        Ok(())
    }

    #[test]
    fn bytes_arrays_tuples_and_the_state_encode_like_the_abi() -> Result<(), WeirollError> {
        let mut b = ProgramBuilder::new();
        let one = b.uint(U256::from(1u8))?;
        let data = b.bytes(b"hello, weiroll: more than 32 bytes of data here")?;
        let yes = b.word(true)?;
        b.call(
            CallKind::Call,
            T,
            withBytesCall::SELECTOR,
            &[one.clone(), data.clone(), yes],
            Out::Ignore,
        )?;
        let two = b.uint(U256::from(2u8))?;
        let empty = b.bytes(b"")?;
        b.call(
            CallKind::Call,
            T,
            withArrayCall::SELECTOR,
            &[In::Array(vec![one.clone(), two]), In::Array(vec![data, empty.clone()])],
            Out::Ignore,
        )?;
        let pool = b.word(B256::repeat_byte(9))?;
        let kind = b.uint(U256::ZERO)?;
        let t = b.address(T)?;
        let no = b.word(false)?;
        b.call(
            CallKind::Call,
            T,
            withTupleCall::SELECTOR,
            &[
                In::Tuple(vec![pool, kind, t.clone(), t.clone(), one.clone(), empty]),
                t.clone(),
                no.clone(),
                t,
                no,
                one.clone(),
                one,
            ],
            Out::Ignore,
        )?;
        b.call(CallKind::Call, T, withStateCall::SELECTOR, &[In::State], Out::Ignore)?;
        let p = b.build();
        let calls = p.decode(&p.state)?;
        assert_eq!(calls.len(), 4);
        let blob = Bytes::from_static(b"hello, weiroll: more than 32 bytes of data here");
        assert_eq!(
            calls[0].calldata,
            Bytes::from(
                withBytesCall { a: U256::from(1u8), data: blob.clone(), c: true }.abi_encode()
            )
        );
        assert_eq!(
            calls[1].calldata,
            Bytes::from(
                withArrayCall {
                    xs: vec![U256::from(1u8), U256::from(2u8)],
                    ys: vec![blob, Bytes::new()]
                }
                .abi_encode()
            )
        );
        let swap = Swap {
            poolId: B256::repeat_byte(9),
            kind: 0,
            assetIn: T,
            assetOut: T,
            amount: U256::from(1u8),
            userData: Bytes::new(),
        };
        let expected = withTupleCall {
            s: swap,
            to: T,
            a: false,
            b: T,
            c: false,
            limit: U256::from(1u8),
            deadline: U256::from(1u8),
        };
        assert_eq!(calls[2].calldata, Bytes::from(expected.abi_encode()));
        assert_eq!(
            calls[3].calldata,
            Bytes::from(withStateCall { state: p.state.clone() }.abi_encode())
        );
        // The array call (8 index bytes with the group markers) and the
        // tuple call (7 arguments, 12 index bytes) are extended: two words.
        assert_eq!(p.commands.len(), 6);
        Ok(())
    }

    #[test]
    fn value_calls_take_the_amount_from_the_first_index() -> Result<(), WeirollError> {
        let mut b = ProgramBuilder::new();
        let v = b.scratch_word()?;
        let empty = b.raw(&[])?;
        b.raw_call(CallKind::Value(v), T, empty, Out::Ignore)?;
        let p = b.build();
        let mut state = p.state.clone();
        state[v.index()] = U256::from(5u8).abi_encode().into();
        let calls = p.decode(&state)?;
        assert_eq!(calls[0].value, U256::from(5u8));
        assert!(calls[0].calldata.is_empty());
        assert_eq!(calls[0].kind, DecodedKind::ValueCall);
        Ok(())
    }

    #[test]
    fn constants_are_shared_and_slots_are_bounded() -> Result<(), WeirollError> {
        let mut b = ProgramBuilder::new();
        let a = b.uint(U256::from(1u8))?;
        let c = b.uint(U256::from(1u8))?;
        assert_eq!(a, c);
        for k in 1..MAX_SLOTS {
            b.uint(U256::from(k + 1))?;
        }
        assert_eq!(b.uint(U256::from(100_000u32)), Err(WeirollError::TooManySlots));
        Ok(())
    }
}

//! The weiroll encoder round trip: any sequence of calls the builder
//! accepts decodes back, command by command, to the same target, call type
//! and calldata, and that calldata is the standard ABI encoding of the
//! arguments (alloy's own encoder, not the builder's).

#![no_main]

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{Address, B256, U256};
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use switchyard_engine::encode::weiroll::{CallKind, DecodedKind, In, Out, ProgramBuilder};

#[derive(Arbitrary, Debug)]
enum Member {
    Word([u8; 32]),
    Bytes(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
enum Arg {
    Word([u8; 32]),
    Address([u8; 20]),
    Bytes(Vec<u8>),
    Words(Vec<[u8; 32]>),
    BytesList(Vec<Vec<u8>>),
    /// A dynamic tuple: its members, then a last `bytes` member.
    Tuple(Vec<Member>, Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Call {
    kind: u8,
    target: [u8; 20],
    selector: [u8; 4],
    args: Vec<Arg>,
    value: [u8; 32],
    keep_output: bool,
}

fn member(b: &mut ProgramBuilder, m: &Member) -> Option<(In, DynSolValue)> {
    Some(match m {
        Member::Word(w) => {
            (b.word(B256::from(*w)).ok()?, DynSolValue::FixedBytes(B256::from(*w), 32))
        }
        Member::Bytes(v) => (b.bytes(v).ok()?, DynSolValue::Bytes(v.clone())),
    })
}

fn arg(b: &mut ProgramBuilder, a: &Arg) -> Option<(In, DynSolValue)> {
    Some(match a {
        Arg::Word(w) => {
            (b.uint(U256::from_be_bytes(*w)).ok()?, DynSolValue::Uint(U256::from_be_bytes(*w), 256))
        }
        Arg::Address(x) => {
            let x = Address::from(*x);
            (b.address(x).ok()?, DynSolValue::Address(x))
        }
        Arg::Bytes(v) => (b.bytes(v).ok()?, DynSolValue::Bytes(v.clone())),
        Arg::Words(ws) => {
            let mut ins = Vec::new();
            let mut vals = Vec::new();
            for w in ws.iter().take(8) {
                ins.push(b.word(B256::from(*w)).ok()?);
                vals.push(DynSolValue::FixedBytes(B256::from(*w), 32));
            }
            (In::Array(ins), DynSolValue::Array(vals))
        }
        Arg::BytesList(vs) => {
            let mut ins = Vec::new();
            let mut vals = Vec::new();
            for v in vs.iter().take(8) {
                ins.push(b.bytes(v).ok()?);
                vals.push(DynSolValue::Bytes(v.clone()));
            }
            (In::Array(ins), DynSolValue::Array(vals))
        }
        Arg::Tuple(members, last) => {
            let mut ins = Vec::new();
            let mut vals = Vec::new();
            for m in members.iter().take(6) {
                let (i, v) = member(b, m)?;
                ins.push(i);
                vals.push(v);
            }
            ins.push(b.bytes(last).ok()?);
            vals.push(DynSolValue::Bytes(last.clone()));
            (In::Tuple(ins), DynSolValue::Tuple(vals))
        }
    })
}

fuzz_target!(|calls: Vec<Call>| {
    let mut b = ProgramBuilder::new();
    let mut expected = Vec::new();
    'calls: for c in calls.iter().take(24) {
        let mut ins = Vec::new();
        let mut vals = Vec::new();
        for a in c.args.iter().take(10) {
            // A program full of slots refuses more: that is the builder's
            // limit, not a failure.
            let Some((i, v)) = arg(&mut b, a) else { break 'calls };
            ins.push(i);
            vals.push(v);
        }
        let (kind, decoded_kind, value) = match c.kind % 3 {
            0 => (CallKind::Call, DecodedKind::Call, U256::ZERO),
            1 => (CallKind::StaticCall, DecodedKind::StaticCall, U256::ZERO),
            _ => {
                let v = U256::from_be_bytes(c.value);
                let Ok(In::Fixed(slot)) = b.uint(v) else { break 'calls };
                (CallKind::Value(slot), DecodedKind::ValueCall, v)
            }
        };
        let out = if c.keep_output { Out::Word } else { Out::Ignore };
        let target = Address::from(c.target);
        if b.call(kind, target, c.selector, &ins, out).is_err() {
            break;
        }
        let mut calldata = c.selector.to_vec();
        calldata.extend(DynSolValue::Tuple(vals).abi_encode_params());
        expected.push((target, decoded_kind, value, calldata));
    }
    let program = b.build();
    let decoded = program.decode(&program.state).expect("a built program decodes");
    assert_eq!(decoded.len(), expected.len());
    for (d, (target, kind, value, calldata)) in decoded.iter().zip(&expected) {
        assert_eq!(d.target, *target);
        assert_eq!(d.kind, *kind);
        assert_eq!(d.value, *value);
        assert_eq!(d.calldata.as_ref(), calldata.as_slice());
    }
});

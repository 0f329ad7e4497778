//! The `call` action: any contract function, from the human-readable
//! signature the request carries (`function percentMul(uint256,uint256)
//! external`), its arguments coerced to the declared types and ABI-encoded
//! at run time (`alloy-dyn-abi`). Arguments that refer to an earlier
//! action's output become slots: a single-word parameter directly, an
//! array of single-word elements element by element.

use alloy_dyn_abi::{DynSolType, DynSolValue, Specifier};
use alloy_primitives::U256;

use super::BundleError;
use crate::encode::weiroll::{In, ProgramBuilder};

/// One argument of a `call` action, as the request gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallArg {
    /// A string: a number, an address, hex bytes, a string value.
    Text(String),
    /// A JSON number, as its decimal text.
    Number(String),
    /// A boolean.
    Bool(bool),
    /// An array or tuple.
    List(Vec<Self>),
    /// `{useOutputOfCallAt, index}`.
    Output {
        /// The earlier action.
        action: usize,
        /// Which of its outputs.
        index: usize,
    },
}

/// A `call` action ready to emit.
#[derive(Debug)]
pub(super) struct EncodedCall {
    /// The function selector.
    pub selector: [u8; 4],
    /// Its arguments as program inputs.
    pub args: Vec<In>,
    /// Whether it returns one static word (its output 0).
    pub returns_word: bool,
}

/// Resolves an earlier action's output to its slot.
pub(super) type Resolve<'r> = dyn FnMut(usize, usize, &str) -> Result<In, BundleError> + 'r;

/// Parses `signature`, checks it names `method`, and turns `args` into
/// program inputs.
#[allow(clippy::too_many_arguments, reason = "the call's whole context, once")]
pub(super) fn encode_call(
    b: &mut ProgramBuilder,
    templates: &super::Templates,
    signature: &str,
    method: &str,
    args: &[CallArg],
    resolve: &mut Resolve<'_>,
    at: &str,
) -> Result<EncodedCall, BundleError> {
    let f = templates.function(signature).map_err(|e| {
        BundleError::invalid(format!("{at}.abi"), format!("not a function signature: {e}"))
    })?;
    if f.name != method {
        return Err(BundleError::invalid(
            format!("{at}.method"),
            format!("method `{method}` is not the function `{}` of abi", f.name),
        ));
    }
    if f.inputs.len() != args.len() {
        return Err(BundleError::invalid(
            format!("{at}.args"),
            format!("{} takes {} arguments, {} given", f.name, f.inputs.len(), args.len()),
        ));
    }
    let mut ins = Vec::with_capacity(args.len());
    for (k, (param, arg)) in f.inputs.iter().zip(args).enumerate() {
        let path = format!("{at}.args[{k}]");
        let ty = param.resolve().map_err(|e| {
            BundleError::invalid(format!("{at}.abi"), format!("parameter {k}: {e}"))
        })?;
        encode_arg(b, &ty, arg, resolve, &path, &mut ins)?;
    }
    let returns_word = match f.outputs.as_slice() {
        [one] => one.resolve().is_ok_and(|t| !t.is_dynamic() && word_sized(&t)),
        _ => false,
    };
    Ok(EncodedCall { selector: f.selector().0, args: ins, returns_word })
}

/// Whether a static type takes exactly one word.
fn word_sized(ty: &DynSolType) -> bool {
    matches!(
        ty,
        DynSolType::Bool
            | DynSolType::Int(_)
            | DynSolType::Uint(_)
            | DynSolType::FixedBytes(_)
            | DynSolType::Address
            | DynSolType::Function
    )
}

fn has_output(arg: &CallArg) -> bool {
    match arg {
        CallArg::Output { .. } => true,
        CallArg::List(items) => items.iter().any(has_output),
        _ => false,
    }
}

fn encode_arg(
    b: &mut ProgramBuilder,
    ty: &DynSolType,
    arg: &CallArg,
    resolve: &mut Resolve<'_>,
    path: &str,
    out: &mut Vec<In>,
) -> Result<(), BundleError> {
    let weiroll = |e: crate::encode::WeirollError| BundleError::invalid(path, e.to_string());
    if let CallArg::Output { action, index } = arg {
        if !word_sized(ty) {
            return Err(BundleError::invalid(
                path,
                format!("an earlier output can fill a one-word parameter, not a {ty}"),
            ));
        }
        out.push(resolve(*action, *index, path)?);
        return Ok(());
    }
    if has_output(arg) {
        // An array of one-word elements, some of them earlier outputs.
        let (DynSolType::Array(elem), CallArg::List(items)) = (ty, arg) else {
            return Err(BundleError::invalid(
                path,
                format!(
                    "earlier outputs can fill a one-word parameter or an array of them, not a {ty}"
                ),
            ));
        };
        if !word_sized(elem) {
            return Err(BundleError::invalid(
                path,
                format!("array elements of {elem} cannot be outputs"),
            ));
        }
        let mut elems = Vec::with_capacity(items.len());
        for (k, item) in items.iter().enumerate() {
            encode_arg(b, elem, item, resolve, &format!("{path}[{k}]"), &mut elems)?;
        }
        out.push(In::Array(elems));
        return Ok(());
    }
    let value = coerce(ty, arg, path)?;
    let encoded = value.abi_encode_params();
    if ty.is_dynamic() {
        // `abi.encode` of one dynamic value: an offset word, then the tail.
        let tail = encoded.get(32..).unwrap_or_default();
        out.push(In::Var(b.raw(tail).map_err(weiroll)?));
    } else {
        // Static values are encoded in place, one word after the other.
        for word in encoded.chunks(32) {
            let w = U256::from_be_slice(word);
            out.push(b.uint(w).map_err(weiroll)?);
        }
    }
    Ok(())
}

/// A literal argument as a value of `ty`.
fn coerce(ty: &DynSolType, arg: &CallArg, path: &str) -> Result<DynSolValue, BundleError> {
    let bad = |why: String| BundleError::invalid(path, why);
    match (ty, arg) {
        (DynSolType::Bool, CallArg::Bool(v)) => Ok(DynSolValue::Bool(*v)),
        (_, CallArg::Text(s) | CallArg::Number(s)) => {
            ty.coerce_str(s).map_err(|e| bad(format!("`{s}` is not a {ty}: {e}")))
        }
        (DynSolType::Array(elem), CallArg::List(items)) => Ok(DynSolValue::Array(
            items
                .iter()
                .enumerate()
                .map(|(k, i)| coerce(elem, i, &format!("{path}[{k}]")))
                .collect::<Result<_, _>>()?,
        )),
        (DynSolType::FixedArray(elem, n), CallArg::List(items)) if items.len() == *n => {
            Ok(DynSolValue::FixedArray(
                items
                    .iter()
                    .enumerate()
                    .map(|(k, i)| coerce(elem, i, &format!("{path}[{k}]")))
                    .collect::<Result<_, _>>()?,
            ))
        }
        (DynSolType::Tuple(types), CallArg::List(items)) if items.len() == types.len() => {
            Ok(DynSolValue::Tuple(
                types
                    .iter()
                    .zip(items)
                    .enumerate()
                    .map(|(k, (t, i))| coerce(t, i, &format!("{path}[{k}]")))
                    .collect::<Result<_, _>>()?,
            ))
        }
        (ty, arg) => Err(bad(format!("{arg:?} does not fit a {ty}"))),
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Address, Bytes};
    use alloy_sol_types::{SolCall, sol};

    use super::*;
    use crate::encode::weiroll::{CallKind, Out};

    sol! {
        function adjust(address trove, uint256 fee, bool up, bytes data, uint256[] amounts) external returns (uint256);
    }

    fn templates() -> super::super::Templates {
        let catalog = switchyard_catalog::loaders::embedded_catalog().expect("catalog");
        super::super::Templates::new(std::sync::Arc::new(catalog))
    }

    #[test]
    fn literal_arguments_encode_like_the_abi() {
        let mut b = ProgramBuilder::new();
        let mut resolve = |_: usize, _: usize, p: &str| -> Result<In, BundleError> {
            Err(BundleError::invalid(p, "no outputs here"))
        };
        let args = vec![
            CallArg::Text("0x00000000000000000000000000000000000000aa".into()),
            CallArg::Number("7000".into()),
            CallArg::Bool(true),
            CallArg::Text("0x1234".into()),
            CallArg::List(vec![CallArg::Text("1".into()), CallArg::Number("2".into())]),
        ];
        let c = encode_call(
            &mut b,
            &templates(),
            "function adjust(address trove, uint256 fee, bool up, bytes data, uint256[] amounts) external returns (uint256)",
            "adjust",
            &args,
            &mut resolve,
            "body[0].args",
        )
        .expect("encodes");
        assert!(c.returns_word);
        let target = Address::repeat_byte(1);
        b.call(CallKind::Call, target, c.selector, &c.args, Out::Word).expect("fits");
        let p = b.build();
        let calls = p.decode(&p.state).expect("decodes");
        let expected = adjustCall {
            trove: Address::with_last_byte(0xaa),
            fee: U256::from(7000u32),
            up: true,
            data: Bytes::from_static(&[0x12, 0x34]),
            amounts: vec![U256::from(1u8), U256::from(2u8)],
        };
        assert_eq!(calls[0].calldata, Bytes::from(expected.abi_encode()));
    }

    #[test]
    fn a_wrong_method_or_arity_names_the_field() {
        let mut b = ProgramBuilder::new();
        let mut resolve = |_: usize, _: usize, p: &str| -> Result<In, BundleError> {
            Err(BundleError::invalid(p, "x"))
        };
        let e = encode_call(
            &mut b,
            &templates(),
            "function f(uint256) external",
            "g",
            &[],
            &mut resolve,
            "body[1].args",
        )
        .err();
        assert_eq!(e.map(|e| e.at), Some("body[1].args.method".to_owned()));
        let e = encode_call(
            &mut b,
            &templates(),
            "function f(uint256) external",
            "f",
            &[],
            &mut resolve,
            "body[1].args",
        )
        .err();
        assert_eq!(e.map(|e| e.at), Some("body[1].args.args".to_owned()));
    }
}

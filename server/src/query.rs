//! Query-string parsing: the five array encodings clients use, and strict
//! typed accessors whose errors name the parameter.
//!
//! Array parameters arrive as a repeated key (`tokenIn=a&tokenIn=b`), with
//! brackets (`tokenIn[]=a`, axios), indexed (`tokenIn[0]=a`, qs), as a single
//! scalar, or as a comma list (`tokenIn=a,b`). All five give the same list.
//! Indexed entries are ordered by index.

use std::borrow::Cow;

use alloy_primitives::{Address, U256};
use switchyard_catalog::{RoutingStrategy, market::parse_dec_u256};

use crate::error::ApiError;

/// Longest query string accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 16 * 1024;

/// Most entries (key=value pairs) accepted.
pub const MAX_QUERY_ENTRIES: usize = 512;

/// Regex (for the OpenAPI document) of an address.
pub const ADDRESS_PATTERN: &str = "^0x[0-9a-fA-F]{40}$";

/// Regex (for the OpenAPI document) of a wei amount.
pub const WEI_PATTERN: &str = "^[0-9]{1,78}$";

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    key: String,
    index: Option<u32>,
    value: String,
}

/// A parsed query string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    entries: Vec<Entry>,
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes one `application/x-www-form-urlencoded` component (`+` is a
/// space). A `%` not followed by two hex digits is kept literally, as
/// browsers do; the result must be UTF-8.
fn decode(raw: &str) -> Option<Cow<'_, str>> {
    if !raw.bytes().any(|b| b == b'%' || b == b'+') {
        return Some(Cow::Borrowed(raw));
    }
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// Splits `name[3]` into (`name`, Some(3)) and `name[]` into (`name`, None).
/// Anything else in brackets (`a[b]`) is kept whole.
fn split_key(key: &str) -> Result<(&str, Option<u32>), ApiError> {
    let Some(open) = key.find('[') else { return Ok((key, None)) };
    let Some(inner) = key[open..].strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
        return Ok((key, None));
    };
    if inner.is_empty() {
        return Ok((&key[..open], None));
    }
    if inner.bytes().all(|b| b.is_ascii_digit()) {
        let idx = inner
            .parse::<u32>()
            .ok()
            .filter(|i| (*i as usize) < MAX_QUERY_ENTRIES)
            .ok_or_else(|| ApiError::invalid(key.to_owned(), "array index out of range"))?;
        return Ok((&key[..open], Some(idx)));
    }
    Ok((key, None))
}

impl Query {
    /// Parses a raw query string (without the `?`).
    pub fn parse(raw: &str) -> Result<Self, ApiError> {
        if raw.len() > MAX_QUERY_BYTES {
            return Err(ApiError::invalid(
                "query",
                format!("query string exceeds {MAX_QUERY_BYTES} bytes"),
            ));
        }
        let mut entries = Vec::new();
        for pair in raw.split('&').filter(|p| !p.is_empty()) {
            if entries.len() == MAX_QUERY_ENTRIES {
                return Err(ApiError::invalid(
                    "query",
                    format!("more than {MAX_QUERY_ENTRIES} parameters"),
                ));
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let key = decode(k)
                .ok_or_else(|| ApiError::invalid("query", "parameter name is not utf-8"))?;
            let value = decode(v).ok_or_else(|| {
                ApiError::invalid(key.to_string(), format!("{key} is not valid utf-8"))
            })?;
            let (base, index) = split_key(&key)?;
            entries.push(Entry { key: base.to_owned(), index, value: value.into_owned() });
        }
        // Group each key's entries where the key first appears and order
        // them by index (unindexed ones first, in the order sent). The sort
        // key is a total order, so no input can upset the sort.
        let mut first_seen: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::new();
        let ranks: Vec<usize> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| *first_seen.entry(e.key.as_str()).or_insert(i))
            .collect();
        let mut keyed: Vec<(usize, Option<u32>, usize)> =
            entries.iter().enumerate().map(|(i, e)| (ranks[i], e.index, i)).collect();
        keyed.sort_unstable();
        let mut slots: Vec<Option<Entry>> = entries.into_iter().map(Some).collect();
        let entries = keyed.into_iter().filter_map(|(_, _, i)| slots[i].take()).collect();
        Ok(Self { entries })
    }

    /// A query built from a JSON object body, so POST bodies go through the
    /// same validation as query strings. Scalars where arrays are declared
    /// and numbers where strings are declared are coerced: an array becomes
    /// repeated values, a number or boolean its decimal or `true`/`false`
    /// text, `null` an absent key, and a nested object `key[sub]` entries.
    pub fn from_json_object(value: &simd_json::BorrowedValue<'_>) -> Result<Self, ApiError> {
        use simd_json::{BorrowedValue as V, StaticNode as S};
        fn scalar(field: &str, v: &V<'_>) -> Result<Option<String>, ApiError> {
            Ok(match v {
                V::Static(S::Null) => None,
                V::Static(S::Bool(b)) => Some(b.to_string()),
                V::Static(S::I64(n)) => Some(n.to_string()),
                V::Static(S::U64(n)) => Some(n.to_string()),
                // A JSON number with a fraction, or past 2^53 (where a
                // float is no longer every integer), would be changed
                // silently: amounts are integers, exact as decimal strings.
                V::Static(S::F64(f)) => {
                    if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 {
                        Some(format!("{f:.0}"))
                    } else {
                        return Err(ApiError::invalid(
                            field.to_owned(),
                            format!(
                                "{field} must be an integer; send a large or exact amount as a \
                                 decimal string"
                            ),
                        ));
                    }
                }
                V::String(s) => Some(s.to_string()),
                V::Array(_) | V::Object(_) => {
                    return Err(ApiError::invalid(
                        field.to_owned(),
                        format!("{field} must be a string or a number"),
                    ));
                }
            })
        }
        let V::Object(obj) = value else {
            return Err(ApiError::invalid("body", "body must be a JSON object"));
        };
        let mut entries = Vec::new();
        for (k, v) in obj.iter() {
            match v {
                V::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        if let Some(s) = scalar(&format!("{k}[{i}]"), item)? {
                            entries.push(Entry { key: k.to_string(), index: None, value: s });
                        }
                    }
                }
                V::Object(inner) => {
                    for (sub, item) in inner.iter() {
                        if let Some(s) = scalar(&format!("{k}.{sub}"), item)? {
                            entries.push(Entry {
                                key: format!("{k}[{sub}]"),
                                index: None,
                                value: s,
                            });
                        }
                    }
                }
                other => {
                    if let Some(s) = scalar(k, other)? {
                        entries.push(Entry { key: k.to_string(), index: None, value: s });
                    }
                }
            }
        }
        if entries.len() > MAX_QUERY_ENTRIES {
            return Err(ApiError::invalid("body", format!("more than {MAX_QUERY_ENTRIES} values")));
        }
        Ok(Self { entries })
    }

    fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.entries.iter().filter(move |e| e.key == name)
    }

    /// Whether the parameter is present at all.
    pub fn has(&self, name: &str) -> bool {
        self.values(name).next().is_some()
    }

    /// A scalar parameter; sending it twice is an error.
    pub fn scalar(&self, name: &'static str) -> Result<Option<&str>, ApiError> {
        let mut it = self.values(name);
        let first = it.next();
        if it.next().is_some() {
            return Err(ApiError::invalid(name, format!("{name} must be given once")));
        }
        Ok(first.map(|e| e.value.as_str()))
    }

    /// A required scalar.
    pub fn required(&self, name: &'static str) -> Result<&str, ApiError> {
        self.scalar(name)?.ok_or_else(|| ApiError::missing(name))
    }

    /// An array parameter in any of the five encodings.
    pub fn list<'a>(&'a self, name: &str) -> Vec<&'a str> {
        self.entries.iter().filter(|e| e.key == name).flat_map(|e| e.value.split(',')).collect()
    }

    /// An optional array of addresses.
    pub fn addresses(&self, name: &'static str) -> Result<Vec<Address>, ApiError> {
        self.list(name).iter().enumerate().map(|(i, v)| parse_address_at(name, i, v)).collect()
    }

    /// An optional address.
    pub fn address(&self, name: &'static str) -> Result<Option<Address>, ApiError> {
        self.scalar(name)?.map(|v| parse_address(name, v)).transpose()
    }

    /// An optional boolean (`true`/`false`).
    pub fn bool(&self, name: &'static str) -> Result<Option<bool>, ApiError> {
        self.scalar(name)?.map(|v| parse_bool(name, v)).transpose()
    }

    /// An optional unsigned integer within `range`.
    pub fn u64_in(
        &self,
        name: &'static str,
        range: std::ops::RangeInclusive<u64>,
    ) -> Result<Option<u64>, ApiError> {
        self.scalar(name)?.map(|v| parse_u64_in(name, v, &range)).transpose()
    }

    /// An optional finite number.
    pub fn f64(&self, name: &'static str) -> Result<Option<f64>, ApiError> {
        self.scalar(name)?
            .map(|v| {
                v.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && !v.trim().is_empty())
                    .ok_or_else(|| ApiError::invalid(name, format!("{name} must be a number")))
            })
            .transpose()
    }

    /// An optional routing strategy among `allowed`.
    pub fn strategy(
        &self,
        name: &'static str,
        allowed: &[RoutingStrategy],
    ) -> Result<Option<RoutingStrategy>, ApiError> {
        let Some(v) = self.scalar(name)? else { return Ok(None) };
        match v.parse::<RoutingStrategy>() {
            Ok(s) if allowed.contains(&s) => Ok(Some(s)),
            _ => Err(ApiError::invalid(
                name,
                format!(
                    "{name} must be one of {}",
                    allowed.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ),
            )),
        }
    }
}

/// Parses an address: `0x` and 40 hex digits. Mixed case must be a valid
/// EIP-55 checksum.
pub fn parse_address(field: impl Into<Cow<'static, str>>, v: &str) -> Result<Address, ApiError> {
    let field = field.into();
    let hex = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X"));
    let Some(h) = hex.filter(|h| h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit())) else {
        let message = format!("{field} must be an address (0x and 40 hex digits)");
        return Err(ApiError::invalid(field, message));
    };
    let mixed =
        h.bytes().any(|b| b.is_ascii_lowercase()) && h.bytes().any(|b| b.is_ascii_uppercase());
    if mixed {
        return Address::parse_checksummed(format!("0x{h}"), None).map_err(|_| {
            let message = format!("{field} has an invalid EIP-55 checksum");
            ApiError::invalid(field.clone(), message)
        });
    }
    h.parse::<Address>().map_err(|_| {
        let message = format!("{field} must be an address");
        ApiError::invalid(field.clone(), message)
    })
}

fn parse_address_at(field: &'static str, i: usize, v: &str) -> Result<Address, ApiError> {
    parse_address(field, v)
        .map_err(|e| ApiError { field: Some(format!("{field}[{i}]").into()), ..e })
}

/// Parses a wei amount: a decimal integer in the U256 range.
pub fn parse_wei(field: impl Into<Cow<'static, str>>, v: &str) -> Result<U256, ApiError> {
    parse_dec_u256(v).ok_or_else(|| {
        let field = field.into();
        ApiError::invalid(
            field.clone(),
            format!("{field} must be a decimal integer amount in wei (uint256)"),
        )
    })
}

/// Parses `true` or `false`.
pub fn parse_bool(field: &'static str, v: &str) -> Result<bool, ApiError> {
    match v {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(ApiError::invalid(field, format!("{field} must be true or false"))),
    }
}

/// Parses a decimal unsigned integer within `range`.
pub fn parse_u64_in(
    field: &'static str,
    v: &str,
    range: &std::ops::RangeInclusive<u64>,
) -> Result<u64, ApiError> {
    v.parse::<u64>().ok().filter(|n| range.contains(n) && !v.starts_with('+')).ok_or_else(|| {
        ApiError::invalid(
            field,
            format!("{field} must be an integer from {} to {}", range.start(), range.end()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Query {
        match Query::parse(s) {
            Ok(q) => q,
            Err(e) => panic!("{s}: {e:?}"),
        }
    }

    #[test]
    fn five_array_encodings_agree() {
        let want = vec!["a", "b"];
        for s in [
            "tokenIn=a&tokenIn=b",
            "tokenIn[]=a&tokenIn[]=b",
            "tokenIn%5B%5D=a&tokenIn%5B%5D=b",
            "tokenIn[1]=b&tokenIn[0]=a",
            "tokenIn=a,b",
            "tokenIn=a%2Cb",
        ] {
            assert_eq!(q(s).list("tokenIn"), want, "{s}");
        }
        assert_eq!(q("tokenIn=a").list("tokenIn"), vec!["a"]);
    }

    #[test]
    fn interleaved_keys_keep_per_key_order() {
        // Keys interleaved with indexes out of order: each key's values come
        // out by index, other keys untouched.
        let p = q("a[1]=y&b=1&a[0]=x&c=3&b=2&a[2]=z");
        assert_eq!(p.list("a"), vec!["x", "y", "z"]);
        assert_eq!(p.list("b"), vec!["1", "2"]);
        assert_eq!(p.list("c"), vec!["3"]);
        let p = q("a=u&a[1]=w&a[0]=v");
        assert_eq!(p.list("a"), vec!["u", "v", "w"]);
    }

    #[test]
    fn decoding_handles_plus_percent_and_bad_escapes() {
        let p = q("name=Wrapped+Ether&x=%41%zz%");
        assert_eq!(p.scalar("name").ok().flatten(), Some("Wrapped Ether"));
        assert_eq!(p.list("x"), vec!["A%zz%"]);
        assert!(Query::parse("x=%ff").is_err());
    }

    #[test]
    fn scalars_given_twice_are_rejected() {
        let p = q("chainId=1&chainId=2");
        assert_eq!(p.scalar("chainId").map_err(|e| e.field), Err(Some("chainId".into())));
    }

    #[test]
    fn addresses_are_strict() {
        assert!(parse_address("a", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48").is_ok());
        assert!(parse_address("a", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48").is_ok());
        // Mixed case with a wrong checksum.
        assert!(parse_address("a", "0xA0B86991c6218b36c1d19d4a2e9eB0cE3606eB48").is_err());
        for bad in [
            "",
            "0x",
            "a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
            "0xzz",
            "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb4",
        ] {
            assert!(parse_address("a", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn wei_amounts_are_strict() {
        assert_eq!(parse_wei("amountIn", "1000").ok(), Some(U256::from(1000u64)));
        assert_eq!(parse_wei("amountIn", &U256::MAX.to_string()).ok(), Some(U256::MAX));
        for bad in [
            "",
            "-1",
            "1.5",
            "0x10",
            "1e18",
            " 1",
            "115792089237316195423570985008687907853269984665640564039457584007913129639936",
        ] {
            assert!(parse_wei("amountIn", bad).is_err(), "{bad}");
        }
    }

    /// A JSON number that is not an exact integer is refused naming its
    /// field, never changed: fractions, floats past 2^53, and integers past
    /// 64 bits (which parse as floats); exact ones become their digits.
    #[test]
    fn json_numbers_are_exact_or_refused() {
        let body = |text: &str| -> Result<Query, ApiError> {
            let mut buf = text.as_bytes().to_vec();
            let v = simd_json::to_borrowed_value(&mut buf)
                .map_err(|_| ApiError::invalid("body", "json"))?;
            Query::from_json_object(&v)
        };
        for (text, field) in [
            (r#"{"amountIn":[1.2345678901234567890123e21]}"#, "amountIn[0]"),
            (r#"{"amountIn":[1000000000000000000.5]}"#, "amountIn[0]"),
            (r#"{"amountIn":[123456789012345678901234]}"#, "amountIn[0]"),
            (r#"{"amountIn":"x","slippage":0.5}"#, "slippage"),
        ] {
            let e = body(text).err().unwrap_or_else(|| panic!("{text} accepted"));
            assert_eq!(e.field.as_deref(), Some(field), "{text}: {e:?}");
        }
        let q = body(r#"{"amountIn":[1000000, 9007199254740992.0],"slippage":50}"#).expect("exact");
        assert_eq!(q.scalar("slippage").ok().flatten(), Some("50"));
        let amounts: Vec<&str> = q.values("amountIn").map(|e| e.value.as_str()).collect();
        assert_eq!(amounts, ["1000000", "9007199254740992"]);
    }

    #[test]
    fn indexed_keys_are_bounded() {
        assert!(Query::parse("a[99999999999]=1").is_err());
        assert!(Query::parse(&"a=1&".repeat(MAX_QUERY_ENTRIES + 1)).is_err());
    }
}

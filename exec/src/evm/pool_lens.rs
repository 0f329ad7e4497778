//! The requests and results of
//! [`PoolLens`](super::artifacts::Artifact::PoolLens)
//! (`contracts/src/PoolLens.sol`): packed bytes, not ABI, since a node that
//! traces every step of an `eth_call` spends its time in the steps, and
//! ABI decoding and encoding a batch took more of them than the getters
//! it calls. The layout is the contract's, documented there.

use alloy_primitives::{Address, U256};

/// The most ticks one request lists (the count is one byte).
pub const MAX_TICKS_PER_REQUEST: usize = 255;

/// What to read of one pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// A Uniswap V2 pair's reserves.
    V2,
    /// A Uniswap V3 pool, with every initialized tick of the bitmap words
    /// `from..=to` of a pool of tick spacing `spacing`.
    #[allow(missing_docs)]
    V3Words { from: i16, to: i16, spacing: i32 },
    /// A Uniswap V3 pool, with the initialized ones of `ticks` (at most
    /// [`MAX_TICKS_PER_REQUEST`]).
    V3Ticks(Vec<i32>),
}

/// One request of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The pool.
    pub pool: Address,
    /// What of it.
    pub read: Read,
}

/// What the lens read of one pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A V2 pair's reserves.
    V2 {
        /// `reserve0`, `reserve1`.
        reserves: [u128; 2],
    },
    /// A V3 pool's price, tick, liquidity and initialized ticks.
    V3 {
        /// `slot0().sqrtPriceX96`.
        sqrt_price_x96: U256,
        /// `slot0().tick`.
        tick: i32,
        /// `liquidity()`.
        liquidity: u128,
        /// Each initialized tick read: its index, `liquidityGross` and
        /// `liquidityNet`.
        ticks: Vec<(i32, u128, i128)>,
    },
}

/// Bytes of a V3 answer before its ticks, and of each tick.
const V3_HEAD: usize = 42;
const V3_TICK: usize = 35;

impl Request {
    /// Its bytes in the call's data.
    pub fn asked_bytes(&self) -> usize {
        21 + match &self.read {
            Read::V2 => 0,
            Read::V3Words { .. } => 7,
            Read::V3Ticks(t) => 1 + 3 * t.len(),
        }
    }

    /// Its answer's bytes, at most (a bitmap scan's ticks are not known
    /// before: counted as none, and a batch that answers too much is
    /// halved).
    pub fn answer_bytes(&self) -> usize {
        match &self.read {
            Read::V2 => 29,
            Read::V3Words { .. } => V3_HEAD,
            Read::V3Ticks(t) => V3_HEAD + V3_TICK * t.len(),
        }
    }

    /// The getter calls it makes (a bitmap scan's tick reads not counted).
    pub fn getter_calls(&self) -> usize {
        match &self.read {
            Read::V2 => 1,
            Read::V3Words { from, to, .. } => 2 + (i32::from(*to) - i32::from(*from) + 1) as usize,
            Read::V3Ticks(t) => 2 + t.len(),
        }
    }

    /// Its two halves, for a request the node refuses alone (a bitmap
    /// range or a tick list too large to answer in one call).
    pub fn split(&self) -> Option<(Self, Self)> {
        let half = |read| Self { pool: self.pool, read };
        match &self.read {
            Read::V2 => None,
            Read::V3Words { from, to, spacing } if to > from => {
                let mid = ((i32::from(*from) + i32::from(*to)) / 2) as i16;
                Some((
                    half(Read::V3Words { from: *from, to: mid, spacing: *spacing }),
                    half(Read::V3Words { from: mid + 1, to: *to, spacing: *spacing }),
                ))
            }
            Read::V3Ticks(t) if t.len() > 1 => {
                let (lo, hi) = t.split_at(t.len() / 2);
                Some((half(Read::V3Ticks(lo.to_vec())), half(Read::V3Ticks(hi.to_vec()))))
            }
            Read::V3Words { .. } | Read::V3Ticks(_) => None,
        }
    }
}

/// A signed value's low `n` bytes, big-endian.
fn low_bytes(v: i64, n: usize) -> impl Iterator<Item = u8> {
    v.to_be_bytes().into_iter().skip(8 - n)
}

/// What follows the lens's initcode: the packed requests, then their
/// length as one 32-byte word.
pub fn encode(batch: &[Request]) -> Vec<u8> {
    let mut out: Vec<u8> =
        Vec::with_capacity(batch.iter().map(Request::asked_bytes).sum::<usize>() + 32);
    for r in batch {
        out.push(match r.read {
            Read::V2 => 0,
            Read::V3Words { .. } => 1,
            Read::V3Ticks(_) => 2,
        });
        out.extend_from_slice(r.pool.as_slice());
        match &r.read {
            Read::V2 => {}
            Read::V3Words { from, to, spacing } => {
                out.extend(low_bytes(i64::from(*from), 2));
                out.extend(low_bytes(i64::from(*to), 2));
                out.extend(low_bytes(i64::from(*spacing), 3));
            }
            Read::V3Ticks(ticks) => {
                // The feed never asks more; a longer list is cut, not wrapped.
                let ticks = &ticks[..ticks.len().min(MAX_TICKS_PER_REQUEST)];
                out.push(ticks.len() as u8);
                for t in ticks {
                    out.extend(low_bytes(i64::from(*t), 3));
                }
            }
        }
    }
    let len = out.len();
    out.extend_from_slice(&U256::from(len).to_be_bytes::<32>());
    out
}

/// The next `n` bytes of `rest`.
fn take<'a>(rest: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
    if rest.len() < n {
        return Err(format!("the answer ends {} bytes short", n - rest.len()));
    }
    let (head, tail) = rest.split_at(n);
    *rest = tail;
    Ok(head)
}

/// A big-endian unsigned value of at most 16 bytes.
fn uint(b: &[u8]) -> u128 {
    b.iter().fold(0u128, |v, x| (v << 8) | u128::from(*x))
}

/// A big-endian signed 24-bit value.
fn int24(b: &[u8]) -> i32 {
    i32::from_be_bytes([b[0], b[1], b[2], 0]) >> 8
}

/// Reads the lens's answer, one result per request in order.
pub fn decode(out: &[u8]) -> Result<Vec<Answer>, String> {
    let mut rest = out;
    let mut answers = Vec::new();
    while let Some((&kind, tail)) = rest.split_first() {
        rest = tail;
        match kind {
            0 => {
                let b = take(&mut rest, 28)?;
                answers.push(Answer::V2 { reserves: [uint(&b[..14]), uint(&b[14..])] });
            }
            1 | 2 => {
                let b = take(&mut rest, V3_HEAD - 1)?;
                let n = usize::from(u16::from_be_bytes([b[39], b[40]]));
                let mut ticks = Vec::with_capacity(n);
                for _ in 0..n {
                    let t = take(&mut rest, V3_TICK)?;
                    ticks.push((int24(&t[..3]), uint(&t[3..19]), uint(&t[19..35]) as i128));
                }
                answers.push(Answer::V3 {
                    sqrt_price_x96: U256::from_be_slice(&b[..20]),
                    tick: int24(&b[20..23]),
                    liquidity: uint(&b[23..39]),
                    ticks,
                });
            }
            k => return Err(format!("a result of kind {k}, {} bytes from the end", rest.len())),
        }
    }
    Ok(answers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_packed_as_the_lens_reads_them() {
        let pool = Address::repeat_byte(0xab);
        let batch = [
            Request { pool, read: Read::V2 },
            Request { pool, read: Read::V3Words { from: -3, to: 2, spacing: 60 } },
            Request { pool, read: Read::V3Ticks(vec![-887_220, 0, 887_220]) },
        ];
        let bytes = encode(&batch);
        let len = batch.iter().map(Request::asked_bytes).sum::<usize>();
        assert_eq!(bytes.len(), len + 32);
        assert_eq!(U256::from_be_slice(&bytes[len..]), U256::from(len));
        assert_eq!(bytes[0], 0);
        assert_eq!(&bytes[1..21], pool.as_slice());
        assert_eq!(
            &bytes[21..49],
            &[&[1u8][..], pool.as_slice(), &[0xff, 0xfd, 0, 2, 0, 0, 60]].concat()[..]
        );
        let ticks = &bytes[49..len];
        assert_eq!(ticks[0], 2);
        assert_eq!(&ticks[21..], &[3, 0xf2, 0x76, 0x4c, 0, 0, 0, 0x0d, 0x89, 0xb4]);
    }

    #[test]
    fn answers_are_read_back_with_signs_and_widths() {
        let mut out = vec![0u8];
        out.extend_from_slice(&((1u128 << 112) - 1).to_be_bytes()[2..]);
        out.extend_from_slice(&7u128.to_be_bytes()[2..]);
        out.push(2);
        let sqrt = U256::from(1u8) << 159usize;
        out.extend_from_slice(&sqrt.to_be_bytes::<32>()[12..]);
        out.extend_from_slice(&[0xff, 0xff, 0xc4]); // -60
        out.extend_from_slice(&u128::MAX.to_be_bytes());
        out.extend_from_slice(&[0, 1]);
        out.extend_from_slice(&[0xf2, 0x76, 0x4c]); // -887220
        out.extend_from_slice(&5u128.to_be_bytes());
        out.extend_from_slice(&(-5i128).to_be_bytes());
        assert_eq!(
            decode(&out).unwrap(),
            vec![
                Answer::V2 { reserves: [(1u128 << 112) - 1, 7] },
                Answer::V3 {
                    sqrt_price_x96: sqrt,
                    tick: -60,
                    liquidity: u128::MAX,
                    ticks: vec![(-887_220, 5, -5)],
                },
            ]
        );
        assert!(decode(&out[..out.len() - 1]).is_err());
        assert!(decode(&[9]).is_err());
    }

    #[test]
    fn a_request_splits_into_halves_that_cover_it() {
        let pool = Address::ZERO;
        let (a, b) =
            Request { pool, read: Read::V3Words { from: -4, to: 5, spacing: 10 } }.split().unwrap();
        assert_eq!(a.read, Read::V3Words { from: -4, to: 0, spacing: 10 });
        assert_eq!(b.read, Read::V3Words { from: 1, to: 5, spacing: 10 });
        let (a, b) = Request { pool, read: Read::V3Ticks(vec![1, 2, 3]) }.split().unwrap();
        assert_eq!((a.read, b.read), (Read::V3Ticks(vec![1]), Read::V3Ticks(vec![2, 3])));
        assert!(Request { pool, read: Read::V2 }.split().is_none());
        assert!(Request { pool, read: Read::V3Ticks(vec![1]) }.split().is_none());
    }
}

//! Balancer V2 weighted math against golden vectors from an independent
//! implementation (`tests/golden/weighted/`: Balancer's own BigInt port,
//! `@balancer-labs/balancer-maths`), exact to the wei, errors included; then
//! properties of the swap: monotone in the amount, below the pool's balance,
//! never better than the spot price, no panic on any input, and the pool
//! wiring (next state, shadow quote).

use alloy_primitives::{Address, I256, U256, U512};
use proptest::prelude::*;
use serde_json::Value;
use switchyard_catalog::ChainId;
use switchyard_kernel::{
    Pool, PoolState, PoolTokens, WeightedState,
    amm::{
        AmmError, gas,
        weighted::{self, PowRule},
    },
    pool::u256_to_f64,
};

const VECTORS: &str = include_str!("golden/weighted/vectors.json");

fn u(s: &str) -> U256 {
    s.parse().unwrap_or_else(|e| panic!("bad U256 {s}: {e}"))
}

fn i(s: &str) -> I256 {
    I256::from_dec_str(s).unwrap_or_else(|e| panic!("bad I256 {s}: {e}"))
}

fn d(s: &str) -> u8 {
    s.parse().unwrap_or_else(|e| panic!("bad decimals {s}: {e}"))
}

fn run(f: &str, a: &[&str]) -> Result<String, AmmError> {
    let s = |x: U256| x.to_string();
    Ok(match f {
        "mul_down" => s(weighted::mul_down(u(a[0]), u(a[1]))?),
        "mul_up" => s(weighted::mul_up(u(a[0]), u(a[1]))?),
        "div_down" => s(weighted::div_down(u(a[0]), u(a[1]))?),
        "div_up" => s(weighted::div_up(u(a[0]), u(a[1]))?),
        "complement" => s(weighted::complement(u(a[0]))),
        "pow" => s(weighted::pow(u(a[0]), u(a[1]))?),
        "pow_up" => s(weighted::pow_up(u(a[0]), u(a[1]))?),
        "pow_up_v1" => s(weighted::pow_up_v1(u(a[0]), u(a[1]))?),
        "exp" => weighted::exp(i(a[0]))?.to_string(),
        "ln" => weighted::ln(i(a[0]))?.to_string(),
        "calc_out_given_in" => {
            s(weighted::calc_out_given_in(u(a[0]), u(a[1]), u(a[2]), u(a[3]), u(a[4]))?)
        }
        f @ ("out_given_in" | "out_given_in_v1") => {
            let rule = if f == "out_given_in" { PowRule::Current } else { PowRule::First };
            s(weighted::out_given_in(
                rule,
                u(a[0]),
                d(a[1]),
                u(a[2]),
                u(a[3]),
                d(a[4]),
                u(a[5]),
                u(a[6]),
                u(a[7]),
            )?)
        }
        other => panic!("vector for unknown function {other}"),
    })
}

#[test]
fn golden_vectors_match_exactly() {
    let doc: Value = serde_json::from_str(VECTORS).expect("vectors.json parses");
    let vectors = doc["vectors"].as_array().expect("a vectors array");
    assert!(vectors.len() >= 60, "only {} vectors", vectors.len());
    let mut failures = Vec::new();
    for v in vectors {
        let f = v["fn"].as_str().expect("fn");
        let args: Vec<&str> =
            v["args"].as_array().expect("args").iter().map(|a| a.as_str().expect("arg")).collect();
        let want = match (v.get("expected"), v.get("error")) {
            (Some(e), None) => Ok(e.as_str().expect("expected").to_owned()),
            (None, Some(e)) => Err(e.as_str().expect("error").to_owned()),
            _ => panic!("vector needs one of expected / error: {v}"),
        };
        let got = run(f, &args).map_err(|e| format!("{e:?}"));
        if got != want {
            failures.push(format!(
                "{f}({}) [{}]: got {got:?}, want {want:?}",
                args.join(", "),
                v["note"].as_str().unwrap_or("")
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors differ:\n{}", failures.len(), vectors.len(), {
        failures.join("\n")
    });
}

/// Every function the vectors name is covered by a vector, so a renamed
/// generator entry cannot silently drop a function.
#[test]
fn vectors_cover_every_function() {
    let doc: Value = serde_json::from_str(VECTORS).expect("vectors.json parses");
    let counts = doc["counts"].as_object().expect("counts");
    for f in [
        "mul_down",
        "mul_up",
        "div_down",
        "div_up",
        "complement",
        "pow",
        "pow_up",
        "pow_up_v1",
        "exp",
        "ln",
        "calc_out_given_in",
        "out_given_in",
        "out_given_in_v1",
    ] {
        assert!(counts.get(f).and_then(Value::as_u64).unwrap_or(0) > 0, "no vector for {f}");
    }
}

fn e18(x: f64) -> U256 {
    U256::from((x * 1e6).round() as u64) * U256::from(1_000_000_000_000u64)
}

fn pool(balances: [U256; 2], decimals: [u8; 2], weights: [U256; 2], swap_fee: U256) -> Pool {
    Pool {
        chain: ChainId(1),
        address: Address::ZERO,
        protocol: "balancer-v2".into(),
        tokens: PoolTokens::new([
            (Address::with_last_byte(1), decimals[0]),
            (Address::with_last_byte(2), decimals[1]),
        ]),
        state: PoolState::Weighted(Box::new(WeightedState {
            balances: balances.to_vec(),
            weights: weights.to_vec(),
            swap_fee,
            pow_rule: PowRule::Current,
            bpt_supply: None,
        })),
    }
}

#[test]
fn pool_swap_uses_the_exact_math_and_books_the_whole_amount_in() {
    let p = pool(
        [U256::from(2_526_315_789u64), e18(800.0)],
        [8, 18],
        [e18(0.5), e18(0.5)],
        e18(0.0025),
    );
    let amount = U256::from(100_000_000u64);
    let s = p.swap_exact_in(0, 1, amount).expect("quotes");
    let want = weighted::out_given_in(
        PowRule::Current,
        U256::from(2_526_315_789u64),
        8,
        e18(0.5),
        e18(800.0),
        18,
        e18(0.5),
        e18(0.0025),
        amount,
    );
    assert_eq!(Ok(s.amount_out), want);
    assert_eq!(s.gas, gas::WEIGHTED);
    let PoolState::Weighted(next) = &s.next else { panic!("kind changed") };
    assert_eq!(next.balances[0], U256::from(2_626_315_789u64));
    assert_eq!(next.balances[1], e18(800.0) - s.amount_out);
    // A second leg from the new state sees the moved price.
    let again = p.swap_exact_in_from(&s.next, 0, 1, amount).expect("quotes");
    assert!(again.amount_out < s.amount_out);
    // Past MAX_IN_RATIO, and dust that rounds to nothing, are liquidity errors.
    assert_eq!(
        p.swap_exact_in(0, 1, U256::from(800_000_000u64)).map(|s| s.amount_out),
        Err(AmmError::InsufficientLiquidity)
    );
    assert_eq!(
        p.swap_exact_in(1, 0, U256::from(1u8)).map(|s| s.amount_out),
        Err(AmmError::InsufficientLiquidity)
    );
}

#[test]
fn a_2021_pool_quotes_with_the_first_pow_rule() {
    let mut p = pool(
        [U256::from(2_526_315_789u64), e18(800.0)],
        [8, 18],
        [e18(0.5), e18(0.5)],
        e18(0.0025),
    );
    let amount = U256::from(100_000_000u64);
    let args = (U256::from(2_526_315_789u64), e18(800.0), e18(0.5), e18(0.0025));
    let quote =
        |rule| weighted::out_given_in(rule, args.0, 8, args.2, args.1, 18, args.2, args.3, amount);
    let (current, first) = (quote(PowRule::Current), quote(PowRule::First));
    assert_ne!(current, first, "the two rules differ on a 50/50 pool");
    assert_eq!(p.swap_exact_in(0, 1, amount).map(|s| s.amount_out), current);
    if let PoolState::Weighted(w) = &mut p.state {
        w.pow_rule = PowRule::First;
    }
    let s = p.swap_exact_in(0, 1, amount).expect("quotes");
    assert_eq!(Ok(s.amount_out), first);
    assert!(matches!(&s.next, PoolState::Weighted(w) if w.pow_rule == PowRule::First));
}

#[test]
fn shadow_tracks_exact() {
    for (weights, dec) in [
        ([e18(0.5), e18(0.5)], [18, 6]),
        ([e18(0.8), e18(0.2)], [18, 18]),
        ([e18(0.2), e18(0.8)], [8, 18]),
        ([e18(0.98), e18(0.02)], [18, 6]),
    ] {
        let balances = [
            U256::from(5_000u64) * U256::from(10u8).pow(U256::from(dec[0])),
            U256::from(7_000u64) * U256::from(10u8).pow(U256::from(dec[1])),
        ];
        let p = pool(balances, dec, weights, e18(0.003));
        for frac in [1e-6, 1e-3, 0.05, 0.29] {
            let x = u256_to_f64(balances[0]) * frac;
            let exact = p.swap_exact_in(0, 1, U256::from(x as u128)).expect("quotes").amount_out;
            let shadow = p.shadow_out(0, 1, x);
            let e = u256_to_f64(exact);
            // The shadow is the real-number formula; powUp widens the power
            // by 1e-14 of itself (plus a wei) outside the 1/2/4 shortcuts,
            // which costs up to about 1e-14 of the output balance.
            let slack = e * 1e-9 + u256_to_f64(balances[1]) * 2e-14 + 2.0;
            assert!((shadow - e).abs() <= slack, "{weights:?} {frac}: {shadow} vs {e}");
        }
        // Beyond the contract's limit the shadow offers nothing either.
        assert_eq!(p.shadow_out(0, 1, u256_to_f64(balances[0]) * 0.31), 0.0);
    }
}

fn any_u256() -> impl Strategy<Value = U256> {
    prop_oneof![
        any::<[u64; 4]>().prop_map(U256::from_limbs),
        any::<u128>().prop_map(U256::from),
        any::<u64>().prop_map(U256::from),
        Just(U256::ZERO),
        Just(U256::MAX),
    ]
}

/// Realistic pools: weights from 1% to 99%, 6/8/18 decimals, balances from
/// one token to 1e12 tokens, fees up to 10%.
fn realistic() -> impl Strategy<Value = ([U256; 2], [u8; 2], [U256; 2], U256)> {
    (
        1u64..=99,
        prop::sample::select(vec![6u8, 8, 18]),
        prop::sample::select(vec![6u8, 8, 18]),
        1u64..1_000_000_000_000,
        1u64..1_000_000_000_000,
        0u64..100_000_000_000_000_000,
    )
        .prop_map(|(w, di, dout, bi, bo, fee)| {
            let scale = |n: u64, dec: u8| U256::from(n) * U256::from(10u8).pow(U256::from(dec));
            (
                [scale(bi, di), scale(bo, dout)],
                [di, dout],
                [e18(w as f64 / 100.0), e18(1.0 - w as f64 / 100.0)],
                U256::from(fee),
            )
        })
}

fn quote(b: [U256; 2], dec: [u8; 2], w: [U256; 2], fee: U256, x: U256) -> Result<U256, AmmError> {
    weighted::out_given_in(PowRule::Current, b[0], dec[0], w[0], b[1], dec[1], w[1], fee, x)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn monotone_bounded_and_never_beats_spot(
        (b, dec, w, fee) in realistic(),
        frac_a in 1u64..300_000,
        extra in 0u64..300_000,
    ) {
        // Amounts as fractions (1e-6 units) of the input balance, up to 30%.
        let a = b[0] * U256::from(frac_a) / U256::from(1_000_000u64);
        let c = a + b[0] * U256::from(extra) / U256::from(1_000_000u64);
        prop_assume!(!a.is_zero());
        let ra = quote(b, dec, w, fee, a);
        let rc = quote(b, dec, w, fee, c);
        if let Ok(out) = ra {
            prop_assert!(out < b[1], "{out} >= balance {}", b[1]);
            // out <= a * (bo / wo) / (bi / wi), in raw units, exactly.
            let lhs = U512::from(out) * U512::from(b[0]) * U512::from(w[1]);
            let rhs = U512::from(a) * U512::from(b[1]) * U512::from(w[0]);
            prop_assert!(lhs <= rhs, "{out} beats the spot price for {a}");
            if let Ok(more) = rc {
                prop_assert!(more >= out, "{c} buys {more} < {out} bought by {a}");
            }
        }
        // Only MAX_IN_RATIO can refuse these pools, and only past 30%.
        if let Err(e) = ra {
            prop_assert_eq!(e, AmmError::InsufficientLiquidity);
        }
    }

    #[test]
    fn no_panic_on_any_input(
        bi in any_u256(), bo in any_u256(), wi in any_u256(), wo in any_u256(),
        fee in any_u256(), x in any_u256(), di in any::<u8>(), dout in any::<u8>(),
    ) {
        for rule in [PowRule::Current, PowRule::First] {
            let _ = weighted::out_given_in(rule, bi, di, wi, bo, dout, wo, fee, x);
        }
        let _ = weighted::calc_out_given_in(bi, wi, bo, wo, x);
        let _ = weighted::pow(bi, wi);
        let _ = weighted::pow_up(bi, wi);
        let _ = weighted::ln(I256::from_raw(bo));
        let _ = weighted::exp(I256::from_raw(wo));
        let p = pool([bi, bo], [di, dout], [wi, wo], fee);
        let _ = p.swap_exact_in(0, 1, x);
        let _ = p.swap_exact_in(1, 0, x);
        let s = p.shadow_out(0, 1, u256_to_f64(x));
        prop_assert!(s.is_finite() && s >= 0.0);
    }

    #[test]
    fn pow_up_bounds_pow_from_above(x in 1u128..2_000_000_000_000_000_000, y in 10_000_000_000_000_000u128..100_000_000_000_000_000_000) {
        let (x, y) = (U256::from(x), U256::from(y));
        if let (Ok(raw), Ok(up), Ok(up1)) = (weighted::pow(x, y), weighted::pow_up(x, y), weighted::pow_up_v1(x, y)) {
            prop_assert!(up > raw || y == weighted::ONE || y == weighted::ONE * U256::from(2u8) || y == weighted::ONE * U256::from(4u8));
            prop_assert!(up1 > raw);
        }
    }
}

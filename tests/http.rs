//! Data-driven HTTP scenarios: `tests/scenarios/*.json`, each a list of
//! requests with the status and body they must get, run in order through
//! `Router::oneshot` (no socket).
//!
//! A scenario:
//!
//! ```json
//! {"name": "…", "method": "GET", "path": "/api/v1/tokens?chainId=1",
//!  "auth": "bearer | query | none | bad | slow | revoked", "headers": {"x": "y"},
//!  "body": <json value> | "bodyRaw": "<text>",
//!  "status": 200,
//!  "expect": <json that the body must contain (objects: subset; arrays: same length, element-wise)>,
//!  "checks": [{"pointer": "/meta/total", "equals": 7, "len": 3, "type": "array",
//!              "each": {<subset every element must contain>}, "contains": {<subset one element must contain>},
//!              "min": 1.0, "max": 2.0 (numbers or decimal strings), "absent": true}],
//!  "headersPresent": ["retry-after"], "bodyContains": ["<text the raw body must contain>"]}
//! ```
//! Every error response is also checked to carry the standard error body.

mod common;

use std::path::Path;

use axum::{
    body::Body,
    http::{Request, header},
};
use serde_json::Value;
use tower::ServiceExt as _;

/// Whether `actual` contains `expected` (see the module docs).
fn contains(actual: &Value, expected: &Value) -> Result<(), String> {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            for (k, ev) in e {
                let av = a.get(k).ok_or_else(|| format!("missing key `{k}`"))?;
                contains(av, ev).map_err(|m| format!("{k}: {m}"))?;
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(e)) => {
            if a.len() != e.len() {
                return Err(format!("array of {} items, expected {}", a.len(), e.len()));
            }
            for (i, (av, ev)) in a.iter().zip(e).enumerate() {
                contains(av, ev).map_err(|m| format!("[{i}]: {m}"))?;
            }
            Ok(())
        }
        (Value::Number(a), Value::Number(e)) if a.as_f64() == e.as_f64() => Ok(()),
        (a, e) if a == e => Ok(()),
        (a, e) => Err(format!("got {a}, expected {e}")),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn run_check(body: &Value, check: &Value) -> Result<(), String> {
    let pointer = check["pointer"].as_str().unwrap_or("");
    if check.get("absent").and_then(Value::as_bool) == Some(true) {
        return match body.pointer(pointer) {
            None => Ok(()),
            Some(v) => Err(format!("{pointer}: expected no value, got {v}")),
        };
    }
    let v = body.pointer(pointer).ok_or_else(|| format!("no value at `{pointer}`"))?;
    let at = |m: String| format!("{pointer}: {m}");
    if let Some(e) = check.get("equals") {
        contains(v, e).map_err(at)?;
    }
    if let Some(n) = check.get("len").and_then(Value::as_u64) {
        let len = v.as_array().map(Vec::len).or_else(|| v.as_object().map(|o| o.len()));
        if len != Some(n as usize) {
            return Err(at(format!("length {len:?}, expected {n}")));
        }
    }
    if let Some(t) = check.get("type").and_then(Value::as_str)
        && type_name(v) != t
    {
        return Err(at(format!("type {}, expected {t}", type_name(v))));
    }
    if let Some(e) = check.get("each") {
        let arr = v.as_array().ok_or_else(|| at("not an array".into()))?;
        if arr.is_empty() {
            return Err(at("`each` over an empty array proves nothing".into()));
        }
        for (i, item) in arr.iter().enumerate() {
            contains(item, e).map_err(|m| at(format!("[{i}]: {m}")))?;
        }
    }
    if let Some(e) = check.get("contains") {
        let arr = v.as_array().ok_or_else(|| at("not an array".into()))?;
        if !arr.iter().any(|item| contains(item, e).is_ok()) {
            return Err(at(format!("no element contains {e}")));
        }
    }
    // A number, or a decimal string (gas and amounts are strings on the wire).
    let number = v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse::<f64>().ok()));
    if let Some(min) = check.get("min").and_then(Value::as_f64)
        && number.is_none_or(|x| x < min)
    {
        return Err(at(format!("{v} is below {min}")));
    }
    if let Some(max) = check.get("max").and_then(Value::as_f64)
        && number.is_none_or(|x| x > max)
    {
        return Err(at(format!("{v} is above {max}")));
    }
    Ok(())
}

async fn run_scenario(env: &common::TestEnv, app: &axum::Router, s: &Value) -> Result<(), String> {
    let method = s["method"].as_str().unwrap_or("GET");
    let mut path = s["path"].as_str().ok_or("scenario without path")?.to_owned();
    let auth = s["auth"].as_str().unwrap_or("bearer");
    let mut req = Request::builder().method(method);
    match auth {
        "bearer" => req = req.header(header::AUTHORIZATION, format!("Bearer {}", env.fast_key)),
        "slow" => req = req.header(header::AUTHORIZATION, format!("Bearer {}", env.slow_key)),
        "revoked" => req = req.header(header::AUTHORIZATION, format!("Bearer {}", env.revoked_key)),
        "bad" => {
            req = req.header(
                header::AUTHORIZATION,
                "Bearer sy_0000000000000000000000000000000000000000000000",
            )
        }
        "query" => {
            let sep = if path.contains('?') { '&' } else { '?' };
            path = format!("{path}{sep}apikey={}", env.fast_key);
        }
        "none" => {}
        other => return Err(format!("unknown auth `{other}`")),
    }
    if let Some(h) = s.get("headers").and_then(Value::as_object) {
        for (k, v) in h {
            req = req.header(k.as_str(), v.as_str().unwrap_or(""));
        }
    }
    let body = if let Some(raw) = s.get("bodyRaw").and_then(Value::as_str) {
        Body::from(raw.to_owned())
    } else if let Some(b) = s.get("body") {
        req = req.header(header::CONTENT_TYPE, "application/json");
        Body::from(b.to_string())
    } else if let Some(n) = s.get("bodyBytes").and_then(Value::as_u64) {
        Body::from(vec![b' '; n as usize])
    } else {
        Body::empty()
    };
    let req = req.uri(&path).body(body).map_err(|e| format!("bad request: {e}"))?;
    let res = app.clone().oneshot(req).await.map_err(|e| format!("service error: {e}"))?;
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let bytes =
        axum::body::to_bytes(res.into_body(), usize::MAX).await.map_err(|e| e.to_string())?;
    let want = s["status"].as_u64().ok_or("scenario without status")? as u16;
    let text = String::from_utf8_lossy(&bytes);
    if status != want {
        return Err(format!("status {status}, expected {want}; body {text}"));
    }
    if status >= 500 && status != 501 && status != 503 {
        return Err(format!("server error {status}: {text}"));
    }
    for h in s.get("headersPresent").and_then(Value::as_array).into_iter().flatten() {
        let h = h.as_str().unwrap_or("");
        if !headers.contains_key(h) {
            return Err(format!("header `{h}` missing"));
        }
    }
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let value: Value = if is_json {
        serde_json::from_slice(&bytes).map_err(|e| format!("invalid json ({e}): {text}"))?
    } else {
        Value::String(text.to_string())
    };
    if status >= 400 {
        if !is_json {
            return Err(format!("error {status} without a json body: {text}"));
        }
        for k in ["statusCode", "error", "message", "code", "field"] {
            if value.get(k).is_none() {
                return Err(format!("error body without `{k}`: {text}"));
            }
        }
        if value["statusCode"].as_u64() != Some(u64::from(status)) {
            return Err(format!("statusCode differs from the status: {text}"));
        }
    }
    for needle in s.get("bodyContains").and_then(Value::as_array).into_iter().flatten() {
        let needle = needle.as_str().unwrap_or("");
        if !text.contains(needle) {
            return Err(format!("body lacks `{needle}`: {}", truncate(&text)));
        }
    }
    if let Some(e) = s.get("expect") {
        contains(&value, e).map_err(|m| format!("body: {m}; got {}", truncate(&text)))?;
    }
    for c in s.get("checks").and_then(Value::as_array).into_iter().flatten() {
        run_check(&value, c).map_err(|m| format!("{m}; got {}", truncate(&text)))?;
    }
    Ok(())
}

fn truncate(s: &str) -> String {
    if s.len() > 600 {
        format!("{}…", &s[..s.char_indices().nth(600).map_or(s.len(), |(i, _)| i)])
    } else {
        s.to_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scenarios() {
    let env = common::start("scenarios");
    let app = switchyard_server::app(env.state.clone());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/scenarios exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    let mut n = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read scenario file");
        // `${ACCOUNT_ID}` and `${FAST_KEY}` stand for the test key's account and secret.
        let text =
            text.replace("${ACCOUNT_ID}", &env.account_id).replace("${FAST_KEY}", &env.fast_key);
        let list: Vec<Value> = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not a json array of scenarios: {e}", f.display()));
        for s in &list {
            n += 1;
            let name = format!(
                "{} / {}",
                f.file_name().map(|x| x.to_string_lossy()).unwrap_or_default(),
                s["name"].as_str().unwrap_or("?")
            );
            if let Err(e) = run_scenario(&env, &app, s).await {
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} scenarios failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{n} scenarios passed");
}

/// One request through the router: status and JSON body.
async fn call(
    app: &axum::Router,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut req = Request::builder().method(method).uri(path);
    req = req.header(header::AUTHORIZATION, format!("Bearer {key}"));
    let req = match body {
        Some(b) => {
            req.header(header::CONTENT_TYPE, "application/json").body(Body::from(b.to_string()))
        }
        None => req.body(Body::empty()),
    }
    .expect("request");
    let res = app.clone().oneshot(req).await.expect("answer");
    let status = res.status().as_u16();
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX).await.expect("body");
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// A batch answers what each quote's own `GET` answers, on the same block,
/// and costs its key one request per quote, admitted whole or not at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_equals_its_single_quotes_and_costs_one_request_per_quote() {
    let env = common::start("batch");
    let app = switchyard_server::app(env.state.clone());
    let tokens = [
        "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
        "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
        "0xdac17f958d2ee523a2206206994597c13d831ec7",
        "0x6b175474e89094c44da98b954eedeac495271d0f",
        "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599",
    ];
    let amounts = ["1000000", "250000000000", "3000000000000000000", "70000000"];
    let mut quotes = Vec::new();
    for (i, a) in tokens.iter().enumerate() {
        for (j, b) in tokens.iter().enumerate() {
            if i != j {
                quotes.push(serde_json::json!({
                    "chainId": 1, "tokenIn": a, "tokenOut": b,
                    "amountIn": amounts[(i + j) % amounts.len()],
                }));
            }
        }
    }
    let (status, batch) = call(
        &app,
        "POST",
        "/api/v1/shortcuts/quote/batch",
        &env.fast_key,
        Some(&serde_json::json!({ "quotes": quotes })),
    )
    .await;
    assert_eq!(status, 200, "{batch}");
    let block = batch["blockNumbers"]["1"].as_u64().expect("chain 1's block");
    let results = batch["results"].as_array().expect("results");
    assert_eq!(results.len(), quotes.len());
    let mut answered = 0;
    for (q, r) in quotes.iter().zip(results) {
        let path = format!(
            "/api/v1/shortcuts/quote?chainId=1&tokenIn={}&tokenOut={}&amountIn={}",
            q["tokenIn"].as_str().unwrap_or_default(),
            q["tokenOut"].as_str().unwrap_or_default(),
            q["amountIn"].as_str().unwrap_or_default()
        );
        let (single_status, single) = call(&app, "GET", &path, &env.fast_key, None).await;
        assert_eq!(r["status"].as_u64(), Some(u64::from(single_status)), "{path}: {r}");
        if single_status == 200 {
            answered += 1;
            assert_eq!(r["body"], single, "{path}");
            assert_eq!(r["body"]["blockNumber"].as_u64(), Some(block));
        } else {
            assert_eq!(r["body"]["code"], single["code"], "{path}");
        }
    }
    assert!(answered >= 15, "only {answered} of {} pairs quoted", quotes.len());

    // A key of 5 requests per second: a batch of 6 can never fit (400,
    // naming `quotes`); 5 fit at once; then the key is out until it refills.
    let five = env.engine().create_key(5.0, None).await.expect("key").key;
    let batch_of = |n: usize| serde_json::json!({ "quotes": vec![quotes[0].clone(); n] });
    let (status, body) =
        call(&app, "POST", "/api/v1/shortcuts/quote/batch", &five, Some(&batch_of(6))).await;
    assert_eq!((status, body["field"].as_str()), (400, Some("quotes")), "{body}");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (status, body) =
        call(&app, "POST", "/api/v1/shortcuts/quote/batch", &five, Some(&batch_of(5))).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) =
        call(&app, "POST", "/api/v1/shortcuts/quote/batch", &five, Some(&batch_of(1))).await;
    assert_eq!(status, 429, "the batch of 5 used the key's whole burst");
}

/// A ladder on one block: its smallest and largest points are exactly the
/// quotes of those amounts, every point between is within 0.1% of its own
/// full quote, outputs rise with the input, and bad amounts are refused
/// naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_matches_its_quotes_at_the_ends_and_rises() {
    let env = common::start("ladder");
    let app = switchyard_server::app(env.state.clone());
    let (usdc, weth) = (
        "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
        "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2",
    );
    for (token_in, token_out, base) in [(usdc, weth, 1_000_000u128), (weth, usdc, 10u128.pow(16))] {
        let amounts: Vec<String> = (0..32u32)
            .map(|k| (base * 3u128.pow(k / 3) * u128::from(k % 3 + 1)).to_string())
            .collect();
        let mut sorted = amounts.clone();
        sorted.sort_by_key(|a| a.parse::<u128>().unwrap_or_default());
        sorted.dedup();
        let body = serde_json::json!({"chainId": 1, "tokenIn": token_in, "tokenOut": token_out, "amountsIn": sorted});
        let (status, ladder) =
            call(&app, "POST", "/api/v1/shortcuts/quote/ladder", &env.fast_key, Some(&body)).await;
        assert_eq!(status, 200, "{ladder}");
        let points = ladder["points"].as_array().expect("points");
        assert_eq!(points.len(), sorted.len());
        let mut last_out = 0u128;
        for (k, (p, amount)) in points.iter().zip(&sorted).enumerate() {
            assert_eq!(p["amountIn"].as_str(), Some(amount.as_str()));
            let out: u128 =
                p["amountOut"].as_str().and_then(|s| s.parse().ok()).expect("amountOut");
            assert!(out > last_out, "point {k}: {out} after {last_out}");
            last_out = out;
            assert!(p["marginalPrice"].as_f64().is_some_and(|m| m > 0.0), "{p}");
            assert!(!p["route"].as_array().is_some_and(Vec::is_empty), "{p}");
            let path = format!(
                "/api/v1/shortcuts/quote?chainId=1&tokenIn={token_in}&tokenOut={token_out}&amountIn={amount}"
            );
            let (_, single) = call(&app, "GET", &path, &env.fast_key, None).await;
            let single_out: u128 =
                single["amountOut"].as_str().and_then(|s| s.parse().ok()).expect("quote");
            if k == 0 || k + 1 == points.len() {
                assert_eq!(out, single_out, "point {k} is its own quote");
            } else {
                assert!(
                    out as f64 >= single_out as f64 * 0.999,
                    "point {k}: {out} against its quote {single_out}"
                );
            }
        }
        assert_eq!(ladder["blockNumber"].as_u64(), Some(21_890_310));
    }
    for (body, field) in [
        (
            serde_json::json!({"tokenIn": usdc, "tokenOut": weth, "amountsIn": ["5", "5"]}),
            "amountsIn[1]",
        ),
        (
            serde_json::json!({"tokenIn": usdc, "tokenOut": weth, "amountsIn": ["0"]}),
            "amountsIn[0]",
        ),
        (
            serde_json::json!({"tokenIn": usdc, "tokenOut": weth, "amountsIn": vec!["1"; 65]}),
            "amountsIn",
        ),
        (serde_json::json!({"tokenIn": usdc, "tokenOut": weth}), "amountsIn"),
        (serde_json::json!({"tokenIn": usdc, "tokenOut": usdc, "amountsIn": ["1"]}), "tokenOut"),
        (serde_json::json!({"tokenIn": usdc, "amountsIn": ["1"]}), "tokenOut"),
        (
            serde_json::json!({"chainId": 999999, "tokenIn": usdc, "tokenOut": weth, "amountsIn": ["1"]}),
            "chainId",
        ),
    ] {
        let (status, err) =
            call(&app, "POST", "/api/v1/shortcuts/quote/ladder", &env.fast_key, Some(&body)).await;
        assert!((400..500).contains(&status), "{body}: {status} {err}");
        assert_eq!(err["field"].as_str(), Some(field), "{body}: {err}");
    }
}

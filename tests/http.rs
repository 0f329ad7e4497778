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

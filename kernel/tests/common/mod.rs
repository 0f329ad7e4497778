//! Helpers the kernel's integration tests share: the demo market's
//! snapshot, addresses, amounts and one-input route requests.

#![allow(dead_code, reason = "each test binary uses a subset")]

pub(crate) mod replay;

use alloy_primitives::U256;
use switchyard_catalog::{Address, ChainId, loaders};
use switchyard_kernel::{
    KernelError, MarketSnapshot, Plan, RouteRequest, SearchParams, find_routes,
};

/// An address from its hex text.
pub(crate) fn a(s: &str) -> Address {
    s.parse().expect("address")
}

/// `n · 10^dec`.
pub(crate) fn e(n: u64, dec: u32) -> U256 {
    U256::from(n) * U256::from(10u8).pow(U256::from(dec))
}

/// The snapshot of the embedded demo market.
pub(crate) fn snapshot() -> MarketSnapshot {
    let c = loaders::embedded_catalog().expect("catalog");
    let m = loaders::embedded_market(&c).expect("market");
    MarketSnapshot::build(&m, &c).expect("snapshot")
}

/// Routes `amount` of `from` on Ethereum into `to`, on Ethereum or on
/// `destination`.
pub(crate) fn route(
    s: &MarketSnapshot,
    from: &str,
    amount: U256,
    to: &str,
    destination: Option<ChainId>,
    params: &SearchParams,
) -> Result<Plan, KernelError> {
    let request = RouteRequest {
        chain: ChainId(1),
        destination_chain: destination,
        inputs: vec![(a(from), amount)],
        outputs: vec![a(to)],
    };
    find_routes(s, &request, params)
}

//! The one error body every endpoint answers with, and the single mapping
//! from [`ApiCode`] to the wire code and the HTTP status.
//!
//! Every engine error gets its code from [`EngineError::code`] (exhaustive,
//! nested errors included); this module adds only what is the wire's: the
//! field names and the messages. Nothing here logs: an error the service
//! owes (5xx) carries its cause in the response's extensions, and the
//! request middleware logs it.
//!
//! ```json
//! {"statusCode":400,"error":"Bad Request","message":"fee[0] must be between 0 and 100 bps",
//!  "code":"INVALID_PARAMETER","field":"fee[0]"}
//! ```

use std::{borrow::Cow, time::Duration};

use axum::{
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde::Serialize;
use switchyard_catalog::ApiCode;
use switchyard_engine::{EngineError, ExecError};

/// An error on its way to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// What went wrong: the wire code and the status come from it.
    pub code: ApiCode,
    /// Human message, lowercase.
    pub message: Cow<'static, str>,
    /// The request field at fault, when there is one.
    pub field: Option<Cow<'static, str>>,
    /// For 429 and 503: when to retry.
    pub retry_after: Option<Duration>,
    /// The cause of a failure the service owes, for the log (never sent).
    pub cause: Option<String>,
}

/// The cause of a 5xx answer, left in the response's extensions for the
/// request middleware to log.
#[derive(Debug, Clone)]
pub struct FailureCause(pub String);

/// The wire `code` of an error response, kept in its extensions for the
/// metrics and the status page (which count errors by code).
#[derive(Debug, Clone, Copy)]
pub struct ErrorCode(pub &'static str);

/// The JSON error body (see the module docs).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// HTTP status code.
    pub status_code: u16,
    /// HTTP reason phrase.
    pub error: &'static str,
    /// Human-readable message.
    pub message: String,
    /// Machine-readable code.
    pub code: &'static str,
    /// The request field at fault, or null.
    pub field: Option<String>,
}

impl ApiError {
    fn new(code: ApiCode, message: impl Into<Cow<'static, str>>) -> Self {
        Self { code, message: message.into(), field: None, retry_after: None, cause: None }
    }

    fn caused_by(mut self, cause: &dyn std::error::Error) -> Self {
        self.cause = Some(switchyard_engine::error_chain(cause));
        self
    }

    /// Sets the field at fault.
    #[must_use]
    pub fn field(mut self, field: impl Into<Cow<'static, str>>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// 400 for a malformed or out-of-range parameter.
    pub fn invalid(
        field: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ApiCode::InvalidParameter, message).field(field)
    }

    /// 400 for a missing required parameter.
    pub fn missing(field: impl Into<Cow<'static, str>>) -> Self {
        let field = field.into();
        Self::new(ApiCode::MissingParameter, format!("{field} is required")).field(field)
    }

    /// 404 for an unknown resource named by `field`.
    pub fn not_found(
        field: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ApiCode::NotFound, message).field(field)
    }

    /// 404 for an unknown path.
    pub fn no_such_path(path: &str) -> Self {
        Self::new(ApiCode::NotFound, format!("cannot serve {path}"))
    }

    /// 405.
    pub fn method_not_allowed() -> Self {
        Self::new(ApiCode::MethodNotAllowed, "method not allowed on this path")
    }

    /// 401.
    pub fn unauthenticated() -> Self {
        Self::new(ApiCode::Unauthorized, "missing or invalid api key").field("Authorization")
    }

    /// 422 `BRIDGE_UNAVAILABLE`: a crossing, or something to run on its
    /// arrival, the world does not prove, naming the field.
    pub fn bridge_unavailable(
        field: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ApiCode::BridgeUnavailable, message).field(field)
    }

    /// 501 for a part of a request this build does not serve yet, naming the
    /// field.
    pub fn not_implemented_field(
        field: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ApiCode::NotImplemented, message).field(field)
    }

    /// 422 for a bundle this instance cannot build as asked, naming the
    /// part.
    pub fn bundle_unprocessable(
        field: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ApiCode::BundleUnprocessable, message).field(field)
    }

    /// 413.
    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(ApiCode::PayloadTooLarge, format!("request body exceeds {limit} bytes"))
            .field("body")
    }

    /// 503 after the request timeout.
    pub fn timeout() -> Self {
        Self::new(ApiCode::Timeout, "the request did not complete in time")
    }

    /// The error of item `prefix` of a batch: its field becomes
    /// `<prefix>.<field>` (or `<prefix>` when it named none).
    #[must_use]
    pub fn in_item(mut self, prefix: &str) -> Self {
        self.field = Some(match self.field.as_deref() {
            Some(f) if !f.is_empty() => format!("{prefix}.{f}").into(),
            _ => prefix.to_owned().into(),
        });
        self
    }

    /// 429: the key holds as many quote streams as it may.
    pub fn too_many_subscriptions(limit: usize) -> Self {
        let mut e = Self::new(
            ApiCode::RateLimited,
            format!("this key already holds {limit} quote streams, its most"),
        );
        e.retry_after = Some(std::time::Duration::from_secs(1));
        e
    }

    /// 500 without details (they go to the log).
    pub fn internal() -> Self {
        Self::new(ApiCode::Internal, "internal error")
    }

    /// The HTTP status.
    pub const fn status(&self) -> StatusCode {
        match self.code {
            ApiCode::InvalidParameter | ApiCode::MissingParameter => StatusCode::BAD_REQUEST,
            ApiCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiCode::Forbidden => StatusCode::FORBIDDEN,
            ApiCode::NotFound => StatusCode::NOT_FOUND,
            ApiCode::NoRoute
            | ApiCode::MinAmountOut
            | ApiCode::BridgeUnavailable
            | ApiCode::DeploymentUnavailable
            | ApiCode::PositionUnavailable
            | ApiCode::AmountTooLarge
            | ApiCode::BundleUnprocessable => StatusCode::UNPROCESSABLE_ENTITY,
            ApiCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ApiCode::Timeout
            | ApiCode::Unavailable
            | ApiCode::SimulatorUnavailable
            | ApiCode::RateLimiterUnavailable
            | ApiCode::StaleMarket => StatusCode::SERVICE_UNAVAILABLE,
            ApiCode::NotImplemented => StatusCode::NOT_IMPLEMENTED,
            ApiCode::SnapshotExpired => StatusCode::GONE,
            ApiCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The machine code on the wire.
    pub const fn wire_code(&self) -> &'static str {
        match self.code {
            ApiCode::InvalidParameter => "INVALID_PARAMETER",
            ApiCode::MissingParameter => "MISSING_PARAMETER",
            ApiCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ApiCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ApiCode::Unauthorized => "UNAUTHORIZED",
            ApiCode::Forbidden => "FORBIDDEN",
            ApiCode::NotFound => "NOT_FOUND",
            ApiCode::NoRoute => "NO_ROUTE",
            ApiCode::MinAmountOut => "MIN_AMOUNT_OUT",
            ApiCode::BridgeUnavailable => "BRIDGE_UNAVAILABLE",
            ApiCode::DeploymentUnavailable => "DEPLOYMENT_UNAVAILABLE",
            ApiCode::PositionUnavailable => "POSITION_UNAVAILABLE",
            ApiCode::AmountTooLarge => "AMOUNT_TOO_LARGE",
            ApiCode::BundleUnprocessable => "BUNDLE_UNPROCESSABLE",
            ApiCode::RateLimited => "RATE_LIMITED",
            ApiCode::Timeout => "TIMEOUT",
            ApiCode::Unavailable => "UNAVAILABLE",
            ApiCode::SimulatorUnavailable => "SIMULATOR_UNAVAILABLE",
            ApiCode::RateLimiterUnavailable => "RATE_LIMITER_UNAVAILABLE",
            ApiCode::StaleMarket => "STALE_MARKET",
            ApiCode::NotImplemented => "NOT_IMPLEMENTED",
            ApiCode::SnapshotExpired => "SNAPSHOT_EXPIRED",
            ApiCode::Internal => "INTERNAL",
        }
    }

    /// The body.
    pub fn body(&self) -> ErrorBody {
        let status = self.status();
        ErrorBody {
            status_code: status.as_u16(),
            error: status.canonical_reason().unwrap_or("Error"),
            message: self.message.to_string(),
            code: self.wire_code(),
            field: self.field.as_ref().map(ToString::to_string),
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        let code = e.code();
        // The wire's part: which field is at fault, and the message. Every
        // variant is named; the code is the engine's.
        let (field, message): (Option<Cow<'static, str>>, Cow<'static, str>) = match &e {
            // One answer for every bad key: telling a revoked key from an
            // unknown one would tell a caller which keys once existed.
            EngineError::Unauthenticated | EngineError::Revoked => {
                (Some("Authorization".into()), "missing or invalid api key".into())
            }
            EngineError::RateLimited { .. } => (None, "rate limit exceeded".into()),
            EngineError::RateStore(_) => (
                None,
                "rate limits cannot be checked right now (the shared store is unreachable); retry"
                    .into(),
            ),
            EngineError::Unavailable(what) => (None, format!("{what} is restarting, retry").into()),
            EngineError::Postgres(_) | EngineError::PostgresTimeout(_) => {
                (None, "the database is unreachable right now; retry".into())
            }
            EngineError::Exec(x) => exec_wire(x),
            EngineError::Replay(r) => (None, r.to_string().into()),
            EngineError::Config(_)
            | EngineError::Catalog(_)
            | EngineError::Kernel(_)
            | EngineError::Store(_)
            | EngineError::DataDir { .. }
            | EngineError::SearchPanicked
            | EngineError::Random => (None, "internal error".into()),
        };
        let retry_after = if let EngineError::RateLimited { retry_after } = &e {
            Some(*retry_after)
        } else {
            retry_hint(code)
        };
        let mut out = Self { code, message, field, retry_after, cause: None };
        if out.status().is_server_error() {
            out = out.caused_by(&e);
        }
        out
    }
}

/// The wire's part of a transaction-layer error: the field at fault and
/// the message, for every variant.
fn exec_wire(e: &ExecError) -> (Option<Cow<'static, str>>, Cow<'static, str>) {
    match e {
        ExecError::Route(k) => {
            use switchyard_kernel::KernelError as K;
            match k {
                K::NoRoute { token_in, token_out } => (
                    Some("tokenOut".into()),
                    format!(
                        "no route from {token_in:#x} to {token_out:#x} with enough liquidity"
                    )
                    .into(),
                ),
                K::SameToken => {
                    (Some("tokenOut".into()), "tokenOut must differ from tokenIn".into())
                }
                K::OutputShape => (
                    Some("tokenOut".into()),
                    "tokenOut must be one token, or one per tokenIn".into(),
                ),
                K::EmptyRequest => (Some("tokenIn".into()), "tokenIn is required".into()),
                K::UnknownChain(c) => {
                    (Some("chainId".into()), format!("no market state for chain {c}").into())
                }
                K::UnknownToken { token, .. } => {
                    (Some("tokenIn".into()), format!("token {token:#x} is not known").into())
                }
                K::BadDelta { .. } | K::BadPool { .. } => (None, "internal error".into()),
            }
        }
        ExecError::ZeroAfterFee { index } => (
            Some(format!("amountIn[{index}]").into()),
            format!("amountIn[{index}] is zero after the fee").into(),
        ),
        ExecError::MinAmountOut { index, min, quoted } => (
            Some(format!("minAmountOut[{index}]").into()),
            format!(
                "minAmountOut[{index}] is {min}, but the best route delivers {quoted}: the transaction could only revert"
            )
            .into(),
        ),
        ExecError::StrategyUnavailable { strategy, chain } => (
            Some("routingStrategy".into()),
            format!("routing strategy {strategy} is not deployed on chain {chain}").into(),
        ),
        ExecError::Unfundable { .. } | ExecError::BridgeLimit { .. } => {
            (Some("amountIn".into()), e.to_string().into())
        }
        ExecError::AccountNative => (Some("tokenIn".into()), e.to_string().into()),
        ExecError::AccountMessageFee => (Some("executionMode".into()), e.to_string().into()),
        ExecError::AccountsUnavailable { .. } => {
            (Some("executionMode".into()), e.to_string().into())
        }
        ExecError::AccountUnreadable { .. } | ExecError::AccountEntryPoint { .. } => {
            (Some("fromAddress".into()), e.to_string().into())
        }
        ExecError::SpenderNative => (
            Some("spender".into()),
            "a native-coin input cannot be taken from a spender".into(),
        ),
        ExecError::BridgeUnavailable { .. } => {
            (Some("destinationChainId".into()), e.to_string().into())
        }
        ExecError::Encode(inner) => match inner {
            switchyard_engine::encode::EncodeError::DeploymentUnavailable { .. } => {
                (Some("chainId".into()), inner.to_string().into())
            }
            switchyard_engine::encode::EncodeError::Weiroll(_)
            | switchyard_engine::encode::EncodeError::UnsupportedStep { .. }
            | switchyard_engine::encode::EncodeError::UnknownPool(_)
            | switchyard_engine::encode::EncodeError::NoContracts { .. }
            | switchyard_engine::encode::EncodeError::Guard(_)
            | switchyard_engine::encode::EncodeError::Unsupported(_) => {
                (None, "internal error".into())
            }
        },
        ExecError::PositionUnavailable { .. } => {
            (Some("positionOut".into()), e.to_string().into())
        }
        ExecError::Ipor(i) => {
            use switchyard_engine::ipor::IporError as I;
            let field = match i {
                I::NoVault { .. } => "tokenBToBuy",
                I::EmptySide => "percentageForTokenB",
                I::ZeroAmount => "amountIn",
            };
            (Some(field.into()), i.to_string().into())
        }
        ExecError::PositionNeedsDelegate => (
            Some("routingStrategy".into()),
            "a non-tokenized position is entered on its owner's behalf by the router's executor or the caller's own account, never by a wallet, which would own it: use router, delegate or delegate-legacy".into(),
        ),
        ExecError::Approve(a) => {
            use switchyard_engine::wallet::ApproveError as A;
            let field = match a {
                A::Reserved(_) | A::Native => "tokenAddress",
                A::NoSpender(_) => "routingStrategy",
            };
            (Some(field.into()), a.to_string().into())
        }
        ExecError::Bundle(b) => {
            let message = if b.code == ApiCode::Internal {
                "internal error".into()
            } else {
                b.message.clone().into()
            };
            (Some(b.at.clone().into()), message)
        }
        ExecError::SimulatorUnavailable(_) => (
            None,
            "transactions cannot be proven on this instance (its EVM world is missing: run scripts/setup.sh)".into(),
        ),
        ExecError::StaleMarket { chain } => (
            Some("chainId".into()),
            format!(
                "the market data of chain {chain} is stale (its node does not answer): no route through it until it recovers"
            )
            .into(),
        ),
        ExecError::NativeToLegacyDelegate => (Some("routingStrategy".into()), e.to_string().into()),
        ExecError::ExactOutShape | ExecError::ExactOutToken { .. } | ExecError::ExactOutRoute(_) => {
            (Some("amountOut".into()), e.to_string().into())
        }
        ExecError::SimulationFailed(_) | ExecError::SimulationMismatch { .. } | ExecError::Random => {
            (None, "internal error".into())
        }
    }
}

/// When to retry an answer of `code` (`Retry-After`), if retrying helps.
const fn retry_hint(code: ApiCode) -> Option<Duration> {
    match code {
        ApiCode::SimulatorUnavailable => Some(Duration::from_secs(30)),
        ApiCode::RateLimited
        | ApiCode::RateLimiterUnavailable
        | ApiCode::StaleMarket
        | ApiCode::Unavailable => Some(Duration::from_secs(1)),
        ApiCode::InvalidParameter
        | ApiCode::MissingParameter
        | ApiCode::MethodNotAllowed
        | ApiCode::PayloadTooLarge
        | ApiCode::Unauthorized
        | ApiCode::Forbidden
        | ApiCode::NotFound
        | ApiCode::NoRoute
        | ApiCode::MinAmountOut
        | ApiCode::BridgeUnavailable
        | ApiCode::DeploymentUnavailable
        | ApiCode::PositionUnavailable
        | ApiCode::AmountTooLarge
        | ApiCode::BundleUnprocessable
        | ApiCode::Timeout
        | ApiCode::NotImplemented
        | ApiCode::SnapshotExpired
        | ApiCode::Internal => None,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = serde_json::to_vec(&self.body()).unwrap_or_default();
        let mut res =
            (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body)
                .into_response();
        if let Some(after) = self.retry_after {
            let secs = after.as_secs() + u64::from(after.subsec_nanos() > 0);
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
        }
        res.extensions_mut().insert(ErrorCode(self.wire_code()));
        if let Some(cause) = self.cause {
            res.extensions_mut().insert(FailureCause(cause));
        }
        res
    }
}

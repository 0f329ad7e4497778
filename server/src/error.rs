//! The one error body every endpoint answers with, and the single mapping
//! from [`ErrorCode`] to HTTP status.
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
use switchyard_catalog::ErrorCode;
use switchyard_engine::EngineError;

/// An error on its way to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// What the client should do.
    pub kind: ErrorCode,
    /// Machine-readable code (`INVALID_PARAMETER`, `NOT_FOUND`, ...).
    pub code: &'static str,
    /// Human message, lowercase.
    pub message: Cow<'static, str>,
    /// The request field at fault, when there is one.
    pub field: Option<Cow<'static, str>>,
    /// For 429 and 503: when to retry.
    pub retry_after: Option<Duration>,
}

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
    fn new(kind: ErrorCode, code: &'static str, message: impl Into<Cow<'static, str>>) -> Self {
        Self { kind, code, message: message.into(), field: None, retry_after: None }
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
        Self::new(ErrorCode::BadRequest, "INVALID_PARAMETER", message).field(field)
    }

    /// 400 for a missing required parameter.
    pub fn missing(field: impl Into<Cow<'static, str>>) -> Self {
        let field = field.into();
        Self::new(ErrorCode::BadRequest, "MISSING_PARAMETER", format!("{field} is required"))
            .field(field)
    }

    /// 404 for an unknown resource named by `field`.
    pub fn not_found(
        field: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ErrorCode::NotFound, "NOT_FOUND", message).field(field)
    }

    /// 404 for an unknown path.
    pub fn no_such_path(path: &str) -> Self {
        Self::new(ErrorCode::NotFound, "NOT_FOUND", format!("cannot serve {path}"))
    }

    /// 405.
    pub fn method_not_allowed() -> Self {
        Self::new(ErrorCode::BadRequest, "METHOD_NOT_ALLOWED", "method not allowed on this path")
    }

    /// 401.
    pub fn unauthenticated() -> Self {
        Self::new(ErrorCode::Unauthenticated, "UNAUTHORIZED", "missing or invalid api key")
            .field("Authorization")
    }

    /// 501 for a part of a request this build does not serve yet, naming the
    /// field.
    pub fn not_implemented_field(
        field: impl Into<Cow<'static, str>>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self::new(ErrorCode::NotImplemented, "NOT_IMPLEMENTED", message).field(field)
    }

    /// 413.
    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            ErrorCode::BadRequest,
            "PAYLOAD_TOO_LARGE",
            format!("request body exceeds {limit} bytes"),
        )
        .field("body")
    }

    /// 503 after the request timeout.
    pub fn timeout() -> Self {
        Self::new(ErrorCode::Timeout, "TIMEOUT", "the request did not complete in time")
    }

    /// 500 without details (they go to the log).
    pub fn internal() -> Self {
        Self::new(ErrorCode::Internal, "INTERNAL", "internal error")
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match (self.kind, self.code) {
            (_, "METHOD_NOT_ALLOWED") => StatusCode::METHOD_NOT_ALLOWED,
            (_, "PAYLOAD_TOO_LARGE") => StatusCode::PAYLOAD_TOO_LARGE,
            (ErrorCode::BadRequest, _) => StatusCode::BAD_REQUEST,
            (ErrorCode::Unauthenticated, _) => StatusCode::UNAUTHORIZED,
            (ErrorCode::Forbidden, _) => StatusCode::FORBIDDEN,
            (ErrorCode::NotFound, _) => StatusCode::NOT_FOUND,
            (ErrorCode::Unprocessable, _) => StatusCode::UNPROCESSABLE_ENTITY,
            (ErrorCode::TooManyRequests, _) => StatusCode::TOO_MANY_REQUESTS,
            (ErrorCode::Timeout, _) | (ErrorCode::Unavailable, _) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            (ErrorCode::NotImplemented, _) => StatusCode::NOT_IMPLEMENTED,
            (ErrorCode::Internal, _) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The body.
    pub fn body(&self) -> ErrorBody {
        let status = self.status();
        ErrorBody {
            status_code: status.as_u16(),
            error: status.canonical_reason().unwrap_or("Error"),
            message: self.message.to_string(),
            code: self.code,
            field: self.field.as_ref().map(ToString::to_string),
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> Self {
        match &e {
            EngineError::Unauthenticated => Self::unauthenticated(),
            EngineError::Revoked => {
                Self::new(ErrorCode::Unauthenticated, "UNAUTHORIZED", "api key revoked")
                    .field("Authorization")
            }
            EngineError::RateLimited { retry_after } => Self {
                retry_after: Some(*retry_after),
                ..Self::new(ErrorCode::TooManyRequests, "RATE_LIMITED", "rate limit exceeded")
            },
            EngineError::Route(k) => {
                use switchyard_kernel::KernelError as K;
                match k {
                    K::NoRoute { token_in, token_out } => Self::new(
                        ErrorCode::Unprocessable,
                        "NO_ROUTE",
                        format!(
                            "no route from {token_in:#x} to {token_out:#x} with enough liquidity"
                        ),
                    )
                    .field("tokenOut"),
                    K::SameToken => Self::invalid("tokenOut", "tokenOut must differ from tokenIn"),
                    K::OutputShape => {
                        Self::invalid("tokenOut", "tokenOut must be one token, or one per tokenIn")
                    }
                    K::EmptyRequest => Self::missing("tokenIn"),
                    K::UnknownChain(c) => {
                        Self::not_found("chainId", format!("no market state for chain {c}"))
                    }
                    K::UnknownToken { token, .. } => {
                        Self::not_found("tokenIn", format!("token {token:#x} is not known"))
                    }
                    // Feed-side; no request produces it.
                    K::BadDelta { .. } => Self::internal(),
                }
            }
            EngineError::ZeroAfterFee { index } => Self::invalid(
                format!("amountIn[{index}]"),
                format!("amountIn[{index}] is zero after the fee"),
            ),
            EngineError::MinAmountOut { index, min, quoted } => Self::new(
                ErrorCode::Unprocessable,
                "MIN_AMOUNT_OUT",
                format!(
                    "minAmountOut[{index}] is {min}, but the best route delivers {quoted}: the transaction could only revert"
                ),
            )
            .field(format!("minAmountOut[{index}]")),
            EngineError::StrategyUnavailable { strategy, chain } => Self::invalid(
                "routingStrategy",
                format!("routing strategy {strategy} is not deployed on chain {chain}"),
            ),
            EngineError::Unfundable { .. } => {
                Self::new(ErrorCode::Unprocessable, "AMOUNT_TOO_LARGE", e.to_string())
                    .field("amountIn")
            }
            EngineError::SpenderNative => {
                Self::invalid("spender", "a native-coin input cannot be taken from a spender")
            }
            EngineError::BridgeUnavailable { .. } => {
                Self::new(ErrorCode::Unprocessable, "BRIDGE_UNAVAILABLE", e.to_string())
                    .field("destinationChainId")
            }
            EngineError::Encode(
                inner @ switchyard_engine::encode::EncodeError::DeploymentUnavailable { .. },
            ) => Self::new(ErrorCode::Unprocessable, "DEPLOYMENT_UNAVAILABLE", inner.to_string())
                .field("chainId"),
            EngineError::PositionUnavailable { .. } => {
                Self::new(ErrorCode::Unprocessable, "POSITION_UNAVAILABLE", e.to_string())
                    .field("positionOut")
            }
            EngineError::Ipor(i) => {
                use switchyard_engine::ipor::IporError as I;
                match i {
                    I::NoVault { .. } => Self::not_found("tokenBToBuy", i.to_string()),
                    I::EmptySide => Self::invalid("percentageForTokenB", i.to_string()),
                }
            }
            EngineError::PositionNeedsDelegate => Self::invalid(
                "routingStrategy",
                "non-tokenized positions are entered from the caller's own account: use delegate or delegate-legacy",
            ),
            EngineError::Approve(a) => {
                use switchyard_engine::wallet::ApproveError as A;
                match a {
                    A::UnknownToken { .. } => Self::not_found("tokenAddress", a.to_string()),
                    A::Native => Self::invalid("tokenAddress", a.to_string()),
                    A::NoSpender(_) => Self::invalid("routingStrategy", a.to_string()),
                }
            }
            EngineError::Bundle(b) => Self::new(
                b.code,
                match b.code {
                    ErrorCode::Unprocessable => "BUNDLE_UNPROCESSABLE",
                    ErrorCode::Internal => "INTERNAL",
                    _ => "INVALID_PARAMETER",
                },
                b.message.clone(),
            )
            .field(b.at.clone()),
            EngineError::SimulatorUnavailable(why) => {
                tracing::error!(reason = %why, "transaction simulation unavailable");
                Self {
                    retry_after: Some(Duration::from_secs(30)),
                    ..Self::new(
                        ErrorCode::Unavailable,
                        "SIMULATOR_UNAVAILABLE",
                        "transactions cannot be proven on this instance (its EVM world is missing: run scripts/setup.sh)",
                    )
                }
            }
            EngineError::RateStore(why) => {
                tracing::debug!(reason = %why, "request refused: rate-limit store unreachable");
                Self {
                    retry_after: Some(Duration::from_secs(1)),
                    ..Self::new(
                        ErrorCode::Unavailable,
                        "RATE_LIMITER_UNAVAILABLE",
                        "rate limits cannot be checked right now (the shared store is unreachable); retry",
                    )
                }
            }
            EngineError::StaleMarket { chain } => Self {
                retry_after: Some(Duration::from_secs(1)),
                ..Self::new(
                    ErrorCode::Unavailable,
                    "STALE_MARKET",
                    format!(
                        "the market data of chain {chain} is stale (its node does not answer): no route through it until it recovers"
                    ),
                )
                .field("chainId")
            },
            EngineError::Unavailable(what) => Self {
                retry_after: Some(Duration::from_secs(1)),
                ..Self::new(
                    ErrorCode::Unavailable,
                    "UNAVAILABLE",
                    format!("{what} is restarting, retry"),
                )
            },
            _ => {
                tracing::error!(error = ?e, "engine error");
                Self::internal()
            }
        }
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
        res
    }
}

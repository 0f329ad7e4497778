//! Enso's deployed helper contracts, as a program calls them.
//!
//! The executors are bare weiroll VMs: arithmetic, comparisons and native
//! balances between protocol calls are calls to Enso's own helper
//! contracts (`MathHelpers`, `EnsoShortcutsHelpers`), at the addresses the
//! catalog records for the chain (`catalog/data/deployments.json`). A chain
//! without one gets [`EncodeError::DeploymentUnavailable`], never a call to
//! an address nothing is deployed at. ERC-20 balances are the token's own
//! `balanceOf`.

use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, sol};
use switchyard_catalog::{Catalog, ChainId, DeploymentRole, NATIVE_TOKEN};

use super::{
    EncodeError,
    protocols::IERC20,
    weiroll::{CallKind, In, Out, ProgramBuilder},
};

sol! {
    /// Enso's `MathHelpers` (checked 0.8 arithmetic).
    interface IMathHelpers {
        function add(uint256 a, uint256 b) external pure returns (uint256);
        function sub(uint256 a, uint256 b) external pure returns (uint256);
        function mul(uint256 a, uint256 b) external pure returns (uint256);
        function div(uint256 a, uint256 b) external pure returns (uint256);
        function min(uint256 a, uint256 b) external pure returns (uint256);
        function max(uint256 a, uint256 b) external pure returns (uint256);
    }

    /// Enso's `EnsoShortcutsHelpers`: the functions of version 2, which
    /// version 3 keeps (it adds only `check(bool)`, which programs do not
    /// call).
    interface IEnsoShortcutsHelpers {
        function getBalance(address balanceAddress) external view returns (uint256 balance);
        function toggle(bool condition, uint256 a, uint256 b) external pure returns (uint256);
        function not(bool condition) external pure returns (bool);
        function isEqual(uint256 a, uint256 b) external pure returns (bool);
        function isLessThan(uint256 a, uint256 b) external pure returns (bool);
        function isEqualOrLessThan(uint256 a, uint256 b) external pure returns (bool);
        function isGreaterThan(uint256 a, uint256 b) external pure returns (bool);
        function isEqualOrGreaterThan(uint256 a, uint256 b) external pure returns (bool);
    }
}

/// The helper contracts of one chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Helpers {
    /// The chain.
    pub chain: ChainId,
    /// `MathHelpers`.
    pub math: Option<Address>,
    /// `EnsoShortcutsHelpers`.
    pub shortcuts: Option<Address>,
}

impl Default for Helpers {
    /// No helpers (chain 0): a program that needs one cannot be built.
    fn default() -> Self {
        Self { chain: ChainId(0), math: None, shortcuts: None }
    }
}

impl Helpers {
    /// The catalog's helpers on `chain`.
    pub fn of(catalog: &Catalog, chain: ChainId) -> Self {
        let at = |role| catalog.deployment(chain, role, None).map(|d| d.address);
        Self {
            chain,
            math: at(DeploymentRole::MathHelpers),
            shortcuts: at(DeploymentRole::ShortcutsHelpers),
        }
    }

    fn get(self, role: DeploymentRole) -> Result<Address, EncodeError> {
        let found = match role {
            DeploymentRole::MathHelpers => self.math,
            DeploymentRole::ShortcutsHelpers => self.shortcuts,
            _ => None,
        };
        found.ok_or(EncodeError::DeploymentUnavailable { chain: self.chain, role })
    }
}

/// A two-operand helper function (and the bundle action of its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b` (reverts on overflow).
    Add,
    /// `a - b` (reverts below zero).
    Sub,
    /// `a * b` (reverts on overflow).
    Mul,
    /// `a / b`, rounded down.
    Div,
    /// The smaller.
    Min,
    /// The larger.
    Max,
    /// `a == b`.
    IsEqual,
    /// `a < b`.
    IsLessThan,
    /// `a <= b`.
    IsEqualOrLessThan,
    /// `a > b`.
    IsGreaterThan,
    /// `a >= b`.
    IsEqualOrGreaterThan,
}

impl BinaryOp {
    /// The bundle action naming it (its function name, lower-case).
    pub fn parse(action: &str) -> Option<Self> {
        Some(match action {
            "add" => Self::Add,
            "sub" => Self::Sub,
            "mul" => Self::Mul,
            "div" => Self::Div,
            "min" => Self::Min,
            "max" => Self::Max,
            "isequal" => Self::IsEqual,
            "islessthan" => Self::IsLessThan,
            "isequalorlessthan" => Self::IsEqualOrLessThan,
            "isgreaterthan" => Self::IsGreaterThan,
            "isequalorgreaterthan" => Self::IsEqualOrGreaterThan,
            _ => return None,
        })
    }
}

/// One helper function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// A two-operand function.
    Binary(BinaryOp),
    /// `!c`.
    Not,
    /// `c ? a : b`.
    Toggle,
}

impl From<BinaryOp> for Op {
    fn from(op: BinaryOp) -> Self {
        Self::Binary(op)
    }
}

impl Op {
    const fn target(self) -> (DeploymentRole, [u8; 4]) {
        use BinaryOp as B;
        use DeploymentRole::{MathHelpers as M, ShortcutsHelpers as S};
        use IEnsoShortcutsHelpers as H;
        match self {
            Self::Binary(B::Add) => (M, IMathHelpers::addCall::SELECTOR),
            Self::Binary(B::Sub) => (M, IMathHelpers::subCall::SELECTOR),
            Self::Binary(B::Mul) => (M, IMathHelpers::mulCall::SELECTOR),
            Self::Binary(B::Div) => (M, IMathHelpers::divCall::SELECTOR),
            Self::Binary(B::Min) => (M, IMathHelpers::minCall::SELECTOR),
            Self::Binary(B::Max) => (M, IMathHelpers::maxCall::SELECTOR),
            Self::Binary(B::IsEqual) => (S, H::isEqualCall::SELECTOR),
            Self::Binary(B::IsLessThan) => (S, H::isLessThanCall::SELECTOR),
            Self::Binary(B::IsEqualOrLessThan) => (S, H::isEqualOrLessThanCall::SELECTOR),
            Self::Binary(B::IsGreaterThan) => (S, H::isGreaterThanCall::SELECTOR),
            Self::Binary(B::IsEqualOrGreaterThan) => (S, H::isEqualOrGreaterThanCall::SELECTOR),
            Self::Not => (S, H::notCall::SELECTOR),
            Self::Toggle => (S, H::toggleCall::SELECTOR),
        }
    }
}

/// A helper call (STATICCALL) returning one word.
pub fn helper(b: &mut ProgramBuilder, op: impl Into<Op>, args: &[In]) -> Result<In, EncodeError> {
    let (role, selector) = op.into().target();
    let at = b.helpers().get(role)?;
    let out = b.call(CallKind::StaticCall, at, selector, args, Out::Word)?;
    out.map(In::Fixed).ok_or(EncodeError::Unsupported("helper without output"))
}

/// Reverts the program unless `cond` holds.
///
/// `EnsoShortcutsHelpers.check(bool)` exists only from version 3 on, so the
/// guard is `MathHelpers.sub(cond, 1)`, which every deployed generation has:
/// a true word is 1 and passes, a false one underflows and reverts.
pub fn check(b: &mut ProgramBuilder, cond: In) -> Result<(), EncodeError> {
    let one = b.uint(U256::from(1u8))?;
    require_at_least(b, cond, one)?;
    Ok(())
}

/// Reverts unless `amount >= minimum`; returns `amount`.
///
/// `MathHelpers.sub(amount, minimum)` is checked arithmetic: it reverts
/// (`Panic(0x11)`) exactly when `amount < minimum`, on every deployed
/// generation of the helper.
pub fn require_at_least(
    b: &mut ProgramBuilder,
    amount: In,
    minimum: In,
) -> Result<In, EncodeError> {
    let at = b.helpers().get(DeploymentRole::MathHelpers)?;
    b.call(
        CallKind::StaticCall,
        at,
        IMathHelpers::subCall::SELECTOR,
        &[amount.clone(), minimum],
        Out::Ignore,
    )?;
    Ok(amount)
}

/// Reverts unless `code` is zero (a Compound market's error code):
/// `MathHelpers.sub(0, code)`.
pub fn require_zero(b: &mut ProgramBuilder, code: In) -> Result<(), EncodeError> {
    let zero = b.uint(U256::ZERO)?;
    require_at_least(b, zero, code)?;
    Ok(())
}

/// `floor(amount * bps / 10_000)`.
pub fn bps_of(b: &mut ProgramBuilder, amount: In, bps: In) -> Result<In, EncodeError> {
    let scaled = helper(b, BinaryOp::Mul, &[amount, bps])?;
    let denominator = b.uint(U256::from(10_000u32))?;
    helper(b, BinaryOp::Div, &[scaled, denominator])
}

/// `holder`'s balance of `token` (the native coin's through
/// `EnsoShortcutsHelpers.getBalance`).
pub fn balance_of(b: &mut ProgramBuilder, token: Address, holder: In) -> Result<In, EncodeError> {
    let out = if token == NATIVE_TOKEN {
        let at = b.helpers().get(DeploymentRole::ShortcutsHelpers)?;
        b.call(
            CallKind::StaticCall,
            at,
            IEnsoShortcutsHelpers::getBalanceCall::SELECTOR,
            &[holder],
            Out::Word,
        )?
    } else {
        b.call(CallKind::StaticCall, token, IERC20::balanceOfCall::SELECTOR, &[holder], Out::Word)?
    };
    out.map(In::Fixed).ok_or(EncodeError::Unsupported("balance without output"))
}

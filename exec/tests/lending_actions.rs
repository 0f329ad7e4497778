//! The reference contracts behind the bundle actions `borrow`, `repay` and
//! `harvest` and the two-token vault deposit, run in the engine's EVM:
//!
//! - Compound V2 (`ReferenceComptroller` + `ReferenceCToken`): enter markets,
//!   liquidity, borrow within and one wei past the limit
//!   (`BorrowComptrollerRejection(4)`), cash and price refusals, collateral
//!   locked while borrowing, repay part and all.
//! - Curve gauge (`ReferenceCurveGauge`): deposit (for oneself and another),
//!   claims that pay what the world wrote as pending and 0 otherwise,
//!   withdraw.
//! - Two-token vault (`ReferenceDualVault`): first and later deposits and
//!   redeems, every share and amount checked against the arithmetic written
//!   out again here in Rust.
//!
//! Every expected number is computed here from the formulas the contracts'
//! NatSpec states, independently of the contracts.

use alloy_primitives::{Address, Bytes, U256, uint};
use alloy_sol_types::{SolCall, SolConstructor, SolEvent, SolInterface, sol};
use switchyard_exec::evm::{Artifact, CallOutcome, Evm, EvmError, abi::TestERC20, fixtures};

const DEPLOYER: Address = Address::repeat_byte(0xde);
const ALICE: Address = Address::repeat_byte(0xa1);
const BOB: Address = Address::repeat_byte(0xb0);
const CAROL: Address = Address::repeat_byte(0xca);

const WAD: U256 = uint!(1000000000000000000_U256);

type TestResult = Result<(), EvmError>;

sol! {
    #[sol(all_derives)]
    contract PriceOracle {
        function isPriceOracle() external view returns (bool);
        function getUnderlyingPrice(address cToken) external view returns (uint256);
    }

    #[sol(all_derives)]
    contract Comptroller {
        error SenderMustBeCToken();
        error DivisionOverflow();

        event MarketEntered(address cToken, address account);

        function _supportMarket(address cToken) external returns (uint256);
        function _setCollateralFactor(address cToken, uint256 newCollateralFactorMantissa) external returns (uint256);
        function _setPriceOracle(address newOracle) external returns (uint256);
        function admin() external view returns (address);
        function markets(address cToken) external view returns (bool, uint256, bool);
        function oracle() external view returns (address);
        function getAssetsIn(address account) external view returns (address[]);
        function checkMembership(address account, address cToken) external view returns (bool);
        function enterMarkets(address[] cTokens) external returns (uint256[]);
        function getAccountLiquidity(address account) external view returns (uint256, uint256, uint256);
        function borrowAllowed(address cToken, address borrower, uint256 borrowAmount) external returns (uint256);
    }

    #[sol(all_derives)]
    contract CToken {
        error ComptrollerNotSet();
        error BorrowComptrollerRejection(uint256 errorCode);
        error BorrowCashNotAvailable();
        error RedeemComptrollerRejection(uint256 errorCode);
        error TransferComptrollerRejection(uint256 errorCode);
        error RepayBorrowTooMuch(uint256 repayAmount, uint256 borrowBalance);
        error RedeemTransferOutNotPossible();
        error TransferNotAllowed();
        error TransferFailed();
        error DivisionOverflow();

        event Borrow(address borrower, uint256 borrowAmount, uint256 accountBorrows, uint256 totalBorrows);
        event RepayBorrow(
            address payer,
            address borrower,
            uint256 repayAmount,
            uint256 accountBorrows,
            uint256 totalBorrows
        );

        constructor(address underlying, uint256 exchangeRate, string name, string symbol, uint8 decimals);
        function _setComptroller(address newComptroller) external returns (uint256);
        function comptroller() external view returns (address);
        function balanceOf(address owner) external view returns (uint256);
        function mint(uint256 mintAmount) external returns (uint256);
        function redeem(uint256 redeemTokens) external returns (uint256);
        function transfer(address dst, uint256 amount) external returns (bool);
        function borrow(uint256 borrowAmount) external returns (uint256);
        function repayBorrow(uint256 repayAmount) external returns (uint256);
        function repayBorrowBehalf(address borrower, uint256 repayAmount) external returns (uint256);
        function borrowBalanceCurrent(address account) external view returns (uint256);
        function borrowBalanceStored(address account) external view returns (uint256);
        function totalBorrows() external view returns (uint256);
        function borrowIndex() external view returns (uint256);
        function getCash() external view returns (uint256);
        function getAccountSnapshot(address account) external view returns (uint256, uint256, uint256, uint256);
    }

    #[sol(all_derives)]
    contract Gauge {
        error InsufficientBalance(uint256 requested, uint256 balance);
        error ReceiverOnlyForSelf();
        error TransferFailed();
        error RewardIsLpToken();

        event Deposit(address indexed provider, uint256 value);
        event Withdraw(address indexed provider, uint256 value);

        constructor(address lpToken, address rewardToken);
        function name() external view returns (string);
        function symbol() external view returns (string);
        function lp_token() external view returns (address);
        function reward_tokens(uint256 index) external view returns (address);
        function reward_count() external view returns (uint256);
        function claimable_reward(address user, address rewardToken) external view returns (uint256);
        function claimed_reward(address user, address rewardToken) external view returns (uint256);
        function balanceOf(address who) external view returns (uint256);
        function totalSupply() external view returns (uint256);
        function deposit(uint256 _value) external;
        function deposit(uint256 _value, address _addr) external;
        function withdraw(uint256 _value) external;
        function withdraw(uint256 _value, bool _claim_rewards) external;
        function claim_rewards() external;
        function claim_rewards(address _addr) external;
        function claim_rewards(address _addr, address _receiver) external;
    }

    #[sol(all_derives)]
    contract DualVault {
        error ZeroShares();
        error NoAssets();
        error InsufficientBalance(uint256 requested, uint256 balance);
        error InsufficientAllowance(uint256 requested, uint256 allowed);
        error TransferFailed();
        error DivisionOverflow();

        event Deposit(address indexed sender, address indexed owner, uint256 amountA, uint256 amountB, uint256 shares);
        event Withdraw(
            address indexed sender,
            address indexed receiver,
            address indexed owner,
            uint256 amountA,
            uint256 amountB,
            uint256 shares
        );

        constructor(address tokenA, address tokenB, uint256 priceBInA, string name, string symbol);
        function tokenA() external view returns (address);
        function tokenB() external view returns (address);
        function decimals() external view returns (uint8);
        function priceBInA() external view returns (uint256);
        function totalAssets() external view returns (uint256 a, uint256 b);
        function totalSupply() external view returns (uint256);
        function balanceOf(address who) external view returns (uint256);
        function approve(address spender, uint256 amount) external returns (bool);
        function previewDeposit(uint256 amountA, uint256 amountB) external view returns (uint256);
        function previewRedeem(uint256 shares) external view returns (uint256 amountA, uint256 amountB);
        function deposit(uint256 amountA, uint256 amountB, address receiver) external returns (uint256 shares);
        function redeem(uint256 shares, address receiver, address owner)
            external returns (uint256 amountA, uint256 amountB);
    }
}

use CToken::CTokenErrors as CErr;
use DualVault::DualVaultErrors as VaultErr;
use Gauge::GaugeErrors as GaugeErr;

// ---------------------------------------------------------------- helpers

const COMPTROLLER: &str = include_str!("../../contracts/artifacts/ReferenceComptroller.json");
const ORACLE: &str = include_str!("../../contracts/artifacts/ReferencePriceOracle.json");
const CTOKEN: &str = include_str!("../../contracts/artifacts/ReferenceCToken.json");
const GAUGE: &str = include_str!("../../contracts/artifacts/ReferenceCurveGauge.json");
const DUAL_VAULT: &str = include_str!("../../contracts/artifacts/ReferenceDualVault.json");

fn initcode(json: &str) -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_str(json).expect("artifact parses");
    let hex = v["bytecode"].as_str().expect("artifact has a bytecode");
    hex.parse::<Bytes>().expect("bytecode is hex").to_vec()
}

fn deploy(evm: &mut Evm, json: &str, args: &[u8]) -> Result<Address, EvmError> {
    let mut code = initcode(json);
    code.extend_from_slice(args);
    evm.deploy(DEPLOYER, code.into())
}

fn token(evm: &mut Evm, symbol: &str, decimals: u8) -> Result<Address, EvmError> {
    let args = TestERC20::constructorCall { name: symbol.into(), symbol: symbol.into(), decimals }
        .abi_encode();
    evm.deploy_artifact(DEPLOYER, Artifact::TestErc20, &args)
}

fn mint(evm: &mut Evm, token: Address, to: Address, amount: U256) -> TestResult {
    evm.call_sol(DEPLOYER, token, &TestERC20::mintCall { to, amount }).map(drop)
}

fn approve(evm: &mut Evm, owner: Address, token: Address, spender: Address) -> TestResult {
    evm.call_sol(owner, token, &TestERC20::approveCall { spender, amount: U256::MAX }).map(drop)
}

fn balance(evm: &mut Evm, token: Address, who: Address) -> Result<U256, EvmError> {
    evm.view(token, &TestERC20::balanceOfCall { who })
}

/// Sends a `sol!` call and keeps the whole outcome (logs included).
fn send<C: SolCall>(
    evm: &mut Evm,
    from: Address,
    to: Address,
    call: &C,
) -> Result<CallOutcome, EvmError> {
    evm.call(from, to, call.abi_encode().into(), U256::ZERO)
}

/// The first `E` event `emitter` logged.
fn event<E: SolEvent>(out: &CallOutcome, emitter: Address) -> Option<E> {
    out.logs
        .iter()
        .filter(|l| l.address == emitter)
        .find_map(|l| E::decode_log(l).ok())
        .map(|l| l.data)
}

/// How many logs `emitter` wrote.
fn logs_from(out: &CallOutcome, emitter: Address) -> usize {
    out.logs.iter().filter(|l| l.address == emitter).count()
}

/// The revert decoded as one of a contract's custom errors.
fn revert_as<E: SolInterface, T>(r: Result<T, EvmError>) -> E {
    match r {
        Err(e) => match e.revert_as::<E>() {
            Some(decoded) => decoded,
            None => panic!("reverted with something else: {e}"),
        },
        Ok(_) => panic!("expected a revert, the call succeeded"),
    }
}

fn u(x: u128) -> U256 {
    U256::from(x)
}

fn pow10(n: u8) -> U256 {
    U256::from(10u8).pow(U256::from(n))
}

// ---------------------------------------------------------------- Compound V2

struct Market {
    c_token: Address,
    underlying: Address,
    rate: U256,
    cf: U256,
    price: U256,
}

struct CompoundWorld {
    evm: Evm,
    comptroller: Address,
    oracle: Address,
    /// cWETH: 18-decimal underlying, collateral factor 82.5%, $2000.123456789.
    ceth: Market,
    /// cUSDC: 6-decimal underlying, collateral factor 85.5%, $1.0001.
    cusdc: Market,
}

fn c_market(
    evm: &mut Evm,
    symbol: &str,
    decimals: u8,
    rate: U256,
    cf: U256,
    price: U256,
) -> Result<Market, EvmError> {
    let underlying = token(evm, symbol, decimals)?;
    let args = CToken::constructorCall {
        underlying,
        exchangeRate: rate,
        name: format!("Compound {symbol}"),
        symbol: format!("c{symbol}"),
        decimals: 8,
    }
    .abi_encode();
    let c_token = deploy(evm, CTOKEN, &args)?;
    Ok(Market { c_token, underlying, rate, cf, price })
}

/// Two markets listed and priced in a comptroller, each cToken pointed at it.
/// No cash yet.
fn compound_world() -> Result<CompoundWorld, EvmError> {
    let mut evm = Evm::new();
    let comptroller = deploy(&mut evm, COMPTROLLER, &[])?;
    let oracle = deploy(&mut evm, ORACLE, &[])?;
    admin(&mut evm, comptroller, &Comptroller::_setPriceOracleCall { newOracle: oracle })?;
    let ceth = c_market(
        &mut evm,
        "WETH",
        18,
        uint!(200412345678901234567890123_U256),
        u(825_000_000_000_000_000),
        uint!(2000123456789000000000_U256),
    )?;
    let cusdc = c_market(
        &mut evm,
        "USDC",
        6,
        u(228_123_456_789_012),
        u(855_000_000_000_000_000),
        uint!(1000100000000000000000000000000_U256),
    )?;
    for m in [&ceth, &cusdc] {
        admin(&mut evm, comptroller, &Comptroller::_supportMarketCall { cToken: m.c_token })?;
        fixtures::compound_price(&mut evm, oracle, m.c_token, m.price)?;
        let cf = Comptroller::_setCollateralFactorCall {
            cToken: m.c_token,
            newCollateralFactorMantissa: m.cf,
        };
        admin(&mut evm, comptroller, &cf)?;
        admin(&mut evm, m.c_token, &CToken::_setComptrollerCall { newComptroller: comptroller })?;
        for who in [ALICE, BOB] {
            approve(&mut evm, who, m.underlying, m.c_token)?;
        }
    }
    Ok(CompoundWorld { evm, comptroller, oracle, ceth, cusdc })
}

/// A Compound admin call from the deployer, which must answer 0
/// (`NO_ERROR`).
fn admin<C: SolCall<Return = U256>>(evm: &mut Evm, to: Address, call: &C) -> TestResult {
    let code = evm.call_sol(DEPLOYER, to, call)?;
    assert_eq!(code, U256::ZERO, "Compound error {code}");
    Ok(())
}

impl CompoundWorld {
    fn liquidity(&mut self, who: Address) -> Result<(U256, U256, U256), EvmError> {
        let r = self
            .evm
            .view(self.comptroller, &Comptroller::getAccountLiquidityCall { account: who })?;
        Ok((r._0, r._1, r._2))
    }

    fn borrowed(&mut self, c_token: Address, who: Address) -> Result<U256, EvmError> {
        self.evm.view(c_token, &CToken::borrowBalanceStoredCall { account: who })
    }
}

/// Compound's per-cToken collateral value, `floor(floor(cf * rate / 1e18) *
/// price / 1e18)`.
fn per_token(m: &Market) -> U256 {
    m.cf * m.rate / WAD * m.price / WAD
}

#[test]
fn compound_enters_borrows_within_the_limit_and_repays() -> TestResult {
    let mut w = compound_world()?;
    let (ceth, cusdc) = (w.ceth.c_token, w.cusdc.c_token);

    // Alice supplies 1.5 WETH.
    let supplied = u(1_500_000_000_000_000_017);
    mint(&mut w.evm, w.ceth.underlying, ALICE, supplied)?;
    w.evm.call_sol(ALICE, ceth, &CToken::mintCall { mintAmount: supplied })?;
    let tokens = supplied * WAD / w.ceth.rate;
    assert_eq!(w.evm.view(ceth, &CToken::balanceOfCall { owner: ALICE })?, tokens);

    // Outside any market, it is not collateral.
    assert_eq!(w.liquidity(ALICE)?, (U256::ZERO, U256::ZERO, U256::ZERO));
    let stranger = Address::repeat_byte(0x99);
    let codes = w.evm.call_sol(
        ALICE,
        w.comptroller,
        &Comptroller::enterMarketsCall { cTokens: vec![ceth, stranger] },
    )?;
    assert_eq!(codes, vec![U256::ZERO, u(9)]);
    let collateral = per_token(&w.ceth) * tokens / WAD;
    assert_eq!(w.liquidity(ALICE)?, (U256::ZERO, collateral, U256::ZERO));

    // No cash yet.
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            cusdc,
            &CToken::borrowCall { borrowAmount: u(1) }
        )),
        CErr::BorrowCashNotAvailable(CToken::BorrowCashNotAvailable {})
    );
    mint(&mut w.evm, w.cusdc.underlying, cusdc, u(10_000_000) * pow10(6))?;

    // The most USDC: floor(p * x / 1e18) <= collateral.
    let p = w.cusdc.price;
    let max = ((collateral + U256::ONE) * WAD - U256::ONE) / p;
    assert!(p * max / WAD <= collateral && p * (max + U256::ONE) / WAD > collateral);

    let first = max / u(4);
    let out = send(&mut w.evm, ALICE, cusdc, &CToken::borrowCall { borrowAmount: first })?;
    assert_eq!(CToken::borrowCall::abi_decode_returns(&out.output)?, U256::ZERO);
    assert_eq!(
        event::<CToken::Borrow>(&out, cusdc),
        Some(CToken::Borrow {
            borrower: ALICE,
            borrowAmount: first,
            accountBorrows: first,
            totalBorrows: first
        })
    );
    assert_eq!(
        event::<Comptroller::MarketEntered>(&out, w.comptroller),
        Some(Comptroller::MarketEntered { cToken: cusdc, account: ALICE }),
        "borrowing enters the market"
    );
    assert_eq!(
        w.evm.view(w.comptroller, &Comptroller::getAssetsInCall { account: ALICE })?,
        vec![ceth, cusdc]
    );
    assert_eq!(balance(&mut w.evm, w.cusdc.underlying, ALICE)?, first);
    assert_eq!(w.borrowed(cusdc, ALICE)?, first);
    assert_eq!(w.evm.view(cusdc, &CToken::borrowBalanceCurrentCall { account: ALICE })?, first);
    assert_eq!(w.evm.view(cusdc, &CToken::borrowIndexCall {})?, WAD);
    assert_eq!(w.liquidity(ALICE)?, (U256::ZERO, collateral - p * first / WAD, U256::ZERO));

    // One wei past the limit: INSUFFICIENT_LIQUIDITY (4).
    let rest = max - first;
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            cusdc,
            &CToken::borrowCall { borrowAmount: rest + U256::ONE }
        )),
        CErr::BorrowComptrollerRejection(CToken::BorrowComptrollerRejection { errorCode: u(4) })
    );
    w.evm.call_sol(ALICE, cusdc, &CToken::borrowCall { borrowAmount: rest })?;
    assert_eq!(w.borrowed(cusdc, ALICE)?, max);
    assert_eq!(w.liquidity(ALICE)?, (U256::ZERO, collateral - p * max / WAD, U256::ZERO));
    assert_eq!(w.evm.view(cusdc, &CToken::totalBorrowsCall {})?, max);

    // The collateral is locked while it backs the borrow.
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            ceth,
            &CToken::redeemCall { redeemTokens: tokens }
        )),
        CErr::RedeemComptrollerRejection(CToken::RedeemComptrollerRejection { errorCode: u(4) })
    );
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            ceth,
            &CToken::transferCall { dst: BOB, amount: tokens }
        )),
        CErr::TransferComptrollerRejection(CToken::TransferComptrollerRejection {
            errorCode: u(4)
        })
    );

    // Repay part, then too much, then all with max.
    let part = u(1_000_001);
    let out = send(&mut w.evm, ALICE, cusdc, &CToken::repayBorrowCall { repayAmount: part })?;
    assert_eq!(CToken::repayBorrowCall::abi_decode_returns(&out.output)?, U256::ZERO);
    assert_eq!(
        event::<CToken::RepayBorrow>(&out, cusdc),
        Some(CToken::RepayBorrow {
            payer: ALICE,
            borrower: ALICE,
            repayAmount: part,
            accountBorrows: max - part,
            totalBorrows: max - part
        })
    );
    let owed = max - part;
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            cusdc,
            &CToken::repayBorrowCall { repayAmount: owed + U256::ONE }
        )),
        CErr::RepayBorrowTooMuch(CToken::RepayBorrowTooMuch {
            repayAmount: owed + U256::ONE,
            borrowBalance: owed
        })
    );
    // Bob repays a little for her.
    mint(&mut w.evm, w.cusdc.underlying, BOB, u(7))?;
    w.evm.call_sol(
        BOB,
        cusdc,
        &CToken::repayBorrowBehalfCall { borrower: ALICE, repayAmount: u(7) },
    )?;
    let owed = owed - u(7);
    mint(&mut w.evm, w.cusdc.underlying, ALICE, part + u(7))?;
    let held = balance(&mut w.evm, w.cusdc.underlying, ALICE)?;
    w.evm.call_sol(ALICE, cusdc, &CToken::repayBorrowCall { repayAmount: U256::MAX })?;
    assert_eq!(balance(&mut w.evm, w.cusdc.underlying, ALICE)?, held - owed);
    assert_eq!(w.borrowed(cusdc, ALICE)?, U256::ZERO);
    assert_eq!(w.evm.view(cusdc, &CToken::totalBorrowsCall {})?, U256::ZERO);
    assert_eq!(w.liquidity(ALICE)?, (U256::ZERO, collateral, U256::ZERO));

    // Free again.
    w.evm.call_sol(ALICE, ceth, &CToken::redeemCall { redeemTokens: tokens })?;
    assert_eq!(balance(&mut w.evm, w.ceth.underlying, ALICE)?, tokens * w.ceth.rate / WAD);
    Ok(())
}

#[test]
fn compound_counts_borrows_in_several_markets() -> TestResult {
    let mut w = compound_world()?;
    let (ceth, cusdc) = (w.ceth.c_token, w.cusdc.c_token);
    // Bob supplies both and borrows both.
    let (eth_in, usdc_in) = (u(3) * WAD, u(5_000) * pow10(6));
    mint(&mut w.evm, w.ceth.underlying, BOB, eth_in)?;
    mint(&mut w.evm, w.cusdc.underlying, BOB, usdc_in)?;
    w.evm.call_sol(BOB, ceth, &CToken::mintCall { mintAmount: eth_in })?;
    w.evm.call_sol(BOB, cusdc, &CToken::mintCall { mintAmount: usdc_in })?;
    w.evm.call_sol(
        BOB,
        w.comptroller,
        &Comptroller::enterMarketsCall { cTokens: vec![cusdc, ceth] },
    )?;
    let eth_borrow = u(700_000_000_000_000_001);
    let usdc_borrow = u(4_500_000_001);
    w.evm.call_sol(BOB, ceth, &CToken::borrowCall { borrowAmount: eth_borrow })?;
    w.evm.call_sol(BOB, cusdc, &CToken::borrowCall { borrowAmount: usdc_borrow })?;
    let t_eth = eth_in * WAD / w.ceth.rate;
    let t_usdc = usdc_in * WAD / w.cusdc.rate;
    let sums = |w: &CompoundWorld| {
        let collateral = per_token(&w.cusdc) * t_usdc / WAD + per_token(&w.ceth) * t_eth / WAD;
        let debt = w.cusdc.price * usdc_borrow / WAD + w.ceth.price * eth_borrow / WAD;
        (collateral, debt)
    };
    let (collateral, debt) = sums(&w);
    assert_eq!(w.liquidity(BOB)?, (U256::ZERO, collateral - debt, U256::ZERO));
    let snap = w.evm.view(ceth, &CToken::getAccountSnapshotCall { account: BOB })?;
    assert_eq!((snap._0, snap._1, snap._2, snap._3), (U256::ZERO, t_eth, eth_borrow, w.ceth.rate));

    // ETH falls to a twentieth: the collateral no longer covers the debt.
    let fallen = w.ceth.price / u(20);
    fixtures::compound_price(&mut w.evm, w.oracle, ceth, fallen)?;
    w.ceth.price = fallen;
    let (collateral, debt) = sums(&w);
    assert!(debt > collateral);
    assert_eq!(w.liquidity(BOB)?, (U256::ZERO, U256::ZERO, debt - collateral));
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            BOB,
            cusdc,
            &CToken::borrowCall { borrowAmount: u(1) }
        )),
        CErr::BorrowComptrollerRejection(CToken::BorrowComptrollerRejection { errorCode: u(4) })
    );
    Ok(())
}

#[test]
fn compound_borrow_guards() -> TestResult {
    let mut w = compound_world()?;
    // A cToken without a comptroller cannot lend.
    let lone = c_market(&mut w.evm, "DAI", 18, WAD, U256::ZERO, U256::ZERO)?;
    assert_eq!(w.evm.view(lone.c_token, &CToken::comptrollerCall {})?, Address::ZERO);
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            lone.c_token,
            &CToken::borrowCall { borrowAmount: u(1) }
        )),
        CErr::ComptrollerNotSet(CToken::ComptrollerNotSet {})
    );
    // Only the admin sets it: anyone else gets UNAUTHORIZED (1), and
    // nothing changes.
    let set = CToken::_setComptrollerCall { newComptroller: w.comptroller };
    assert_eq!(w.evm.call_sol(ALICE, lone.c_token, &set)?, u(1));
    assert_eq!(w.evm.view(lone.c_token, &CToken::comptrollerCall {})?, Address::ZERO);
    // Pointed at the comptroller but not listed: MARKET_NOT_LISTED (9).
    admin(&mut w.evm, lone.c_token, &set)?;
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            lone.c_token,
            &CToken::borrowCall { borrowAmount: u(1) }
        )),
        CErr::BorrowComptrollerRejection(CToken::BorrowComptrollerRejection { errorCode: u(9) })
    );
    // Unlisted, its cTokens cannot be redeemed either (as Compound).
    mint(&mut w.evm, lone.underlying, ALICE, WAD)?;
    approve(&mut w.evm, ALICE, lone.underlying, lone.c_token)?;
    w.evm.call_sol(ALICE, lone.c_token, &CToken::mintCall { mintAmount: WAD })?;
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            lone.c_token,
            &CToken::redeemCall { redeemTokens: WAD }
        )),
        CErr::RedeemComptrollerRejection(CToken::RedeemComptrollerRejection { errorCode: u(9) })
    );
    // Listed without a price: PRICE_ERROR (13), for a collateral factor
    // too.
    admin(&mut w.evm, w.comptroller, &Comptroller::_supportMarketCall { cToken: lone.c_token })?;
    let half = Comptroller::_setCollateralFactorCall {
        cToken: lone.c_token,
        newCollateralFactorMantissa: u(5) * WAD / u(10),
    };
    assert_eq!(w.evm.call_sol(DEPLOYER, w.comptroller, &half)?, u(13));
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            ALICE,
            lone.c_token,
            &CToken::borrowCall { borrowAmount: u(1) }
        )),
        CErr::BorrowComptrollerRejection(CToken::BorrowComptrollerRejection { errorCode: u(13) })
    );
    // Not in the market, redeeming is free; no collateral, borrowing is not.
    w.evm.call_sol(ALICE, lone.c_token, &CToken::redeemCall { redeemTokens: WAD / u(2) })?;
    fixtures::compound_price(&mut w.evm, w.oracle, lone.c_token, WAD)?;
    admin(&mut w.evm, w.comptroller, &half)?;
    assert_eq!(
        revert_as::<CErr, _>(w.evm.call_sol(
            BOB,
            lone.c_token,
            &CToken::borrowCall { borrowAmount: u(1) }
        )),
        CErr::BorrowComptrollerRejection(CToken::BorrowComptrollerRejection { errorCode: u(4) })
    );
    // Only a cToken may enter an account into a market through borrowAllowed.
    let ask = Comptroller::borrowAllowedCall {
        cToken: lone.c_token,
        borrower: CAROL,
        borrowAmount: u(1),
    };
    assert_eq!(
        revert_as::<Comptroller::ComptrollerErrors, _>(w.evm.call_sol(CAROL, w.comptroller, &ask)),
        Comptroller::ComptrollerErrors::SenderMustBeCToken(Comptroller::SenderMustBeCToken {})
    );
    // Configuration guards, Compound's error codes: MARKET_ALREADY_LISTED
    // (10), INVALID_COLLATERAL_FACTOR (6), UNAUTHORIZED (1).
    let relist = Comptroller::_supportMarketCall { cToken: lone.c_token };
    assert_eq!(w.evm.call_sol(DEPLOYER, w.comptroller, &relist)?, u(10));
    let other = c_market(&mut w.evm, "X", 18, WAD, U256::ZERO, U256::ZERO)?;
    let list = Comptroller::_supportMarketCall { cToken: other.c_token };
    assert_eq!(w.evm.call_sol(ALICE, w.comptroller, &list)?, u(1));
    admin(&mut w.evm, w.comptroller, &list)?;
    let too_high = Comptroller::_setCollateralFactorCall {
        cToken: other.c_token,
        newCollateralFactorMantissa: u(900_000_000_000_000_001),
    };
    assert_eq!(w.evm.call_sol(DEPLOYER, w.comptroller, &too_high)?, u(6));
    let by_alice = Comptroller::_setCollateralFactorCall {
        cToken: other.c_token,
        newCollateralFactorMantissa: U256::ZERO,
    };
    assert_eq!(w.evm.call_sol(ALICE, w.comptroller, &by_alice)?, u(1));
    let oracle_by_alice = Comptroller::_setPriceOracleCall { newOracle: ALICE };
    assert_eq!(w.evm.call_sol(ALICE, w.comptroller, &oracle_by_alice)?, u(1));
    assert_eq!(w.evm.view(w.comptroller, &Comptroller::adminCall {})?, DEPLOYER);
    let m = w.evm.view(w.comptroller, &Comptroller::marketsCall { cToken: w.cusdc.c_token })?;
    assert_eq!((m._0, m._1, m._2), (true, w.cusdc.cf, false));
    assert_eq!(w.evm.view(w.comptroller, &Comptroller::oracleCall {})?, w.oracle);
    assert!(w.evm.view(w.oracle, &PriceOracle::isPriceOracleCall {})?);
    assert_eq!(
        w.evm.view(w.oracle, &PriceOracle::getUnderlyingPriceCall { cToken: w.ceth.c_token })?,
        w.ceth.price
    );
    assert!(!w.evm.view(
        w.comptroller,
        &Comptroller::checkMembershipCall { account: ALICE, cToken: w.ceth.c_token }
    )?);
    Ok(())
}

// ---------------------------------------------------------------- Curve gauge

struct GaugeWorld {
    evm: Evm,
    lp: Address,
    reward: Address,
    gauge: Address,
}

fn gauge_world() -> Result<GaugeWorld, EvmError> {
    let mut evm = Evm::new();
    let lp = token(&mut evm, "crvUSD3", 18)?;
    let reward = token(&mut evm, "CRV", 18)?;
    let gauge = deploy(
        &mut evm,
        GAUGE,
        &Gauge::constructorCall { lpToken: lp, rewardToken: reward }.abi_encode(),
    )?;
    for who in [ALICE, BOB] {
        mint(&mut evm, lp, who, u(1_000) * WAD)?;
        approve(&mut evm, who, lp, gauge)?;
    }
    Ok(GaugeWorld { evm, lp, reward, gauge })
}

#[test]
fn gauge_deposits_claims_what_was_set_and_withdraws() -> TestResult {
    let mut w = gauge_world()?;
    let g = w.gauge;
    assert_eq!(w.evm.view(g, &Gauge::lp_tokenCall {})?, w.lp);
    assert_eq!(w.evm.view(g, &Gauge::reward_tokensCall { index: U256::ZERO })?, w.reward);
    assert_eq!(w.evm.view(g, &Gauge::reward_tokensCall { index: U256::ONE })?, Address::ZERO);
    assert_eq!(w.evm.view(g, &Gauge::reward_countCall {})?, U256::ONE);
    assert_eq!(w.evm.view(g, &Gauge::nameCall {})?, "Curve.fi crvUSD3 Gauge Deposit");
    assert_eq!(w.evm.view(g, &Gauge::symbolCall {})?, "crvUSD3-gauge");

    // Deposit for oneself and for another: 1:1.
    let out = send(&mut w.evm, ALICE, g, &Gauge::deposit_0Call { _value: u(600) * WAD })?;
    assert_eq!(
        event::<Gauge::Deposit>(&out, g),
        Some(Gauge::Deposit { provider: ALICE, value: u(600) * WAD })
    );
    w.evm.call_sol(BOB, g, &Gauge::deposit_1Call { _value: u(250), _addr: CAROL })?;
    assert_eq!(w.evm.view(g, &Gauge::balanceOfCall { who: ALICE })?, u(600) * WAD);
    assert_eq!(w.evm.view(g, &Gauge::balanceOfCall { who: CAROL })?, u(250));
    assert_eq!(w.evm.view(g, &Gauge::balanceOfCall { who: BOB })?, U256::ZERO);
    assert_eq!(w.evm.view(g, &Gauge::totalSupplyCall {})?, u(600) * WAD + u(250));
    assert_eq!(balance(&mut w.evm, w.lp, g)?, u(600) * WAD + u(250));
    assert_eq!(balance(&mut w.evm, w.lp, BOB)?, u(1_000) * WAD - u(250));

    // Nothing set: a claim pays 0 and moves no reward token.
    let claimable = |w: &mut GaugeWorld, who: Address| {
        w.evm.view(w.gauge, &Gauge::claimable_rewardCall { user: who, rewardToken: w.reward })
    };
    assert_eq!(claimable(&mut w, ALICE)?, U256::ZERO);
    let out = send(&mut w.evm, ALICE, g, &Gauge::claim_rewards_0Call {})?;
    assert_eq!(logs_from(&out, w.reward), 0);
    assert_eq!(balance(&mut w.evm, w.reward, ALICE)?, U256::ZERO);

    // The world gives Alice 123.45 CRV and Carol 77 wei, funded.
    mint(&mut w.evm, w.reward, g, u(500) * WAD)?;
    let given = u(123_450_000_000_000_000_000);
    fixtures::gauge_claimable(&mut w.evm, g, w.reward, ALICE, given)?;
    fixtures::gauge_claimable(&mut w.evm, g, w.reward, CAROL, u(77))?;
    assert_eq!(claimable(&mut w, ALICE)?, given);
    assert_eq!(
        w.evm.view(g, &Gauge::claimable_rewardCall { user: ALICE, rewardToken: w.lp })?,
        U256::ZERO,
        "only the reward token is claimable"
    );
    w.evm.call_sol(ALICE, g, &Gauge::claim_rewards_0Call {})?;
    assert_eq!(balance(&mut w.evm, w.reward, ALICE)?, given);
    assert_eq!(claimable(&mut w, ALICE)?, U256::ZERO);
    assert_eq!(
        w.evm.view(g, &Gauge::claimed_rewardCall { user: ALICE, rewardToken: w.reward })?,
        given
    );
    assert_eq!(balance(&mut w.evm, w.reward, g)?, u(500) * WAD - given);
    // Again: nothing more.
    w.evm.call_sol(ALICE, g, &Gauge::claim_rewards_0Call {})?;
    assert_eq!(balance(&mut w.evm, w.reward, ALICE)?, given);

    // Anyone may claim for Carol, paid to Carol; a receiver only for oneself.
    assert_eq!(
        revert_as::<GaugeErr, _>(w.evm.call_sol(
            BOB,
            g,
            &Gauge::claim_rewards_2Call { _addr: CAROL, _receiver: BOB }
        )),
        GaugeErr::ReceiverOnlyForSelf(Gauge::ReceiverOnlyForSelf {})
    );
    w.evm.call_sol(BOB, g, &Gauge::claim_rewards_1Call { _addr: CAROL })?;
    assert_eq!(balance(&mut w.evm, w.reward, CAROL)?, u(77));
    assert_eq!(balance(&mut w.evm, w.reward, BOB)?, U256::ZERO);

    // More than the gauge holds: the claim fails and keeps the amount.
    fixtures::gauge_claimable(&mut w.evm, g, w.reward, BOB, u(1_000) * WAD)?;
    assert_eq!(
        revert_as::<GaugeErr, _>(w.evm.call_sol(BOB, g, &Gauge::claim_rewards_0Call {})),
        GaugeErr::TransferFailed(Gauge::TransferFailed {})
    );
    assert_eq!(claimable(&mut w, BOB)?, u(1_000) * WAD);

    // Withdraw: not more than held; with a claim on the way out.
    assert_eq!(
        revert_as::<GaugeErr, _>(w.evm.call_sol(
            ALICE,
            g,
            &Gauge::withdraw_0Call { _value: u(600) * WAD + U256::ONE }
        )),
        GaugeErr::InsufficientBalance(Gauge::InsufficientBalance {
            requested: u(600) * WAD + U256::ONE,
            balance: u(600) * WAD
        })
    );
    let out = send(&mut w.evm, ALICE, g, &Gauge::withdraw_0Call { _value: u(100) * WAD })?;
    assert_eq!(
        event::<Gauge::Withdraw>(&out, g),
        Some(Gauge::Withdraw { provider: ALICE, value: u(100) * WAD })
    );
    fixtures::gauge_claimable(&mut w.evm, g, w.reward, ALICE, u(5))?;
    w.evm.call_sol(
        ALICE,
        g,
        &Gauge::withdraw_1Call { _value: u(500) * WAD, _claim_rewards: true },
    )?;
    assert_eq!(w.evm.view(g, &Gauge::balanceOfCall { who: ALICE })?, U256::ZERO);
    assert_eq!(balance(&mut w.evm, w.lp, ALICE)?, u(1_000) * WAD);
    assert_eq!(balance(&mut w.evm, w.reward, ALICE)?, given + u(5));
    assert_eq!(w.evm.view(g, &Gauge::totalSupplyCall {})?, u(250));
    Ok(())
}

#[test]
fn gauge_refuses_its_lp_token_as_reward() -> TestResult {
    let mut evm = Evm::new();
    let lp = token(&mut evm, "LP", 18)?;
    let args = Gauge::constructorCall { lpToken: lp, rewardToken: lp }.abi_encode();
    let r = deploy(&mut evm, GAUGE, &args);
    assert_eq!(revert_as::<GaugeErr, _>(r), GaugeErr::RewardIsLpToken(Gauge::RewardIsLpToken {}));
    Ok(())
}

// ---------------------------------------------------------------- dual vault

/// The vault's share math, written out again.
#[derive(Debug, Default, Clone)]
struct VaultModel {
    scale_a: U256,
    scale_b: U256,
    price: U256,
    held_a: U256,
    held_b: U256,
    supply: U256,
}

impl VaultModel {
    /// Shares for a deposit, or `None` where the vault refuses it.
    fn deposit(&self, a: U256, b: U256) -> Option<U256> {
        let shares = if self.supply.is_zero() {
            a * self.scale_a + b * self.scale_b * self.price / WAD
        } else {
            let by_a = (!self.held_a.is_zero()).then(|| a * self.supply / self.held_a);
            let by_b = (!self.held_b.is_zero()).then(|| b * self.supply / self.held_b);
            match (by_a, by_b) {
                (Some(x), Some(y)) => x.min(y),
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => return None,
            }
        };
        (!shares.is_zero()).then_some(shares)
    }

    fn redeem(&self, shares: U256) -> (U256, U256) {
        (shares * self.held_a / self.supply, shares * self.held_b / self.supply)
    }
}

struct VaultWorld {
    evm: Evm,
    a: Address,
    b: Address,
    vault: Address,
    model: VaultModel,
}

/// A: 6 decimals, B: 18 decimals, one B = 2000.5 A.
fn vault_world() -> Result<VaultWorld, EvmError> {
    let mut evm = Evm::new();
    let a = token(&mut evm, "USDC", 6)?;
    let b = token(&mut evm, "WETH", 18)?;
    let price = u(2_000_500_000_000_000_000_000);
    let args = DualVault::constructorCall {
        tokenA: a,
        tokenB: b,
        priceBInA: price,
        name: "Reference dual vault".into(),
        symbol: "rDUAL".into(),
    }
    .abi_encode();
    let vault = deploy(&mut evm, DUAL_VAULT, &args)?;
    for who in [ALICE, BOB, CAROL] {
        approve(&mut evm, who, a, vault)?;
        approve(&mut evm, who, b, vault)?;
    }
    let model =
        VaultModel { scale_a: pow10(12), scale_b: U256::ONE, price, ..VaultModel::default() };
    Ok(VaultWorld { evm, a, b, vault, model })
}

impl VaultWorld {
    /// Deposits from `who`, checking the shares, the event and the holdings
    /// against the model.
    fn deposit(&mut self, who: Address, a: U256, b: U256) -> Result<U256, EvmError> {
        mint(&mut self.evm, self.a, who, a)?;
        mint(&mut self.evm, self.b, who, b)?;
        let want = self.model.deposit(a, b).expect("the model accepts this deposit");
        let preview =
            self.evm.view(self.vault, &DualVault::previewDepositCall { amountA: a, amountB: b })?;
        assert_eq!(preview, want);
        let before = self.evm.view(self.vault, &DualVault::balanceOfCall { who })?;
        let call = DualVault::depositCall { amountA: a, amountB: b, receiver: who };
        let out = send(&mut self.evm, who, self.vault, &call)?;
        let shares = DualVault::depositCall::abi_decode_returns(&out.output)?;
        assert_eq!(shares, want, "shares of deposit ({a}, {b}) with {:?}", self.model);
        assert_eq!(
            event::<DualVault::Deposit>(&out, self.vault),
            Some(DualVault::Deposit { sender: who, owner: who, amountA: a, amountB: b, shares })
        );
        self.model.held_a += a;
        self.model.held_b += b;
        self.model.supply += shares;
        assert_eq!(self.evm.view(self.vault, &DualVault::balanceOfCall { who })?, before + shares);
        self.check_totals()?;
        Ok(shares)
    }

    fn redeem(&mut self, owner: Address, shares: U256) -> Result<(U256, U256), EvmError> {
        let (want_a, want_b) = self.model.redeem(shares);
        let preview = self.evm.view(self.vault, &DualVault::previewRedeemCall { shares })?;
        assert_eq!((preview.amountA, preview.amountB), (want_a, want_b));
        let (a0, b0) =
            (balance(&mut self.evm, self.a, owner)?, balance(&mut self.evm, self.b, owner)?);
        let call = DualVault::redeemCall { shares, receiver: owner, owner };
        let got = self.evm.call_sol(owner, self.vault, &call)?;
        assert_eq!((got.amountA, got.amountB), (want_a, want_b));
        assert_eq!(balance(&mut self.evm, self.a, owner)?, a0 + want_a);
        assert_eq!(balance(&mut self.evm, self.b, owner)?, b0 + want_b);
        self.model.held_a -= want_a;
        self.model.held_b -= want_b;
        self.model.supply -= shares;
        self.check_totals()?;
        Ok((want_a, want_b))
    }

    fn check_totals(&mut self) -> TestResult {
        let t = self.evm.view(self.vault, &DualVault::totalAssetsCall {})?;
        assert_eq!((t.a, t.b), (self.model.held_a, self.model.held_b));
        assert_eq!(self.evm.view(self.vault, &DualVault::totalSupplyCall {})?, self.model.supply);
        Ok(())
    }
}

#[test]
fn dual_vault_first_and_later_deposits_and_redeems() -> TestResult {
    let mut w = vault_world()?;
    assert_eq!(w.evm.view(w.vault, &DualVault::tokenACall {})?, w.a);
    assert_eq!(w.evm.view(w.vault, &DualVault::tokenBCall {})?, w.b);
    assert_eq!(w.evm.view(w.vault, &DualVault::decimalsCall {})?, 18);

    // First: 1000.000123 A + (0.5 B + 7 wei) at 2000.5 A per B.
    let (a1, b1) = (u(1_000_000_123), u(500_000_000_000_000_007));
    let s1 = w.deposit(ALICE, a1, b1)?;
    assert_eq!(
        s1,
        u(1_000_000_123) * pow10(12)
            + u(500_000_000_000_000_007) * u(2_000_500_000_000_000_000_000) / WAD
    );
    assert_eq!(s1, uint!(2000250123000000014003_U256));

    // Later: in proportion but not exactly; the smaller ratio wins and the
    // rest stays in the vault.
    let (a2, b2) = (u(333_333_333), u(200_000_000_000_000_000));
    let by_a = a2 * s1 / a1;
    let by_b = b2 * s1 / b1;
    let s2 = w.deposit(BOB, a2, b2)?;
    assert_eq!(s2, by_a.min(by_b));
    assert!(by_a < by_b, "A is the binding side here");

    // Only one token while both are held: no shares.
    mint(&mut w.evm, w.a, CAROL, u(1_000_000))?;
    let only_a =
        DualVault::depositCall { amountA: u(1_000_000), amountB: U256::ZERO, receiver: CAROL };
    assert_eq!(
        revert_as::<VaultErr, _>(w.evm.call_sol(CAROL, w.vault, &only_a)),
        VaultErr::ZeroShares(DualVault::ZeroShares {})
    );

    // Redeem part of Alice's, then Bob's for Carol with an allowance.
    w.redeem(ALICE, s1 / u(3))?;
    let for_carol = DualVault::redeemCall { shares: s2, receiver: CAROL, owner: BOB };
    assert_eq!(
        revert_as::<VaultErr, _>(w.evm.call_sol(CAROL, w.vault, &for_carol)),
        VaultErr::InsufficientAllowance(DualVault::InsufficientAllowance {
            requested: s2,
            allowed: U256::ZERO
        })
    );
    w.evm.call_sol(BOB, w.vault, &DualVault::approveCall { spender: CAROL, amount: s2 })?;
    let (want_a, want_b) = w.model.redeem(s2);
    let carol_a = balance(&mut w.evm, w.a, CAROL)?;
    let out = send(&mut w.evm, CAROL, w.vault, &for_carol)?;
    assert_eq!(
        event::<DualVault::Withdraw>(&out, w.vault),
        Some(DualVault::Withdraw {
            sender: CAROL,
            receiver: CAROL,
            owner: BOB,
            amountA: want_a,
            amountB: want_b,
            shares: s2
        })
    );
    assert_eq!(balance(&mut w.evm, w.a, CAROL)?, carol_a + want_a);
    assert_eq!(balance(&mut w.evm, w.b, CAROL)?, want_b);
    w.model.held_a -= want_a;
    w.model.held_b -= want_b;
    w.model.supply -= s2;
    w.check_totals()?;

    // Alice takes the rest: the vault is empty and the next deposit is a
    // first one again, at a new price.
    let rest = w.evm.view(w.vault, &DualVault::balanceOfCall { who: ALICE })?;
    assert_eq!(
        revert_as::<VaultErr, _>(w.evm.call_sol(
            ALICE,
            w.vault,
            &DualVault::redeemCall { shares: rest + U256::ONE, receiver: ALICE, owner: ALICE }
        )),
        VaultErr::InsufficientBalance(DualVault::InsufficientBalance {
            requested: rest + U256::ONE,
            balance: rest
        })
    );
    w.redeem(ALICE, rest)?;
    assert_eq!(
        (w.model.held_a, w.model.held_b, w.model.supply),
        (U256::ZERO, U256::ZERO, U256::ZERO)
    );
    fixtures::dual_vault_price(&mut w.evm, w.vault, u(3_000) * WAD)?;
    w.model.price = u(3_000) * WAD;
    let s = w.deposit(CAROL, U256::ZERO, u(3))?;
    assert_eq!(s, u(9_000), "3 wei of B at 3000 A per B");
    Ok(())
}

#[test]
fn dual_vault_matches_the_model_over_a_sequence() -> TestResult {
    let mut w = vault_world()?;
    // A small deterministic generator (xorshift64*): amounts over many
    // magnitudes, deposits and redeems by three holders.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let holders = [ALICE, BOB, CAROL];
    let mut deposits = 0;
    let mut redeems = 0;
    for _ in 0..60 {
        let who = holders[(next() % 3) as usize];
        let held = w.evm.view(w.vault, &DualVault::balanceOfCall { who })?;
        if next() % 3 == 0 && !held.is_zero() {
            let shares = (held * U256::from(next() % 1_000 + 1) / u(1_000)).max(U256::ONE);
            w.redeem(who, shares)?;
            redeems += 1;
        } else {
            let a = U256::from(next() >> (next() % 60));
            let b = U256::from(next()) * U256::from(next() >> (next() % 64));
            match w.model.deposit(a, b) {
                Some(_) => {
                    w.deposit(who, a, b)?;
                    deposits += 1;
                }
                None => {
                    mint(&mut w.evm, w.a, who, a)?;
                    mint(&mut w.evm, w.b, who, b)?;
                    let call = DualVault::depositCall { amountA: a, amountB: b, receiver: who };
                    let r = w.evm.call_sol(who, w.vault, &call);
                    assert!(
                        matches!(
                            revert_as::<VaultErr, _>(r),
                            VaultErr::ZeroShares(_) | VaultErr::NoAssets(_)
                        ),
                        "refused deposit ({a}, {b})"
                    );
                }
            }
        }
    }
    assert!(deposits >= 10 && redeems >= 5, "{deposits} deposits, {redeems} redeems");
    Ok(())
}

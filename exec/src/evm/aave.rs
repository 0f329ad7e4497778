//! Aave V3 on its published bytecode (`@aave/core-v3@1.19.3`, the v3.0.x
//! code): one market per pool address, its reserves' aTokens and debt
//! tokens at the catalog's addresses.
//!
//! The bring-up is the deployed market's, minus the governance around it:
//! - the `Pool` runs at the pool's own address (constructed there, then
//!   `initialize(provider)`), linked with its seven logic libraries;
//! - a `PoolAddressesProvider` names the pool and the oracle, and names
//!   the deployer as the pool configurator, so the deployer lists reserves
//!   with `Pool.initReserve` and `Pool.setConfiguration` exactly as the
//!   deployed configurator does (no `PoolConfigurator` or ACL needed);
//! - each `AToken`, `VariableDebtToken` and `StableDebtToken` runs at its
//!   address directly (on chain each is a proxy in front of the same
//!   implementation; users see the same functions and state);
//! - an `AaveOracle` reads one [`ReferencePriceFeed`] per priced asset,
//!   standing for the Chainlink feed;
//! - a reserve's liquidity index is the snapshot's, written into the
//!   reserve's storage with a liquidity rate of 0, so nothing accrues and
//!   `getReserveNormalizedIncome` is that index to the wei.
//!
//! [`ReferencePriceFeed`]: super::abi::ReferencePriceFeed

use alloy_primitives::{Address, B256, Bytes, U256, uint};
use alloy_sol_types::SolConstructor;
use revm::database_interface::DatabaseRef;

use super::{
    Evm, EvmError,
    abi::{
        AaveATokenInit, AaveAddressesProvider, AaveDebtTokenInit, AaveOracle, AavePool,
        AaveRateStrategy, AaveToken, ReferencePriceFeed,
    },
    artifacts::{Artifact, NpmArtifacts},
    world::mapping_slot,
};

/// One ray, Aave's fixed-point unit for indexes.
pub const RAY: U256 = uint!(1000000000000000000000000000_U256);

/// Storage slots of the published contracts (solc's layout of v3.0.x:
/// `VersionedInitializable` takes slots 0 to 51), checked against the
/// contracts' own getters by the world's build and the tests.
mod slot {
    /// `Pool._reserves` (`PoolStorage`'s first mapping).
    pub(super) const POOL_RESERVES: u64 = 52;
    /// `Pool._usersConfig`.
    pub(super) const POOL_USERS_CONFIG: u64 = 53;
    /// `AToken._userState` (`IncentivizedERC20`).
    pub(super) const ATOKEN_USER_STATE: u64 = 52;
    /// `AToken._totalSupply`.
    pub(super) const ATOKEN_TOTAL_SUPPLY: u64 = 54;
    /// `VariableDebtToken._userState` (after `EIP712Base` and
    /// `DebtTokenBase`).
    pub(super) const DEBT_USER_STATE: u64 = 56;
    /// `VariableDebtToken._totalSupply`.
    pub(super) const DEBT_TOTAL_SUPPLY: u64 = 58;
    /// `AaveOracle.assetsSources`.
    pub(super) const ORACLE_SOURCES: u64 = 0;
}

/// Aave V3's flash-loan premium, bps of the amount borrowed.
pub const FLASHLOAN_PREMIUM_BPS: u128 = 5;

/// The logic libraries the `Pool` links, in deployment order
/// (`FlashLoanLogic` links `BorrowLogic`).
const LIBRARIES: [Artifact; 7] = [
    Artifact::AaveBorrowLogic,
    Artifact::AaveBridgeLogic,
    Artifact::AaveEModeLogic,
    Artifact::AaveLiquidationLogic,
    Artifact::AavePoolLogic,
    Artifact::AaveSupplyLogic,
    Artifact::AaveFlashLoanLogic,
];

/// An Aave V3 market placed in an EVM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AaveMarket {
    /// The `Pool`.
    pub pool: Address,
    /// Its `PoolAddressesProvider`.
    pub provider: Address,
    /// Its `AaveOracle` (USD, 8 decimals).
    pub oracle: Address,
    /// The interest rate strategy every reserve uses.
    pub strategy: Address,
}

/// One reserve to list.
#[derive(Debug, Clone)]
pub struct AaveReserve {
    /// The underlying asset.
    pub asset: Address,
    /// Its decimals (the aToken's and debt tokens' too).
    pub decimals: u8,
    /// Where its aToken runs.
    pub a_token: Address,
    /// Where its variable debt token runs.
    pub variable_debt: Address,
    /// Where its stable debt token runs.
    pub stable_debt: Address,
    /// The liquidity index, at least one ray.
    pub index: U256,
    /// Loan to value, bps; 0: not collateral.
    pub ltv_bps: u16,
    /// The asset's USD price with 8 decimals; `None`: unpriced (it can
    /// then be supplied and withdrawn, not borrowed or counted).
    pub price_usd_1e8: Option<U256>,
    /// Variable borrowing enabled.
    pub borrowable: bool,
    /// The aToken's name and symbol.
    pub a_token_meta: (String, String),
    /// The variable debt token's name and symbol.
    pub debt_meta: (String, String),
}

impl AaveMarket {
    /// Deploys the libraries, the provider, the `Pool` at `pool` (which
    /// must hold no code), the oracle and the rate strategy, all from
    /// `deployer`, who owns the provider and acts as the configurator.
    pub fn deploy(
        evm: &mut Evm,
        npm: &NpmArtifacts,
        deployer: Address,
        pool: Address,
    ) -> Result<Self, EvmError> {
        let mut libraries: Vec<(Artifact, Address)> = Vec::with_capacity(LIBRARIES.len());
        for lib in LIBRARIES {
            let code = npm.linked_initcode(lib, &libraries)?;
            libraries.push((lib, evm.deploy(deployer, code)?));
        }
        let provider = deploy(
            evm,
            npm,
            deployer,
            Artifact::AaveAddressesProvider,
            &AaveAddressesProvider::constructorCall {
                marketId: "Switchyard".into(),
                owner: deployer,
            }
            .abi_encode(),
        )?;
        let mut code = npm.linked_initcode(Artifact::AavePool, &libraries)?.to_vec();
        code.extend_from_slice(&AavePool::constructorCall { provider }.abi_encode());
        evm.deploy_in_place(deployer, pool, code.into())?;
        evm.call_sol(deployer, pool, &AavePool::initializeCall { provider })?;
        let set = |evm: &mut Evm, id: &str, at: Address| {
            let id = B256::right_padding_from(id.as_bytes());
            evm.call_sol(
                deployer,
                provider,
                &AaveAddressesProvider::setAddressCall { id, newAddress: at },
            )
        };
        set(evm, "POOL", pool)?;
        set(evm, "POOL_CONFIGURATOR", deployer)?;
        // Flash loans cost 0.05% (Aave V3 Ethereum's `FLASHLOAN_PREMIUM_TOTAL`
        // of 5 bps), all of it booked to the treasury, so a loan moves no
        // liquidity index that later actions of a program were priced on.
        evm.call_sol(
            deployer,
            pool,
            &AavePool::updateFlashloanPremiumsCall {
                flashLoanPremiumTotal: FLASHLOAN_PREMIUM_BPS,
                flashLoanPremiumToProtocol: 10_000,
            },
        )?;
        let oracle = deploy(
            evm,
            npm,
            deployer,
            Artifact::AaveOracle,
            &AaveOracle::constructorCall {
                provider,
                assets: Vec::new(),
                sources: Vec::new(),
                fallbackOracle: Address::ZERO,
                baseCurrency: Address::ZERO,
                baseCurrencyUnit: U256::from(100_000_000u64),
            }
            .abi_encode(),
        )?;
        evm.call_sol(
            deployer,
            provider,
            &AaveAddressesProvider::setPriceOracleCall { newPriceOracle: oracle },
        )?;
        // Aave's published parameters for a stablecoin reserve: 90% optimal
        // usage, 4% then 60% variable slopes. Within one transaction no time
        // passes, so rates never change an amount; they only make the
        // market's state what the deployed one would hold.
        let ray_pct = |pct: u64| RAY / U256::from(100u8) * U256::from(pct);
        let strategy = deploy(
            evm,
            npm,
            deployer,
            Artifact::AaveRateStrategy,
            &AaveRateStrategy::constructorCall {
                provider,
                optimalUsageRatio: ray_pct(90),
                baseVariableBorrowRate: U256::ZERO,
                variableRateSlope1: ray_pct(4),
                variableRateSlope2: ray_pct(60),
                stableRateSlope1: ray_pct(1),
                stableRateSlope2: ray_pct(60),
                baseStableRateOffset: ray_pct(2),
                stableRateExcessOffset: ray_pct(5),
                optimalStableToTotalDebtRatio: ray_pct(20),
            }
            .abi_encode(),
        )?;
        Ok(Self { pool, provider, oracle, strategy })
    }

    /// Lists `r`: its three tokens at their addresses (none may hold code),
    /// the reserve, its configuration, its index and its price feed.
    pub fn list(
        &self,
        evm: &mut Evm,
        npm: &NpmArtifacts,
        deployer: Address,
        r: &AaveReserve,
    ) -> Result<(), EvmError> {
        let pool = self.pool;
        let token_args = AaveToken::constructorCall { pool }.abi_encode();
        let in_place = |evm: &mut Evm, artifact: Artifact, at: Address| {
            let mut code = npm.initcode(artifact)?.to_vec();
            code.extend_from_slice(&token_args);
            evm.deploy_in_place(deployer, at, code.into())
        };
        in_place(evm, Artifact::AaveAToken, r.a_token)?;
        in_place(evm, Artifact::AaveVariableDebtToken, r.variable_debt)?;
        in_place(evm, Artifact::AaveStableDebtToken, r.stable_debt)?;
        let (name, symbol) = r.a_token_meta.clone();
        evm.call_sol(
            deployer,
            r.a_token,
            &AaveATokenInit::initializeCall {
                initializingPool: pool,
                treasury: deployer,
                underlyingAsset: r.asset,
                incentivesController: Address::ZERO,
                aTokenDecimals: r.decimals,
                aTokenName: name,
                aTokenSymbol: symbol,
                params: Bytes::new(),
            },
        )?;
        let debt_init = |evm: &mut Evm, at: Address, (name, symbol): (String, String)| {
            evm.call_sol(
                deployer,
                at,
                &AaveDebtTokenInit::initializeCall {
                    initializingPool: pool,
                    underlyingAsset: r.asset,
                    incentivesController: Address::ZERO,
                    debtTokenDecimals: r.decimals,
                    debtTokenName: name,
                    debtTokenSymbol: symbol,
                    params: Bytes::new(),
                },
            )
        };
        debt_init(evm, r.variable_debt, r.debt_meta.clone())?;
        let stable = (format!("Stable {}", r.debt_meta.0), format!("s{}", r.debt_meta.1));
        debt_init(evm, r.stable_debt, stable)?;
        evm.call_sol(
            deployer,
            pool,
            &AavePool::initReserveCall {
                asset: r.asset,
                aTokenAddress: r.a_token,
                stableDebtAddress: r.stable_debt,
                variableDebtAddress: r.variable_debt,
                interestRateStrategyAddress: self.strategy,
            },
        )?;
        evm.call_sol(
            deployer,
            pool,
            &AavePool::setConfigurationCall {
                asset: r.asset,
                configuration: AavePool::ReserveConfigurationMap { data: configuration(r) },
            },
        )?;
        self.set_index(evm, r.asset, r.index)?;
        if let Some(price) = r.price_usd_1e8 {
            let answer = alloy_primitives::I256::try_from(price)
                .map_err(|_| EvmError::Parameter(format!("a price of {price}")))?;
            let feed = deploy(
                evm,
                npm,
                deployer,
                Artifact::ReferencePriceFeed,
                &ReferencePriceFeed::constructorCall {
                    answer_: answer,
                    decimals_: 8,
                    description_: format!("{} / USD", r.a_token_meta.1),
                }
                .abi_encode(),
            )?;
            let at = mapping_slot(r.asset, slot::ORACLE_SOURCES);
            evm.set_storage(self.oracle, at, U256::from_be_slice(feed.as_slice()));
            let read =
                evm.view(self.oracle, &AaveOracle::getSourceOfAssetCall { asset: r.asset })?;
            if read != feed {
                return Err(EvmError::Layout("AaveOracle.assetsSources"));
            }
        }
        Ok(())
    }

    /// Writes `index` as the reserve's liquidity index (the liquidity rate
    /// stays 0), and checks the pool reads it back.
    fn set_index(&self, evm: &mut Evm, asset: Address, index: U256) -> Result<(), EvmError> {
        if index < RAY || index > U256::from(u128::MAX) {
            return Err(EvmError::Parameter(format!("a liquidity index of {index}")));
        }
        // `ReserveData` word 1: liquidityIndex (low 128 bits),
        // currentLiquidityRate (high).
        let word = mapping_slot(asset, slot::POOL_RESERVES) + U256::ONE;
        evm.set_storage(self.pool, word, index);
        let read = evm.view(self.pool, &AavePool::getReserveNormalizedIncomeCall { asset })?;
        if read != index {
            return Err(EvmError::Layout("Pool._reserves"));
        }
        Ok(())
    }
}

/// The reserve's configuration bitmap (`ReserveConfiguration`): LTV and
/// liquidation threshold (the same: the catalog records one ratio), a 5%
/// liquidation bonus for collateral, decimals, active, variable borrowing
/// when enabled, flash loans, no caps, no reserve factor.
fn configuration(r: &AaveReserve) -> U256 {
    let ltv = U256::from(r.ltv_bps);
    let mut data = ltv | (ltv << 16);
    if r.ltv_bps > 0 {
        data |= U256::from(10_500u16) << 32;
    }
    data |= U256::from(r.decimals) << 48;
    data |= U256::ONE << 56; // active
    if r.borrowable {
        data |= U256::ONE << 58;
    }
    data |= U256::ONE << 63; // flash loans
    data
}

/// Deploys `artifact` with `args` from `deployer`.
fn deploy(
    evm: &mut Evm,
    npm: &NpmArtifacts,
    deployer: Address,
    artifact: Artifact,
    args: &[u8],
) -> Result<Address, EvmError> {
    let mut code = npm.initcode(artifact)?.to_vec();
    code.extend_from_slice(args);
    evm.deploy(deployer, code.into())
}

/// Adds `units` to the low 128 bits (`UserState.balance`) of `holder`'s
/// entry and to the total supply of an aToken or debt token.
fn add_scaled<E>(
    evm: &mut Evm<E>,
    token: Address,
    holder: Address,
    units: U256,
    (users, total): (u64, u64),
) -> Result<(), EvmError>
where
    E: DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    let low = U256::from(u128::MAX);
    let at = mapping_slot(holder, users);
    let word = evm.storage(token, at);
    let balance = (word & low).checked_add(units).filter(|b| *b <= low);
    let total_at = U256::from(total);
    let supply = evm.storage(token, total_at).checked_add(units).filter(|s| *s <= low);
    let (Some(balance), Some(supply)) = (balance, supply) else {
        return Err(EvmError::Unfundable(format!("{units} scaled units of {token}")));
    };
    evm.set_storage(token, at, (word & !low) | balance);
    evm.set_storage(token, total_at, supply);
    Ok(())
}

/// Gives `holder` at least `amount` more of an aToken at `index`: the
/// scaled units a supply of `amount` mints, plus one so the balance
/// (`rayMul(scaled, index)`) is never short by rounding.
pub fn fund_a_token<E>(
    evm: &mut Evm<E>,
    a_token: Address,
    holder: Address,
    amount: U256,
    index: U256,
) -> Result<(), EvmError>
where
    E: DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    let scaled = switchyard_kernel::amm::vault::ray_div(amount, index)
        .map_err(|_| EvmError::Unfundable(format!("{amount} of aToken {a_token}")))?;
    add_scaled(
        evm,
        a_token,
        holder,
        scaled + U256::ONE,
        (slot::ATOKEN_USER_STATE, slot::ATOKEN_TOTAL_SUPPLY),
    )
}

/// Gives `borrower` `amount` more variable debt of the reserve whose
/// variable debt token is `debt_token` on `pool` (its variable borrow
/// index is one ray while nothing accrues, so scaled units are wei), and
/// marks the reserve borrowed in the borrower's configuration.
pub fn add_variable_debt<E>(
    evm: &mut Evm<E>,
    pool: Address,
    debt_token: Address,
    borrower: Address,
    amount: U256,
) -> Result<(), EvmError>
where
    E: DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    add_scaled(
        evm,
        debt_token,
        borrower,
        amount,
        (slot::DEBT_USER_STATE, slot::DEBT_TOTAL_SUPPLY),
    )?;
    let asset = evm.view(debt_token, &UnderlyingCall {})?;
    let id = evm.view(pool, &AavePool::getReserveDataCall { asset })?.id;
    let at = mapping_slot(borrower, slot::POOL_USERS_CONFIG);
    let config = evm.storage(pool, at);
    evm.set_storage(pool, at, config | (U256::ONE << (usize::from(id) * 2)));
    Ok(())
}

alloy_sol_types::sol! {
    /// The debt tokens' `UNDERLYING_ASSET_ADDRESS()`.
    function UNDERLYING_ASSET_ADDRESS() external view returns (address);
}
use UNDERLYING_ASSET_ADDRESSCall as UnderlyingCall;

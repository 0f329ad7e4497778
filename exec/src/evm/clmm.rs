//! Uniswap V3 positions held by users, put in place in a fork of the
//! world.
//!
//! The world's `NonfungiblePositionManager` is the published bytecode with
//! none of the chain's positions in its storage. A `redeemclmm` of a
//! user's position (its range and liquidity read from the chain's node) is
//! proven on a fork where that position exists: minted through the
//! manager's own `mint` at the token id the chain gave it, owned by the
//! user, with exactly the chain's liquidity and nothing owed. Only the
//! manager's id counter is written directly; everything else is the
//! contracts' own code.

use alloy_primitives::{
    Address, U256, address,
    aliases::{I24, U24},
};

use super::{Evm, EvmError, abi::UniswapV3PositionManager as Npm, world::ChainWorld};

/// The storage slot of the manager's `uint176 _nextId` (with
/// `uint80 _nextPoolId` above it): after OpenZeppelin 3.4's ERC-165 and
/// ERC-721 variables (slots 0–9) and the manager's three mappings.
pub const NEXT_ID_SLOT: u64 = 13;

/// Who pays for the positions put in place (an address of the world's
/// own; its leftovers stay with it).
pub const MINTER: Address = address!("0x00000000000000000000000000000000c1a1c1a1");

/// A user's position, as the chain holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldPosition {
    /// The position manager.
    pub manager: Address,
    /// Its token id.
    pub token_id: U256,
    /// Its owner.
    pub owner: Address,
    /// The pool's two tokens, in the pool's order.
    pub tokens: [Address; 2],
    /// The pool's fee, hundredths of a bip.
    pub fee: u32,
    /// Lower and upper tick.
    pub ticks: (i32, i32),
    /// Its liquidity.
    pub liquidity: u128,
}

impl ChainWorld {
    /// Puts `p` in place in `evm`: the manager's next id set to the
    /// position's, a mint of at least its liquidity to its owner (paid by
    /// [`MINTER`], which the world funds), the excess decreased and
    /// everything owed collected back to the minter; then checked through
    /// `positions` and `ownerOf`.
    pub fn add_clmm_position<E>(&self, evm: &mut Evm<E>, p: &HeldPosition) -> Result<(), EvmError>
    where
        E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible>
            + std::fmt::Debug,
    {
        let slot = U256::from(NEXT_ID_SLOT);
        let word = evm.storage(p.manager, slot);
        let low: U256 = (U256::from(1u8) << 176usize) - U256::from(1u8);
        if word & low == U256::ZERO || p.token_id > low {
            return Err(EvmError::Unfundable(format!(
                "position {} in {:#x}: the manager's id counter is not where it is expected",
                p.token_id, p.manager
            )));
        }
        evm.set_storage(p.manager, slot, (word & !low) | p.token_id);
        let [a, b] = mint_budget(evm, p)?;
        for (token, amount) in [(p.tokens[0], a), (p.tokens[1], b)] {
            self.fund(evm, token, MINTER, amount)?;
            evm.call_sol(
                MINTER,
                token,
                &super::abi::TestERC20::approveCall { spender: p.manager, amount: U256::MAX },
            )?;
        }
        let minted = evm.call_sol(
            MINTER,
            p.manager,
            &Npm::mintCall {
                params: Npm::MintParams {
                    token0: p.tokens[0],
                    token1: p.tokens[1],
                    fee: U24::from(p.fee),
                    tickLower: I24::try_from(p.ticks.0).map_err(|_| bad(p, "tickLower"))?,
                    tickUpper: I24::try_from(p.ticks.1).map_err(|_| bad(p, "tickUpper"))?,
                    amount0Desired: a,
                    amount1Desired: b,
                    amount0Min: U256::ZERO,
                    amount1Min: U256::ZERO,
                    recipient: p.owner,
                    deadline: U256::MAX,
                },
            },
        )?;
        if minted.tokenId != p.token_id || minted.liquidity < p.liquidity {
            return Err(bad(p, "minted liquidity"));
        }
        if minted.liquidity > p.liquidity {
            evm.call_sol(
                p.owner,
                p.manager,
                &Npm::decreaseLiquidityCall {
                    params: Npm::DecreaseLiquidityParams {
                        tokenId: p.token_id,
                        liquidity: minted.liquidity - p.liquidity,
                        amount0Min: U256::ZERO,
                        amount1Min: U256::ZERO,
                        deadline: U256::MAX,
                    },
                },
            )?;
            evm.call_sol(
                p.owner,
                p.manager,
                &Npm::collectCall {
                    params: Npm::CollectParams {
                        tokenId: p.token_id,
                        recipient: MINTER,
                        amount0Max: u128::MAX,
                        amount1Max: u128::MAX,
                    },
                },
            )?;
        }
        let held = evm.view(p.manager, &Npm::positionsCall { tokenId: p.token_id })?;
        let owner = evm.view(p.manager, &Npm::ownerOfCall { tokenId: p.token_id })?;
        if held.liquidity != p.liquidity
            || held.tokensOwed0 != 0
            || held.tokensOwed1 != 0
            || owner != p.owner
        {
            return Err(bad(p, "position as put in place"));
        }
        Ok(())
    }
}

/// What to offer `mint` so that it mints at least the position's
/// liquidity: what the pool takes for it (rounded up) at the fork's price,
/// and a thousandth and two units more on each side.
fn mint_budget<E>(evm: &mut Evm<E>, p: &HeldPosition) -> Result<[U256; 2], EvmError>
where
    E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    use switchyard_kernel::amm::uniswap_v3::{mint_amounts, sqrt_ratio_at_tick};
    let pool = pool_of(evm, p)?;
    let slot0 = evm.view(pool, &super::abi::UniswapV3Pool::slot0Call {})?;
    let sqrt_p = U256::from(slot0.sqrtPriceX96);
    let tick = slot0.tick.as_i32();
    let ratio = |t: i32| sqrt_ratio_at_tick(t).map_err(|_| bad(p, "ticks"));
    let amounts =
        mint_amounts(sqrt_p, tick, p.ticks, (ratio(p.ticks.0)?, ratio(p.ticks.1)?), p.liquidity)
            .map_err(|_| bad(p, "amounts"))?;
    Ok(amounts.map(|x| x + x / U256::from(1_000u16) + U256::from(2u8)))
}

/// The pool of `p`'s tokens and fee, as the world's factory has it.
fn pool_of<E>(evm: &mut Evm<E>, p: &HeldPosition) -> Result<Address, EvmError>
where
    E: revm::database_interface::DatabaseRef<Error = std::convert::Infallible> + std::fmt::Debug,
{
    let factory = evm.view(p.manager, &Npm::factoryCall {})?;
    let fee = U24::from(p.fee);
    let pool = evm.view(
        factory,
        &super::abi::UniswapV3Factory::getPoolCall {
            tokenA: p.tokens[0],
            tokenB: p.tokens[1],
            fee,
        },
    )?;
    if pool == Address::ZERO {
        return Err(bad(p, "pool"));
    }
    Ok(pool)
}

fn bad(p: &HeldPosition, what: &str) -> EvmError {
    EvmError::Unfundable(format!(
        "position {} of {:#x} cannot be put in place: {what}",
        p.token_id, p.manager
    ))
}

/// The two `eth_call`s that read position `token_id` of `manager` from a
/// node: `positions(tokenId)` and `ownerOf(tokenId)`.
pub fn read_calls(token_id: U256) -> [alloy_primitives::Bytes; 2] {
    use alloy_sol_types::SolCall;
    [
        Npm::positionsCall { tokenId: token_id }.abi_encode().into(),
        Npm::ownerOfCall { tokenId: token_id }.abi_encode().into(),
    ]
}

/// The position the node's answers to [`read_calls`] describe, or why
/// they describe none.
pub fn decode_read(
    manager: Address,
    token_id: U256,
    positions: &[u8],
    owner: &[u8],
) -> Result<HeldPosition, String> {
    use alloy_sol_types::SolCall;
    let p = Npm::positionsCall::abi_decode_returns(positions)
        .map_err(|e| format!("the manager's positions({token_id}) answer is not its ABI's: {e}"))?;
    let owner = Npm::ownerOfCall::abi_decode_returns(owner)
        .map_err(|e| format!("the manager's ownerOf({token_id}) answer is not its ABI's: {e}"))?;
    if p.token0 == Address::ZERO {
        return Err(format!("the manager holds no position {token_id}"));
    }
    Ok(HeldPosition {
        manager,
        token_id,
        owner,
        tokens: [p.token0, p.token1],
        fee: p.fee.to::<u32>(),
        ticks: (p.tickLower.as_i32(), p.tickUpper.as_i32()),
        liquidity: p.liquidity,
    })
}

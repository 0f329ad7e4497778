//! The contract bytecode the EVM runs, compiled once by
//! `contracts/build.mjs` and committed under `contracts/artifacts/`, so that
//! building and testing need neither npm nor a compiler.
//!
//! Our own fixtures (`TestERC20`, `V3Swapper`, `ReferenceVault`) come from
//! solc 0.8.37 at `evmVersion: cancun`; the Uniswap factories and pools are
//! the npm packages' bytecode, unchanged (their init code hashes are
//! mainnet's).

use alloy_primitives::Bytes;
use serde::Deserialize;

use super::EvmError;

/// A committed contract artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Artifact {
    /// `contracts/src/TestERC20.sol`: ERC-20 with public mint and burn;
    /// constructor `(string name, string symbol, uint8 decimals)`.
    TestErc20,
    /// `contracts/src/V3Swapper.sol`: mints and swaps through Uniswap V3
    /// pools from its own balance; no constructor arguments.
    V3Swapper,
    /// `contracts/src/ReferenceVault.sol`: ERC-4626 with solmate rounding;
    /// constructor `(address asset, string name, string symbol, uint8 decimals)`.
    ReferenceVault,
    /// `@uniswap/v2-core@1.0.1` factory; constructor `(address feeToSetter)`.
    UniswapV2Factory,
    /// `@uniswap/v2-core@1.0.1` pair (the factory embeds it; kept for its
    /// init code hash).
    UniswapV2Pair,
    /// `@uniswap/v3-core@1.0.1` factory; no constructor arguments. Fee tiers
    /// 500, 3000 and 10000 are enabled at deployment.
    UniswapV3Factory,
    /// `@uniswap/v3-core@1.0.1` pool (the factory embeds it; kept for its
    /// init code hash).
    UniswapV3Pool,
}

/// The part of an artifact file the EVM needs.
#[derive(Deserialize)]
struct ArtifactFile {
    /// Initcode, `0x`-prefixed hex.
    bytecode: Bytes,
}

impl Artifact {
    /// Every artifact.
    pub const ALL: [Self; 7] = [
        Self::TestErc20,
        Self::V3Swapper,
        Self::ReferenceVault,
        Self::UniswapV2Factory,
        Self::UniswapV2Pair,
        Self::UniswapV3Factory,
        Self::UniswapV3Pool,
    ];

    /// The contract's name, which is also its file name under
    /// `contracts/artifacts/`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::TestErc20 => "TestERC20",
            Self::V3Swapper => "V3Swapper",
            Self::ReferenceVault => "ReferenceVault",
            Self::UniswapV2Factory => "UniswapV2Factory",
            Self::UniswapV2Pair => "UniswapV2Pair",
            Self::UniswapV3Factory => "UniswapV3Factory",
            Self::UniswapV3Pool => "UniswapV3Pool",
        }
    }

    /// The artifact file, `{ "abi": [...], "bytecode": "0x..." }`.
    pub const fn json(self) -> &'static str {
        match self {
            Self::TestErc20 => include_str!("../../../contracts/artifacts/TestERC20.json"),
            Self::V3Swapper => include_str!("../../../contracts/artifacts/V3Swapper.json"),
            Self::ReferenceVault => {
                include_str!("../../../contracts/artifacts/ReferenceVault.json")
            }
            Self::UniswapV2Factory => {
                include_str!("../../../contracts/artifacts/UniswapV2Factory.json")
            }
            Self::UniswapV2Pair => include_str!("../../../contracts/artifacts/UniswapV2Pair.json"),
            Self::UniswapV3Factory => {
                include_str!("../../../contracts/artifacts/UniswapV3Factory.json")
            }
            Self::UniswapV3Pool => include_str!("../../../contracts/artifacts/UniswapV3Pool.json"),
        }
    }

    /// The initcode (creation bytecode), without constructor arguments.
    pub fn initcode(self) -> Result<Bytes, EvmError> {
        serde_json::from_str::<ArtifactFile>(self.json())
            .map(|f| f.bytecode)
            .map_err(|source| EvmError::Artifact { name: self.name(), source })
    }

    /// The initcode followed by ABI-encoded constructor arguments (from
    /// `SolConstructor::abi_encode`), ready for [`super::Evm::deploy`].
    pub fn initcode_with(self, constructor_args: &[u8]) -> Result<Bytes, EvmError> {
        let mut code = self.initcode()?.to_vec();
        code.extend_from_slice(constructor_args);
        Ok(code.into())
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{b256, keccak256};

    use super::*;

    #[test]
    fn every_artifact_has_initcode() {
        for a in Artifact::ALL {
            let code = a.initcode();
            assert!(code.as_ref().is_ok_and(|c| c.len() > 1000), "{}: {code:?}", a.name());
        }
    }

    /// The committed Uniswap bytecode is mainnet's: the init code hashes
    /// the catalog uses for CREATE2 pool addresses.
    #[test]
    fn uniswap_init_code_hashes_are_mainnet() {
        let hash = |a: Artifact| a.initcode().map(keccak256).ok();
        assert_eq!(
            hash(Artifact::UniswapV2Pair),
            Some(b256!("96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f"))
        );
        assert_eq!(
            hash(Artifact::UniswapV3Pool),
            Some(b256!("e34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54"))
        );
    }
}

// The test node: chain id 1, so the catalog's Ethereum tokens and factories
// apply unchanged (the test places its contracts at their mainnet
// addresses). Blocks are mined per transaction, and on `evm_mine`.
module.exports = {
  networks: {
    hardhat: {
      chainId: 1,
      hardfork: 'cancun',
      mining: { auto: true },
      accounts: { count: 2 },
      // Room for the node-chain benchmark's blocks of 1,000 pair syncs.
      blockGasLimit: 200_000_000,
    },
  },
};

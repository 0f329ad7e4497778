// A second test node: chain id 8453 (Base), for what crosses chains
// (the bridge status test runs one node of each).
module.exports = {
  networks: {
    hardhat: {
      chainId: 8453,
      hardfork: 'cancun',
      mining: { auto: true },
      accounts: { count: 2 },
    },
  },
};

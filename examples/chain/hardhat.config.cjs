// The local chain's node (Hardhat Network, run by node.cjs beside it): chain id 31337, every transaction
// mined as it arrives, and one development account (Hardhat's first), which the node holds unlocked.
// Holon's code never holds its key: it asks the node to send from it (eth_sendTransaction). One, not
// Hardhat's twenty: deriving the other nineteen keys took a second of every node's start.
// Blocks may share a timestamp: otherwise each block mined as it arrives is a second after the one
// before, and a chain that mines hundreds a minute (the tests, the bench) runs minutes ahead of the
// clock, so that an authorization valid for five minutes by the payer's clock has lapsed by the chain's.
module.exports = {
  networks: {
    hardhat: {
      chainId: 31337,
      mining: { auto: true },
      allowBlocksWithSameTimestamp: true,
      loggingEnabled: false,
      accounts: { count: 1 },
    },
  },
};

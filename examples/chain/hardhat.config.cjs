// The local chain's node (Hardhat Network, run by node.cjs beside it): chain id 31337, every transaction
// mined as it arrives, and the node's own development accounts, which it holds unlocked. Holon's code
// never holds their keys: it asks the node to send from the first one (eth_sendTransaction).
module.exports = {
  networks: {
    hardhat: {
      chainId: 31337,
      mining: { auto: true },
      loggingEnabled: false,
    },
  },
};

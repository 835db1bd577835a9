// `node examples/chain/node.cjs [--port N]`: a local EVM node (Hardhat Network, from npm) serving
// JSON-RPC on 127.0.0.1 (a free port unless --port), for the demo and the tests. It prints one line of
// JSON, {"rpcUrl": …}, once it listens, and exits when its standard input ends: the process that started
// it holds the other end of that pipe, so when that process ends, however it ends (even killed), the
// node ends too and no node is ever left behind.
'use strict';
const path = require('node:path');

// Not at a terminal, where reading stdin would stop a job run in the background; there, Ctrl-C stops it.
if (!process.stdin.isTTY) {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));

// Hardhat reads its configuration and network from these when it is loaded as a library.
process.env.HARDHAT_CONFIG = path.join(__dirname, 'hardhat.config.cjs');
process.env.HARDHAT_NETWORK = 'hardhat';

const i = process.argv.indexOf('--port');
const port = i > 0 ? Number(process.argv[i + 1]) : 0;

(async () => {
  let hre;
  try {
    hre = require('hardhat');
  } catch (err) {
    if (err && err.code === 'MODULE_NOT_FOUND' && /'hardhat'/.test(err.message)) {
      throw new Error('the local chain runs Hardhat from npm, a development dependency of Holon: run it from the repository after `npm install`');
    }
    throw err;
  }
  const { TASK_NODE_CREATE_SERVER } = require('hardhat/builtin-tasks/task-names');
  // The network is made on its first request: make it before saying the node is ready.
  await hre.network.provider.request({ method: 'eth_chainId' });
  // The `node` task's own JSON-RPC server, without the task's banner (which prints the dev accounts' keys).
  const server = await hre.run(TASK_NODE_CREATE_SERVER, { hostname: '127.0.0.1', port, provider: hre.network.provider });
  const { address, port: listening } = await server.listen();
  process.stdout.write(`${JSON.stringify({ rpcUrl: `http://${address}:${listening}` })}\n`);
  await server.waitUntilClosed();
})().catch((err) => {
  process.stderr.write(`[chain] the node did not start: ${err && err.message ? err.message : err}\n`);
  process.exit(1);
});

/**
 * The local chain that the demo and the tests pay on: a real EVM node (Hardhat Network from npm, run by
 * node.cjs as a child process), the token deployed on it (contracts/TestUSDC.sol, USDC's EIP-3009 and
 * EIP-2612), Permit2 and x402's upto proxy placed at their canonical addresses (placed.ts), and an x402
 * facilitator (facilitator.ts) that settles `exact` and `upto` payments on it from a key of its own.
 *
 * How it lives and dies: the node runs in a process group of its own and listens on a free loopback
 * port, so any number of chains run side by side. `stop()` ends the group. A process that never calls
 * `stop()`, or dies, still takes its node with it: the node exits when the pipe on its standard input
 * closes, which the kernel does when the process that started it ends, however it ends.
 *
 * Keys: no key is written anywhere. The node's first development account, which the node itself holds
 * unlocked, deploys the token (so it lands at the address Holon knows, network.ts) and is its minter;
 * it is asked to send over JSON-RPC (`eth_sendTransaction`). The facilitator's key is generated for each
 * chain and given gas by that account; payers are funded by `fund`.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import * as path from 'node:path';
import type { Address, Hash, PublicClient } from 'viem';
import { createPublicClient, createWalletClient, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Facilitator } from './facilitator.ts';
import { startFacilitator } from './facilitator.ts';
import type { FrameworkAddresses } from './framework.ts';
import { deployFramework } from './framework.ts';
import { CHAIN_ID, localChainDefinition, localTransport, NETWORK, TOKEN } from './network.ts';
import { placeUptoContracts } from './placed.ts';
import { TEST_USDC_ABI, TEST_USDC_BYTECODE } from './testUsdcArtifact.ts';

/** A running node. */
export interface ChainNode {
  rpcUrl: string;
  /** The node's process id, which is also its process group's. */
  pid: number;
  /** Ends the node's process group and waits for the node to exit. */
  stop(): Promise<void>;
}

/** Starts a node on a free loopback port; resolves once it serves JSON-RPC. */
export async function startNode(): Promise<ChainNode> {
  // The launcher is beside this file in the sources, and beside the bundle in dist/examples/chain (read
  // here, not when the module loads: a bundle that never starts a node may have no __dirname).
  const launcher = path.join(__dirname, 'node.cjs');
  const child = spawn(process.execPath, [launcher], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const killGroup = (): void => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  // A process that exits normally ends its node at once, rather than when the pipe's closing reaches it.
  process.once('exit', killGroup);
  const stop = async (): Promise<void> => {
    process.off('exit', killGroup);
    // Waiting for the exit is what keeps this process alive now (the node is unref'd once it is up).
    child.ref();
    killGroup();
    await exited;
  };
  try {
    const rpcUrl = await readyLine(child, () => stderr);
    const pid = child.pid;
    if (pid === undefined) throw new Error("the chain's node has no process id");
    // Nothing of the node keeps this process alive: it ends with it (see above).
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as Socket).unref();
    return { rpcUrl, pid, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The RPC URL the launcher prints once it listens; rejects when it exits first. */
function readyLine(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      try {
        resolve((JSON.parse(line) as { rpcUrl: string }).rpcUrl);
      } catch {
        reject(new Error(`the chain's node printed ${line}`));
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`the chain's node exited (${code ?? signal}) before it listened:\n${stderr()}`)));
  });
}

/** A chain with the token and a facilitator, ready to pay on. */
export interface LocalChain {
  rpcUrl: string;
  chainId: number;
  network: typeof NETWORK;
  /** The token's address (USDC-like, 6 decimals). */
  token: Address;
  /** The facilitator settling on this chain. */
  facilitator: Facilitator;
  /** Where MetaMask's Delegation Framework is (framework.ts): the same on every local chain. */
  framework: FrameworkAddresses;
  /** A viem public client on the chain, for reading it. */
  client: PublicClient;
  /** The node's process id. */
  pid: number;
  /** Mints `usdc` (the token's smallest units) and sends `eth` (wei) to `address`, each mined before it returns. */
  fund(address: Address, amounts: { usdc?: bigint; eth?: bigint }): Promise<void>;
  /** The token balance of `address`, in its smallest units. */
  usdcOf(address: Address): Promise<bigint>;
  stop(): Promise<void>;
}

/** The facilitator's gas: far more than any test or demo spends. */
const FACILITATOR_GAS = parseEther('10');

/** Starts a node, deploys the token and the Delegation Framework on it, and starts a facilitator with a new key and gas. */
export async function startChain(): Promise<LocalChain> {
  const node = await startNode();
  let facilitator: Facilitator | undefined;
  try {
    const chain = localChainDefinition(node.rpcUrl);
    const client = createPublicClient({ chain, transport: localTransport(node.rpcUrl), pollingInterval: 50 });
    const [dev] = await createWalletClient({ chain, transport: localTransport(node.rpcUrl) }).getAddresses();
    if (!dev) throw new Error('the node offers no development account');
    const devWallet = createWalletClient({ account: dev, chain, transport: localTransport(node.rpcUrl), pollingInterval: 50 });
    const mined = async (hash: Promise<Hash>): Promise<void> => {
      const receipt = await client.waitForTransactionReceipt({ hash: await hash });
      if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`);
    };

    const deployed = await client.waitForTransactionReceipt({
      hash: await devWallet.deployContract({ abi: TEST_USDC_ABI, bytecode: TEST_USDC_BYTECODE }),
    });
    if (deployed.contractAddress?.toLowerCase() !== TOKEN.toLowerCase()) {
      throw new Error(`the token was deployed at ${deployed.contractAddress ?? 'no address'}, not ${TOKEN}: the node was not fresh`);
    }
    // Permit2 and x402's upto proxy, at the addresses @x402/evm names (placed.ts): what `upto` settles through.
    await placeUptoContracts((args) => client.request(args as never), CHAIN_ID);
    // The Delegation Framework (framework.ts): the passkey's account and the caveats that cap a mandate on chain.
    const framework = await deployFramework({
      request: (args) => client.request(args as never),
      send: (tx) => mined(devWallet.sendTransaction(tx)),
    });
    const key = generatePrivateKey();
    await mined(devWallet.sendTransaction({ to: privateKeyToAccount(key).address, value: FACILITATOR_GAS }));
    facilitator = await startFacilitator({ rpcUrl: node.rpcUrl, key });

    const usdcOf = (address: Address): Promise<bigint> =>
      client.readContract({ address: TOKEN, abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [address] });
    const started = facilitator;
    return {
      rpcUrl: node.rpcUrl,
      chainId: CHAIN_ID,
      network: NETWORK,
      token: TOKEN,
      facilitator,
      framework,
      client,
      pid: node.pid,
      usdcOf,
      fund: async (address, { usdc = 0n, eth = 0n }) => {
        if (usdc > 0n)
          await mined(devWallet.writeContract({ address: TOKEN, abi: TEST_USDC_ABI, functionName: 'mint', args: [address, usdc] }));
        if (eth > 0n) await mined(devWallet.sendTransaction({ to: address, value: eth }));
      },
      stop: async () => {
        await started.close();
        await node.stop();
      },
    };
  } catch (err) {
    await facilitator?.close();
    await node.stop();
    throw err;
  }
}

let shared: Promise<LocalChain> | undefined;

/**
 * This process's chain, started on first use and shared by everything in the process (a test file's
 * tests, its sellers): one node per process rather than one per seller keeps a test file's cost to one
 * node's start, and keeps the balances a test reads its own file's. It ends with the process.
 */
export function localChain(): Promise<LocalChain> {
  shared ??= startChain();
  return shared;
}

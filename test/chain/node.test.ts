/**
 * The chain's node never outlives what started it: `stop()` ends it; a process that ends without calling
 * it, normally or killed with SIGKILL (no handler of its own runs), takes its node down with it, because
 * the node exits when its standard input's pipe closes. Each case reads the node's pid from the process
 * that started it and waits for that pid to be gone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { startNode } from '../../examples/chain/chain.ts';
import { HANG_MS, ROOT, until } from '../helpers.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const answers = async (rpcUrl: string): Promise<boolean> => {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    return ((await res.json()) as { result?: string }).result === '0x7a69';
  } catch {
    return false;
  }
};

/** A process that starts the process's chain, prints its node's pid and RPC URL, then idles or ends. */
function owner(then: 'idle' | 'end'): { child: ReturnType<typeof spawn>; ready: Promise<{ pid: number; rpcUrl: string }> } {
  const script = `
    const { localChain } = require(${JSON.stringify(path.join(ROOT, 'examples', 'chain', 'chain.ts'))});
    localChain().then((c) => {
      process.stdout.write(JSON.stringify({ pid: c.pid, rpcUrl: c.rpcUrl }) + '\\n');
      ${then === 'idle' ? 'setInterval(() => {}, 1000);' : ''}
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const ready = new Promise<{ pid: number; rpcUrl: string }>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] ?? '') as { pid: number; rpcUrl: string });
    });
    child.once('exit', (code) => reject(new Error(`the owner exited (${code}) before its chain was ready`)));
  });
  return { child, ready };
}

describe("the chain's node and its owner", { timeout: HANG_MS, concurrency: true }, () => {
  test('stop() ends the node and its group', async () => {
    const node = await startNode();
    assert.equal(await answers(node.rpcUrl), true, 'a real node answers eth_chainId with 31337');
    await node.stop();
    assert.equal(alive(node.pid), false);
    assert.equal(await answers(node.rpcUrl), false);
  });

  test('an owner killed with SIGKILL takes its node down', async () => {
    const { child, ready } = owner('idle');
    const { pid, rpcUrl } = await ready;
    assert.equal(await answers(rpcUrl), true);
    child.kill('SIGKILL');
    await until(() => !alive(pid), `node ${pid} to exit after its owner was killed`, 60_000);
    assert.equal(await answers(rpcUrl), false);
  });

  test('an owner that ends without stopping its chain does not wait for it, and its node ends too', async () => {
    const { child, ready } = owner('end');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const { pid } = await ready;
    assert.equal(await exited, 0, 'nothing of the chain keeps its owner alive');
    await until(() => !alive(pid), `node ${pid} to exit after its owner ended`, 60_000);
  });
});

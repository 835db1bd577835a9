const root = process.argv[2];
const { holonInMemory, seedState, CALL_ARGS, TempDirs } = await import(root + '/bench/world.ts');
const dirs = new TempDirs();
const dir = dirs.make('hot');
await seedState(dir);
const h = await holonInMemory(dir);
const call = async () => { const r = await h.client.callTool({ name: 'call_agent', arguments: CALL_ARGS }); if (r.structuredContent?.status !== 'succeeded') throw new Error(JSON.stringify(r.content)); };
for (let i = 0; i < 50; i++) await call();
const xs = [];
for (let i = 0; i < 3000; i++) { const t = performance.now(); await call(); xs.push(performance.now() - t); }
xs.sort((a, b) => a - b);
console.log(root, 'median', xs[1500].toFixed(2), 'p90', xs[2700].toFixed(2));
await h.close(); dirs.removeAll(); process.exit(0);

// Two or more builds of the stdio gateway side by side: the official MCP
// SDK's stdio client (1.32) calls server-filesystem's read_text_file
// directly and through `toolgate mcp` of each build, with an empty
// manifest and with the sample filesystem policy (each build with its own
// plugins), round by round interleaved, so a change in the machine's speed
// touches every case alike.  For measuring a change to the gateway or the
// plugins against the build before it (README "The MCP gateway, with a
// real client").  Wall clock, p50.
//
// usage: node tests/bench/mcp_stdio_compare.mjs NODE_MODULES ROUNDS BUILD_DIR...
//   NODE_MODULES: a folder where tests/mcp's package-lock.json is installed
//   BUILD_DIR: Release build trees (host/toolgate and plugins/ in each),
//              for instance build/bench and a worktree's build/bench
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [nodeModules, roundsArg, ...builds] = process.argv.slice(2);
if (!nodeModules || !roundsArg || builds.length === 0) {
  console.error('usage: node mcp_stdio_compare.mjs NODE_MODULES ROUNDS BUILD_DIR...');
  process.exit(2);
}
const rounds = Number(roundsArg);
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const sdk = (p) => import(pathToFileURL(path.resolve(nodeModules, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const fsServer = path.resolve(nodeModules, '@modelcontextprotocol/server-filesystem/dist/index.js');

const work = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tg-mcp-stdio-compare-')));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const root = path.join(work, 'project');
mkdirSync(root);
const file = path.join(root, 'notes.txt');
writeFileSync(file, 'hello from the benchmark\n');
const empty = path.join(work, 'empty.json');
writeFileSync(empty, JSON.stringify({ toolgate: 1, plugins: [] }));
const sample = readFileSync(path.join(repo, 'samples/manifests/mcp-filesystem.json'), 'utf8');

async function connect(command, args) {
  const transport = new StdioClientTransport({ command, args, stderr: 'ignore' });
  const client = new Client({ name: 'toolgate-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
const node = process.execPath;
const cases = { direct: await connect(node, [fsServer, root]) };
for (const [i, build] of builds.entries()) {
  const toolgate = path.resolve(build, 'host', 'toolgate');
  const policy = path.join(work, `policy-${i}.json`);
  writeFileSync(policy, sample.replaceAll('/home/me/project', root)
    .replaceAll('../../plugins/', path.resolve(build, 'plugins') + '/'));
  cases[`${build}, empty manifest`] = await connect(toolgate, ['mcp', empty, '--', node, fsServer, root]);
  cases[`${build}, sample policy`] = await connect(toolgate, ['mcp', policy, '--', node, fsServer, root]);
}

const call = (c) => c.callTool({ name: 'read_text_file', arguments: { path: file } });
for (const [name, c] of Object.entries(cases)) {
  const r = await call(c);
  if (r.isError || !JSON.stringify(r.content).includes('hello from the benchmark'))
    throw new Error(`${name}: the read failed: ${JSON.stringify(r)}`);
}
for (let i = 0; i < 200; ++i) for (const c of Object.values(cases)) await call(c);
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; ++r)
  for (const [name, c] of Object.entries(cases)) {
    const t = process.hrtime.bigint();
    await call(c);
    times[name].push(Number(process.hrtime.bigint() - t) / 1000);
  }
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(times.direct);
console.log(`tools/call read_text_file, SDK stdio client, ${rounds} interleaved rounds (p50, wall clock):`);
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  console.log(`  ${name.padEnd(48)} ${m.toFixed(1).padStart(8)} µs  ${name === 'direct' ? 'baseline' : `+${(m - base).toFixed(1)} µs`}`);
}
for (const c of Object.values(cases)) await c.close();

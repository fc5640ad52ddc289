// Two or more builds of `toolgate mcp --listen` side by side: the same
// HTTP MCP server (the official SDK 2.x server, tests/mcp/http-servers.mjs)
// called directly and through a gateway from each binary, round by round
// interleaved, so a change in the machine's speed touches every case
// alike.  For measuring a change to the HTTP path against the build before
// it (README "The MCP gateway over HTTP").  Wall clock, p50.
//
// usage: node tests/bench/mcp_http_compare.mjs NODE_MODULES ROUNDS TOOLGATE...
//   NODE_MODULES: a folder where tests/mcp's package-lock.json is installed
//   TOOLGATE: toolgate binaries (Release builds), copied aside before a rebuild
import { copyFileSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callAdd, start } from './mcp_http_support.mjs';

const [nodeModules, roundsArg, ...binaries] = process.argv.slice(2);
if (!nodeModules || !roundsArg || binaries.length === 0) {
  console.error('usage: node mcp_http_compare.mjs NODE_MODULES ROUNDS TOOLGATE...');
  process.exit(2);
}
const rounds = Number(roundsArg);
const here = path.dirname(fileURLToPath(import.meta.url));
const work = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tg-mcp-http-compare-')));
symlinkSync(path.resolve(nodeModules), path.join(work, 'node_modules'), 'dir');
copyFileSync(path.join(here, '..', 'mcp', 'http-servers.mjs'), path.join(work, 'http-servers.mjs'));
const empty = path.join(work, 'empty.json');
writeFileSync(empty, JSON.stringify({ toolgate: 1, plugins: [] }));

process.on('exit', () => rmSync(work, { recursive: true, force: true }));

const server = await start(process.execPath, [path.join(work, 'http-servers.mjs'), 'modern'], /listening (\d+)/);
const serverUrl = `http://127.0.0.1:${server.match[1]}/mcp`;
const cases = [['direct', serverUrl]];
for (const b of binaries) {
  const m = await start(path.resolve(b), ['mcp', '--listen', '127.0.0.1:0', empty, '--', serverUrl], /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
  cases.push([b, m.match[1]]);
}

const call = callAdd;

for (let i = 0; i < 200; ++i) for (const [, url] of cases) await call(url);
const times = cases.map(() => []);
for (let r = 0; r < rounds; ++r) {
  for (let i = 0; i < cases.length; ++i) {
    const t = process.hrtime.bigint();
    await call(cases[i][1]);
    times[i].push(Number(process.hrtime.bigint() - t) / 1000);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(times[0]);
console.log(`tools/call add over HTTP, ${rounds} interleaved rounds (wall clock, p50):`);
cases.forEach(([name], i) => {
  const p50 = median(times[i]);
  console.log(`  ${name.padEnd(48)} ${p50.toFixed(1).padStart(8)} µs  ${i ? `added +${(p50 - base).toFixed(1)} µs` : 'baseline'}`);
});
process.exit(0);

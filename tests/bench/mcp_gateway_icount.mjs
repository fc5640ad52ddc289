// What the stdio gateway's own code costs per tools/call, counted in
// instructions (callgrind), the figure that does not move with a shared
// VM's speed -- the latency bench (mcp_sdk_latency.mjs) measures wall
// clock, where this VM's pipe wake-ups dominate and move by 2x in an hour.
//
// The official SDK's stdio client (1.32) calls server-filesystem's
// read_text_file through `valgrind --tool=callgrind toolgate mcp ...`
// (the gateway only: valgrind does not follow the server it starts).  Each
// case runs twice, with SHORT and LONG calls after the same warm-up; the
// figure is the difference of the two runs' instructions (and
// allocations: calls of malloc) over the difference of
// their calls, so start-up, the tools/list and the warm-up cancel out.
//
// usage: node tests/bench/mcp_gateway_icount.mjs BUILD_DIR NODE_MODULES [SHORT LONG [KEEP_DIR]]
//   BUILD_DIR: build/bench (toolgate and the plugins, Release)
//   NODE_MODULES: where tests/mcp's package-lock.json is installed
//                 (ctest's mcp.npm_ci puts one in BUILD/tests/mcp/node_modules)
//   KEEP_DIR: where to keep the callgrind files (empty.short.cg, ...,
//             policy.long.cg) for a per-function look with callgrind_annotate
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { benchProject, checkRead, connect, loadSdk, samplePolicy } from './mcp_stdio_support.mjs';

const [build, nodeModules, shortArg, longArg, keepDir] = process.argv.slice(2);
if (!build || !nodeModules) {
  console.error('usage: node mcp_gateway_icount.mjs BUILD_DIR NODE_MODULES [SHORT LONG]');
  process.exit(2);
}
const short = Number(shortArg ?? 300), long = Number(longArg ?? 1300);
if (!(long > short && short >= 0)) {
  console.error('LONG must be larger than SHORT');
  process.exit(2);
}
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}
const toolgate = path.resolve(build, 'host', 'toolgate');
const sdk = await loadSdk(nodeModules);
const project = benchProject('tg-mcp-icount-');
const manifests = {
  'empty manifest': project.empty,
  'the sample filesystem policy': samplePolicy(project, path.resolve(build, 'plugins')),
};

// One valgrind run: `calls` read_text_file calls after a warm-up of 20.
async function run(name, manifest, calls, out) {
  rmSync(out, { force: true });  // a kept file from an earlier run is not this run's
  const client = await connect(sdk, 'valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`,
    toolgate, 'mcp', manifest, '--', process.execPath, sdk.fsServer, project.root]);
  for (let i = 0; i < 20 + calls; ++i) await checkRead(client, project, name);
  await client.close();
  // callgrind writes its file as the gateway exits.
  for (let i = 0; i < 100; ++i) {
    try {
      const text = readFileSync(out, 'utf8');
      if (/^totals: \d+/m.test(text)) return text;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`callgrind wrote no totals to ${out}`);
}

// Total instructions, and calls of malloc.
function counts(text) {
  const total = Number(text.match(/^totals: (\d+)/m)[1]);
  const ids = [];
  // operator new calls malloc: malloc's calls count every allocation once.
  for (const m of text.matchAll(/^c?fn=\((\d+)\) malloc$/gm)) ids.push(m[1]);
  let allocs = 0;
  for (const id of new Set(ids))
    for (const m of text.matchAll(new RegExp(`^cfn=\\(${id}\\).*\\ncalls=(\\d+)`, 'gm'))) allocs += Number(m[1]);
  return { total, allocs };
}

console.log(`\n| gateway's own work per tools/call (callgrind, ${long} - ${short} calls) | instructions | allocations |\n|---|---|---|`);
for (const [name, manifest] of Object.entries(manifests)) {
  const where = keepDir ? path.resolve(keepDir) : project.work;
  const prefix = keepDir ? (name === 'empty manifest' ? 'empty.' : 'policy.') : '';
  const a = counts(await run(name, manifest, short, path.join(where, `${prefix}short.cg`)));
  const b = counts(await run(name, manifest, long, path.join(where, `${prefix}long.cg`)));
  const n = long - short;
  const per = (x, y) => Math.round((y - x) / n).toLocaleString('en-US');
  console.log(`| ${name} | ${per(a.total, b.total)} | ${per(a.allocs, b.allocs)} |`);
}

// A small MCP server (official SDK, stdio) for the gateway's end-to-end
// tests: slow calls that notice cancellation, progress, a crash mid-call,
// and a server-initiated elicitation.  With TG_TEST_LOG set, it appends one
// line per event the tests check ("cancelled sleep 1", "started sleep 1").
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { appendFileSync } from 'node:fs';
import { z } from 'zod';

const log = (line) => {
  if (process.env.TG_TEST_LOG) appendFileSync(process.env.TG_TEST_LOG, line + '\n');
};

const server = new McpServer({ name: 'toolgate-test-server', version: '1.0.0' }, {
  capabilities: { tasks: { requests: { tools: { call: {} } }, cancel: {} } },
  taskStore: new InMemoryTaskStore(),
  taskMessageQueue: new InMemoryTaskMessageQueue(),
});

// A tool that runs only as a task (2025-11-25): after `ms` it stores a
// report that quotes `secret`, unless the task was cancelled first.
server.experimental.tasks.registerToolTask('report', {
  description: 'Writes a report in the background (a task)',
  inputSchema: { ms: z.number(), secret: z.string(), id: z.string() },
  annotations: { readOnlyHint: true, openWorldHint: false },
  execution: { taskSupport: 'required' },
}, {
  async createTask({ ms, secret, id }, { taskStore, taskRequestedTtl }) {
    const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? 60000 });
    log(`task started ${id}`);
    const end = Date.now() + ms;
    const tick = async () => {
      const now = await taskStore.getTask(task.taskId);
      if (now?.status === 'cancelled') return log(`task cancelled ${id}`);
      if (Date.now() < end) return setTimeout(tick, 20);
      await taskStore.storeTaskResult(task.taskId, 'completed', {
        content: [{ type: 'text', text: `report ${id}: key ${secret}` }],
      });
      log(`task done ${id}`);
    };
    setTimeout(tick, 20);
    return { task };
  },
  async getTask(_args, { taskId, taskStore }) { return taskStore.getTask(taskId); },
  async getTaskResult(_args, { taskId, taskStore }) { return taskStore.getTaskResult(taskId); },
});

server.registerTool('echo', {
  description: 'Echoes its arguments after an optional delay, as text and structuredContent',
  inputSchema: { tag: z.string(), delay_ms: z.number().optional() },
  outputSchema: { tag: z.string() },
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ tag, delay_ms }) => {
  if (delay_ms) await new Promise((r) => setTimeout(r, delay_ms));
  return { content: [{ type: 'text', text: `echo ${tag}` }], structuredContent: { tag } };
});

// Sleeps ms milliseconds unless cancelled; logs start and cancellation.
const sleep = (name) => async ({ ms, id }, extra) => {
  log(`started ${name} ${id}`);
  await new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    extra.signal.addEventListener('abort', () => {
      clearTimeout(t);
      log(`cancelled ${name} ${id}`);
      resolve();
    });
  });
  return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
};
for (const name of ['sleep', 'sleep_limited'])
  server.registerTool(name, {
    description: 'Sleeps, noticing cancellation',
    inputSchema: { ms: z.number(), id: z.string() },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, sleep(name));

server.registerTool('progress', {
  description: 'Reports progress three times',
  inputSchema: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async (_args, extra) => {
  const token = extra._meta?.progressToken;
  for (let i = 1; i <= 3; i++) {
    if (token !== undefined)
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
    await new Promise((r) => setTimeout(r, 10));
  }
  return { content: [{ type: 'text', text: 'done' }] };
});

// Names a path and does nothing with it: what reaches it is the guards' decision alone.
server.registerTool('look', {
  description: 'Says which path it was given',
  inputSchema: { path: z.string() },
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ path }) => ({ content: [{ type: 'text', text: `looked at ${path}` }] }));

server.registerTool('fail', {
  description: 'Always reports a tool error',
  inputSchema: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async () => ({ content: [{ type: 'text', text: 'the test server failed on purpose' }], isError: true }));

server.registerTool('huge', {
  description: 'Answers with a text of the given number of bytes',
  inputSchema: { bytes: z.number() },
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }));

server.registerTool('crash', {
  description: 'Exits the server with status 3 in the middle of the call',
  inputSchema: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async () => {
  setTimeout(() => process.exit(3), 50);
  await new Promise(() => {});
});

server.registerTool('confirm', {
  description: 'Asks the client through a server-initiated elicitation/create',
  inputSchema: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
}, async () => {
  const r = await server.server.elicitInput({
    message: 'the test server asks',
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  });
  return { content: [{ type: 'text', text: `client said ${r.action}` }] };
});

await server.connect(new StdioServerTransport());

// The official SDK 2.x server (@modelcontextprotocol/server) on stdio,
// served the dual-era way its docs show (serveStdio: the opening message
// picks the era), so it answers the gateway's server/discover probe and is
// spoken to in MCP 2026-07-28.  (A bare StdioServerTransport speaks 2025
// only and answers the probe -32601.)  One tool, "add"; with TG_TEST_LOG
// set, "executed add A B" per call.  Needs Node.js >= 20.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { appendFileSync } from 'node:fs';
import { z } from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'toolgate-sdk2-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('add', {
    description: 'Adds two numbers',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
  }, async ({ a, b }) => {
    if (process.env.TG_TEST_LOG) appendFileSync(process.env.TG_TEST_LOG, `executed add ${a} ${b}\n`);
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  return server;
});

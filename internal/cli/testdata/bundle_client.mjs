// Starts an unpacked MCP Bundle the way Claude Desktop does — the command,
// arguments and environment the @anthropic-ai/mcpb toolchain computes from
// its manifest for this platform and the user's settings — and questions it
// over stdio with the official TypeScript SDK client. It prints one JSON
// object with what it saw.
import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const dir = process.env.BUNDLE_DIR;
const userConfig = JSON.parse(process.env.USER_CONFIG);
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const config = await getMcpConfigForManifest({ manifest, extensionPath: dir, systemDirs: {}, userConfig, pathSeparator: sep });
if (!config) throw new Error('the manifest\'s required settings are missing from USER_CONFIG');

const transport = new StdioClientTransport({
  command: config.command,
  args: config.args,
  env: { ...config.env, PATH: process.env.PATH },
  stderr: 'inherit',
});
const client = new Client({ name: 'bundle-client', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: 'get_forecast', arguments: { city: 'Lisbon' } });
console.log(JSON.stringify({
  config: { command: config.command, args: config.args, env: config.env },
  serverInfo: client.getServerVersion(),
  tools: tools.map((t) => ({ name: t.name, title: t.title, description: t.description })),
  result: result.structuredContent,
  isError: result.isError ?? false,
}));
await client.close();

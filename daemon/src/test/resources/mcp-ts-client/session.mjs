// One MCP session with `memoryd mcp` through the official TypeScript SDK client: a client memoryd
// did not write. Usage: node session.mjs <command> [args...] (the server's command line). Prints
// one JSON object of what it saw on stdout; the Java test asserts on it. Any protocol error
// (including a tool result that does not match its tool's outputSchema, which this client checks)
// ends the script with exit code 1 and the error on stderr.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
const OVERVIEW = 'users/sam/overview.md';
const T1 = '00000000-0000-4000-8000-0000000000a1';
const T2 = '00000000-0000-4000-8000-0000000000a2';

function turn(id, parent) {
  return {
    id, role: 'user', phase: 'planning', salience: 0.5, trajectory_depth: parent ? 1 : 0,
    trajectory_sibling_order: 0, trajectory_homogeneity: 0.5, trajectory_temporal: 0.5,
    trajectory_complexity: 1.0, created_at: '2026-01-01T00:00:0' + (parent ? '1' : '0') + 'Z',
    ...(parent ? { parents: [{ id: parent, edge_type: 'reply' }] } : {}),
  };
}

const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
const client = new Client({ name: 'ts-sdk-e2e', version: '1.0.0' });
await client.connect(transport);
const out = {
  server: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
};

const tools = (await client.listTools()).tools;
out.tools = tools.map(t => t.name);
out.writeTool = tools.find(t => t.name === 'write');

const call = (name, args) => client.callTool({ name, arguments: args });
out.guide = await call('guide', {});
const before = await call('read', { path: OVERVIEW, section: 'Active Themes' });
out.before = before.structuredContent;
out.write = await call('write', {
  rationale: 'the user said whistling calms them',
  ops: [{ op: 'append_item', path: OVERVIEW, section: 'Active Themes', item: 'Whistling when anxious',
    before_hash: before.structuredContent.hash }],
});
out.after = (await call('read', { path: OVERVIEW, section: 'active-themes' })).structuredContent;
out.search = (await call('search', { q: 'whistling' })).structuredContent;
out.append = await call('conversation_append', { session_id: 'ts-e2e', turns: [turn(T1), turn(T2, T1)] });
out.context = (await call('context', { anchor_turn_id: T2 })).structuredContent;
out.conflict = await call('write', {
  rationale: 'a second thought on the old text',
  ops: [{ op: 'append_item', path: OVERVIEW, section: 'Active Themes', item: 'Humming',
    before_hash: before.structuredContent.hash }],
});
out.resources = (await client.listResources()).resources;
out.resource = (await client.readResource({ uri: 'memoryd://' + OVERVIEW })).contents;

await client.close();
process.stdout.write(JSON.stringify(out) + '\n');

// client.mjs drives an MCP server (weft, in weft's tests) with the official
// TypeScript SDK, over Streamable HTTP or stdio, the way a real TypeScript
// client does, and prints one JSON summary on stdout. Diagnostics go to
// stderr.
//
//   node client.mjs URL                       # Streamable HTTP
//   node client.mjs --stdio COMMAND [ARG...]  # stdio: starts COMMAND
//
// The SDK is resolved from testdata/npm (or $WEFT_NPM_DIR): the fixture that
// `npm ci --prefix testdata/npm` installs.
//
// It lists tools, resources, resource templates and prompts (every page),
// sets the logging level to debug, then calls every tool that needs no human
// (sampling, elicitation and roots requests are answered with the canned
// values below), reads every resource and one instance of every template, and
// gets every prompt with its required arguments filled (from completions when
// the server offers them). The long-running tool is called with a progress
// callback.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = process.env.WEFT_NPM_DIR ?? path.resolve(here, "..", "npm");

// importSDK imports a subpath of @modelcontextprotocol/sdk from npmDir,
// following the package's "exports" map with the "import" condition (ESM
// resolution does not search NODE_PATH, and the script lives outside npmDir).
async function importSDK(sub) {
  const pkgDir = path.join(npmDir, "node_modules", "@modelcontextprotocol", "sdk");
  const pkgJSON = path.join(pkgDir, "package.json");
  const exportsMap = JSON.parse(readFileSync(pkgJSON, "utf8")).exports;
  const key = "./" + sub;
  let target = exportsMap[key]?.import;
  if (!target && exportsMap["./*"]) {
    target = exportsMap["./*"].import.replace("*", sub);
  }
  if (!target) {
    throw new Error(`cannot resolve @modelcontextprotocol/sdk/${sub}`);
  }
  return import(pathToFileURL(path.join(pkgDir, target)).href);
}

const { Client } = await importSDK("client/index.js");
const { StreamableHTTPClientTransport } = await importSDK("client/streamableHttp.js");
const { StdioClientTransport } = await importSDK("client/stdio.js");
const types = await importSDK("types.js");

// Canned answers to the server's requests; the test looks for these.
const SAMPLED = "tsclient-sampled";
const ELICITED = "tsclient-elicited";
const ROOT = { uri: "file:///tmp/tsclient-root", name: "tsclient-root" };

// Tools that cannot be called with a plain tools/call, with the reason.
const SKIP = {
  "simulate-research-query": "requires task-augmented execution (taskSupport: required)",
};

// Arguments for tools whose required inputs need more than a placeholder, by
// the upstream's own tool name.
const ARGS = {
  echo: { message: "hello from tsclient" },
  "get-sum": { a: 2, b: 3 },
  "get-annotated-message": { messageType: "success" },
  "gzip-file-as-resource": { name: "tsclient.txt.gz", data: "data:text/plain;base64,aGVsbG8gd2VmdA==", outputType: "resource" },
  "trigger-long-running-operation": { duration: 0.5, steps: 5 },
  "trigger-sampling-request": { prompt: "What is 2+2?", maxTokens: 10 },
  "trigger-url-elicitation": { url: "https://example.com/tsclient" },
  "get-resource-reference": { resourceType: "Text", resourceId: 1 },
  "get-structured-content": { location: "New York" },
};

const target = process.argv.slice(2);
if (!target.length || (target[0] === "--stdio" && target.length < 2)) {
  console.error("usage: node client.mjs URL | node client.mjs --stdio COMMAND [ARG...]");
  process.exit(2);
}

// transport connects to a URL, or starts a command and speaks over its
// stdin/stdout; the command inherits this process's whole environment (the
// test sets HOME and the config) and its stderr.
function transport() {
  if (target[0] === "--stdio") {
    return new StdioClientTransport({ command: target[1], args: target.slice(2), env: process.env, stderr: "inherit" });
  }
  return new StreamableHTTPClientTransport(new URL(target[0]));
}

const summary = {
  server: null,
  protocolVersion: null,
  tools: [],
  resources: [],
  templates: [],
  prompts: [],
  calls: {},
  skipped: {},
  reads: {},
  prompt_gets: {},
  completions: 0,
  progress: { tool: null, notifications: 0, last: null, total: null },
  sampling: 0,
  elicitation: { form: 0, url: 0 },
  roots: 0,
  logs: [],
  errors: [],
};

const client = new Client(
  { name: "weft-tsclient", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } } },
);

client.setRequestHandler(types.CreateMessageRequestSchema, async () => {
  summary.sampling++;
  return { role: "assistant", model: "tsclient-model", stopReason: "endTurn", content: { type: "text", text: SAMPLED } };
});

client.setRequestHandler(types.ElicitRequestSchema, async (req) => {
  if (req.params.mode === "url") {
    summary.elicitation.url++;
    return { action: "accept" };
  }
  summary.elicitation.form++;
  return { action: "accept", content: fillObject(req.params.requestedSchema, ELICITED) };
});

client.setRequestHandler(types.ListRootsRequestSchema, async () => {
  summary.roots++;
  return { roots: [ROOT] };
});

// weft answers before its upstreams are up and announces their tools with
// list_changed: upstreamTools waits for them.
let toolsChanged = () => {};
client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => toolsChanged());

async function upstreamTools() {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const changed = new Promise((resolve) => { toolsChanged = resolve; });
    const tools = await all((p) => client.listTools(p), "tools");
    if (tools.some((t) => !t.name.startsWith("weft__") && t.name !== "mcp_manage") || Date.now() > deadline) return tools;
    await Promise.race([changed, new Promise((resolve) => setTimeout(resolve, 1000))]);
  }
}

client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => {
  summary.logs.push({ level: n.params.level, logger: n.params.logger ?? null, data: n.params.data });
});

// placeholder returns a value valid for a JSON schema of a simple type.
function placeholder(schema, text) {
  if (!schema || typeof schema !== "object") return text;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (Array.isArray(schema.oneOf) && schema.oneOf[0]?.const !== undefined) return schema.oneOf[0].const;
  switch (schema.type) {
    case "number":
    case "integer":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return fillObject(schema, text);
  }
  switch (schema.format) {
    case "email":
      return "tsclient@example.com";
    case "uri":
    case "url":
      return "https://example.com/";
    case "date":
      return "2000-01-01";
  }
  return text;
}

// fillObject fills the required properties of an object schema.
function fillObject(schema, text) {
  const out = {};
  for (const name of schema?.required ?? []) {
    out[name] = placeholder(schema.properties?.[name], text);
  }
  return out;
}

async function all(list, key) {
  const items = [];
  let cursor;
  do {
    const page = await list(cursor ? { cursor } : undefined);
    items.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

function textOf(result) {
  return (result.content ?? [])
    .map((c) => (c.type === "text" ? c.text : `[${c.type}]`))
    .join("\n")
    .slice(0, 2000);
}

function errorText(err) {
  return err instanceof Error ? err.message : String(err);
}

async function callTool(tool) {
  const original = tool.name.includes("__") ? tool.name.slice(tool.name.indexOf("__") + 2) : tool.name;
  if (SKIP[original]) {
    summary.skipped[tool.name] = SKIP[original];
    return;
  }
  const args = ARGS[original] ?? fillObject(tool.inputSchema, "tsclient");
  const options = { timeout: 60_000 };
  if (original === "trigger-long-running-operation") {
    summary.progress.tool = tool.name;
    options.onprogress = (p) => {
      summary.progress.notifications++;
      summary.progress.last = p.progress;
      summary.progress.total = p.total ?? null;
    };
  }
  try {
    const res = await client.callTool({ name: tool.name, arguments: args }, undefined, options);
    summary.calls[tool.name] = { ok: !res.isError, isError: !!res.isError, text: textOf(res) };
  } catch (err) {
    summary.calls[tool.name] = { ok: false, error: errorText(err) };
  }
}

// promptArgs fills a prompt's required arguments, asking the server for
// completions first.
async function promptArgs(prompt) {
  const args = {};
  for (const arg of prompt.arguments ?? []) {
    if (!arg.required) continue;
    let value = "1";
    try {
      const res = await client.complete({
        ref: { type: "ref/prompt", name: prompt.name },
        argument: { name: arg.name, value: "" },
        context: { arguments: { ...args } },
      });
      summary.completions++;
      if (res.completion.values.length) value = res.completion.values[0];
    } catch (err) {
      console.error(`complete ${prompt.name}.${arg.name}: ${errorText(err)}`);
    }
    args[arg.name] = value;
  }
  return args;
}

async function main() {
  const t = transport();
  await client.connect(t);
  summary.server = client.getServerVersion()?.name ?? null;
  summary.protocolVersion = t.protocolVersion ?? null;
  await client.setLoggingLevel("debug");

  const tools = await upstreamTools();
  summary.tools = tools.map((t) => t.name);
  summary.resources = (await all((p) => client.listResources(p), "resources")).map((r) => r.uri);
  summary.templates = (await all((p) => client.listResourceTemplates(p), "resourceTemplates")).map((t) => t.uriTemplate);
  const prompts = await all((p) => client.listPrompts(p), "prompts");
  summary.prompts = prompts.map((p) => p.name);

  for (const tool of tools) {
    if (tool.name.startsWith("weft__")) continue; // weft's own tools are not under test here
    await callTool(tool);
  }
  const uris = [...summary.resources, ...summary.templates.map((t) => t.replace(/\{[^}]*\}/g, "1"))];
  for (const uri of uris) {
    try {
      const res = await client.readResource({ uri });
      summary.reads[uri] = { ok: res.contents.length > 0, contents: res.contents.length };
    } catch (err) {
      summary.reads[uri] = { ok: false, error: errorText(err) };
    }
  }
  for (const prompt of prompts) {
    const args = await promptArgs(prompt);
    try {
      const res = await client.getPrompt({ name: prompt.name, arguments: args });
      summary.prompt_gets[prompt.name] = { ok: res.messages.length > 0, messages: res.messages.length, arguments: args };
    } catch (err) {
      summary.prompt_gets[prompt.name] = { ok: false, error: errorText(err), arguments: args };
    }
  }
  await client.close();
}

try {
  await main();
} catch (err) {
  summary.errors.push(errorText(err));
}
process.stdout.write(JSON.stringify(summary) + "\n");
process.exit(summary.errors.length ? 1 : 0);

// oauth.mjs logs in to an OAuth-protected MCP server (weft's face, in weft's
// tests) with the official TypeScript SDK's OAuth client, then calls one
// tool, and prints one JSON summary on stdout. Diagnostics go to stderr.
//
//   node oauth.mjs URL TOOL [JSON_ARGUMENTS]
//
// The SDK does everything a real client does: the first request gets a 401
// naming the protected-resource metadata; the SDK reads it and the
// authorization server's metadata, registers itself (dynamic client
// registration), and sends the user agent to the authorization URL with a
// PKCE challenge and the resource indicator. Here the "browser" is fetch,
// following redirects with a cookie jar until the authorization server sends
// it to the redirect URI; the code found there goes to finishAuth (the token
// request), and the second connection carries the token.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const npmDir = process.env.WEFT_NPM_DIR ?? path.resolve(here, "..", "npm");

// importSDK imports a subpath of @modelcontextprotocol/sdk from npmDir (see
// client.mjs: ESM resolution does not search NODE_PATH).
async function importSDK(sub) {
  const pkgDir = path.join(npmDir, "node_modules", "@modelcontextprotocol", "sdk");
  const exportsMap = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")).exports;
  let target = exportsMap["./" + sub]?.import;
  if (!target && exportsMap["./*"]) target = exportsMap["./*"].import.replace("*", sub);
  if (!target) throw new Error(`cannot resolve @modelcontextprotocol/sdk/${sub}`);
  return import(pathToFileURL(path.join(pkgDir, target)).href);
}

const { Client } = await importSDK("client/index.js");
const { StreamableHTTPClientTransport } = await importSDK("client/streamableHttp.js");
const { UnauthorizedError } = await importSDK("client/auth.js");

const [serverURL, tool, rawArgs] = process.argv.slice(2);
if (!serverURL || !tool) {
  console.error("usage: node oauth.mjs URL TOOL [JSON_ARGUMENTS]");
  process.exit(2);
}
// Never contacted: the browser stops at this URL and hands the code over.
const REDIRECT = "http://127.0.0.1:1/callback";

const summary = { challenged: false, registered: false, authorized: false, token: false, call: null, errors: [] };

// browse follows the authorization server's redirects like a browser that
// keeps cookies (the login and consent steps are sessions), and returns the
// code once a redirect points at REDIRECT.
async function browse(url) {
  const jar = new Map();
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      redirect: "manual",
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    const loc = res.headers.get("location");
    if (!loc) throw new Error(`the authorization server stopped at ${url} with ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const next = new URL(loc, url);
    if (next.href.startsWith(REDIRECT)) {
      const err = next.searchParams.get("error");
      if (err) throw new Error(`authorization denied: ${err} ${next.searchParams.get("error_description") ?? ""}`);
      return next.searchParams.get("code");
    }
    url = next.href;
  }
  throw new Error("too many redirects");
}

// provider keeps the registration, the PKCE verifier and the tokens in
// memory, as a short-lived client does.
let client_info, tokens, verifier, code;
const provider = {
  get redirectUrl() { return REDIRECT; },
  get clientMetadata() {
    return {
      client_name: "weft-tsclient",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    };
  },
  clientInformation: () => client_info,
  saveClientInformation: (info) => { client_info = info; summary.registered = !!info.client_id; },
  tokens: () => tokens,
  saveTokens: (t) => { tokens = t; summary.token = !!t.access_token; },
  saveCodeVerifier: (v) => { verifier = v; },
  codeVerifier: () => verifier,
  redirectToAuthorization: async (url) => {
    summary.challenged = true;
    code = await browse(url.href);
    summary.authorized = !!code;
  },
};

async function main() {
  const first = new StreamableHTTPClientTransport(new URL(serverURL), { authProvider: provider });
  const client = new Client({ name: "weft-tsclient-oauth", version: "1.0.0" });
  try {
    await client.connect(first);
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || !code) throw err;
    await first.finishAuth(code);
  }
  if (!tokens) throw new Error("no token after the authorization flow");
  const transport = new StreamableHTTPClientTransport(new URL(serverURL), { authProvider: provider });
  const session = new Client({ name: "weft-tsclient-oauth", version: "1.0.0" });
  await session.connect(transport);
  const res = await session.callTool({ name: tool, arguments: rawArgs ? JSON.parse(rawArgs) : {} });
  summary.call = {
    isError: !!res.isError,
    text: (res.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n"),
  };
  await session.close();
}

try {
  await main();
} catch (err) {
  summary.errors.push(err instanceof Error ? err.message : String(err));
}
process.stdout.write(JSON.stringify(summary) + "\n");
process.exit(summary.errors.length ? 1 : 0);

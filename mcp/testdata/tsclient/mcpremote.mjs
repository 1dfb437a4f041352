// Runs mcp-remote (the stdio-to-HTTP bridge many desktop MCP clients use)
// against an MCP URL that needs OAuth, the way a desktop client does: it
// starts mcp-remote as a child over stdio with the official TypeScript
// SDK's stdio transport and speaks MCP to it. When mcp-remote prints the
// authorization URL, Debian's chromium (playwright-core) plays the user:
// Nextcloud's login, then "Allow access" on the consent page; the code
// comes back to mcp-remote's own loopback callback. It prints one JSON
// object with what it saw.
//
//   node mcpremote.mjs URL --port N --config DIR --user U --password P
//        [--client-metadata-url URL] [--query TEXT] [--chromium PATH]
//        [--corrupt-access-token] [--no-sign-in]
//
// --corrupt-access-token replaces the stored access token before the run
// (so mcp-remote must refresh); --no-sign-in stops at the first
// authorization URL (a run that must sign in again).
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { launchChromium, summary } from "./browser.mjs";

const require = createRequire(import.meta.url);

function parseArgs(argv) {
  const out = { url: "", port: 0, config: "", user: "", password: "", metadataURL: "", query: "zebracorn", chromium: "/usr/bin/chromium", corrupt: false, noSignIn: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--port") out.port = Number(next());
    else if (a === "--config") out.config = next();
    else if (a === "--user") out.user = next();
    else if (a === "--password") out.password = next();
    else if (a === "--client-metadata-url") out.metadataURL = next();
    else if (a === "--query") out.query = next();
    else if (a === "--chromium") out.chromium = next();
    else if (a === "--corrupt-access-token") out.corrupt = true;
    else if (a === "--no-sign-in") out.noSignIn = true;
    else if (!out.url && !a.startsWith("--")) out.url = a;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.url || !out.port || !out.config) throw new Error("usage: node mcpremote.mjs URL --port N --config DIR --user U --password P [...]");
  return out;
}

// corruptAccessToken overwrites the access token mcp-remote stored.
async function corruptAccessToken(config) {
  const dir = path.join(config, "mcp-remote-v1");
  const files = (await readdir(dir)).filter((f) => f.endsWith("_tokens.json"));
  if (files.length === 0) throw new Error(`no stored tokens in ${dir}`);
  for (const f of files) {
    const p = path.join(dir, f);
    const t = JSON.parse(await readFile(p, "utf8"));
    t.access_token = "corrupted-" + t.access_token.slice(0, 8);
    await writeFile(p, JSON.stringify(t));
  }
}

// signIn plays the user: Nextcloud's login, then the consent page, until
// the browser reaches mcp-remote's callback.
async function signIn(args, authorizationUrl, out) {
  const browser = await launchChromium(args.chromium);
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizationUrl);
    await page.waitForSelector("#user", { timeout: 30000 });
    await page.fill("#user", args.user);
    await page.fill("#password", args.password);
    await Promise.all([page.waitForSelector("#consent", { timeout: 30000 }), page.click("#submit")]);
    out.consent = {
      client: await page.textContent("#client-name"),
      clientID: (await page.$("#client-id")) ? await page.textContent("#client-id") : null,
    };
    await page.click("#allow");
    await page.waitForURL(/\/oauth\/callback\?/, { timeout: 30000 });
    out.callbackReached = true;
    out.callbackAt = Date.now();
  } finally {
    await browser.close();
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.corrupt) await corruptAccessToken(args.config);
  const proxy = require.resolve("mcp-remote/dist/proxy.js");
  const remoteArgs = [proxy, args.url, String(args.port)];
  if (args.metadataURL) remoteArgs.push("--client-metadata-url", args.metadataURL);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: remoteArgs,
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: args.config, BROWSER: "true", DISPLAY: "" },
    stderr: "pipe",
  });
  const start = Date.now();
  const out = { authorizationUrls: [], calls: {}, ms: {} };
  const mark = (what) => (out.ms[what] = Date.now() - start);
  let stderr = "";
  let signingIn = null;
  let stopped = null;
  const stop = new Promise((resolve) => (stopped = resolve));
  transport.stderr.on("data", (chunk) => {
    stderr += chunk.toString();
    const m = stderr.match(/Please authorize this client by visiting:\s*\n(\S+)/g);
    if (!m || m.length <= out.authorizationUrls.length) return;
    const url = m[m.length - 1].split(/\s+/).pop();
    out.authorizationUrls.push(url);
    mark("authorizationUrl");
    const clientID = new URL(url).searchParams.get("client_id") || "";
    out.registration = clientID.startsWith("https://") ? "client ID metadata document" : "dynamic registration";
    if (args.noSignIn) {
      stopped();
      return;
    }
    if (!signingIn) signingIn = signIn(args, url, out).catch((err) => (out.signInError = String(err)));
  });
  const client = new Client({ name: "hybridsearch-mcp-remote-e2e", version: "1.0.0" });
  try {
    const connected = client.connect(transport).then(() => "connected");
    let timer;
    const timeout = new Promise((r) => (timer = setTimeout(() => r("timeout"), 150000)));
    const result = await Promise.race([connected, stop.then(() => "stopped"), timeout]);
    clearTimeout(timer);
    out.outcome = result;
    mark(result);
    if (out.callbackAt) out.ms.callback = out.callbackAt - start;
    delete out.callbackAt;
    if (result === "connected") {
      out.browserOpened = out.authorizationUrls.length > 0;
      out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
      out.calls.search = summary(await client.callTool({ name: "nc_semantic_search", arguments: { query: args.query, limit: 5 } }));
      out.calls.status = summary(await client.callTool({ name: "nc_index_status", arguments: {} }));
    }
  } catch (err) {
    out.error = String(err);
  } finally {
    if (signingIn) await signingIn;
    await client.close().catch(() => {});
    await transport.close().catch(() => {});
  }
  mark("closed");
  out.stderrTail = stderr.split("\n").slice(-25).join("\n");
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

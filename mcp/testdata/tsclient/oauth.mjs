// Connects to an MCP URL that needs OAuth the way an MCP client that only
// speaks the MCP authorization spec does: the official TypeScript SDK's
// OAuth client provider discovers the authorization server, registers
// (dynamic registration, or a client ID metadata document with
// --client-metadata-url), and sends "the user" to the authorization URL.
// The user is Debian's chromium driven by playwright-core: it signs in on
// Nextcloud's login page and allows access on the consent page; the code
// comes back to a loopback redirect URI (RFC 8252) served here. Then it
// calls the tools and prints one JSON object with what it saw.
//
//   node oauth.mjs URL --user U --password P [--client-metadata-url URL]
//        [--query TEXT] [--forbidden-id FILE_ID] [--chromium PATH]
//        [--screenshots DIR]
import http from "node:http";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { chromium } from "playwright-core";

function parseArgs(argv) {
  const out = { url: "", user: "", password: "", metadataURL: "", query: "zebracorn", forbiddenId: 0, chromium: "/usr/bin/chromium", screenshots: "" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--user") out.user = next();
    else if (a === "--password") out.password = next();
    else if (a === "--client-metadata-url") out.metadataURL = next();
    else if (a === "--query") out.query = next();
    else if (a === "--forbidden-id") out.forbiddenId = Number(next());
    else if (a === "--chromium") out.chromium = next();
    else if (a === "--screenshots") out.screenshots = next();
    else if (!out.url && !a.startsWith("--")) out.url = a;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.url || !out.user) throw new Error("usage: node oauth.mjs URL --user U --password P [...]");
  return out;
}

// callbackServer listens on a loopback port for the authorization
// response and resolves with its query parameters.
async function callbackServer() {
  let resolve;
  const result = new Promise((r) => (resolve = r));
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://127.0.0.1");
    if (u.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html" }).end("<p id=done>You can close this window.</p>");
    resolve(Object.fromEntries(u.searchParams));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/callback`, result, close: () => server.close() };
}

// MemoryProvider is an OAuthClientProvider that keeps everything in
// memory and records what the SDK did.
class MemoryProvider {
  constructor(redirectUrl, metadataURL) {
    this._redirectUrl = redirectUrl;
    this.clientMetadataUrl = metadataURL || undefined;
    this._state = randomBytes(16).toString("hex");
    this.events = [];
  }
  get redirectUrl() {
    return this._redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: "Hybrid Search e2e (TypeScript SDK)",
      redirect_uris: [this._redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return this._state;
  }
  clientInformation() {
    return this._client;
  }
  saveClientInformation(info) {
    this.events.push("client:" + (info.client_id.startsWith("https://") ? "metadata-document" : "registered"));
    this._client = info;
  }
  tokens() {
    return this._tokens;
  }
  saveTokens(tokens) {
    this.events.push("tokens");
    this._tokens = tokens;
  }
  redirectToAuthorization(url) {
    this.events.push("redirect");
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v) {
    this._verifier = v;
  }
  codeVerifier() {
    return this._verifier;
  }
  saveDiscoveryState(s) {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
}

// signIn plays the user: Nextcloud's login, then the consent page.
async function signIn(args, authorizationUrl, out) {
  const browser = await chromium.launch({
    executablePath: args.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(authorizationUrl.href);
    await page.waitForSelector("#user", { timeout: 15000 });
    out.loginPage = new URL(page.url()).pathname;
    if (args.screenshots) await page.screenshot({ path: `${args.screenshots}/1-login.png` });
    await page.fill("#user", args.user);
    await page.fill("#password", args.password);
    await Promise.all([page.waitForSelector("#consent", { timeout: 15000 }), page.click("#submit")]);
    out.consent = {
      url: page.url(),
      heading: await page.textContent("#heading"),
      client: await page.textContent("#client-name"),
      user: await page.textContent("#user"),
      redirectHost: await page.textContent("#redirect-host"),
      scope: await page.textContent("#scope"),
      clientID: (await page.$("#client-id")) ? await page.textContent("#client-id") : null,
    };
    if (args.screenshots) await page.screenshot({ path: `${args.screenshots}/2-consent.png`, fullPage: true });
    await page.click("#allow");
    try {
      await page.waitForURL(/\/callback\?/, { timeout: 15000 });
    } catch (err) {
      throw new Error(`after "Allow access" the browser is at ${page.url()}: ${(await page.content()).slice(0, 3000)}`);
    }
    if (args.screenshots) await page.screenshot({ path: `${args.screenshots}/3-callback.png` });
  } finally {
    await browser.close();
  }
}

function summary(res) {
  return {
    isError: res.isError === true,
    text: (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
    structuredContent: res.structuredContent ?? null,
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const cb = await callbackServer();
  const provider = new MemoryProvider(cb.url, args.metadataURL);
  const out = { events: provider.events, calls: {} };
  const url = new URL(args.url);
  try {
    let transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    let client = new Client({ name: "hybridsearch-oauth-e2e", version: "1.0.0" });
    try {
      await client.connect(transport);
      out.error = "connected without signing in";
      console.log(JSON.stringify(out));
      return;
    } catch (err) {
      if (!(err instanceof UnauthorizedError) || !provider.authorizationUrl) throw err;
    }
    out.authorizationUrl = provider.authorizationUrl.href;
    out.discovery = {
      authorizationServer: provider.discovery?.authorizationServerUrl ?? null,
      resource: provider.discovery?.resourceMetadata?.resource ?? null,
      issuer: provider.discovery?.authorizationServerMetadata?.issuer ?? null,
    };
    await signIn(args, provider.authorizationUrl, out);
    const params = await cb.result;
    out.callback = { state_ok: params.state === provider.state(), iss: params.iss ?? null, has_code: !!params.code, error: params.error ?? null };
    if (!out.callback.state_ok || !params.code) throw new Error("bad authorization response: " + JSON.stringify(params));
    await transport.finishAuth(params.code);
    out.token = { scope: provider.tokens()?.scope ?? null, has_refresh: !!provider.tokens()?.refresh_token, expires_in: provider.tokens()?.expires_in ?? null };

    transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    client = new Client({ name: "hybridsearch-oauth-e2e", version: "1.0.0" });
    await client.connect(transport);
    out.protocolVersion = transport.protocolVersion ?? null;
    out.tools = (await client.listTools()).tools.map((t) => t.name).sort();
    const search = await client.callTool({ name: "nc_semantic_search", arguments: { query: args.query, limit: 10 } });
    out.calls.search = summary(search);
    if (args.forbiddenId) {
      out.calls.forbidden = summary(await client.callTool({ name: "nc_get_document", arguments: { file_id: args.forbiddenId } }));
    }
    out.calls.status = summary(await client.callTool({ name: "nc_index_status", arguments: {} }));
    await client.close();
  } finally {
    cb.close();
  }
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

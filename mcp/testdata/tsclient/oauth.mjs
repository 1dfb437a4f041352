// Connects to an MCP URL that needs OAuth the way an MCP client that only
// speaks the MCP authorization spec does: the official TypeScript SDK's
// OAuth client provider discovers the authorization server, registers
// (dynamic registration, or a client ID metadata document with
// --client-metadata-url), and sends "the user" to the authorization URL.
// The user is Debian's chromium driven by playwright-core: it signs in on
// Nextcloud's login page and allows access on the consent page; the code
// comes back to a loopback redirect URI (RFC 8252) served here. Then it
// calls the tools and prints one JSON object with what it saw. With
// --refresh-and-revoke it then breaks the access token (the SDK must
// refresh), revokes the grant at the revocation endpoint (RFC 7009; the
// SDK has no call for it) and connects once more (a new sign-in is due).
//
//   node oauth.mjs URL --user U --password P [--client-metadata-url URL]
//        [--query TEXT] [--forbidden-id FILE_ID] [--chromium PATH]
//        [--screenshots DIR] [--sdk v1|v2] [--no-state] [--refresh-and-revoke]
//
// --sdk v2 uses the TypeScript SDK v2 (@modelcontextprotocol/client)
// instead of v1 (@modelcontextprotocol/sdk); --no-state leaves state out
// of the authorization request, as the SDKs do when the provider has no
// state() (PKCE protects the code).
import http from "node:http";
import { randomBytes } from "node:crypto";
import { launchChromium, summary } from "./browser.mjs";

async function loadSDK(version) {
  if (version === "v2") {
    const m = await import("@modelcontextprotocol/client");
    return { Client: m.Client, StreamableHTTPClientTransport: m.StreamableHTTPClientTransport, UnauthorizedError: m.UnauthorizedError };
  }
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const { UnauthorizedError } = await import("@modelcontextprotocol/sdk/client/auth.js");
  return { Client, StreamableHTTPClientTransport, UnauthorizedError };
}

function parseArgs(argv) {
  const out = { url: "", user: "", password: "", metadataURL: "", query: "zebracorn", forbiddenId: 0, chromium: "/usr/bin/chromium", screenshots: "",
    sdk: "v1", noState: false, refreshAndRevoke: false };
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
    else if (a === "--sdk") out.sdk = next();
    else if (a === "--no-state") out.noState = true;
    else if (a === "--refresh-and-revoke") out.refreshAndRevoke = true;
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
  constructor(redirectUrl, metadataURL, noState) {
    this._redirectUrl = redirectUrl;
    this.clientMetadataUrl = metadataURL || undefined;
    this._state = randomBytes(16).toString("hex");
    this.events = [];
    if (noState) this.state = undefined;
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
  expectedState() {
    return this.state ? this._state : undefined;
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
  invalidateCredentials(scope) {
    this.events.push("invalidate:" + scope);
    if (scope === "tokens" || scope === "all") this._tokens = undefined;
    if (scope === "client" || scope === "all") this._client = undefined;
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
  const browser = await launchChromium(args.chromium);
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

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await loadSDK(args.sdk);
  const cb = await callbackServer();
  const provider = new MemoryProvider(cb.url, args.metadataURL, args.noState);
  const out = { sdk: args.sdk, events: provider.events, calls: {} };
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
    provider.asMetadata = provider.discovery?.authorizationServerMetadata;
    out.discovery = {
      authorizationServer: provider.discovery?.authorizationServerUrl ?? null,
      resource: provider.discovery?.resourceMetadata?.resource ?? null,
      issuer: provider.discovery?.authorizationServerMetadata?.issuer ?? null,
    };
    await signIn(args, provider.authorizationUrl, out);
    const params = await cb.result;
    out.callback = { state_ok: params.state === provider.expectedState(), iss: params.iss ?? null, has_code: !!params.code, error: params.error ?? null };
    out.authorizationHasState = provider.authorizationUrl.searchParams.has("state");
    if (!out.callback.state_ok || !params.code) throw new Error("bad authorization response: " + JSON.stringify(params));
    await transport.finishAuth(params.code, params.iss);
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
    if (args.refreshAndRevoke) await refreshAndRevoke(args, provider, out, url, { Client, StreamableHTTPClientTransport, UnauthorizedError });
  } finally {
    cb.close();
  }
  console.log(JSON.stringify(out));
}

// reconnect connects again with the provider's tokens and reports whether
// it worked and what the SDK did meanwhile.
async function reconnect(provider, url, sdk) {
  const before = provider.events.length;
  const transport = new sdk.StreamableHTTPClientTransport(url, { authProvider: provider });
  const client = new sdk.Client({ name: "hybridsearch-oauth-e2e", version: "1.0.0" });
  const r = {};
  try {
    await client.connect(transport);
    r.connected = true;
    r.tools = (await client.listTools()).tools.length;
    await client.close();
  } catch (err) {
    r.connected = false;
    r.error = String(err).slice(0, 300);
    r.unauthorized = err instanceof sdk.UnauthorizedError;
  }
  r.events = provider.events.slice(before);
  return r;
}

// refreshAndRevoke: a broken access token is refreshed; after the grant is
// revoked (RFC 7009, by the refresh token), connecting asks for a new
// sign-in.
async function refreshAndRevoke(args, provider, out, url, sdk) {
  const first = provider.tokens();
  provider._tokens = { ...first, access_token: "broken-" + first.access_token.slice(0, 8) };
  out.refresh = await reconnect(provider, url, sdk);
  out.refresh.rotated = provider.tokens()?.refresh_token !== first.refresh_token;
  // The SDK keeps the OpenID document it found in the schema's members
  // only (v1 drops revocation_endpoint): read the RFC 8414 document.
  let endpoint = provider.asMetadata?.revocation_endpoint;
  if (!endpoint) {
    const issuer = provider.asMetadata?.issuer;
    const res = await fetch(`${issuer}/.well-known/oauth-authorization-server`);
    endpoint = (await res.json()).revocation_endpoint;
  }
  const body = new URLSearchParams({ token: provider.tokens().refresh_token, token_type_hint: "refresh_token", client_id: provider.clientInformation().client_id });
  const res = await fetch(endpoint, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
  out.revoke = { endpoint, status: res.status };
  out.revoke.after = await reconnect(provider, url, sdk);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

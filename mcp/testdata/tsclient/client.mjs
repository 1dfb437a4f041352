// Drives an MCP endpoint with the official TypeScript SDK client and
// prints one JSON object with what it saw.
//
//   node client.mjs URL [--basic USER:PASSWORD | --bearer TOKEN]
//                       [--query TEXT] [--forbidden-id FILE_ID]
//
// It connects (Streamable HTTP), lists the tools, calls nc_semantic_search
// with --query, nc_get_document with the first result's file_id (and with
// --forbidden-id, which must fail), and nc_index_status. A connection
// that fails (for example 401) is reported as {"connect_error": ...} with
// exit code 0, so the caller can assert on it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function parseArgs(argv) {
  const out = { url: "", headers: {}, query: "zebracorn", forbiddenId: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--basic") out.headers.Authorization = "Basic " + Buffer.from(next()).toString("base64");
    else if (a === "--bearer") out.headers.Authorization = "Bearer " + next();
    else if (a === "--query") out.query = next();
    else if (a === "--forbidden-id") out.forbiddenId = Number(next());
    else if (!out.url && !a.startsWith("--")) out.url = a;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.url) throw new Error("usage: node client.mjs URL [--basic U:P | --bearer T] [--query Q] [--forbidden-id N]");
  return out;
}

// summary keeps what the Go test checks of a tool result.
function summary(res) {
  return {
    isError: res.isError === true,
    text: (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
    structuredContent: res.structuredContent ?? null,
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const transport = new StreamableHTTPClientTransport(new URL(args.url), {
    requestInit: { headers: args.headers },
  });
  const client = new Client({ name: "hybridsearch-e2e", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (err) {
    console.log(JSON.stringify({ connect_error: String(err && err.message ? err.message : err), code: err?.code ?? null }));
    return;
  }
  const out = {
    protocolVersion: transport.protocolVersion ?? null,
    serverInfo: client.getServerVersion() ?? null,
    instructions: client.getInstructions() ?? null,
    tools: [],
    calls: {},
  };
  const { tools } = await client.listTools();
  out.tools = tools.map((t) => ({
    name: t.name,
    description: t.description ?? "",
    annotations: t.annotations ?? null,
    inputSchema: t.inputSchema,
    hasOutputSchema: !!t.outputSchema,
  }));

  // The SDK validates structuredContent against each tool's output schema.
  const search = await client.callTool({ name: "nc_semantic_search", arguments: { query: args.query, limit: 10 } });
  out.calls.search = summary(search);
  const first = search.structuredContent?.results?.[0];
  if (first) {
    out.calls.document = summary(await client.callTool({ name: "nc_get_document", arguments: { file_id: first.file_id } }));
    out.calls.window = summary(
      await client.callTool({ name: "nc_get_document", arguments: { file_id: first.file_id, chunk: first.chunks[0].chunk_no, window: 1 } }),
    );
  }
  if (args.forbiddenId) {
    out.calls.forbidden = summary(await client.callTool({ name: "nc_get_document", arguments: { file_id: args.forbiddenId } }));
  }
  out.calls.badArgs = summary(await client.callTool({ name: "nc_semantic_search", arguments: { query: "x", limit: "ten" } }));
  out.calls.status = summary(await client.callTool({ name: "nc_index_status", arguments: {} }));
  try {
    await client.callTool({ name: "nc_no_such_tool", arguments: {} });
    out.unknownTool = "no error";
  } catch (err) {
    out.unknownTool = String(err.message);
  }
  await client.close();
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

// What oauth.mjs and mcpremote.mjs share: Debian's chromium as the user's
// browser (run as root, without a GPU or background traffic: the flags below), and a
// tool result in a form to print.
import { chromium } from "playwright-core";

// launchChromium starts headless chromium from path.
export function launchChromium(path) {
  return chromium.launch({
    executablePath: path,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// summary is a tool result's error flag, text and structured content.
export function summary(res) {
  return {
    isError: res.isError === true,
    text: (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n"),
    structuredContent: res.structuredContent ?? null,
  };
}

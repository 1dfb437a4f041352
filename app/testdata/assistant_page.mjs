// Drives the simulated Assistant page (nextcloud/ncsim assistant_page.go)
// in Debian's chromium through playwright-core (resolved from
// frontend/node_modules): signs in as the user through the login form,
// runs "Search my files" and "Ask your files", and prints one JSON line
// with what the page showed. A screenshot goes to the path given.
//
// Usage: node assistant_page.mjs <base> <user> <password> <chromium> <screenshot>
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const { chromium } = createRequire(join(repo, 'frontend/package.json'))('playwright-core')
const [base, user, password, executablePath, screenshot] = process.argv.slice(2)
const out = {}
const browser = await chromium.launch({
  executablePath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
try {
  const page = await browser.newPage()
  await page.goto(`${base}/index.php/apps/assistant/`)
  await page.fill('#user', user)
  await page.fill('#password', password)
  await Promise.all([page.waitForURL((u) => u.pathname.includes('/apps/assistant/')), page.press('#password', 'Enter')])
  await page.waitForSelector('body[data-assistant-ready="1"]', { timeout: 30000 })
  out.types = await page.$$eval('#assistant-type option', (os) => os.map((o) => `${o.value}=${o.textContent}`))
  out.nav = await page.$eval('#header-left__appmenu a#assistant', (a) => a.className)

  const run = async (type, fields) => {
    await page.selectOption('#assistant-type', type)
    for (const [key, value] of Object.entries(fields)) {
      await page.fill(`#assistant-in-${key}`, value)
    }
    const before = await page.evaluate(() => document.body.dataset.taskId || '')
    await page.click('#assistant-run')
    await page.waitForFunction((b) => document.body.dataset.taskId && document.body.dataset.taskId !== b, before, { timeout: 30000 })
    await page.waitForFunction(() => ['STATUS_SUCCESSFUL', 'STATUS_FAILED', 'STATUS_CANCELLED'].includes(document.body.dataset.taskStatus), null, { timeout: 60000 })
    return {
      status: await page.evaluate(() => document.body.dataset.taskStatus),
      text: await page.$eval('#assistant-output', (e) => e.innerText),
      links: await page.$$eval('#assistant-output a', (as) => as.map((a) => a.getAttribute('href'))),
    }
  }
  out.search = await run('hybrid_search:search', { query: 'nightly backups' })
  if (out.types.some((t) => t.startsWith('hybrid_search:ask='))) {
    out.ask = await run('hybrid_search:ask', { question: 'When do backups happen?' })
  }
  await page.screenshot({ path: screenshot, fullPage: true })
} catch (e) {
  out.error = String(e?.message ?? e).split('\n')[0]
} finally {
  await browser.close()
}
process.stdout.write(`${JSON.stringify(out)}\n`)

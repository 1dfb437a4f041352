// End-to-end test of the search panel inside the simulated Nextcloud.
//
// Builds the app (or takes HYBRIDSEARCH_BIN), starts `hybridsearch demo` on a
// free port, drives Debian's chromium (never a downloaded browser) through
// playwright-core: signs in as alice through the login form, opens the
// panel, searches (typo, German, Japanese), checks highlights, keyboard
// navigation, filters, error states and the index status against GET
// api/status, saves screenshots (PANEL_SCREENSHOT, default /tmp/panel.png,
// plus -full, -ja, -status and -mobile variants), then stops the demo with
// SIGTERM.
//
// Usage: npm run test:e2e   (env: CHROMIUM, HYBRIDSEARCH_BIN, PANEL_SCREENSHOT)
// Prints "ok - …" / "FAIL - …" per check and ends with "e2e: N passed, N failed".

import { execFile, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { chromium } from 'playwright-core'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium'
const SCREENSHOT = process.env.PANEL_SCREENSHOT || '/tmp/panel.png'
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
const TOTAL_TIMEOUT_MS = 150_000 // a hard stop; a normal run takes 20–40 s
const API_WAIT_MS = 30_000

const results = { passed: 0, failed: 0 }
const cleanups = []
const stderrTail = []
const started = Date.now()

function log(msg) {
  process.stdout.write(`${msg}\n`)
}

// check runs one named check; a failure is recorded and the run goes on.
async function check(name, fn) {
  try {
    const note = await fn()
    results.passed++
    log(`ok - ${name}${note ? ` (${note})` : ''}`)
    return true
  } catch (e) {
    results.failed++
    log(`FAIL - ${name}: ${e?.message?.split('\n')[0] ?? e}`)
    return false
  }
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg)
}

function fail(msg) {
  throw new Error(msg)
}

async function buildBinary(dir) {
  if (process.env.HYBRIDSEARCH_BIN) return process.env.HYBRIDSEARCH_BIN
  const bin = join(dir, 'hybridsearch')
  await promisify(execFile)('go', ['build', '-o', bin, './cmd/hybridsearch'], { cwd: repo, maxBuffer: 16 << 20 })
  return bin
}

// startDemo runs the demo and resolves with its READY info and the process.
function startDemo(bin, dataDir) {
  const proc = spawn(bin, ['demo', '--addr', '127.0.0.1:0', '--data', dataDir], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL || 'info' },
  })
  createInterface({ input: proc.stderr }).on('line', (line) => {
    stderrTail.push(line)
    if (stderrTail.length > 60) stderrTail.shift()
  })
  const exited = new Promise((res) => proc.on('exit', (code, signal) => res({ code, signal })))
  const ready = new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error('no READY line within 60 s')), 60_000)
    createInterface({ input: proc.stdout }).on('line', (line) => {
      if (!line.startsWith('READY ')) return
      clearTimeout(timer)
      try {
        res(JSON.parse(line.slice(6)))
      } catch (e) {
        rej(new Error(`READY line is not JSON: ${e.message}`))
      }
    })
    exited.then(({ code, signal }) => {
      clearTimeout(timer)
      rej(new Error(`demo exited before READY (code ${code}, signal ${signal})`))
    })
  })
  return { proc, ready, exited }
}

// api calls the app through the proxy from inside the page, as the panel does.
function api(page, path) {
  return page.evaluate(async (p) => {
    const base = `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/hybrid_search/`
    const r = await fetch(base + p, { headers: { Accept: 'application/json', requesttoken: document.head.dataset.requesttoken || '' } })
    let body = null
    try {
      body = await r.json()
    } catch {
      body = null
    }
    return { status: r.status, body }
  }, path)
}

// waitForSearchAPI polls GET api/search until it answers something but 404.
async function waitForSearchAPI(page) {
  const until = Date.now() + API_WAIT_MS
  let last
  do {
    last = await api(page, 'api/search?q=ping&top_k=1')
    if (last.status !== 404) return last
    await page.waitForTimeout(1000)
  } while (Date.now() < until)
  fail(`GET api/search still answers 404 after ${API_WAIT_MS / 1000} s: the search endpoint is not there yet (${JSON.stringify(last.body)})`)
}

// search types q, presses Enter and waits until the panel shows the outcome.
// It returns the API response (request headers and JSON body).
async function search(page, q, { press = 'Enter' } = {}) {
  const input = page.locator('#hs-query')
  const answered = page.waitForResponse((r) => {
    const u = new URL(r.url())
    return u.pathname.endsWith('/api/search') && u.searchParams.get('q') === q.trim()
  }, { timeout: 15_000 })
  await input.fill(q)
  if (press) await input.press(press)
  const res = await answered
  let body = null
  try {
    body = await res.json()
  } catch {
    body = null
  }
  await page.waitForFunction(() => {
    const t = document.querySelector('#hs-live')?.textContent ?? ''
    return t !== '' && t !== 'Searching…'
  }, null, { timeout: 10_000 })
  return { res, body, headers: res.request().headers() }
}

// resultTitled finds the result whose title contains text.
function resultTitled(page, text) {
  return page.locator('.hs-result', { has: page.locator('.hs-result__link', { hasText: text }) })
}

// useHybrid selects the hybrid algorithm unless it is selected.
async function useHybrid(page) {
  const hybrid = page.locator('.hs-algorithm', { hasText: 'Hybrid' })
  if (!(await hybrid.getAttribute('class')).includes('hs-algorithm--active')) await hybrid.click()
}

async function titles(page) {
  return page.locator('.hs-result__link').allTextContents()
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'hs-e2e-'))
  cleanups.push(() => rmSync(work, { recursive: true, force: true }))

  let bin
  await check('build the app', async () => {
    bin = await buildBinary(work)
    return process.env.HYBRIDSEARCH_BIN ? `using ${bin}` : `${((Date.now() - started) / 1000).toFixed(1)} s`
  })
  if (!bin) return

  mkdirSync(join(work, 'data'))
  const demo = startDemo(bin, join(work, 'data'))
  let stopped = false
  cleanups.push(async () => {
    if (!stopped && demo.proc.exitCode === null) {
      demo.proc.kill('SIGKILL')
      await demo.exited
    }
  })
  let ready
  if (!(await check('demo prints READY', async () => {
    ready = await demo.ready
    assert(ready.panel_url && ready.nextcloud_url, `READY info incomplete: ${JSON.stringify(ready)}`)
    return ready.nextcloud_url
  }))) return

  const context = await chromium.launchPersistentContext(join(work, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
  })
  cleanups.push(() => context.close())
  const page = context.pages()[0] ?? (await context.newPage())
  page.setDefaultTimeout(15_000)
  const pageErrors = []
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`))
  page.on('console', (m) => {
    // Chromium logs every non-2xx response and aborted request; the error
    // checks below cause some on purpose.
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(`console: ${m.text()}`)
  })

  if (!(await check('sign in as alice through the login form', async () => {
    await page.goto(ready.panel_url)
    assert(page.url().includes('/login'), `expected the login page, got ${page.url()}`)
    await page.fill('#user', 'alice')
    await page.fill('#password', 'alice')
    await Promise.all([page.waitForURL((u) => u.pathname.includes('/apps/app_api/embedded/')), page.press('#password', 'Enter')])
  }))) return

  if (!(await check('the panel loads inside the page shell', async () => {
    await page.locator('#hybrid-search #hs-query').waitFor()
    const parent = await page.evaluate(() => {
      const el = document.getElementById('hybrid-search')
      return `${el.parentElement.tagName}#${el.parentElement.id} in ${el.parentElement.parentElement.tagName}`
    })
    assert(parent === 'DIV#content in MAIN', `panel mounted in ${parent}, want the inner div#content`)
    const title = await page.locator('.hs-title').textContent()
    assert(title === 'Hybrid Search', `title ${JSON.stringify(title)}, want the display name from the initial state`)
  }))) return

  const apiReady = await check('GET api/search answers', async () => {
    const r = await waitForSearchAPI(page)
    assert(r.status === 200, `GET api/search?q=ping answered ${r.status}: ${JSON.stringify(r.body)}`)
  })

  if (apiReady) {
    let kube
    await check('typo "kuberntes upgrade" finds the runbook with a highlight', async () => {
      kube = await search(page, 'kuberntes upgrade')
      assert(kube.res.status() === 200, `status ${kube.res.status()}: ${JSON.stringify(kube.body)}`)
      const all = await titles(page)
      const rank = all.findIndex((t) => t.includes('Kubernetes upgrade runbook')) + 1
      assert(rank > 0, `runbook not among ${JSON.stringify(all)}`)
      assert(rank <= 3, `runbook at rank ${rank}, want the top 3: ${JSON.stringify(all)}`)
      const marks = await resultTitled(page, 'Kubernetes upgrade runbook').locator('.hs-excerpt mark').allTextContents()
      assert(marks.length > 0, 'no <mark> in the runbook excerpt')
      return `rank ${rank}, marked ${JSON.stringify(marks.slice(0, 4))}`
    })

    await check('search requests carry the requesttoken and Accept headers', async () => {
      assert(kube, 'no search request was seen')
      const token = await page.evaluate(() => document.head.dataset.requesttoken)
      assert(token && kube.headers.requesttoken === token, `requesttoken ${JSON.stringify(kube.headers.requesttoken)}, want ${JSON.stringify(token)}`)
      assert(kube.headers.accept === 'application/json', `Accept ${JSON.stringify(kube.headers.accept)}`)
      const u = new URL(kube.res.url())
      assert(u.searchParams.get('algorithm') === 'hybrid' && u.searchParams.get('explain') === '1', `query string ${u.search}`)
    })

    await check('skipped legs and counts are announced', async () => {
      assert(kube?.body, 'no search response')
      const live = await page.locator('#hs-live').textContent()
      const n = kube.body.results?.length ?? 0
      assert(live.startsWith(n === 1 ? '1 result for “kuberntes upgrade”' : `${n} results for “kuberntes upgrade”`), `live region says ${JSON.stringify(live)}`)
      const notices = await page.locator('.hs-notices li').allTextContents()
      for (const s of kube.body.skipped_legs ?? []) {
        const label = s.leg.charAt(0).toUpperCase() + s.leg.slice(1)
        assert(notices.some((t) => t.startsWith(`${label} search is off`)), `no notice for skipped leg ${s.leg}; notices ${JSON.stringify(notices)}`)
      }
      return (kube.body.skipped_legs ?? []).map((s) => `${s.leg} skipped`).join(', ') || 'no legs skipped'
    })

    await check('more matches and the ranking explanation expand', async () => {
      const first = page.locator('.hs-result').first()
      const explain = first.getByRole('button', { name: 'Explain ranking' })
      await explain.click()
      const rows = await first.locator('.hs-explain tbody tr').count()
      assert(rows >= 3, `explanation has ${rows} rows, want one per leg`)
      assert(await first.locator('.hs-explain__fused').isVisible(), 'no fused score')
      const more = first.locator('.hs-result__actions button', { hasText: /more match/ })
      if (await more.count()) {
        await more.click()
        assert((await first.locator('.hs-more .hs-excerpt').count()) > 0, 'no further excerpts after expanding')
        return 'with more matches'
      }
      return 'no further matches in this result'
    })

    await check('screenshot of the results', async () => {
      await page.screenshot({ path: SCREENSHOT })
      await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-full.png'), fullPage: true })
      return SCREENSHOT
    })

    await check('arrow keys move through the results', async () => {
      const n = await page.locator('.hs-result__link').count()
      assert(n >= 2, `need two results, have ${n}`)
      await page.locator('#hs-query').focus()
      const active = () => page.evaluate(() => {
        const a = document.activeElement
        return a.id === 'hs-query' ? 'input' : String([...document.querySelectorAll('.hs-result__link')].indexOf(a))
      })
      const seen = []
      for (const key of ['ArrowDown', 'ArrowDown', 'ArrowUp', 'ArrowUp']) {
        await page.keyboard.press(key)
        seen.push(await active())
      }
      assert(seen.join(',') === '0,1,0,input', `focus went ${seen.join(' → ')}, want 0 → 1 → 0 → input`)
    })

    await check('German: "Apfelkuchen" finds the recipe', async () => {
      const r = await search(page, 'Apfelkuchen')
      assert(r.res.status() === 200, `status ${r.res.status()}`)
      const item = resultTitled(page, 'Apfelkuchen')
      assert((await item.count()) > 0, `no Apfelkuchen result among ${JSON.stringify(await titles(page))}`)
      const marks = await item.first().locator('.hs-excerpt mark').allTextContents()
      assert(marks.some((m) => /apfelkuchen/i.test(m)), `marks ${JSON.stringify(marks)} do not include Apfelkuchen`)
      return `marked ${JSON.stringify(marks.slice(0, 3))}`
    })

    await check('Japanese: "紅葉" finds the Kyoto notes with 紅葉 marked exactly', async () => {
      const r = await search(page, '紅葉')
      assert(r.res.status() === 200, `status ${r.res.status()}`)
      const item = resultTitled(page, '京都')
      assert((await item.count()) > 0, `no Kyoto result among ${JSON.stringify(await titles(page))}`)
      const marks = await item.first().locator('mark').allTextContents()
      assert(marks.includes('紅葉'), `marks ${JSON.stringify(marks)}, want "紅葉" (rune offsets)`)
      await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-ja.png'), fullPage: true })
    })

    await check('each algorithm can be chosen', async () => {
      const seen = []
      for (const [label, value] of [['Keyword', 'keyword'], ['Fuzzy', 'fuzzy'], ['Semantic', 'semantic'], ['Hybrid', 'hybrid']]) {
        const answered = page.waitForResponse((res) => new URL(res.url()).searchParams.get('algorithm') === value)
        await page.locator('.hs-algorithm', { hasText: label }).click()
        const res = await answered
        const body = await res.json().catch(() => null)
        await page.waitForFunction(() => !['', 'Searching…'].includes(document.querySelector('#hs-live')?.textContent ?? ''))
        if (res.status() === 200) {
          seen.push(`${value}:${body?.results?.length ?? 0}`)
          continue
        }
        // A method that cannot run (semantic without an embedder: 400, the
        // request cannot succeed here; an embedder that is down: 503) is an
        // error the panel must show in the server's words.
        assert([400, 503].includes(res.status()) && body?.error, `${value}: status ${res.status()} ${JSON.stringify(body)}`)
        const msg = await page.locator('.hs-error__message').textContent()
        assert(msg === body.error, `${value}: panel shows ${JSON.stringify(msg)}, server said ${JSON.stringify(body.error)}`)
        seen.push(`${value}:${res.status()} shown`)
      }
      return seen.join(' ')
    })

    await check('filters narrow the results (notes only, folder)', async () => {
      await useHybrid(page)
      await page.locator('.hs-options-toggle').click()
      await page.getByLabel('Files', { exact: true }).uncheck()
      const notes = await search(page, 'Apfelkuchen')
      const u = new URL(notes.res.url())
      assert(u.searchParams.get('types') === 'note', `types=${u.searchParams.get('types')}, want note`)
      const types = (notes.body?.results ?? []).map((d) => d.type)
      assert(types.length > 0 && types.every((t) => t === 'note'), `result types ${JSON.stringify(types)}`)
      await page.getByLabel('Files', { exact: true }).check()
      await page.getByLabel('In folder').fill('Documents')
      await page.getByLabel('In folder').press('Tab')
      const docs = await search(page, 'kuberntes upgrade')
      assert(new URL(docs.res.url()).searchParams.get('path_prefix') === '/Documents', `path_prefix=${new URL(docs.res.url()).searchParams.get('path_prefix')}`)
      const paths = await page.locator('.hs-result__path').allTextContents()
      assert(paths.length > 0 && paths.every((p) => p.startsWith('/Documents/')), `paths ${JSON.stringify(paths)}`)
      await page.getByRole('button', { name: 'Reset to defaults' }).click()
      await page.locator('.hs-options-toggle').click()
      return `${types.length} notes, ${paths.length} in /Documents`
    })

    await check('invalid weights block the search and say why', async () => {
      await useHybrid(page)
      await page.locator('.hs-options-toggle').click()
      let sent = 0
      const count = (req) => { if (req.url().includes('/api/search?')) sent++ }
      page.on('request', count)
      await page.getByLabel('Semantic weight', { exact: true }).last().fill('0.9')
      await page.waitForTimeout(500)
      page.off('request', count)
      const alert = await page.locator('.hs-search [role="alert"]').first().textContent()
      assert(alert.includes('The weights add up to 1.4; together they may be at most 1.'), `alert says ${JSON.stringify(alert)}`)
      assert(sent === 0, `${sent} search requests were sent with invalid weights`)
      await page.getByRole('button', { name: 'Reset to defaults' }).click()
      await page.locator('.hs-options-toggle').click()
    })

    await check('a 400 from the server shows its message', async () => {
      await page.route('**/api/search?*', (route) => route.fulfill({ status: 400, contentType: 'application/json', body: '{"error":"e2e: the server refuses this"}' }), { times: 1 })
      await search(page, 'forced failure')
      const msg = await page.locator('.hs-error__message').textContent()
      assert(msg === 'e2e: the server refuses this', `error message ${JSON.stringify(msg)}`)
    })

    await check('a network failure shows an error with a retry', async () => {
      await page.route('**/api/search?*', (route) => route.abort('connectionrefused'), { times: 1 })
      const input = page.locator('#hs-query')
      await input.fill('network down')
      await input.press('Enter')
      await page.locator('.hs-error__title', { hasText: 'Could not reach the app' }).waitFor()
      const answered = page.waitForResponse((r) => r.url().includes('/api/search?'))
      await page.getByRole('button', { name: 'Try again' }).click()
      assert((await answered).status() === 200, 'retry did not reach the app')
      await page.locator('.hs-error').waitFor({ state: 'detached' })
    })

    await check('Enter on a result opens it, and Back restores the search', async () => {
      await useHybrid(page)
      await search(page, 'kuberntes upgrade')
      const link = page.locator('a.hs-result__link').first()
      const href = await link.getAttribute('href')
      assert(href, 'first result has no link')
      await link.focus()
      await Promise.all([page.waitForURL((u) => u.href === new URL(href, ready.nextcloud_url).href), page.keyboard.press('Enter')])
      await page.goBack()
      await page.locator('.hs-result').first().waitFor()
      const q = await page.locator('#hs-query').inputValue()
      assert(q === 'kuberntes upgrade', `search box holds ${JSON.stringify(q)} after Back`)
      return href
    })
  } else {
    log('# search checks skipped: GET api/search is not usable')
  }

  await check('index status matches GET api/status', async () => {
    await page.locator('#hs-tab-status').click()
    await page.locator('[data-count="indexed"] dd').waitFor()
    const { status, body } = await api(page, 'api/status')
    assert(status === 200, `GET api/status answered ${status}`)
    const shown = {}
    for (const key of ['indexed', 'pending', 'skipped', 'failed', 'chunks']) {
      shown[key] = Number((await page.locator(`[data-count="${key}"] dd`).textContent()).replace(/[^\d]/g, ''))
    }
    for (const key of Object.keys(shown)) assert(shown[key] === body.files[key], `${key}: panel shows ${shown[key]}, API says ${body.files[key]}`)
    assert(shown.indexed > 0, 'nothing indexed')
    const components = await page.locator('.hs-component').count()
    assert(components === Object.keys(body.components).length, `${components} components shown, API lists ${Object.keys(body.components).length}`)
    const problems = await page.locator('.hs-problems tbody tr').count()
    assert(problems === body.problems.length, `${problems} problem rows, API lists ${body.problems.length}`)
    await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-status.png'), fullPage: true })
    return `${shown.indexed} files, ${shown.chunks} chunks`
  })

  await check('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.locator('#hs-tab-search').click()
    const over = await page.evaluate(() => document.getElementById('hybrid-search').scrollWidth - document.getElementById('hybrid-search').clientWidth)
    assert(over <= 0, `the panel is ${over} px wider than the screen`)
    await page.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-mobile.png'), fullPage: true })
  })

  await check('no script errors in the page', async () => {
    assert(pageErrors.length === 0, pageErrors.slice(0, 3).join(' | '))
  })

  await context.close()

  await check('demo stops on SIGTERM', async () => {
    demo.proc.kill('SIGTERM')
    const timeout = new Promise((res) => setTimeout(() => res(null), 30_000))
    const got = await Promise.race([demo.exited, timeout])
    assert(got, 'demo did not exit within 30 s of SIGTERM')
    stopped = true
    assert(got.code === 0, `demo exited with code ${got.code}, signal ${got.signal}`)
  })
}

const watchdog = setTimeout(() => {
  log(`FAIL - the end-to-end test took longer than ${TOTAL_TIMEOUT_MS / 1000} s`)
  results.failed++
  finish()
}, TOTAL_TIMEOUT_MS)

let finishing = false
async function finish(err) {
  if (finishing) return
  finishing = true
  clearTimeout(watchdog)
  if (err) {
    results.failed++
    log(`FAIL - ${err.stack || err}`)
  }
  for (const fn of cleanups.reverse()) {
    try {
      await fn()
    } catch {
      // best effort
    }
  }
  if (results.failed && stderrTail.length) log(`--- last lines of the demo's log ---\n${stderrTail.join('\n')}`)
  log(`e2e: ${results.passed} passed, ${results.failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`)
  process.exit(results.failed ? 1 : 0)
}

main().then(() => finish(), finish)

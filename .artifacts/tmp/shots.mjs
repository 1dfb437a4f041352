// Throwaway: screenshots of chosen panel states (not committed).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { chromium } from 'playwright-core'
const out = '/work/wt/h12/.artifacts/shots'
const work = mkdtempSync(join(tmpdir(), 'hs-shots-'))
const proc = spawn('/work/wt/h12/.artifacts/bin/hybridsearch', ['demo', '--addr', '127.0.0.1:0', '--data', work], { stdio: ['ignore', 'pipe', 'ignore'] })
const ready = await new Promise((res) => createInterface({ input: proc.stdout }).on('line', (l) => l.startsWith('READY ') && res(JSON.parse(l.slice(6)))))
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] })
try {
  for (const scheme of (process.env.SCHEMES || 'light,dark').split(',')) {
    const ctx = await browser.newContext({ viewport: { width: Number(process.env.W || 1280), height: 900 }, colorScheme: scheme })
    const page = await ctx.newPage()
    page.on('console', (m) => m.type() === 'error' && console.log('console:', m.text()))
    page.on('response', (r) => r.status() >= 400 && console.log('HTTP', r.status(), r.request().method(), r.url()))
    await page.goto(ready.panel_url)
    await page.fill('#user', 'alice'); await page.fill('#password', 'alice')
    await Promise.all([page.waitForURL((u) => u.pathname.includes('/embedded/')), page.press('#password', 'Enter')])
    await page.locator('#hs-query').waitFor()
    await page.waitForTimeout(1500)
    const shot = (name) => page.screenshot({ path: `${out}/${scheme}-${name}.png`, fullPage: true })
    await shot('start')
    await page.locator('#hs-query').fill('kuberntes upgrade'); await page.locator('#hs-query').press('Enter')
    await page.locator('.hs-result').first().waitFor(); await page.mouse.move(0, 0)
    await page.locator('.hs-options-toggle').click()
    await shot('options')
    await page.locator('.hs-options-toggle').click()
    await page.locator('input[name="hs-view"][value="map"]').evaluate((el) => el.click())
    await page.locator('.hs-viz__point--result').first().waitFor(); await page.mouse.move(0, 0)
    await shot('map')
    await page.locator('input[name="hs-view"][value="compare"]').evaluate((el) => el.click())
    await page.waitForTimeout(1500)
    await shot('compare')
    await page.locator('#hs-tab-assistant').click(); await page.waitForTimeout(800)
    await shot('assistant')
    await page.locator('#hs-tab-status').click(); await page.waitForTimeout(800)
    await shot('status')
    await ctx.close()
  }
} finally {
  await browser.close(); proc.kill('SIGTERM'); await new Promise((r) => proc.on('exit', r)); rmSync(work, { recursive: true, force: true })
}

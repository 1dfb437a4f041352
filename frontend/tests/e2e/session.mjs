// What the browser tests share: useDemo starts `hybridsearch-demo` for a
// spec file (HYBRIDSEARCH_BIN, or built with go build) and signs alice in
// on one page that the file's checks drive in order; the helpers drive
// the panel as a user does.

import { expect, test } from '@playwright/test'
import { execFileSync, spawn } from 'node:child_process'
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

export { expect, test }

const repo = fileURLToPath(new URL('../../..', import.meta.url))
const artifacts = join(repo, '.artifacts/e2e')
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

/**
 * useDemo registers the hooks of a spec file: before its first check a
 * demo of its own (its log in .artifacts/e2e/demo-<file>-*.log) and alice
 * signed in on s.page; after each check, no script error in any of the
 * file's pages; after the last, the demo killed unless a check stopped it.
 * After a failed check Playwright starts a new worker, and the file's
 * remaining checks run on a new demo. It returns s: {ready, proc, exited,
 * context, page, errors}.
 */
export function useDemo() {
	const s = { errors: [] }
	let seen = 0
	test.beforeAll(async ({ browser }, info) => {
		info.setTimeout(120_000)
		const name = basename(info.file, '.spec.mjs')
		mkdirSync(artifacts, { recursive: true })
		s.work = mkdtempSync(join(artifacts, `demo-${name}-`))
		let bin = process.env.HYBRIDSEARCH_BIN
		if (!bin) {
			bin = join(s.work, 'hybridsearch-demo')
			execFileSync('go', ['build', '-o', bin, './cmd/hybridsearch-demo'], { cwd: repo, stdio: 'inherit' })
		}
		mkdirSync(join(s.work, 'data'))
		s.proc = spawn(bin, ['--addr', '127.0.0.1:0', '--data', join(s.work, 'data')], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL || 'info' } })
		s.proc.stderr.pipe(createWriteStream(`${s.work}.log`)) // LOG_LEVEL=debug for more
		s.exited = new Promise((resolve) => s.proc.on('exit', (code, signal) => resolve({ code, signal })))
		s.ready = await new Promise((resolve, reject) => {
			createInterface({ input: s.proc.stdout }).on('line', (line) => line.startsWith('READY ') && resolve(JSON.parse(line.slice(6))))
			s.exited.then(({ code, signal }) => reject(new Error(`demo exited before READY (code ${code}, signal ${signal})`)))
		})
		const { viewport, locale, timezoneId, permissions, actionTimeout, navigationTimeout } = info.project.use
		s.context = await browser.newContext({ viewport, locale, timezoneId, permissions })
		s.context.setDefaultTimeout(actionTimeout)
		s.context.setDefaultNavigationTimeout(navigationTimeout)
		s.page = await s.context.newPage()
		s.context.on('page', (p) => watchErrors(p, s.errors))
		watchErrors(s.page, s.errors)
		await signIn(s.page, s.ready.panel_url, 'alice')
		await s.page.locator('#hybrid-search #hs-query').waitFor()
	})
	test.afterEach(() => {
		const found = s.errors.slice(seen)
		seen = s.errors.length
		expect(found, 'script errors in the page').toEqual([])
	})
	test.afterAll(async () => {
		await s.context?.close()
		if (s.proc && s.proc.exitCode === null && s.proc.signalCode === null) {
			s.proc.kill('SIGKILL')
			await s.exited
		}
		rmSync(s.work, { recursive: true, force: true })
	})
	return s
}

// watchErrors records a page's uncaught exceptions and console errors.
// Chromium logs every non-2xx response and aborted request; some checks
// cause those on purpose.
function watchErrors(page, errors) {
	page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
	page.on('console', (m) => {
		if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) {
			errors.push(`console: ${m.text()}`)
		}
	})
}

/** signIn opens url, lands on the login form and signs user in (password = name). */
export async function signIn(page, url, user) {
	await page.goto(url)
	expect(page.url()).toContain('/login')
	await page.fill('#user', user)
	await page.fill('#password', user)
	await Promise.all([page.waitForURL((u) => u.pathname.includes('/apps/app_api/embedded/')), page.press('#password', 'Enter')])
}

/** note prints a check's figures under its name. */
export function note(text) {
	console.log(`    ${text}`)
}

/** shot saves a full-page screenshot as .artifacts/e2e/panel<suffix>.png. */
export function shot(page, suffix, { fullPage = true } = {}) {
	return page.screenshot({ path: join(artifacts, `panel${suffix}.png`), fullPage })
}

/** api calls the app through the proxy from inside the page, as the panel does. */
export function api(page, path) {
	return page.evaluate(async (p) => {
		const base = `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/hybrid_search/`
		const r = await fetch(base + p, { headers: { Accept: 'application/json', requesttoken: document.head.dataset.requesttoken || '' } })
		return { status: r.status, body: await r.json().catch(() => null) }
	}, path)
}

/**
 * search types q, presses Enter and waits until the panel shows the
 * outcome. It returns the response, its JSON body and the request headers.
 */
export async function search(page, q, { press = 'Enter' } = {}) {
	const input = page.locator('#hs-query')
	const answered = page.waitForResponse((r) => {
		const u = new URL(r.url())
		return u.pathname.endsWith('/api/search') && u.searchParams.get('q') === q.trim()
	})
	await input.fill(q)
	if (press) {
		await input.press(press)
	}
	const res = await answered
	const body = await res.json().catch(() => null)
	await settled(page)
	return { res, body, headers: res.request().headers() }
}

/** settled waits until the live region announces an outcome, not "Searching…". */
export function settled(page) {
	return page.waitForFunction(() => !['', 'Searching…'].includes(document.querySelector('#hs-live')?.textContent ?? ''))
}

/**
 * isViewer tells whether a URL is the simulator's viewer of a file or a
 * note, where a result's link (/index.php/f/<id>, redirected, or the Notes
 * app's /index.php/apps/notes/note/<id>) ends.
 */
export function isViewer(u) {
	return (u.pathname.startsWith('/index.php/apps/files/files/') && u.searchParams.get('openfile') === 'true') || u.pathname.startsWith('/index.php/apps/notes/note/')
}

/**
 * personal changes alice's language or theme on the simulated personal
 * settings page, as she would, and waits for the page to reload.
 */
export async function personal(context, base, { lang, theme }) {
	const p = await context.newPage()
	try {
		if (lang) {
			await p.goto(`${base}/index.php/settings/user/personal-info`)
			await Promise.all([p.waitForEvent('load'), p.selectOption('#language-select', lang)])
			await expect(p.locator('html')).toHaveAttribute('lang', lang)
		}
		if (theme) {
			await p.goto(`${base}/index.php/settings/user/theming`)
			await Promise.all([p.waitForEvent('load'), p.locator(`input[name="theme"][value="${theme}"]`).check()])
			await expect(p.locator('body')).toHaveAttribute('data-themes', theme)
		}
	} finally {
		await p.close()
	}
}

/**
 * adminSetting saves one field of the app's form on the simulated
 * administration settings page p and waits until it says "Saved".
 */
export async function adminSetting(p, field, value) {
	const el = p.locator(`#${field}_field`)
	await p.evaluate(() => {
		document.querySelector('[data-form="hybrid_search_admin"] .settings-saved').textContent = ''
	})
	if ((await el.evaluate((e) => e.tagName)) === 'SELECT') {
		await el.selectOption(String(value))
	} else {
		await el.fill(String(value))
		await el.press('Enter')
	}
	await p.waitForFunction(() => document.querySelector('[data-form="hybrid_search_admin"] .settings-saved')?.textContent === 'Saved')
}

/** resultTitled finds the result whose title contains text. */
export function resultTitled(page, text) {
	return page.locator('.hs-result', { has: page.locator('.hs-result__link', { hasText: text }) })
}

/** titles lists the titles of the results shown. */
export function titles(page) {
	return page.locator('.hs-result__link').allTextContents()
}

/** choose clicks a radio (an algorithm or a view) that the panel styles over its input. */
export function choose(page, name, value) {
	return page.locator(`input[name="${name}"][value="${value}"]`).evaluate((el) => el.click())
}

/** useHybrid selects the hybrid algorithm unless it is selected. */
export async function useHybrid(page) {
	if (!(await page.locator('input[name="hs-algorithm"][value="hybrid"]').isChecked())) {
		await choose(page, 'hs-algorithm', 'hybrid')
	}
}

/**
 * section shows one of the panel's sections through the app navigation,
 * opening the navigation first where it is collapsed (a phone).
 */
export async function section(page, id) {
	if ((await page.locator('#app-navigation-vue').getAttribute('aria-hidden')) === 'true') {
		await page.locator('button[aria-controls="app-navigation-vue"]').click()
	}
	await page.locator(`.hs-nav-${id} a`).click()
	await page.locator(`#hs-panel-${id}`).waitFor()
	// On a phone the navigation closes after the choice, as in Nextcloud's apps.
	await page.waitForFunction(() => document.querySelector('#app-navigation-vue')?.getAttribute('aria-hidden') === 'true' || window.innerWidth > 1024)
	if (page.viewportSize().width <= 1024) {
		await page.waitForTimeout(400) // its closing transition
	}
}

/**
 * overflow is how many pixels the panel is wider than its box: the panel
 * root or its content region, which scrolls inside it.
 */
export function overflow(page) {
	return page.evaluate(() => Math.max(...['#hybrid-search', '#hybrid-search .hs-app-content'].map((sel) => {
		const el = document.querySelector(sel)
		return el ? el.scrollWidth - el.clientWidth : 0
	})))
}

/**
 * withOptions opens the options, runs fn, and then puts the options back
 * to their defaults and closes them, also when fn fails, so one failed
 * check does not leave invalid weights behind for the next ones.
 */
export async function withOptions(page, fn) {
	const toggle = page.locator('.hs-options-toggle')
	if ((await toggle.getAttribute('aria-expanded')) !== 'true') {
		await toggle.click()
	}
	try {
		return await fn()
	} finally {
		const reset = page.getByRole('button', { name: 'Reset to defaults' })
		if (await reset.isEnabled()) {
			await reset.click()
		}
		if ((await toggle.getAttribute('aria-expanded')) === 'true') {
			await toggle.click()
		}
		await settled(page)
	}
}

/**
 * pollInPage evaluates fn(arg) in the page until it returns something
 * truthy, and returns that. waitForFunction does not await an async
 * predicate (a Promise is truthy, so it passes at once); this does.
 */
export async function pollInPage(page, fn, arg, { timeout = 30_000, polling = 500, what = 'the condition' } = {}) {
	const deadline = Date.now() + timeout
	for (;;) {
		const v = await page.evaluate(fn, arg)
		if (v) {
			return v
		}
		if (Date.now() > deadline) {
			throw new Error(`${what}: not within ${timeout / 1000} s`)
		}
		await page.waitForTimeout(polling)
	}
}

/**
 * axeView runs axe-core on the page and returns the serious and critical
 * violations the panel causes (nodes inside #hybrid-search); the shell's
 * own (the simulator's header) are not counted. It prints their count.
 */
export async function axeView(page, name) {
	await page.addScriptTag({ path: AXE })
	const found = await page.evaluate(async () => {
		const res = await window.axe.run(document, { resultTypes: ['violations'] })
		const out = []
		for (const v of res.violations.filter((v) => ['serious', 'critical'].includes(v.impact))) {
			for (const n of v.nodes) {
				let el = null
				try {
					el = document.querySelector(n.target[0])
				} catch {
					// not a CSS selector (a shadow DOM or iframe path): no element
				}
				if (el?.closest?.('#hybrid-search')) {
					out.push(`${v.id} ${n.target.join(' ')}`)
				}
			}
		}
		return out
	})
	note(`axe ${name}: ${found.length} serious or critical${found.length ? ': ' + found.slice(0, 3).join(' | ') : ''}`)
	return found
}

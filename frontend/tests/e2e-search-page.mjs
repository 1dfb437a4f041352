// Browser checks of issue 23 ("a panel that says what it did and fits
// Nextcloud"), run by e2e.mjs against `hybridsearch-demo` in Debian's
// chromium: queries no method can use, weak matches, paging, filters with
// counts and sort in the URL, Nextcloud's previews and file actions, the
// status refreshing while open and said in the search view, what users
// who are not admins see, axe-core on every view, the bytes of a second
// visit and the time from a keystroke to the results. The figures are
// printed with the checks.

import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const AXE = require.resolve('axe-core/axe.min.js')

/**
 * pollInPage evaluates fn(arg) in the page until it returns something
 * truthy, and returns that. Playwright's waitForFunction does not await an
 * async predicate (a Promise is truthy, so it passes at once); this does.
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
 * searchPageChecks runs the checks with e2e.mjs's helpers: t = {page,
 * context, browser, ready, check, assert, api, search, section,
 * resultTitled, titles, shot(name)}.
 */
export async function searchPageChecks(t) {
	const { page, ready, check, assert, api, search, section, shot } = t

	await check('a query no method can use is no error: no results and the reason (東京, !!!, an emoji)', async () => {
		const seen = []
		for (const [q, reason] of [['!!!', 'The query holds no word or number to look for.'], ['😀', 'The query holds no word or number to look for.'], ['東京', 'No document holds a word of the query']]) {
			const r = await search(page, q)
			assert(r.res.status() === 200 && r.body.results.length === 0 && r.body.reason_code, `${q}: ${r.res.status()} ${JSON.stringify(r.body)}`)
			assert(await page.locator('.hs-error').count() === 0, `${q}: an error is shown`)
			const empty = await page.locator('.hs-empty').textContent()
			assert(empty.includes(reason), `${q}: the empty state says ${JSON.stringify(empty)}`)
			seen.push(`${q} → ${r.body.reason_code}`)
		}
		await shot('-unsearchable')
		return seen.join(', ')
	})

	await check('weak matches stay out of the list and show on request, saying why', async () => {
		const r = await search(page, 'PII-2024-0042')
		const shown = await page.locator('.hs-result').count()
		assert(shown === r.body.results.length && r.body.results.every((d) => !d.weak) && r.body.weak_count > 0, `shown ${shown}, answer ${JSON.stringify(r.body.results.map((d) => [d.title, d.relevance]))}, weak ${r.body.weak_count}`)
		const relevances = await page.locator('.hs-relevance__value').allTextContents()
		assert(!relevances.includes('0.00'), `a relevance of 0.00 is listed: ${relevances}`)
		const answered = page.waitForResponse((res) => new URL(res.url()).searchParams.get('include_weak') === '1')
		await page.locator('.hs-show-weak').click()
		await answered
		await page.locator('.hs-weak-divider').waitFor()
		const weak = page.locator('.hs-result--weak').first()
		await weak.getByRole('button', { name: 'Explain ranking' }).click()
		const why = await weak.locator('.hs-explain__weak').textContent()
		assert(why.startsWith('A weak match: its relevance is below 0.1'), `the explanation says ${JSON.stringify(why)}`)
		await shot('-weak')
		return `${shown} matches, ${r.body.weak_count} weak behind the button: ${why}`
	})

	// Files for paging, filters and owners: twelve of alice's, one bob shares.
	const bob = ready.users.find((u) => u.uid === 'bob')
	const basic = (u) => 'Basic ' + Buffer.from(`${u.uid}:${u.app_password}`).toString('base64')
	await check('the status refreshes while open: new files show without a click', async () => {
		await section(page, 'status')
		await page.locator('[data-count="indexed"] dd').waitFor()
		const before = Number((await page.locator('[data-count="indexed"] dd').textContent()).replace(/[^\d]/g, ''))
		const started = Date.now()
		// Twelve new files, as the Files app uploads them (WebDAV, session).
		const statuses = await page.evaluate(async () => {
			const token = document.head.dataset.requesttoken
			const out = [(await fetch('/remote.php/dav/files/alice/Zebra', { method: 'MKCOL', headers: { requesttoken: token } })).status]
			for (let i = 1; i <= 12; i++) {
				const r = await fetch(`/remote.php/dav/files/alice/Zebra/zebra%20report%20${i}.md`, { method: 'PUT', headers: { requesttoken: token }, body: `# Zebra report ${i}\n\nThe zebra herd ${i} crossed the river.` })
				out.push(r.status)
			}
			return out
		})
		assert(statuses.every((s) => s < 300), `uploads answered ${statuses}`)
		await page.waitForFunction((n) => Number((document.querySelector('[data-count="indexed"] dd')?.textContent ?? '').replace(/[^\d]/g, '')) >= n, before + 12, { timeout: 40_000, polling: 500 })
		// bob shares a file with alice (OCS, as the Files app does).
		const base = ready.nextcloud_url
		const put = await fetch(`${base}/remote.php/dav/files/bob/zebra%20field%20notes.md`, { method: 'PUT', headers: { Authorization: basic(bob) }, body: '# Zebra field notes\n\nBob counted the zebra herd at dawn.' })
		assert(put.status < 300, `bob's upload: ${put.status}`)
		const share = await fetch(`${base}/ocs/v2.php/apps/files_sharing/api/v1/shares?format=json`, { method: 'POST', headers: { Authorization: basic(bob), 'OCS-APIRequest': 'true', 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'path=%2Fzebra%20field%20notes.md&shareType=0&shareWith=alice' })
		assert(share.status === 200, `bob's share: ${share.status} ${await share.text()}`)
		return `${before} → ${before + 12} indexed files shown after ${((Date.now() - started) / 1000).toFixed(1)} s, no click`
	})

	await check('paging, filters with counts and sort, kept in the URL', async () => {
		await section(page, 'search')
		// Wait until bob's shared file is searchable for alice. Nextcloud sends
		// no webhook for a share: the app sees it when alice's share list is
		// next read (every 50 s), so this can take up to a minute.
		const sharing = Date.now()
		await pollInPage(page, async () => {
			const base = `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/hybrid_search/`
			const r = await (await fetch(base + 'api/search?q=zebra&facets=1&top_k=10', { headers: { Accept: 'application/json' } })).json()
			return r.total >= 13 && (r.facets?.owner ?? []).some((f) => f.value === 'others')
		}, null, { timeout: 70_000, polling: 1000, what: "bob's shared file searchable for alice" })
		const shareVisible = ((Date.now() - sharing) / 1000).toFixed(1)
		// A shared file can be missing from one search while it is indexed
		// again for its new reader; the count is checked once it holds.
		let r = await search(page, 'zebra')
		for (let i = 0; i < 5 && r.body.total !== 13; i++) {
			await page.waitForTimeout(1000)
			r = await search(page, 'zebra ')
		}
		if (r.body.total !== 13) {
			// What the poll's request and the panel's request answer now.
			const now = async (q) => page.evaluate(async (q) => {
				const base = `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/hybrid_search/`
				const a = await (await fetch(base + 'api/search?' + q, { headers: { Accept: 'application/json' } })).json()
				return `${a.total}/${a.weak_count} owners ${JSON.stringify(a.facets?.owner)} ${a.results.map((d) => d.title).slice(8)}`
			}, q)
			console.log(`# zebra: poll's request now ${await now('q=zebra&facets=1&top_k=10')}; panel's request now ${await now(new URL(r.res.url()).search.slice(1))}`)
		}
		assert(r.body.total === 13 && r.body.results.length === 10, `total ${r.body.total}, page ${r.body.results.length}: ${r.body.results.map((d) => `${d.title} ${d.relevance.toFixed(2)}`)}; weak ${r.body.weak_count}; ${new URL(r.res.url()).search}`)
		assert((await page.locator('.hs-filters__count').textContent()).trim() === '13 matches', 'the count of matches')
		const more = page.waitForResponse((res) => new URL(res.url()).searchParams.get('offset') === '10')
		await page.locator('.hs-load-more').click()
		await more
		await page.waitForFunction(() => document.querySelectorAll('.hs-result').length === 13)
		assert(await page.locator('.hs-load-more').count() === 0, 'still offers more')
		// Owner: the one bob shares, with its counts.
		await page.locator('#hs-filter-owner').click()
		const options = await page.locator('.vs__dropdown-option').allTextContents()
		assert(options.map((o) => o.trim()).join('|') === 'Anyone|Owned by me (12)|Shared with me (1)', `owner options ${JSON.stringify(options)}`)
		const shared = page.waitForResponse((res) => new URL(res.url()).searchParams.get('owner') === 'others')
		await page.locator('.vs__dropdown-option', { hasText: 'Shared with me' }).click()
		await shared
		await page.waitForFunction(() => document.querySelectorAll('.hs-result').length === 1)
		const owner = await page.locator('.hs-result__owner').textContent()
		assert(owner.includes('shared by bob'), `owner ${owner}`)
		// Sort by modification, and it all stays in the URL over a reload.
		await page.locator('#hs-sort').click()
		const sorted = page.waitForResponse((res) => new URL(res.url()).searchParams.get('sort') === 'modified')
		await page.locator('.vs__dropdown-option', { hasText: 'Last modified' }).click()
		await sorted
		const hash = new URL(page.url()).hash
		assert(hash.includes('owner=others') && hash.includes('sort=modified'), `the URL keeps ${hash}`)
		await page.reload()
		await page.locator('.hs-result').first().waitFor()
		const kept = (await page.locator('.hs-filter-owner .vs__selected').textContent()).trim()
		assert((await page.locator('.hs-result').count()) === 1 && kept.startsWith('Shared with me'), `after a reload: ${await page.locator('.hs-result').count()} results, owner ${JSON.stringify(kept)}`)
		await shot('-filters')
		await page.goto(ready.panel_url)
		await page.locator('#hs-query').waitFor()
		return `13 matches in pages of 10, owner facet, sort; ${hash}; bob's share searchable for alice after ${shareVisible} s`
	})

	await check('results show Nextcloud\'s preview, owner and actions: open in Files, download, copy link', async () => {
		const r = await search(page, 'zebra report 3')
		const at = r.body.results.findIndex((d) => /report 3$/i.test(d.title))
		assert(at >= 0, `no "zebra report 3" among ${r.body.results.map((d) => d.title)}`)
		const doc = r.body.results[at]
		const first = page.locator('.hs-result').nth(at)
		const img = first.locator('.hs-result__preview')
		await img.waitFor()
		const src = new URL(await img.getAttribute('src'), page.url())
		assert(src.pathname === '/index.php/core/preview' && src.searchParams.get('fileId') === String(doc.file_id), `preview ${src}`)
		await page.waitForFunction((i) => {
			const img = document.querySelectorAll('.hs-result')[i]?.querySelector('.hs-result__preview')
			return img && img.complete && img.naturalWidth > 0
		}, at)
		const files = await first.locator('.hs-action-files').getAttribute('href')
		const download = await first.locator('.hs-action-download').getAttribute('href')
		const got = await page.evaluate(async (u) => {
			const res = await fetch(u)
			return { status: res.status, text: await res.text() }
		}, download)
		assert(got.status === 200 && got.text.includes('Zebra report 3'), `download ${download}: ${got.status}`)
		await first.locator('.hs-action-copy').click()
		const link = await page.evaluate(() => navigator.clipboard.readText())
		assert(link === new URL(`/index.php/f/${doc.file_id}`, page.url()).href, `copied ${link}`)
		await shot('-file-context')
		await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/index.php/apps/files/files/') && u.searchParams.get('openfile') === 'true'), first.locator('.hs-action-files').click()])
		await page.locator('#viewer-title').waitFor()
		const title = await page.locator('#viewer-title').textContent()
		await page.goBack()
		await page.locator('#hs-query').waitFor()
		return `preview ${src.pathname}; Files ${files}; viewer "${title}"; download ${got.status}; link ${link}`
	})

	await check('the search view says indexing is under way, paused or rebuilding, and the status shows live updates', async () => {
		const real = (await api(page, 'api/status')).body
		const fake = {
			...real,
			files: { ...real.files, indexed: 14, pending: 43 },
			queue: { ...real.queue, pending: 43, eta_seconds: 125 },
			live: { enabled: false, reason_code: 'webhook_listeners_disabled', reason: 'webhook_listeners is disabled' },
			rebuild: { model: 'bge-m3', done: 120, total: 300, progress: 0.4 },
		}
		const serve = (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fake) })
		await page.route('**/api/status*', serve)
		try {
			await page.reload()
			await page.locator('.hs-index-banner').waitFor()
			const banner = await page.locator('.hs-index-banner').textContent()
			assert(banner.includes('Rebuilding the index for the embedding model bge-m3: 120 of 300 files (40%)'), `banner ${banner}`)
			fake.rebuild = null
			await page.reload()
			await page.waitForFunction(() => (document.querySelector('.hs-index-banner')?.textContent ?? '').includes('Indexing is under way'))
			const running = await page.locator('.hs-index-banner').textContent()
			assert(running.includes('14 of 57 of your files are processed (25%), about 2 min left'), `banner ${running}`)
			await shot('-indexing')
			await section(page, 'status')
			const live = await page.locator('.hs-live-updates').textContent()
			assert(live.includes('occ app:enable webhook_listeners'), `live updates say ${live}`)
		} finally {
			await page.unroute('**/api/status*', serve)
		}
		await section(page, 'search')
		return 'rebuild, indexing with ETA, live updates off with the command'
	})

	await check('users who are not admins see their own progress, no infrastructure', async () => {
		const ctx = await t.browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })
		try {
			const p = await ctx.newPage()
			await p.goto(ready.panel_url)
			await p.fill('#user', 'bob')
			await p.fill('#password', 'bob')
			await Promise.all([p.waitForURL((u) => u.pathname.includes('/embedded/')), p.press('#password', 'Enter')])
			await p.locator('#hs-query').waitFor()
			await p.locator('.hs-nav-status a').click()
			await p.locator('.hs-health').waitFor()
			const text = await p.locator('.hs-status').textContent()
			assert(await p.locator('.hs-components').count() === 0, 'components are listed for a user')
			assert(!/tesseract|NATS|Ollama|install/i.test(text), `infrastructure detail for a user: ${text.slice(0, 300)}`)
			await p.screenshot({ path: t.shotPath('-status-user'), fullPage: true })
			return (await p.locator('.hs-health').textContent()).trim()
		} finally {
			await ctx.close()
		}
	})

	await check('one <main> landmark, and the sections in Nextcloud\'s app navigation', async () => {
		const mains = await page.evaluate(() => document.querySelectorAll('main').length)
		assert(mains === 1, `${mains} <main> elements`)
		assert(await page.locator('#app-navigation-vue .hs-nav-search a[aria-current="page"]').count() === 1, 'the search section is not the current one in the navigation')
		return 'one <main>; NcAppNavigation'
	})
}

/**
 * axeFigures runs axe-core on each view of the panel and returns
 * {view: count} of serious and critical violations the panel causes (nodes
 * inside #hybrid-search); the shell's own (the simulator's header) are not
 * counted.
 */
export async function axeView(page, name, log) {
	await page.addScriptTag({ path: AXE })
	const found = await page.evaluate(async () => {
		const res = await window.axe.run(document, { resultTypes: ['violations'] })
		const out = []
		for (const v of res.violations) {
			if (!['serious', 'critical'].includes(v.impact)) {
				continue
			}
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
	log?.(`# axe ${name}: ${found.length} serious or critical${found.length ? ': ' + found.slice(0, 3).join(' | ') : ''}`)
	return found
}

/** secondVisitBytes loads the panel twice and returns the bytes the second load transferred, and the assets' statuses. */
export async function secondVisitBytes(context, page, url) {
	const cdp = await context.newCDPSession(page)
	await cdp.send('Network.enable')
	let bytes = 0
	const assets = []
	cdp.on('Network.loadingFinished', (e) => {
		bytes += e.encodedDataLength
	})
	cdp.on('Network.responseReceived', (e) => {
		if (/hybrid_search-main\.(js|css)/.test(e.response.url)) {
			assets.push(`${e.response.url.split('/').pop()} ${e.response.status}`)
		}
	})
	await page.goto(url)
	await page.locator('#hs-query').waitFor()
	await page.waitForLoadState('networkidle')
	bytes = 0
	assets.length = 0
	await page.goto(url)
	await page.locator('#hs-query').waitFor()
	await page.waitForLoadState('networkidle')
	await cdp.detach()
	return { bytes, assets }
}

/** keystrokeToResults measures, in the page, the time from Enter to the results announced for q. */
export async function keystrokeToResults(page, q) {
	await page.locator('#hs-query').fill(q)
	await page.waitForTimeout(600) // the debounced search of fill() is done
	return page.evaluate((q) => new Promise((resolve) => {
		const live = document.querySelector('#hs-live')
		const t0 = performance.now()
		const obs = new MutationObserver(() => {
			const text = live.textContent ?? ''
			if (text.includes(q) && !text.startsWith('Searching')) {
				obs.disconnect()
				requestAnimationFrame(() => resolve(performance.now() - t0))
			}
		})
		obs.observe(live, { childList: true, characterData: true, subtree: true })
		document.querySelector('#hs-query').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
	}), q)
}

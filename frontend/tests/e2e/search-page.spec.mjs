// Browser checks of issue 23 ("a panel that says what it did and fits
// Nextcloud"): queries no method can use, weak matches, paging, filters
// with counts and sort in the URL, Nextcloud's previews and file actions,
// the status refreshing while open and said in the search view, and what
// users who are not admins see.

import { api, expect, note, pollInPage, search, section, shot, signIn, test, useDemo } from './session.mjs'

const s = useDemo()

test('a query no method can use is no error: no results and the reason (東京, !!!, an emoji)', async () => {
	const { page } = s
	const seen = []
	for (const [q, reason] of [['!!!', 'The query holds no word or number to look for.'], ['😀', 'The query holds no word or number to look for.'], ['東京', 'No document holds a word of the query']]) {
		const r = await search(page, q)
		expect(r.res.status() === 200 && r.body.results.length === 0 && r.body.reason_code, `${q}: ${r.res.status()} ${JSON.stringify(r.body)}`).toBeTruthy()
		await expect(page.locator('.hs-error'), `${q}: an error is shown`).toHaveCount(0)
		await expect(page.locator('.hs-empty'), `${q}: the empty state`).toContainText(reason)
		seen.push(`${q} → ${r.body.reason_code}`)
	}
	await shot(page, '-unsearchable')
	note(seen.join(', '))
})

test('weak matches stay out of the list and show on request, saying why', async () => {
	const { page } = s
	const r = await search(page, 'PII-2024-0042')
	const shown = await page.locator('.hs-result').count()
	expect(shown === r.body.results.length && r.body.results.every((d) => !d.weak) && r.body.weak_count > 0, `shown ${shown}, answer ${JSON.stringify(r.body.results.map((d) => [d.title, d.relevance]))}, weak ${r.body.weak_count}`).toBe(true)
	expect(await page.locator('.hs-relevance__value').allTextContents(), 'relevances listed').not.toContain('0.00')
	const answered = page.waitForResponse((res) => new URL(res.url()).searchParams.get('include_weak') === '1')
	await page.locator('.hs-show-weak').click()
	await answered
	await page.locator('.hs-weak-divider').waitFor()
	const weak = page.locator('.hs-result--weak').first()
	await weak.getByRole('button', { name: 'Explain ranking' }).click()
	await expect(weak.locator('.hs-explain__weak')).toHaveText(/^A weak match: its relevance is below 0\.1/)
	await shot(page, '-weak')
	note(`${shown} matches, ${r.body.weak_count} weak behind the button: ${await weak.locator('.hs-explain__weak').textContent()}`)
})

// Files for paging, filters and owners: twelve of alice's, one bob shares.
test('the status refreshes while open: new files show without a click', async () => {
	const { page, ready } = s
	await section(page, 'status')
	const indexed = page.locator('[data-count="indexed"] dd')
	await indexed.waitFor()
	const before = Number((await indexed.textContent()).replace(/[^\d]/g, ''))
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
	expect(statuses.every((st) => st < 300), `uploads answered ${statuses}`).toBe(true)
	await page.waitForFunction((n) => Number((document.querySelector('[data-count="indexed"] dd')?.textContent ?? '').replace(/[^\d]/g, '')) >= n, before + 12, { timeout: 40_000, polling: 500 })
	// bob shares a file with alice (OCS, as the Files app does).
	const bob = ready.users.find((u) => u.uid === 'bob')
	const auth = { Authorization: 'Basic ' + Buffer.from(`${bob.uid}:${bob.app_password}`).toString('base64') }
	const put = await fetch(`${ready.nextcloud_url}/remote.php/dav/files/bob/zebra%20field%20notes.md`, { method: 'PUT', headers: auth, body: '# Zebra field notes\n\nBob counted the zebra herd at dawn.' })
	expect(put.status, "bob's upload").toBeLessThan(300)
	const share = await fetch(`${ready.nextcloud_url}/ocs/v2.php/apps/files_sharing/api/v1/shares?format=json`, { method: 'POST', headers: { ...auth, 'OCS-APIRequest': 'true', 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'path=%2Fzebra%20field%20notes.md&shareType=0&shareWith=alice' })
	expect(share.status, `bob's share: ${await share.clone().text()}`).toBe(200)
	note(`${before} → ${before + 12} indexed files shown after ${((Date.now() - started) / 1000).toFixed(1)} s, no click`)
})

test('paging, filters with counts and sort, kept in the URL', async () => {
	const { page, ready } = s
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
		const now = async (q) => {
			const a = (await api(page, 'api/search?' + q)).body
			return `${a.total}/${a.weak_count} owners ${JSON.stringify(a.facets?.owner)} ${a.results.map((d) => d.title).slice(8)}`
		}
		note(`zebra: poll's request now ${await now('q=zebra&facets=1&top_k=10')}; panel's request now ${await now(new URL(r.res.url()).search.slice(1))}`)
	}
	expect(r.body.total === 13 && r.body.results.length === 10, `total ${r.body.total}, page ${r.body.results.length}: ${r.body.results.map((d) => `${d.title} ${d.relevance.toFixed(2)}`)}; weak ${r.body.weak_count}; ${new URL(r.res.url()).search}`).toBe(true)
	await expect(page.locator('.hs-filters__count')).toHaveText('13 matches')
	const more = page.waitForResponse((res) => new URL(res.url()).searchParams.get('offset') === '10')
	await page.locator('.hs-load-more').click()
	await more
	await expect(page.locator('.hs-result')).toHaveCount(13)
	await expect(page.locator('.hs-load-more'), 'still offers more').toHaveCount(0)
	// Owner: the one bob shares, with its counts.
	await page.locator('#hs-filter-owner').click()
	await expect(page.locator('.vs__dropdown-option')).toHaveText(['Anyone', 'Owned by me (12)', 'Shared with me (1)'])
	const shared = page.waitForResponse((res) => new URL(res.url()).searchParams.get('owner') === 'others')
	await page.locator('.vs__dropdown-option', { hasText: 'Shared with me' }).click()
	await shared
	await expect(page.locator('.hs-result')).toHaveCount(1)
	await expect(page.locator('.hs-result__owner')).toContainText('shared by bob')
	// Sort by modification, and it all stays in the URL over a reload.
	await page.locator('#hs-sort').click()
	const sorted = page.waitForResponse((res) => new URL(res.url()).searchParams.get('sort') === 'modified')
	await page.locator('.vs__dropdown-option', { hasText: 'Last modified' }).click()
	await sorted
	const hash = new URL(page.url()).hash
	expect(hash).toContain('owner=others')
	expect(hash).toContain('sort=modified')
	await page.reload()
	await page.locator('.hs-result').first().waitFor()
	await expect(page.locator('.hs-result'), 'results after a reload').toHaveCount(1)
	await expect(page.locator('.hs-filter-owner .vs__selected'), 'owner after a reload').toHaveText(/^\s*Shared with me/)
	await shot(page, '-filters')
	await page.goto(ready.panel_url)
	await page.locator('#hs-query').waitFor()
	note(`13 matches in pages of 10, owner facet, sort; ${hash}; bob's share searchable for alice after ${shareVisible} s`)
})

test('results show Nextcloud\'s preview, owner and actions: open in Files, download, copy link', async () => {
	const { page } = s
	const r = await search(page, 'zebra report 3')
	const at = r.body.results.findIndex((d) => /report 3$/i.test(d.title))
	expect(at, `"zebra report 3" among ${r.body.results.map((d) => d.title)}`).toBeGreaterThanOrEqual(0)
	const doc = r.body.results[at]
	const first = page.locator('.hs-result').nth(at)
	const img = first.locator('.hs-result__preview')
	await img.waitFor()
	const src = new URL(await img.getAttribute('src'), page.url())
	expect(src.pathname === '/index.php/core/preview' && src.searchParams.get('fileId') === String(doc.file_id), `preview ${src}`).toBe(true)
	await expect.poll(() => img.evaluate((el) => el.complete && el.naturalWidth > 0), { message: 'the preview loads' }).toBe(true)
	const files = await first.locator('.hs-action-files').getAttribute('href')
	const download = await first.locator('.hs-action-download').getAttribute('href')
	const got = await page.evaluate(async (u) => {
		const res = await fetch(u)
		return { status: res.status, text: await res.text() }
	}, download)
	expect(got.status === 200 && got.text.includes('Zebra report 3'), `download ${download}: ${got.status}`).toBe(true)
	await first.locator('.hs-action-copy').click()
	const link = await page.evaluate(() => navigator.clipboard.readText())
	expect(link, 'the copied link').toBe(new URL(`/index.php/f/${doc.file_id}`, page.url()).href)
	await shot(page, '-file-context')
	await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/index.php/apps/files/files/') && u.searchParams.get('openfile') === 'true'), first.locator('.hs-action-files').click()])
	await page.locator('#viewer-title').waitFor()
	const title = await page.locator('#viewer-title').textContent()
	await page.goBack()
	await page.locator('#hs-query').waitFor()
	note(`preview ${src.pathname}; Files ${files}; viewer "${title}"; download ${got.status}; link ${link}`)
})

test('the search view says indexing is under way, paused or rebuilding, and the status shows live updates', async () => {
	const { page } = s
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
		const banner = page.locator('.hs-index-banner')
		await expect(banner).toContainText('Rebuilding the index for the embedding model bge-m3: 120 of 300 files (40%)')
		fake.rebuild = null
		await page.reload()
		await expect(banner).toContainText('Indexing is under way')
		await expect(banner).toContainText('14 of 57 of your files are processed (25%), about 2 min left')
		await shot(page, '-indexing')
		await section(page, 'status')
		await expect(page.locator('.hs-live-updates')).toContainText('occ app:enable webhook_listeners')
	} finally {
		await page.unroute('**/api/status*', serve)
	}
	await section(page, 'search')
	note('rebuild, indexing with ETA, live updates off with the command')
})

test('users who are not admins see their own progress, no infrastructure', async ({ page }) => {
	await signIn(page, s.ready.panel_url, 'bob')
	await page.locator('#hs-query').waitFor()
	await page.locator('.hs-nav-status a').click()
	await page.locator('.hs-health').waitFor()
	await expect(page.locator('.hs-components'), 'components listed for a user').toHaveCount(0)
	await expect(page.locator('.hs-status'), 'infrastructure detail for a user').not.toContainText(/tesseract|NATS|Ollama|install/i)
	await shot(page, '-status-user')
	note((await page.locator('.hs-health').textContent()).trim())
})

test('one <main> landmark, and the sections in Nextcloud\'s app navigation', async () => {
	await expect(s.page.locator('main')).toHaveCount(1)
	await expect(s.page.locator('#app-navigation-vue .hs-nav-search a[aria-current="page"]'), 'the search section is the current one in the navigation').toHaveCount(1)
	note('one <main>; NcAppNavigation')
})

// The search panel inside the simulated Nextcloud, as alice: signing in
// through the login form, searching (typo, German, Japanese), highlights,
// keyboard navigation, filters, error states, the weight sliders, the
// vector-space map, the comparison of algorithms, the file viewer, dark
// mode and the user's dark theme, the admin settings taking effect, "Find
// similar" from the Files app's action menu, app tokens, the German and
// Japanese UI (the app's translations loaded by the simulator as AppAPI
// does), the index status against GET api/status, axe-core on every view
// with the bytes of a second visit and the time from a keystroke to the
// results, a phone screen; then the demo stops on SIGTERM.

import { adminSetting, api, axeView, choose, expect, isViewer, note, overflow, personal, pollInPage, resultTitled, search, section, settled, shot, signIn, test, titles, useDemo, useHybrid, withOptions } from './session.mjs'

const s = useDemo()

test('demo prints READY', () => {
	expect(s.ready.panel_url, 'READY panel_url').toBeTruthy()
	expect(s.ready.nextcloud_url, 'READY nextcloud_url').toBeTruthy()
	note(s.ready.nextcloud_url)
})

test('sign in as alice through the login form', async ({ page }) => {
	await signIn(page, s.ready.panel_url, 'alice')
})

test('the panel loads inside the page shell', async () => {
	const { page } = s
	const parent = await page.evaluate(() => {
		const el = document.getElementById('hybrid-search')
		return `${el.parentElement.tagName}#${el.parentElement.id} in ${el.parentElement.parentElement.tagName}`
	})
	expect(parent, 'the panel is mounted in the inner div#content').toBe('DIV#content in MAIN')
	await expect(page.locator('.hs-title'), 'the display name from the initial state').toHaveText('Hybrid Search')
})

test('GET api/search answers', async () => {
	// Anything but a 404: the search endpoint is there; then a 200.
	await expect.poll(async () => (await api(s.page, 'api/search?q=ping&top_k=1')).status, { timeout: 30_000, intervals: [1000] }).not.toBe(404)
	expect((await api(s.page, 'api/search?q=ping&top_k=1')).status).toBe(200)
})

let kube
test('typo "kuberntes upgrade" finds the runbook with a highlight', async () => {
	const { page } = s
	kube = await search(page, 'kuberntes upgrade')
	expect(kube.res.status(), JSON.stringify(kube.body)).toBe(200)
	const all = await titles(page)
	const rank = all.findIndex((t) => t.includes('Kubernetes upgrade runbook')) + 1
	expect(rank > 0 && rank <= 3, `runbook at rank ${rank}, want the top 3: ${JSON.stringify(all)}`).toBe(true)
	// The correction is said (issue 23: it was invisible) and the
	// corrected word is marked wherever the runbook shows it.
	const line = (await page.locator('.hs-correction').textContent()).replace(/\s+/g, ' ').trim()
	expect(line).toMatch(/^Showing results for kubernetes upgrade.*Search instead for “kuberntes upgrade”/)
	await expect(page.locator('.hs-correction strong').first(), 'the corrected word is bold').toHaveText('kubernetes')
	const marks = await resultTitled(page, 'Kubernetes upgrade runbook').locator('.hs-excerpt mark, .hs-result__title mark').allTextContents()
	expect(marks.some((m) => /^kubernetes$/i.test(m)), `"Kubernetes" is marked in the runbook: ${JSON.stringify(marks)}`).toBe(true)
	note(`rank ${rank}, marked ${JSON.stringify(marks.slice(0, 4))}; ${line}`)
})

test('search requests carry the requesttoken and Accept headers', async () => {
	const token = await s.page.evaluate(() => document.head.dataset.requesttoken)
	expect(token).toBeTruthy()
	expect(kube.headers.requesttoken).toBe(token)
	expect(kube.headers.accept).toBe('application/json')
	const u = new URL(kube.res.url())
	expect(u.searchParams.get('algorithm')).toBe('hybrid')
	expect(u.searchParams.get('explain')).toBe('1')
})

test('skipped legs and counts are announced', async () => {
	const { page } = s
	const n = kube.body.results?.length ?? 0
	await expect(page.locator('#hs-live')).toHaveText(new RegExp(`^${n === 1 ? '1 result' : `${n} results`} for “kuberntes upgrade”`))
	// A method off for good is said once, at the method switch; others
	// in a notice above the results.
	const notices = [...await page.locator('.hs-notices li').allTextContents(), ...await page.locator('#hs-semantic-off').allTextContents()]
	for (const sk of kube.body.skipped_legs ?? []) {
		const label = sk.leg.charAt(0).toUpperCase() + sk.leg.slice(1)
		expect(notices.some((t) => t.trim().startsWith(`${label} search is off`)), `a notice for skipped leg ${sk.leg}; notices ${JSON.stringify(notices)}`).toBe(true)
	}
	note((kube.body.skipped_legs ?? []).map((sk) => `${sk.leg} skipped`).join(', ') || 'no legs skipped')
})

test('more matches and the ranking explanation expand', async () => {
	const first = s.page.locator('.hs-result').first()
	await first.getByRole('button', { name: 'Explain ranking' }).click()
	expect(await first.locator('.hs-explain tbody tr').count(), 'explanation rows, one per leg').toBeGreaterThanOrEqual(3)
	await expect(first.locator('.hs-explain__fused'), 'the fused score').toBeVisible()
	const more = first.locator('.hs-result__actions button', { hasText: /more match/ })
	if (await more.count()) {
		await more.click()
		expect(await first.locator('.hs-more .hs-excerpt').count(), 'further excerpts after expanding').toBeGreaterThan(0)
	}
	note(await more.count() ? 'with more matches' : 'no further matches in this result')
})

test('screenshot of the results', async () => {
	await shot(s.page, '', { fullPage: false })
	await shot(s.page, '-full')
})

test('arrow keys move through the results', async () => {
	const { page } = s
	expect(await page.locator('.hs-result__link').count(), 'results').toBeGreaterThanOrEqual(2)
	await page.locator('#hs-query').focus()
	const seen = []
	for (const key of ['ArrowDown', 'ArrowDown', 'ArrowUp', 'ArrowUp']) {
		await page.keyboard.press(key)
		seen.push(await page.evaluate(() => {
			const a = document.activeElement
			return a.id === 'hs-query' ? 'input' : String([...document.querySelectorAll('.hs-result__link')].indexOf(a))
		}))
	}
	expect(seen.join(' → ')).toBe('0 → 1 → 0 → input')
})

test('German: "Apfelkuchen" finds the recipe', async () => {
	const { page } = s
	const r = await search(page, 'Apfelkuchen')
	expect(r.res.status()).toBe(200)
	const item = resultTitled(page, 'Apfelkuchen')
	expect(await item.count(), `Apfelkuchen among ${JSON.stringify(await titles(page))}`).toBeGreaterThan(0)
	const marks = await item.first().locator('.hs-excerpt mark').allTextContents()
	expect(marks.some((m) => /apfelkuchen/i.test(m)), `marks ${JSON.stringify(marks)} include Apfelkuchen`).toBe(true)
	note(`marked ${JSON.stringify(marks.slice(0, 3))}`)
})

test('Japanese: "紅葉" finds the Kyoto notes with 紅葉 marked exactly', async () => {
	const { page } = s
	const r = await search(page, '紅葉')
	expect(r.res.status()).toBe(200)
	const item = resultTitled(page, '京都')
	expect(await item.count(), `Kyoto among ${JSON.stringify(await titles(page))}`).toBeGreaterThan(0)
	expect(await item.first().locator('mark').allTextContents(), 'marks (rune offsets)').toContain('紅葉')
	await shot(page, '-ja')
})

test('each algorithm can be chosen; semantic without a model is disabled with the reason', async () => {
	const { page } = s
	const seen = []
	// The demo has no embedding model: the choice is disabled and says
	// why in words (issue 23: it led to a raw server error and a "Try
	// again" that could not work), and no search asks for it.
	const semanticOff = (await api(page, 'api/settings')).body?.semantic === false
	if (semanticOff) {
		await expect(page.locator('input[name="hs-algorithm"][value="semantic"]'), 'the semantic choice without a model').toBeDisabled()
		await expect(page.locator('#hs-semantic-off')).toHaveText('Semantic search is off: no embedding model is configured')
		seen.push('semantic: disabled')
	}
	for (const value of ['keyword', 'fuzzy', 'semantic', 'hybrid'].filter((v) => v !== 'semantic' || !semanticOff)) {
		const answered = page.waitForResponse((res) => new URL(res.url()).searchParams.get('algorithm') === value)
		await choose(page, 'hs-algorithm', value)
		const res = await answered
		const body = await res.json().catch(() => null)
		await settled(page)
		if (res.status() === 200) {
			seen.push(`${value}:${body?.results?.length ?? 0}`)
			continue
		}
		// An embedder that is down (503): an error in the user's words.
		expect(res.status() === 503 && body?.error, `${value}: status ${res.status()} ${JSON.stringify(body)}`).toBeTruthy()
		await expect(page.locator('.hs-error__message'), `${value}: the panel does not show the server's words`).not.toHaveText(body.error)
		seen.push(`${value}:${res.status()} shown`)
	}
	note(seen.join(' '))
})

test('filters narrow the results (notes only, folder)', async () => {
	const { page } = s
	await useHybrid(page)
	await withOptions(page, async () => {
		await page.locator('.hs-check-files input').evaluate((el) => el.click())
		const notes = await search(page, 'Apfelkuchen')
		expect(new URL(notes.res.url()).searchParams.get('types')).toBe('note')
		const types = (notes.body?.results ?? []).map((d) => d.type)
		expect(types.length > 0 && types.every((t) => t === 'note'), `result types ${JSON.stringify(types)}`).toBe(true)
		await page.locator('.hs-check-files input').evaluate((el) => el.click())
		await page.getByLabel('In folder').fill('Documents')
		await page.getByLabel('In folder').press('Tab')
		const docs = await search(page, 'kuberntes upgrade')
		expect(new URL(docs.res.url()).searchParams.get('path_prefix')).toBe('/Documents')
		const paths = await page.locator('.hs-result__path').allTextContents()
		expect(paths.length > 0 && paths.every((p) => p.startsWith('/Documents/')), `paths ${JSON.stringify(paths)}`).toBe(true)
		note(`${types.length} notes, ${paths.length} in /Documents`)
	})
})

test('invalid weights block the search and say why', async () => {
	const { page } = s
	await useHybrid(page)
	await withOptions(page, async () => {
		// Only requests with the invalid weight count: a search the previous
		// check scheduled may still go out with valid ones.
		let sent = 0
		const count = (req) => {
			if (req.url().includes('/api/search?') && new URL(req.url()).searchParams.get('keyword_weight') === '0.9') {
				sent++
			}
		}
		page.on('request', count)
		// The keyword field: semantic may be disabled (no embedding model).
		await page.getByLabel('Keyword weight', { exact: true }).last().fill('0.9')
		await page.waitForTimeout(500)
		page.off('request', count)
		// A semantic leg that cannot run is parked at 0: 0 + 0.9 + 0.2.
		const sum = (await page.locator('#hs-w-semantic').isDisabled()) ? '1.1' : '1.6'
		await expect(page.locator('.hs-search [role="alert"]').first()).toContainText(`The weights add up to ${sum}; together they may be at most 1.`)
		expect(sent, 'search requests sent with invalid weights').toBe(0)
	})
})

test('a 400 from the server is said in the user\'s words, not the server\'s', async () => {
	const { page } = s
	// Every search of this check is refused: on a busy machine the
	// debounced search of the typed text may go out before Enter's.
	const refuse = (route) => route.fulfill({ status: 400, contentType: 'application/json', body: '{"error":"e2e: the server refuses this"}' })
	await page.route('**/api/search?*', refuse)
	try {
		await search(page, 'forced failure')
		await expect(page.locator('.hs-error__message')).toHaveText(/^The app did not accept the request\./)
		await expect(page.locator('.hs-error__message')).not.toContainText('e2e: the server refuses this')
		await expect(page.locator('.hs-retry'), 'a "Try again" that cannot work, for a 400').toHaveCount(0)
	} finally {
		await page.unroute('**/api/search?*', refuse)
	}
})

test('a network failure shows an error with a retry', async () => {
	const { page } = s
	// Every search fails until the error shows: on a busy machine the
	// debounced search of the typed text may go out before Enter's.
	const refuse = (route) => route.abort('connectionrefused')
	await page.route('**/api/search?*', refuse)
	try {
		await page.locator('#hs-query').fill('network down')
		await page.locator('#hs-query').press('Enter')
		await page.locator('.hs-error__title', { hasText: 'Could not reach the app' }).waitFor()
	} finally {
		await page.unroute('**/api/search?*', refuse)
	}
	const answered = page.waitForResponse((r) => r.url().includes('/api/search?'))
	await page.getByRole('button', { name: 'Try again' }).click()
	expect((await answered).status(), 'the retry reaches the app').toBe(200)
	await page.locator('.hs-error').waitFor({ state: 'detached' })
})

test('moving a weight slider rebalances the others and reorders the results', async () => {
	const { page } = s
	await useHybrid(page)
	// A typo in one word: the fuzzy leg finds the ventilation checklist,
	// the keyword leg alone (no fuzzy weight, so no correction) does not.
	const before = await search(page, 'ventilaton upgrade')
	const order0 = await titles(page)
	await withOptions(page, async () => {
		const semanticOff = await page.locator('#hs-w-semantic').isDisabled()
		const answered = page.waitForResponse((r) => r.url().includes('/api/search?') && new URL(r.url()).searchParams.get('keyword_weight') !== String(before.body?.weights?.keyword))
		await slide(page, 'keyword', '1')
		const u = new URL((await answered).url())
		const w = ['semantic', 'keyword', 'fuzzy'].map((leg) => Number(u.searchParams.get(`${leg}_weight`)))
		expect(w[0] + w[1] + w[2], `sum of the weights sent ${w}`).toBeLessThanOrEqual(1 + 1e-9)
		expect(w[2], 'fuzzy weight after keyword went up (rebalanced)').toBe(0)
		// A leg that cannot run takes no share: keyword gets the whole budget.
		if (semanticOff) {
			expect(w).toEqual([0, 1, 0])
		}
		await settled(page)
		const order1 = await titles(page)
		expect(order1, 'the order changed').not.toEqual(order0)
		await expect(page.locator('.hs-weights__error'), 'weight errors after rebalancing').toHaveCount(0)
		if (semanticOff) {
			await expect(page.locator('#hs-w-semantic-off'), 'the reason next to the disabled semantic slider').toContainText('Cannot run')
		}
		// "did not run" for a skipped or unweighted leg in the explanation.
		const first = page.locator('.hs-result').first()
		await first.getByRole('button', { name: 'Explain ranking' }).click()
		await expect(first.locator('.hs-explain tr[data-leg="fuzzy"] td').first()).toHaveText(/^(did not run|#.*)$/)
		note(`weights ${w.join('/')}; ${JSON.stringify(order0.slice(0, 3))} → ${JSON.stringify(order1.slice(0, 3))}${semanticOff ? '; semantic slider disabled with its reason' : ''}`)
	})
})

// slide sets a weight slider as a drag does.
function slide(page, leg, value) {
	return page.locator(`#hs-w-${leg}`).evaluate((el, v) => {
		el.value = v
		el.dispatchEvent(new Event('input', { bubbles: true }))
	}, value)
}

// back returns from the viewer to the panel (and past a permalink's redirect).
async function back(page) {
	await page.goBack()
	if (!page.url().includes('/embedded/')) {
		await page.goBack()
	}
}

test('the vector-space map draws highlighted results and opens a document on click', async () => {
	const { page } = s
	await useHybrid(page)
	await search(page, 'kuberntes upgrade')
	const viz = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/api/viz'))
	await choose(page, 'hs-view', 'map')
	const res = await viz
	const body = await res.json()
	expect(res.status(), `GET api/viz: ${JSON.stringify(body)}`).toBe(200)
	await page.locator('.hs-viz__point--result').first().waitFor()
	const results = await page.locator('.hs-viz__point--result').count()
	const samples = await page.locator('.hs-viz__point--sample').count()
	expect(results, 'result points drawn, as the API sent').toBe(body.points.filter((p) => p.rank > 0).length)
	expect(results).toBeGreaterThan(0)
	expect(samples, 'sample points drawn, as the API sent').toBe(body.points.filter((p) => !p.rank).length)
	await expect(page.locator('.hs-viz__query'), 'the query marker, as the API sent').toHaveCount(body.query_point ? 1 : 0)
	await expect(page.locator('.hs-viz__point--best circle').first(), 'the best result point is coloured by leg').toHaveAttribute('fill', /^#[0-9a-f]{6}$/i)
	if (body.space === 'keyword') {
		await expect(page.locator('.hs-viz__note'), 'a note that keyword vectors are shown').toContainText('keyword (BM25)')
		// It says plainly what such a map can and cannot show (issue 23:
		// it read as noise), and numbers the best results.
		await expect(page.locator('.hs-viz__limits')).toContainText('by the words they share, not by meaning')
		await expect(page.locator('.hs-viz__limits')).toHaveText(/\d+ ?%/)
		expect(await page.locator('.hs-viz__rank').count(), 'results numbered by rank').toBeGreaterThan(0)
	}
	// The legend is visible without scrolling: above the map.
	const legendBox = await page.locator('.hs-viz__legend').boundingBox()
	const frameBox = await page.locator('.hs-viz__frame').boundingBox()
	const viewport = page.viewportSize()
	expect(legendBox && frameBox && legendBox.y < frameBox.y && legendBox.y + legendBox.height <= viewport.height, `legend at ${JSON.stringify(legendBox)}, map at ${JSON.stringify(frameBox)}, viewport ${viewport.height}`).toBe(true)
	const best = page.locator('.hs-viz__point--best').first()
	await best.hover()
	const tip = await page.locator('.hs-viz__tip-title').textContent()
	expect(tip, 'the tooltip').toBeTruthy()
	expect(await best.getAttribute('aria-label'), 'the point\'s label holds the tooltip\'s title').toContain(tip.replace(/^\d+\. /, ''))
	await shot(page, '-map')
	// Moving a weight redraws the map for the new weights.
	await withOptions(page, async () => {
		const redrawn = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/api/viz') && new URL(r.url()).searchParams.get('keyword_weight') === '0.5')
		await slide(page, 'keyword', '0.5')
		expect((await redrawn).status(), 'the map redrawn for the new weights').toBe(200)
	})
	await page.locator('.hs-viz[aria-busy="false"] .hs-viz__point--best').first().waitFor()
	await Promise.all([page.waitForURL(isViewer), best.click()])
	await page.locator('#viewer-title').waitFor()
	await back(page)
	await page.locator('#hs-query').waitFor()
	note(`${body.space} space, ${results} result and ${samples} sample points, redrawn for new weights, variance ${body.explained_variance.map((v) => v.toFixed(2)).join('/')}`)
})

test('compare view shows every algorithm with latency and overlap', async () => {
	const { page } = s
	await choose(page, 'hs-view', 'list')
	await search(page, 'kuberntes upgrade')
	// A method that cannot run for good (no model) is not asked: its
	// column says why in words (issue 23: a 400 logged on every run).
	const semanticOff = (await api(page, 'api/settings')).body?.semantic === false
	const asked = new Set()
	const on = (r) => {
		const u = new URL(r.url())
		if (u.pathname.endsWith('/api/search') && u.searchParams.get('q') === 'kuberntes upgrade' && !u.searchParams.has('facets')) {
			asked.add(u.searchParams.get('algorithm'))
		}
	}
	page.on('response', on)
	await choose(page, 'hs-view', 'compare')
	await expect.poll(() => asked.size).toBe(semanticOff ? 3 : 4)
	page.off('response', on)
	if (semanticOff) {
		expect([...asked], 'compare asks no semantic search without a model').not.toContain('semantic')
		await expect(page.locator('.hs-compare__col--semantic .hs-compare__error')).toHaveText('Cannot run: no embedding model is configured')
	}
	await page.locator('.hs-compare__col--hybrid .hs-compare__list li').first().waitFor()
	const took = page.locator('.hs-compare__col--keyword .hs-compare__took')
	const over = page.locator('.hs-compare__col--fuzzy .hs-compare__overlap')
	await expect(took, 'keyword latency').toHaveText(/ms\s*$/)
	await expect(over, 'fuzzy overlap').toHaveText(/of \d+ also in hybrid/)
	note(`keyword ${(await took.textContent()).trim()}, fuzzy ${(await over.textContent()).trim()}; semantic: ${(await page.locator('.hs-compare__col--semantic').textContent()).replace(/\s+/g, ' ').slice(0, 60)}`)
	await shot(page, '-compare')
	await choose(page, 'hs-view', 'list')
})

test('Enter on a result opens it in the viewer, and Back restores the search', async () => {
	const { page, ready } = s
	await useHybrid(page)
	await search(page, 'kuberntes upgrade')
	const link = resultTitled(page, 'Kubernetes upgrade runbook').locator('a.hs-result__link')
	const href = await link.getAttribute('href')
	expect(href, 'the runbook result\'s link').toBeTruthy()
	try {
		await link.focus()
		await Promise.all([page.waitForURL(isViewer), page.keyboard.press('Enter')])
		await expect(page.locator('#viewer-title')).toHaveText(/^Kubernetes upgrade runbook/)
		await expect(page.locator('#viewer-text'), 'the viewer shows the runbook\'s text').toContainText('kubectl')
		await shot(page, '-viewer')
		await back(page)
		await page.locator('.hs-result').first().waitFor()
		await expect(page.locator('#hs-query'), 'the search box after Back').toHaveValue('kuberntes upgrade')
		note(href)
	} finally {
		if (!page.url().includes('/embedded/')) {
			await page.goto(ready.panel_url)
			await page.locator('#hs-query').waitFor()
		}
	}
})

// background is the panel's computed background colour.
function background(page) {
	return page.locator('#hybrid-search .hs-app-content').evaluate((el) => getComputedStyle(el).backgroundColor)
}

test('dark mode: the panel follows the theme, and Nextcloud\'s theme variables win over the fallback', async () => {
	const { page } = s
	expect(await background(page), 'light background').toBe('rgb(255, 255, 255)')
	// The user's theme is "default", which follows the system setting:
	// the theming app's dark.css applies under prefers-color-scheme: dark.
	await page.emulateMedia({ colorScheme: 'dark' })
	try {
		expect(await background(page), 'dark background #171717').toBe('rgb(23, 23, 23)')
		await page.locator('.hs-options-toggle').click()
		await shot(page, '-dark')
		await page.locator('.hs-options-toggle').click()
		// What Nextcloud's theming app does: variables on <body data-theme-…>.
		await page.evaluate(() => document.body.style.setProperty('--color-main-background', 'rgb(1, 2, 3)'))
		expect(await background(page), 'the background with the page\'s own theme').toBe('rgb(1, 2, 3)')
	} finally {
		await page.evaluate(() => document.body.style.removeProperty('--color-main-background'))
		await page.emulateMedia({ colorScheme: 'light' })
	}
})

test('the user\'s dark theme (personal settings) darkens the page shell and the panel on a light system', async () => {
	const { page, context, ready } = s
	await personal(context, ready.nextcloud_url, { theme: 'dark' })
	try {
		await page.reload()
		await page.locator('#hs-query').waitFor()
		await expect(page.locator('body')).toHaveAttribute('data-themes', 'dark')
		expect(await background(page), 'panel background with the dark theme, #171717').toBe('rgb(23, 23, 23)')
		expect(await page.locator('.hs-title').evaluate((el) => getComputedStyle(el).color), 'title colour #ebebeb').toBe('rgb(235, 235, 235)')
		await search(page, 'kuberntes upgrade')
		await shot(page, '-dark-user')
	} finally {
		await personal(context, ready.nextcloud_url, { theme: 'default' })
		await page.reload()
		await page.locator('#hs-query').waitFor()
	}
})

test('Markdown excerpts show as text, and an HTML file is labelled a document', async () => {
	const { page } = s
	await useHybrid(page)
	await search(page, 'kuberntes upgrade runbook checklist')
	const texts = await page.locator('.hs-excerpt__text').allTextContents()
	expect(texts.length).toBeGreaterThan(0)
	expect(texts.filter((x) => /(^|\n)\s*#{1,6} |\*\*|`|\]\(/.test(x)), 'excerpts with Markdown syntax').toEqual([])
	await search(page, 'Greenfield library reading room')
	const facts = resultTitled(page, 'Greenfield Library').locator('.hs-result__facts')
	await expect(facts, 'the press release (HTML)').toContainText('Document')
	note(`${texts.length} excerpts clean; HTML: ${(await facts.textContent()).split('·')[0].trim()}`)
})

test('admin settings change takes effect: default fusion and weights, excluded paths', async () => {
	const { page, context, ready } = s
	const admin = await context.newPage()
	try {
		await admin.goto(`${ready.nextcloud_url}/index.php/settings/admin/declarative_settings`)
		await admin.locator('[data-form="hybrid_search_admin"]').waitFor()
		await adminSetting(admin, 'search_fusion', 'linear')
		await adminSetting(admin, 'search_weight_semantic', '0.2')
		await adminSetting(admin, 'search_weight_keyword', '0.6')
		await adminSetting(admin, 'search_weight_fuzzy', '0.2')
		await adminSetting(admin, 'exclude_paths', '/Notes/Rezepte/**')
		await shot(admin, '-settings')
		// The app reads its settings every 2 s in the demo.
		await expect.poll(async () => {
			const b = (await api(page, 'api/settings')).body
			return [b?.fusion, b?.weights?.keyword]
		}, { timeout: 20_000, message: 'api/settings fusion and keyword weight' }).toEqual(['linear', 0.6])
		await page.goto(ready.panel_url)
		await page.locator('#hs-query').waitFor()
		await page.locator('.hs-options-toggle').click()
		await expect(page.locator('.hs-options .hs-select .vs__selected').first(), 'the panel starts with the admin\'s fusion').toContainText('Linear')
		expect(Number(await page.locator('#hs-w-keyword').inputValue()), 'the keyword weight the panel starts with').toBe(0.6)
		await page.locator('.hs-options-toggle').click()
		const r = await search(page, 'Apfelkuchen backen')
		const u = new URL(r.res.url())
		expect([u.searchParams.get('fusion'), u.searchParams.get('keyword_weight')], `the search asked ${u.search}`).toEqual(['linear', '0.6'])
		// The excluded folder leaves the index within seconds (a scan).
		await pollInPage(page, async () => {
			const base = `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/hybrid_search/`
			const res = await fetch(base + 'api/search?q=Apfelkuchen&algorithm=keyword', { headers: { Accept: 'application/json' } })
			return !(await res.json()).results.some((d) => d.path.includes('/Rezepte/'))
		}, null, { timeout: 20_000, polling: 500, what: 'the excluded folder leaving the index' })
		note('linear 0.2/0.6/0.2 in the panel and its searches; /Notes/Rezepte left the index')
	} finally {
		for (const [f, v] of [['exclude_paths', ''], ['search_fusion', 'rrf'], ['search_weight_semantic', '0.5'], ['search_weight_keyword', '0.3'], ['search_weight_fuzzy', '0.2']]) {
			await adminSetting(admin, f, v).catch(() => {})
		}
		await admin.close()
		await pollInPage(page, async () => {
			const base = `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/hybrid_search/`
			const st = await (await fetch(base + 'api/settings', { headers: { Accept: 'application/json' } })).json()
			const r = await (await fetch(base + 'api/search?q=Apfelkuchen&algorithm=keyword', { headers: { Accept: 'application/json' } })).json()
			return st.fusion === 'rrf' && r.results.some((d) => d.path.includes('/Rezepte/'))
		}, null, { timeout: 20_000, polling: 500 }).catch(() => {})
		await page.goto(ready.panel_url)
		await page.locator('#hs-query').waitFor()
	}
})

test('"Find similar" from the Files app\'s action menu opens the panel with similar documents', async () => {
	const { page, ready } = s
	try {
		await page.goto(`${ready.nextcloud_url}/index.php/apps/files/`)
		await page.locator('#files-list').waitFor()
		await expect(page.locator('#header-left__appmenu a#files.active'), 'Files is the active app in the header').toHaveCount(1)
		await Promise.all([page.waitForURL((u) => u.searchParams.get('dir') === '/Documents'), page.locator('tr[data-cy-files-list-row-name="Documents"] .files-list__name a').click()])
		await Promise.all([page.waitForURL((u) => u.searchParams.get('dir') === '/Documents/Engineering'), page.locator('tr[data-cy-files-list-row-name="Engineering"] .files-list__name a').click()])
		const row = page.locator('tr[data-cy-files-list-row-name="Kubernetes upgrade runbook.md"]')
		const id = await row.getAttribute('data-cy-files-list-row-fileid')
		await row.locator('.files-list__actions-toggle').click()
		const item = page.locator('.files-list__menu button[data-action="find_similar"]')
		await expect(item).toHaveText(/^\s*Find similar\s*$/)
		await expect(item.locator('svg'), 'the action\'s icon').toHaveCount(1)
		await shot(page, '-files-menu', { fullPage: false })
		const answered = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/api/similar'))
		await Promise.all([page.waitForURL((u) => u.pathname.endsWith('/embedded/hybrid_search/search') && u.searchParams.get('fileIds') === id), item.click()])
		const res = await answered
		const body = await res.json()
		expect(res.status(), `GET api/similar: ${JSON.stringify(body)}`).toBe(200)
		await page.locator('.hs-similar__results .hs-result').first().waitFor()
		await expect(page.locator('.hs-similar__title')).toContainText('Kubernetes upgrade runbook')
		const shown = await page.locator('.hs-similar__results .hs-result').count()
		expect(shown, 'results shown, as the API sent').toBe(body.results.length)
		expect(shown).toBeGreaterThan(0)
		expect(body.results.map((d) => String(d.file_id)), 'the file itself is not among the similar documents').not.toContain(id)
		if (body.note_code === 'semantic_off') { // the demo has no model: the panel says why, from the code
			await expect(page.locator('.hs-similar__note')).toHaveText('No embedding model is configured, so the files’ words were compared (keyword search).')
		}
		await shot(page, '-similar')
		await page.locator('.hs-similar__close').click()
		await page.locator('#hs-query').waitFor()
		expect(page.url(), 'the address after closing').not.toContain('fileIds')
		note(`${shown} similar documents (${body.space} space), top: ${body.results[0].title}`)
	} finally {
		if (!page.url().startsWith(ready.panel_url)) {
			await page.goto(ready.panel_url)
		}
		await page.locator('#hs-query').waitFor()
	}
})

test('connect an assistant: the URL-only sign-in first, a token that works on the same URL, confirm before revoking', async () => {
	const { page } = s
	await section(page, 'assistant')
	const url = (await page.locator('.hs-mcp-url').textContent()).trim()
	// The URL the server names, or the proxy URL; with or without
	// /index.php (pretty URLs), on the page's origin.
	expect(new URL(url).pathname, 'the MCP URL').toMatch(/^\/(index\.php\/)?apps\/app_api\/proxy\/hybrid_search\/mcp$/)
	expect(new URL(url).origin, 'the MCP URL\'s origin').toBe(new URL(page.url()).origin)
	await expect(page.locator('.hs-as-way')).toHaveText([/^The simplest way/, /^Or with a token/])
	await expect(page.locator('.hs-assistant'), 'the page says tokens are accepted through Nextcloud').not.toContainText(/not accepted through Nextcloud|APP_URL/)
	await expect(page.locator('[data-config="claude-code"] .hs-config__text'), 'the URL-only Claude Code command').toHaveText(`claude mcp add --transport http nextcloud-search ${url}`)
	await page.locator('#hs-token-name').fill('e2e laptop')
	const created = page.waitForResponse((r) => r.url().endsWith('/api/tokens') && r.request().method() === 'POST')
	await page.locator('.hs-token-create').click()
	const res = await created
	const tok = await res.json()
	expect(res.status(), 'POST api/tokens').toBe(201)
	expect(tok.token).toBeTruthy()
	await expect(page.locator('.hs-token-secret'), 'the new token is shown').toHaveText(tok.token)
	await page.locator('.hs-token-new .hs-copy').click()
	expect(await page.evaluate(() => navigator.clipboard.readText()), 'the copied text').toBe(tok.token)
	const row = page.locator(`tr[data-token="${tok.id}"]`)
	await row.waitFor()
	// The configurations now carry the token, on the same URL.
	const cursor = JSON.parse(await page.locator('[data-config="cursor"] .hs-config__text').textContent())
	expect(cursor.mcpServers['nextcloud-search'], 'the Cursor configuration').toEqual(expect.objectContaining({ url, headers: expect.objectContaining({ Authorization: `Bearer ${tok.token}` }) }))
	await page.locator('[data-config="vscode"] .hs-copy').click()
	const vs = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()))
	expect(vs.servers['nextcloud-search'].url, 'the VS Code configuration\'s URL').toBe(url)
	// What the page says is true: the token on that URL answers tools/list.
	const mcp = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${tok.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })
	const listed = await mcp.text()
	expect(mcp.status, `tools/list with the token on ${url}: ${listed.slice(0, 200)}`).toBe(200)
	expect(listed).toContain('nc_semantic_search')
	expect(await overflow(page), 'pixels the panel is wider than the page with a new token shown').toBeLessThanOrEqual(0)
	await shot(page, '-assistant')
	// Revoking asks first; Cancel keeps the token.
	let deletes = 0
	const countDeletes = (r) => {
		if (r.url().includes('/api/tokens/') && r.method() === 'DELETE') {
			deletes++
		}
	}
	page.on('request', countDeletes)
	await row.locator('.hs-token-revoke').click()
	const dialog = page.locator('.hs-revoke-dialog')
	await dialog.getByRole('button', { name: 'Cancel' }).click()
	await dialog.waitFor({ state: 'detached' })
	page.off('request', countDeletes)
	expect(deletes, 'tokens revoked without a confirmation').toBe(0)
	const revoked = page.waitForResponse((r) => r.url().includes('/api/tokens/') && r.request().method() === 'DELETE')
	await row.locator('.hs-token-revoke').click()
	await shot(page, '-revoke', { fullPage: false })
	await dialog.getByRole('button', { name: 'Revoke' }).click()
	expect((await revoked).status(), 'DELETE api/tokens/…').toBe(204)
	await row.waitFor({ state: 'detached' })
	const list = await api(page, 'api/tokens')
	expect(list.body.tokens.find((x) => x.id === tok.id)?.revoked, 'the token revoked on the server').toBe(true)
	note(`${url}; tools/list answered with the token`)
})

for (const [lang, probe] of [
	['de', { name: 'German', shot: '-de', tab: 'Assistenten verbinden', placeholder: 'Dateien und Notizen durchsuchen …', live: /Ergebnis/, skipped: 'es ist kein Embedding-Modell eingerichtet', map: 'Es ist kein Embedding-Modell eingerichtet, daher zeigt die Karte die Stichwortvektoren (BM25) statt der Embeddings.' }],
	['ja', { name: 'Japanese', shot: '-ui-ja', tab: 'アシスタントを接続', placeholder: 'ファイルとメモを検索…', live: /結果/, skipped: '埋め込みモデルが設定されていません', map: '埋め込みモデルが設定されていないため、マップには埋め込みの代わりにキーワードベクトル（BM25）を表示しています。' }],
]) {
	test(`${probe.name} UI with lang=${lang} through the app's l10n/${lang}.js`, async () => {
		const { context, ready } = s
		// alice picks the language in her personal settings; the simulator
		// then renders lang="<lang>" and, as AppAPI's ExAppUIL10NMiddleware
		// does, adds /apps/hybrid_search/l10n/<lang>.js before </head>, which
		// registers the translations with core's OC.L10N.
		await personal(context, ready.nextcloud_url, { lang })
		const p2 = await context.newPage()
		try {
			await p2.goto(ready.panel_url)
			await p2.locator('#hs-query').waitFor()
			await expect(p2.locator(`script[src="/apps/hybrid_search/l10n/${lang}.js"]`)).toHaveCount(1)
			await expect(p2.locator('.hs-nav-assistant'), 'the assistant section').toHaveText(probe.tab)
			await expect(p2.locator('#hs-query')).toHaveAttribute('placeholder', probe.placeholder)
			await p2.locator('#hs-query').fill('Apfelkuchen')
			await p2.locator('#hs-query').press('Enter')
			await expect(p2.locator('#hs-live')).toHaveText(probe.live)
			await shot(p2, probe.shot)
			// Numbers in the user's locale: German decimals, Japanese punctuation.
			if (lang === 'de') {
				await expect(p2.locator('.hs-relevance__value').first(), 'relevance written the German way').toHaveText(/^\s*\d,\d\d\s*$/)
			} else {
				await expect(p2.locator('.hs-filter-folder .vs__selected'), 'the folder filter count in Japanese punctuation').toContainText('（')
			}
			// The demo runs without a model: the skipped semantic leg is said
			// in the user's language, from its code.
			const notes = [...await p2.locator('.hs-notice--warning').allTextContents(), ...await p2.locator('#hs-semantic-off').allTextContents()]
			const skipped = notes.find((n) => n.includes(probe.skipped))
			expect(skipped, `the skipped-leg notice in ${lang}: ${JSON.stringify(notes)}`).toBeTruthy()
			// So is the map's note, from its code: the keyword space stands in.
			const viz = p2.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/api/viz'))
			await choose(p2, 'hs-view', 'map')
			expect((await (await viz).json()).note_code, 'GET api/viz note_code').toBe('semantic_off')
			await expect(p2.locator('.hs-viz__note'), `the map's note in ${lang}`).toHaveText(probe.map)
			note(`${(await p2.locator('#hs-live').textContent()).trim()}; ${skipped.trim()}; ${probe.map}`)
		} finally {
			await p2.close()
			await personal(context, ready.nextcloud_url, { lang: 'en' })
		}
	})
}

test('index status matches GET api/status', async () => {
	const { page } = s
	await section(page, 'status')
	await page.locator('[data-count="indexed"] dd').waitFor()
	const { status, body } = await api(page, 'api/status')
	expect(status, 'GET api/status').toBe(200)
	const shown = {}
	for (const key of ['indexed', 'pending', 'skipped', 'failed', 'chunks']) {
		shown[key] = Number((await page.locator(`[data-count="${key}"] dd`).textContent()).replace(/[^\d]/g, ''))
	}
	expect(shown, 'the counts the panel shows').toEqual({ indexed: body.files.indexed, pending: body.files.pending, skipped: body.files.skipped, failed: body.files.failed, chunks: body.files.chunks })
	expect(shown.indexed, 'files indexed').toBeGreaterThan(0)
	await expect(page.locator('.hs-component'), 'components shown, as the API lists').toHaveCount(Object.keys(body.components).length)
	await expect(page.locator('.hs-problems tbody tr'), 'problem rows, as the API lists').toHaveCount(body.problems.length)
	await shot(page, '-status')
	note(`${shown.indexed} files, ${shown.chunks} chunks`)
})

/** secondVisitBytes loads the panel twice and returns the bytes the second load transferred, and the assets' statuses. */
async function secondVisitBytes(context, page, url) {
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
	for (const visit of [1, 2]) {
		if (visit === 2) {
			bytes = 0
			assets.length = 0
		}
		await page.goto(url)
		await page.locator('#hs-query').waitFor()
		await page.waitForLoadState('networkidle')
	}
	await cdp.detach()
	return { bytes, assets }
}

/** keystrokeToResults measures, in the page, the time from Enter to the results announced for q. */
async function keystrokeToResults(page, q) {
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

test('axe-core: no serious or critical violation caused by the panel on any view; bytes of a second visit; keystroke to results', async () => {
	const { page, context, ready } = s
	await page.setViewportSize({ width: 1280, height: 900 })
	await page.goto(ready.panel_url)
	await page.locator('#hs-query').waitFor()
	const counts = {}
	const found = []
	const run = async (view) => {
		const got = await axeView(page, view)
		counts[view] = got.length
		found.push(...got.map((g) => `${view}: ${g}`))
	}
	await run('start')
	await search(page, 'kuberntes upgrade')
	await run('results')
	await page.locator('.hs-result').first().getByRole('button', { name: 'Explain ranking' }).click()
	await page.locator('.hs-options-toggle').click()
	await run('explanation and options')
	await page.locator('.hs-options-toggle').click()
	await choose(page, 'hs-view', 'map')
	await page.locator('.hs-viz__point--result').first().waitFor()
	await run('vector space')
	await choose(page, 'hs-view', 'compare')
	await page.locator('.hs-compare__col--hybrid li').first().waitFor()
	await page.locator('.hs-compare[aria-busy="false"]').waitFor()
	await run('compare')
	await choose(page, 'hs-view', 'list')
	await page.emulateMedia({ colorScheme: 'dark' })
	// The theme switches with CSS transitions: measure the settled colours.
	await page.waitForFunction(() => getComputedStyle(document.querySelector('#hybrid-search .hs-app-content')).backgroundColor === 'rgb(23, 23, 23)')
	await page.waitForTimeout(500)
	await run('results, dark')
	await page.emulateMedia({ colorScheme: 'light' })
	await section(page, 'assistant')
	await page.locator('#hs-token-name').fill('axe')
	await page.locator('.hs-token-create').click()
	await page.locator('.hs-token-secret').waitFor()
	await run('assistant with a token')
	await section(page, 'status')
	await page.locator('[data-count="indexed"] dd').waitFor()
	await run('status')
	const runbook = (await api(page, 'api/search?q=runbook&algorithm=keyword')).body.results[0].file_id
	await page.goto(`${ready.panel_url}?fileIds=${runbook}`)
	await page.locator('.hs-similar__results .hs-result, .hs-similar .hs-empty').first().waitFor()
	await run('find similar')
	await page.setViewportSize({ width: 390, height: 844 })
	await page.goto(`${ready.panel_url}#q=kuberntes+upgrade`)
	await page.locator('.hs-result').first().waitFor()
	await run('phone, results')
	await page.setViewportSize({ width: 1280, height: 900 })
	// Bytes a second visit transfers, and the time from a keystroke to the
	// results (in the page: Enter to the results announced, median of 5).
	const visit = await secondVisitBytes(context, page, ready.panel_url)
	const times = []
	for (const q of ['kuberntes upgrade', 'Apfelkuchen', 'budget report', 'zebra', 'kuberntes upgrade']) {
		times.push(await keystrokeToResults(page, q))
	}
	times.sort((a, b) => a - b)
	note(`axe ${JSON.stringify(counts)}; second visit ${visit.bytes} bytes (${visit.assets.join(', ')}); keystroke to results median ${Math.round(times[2])} ms (${times.map(Math.round).join(', ')})`)
	expect(found, 'axe-core violations').toEqual([])
	expect(visit.assets.length, 'assets seen on the second visit').toBeGreaterThan(0)
	expect(visit.assets.filter((a) => !a.endsWith(' 304')), 'assets the second visit downloads again').toEqual([])
})

test('fits a phone screen', async () => {
	const { page } = s
	await page.setViewportSize({ width: 390, height: 844 })
	// The app navigation collapses once it notices the narrow screen.
	await expect(page.locator('#app-navigation-vue')).toHaveAttribute('aria-hidden', 'true')
	const wider = []
	for (const tab of ['assistant', 'status', 'search']) {
		await section(page, tab)
		const over = await overflow(page)
		if (over > 0) {
			wider.push(`${tab} tab by ${over} px`)
		}
		if (tab !== 'search') {
			await shot(page, `-mobile-${tab}`)
		}
	}
	expect(wider, 'sections wider than the screen').toEqual([])
	await shot(page, '-mobile')
})

test('demo stops on SIGTERM', async () => {
	await s.context.close()
	s.proc.kill('SIGTERM')
	const got = await Promise.race([s.exited, new Promise((resolve) => setTimeout(resolve, 30_000))])
	expect(got, 'the demo exits within 30 s of SIGTERM').toBeTruthy()
	expect(got).toEqual({ code: 0, signal: null })
})

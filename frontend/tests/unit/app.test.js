import { flushPromises, mount } from '@vue/test-utils'
// The panel as a whole, in happy-dom, with a fake API client.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../src/App.vue'
import { ApiError, normalizeResult } from '../../src/lib/api.js'
import cjk from '../fixtures/search-cjk.json'
import kube from '../fixtures/search-kubernetes.json'
import busy from '../fixtures/status-busy.json'

function fakeClient({ search, status } = {}) {
	return {
		search: vi.fn(search ?? (async () => normalizeResult(kube))),
		status: vi.fn(status ?? (async () => busy)),
	}
}

let wrapper
function mountApp(client, props = {}) {
	wrapper = mount(App, { props: { client, locale: 'en-US', ...props }, attachTo: document.body })
	return wrapper
}

async function type(w, text) {
	await w.get('#hs-query').setValue(text)
}

async function settle() {
	await vi.advanceTimersByTimeAsync(400)
	await flushPromises()
}

beforeEach(() => {
	vi.useFakeTimers()
	window.history.replaceState(null, '', '/index.php/apps/app_api/embedded/hybrid_search/search')
})

afterEach(() => {
	wrapper?.unmount()
	wrapper = null
	vi.useRealTimers()
})

describe('search', () => {
	it('searches once after typing stops and renders grouped results', async () => {
		const client = fakeClient()
		const w = mountApp(client)
		await type(w, 'kub')
		await vi.advanceTimersByTimeAsync(100)
		await type(w, 'kuberntes upgrade')
		expect(client.search).not.toHaveBeenCalled()
		await settle()
		expect(client.search).toHaveBeenCalledTimes(1)
		const params = client.search.mock.calls[0][0]
		expect(params.get('q')).toBe('kuberntes upgrade')
		expect(params.get('algorithm')).toBe('hybrid')
		expect(params.get('explain')).toBe('1')

		const items = w.findAll('.hs-result')
		expect(items).toHaveLength(2)
		const first = items[0]
		expect(first.get('.hs-result__link').text()).toBe('Kubernetes upgrade runbook.md')
		expect(first.get('.hs-result__link').attributes('href')).toBe('/index.php/f/101')
		expect(first.get('.hs-result__path').text()).toBe('/Documents/Engineering/Kubernetes upgrade runbook.md')
		expect(first.findAll('.hs-excerpt mark').map((m) => m.text())).toEqual(['Kubernetes', 'upgrade', 'Kubernetes'])
		expect(first.get('.hs-relevance__label').text()).toBe('relevance')
		expect(first.get('.hs-relevance__value').text()).toBe('0.93')
		expect(first.text()).not.toContain('%')
		expect(first.get('[role="meter"]').attributes('aria-valuenow')).toBe('0.93')
		expect(first.text()).toContain('modified Aug 15, 2024')

		// The emoji note: rune offsets mark the right words, and it is flagged unverified.
		const second = items[1]
		expect(second.findAll('mark').map((m) => m.text())).toEqual(['Kubernetes', 'upgrade'])
		expect(second.find('.hs-badge--warning').text()).toBe('not re-checked')
		expect(first.find('.hs-badge--warning').exists()).toBe(false)

		const notices = w.findAll('.hs-notices li').map((n) => n.text())
		expect(notices[0]).toBe('Semantic search is off: no embedding model is configured')
		expect(notices[1]).toBe('1 result was removed because you can no longer open it.')
		expect(notices[2]).toContain('1 result is shown unchecked')
		expect(w.get('#hs-live').text()).toBe('2 results for “kuberntes upgrade” in 12 ms')
		expect(w.get('#hs-live').attributes('aria-live')).toBe('polite')
		expect(w.get('.hs-how').text()).toBe('Hybrid search, RRF fusion, weights Semantic 0.5, Keyword 0.3, Fuzzy 0.2')
		expect(window.location.hash).toBe('#q=kuberntes+upgrade')
	})

	it('searches at once on Enter', async () => {
		const client = fakeClient()
		const w = mountApp(client)
		await type(w, 'Apfelkuchen')
		await w.get('#hs-query').trigger('keydown', { key: 'Enter' })
		await flushPromises()
		expect(client.search).toHaveBeenCalledTimes(1)
		await settle()
		expect(client.search).toHaveBeenCalledTimes(1)
	})

	it('shows CJK matches after an emoji', async () => {
		const client = fakeClient({ search: async () => normalizeResult(cjk) })
		const w = mountApp(client)
		await type(w, '紅葉')
		await settle()
		expect(w.findAll('mark').map((m) => m.text())).toEqual(['紅葉'])
		expect(w.get('.hs-excerpt__where').text()).toBe('京都の旅')
		expect(w.get('.hs-how').text()).toBe('Keyword search')
	})

	it('marks text recognised by OCR with its page', async () => {
		const scanned = structuredClone(cjk)
		scanned.results[0].excerpt = { ...scanned.results[0].excerpt, page: 2, ocr: true }
		const client = fakeClient({ search: async () => normalizeResult(scanned) })
		const w = mountApp(client)
		await type(w, '紅葉')
		await settle()
		expect(w.get('.hs-excerpt__ocr').text()).toBe('OCR')
		expect(w.get('.hs-excerpt__where').text()).toContain('page 2')
	})

	it('ignores an older answer that arrives after a newer one', async () => {
		let release
		const client = fakeClient({
			search: vi.fn()
				.mockImplementationOnce(() => new Promise((resolve) => {
					release = () => resolve(normalizeResult(kube))
				}))
				.mockImplementationOnce(async () => normalizeResult(cjk)),
		})
		const w = mountApp(client)
		await type(w, 'kuberntes')
		await settle()
		const firstSignal = client.search.mock.calls[0][1]
		await type(w, '紅葉')
		await settle()
		expect(firstSignal.aborted).toBe(true)
		release()
		await flushPromises()
		expect(w.findAll('.hs-result')).toHaveLength(1)
		expect(w.get('.hs-result__link').text()).toBe('京都の旅')
	})

	it('switches the algorithm and sends only what it uses', async () => {
		const client = fakeClient()
		const w = mountApp(client)
		await type(w, 'x')
		await settle()
		await w.get('input[value="keyword"]').setValue(true)
		await settle()
		const params = client.search.mock.calls.at(-1)[0]
		expect(params.get('algorithm')).toBe('keyword')
		expect(params.has('fusion')).toBe(false)
		expect(params.has('semantic_weight')).toBe(false)
		expect(w.get('.hs-algorithm--active').text()).toBe('Keyword')
	})

	it('clears on Escape and shows the start screen', async () => {
		const client = fakeClient()
		const w = mountApp(client)
		await type(w, 'x')
		await settle()
		await w.get('#hs-query').trigger('keydown', { key: 'Escape' })
		await settle()
		expect(w.find('.hs-result').exists()).toBe(false)
		expect(w.get('.hs-empty--start').text()).toContain('Search the content of your files and notes')
	})

	it('shows the empty state with other methods to try', async () => {
		const client = fakeClient({ search: async () => normalizeResult({ query: 'zzz', algorithm: 'keyword', results: [] }) })
		const w = mountApp(client)
		await w.get('input[value="keyword"]').setValue(true)
		await type(w, 'zzz')
		await settle()
		expect(w.get('.hs-empty').text()).toContain('No results for “zzz”')
		expect(w.get('#hs-live').text()).toBe('No results for “zzz”')
		const fuzzy = w.findAll('.hs-empty__actions button').find((b) => b.text().startsWith('Fuzzy'))
		await fuzzy.trigger('click')
		await flushPromises()
		expect(client.search.mock.calls.at(-1)[0].get('algorithm')).toBe('fuzzy')
	})
})

describe('errors', () => {
	it('shows the server message of a 400 and puts weight errors next to the sliders', async () => {
		const client = fakeClient({ search: async () => {
			throw new ApiError('weights: the sum must be at most 1', 400, 'invalid')
		} })
		const w = mountApp(client)
		await type(w, 'x')
		await settle()
		expect(w.get('.hs-error__title').text()).toBe('The search was not accepted')
		expect(w.get('.hs-error__message').text()).toBe('weights: the sum must be at most 1')
		expect(w.get('#hs-live').text()).toBe('Search failed: weights: the sum must be at most 1')
		expect(w.get('#hs-options').isVisible()).toBe(true)
		expect(w.get('#hs-weights-msg').text()).toContain('The server says: weights: the sum must be at most 1')
	})

	const titles = [
		{ status: 400, want: 'The search was not accepted' },
		{ status: 404, want: 'The search failed' },
		{ status: 500, want: 'The search failed' },
		{ status: 503, want: 'Search is not available right now' },
	]
	for (const c of titles) {
		it(`titles a ${c.status} "${c.want}"`, async () => {
			const w = mountApp(fakeClient({ search: async () => {
				throw new ApiError('server words', c.status)
			} }))
			await type(w, 'x')
			await settle()
			expect(w.get('.hs-error__title').text()).toBe(c.want)
			expect(w.get('.hs-error__message').text()).toBe('server words')
		})
	}

	it('marks methods the server could not run', async () => {
		const w = mountApp(fakeClient())
		await type(w, 'x')
		await settle()
		const semantic = w.findAll('.hs-algorithm').find((l) => l.text().startsWith('Semantic'))
		expect(semantic.classes()).toContain('hs-algorithm--off')
		expect(semantic.get('[title]').attributes('title')).toBe('Semantic search is off: no embedding model is configured')
		expect(semantic.text()).toBe('Semantic (off)')
		// The weight slider of a leg that cannot run is disabled, with the reason.
		await w.get('.hs-options-toggle').trigger('click')
		expect(w.get('#hs-w-semantic').attributes('disabled')).toBeDefined()
		expect(w.get('#hs-w-semantic-off').text()).toBe('Cannot run: no embedding model is configured')
	})

	it('parks the weight of a leg that cannot run and gives it back when the leg runs again', async () => {
		let semanticUp = false
		const search = vi.fn(async (params) => {
			const algorithm = params.get('algorithm')
			const weights = Object.fromEntries(['semantic', 'keyword', 'fuzzy'].map((leg) => [leg, Number(params.get(`${leg}_weight`))]))
			if (algorithm === 'semantic' && !semanticUp) {
				throw new ApiError('semantic search is unavailable', 503)
			}
			const skipped = algorithm === 'hybrid' && weights.semantic > 0 && !semanticUp
				? [{ leg: 'semantic', code: 'embedder_unavailable', reason: 'unavailable: embedding: ollama is unreachable' }]
				: []
			return normalizeResult({ ...kube, algorithm, weights: algorithm === 'hybrid' ? weights : undefined, skipped_legs: skipped })
		})
		const client = fakeClient({ search })
		const w = mountApp(client)
		await type(w, 'x')
		await settle()
		expect(search).toHaveBeenCalledTimes(1)
		await w.get('.hs-options-toggle').trigger('click')
		// The semantic leg takes no share: its slider is at 0, disabled, with
		// the reason; parking it did not search again, and is no change to reset.
		expect(w.get('#hs-w-semantic').element.value).toBe('0')
		expect(w.get('#hs-w-semantic').attributes('disabled')).toBeDefined()
		expect(w.get('#hs-w-semantic-off').text()).toBe('Cannot run: the embedding model is not answering')
		expect(w.get('#hs-weights-msg').text()).toContain('Sum 0.5 (at most 1)')
		await settle()
		expect(search).toHaveBeenCalledTimes(1)
		expect(w.findAll('button').find((b) => b.text() === 'Reset to defaults').attributes('disabled')).toBeDefined()
		// Keyword can take the whole budget.
		await w.get('#hs-w-keyword').setValue('1')
		await settle()
		expect(search).toHaveBeenCalledTimes(2)
		let p = search.mock.calls[1][0]
		expect([p.get('semantic_weight'), p.get('keyword_weight'), p.get('fuzzy_weight')]).toEqual(['0', '1', '0'])
		expect(w.findAll('.hs-weights__error')).toHaveLength(0)
		// Reset keeps the leg parked.
		await w.findAll('button').find((b) => b.text() === 'Reset to defaults').trigger('click')
		await settle()
		expect(search).toHaveBeenCalledTimes(3)
		p = search.mock.calls[2][0]
		expect([p.get('semantic_weight'), p.get('keyword_weight'), p.get('fuzzy_weight')]).toEqual(['0', '0.3', '0.2'])
		// Ollama is back. The panel asks at most every 30 s whether a parked
		// leg runs (a search does not try it), then gives the weight back,
		// the others making room, and searches with it.
		semanticUp = true
		await w.get('#hs-w-keyword').setValue('0.8')
		await settle()
		expect(search.mock.calls.filter((c) => c[0].get('algorithm') === 'semantic')).toHaveLength(0)
		await vi.advanceTimersByTimeAsync(30_000)
		await w.get('#hs-w-keyword').setValue('0.7')
		await settle()
		await settle()
		const probes = search.mock.calls.filter((c) => c[0].get('algorithm') === 'semantic')
		expect(probes).toHaveLength(1)
		p = search.mock.calls.at(-1)[0]
		// 0/0.7/0.2 + semantic 0.5: keyword and fuzzy give 0.4 in proportion.
		expect([p.get('algorithm'), p.get('semantic_weight'), p.get('keyword_weight'), p.get('fuzzy_weight')]).toEqual(['hybrid', '0.5', '0.38', '0.12'])
		expect(w.get('#hs-w-semantic').attributes('disabled')).toBeUndefined()
		expect(w.find('#hs-w-semantic-off').exists()).toBe(false)
	})

	it('shows a network error and retries', async () => {
		const search = vi.fn()
			.mockRejectedValueOnce(new ApiError('Could not reach the app: Failed to fetch', 0, 'network'))
			.mockResolvedValueOnce(normalizeResult(kube))
		const client = fakeClient({ search })
		const w = mountApp(client)
		await type(w, 'x')
		await settle()
		expect(w.get('.hs-error__title').text()).toBe('Could not reach the app')
		expect(w.get('.hs-error__message').text()).toBe('Could not reach the app: Failed to fetch')
		await w.get('.hs-error button').trigger('click')
		await flushPromises()
		expect(w.find('.hs-error').exists()).toBe(false)
		expect(w.findAll('.hs-result')).toHaveLength(2)
	})

	it('does not search with invalid weights and says why', async () => {
		const client = fakeClient()
		const w = mountApp(client)
		await w.get('.hs-options-toggle').trigger('click')
		// Typing a number is taken as it is and checked; the slider rebalances.
		await w.get('.hs-weight input[type="number"]').setValue('0.9')
		await type(w, 'x')
		await settle()
		expect(client.search).not.toHaveBeenCalled()
		expect(w.get('[role="alert"]').text()).toContain('The weights add up to 1.4; together they may be at most 1.')
		expect(w.get('#hs-w-semantic').attributes('aria-invalid')).toBe('true')
		expect(w.get('#hs-weights-msg').text()).toContain('Sum 1.4 (at most 1)')
		expect(w.findAll('.hs-weights__error')).toHaveLength(1)
		await w.get('.hs-weight input[type="number"]').setValue('0.4')
		await settle()
		expect(client.search).toHaveBeenCalledTimes(1)
		expect(client.search.mock.calls[0][0].get('semantic_weight')).toBe('0.4')
	})

	it('disables the weights for automatic fusion', async () => {
		const client = fakeClient()
		const w = mountApp(client)
		await w.get('.hs-options-toggle').trigger('click')
		w.findComponent({ name: 'SearchOptions' }).props('opts').fusion = 'auto'
		await flushPromises()
		expect(w.get('#hs-w-semantic').attributes('disabled')).toBeDefined()
		expect(w.text()).toContain('Automatic fusion chooses the weights from the query.')
	})
})

describe('compare view', () => {
	it('runs every method, with latency and overlap, and says which could not run', async () => {
		const search = vi.fn(async (params) => {
			if (params.get('algorithm') === 'semantic') {
				throw new ApiError('search: no retrieval leg could run (semantic: semantic search is off: no embedding model is configured)', 503, 'unavailable')
			}
			return normalizeResult(kube)
		})
		const w = mountApp(fakeClient({ search }))
		await type(w, 'x')
		await settle()
		await w.get('input[name="hs-view"][value="compare"]').setValue(true)
		await flushPromises()
		// The search said semantic_off: the comparison does not ask for a
		// method that cannot run (issue 23: a 400 on every run), it says why.
		expect(search.mock.calls.slice(1).map((c) => c[0].get('algorithm')).sort()).toEqual(['fuzzy', 'hybrid', 'keyword'])
		expect(w.get('.hs-compare__col--semantic .hs-compare__error').text()).toBe('Cannot run: no embedding model is configured')
		expect(w.get('.hs-compare__col--keyword .hs-compare__took').text()).toBe('12 ms')
		expect(w.get('.hs-compare__col--keyword .hs-compare__overlap').text()).toBe('· 2 of 2 also in hybrid')
		expect(w.findAll('.hs-compare__col--hybrid li')).toHaveLength(2)
	})
})

describe('page', () => {
	it('adds no second page heading (Nextcloud\'s layout has the h1)', () => {
		const w = mountApp(fakeClient(), { info: { display_name: 'Hybrid Search' } })
		expect(w.findAll('h1')).toHaveLength(0)
		expect(w.findAll('h2').map((h) => h.text())).toEqual(['Hybrid Search'])
	})
})

describe('result details', () => {
	it('expands more matches and the ranking explanation', async () => {
		const w = mountApp(fakeClient())
		await type(w, 'x')
		await settle()
		const first = w.findAll('.hs-result')[0]
		const more = first.get('.hs-more-toggle')
		const explain = first.get('.hs-explain-toggle')
		expect(more.text()).toBe('2 more matches')
		expect(more.attributes('aria-expanded')).toBe('false')
		await more.trigger('click')
		expect(more.attributes('aria-expanded')).toBe('true')
		expect(first.findAll('.hs-more .hs-excerpt')).toHaveLength(2)
		expect(first.get('.hs-more').text()).toContain('Upgrading the control plane')
		await explain.trigger('click')
		const rows = first.findAll('.hs-explain tbody tr').map((r) => r.findAll('th, td').map((c) => c.text()))
		expect(rows).toEqual([
			['Semantic', 'did not run', '', ''],
			['Keyword', '#2', '3.1416', ''],
			['Fuzzy', '#1', '0.6120', ''],
		])
		expect(first.get('.hs-explain__fused').text()).toBe('Fused score 0.0291')
	})

	it('puts the web root in front of links and refuses script links', async () => {
		const bad = structuredClone(kube)
		bad.results[1].link = 'javascript:alert(1)'
		const w = mountApp(fakeClient({ search: async () => normalizeResult(bad) }), { webroot: '/nc' })
		await type(w, 'x')
		await settle()
		const links = w.findAll('.hs-result__link')
		expect(links[0].element.tagName).toBe('A')
		expect(links[0].attributes('href')).toBe('/nc/index.php/f/101')
		expect(links[1].element.tagName).toBe('SPAN')
		expect(w.html()).not.toContain('javascript:')
	})

	it('moves through results with the arrow keys', async () => {
		const w = mountApp(fakeClient())
		await type(w, 'x')
		await settle()
		const input = w.get('#hs-query')
		const links = w.findAll('.hs-result__link')
		await input.trigger('keydown', { key: 'ArrowDown' })
		expect(document.activeElement).toBe(links[0].element)
		await links[0].trigger('keydown', { key: 'ArrowDown' })
		expect(document.activeElement).toBe(links[1].element)
		await links[1].trigger('keydown', { key: 'ArrowDown' })
		expect(document.activeElement).toBe(links[1].element)
		await links[1].trigger('keydown', { key: 'ArrowUp' })
		expect(document.activeElement).toBe(links[0].element)
		await links[0].trigger('keydown', { key: 'ArrowUp' })
		expect(document.activeElement).toBe(input.element)
	})

	it('restores a search from the URL fragment', async () => {
		window.history.replaceState(null, '', '#q=%E7%B4%85%E8%91%89&algorithm=keyword&types=note')
		const client = fakeClient({ search: async () => normalizeResult(cjk) })
		const w = mountApp(client)
		await flushPromises()
		expect(client.search).toHaveBeenCalledTimes(1)
		const params = client.search.mock.calls[0][0]
		expect(params.get('q')).toBe('紅葉')
		expect(params.get('algorithm')).toBe('keyword')
		expect(params.get('types')).toBe('note')
		expect(w.get('#hs-query').element.value).toBe('紅葉')
		expect(w.get('.hs-options-toggle').attributes('aria-expanded')).toBe('true')
	})
})

describe('status view', () => {
	async function openStatus(w) {
		await w.get('.hs-nav-status a').trigger('click')
		await flushPromises()
	}

	it('shows counts, queue, scan, health and problems, and refreshes while busy', async () => {
		const client = fakeClient()
		const w = mountApp(client, { admin: true })
		await flushPromises()
		// The status is read from the start: the navigation counts waiting files.
		expect(client.status).toHaveBeenCalledTimes(1)
		expect(w.get('.hs-nav-status').text()).toContain('5')
		await openStatus(w)
		const count = (key) => w.get(`[data-count="${key}"] dd`).text()
		expect(count('indexed')).toBe('1,234')
		expect(count('pending')).toBe('5')
		expect(count('failed')).toBe('2')
		expect(count('chunks')).toBe('56,789')
		expect(w.get('.hs-queue').text()).toBe('120 jobs waiting · 2.5 jobs/s · about 48 s left')
		expect(w.get('.hs-scan').text()).toContain('Scanning: 1 of 4 users done')
		// The state in the user's words, never the server's.
		expect(w.get('.hs-component--bad').text()).toContain('the embedding model is not answering')
		expect(w.get('.hs-status').text()).not.toContain('ollama:11434')
		const rows = w.findAll('.hs-problems tbody tr').map((r) => r.findAll('td').map((c) => c.text()).slice(0, 3))
		expect(rows).toEqual([
			['/Documents/scan.pdf', 'failed', 'extract: the PDF is encrypted'],
			['/Photos/huge.tiff', 'skipped', 'larger than 50 MB'],
		])
		// It refreshes by itself while work is under way (issue 23: it stayed
		// "14 of 14" while 43 files arrived), one shared read for every view.
		await vi.advanceTimersByTimeAsync(5000)
		await flushPromises()
		expect(client.status).toHaveBeenCalledTimes(2)
		await w.get('.hs-nav-search a').trigger('click')
		await vi.advanceTimersByTimeAsync(5000)
		await flushPromises()
		expect(client.status).toHaveBeenCalledTimes(3)
		// Not while the page is hidden; at once when it is shown again.
		Object.defineProperty(document, 'hidden', { configurable: true, get: () => true })
		document.dispatchEvent(new Event('visibilitychange'))
		await vi.advanceTimersByTimeAsync(20000)
		expect(client.status).toHaveBeenCalledTimes(3)
		Object.defineProperty(document, 'hidden', { configurable: true, get: () => false })
		document.dispatchEvent(new Event('visibilitychange'))
		await flushPromises()
		expect(client.status).toHaveBeenCalledTimes(4)
	})

	it('shows users who are not admins their own progress and no infrastructure', async () => {
		const w = mountApp(fakeClient(), { admin: false })
		await openStatus(w)
		expect(w.find('.hs-components').exists()).toBe(false)
		expect(w.get('.hs-health').text()).toBe('Some parts of the search are not working right now; an administrator can see why.')
		expect(w.get('#hs-st-files').text()).toBe('Your files')
	})

	it('shows a paused queue, each Ollama host and partly indexed files', async () => {
		const paused = {
			...busy,
			queue: { pending: 4, jobs_per_second: 0, eta_seconds: 0, paused: true, paused_reason: 'no embedding host answers' },
			embedders: [{ host: 'http://gpu1:11434', ok: false, error: 'host unreachable' }, { host: 'http://gpu2:11434', ok: false, error: 'host unreachable' }],
			problems: [{ file_id: 7, path: '/long.md', status: 'partial', error: '1 of 3 chunks have no vector', updated: '2024-10-01T10:00:00Z' }],
		}
		const w = mountApp(fakeClient({ status: vi.fn().mockResolvedValue(paused) }), { admin: true })
		await openStatus(w)
		expect(w.get('.hs-queue').text()).toBe('4 jobs waiting · paused: no embedding host answers')
		expect(w.findAll('.hs-component--bad').map((c) => c.get('.hs-component__name').text())).toEqual(['Embedder', 'Ollama at http://gpu1:11434', 'Ollama at http://gpu2:11434'])
		const rows = w.findAll('.hs-problems tbody tr').map((r) => r.findAll('td').map((c) => c.text()).slice(0, 3))
		expect(rows).toEqual([['/long.md', 'partly indexed', '1 of 3 chunks have no vector']])
		// The search view says indexing is paused, and how far it is.
		await w.get('.hs-nav-search a').trigger('click')
		await flushPromises()
		expect(w.get('.hs-index-banner').text()).toContain('Indexing is paused: no embedding host answers. 1,239 of 1,244 of your files are processed')
	})

	it('refreshes an idle index less often, and shows errors', async () => {
		const idle = { ...busy, files: { ...busy.files, pending: 0 }, queue: { pending: 0 }, scan: { running: false } }
		const status = vi.fn().mockResolvedValueOnce(idle).mockRejectedValueOnce(new ApiError('The app is not reachable right now (500). Try again in a moment.', 500)).mockResolvedValue(idle)
		const client = fakeClient({ status })
		const w = mountApp(client)
		await openStatus(w)
		await vi.advanceTimersByTimeAsync(10000)
		expect(status).toHaveBeenCalledTimes(1)
		expect(w.find('.hs-index-banner').exists()).toBe(false)
		// The open status view reads an idle index every 15 s (the navigation
		// alone, every minute).
		await vi.advanceTimersByTimeAsync(5000)
		await flushPromises()
		expect(status).toHaveBeenCalledTimes(2)
		expect(w.get('.hs-status [role="alert"]').text()).toContain('The app is not reachable right now (500).')
		await w.get('.hs-status__bar button').trigger('click')
		await flushPromises()
		expect(w.find('.hs-status [role="alert"]').exists()).toBe(false)
	})

	it('lets admins see every user', async () => {
		const client = fakeClient({ status: async (_s, all) => (all ? { ...busy, per_user: { alice: { indexed: 3 } } } : busy) })
		const w = mountApp(client, { admin: true })
		await openStatus(w)
		await w.get('.hs-status__bar input[type="checkbox"]').setValue(true)
		await flushPromises()
		expect(client.status.mock.calls.at(-1)[1]).toBe(true)
		expect(w.get('#hs-st-users').exists()).toBe(true)
	})

	it('shows the sections in the app navigation, the one shown in the URL', async () => {
		const w = mountApp(fakeClient())
		expect(w.findAll('main')).toHaveLength(0) // the page shell has the one <main>
		expect(w.get('.hs-nav-search').find('[aria-current="page"]').exists()).toBe(true)
		await w.get('.hs-nav-assistant a').trigger('click')
		await flushPromises()
		expect(window.location.hash).toBe('#section=assistant')
		expect(w.get('.hs-nav-assistant').find('[aria-current="page"]').exists()).toBe(true)
		expect(w.find('#hs-panel-assistant').exists()).toBe(true)
		w.unmount()
		const again = mountApp(fakeClient())
		expect(again.find('#hs-panel-assistant').exists()).toBe(true)
	})
})

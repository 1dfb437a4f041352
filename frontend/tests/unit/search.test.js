import { register, setLanguage, unregister } from '@nextcloud/l10n'
import { flushPromises, mount } from '@vue/test-utils'
// What the search page says and offers (issue 23): corrections, weak
// matches, a method that cannot run, reasons for no results, paging,
// filters with counts, sort, file context and actions, the user's locale.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../src/App.vue'
import de from '../../../l10n/de.json'
import { normalizeResult } from '../../src/lib/api.js'
import { APP_ID } from '../../src/lib/l10n.js'
import kube from '../fixtures/search-kubernetes.json'

const idle = { files: { indexed: 10, pending: 0 }, queue: { pending: 0 }, components: { store: { ok: true } } }

function result(over = {}) {
	return normalizeResult({ ...structuredClone(kube), total: 2, ...over })
}

function fakeClient(search, extra = {}) {
	return { search: vi.fn(search ?? (async () => result())), status: vi.fn(async () => idle), ...extra }
}

let wrapper
function mountApp(client, props = {}) {
	wrapper = mount(App, { props: { client, locale: 'en-US', user: 'alice', ...props }, attachTo: document.body })
	return wrapper
}

async function search(w, text) {
	await w.get('#hs-query').setValue(text)
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
	unregister(APP_ID)
	setLanguage('en')
})

describe('corrections', () => {
	const corrected = () => result({ corrections: [{ from: 'kuberntes', to: 'kubernetes', leg: 'fuzzy' }], corrected_query: 'kubernetes upgrade' })

	it('says what the search looked for, and searches as typed on request', async () => {
		const client = fakeClient(async (p) => (p.get('no_correction') ? result() : corrected()))
		const w = mountApp(client)
		await search(w, 'kuberntes upgrade')
		const line = w.get('.hs-correction')
		expect(line.text()).toBe('Showing results for kubernetes upgrade · Search instead for “kuberntes upgrade”')
		expect(line.findAll('strong').map((s) => s.text())).toEqual(['kubernetes'])
		await w.get('.hs-correction__exact').trigger('click')
		await flushPromises()
		expect(client.search.mock.calls.at(-1)[0].get('no_correction')).toBe('1')
		expect(window.location.hash).toContain('exact=1')
		expect(w.get('.hs-correction--exact').text()).toContain('Searched for “kuberntes upgrade” as typed.')
		await w.get('.hs-correction__fix').trigger('click')
		await flushPromises()
		expect(client.search.mock.calls.at(-1)[0].has('no_correction')).toBe(false)
	})

	it('credits the leg that found the correction in the explanation', async () => {
		const r = corrected()
		r.results[0].explain = { legs: { keyword: { rank: 1, score: 3.1 } }, fused: 0.02, corrected: [{ from: 'kuberntes', to: 'kubernetes', leg: 'fuzzy' }] }
		const w = mountApp(fakeClient(async () => r))
		await search(w, 'kuberntes upgrade')
		const first = w.findAll('.hs-result')[0]
		await first.get('.hs-explain-toggle').trigger('click')
		expect(first.get('[data-leg="keyword"] .hs-explain__note').text()).toBe('through “kubernetes”, the correction of “kuberntes” found by Fuzzy')
		expect(first.get('[data-leg="fuzzy"] .hs-explain__note').text()).toBe('found the correction the keyword search used')
	})

	it('marks matches in the title and the heading path', async () => {
		const r = result()
		r.results[0].title_highlights = [[0, 10]]
		r.results[0].excerpt.heading_highlights = [[[0, 10]]]
		const w = mountApp(fakeClient(async () => r))
		await search(w, 'kuberntes upgrade')
		const first = w.findAll('.hs-result')[0]
		expect(first.get('.hs-result__link mark').text()).toBe('Kubernetes')
		expect(first.get('.hs-excerpt__headings mark').text()).toBe('Kubernetes')
	})
})

describe('weak matches', () => {
	it('are left out, counted, and shown behind a button with the reason', async () => {
		const weak = { file_id: 9, title: 'Year plan', path: '/Notes/Year plan.md', type: 'note', mime: 'text/markdown', relevance: 0.02, weak: true, excerpt: { text: '2024 plan' }, explain: { legs: { keyword: { rank: 3, score: 0.1 } }, fused: 0.01, weak_reason: 'low_relevance', weak_threshold: 0.1 } }
		const client = fakeClient(async (p) => (p.get('include_weak') ? result({ weak_count: 1, results: [...kube.results, weak] }) : result({ weak_count: 1 })))
		const w = mountApp(client)
		await search(w, 'PII-2024-0042')
		expect(w.findAll('.hs-result')).toHaveLength(2)
		expect(w.find('.hs-weak-divider').exists()).toBe(false)
		await w.get('.hs-show-weak').trigger('click')
		await flushPromises()
		expect(client.search.mock.calls.at(-1)[0].get('include_weak')).toBe('1')
		expect(w.findAll('.hs-result')).toHaveLength(3)
		expect(w.get('.hs-weak-divider').text()).toBe('Weaker matches')
		const last = w.findAll('.hs-result')[2]
		expect(last.get('.hs-badge--muted').text()).toBe('weak match')
		await last.get('.hs-explain-toggle').trigger('click')
		expect(last.get('.hs-explain__weak').text()).toBe('A weak match: its relevance is below 0.1, the least the search counts as a match.')
	})
})

describe('a method that cannot run', () => {
	it('is disabled from the start with the reason, and never asked for', async () => {
		const client = fakeClient(async () => result({ skipped_legs: [] }))
		const w = mountApp(client, { semantic: false })
		const semantic = w.get('input[name="hs-algorithm"][value="semantic"]')
		expect(semantic.attributes('disabled')).toBeDefined()
		expect(w.get('#hs-semantic-off').text()).toBe('Semantic search is off: no embedding model is configured')
		await search(w, 'x')
		expect(client.search.mock.calls[0][0].get('semantic_weight')).toBe('0')
		await w.get('input[name="hs-view"][value="compare"]').setValue(true)
		await flushPromises()
		expect(client.search.mock.calls.map((c) => c[0].get('algorithm'))).not.toContain('semantic')
		expect(w.get('.hs-compare__col--semantic').text()).toContain('Cannot run: no embedding model is configured')
	})

	it('says it in the user\'s language', async () => {
		setLanguage('de')
		register(APP_ID, de.translations)
		const w = mountApp(fakeClient(), { semantic: false, locale: 'de-DE' })
		expect(w.get('#hs-semantic-off').text()).toBe('Die Suche „Semantisch“ ist aus: es ist kein Embedding-Modell eingerichtet')
	})
})

describe('no results', () => {
	it('says why a query could not be used', async () => {
		const w = mountApp(fakeClient(async () => normalizeResult({ query: '!!!', results: [], reason_code: 'nothing_to_search' })))
		await search(w, '!!!')
		expect(w.get('.hs-empty').text()).toContain('The query holds no word or number to look for.')
		expect(w.find('.hs-error').exists()).toBe(false)
	})
})

describe('paging, filters and sort', () => {
	it('loads more results from where the page ends', async () => {
		const more = { ...kube.results[0], file_id: 201, title: 'Another runbook' }
		const client = fakeClient(async (p) => (p.get('offset') ? result({ total: 3, results: [more] }) : result({ total: 3 })))
		const w = mountApp(client)
		await search(w, 'runbook')
		expect(w.get('.hs-filters__count').text()).toBe('3 matches')
		await w.get('.hs-load-more').trigger('click')
		await flushPromises()
		expect(client.search.mock.calls.at(-1)[0].get('offset')).toBe('2')
		expect(w.findAll('.hs-result')).toHaveLength(3)
		expect(w.find('.hs-load-more').exists()).toBe(false)
	})

	it('filters by kind, time and owner with counts, sorts, and keeps it all in the URL', async () => {
		const facets = {
			types: [{ value: 'file', count: 2 }, { value: 'note', count: 1 }],
			mimes: [{ value: 'text/markdown', count: 2 }, { value: 'application/pdf', count: 1 }],
			folders: [{ value: '/Documents', count: 3 }],
			modified: [{ value: 'year', count: 3 }, { value: 'week', count: 1 }],
			owner: [{ value: 'me', count: 2 }, { value: 'others', count: 1 }],
		}
		const client = fakeClient(async () => result({ total: 3, facets }))
		const w = mountApp(client)
		await search(w, 'plan')
		expect(client.search.mock.calls[0][0].get('facets')).toBe('1')
		const filters = w.findComponent({ name: 'SearchFilters' })
		const labels = (name) => filters.vm.$.setupState[`${name}Options`].map((o) => o.label)
		expect(labels('kind')).toEqual(['All kinds', 'Note (1)', 'PDF (1)', 'Text (1)'])
		expect(labels('owner')).toEqual(['Anyone', 'Owned by me (2)', 'Shared with me (1)'])
		expect(labels('modified')).toEqual(['Any time', 'Last 24 hours (0)', 'Last 7 days (1)', 'Last 30 days (0)', 'Last 12 months (3)', 'Older than a year (0)'])
		expect(labels('folder')).toEqual(['All folders (3)', '/Documents (3)'])
		filters.vm.$.setupState.kind = filters.vm.$.setupState.kindOptions.find((o) => o.id === 'pdf')
		filters.vm.$.setupState.owner = filters.vm.$.setupState.ownerOptions.find((o) => o.id === 'others')
		filters.vm.$.setupState.sort = filters.vm.$.setupState.sortOptions.find((o) => o.id === 'modified')
		await vi.advanceTimersByTimeAsync(400)
		await flushPromises()
		const p = client.search.mock.calls.at(-1)[0]
		expect([p.get('types'), p.get('mime'), p.get('owner'), p.get('sort')]).toEqual(['file', 'application/pdf', 'others', 'modified'])
		expect(window.location.hash).toBe('#q=plan&kind=pdf&mime=application%2Fpdf&owner=others&sort=modified')
	})
})

describe('a result in its context', () => {
	it('shows Nextcloud\'s preview, the owner, and what to do with the file', async () => {
		const r = result()
		r.results[0].owner = 'bob'
		r.results[1].owner = 'alice'
		const w = mountApp(fakeClient(async () => r))
		await search(w, 'x')
		const [first, second] = w.findAll('.hs-result')
		expect(first.get('.hs-result__preview').attributes('src')).toBe('/index.php/core/preview?fileId=101&x=64&y=64&a=1')
		expect(first.get('.hs-result__owner').text()).toBe('· shared by bob')
		expect(second.find('.hs-result__owner').exists()).toBe(false)
		expect(first.get('.hs-action-files').attributes('href')).toBe('/index.php/apps/files/files/101?dir=%2FDocuments%2FEngineering&openfile=true')
		expect(first.get('.hs-action-download').attributes('href')).toBe('/remote.php/dav/files/alice/Documents/Engineering/Kubernetes%20upgrade%20runbook.md')
		// A type without a preview: Nextcloud answers 404, the panel shows its icon.
		await first.get('.hs-result__preview').trigger('error')
		expect(first.find('.hs-result__preview').exists()).toBe(false)
		expect(first.find('.hs-result__icon').exists()).toBe(true)
	})

	it('writes numbers and dates in the user\'s locale', async () => {
		const w = mountApp(fakeClient(), { locale: 'de-DE' })
		await search(w, 'x')
		const first = w.findAll('.hs-result')[0]
		expect(first.get('.hs-relevance__value').text()).toBe('0,93')
		expect(first.text()).toContain('15.08.2024')
	})
})

describe('the search box', () => {
	it('has the focus and a clear button', async () => {
		const w = mountApp(fakeClient())
		await flushPromises()
		expect(document.activeElement).toBe(w.get('#hs-query').element)
		await search(w, 'x')
		const clear = w.findAll('button').find((b) => b.attributes('aria-label') === 'Clear the search')
		expect(clear).toBeDefined()
		await clear.trigger('click')
		await vi.advanceTimersByTimeAsync(400)
		expect(w.get('#hs-query').element.value).toBe('')
		expect(w.find('.hs-empty--start').exists()).toBe(true)
	})
})

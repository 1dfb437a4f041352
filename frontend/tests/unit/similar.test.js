import { flushPromises, mount } from '@vue/test-utils'
// Find similar and the admin's search defaults in the panel.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../src/App.vue'
import { createClient, normalizeResult } from '../../src/lib/api.js'
import { similarIds } from '../../src/lib/env.js'
import { decodeState, defaultOptions, encodeState, setServerDefaults } from '../../src/lib/query.js'
import kube from '../fixtures/search-kubernetes.json'

const json = (status, body) => ({ status, statusText: '', data: JSON.stringify(body) })

describe('similarIds', () => {
	it.each([
		['?fileIds=12', [12]],
		['?fileIds=12,34', [12, 34]],
		['?fileIds=12,abc,-3,0', [12]],
		['?x=1', []],
		['', []],
	])('%s', (search, want) => expect(similarIds(search)).toEqual(want))
})

describe('client', () => {
	it('asks GET api/similar and api/settings', async () => {
		const calls = []
		const http = {
			async request(cfg) {
				calls.push(cfg.url)
				return cfg.url.includes('similar')
					? json(200, { sources: [{ file_id: 12, title: 'Plan' }], space: 'keyword', note: 'no model', results: [{ file_id: 3 }] })
					: json(200, { fusion: 'linear', weights: { semantic: 0.2, keyword: 0.6, fuzzy: 0.2 } })
			},
		}
		const c = createClient({ base: '/p/', http })
		const r = await c.similar([12, 34])
		expect(calls[0]).toBe('/p/api/similar?file_ids=12,34')
		expect(r.sources[0].title).toBe('Plan')
		expect(r.results[0].excerpt).toEqual({ chunk_no: 0, text: '' })
		expect((await c.settings()).fusion).toBe('linear')
	})
})

describe('server defaults', () => {
	afterEach(() => setServerDefaults(null))
	it('become the options a new search starts with, and what a reset returns to', () => {
		setServerDefaults({ fusion: 'linear', weights: { semantic: 0.2, keyword: 0.6, fuzzy: 0.2 } })
		expect(defaultOptions()).toMatchObject({ fusion: 'linear', weights: { semantic: 0.2, keyword: 0.6, fuzzy: 0.2 } })
		// The address records only what differs from them.
		expect(encodeState('x', defaultOptions())).toBe('q=x')
		expect(decodeState('#q=x').opts.fusion).toBe('linear')
	})
	it('ignore values that break the rules', () => {
		setServerDefaults({ fusion: 'max', weights: { semantic: 0.9, keyword: 0.9, fuzzy: 0 } })
		expect(defaultOptions()).toMatchObject({ fusion: 'rrf', weights: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 } })
	})
})

describe('SimilarView', () => {
	let wrapper
	beforeEach(() => window.history.replaceState(null, '', '/index.php/apps/app_api/embedded/hybrid_search/search?fileIds=12'))
	afterEach(() => {
		wrapper?.unmount()
		wrapper = null
	})

	it('shows the documents like the file, and goes back to the search', async () => {
		const res = normalizeResult(kube)
		const client = {
			search: vi.fn(async () => res),
			status: vi.fn(),
			similar: vi.fn(async () => ({ ...res, sources: [{ file_id: 12, title: 'Runbook', path: '/Docs/Runbook.md', link: '/index.php/f/12' }], space: 'semantic', note: '' })),
		}
		wrapper = mount(App, { props: { client, locale: 'en-US', similar: [12] }, attachTo: document.body })
		await flushPromises()
		expect(client.similar).toHaveBeenCalledWith([12], expect.anything())
		expect(wrapper.get('.hs-similar__title').text()).toBe('Similar to “Runbook”')
		expect(wrapper.findAll('.hs-similar__results .hs-result')).toHaveLength(res.results.length)
		expect(wrapper.find('#hs-query').exists()).toBe(false)
		await wrapper.get('.hs-similar__close').trigger('click')
		await flushPromises()
		expect(wrapper.find('.hs-similar').exists()).toBe(false)
		expect(wrapper.find('#hs-query').exists()).toBe(true)
		expect(window.location.search).toBe('')
	})

	it('says when the file is not in the index', async () => {
		const client = { search: vi.fn(), status: vi.fn(), similar: vi.fn(async () => {
			throw Object.assign(new Error('this file is not in the index for you'), { status: 404 })
		}) }
		wrapper = mount(App, { props: { client, locale: 'en-US', similar: [12] }, attachTo: document.body })
		await flushPromises()
		expect(wrapper.get('.hs-similar .hs-error__message').text()).toContain('not in the index')
	})
})

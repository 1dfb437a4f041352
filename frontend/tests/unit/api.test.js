import { describe, expect, it } from 'vitest'
import { ApiError, createClient, errorMessage, normalizeResult, normalizeViz, retryable } from '../../src/lib/api.js'

// fakeHTTP answers axios-style requests from a function of the config.
function fakeHTTP(answer) {
	const calls = []
	return {
		calls,
		async request(config) {
			calls.push(config)
			return answer(config)
		},
	}
}

const json = (status, body) => ({ status, statusText: '', data: body === undefined ? '' : JSON.stringify(body) })

describe('createClient', () => {
	it('asks through the proxy with Accept and the search parameters', async () => {
		const http = fakeHTTP(() => json(200, { query: 'x', results: [{ file_id: 1 }] }))
		const c = createClient({ base: '/index.php/apps/app_api/proxy/hybrid_search/', http })
		const r = await c.search(new URLSearchParams({ q: 'x' }))
		expect(http.calls[0]).toMatchObject({ method: 'GET', url: '/index.php/apps/app_api/proxy/hybrid_search/api/search?q=x', headers: { Accept: 'application/json' } })
		expect(r.results[0].excerpt).toEqual({ chunk_no: 0, text: '' })
		expect(r.skipped_legs).toEqual([])
	})

	it('lists, issues and revokes tokens', async () => {
		const http = fakeHTTP((cfg) => {
			if (cfg.method === 'GET') {
				return json(200, { tokens: [{ id: 'a', name: 'laptop' }] })
			}
			if (cfg.method === 'POST') {
				return json(201, { token: 'secret', id: 'b', name: cfg.data.name })
			}
			return { status: 204, data: '' }
		})
		const c = createClient({ base: '/p/', http })
		expect(await c.tokens()).toEqual([{ id: 'a', name: 'laptop' }])
		expect(await c.issueToken('phone')).toEqual({ token: 'secret', id: 'b', name: 'phone' })
		expect(http.calls[1]).toMatchObject({ method: 'POST', url: '/p/api/tokens', data: { name: 'phone', ttl_days: 0 } })
		await c.revokeToken('a/b')
		expect(http.calls[2]).toMatchObject({ method: 'DELETE', url: '/p/api/tokens/a%2Fb' })
	})

	it('asks for the map and the status', async () => {
		const http = fakeHTTP((cfg) => json(200, cfg.url.includes('viz') ? { space: 'semantic', points: [{ x: 1, y: 2 }, { x: null, y: 1 }] } : { files: {} }))
		const c = createClient({ base: '/p/', http })
		const m = await c.viz('q=x')
		expect(m.points).toHaveLength(1)
		expect(http.calls[0].url).toBe('/p/api/viz?q=x')
		await c.status(undefined, true)
		expect(http.calls[1].url).toBe('/p/api/status?all=1')
	})

	const failures = [
		{ name: 'a 400 in the user\'s words, the server\'s kept as detail', res: json(400, { error: 'bad weights', kind: 'invalid' }), status: 400, msg: 'did not accept the request', detail: 'bad weights' },
		{ name: 'a 503 by its kind', res: json(503, { error: 'search: no retrieval leg could run', kind: 'unavailable' }), status: 503, msg: 'not available right now' },
		{ name: 'proxy 404 without JSON', res: { status: 404, data: '<html>' }, status: 404, msg: 'did not answer' },
		{ name: 'proxy 500 without body', res: { status: 500, data: '' }, status: 500, msg: 'not reachable right now (500)' },
		{ name: 'HTML with 200', res: { status: 200, data: '<html>' }, status: 200, msg: 'not JSON' },
	]
	for (const f of failures) {
		it(f.name, async () => {
			const c = createClient({ base: '/p/', http: fakeHTTP(() => f.res) })
			const err = await c.status().catch((e) => e)
			expect(err).toBeInstanceOf(ApiError)
			expect(err.status).toBe(f.status)
			expect(err.message).toContain(f.msg)
			if (f.detail) {
				expect(err.detail).toBe(f.detail)
				expect(err.message).not.toContain(f.detail)
			}
		})
	}

	it('reports a network failure as status 0', async () => {
		const c = createClient({ base: '/p/', http: { request: async () => {
			throw new Error('connection refused')
		} } })
		const err = await c.status().catch((e) => e)
		expect(err.status).toBe(0)
		expect(err.message).toBe('Could not reach the app. Check your connection and try again.')
		expect(err.detail).toBe('connection refused')
	})

	it('turns a cancelled request into an AbortError', async () => {
		const c = createClient({ base: '/p/', http: { request: async () => {
			const e = new Error('canceled')
			e.name = 'CanceledError'
			throw e
		} } })
		const err = await c.status().catch((e) => e)
		expect(err.name).toBe('AbortError')
	})
})

describe('errorMessage', () => {
	it('never shows the server\'s words', () => expect(errorMessage(503, '', { error: ' down ', kind: 'unavailable' })).not.toContain('down'))
	it('explains 401', () => expect(errorMessage(401, '', null)).toContain('session may have expired'))
})

describe('retryable', () => {
	it('tells whether a retry may help', () => {
		expect(retryable(new ApiError('x', 0))).toBe(true)
		expect(retryable(new ApiError('x', 503))).toBe(true)
		expect(retryable(new ApiError('x', 400))).toBe(false)
		expect(retryable(new ApiError('x', 404))).toBe(false)
	})
})

describe('normalizeResult', () => {
	it('fills in corrections, counts, facets and the reason', () => {
		const r = normalizeResult({ query: 'x', results: [{ file_id: 1 }], corrections: [{ from: 'a', to: 'b', leg: 'fuzzy' }, { bad: 1 }], total: 7, weak_count: 2, reason_code: 'unknown_words' })
		expect(r).toMatchObject({ corrections: [{ from: 'a', to: 'b', leg: 'fuzzy' }], total: 7, weak_count: 2, facets: null, reason_code: 'unknown_words', offset: 0 })
		expect(normalizeResult({ results: [{ file_id: 1 }] })).toMatchObject({ total: 1, weak_count: 0, corrections: [], corrected_query: '' })
	})
})

describe('normalizeViz', () => {
	it('fills in what may be missing', () => {
		expect(normalizeViz({})).toEqual({ space: 'keyword', note: '', explained_variance: [0, 0], points: [], skipped_legs: [] })
	})
})

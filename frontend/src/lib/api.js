// The app's JSON API, reached through AppAPI's proxy as the signed-in user.

import axios from '@nextcloud/axios'
import { abortError, askErrorText, readEvents } from './ask.js'
import { t } from './l10n.js'

/**
 * ApiError is a failed call: status is the HTTP status, 0 when the app
 * could not be reached; kind is the app's error kind ({"kind": …}); the
 * message is in the user's language (errorMessage), detail the server's
 * own (English) words, which the panel logs but does not show.
 */
export class ApiError extends Error {
	constructor(message, status = 0, kind = '', detail = '', code = '') {
		super(message)
		this.name = 'ApiError'
		this.status = status
		this.kind = kind
		this.detail = detail
		// code is the reason code of a failed question (api/ask: ask_off, busy, …).
		this.code = code
	}
}

/**
 * errorMessage explains a failed response in the user's language, by its
 * status and the app's error kind: the app answers errors as {"error":
 * "…", "kind": "invalid"|"unavailable"|…}; AppAPI's proxy answers 404
 * when the app or route is unknown or the session is gone, and 500 when
 * the app is unreachable. retry tells whether trying again may help.
 */
export function errorMessage(status, statusText, body) {
	const kind = typeof body?.kind === 'string' ? body.kind : ''
	switch (true) {
		case kind === 'invalid' || status === 400:
			return t('The app did not accept the request. Reset the options and try again; if it happens again, reload the page.')
		case kind === 'unauthorized' || status === 401 || status === 403:
			return t('You are not allowed to do this. Your session may have expired: reload the page and sign in again.')
		case kind === 'not_found' && status === 404:
			return t('The app could not find what was asked for. It may have been deleted or moved.')
		case status === 404:
			return t('The app did not answer this request (404). It may be disabled, or your session expired: reload the page.')
		case kind === 'too_large' || status === 413:
			return t('The request is too large.')
		case kind === 'unavailable' || status === 503:
			return t('A part of the app is not available right now (the search index, the embedding model or Nextcloud). Try again in a moment.')
		case status >= 500:
			return t('The app is not reachable right now ({status}). Try again in a moment.', { status })
		default:
			return t('The request failed ({status}).', { status })
	}
}

/** retryable tells whether trying a failed call again may help. */
export function retryable(e) {
	return !e?.status || e.status >= 500 || e.status === 429
}

/**
 * createClient returns the API client. base is the proxy prefix ending in
 * "/"; http is an axios instance (default @nextcloud/axios, which sends the
 * requesttoken Nextcloud expects and follows its renewals).
 */
export function createClient({ base, http = axios }) {
	function unreachable(e, signal) {
		if (e?.name === 'AbortError' || e?.name === 'CanceledError' || e?.code === 'ERR_CANCELED' || signal?.aborted) {
			return abortError()
		}
		return new ApiError(t('Could not reach the app. Check your connection and try again.'), 0, 'network', e?.message || String(e))
	}

	async function request(method, path, { signal, data } = {}) {
		let res
		try {
			res = await http.request({
				method,
				url: base + path,
				data,
				signal,
				headers: { Accept: 'application/json' },
				responseType: 'text',
				transformResponse: [(d) => d], // parsed below, with clear errors
				validateStatus: () => true,
			})
		} catch (e) {
			throw unreachable(e, signal)
		}
		const text = typeof res.data === 'string' ? res.data : res.data === null || res.data === undefined ? '' : JSON.stringify(res.data)
		let body = null
		try {
			body = text ? JSON.parse(text) : null
		} catch {
			// not JSON: no body
		}
		const ok = res.status >= 200 && res.status < 300
		if (!ok) {
			const detail = typeof body?.error === 'string' ? body.error : ''
			if (detail) {
				console.warn(`hybrid_search: ${method} ${path.split('?')[0]} answered ${res.status}: ${detail}`)
			}
			throw new ApiError(errorMessage(res.status, res.statusText, body), res.status, body?.kind ?? '', detail)
		}
		if (res.status === 204) {
			return null
		}
		if (body === null || typeof body !== 'object') {
			throw new ApiError(t('The app sent an answer that is not JSON.'), res.status, 'parse')
		}
		return body
	}

	return {
		/** search runs GET api/search with params (URLSearchParams) and returns a normalized SearchResult. */
		async search(params, signal) {
			return normalizeResult(await request('GET', `api/search?${params}`, { signal }))
		},
		/** viz runs GET api/viz with the search params and returns the map of the vector space. */
		async viz(params, signal) {
			return normalizeViz(await request('GET', `api/viz?${params}`, { signal }))
		},
		/** similar runs GET api/similar for file ids and returns the documents most like those files. */
		async similar(ids, signal) {
			const r = await request('GET', `api/similar?file_ids=${ids.map((id) => encodeURIComponent(id)).join(',')}`, { signal })
			const weaker = Array.isArray(r?.weaker) ? normalizeResult({ results: r.weaker }).results : []
			return { ...normalizeResult(r), sources: Array.isArray(r?.sources) ? r.sources : [], space: r?.space ?? '', note: r?.note ?? '', weaker }
		},
		/** settings runs GET api/settings: the default fusion and weights, and whether semantic search runs. */
		settings(signal) {
			return request('GET', 'api/settings', { signal })
		},
		/** status runs GET api/status (all=true asks for every user; admins only). */
		status(signal, all = false) {
			return request('GET', all ? 'api/status?all=1' : 'api/status', { signal })
		},
		/** tokens lists the user's MCP tokens (GET api/tokens). */
		async tokens(signal) {
			const body = await request('GET', 'api/tokens', { signal })
			return Array.isArray(body?.tokens) ? body.tokens : []
		},
		/** issueToken creates a token (POST api/tokens); the answer holds the secret once. */
		issueToken(name, ttlDays = 0) {
			return request('POST', 'api/tokens', { data: { name, ttl_days: ttlDays } })
		},
		/**
		 * ask runs POST api/ask for body {question, path_prefix, algorithm}
		 * and reads the answer as it is written (server-sent events over
		 * fetch's stream; a proxy may bundle events): onEvent(name, data) gets
		 * each event (passages, text, done, error) with its JSON data. It
		 * resolves with the whole Answer (the done event); it rejects with an
		 * ApiError whose code is the server's (ask_off, busy, model_timeout,
		 * …) when the question fails before or during the answer, and with an
		 * AbortError when signal aborts (the server then stops the model).
		 */
		async ask(body, { signal, onEvent } = {}) {
			let res
			try {
				res = await http.request({
					method: 'POST',
					url: base + 'api/ask',
					data: { ...body, stream: true },
					signal,
					adapter: 'fetch',
					responseType: 'stream',
					headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
					validateStatus: () => true,
				})
			} catch (e) {
				throw unreachable(e, signal)
			}
			const type = String(res.headers?.['content-type'] ?? '')
			if (res.status < 200 || res.status >= 300 || !type.startsWith('text/event-stream')) {
				let failure = null
				try {
					failure = JSON.parse(await streamText(res.data))
				} catch {
					if (signal?.aborted) {
						throw abortError()
					}
				}
				const detail = typeof failure?.error === 'string' ? failure.error : ''
				if (detail) {
					console.warn(`hybrid_search: POST api/ask answered ${res.status}: ${detail}`)
				}
				const ok = res.status >= 200 && res.status < 300
				const fallback = ok ? t('The app sent an answer that is not an event stream.') : errorMessage(res.status, res.statusText, failure)
				const code = typeof failure?.code === 'string' ? failure.code : ''
				throw new ApiError(code ? askErrorText(code, detail, fallback) : fallback, res.status, failure?.kind ?? '', detail, code)
			}
			let answer = null
			let failure = null
			try {
				await readEvents(res.data, (name, raw) => {
					let data
					try {
						data = JSON.parse(raw)
					} catch {
						return // not ours: every event of the app is one line of JSON
					}
					if (name === 'done') {
						answer = data
					} else if (name === 'error') {
						failure = data
					}
					onEvent?.(name, data)
				}, signal)
			} catch (e) {
				if (e?.name === 'AbortError' || signal?.aborted) {
					throw abortError()
				}
				throw new ApiError(t('The answer broke off: the connection to the app was lost. Try again.'), 0, 'network', e?.message || String(e))
			}
			if (failure) {
				const code = typeof failure.code === 'string' ? failure.code : ''
				throw new ApiError(askErrorText(code, failure.error), res.status, failure.kind ?? '', failure.error ?? '', code)
			}
			if (!answer) {
				throw new ApiError(t('The answer broke off before its end. Try again.'), res.status, 'network')
			}
			return answer
		},
		/** revokeToken revokes one of the user's tokens (DELETE api/tokens/:id). */
		async revokeToken(id) {
			await request('DELETE', `api/tokens/${encodeURIComponent(id)}`)
		},
	}
}

/** streamText reads a response body (a ReadableStream, or text) whole. */
async function streamText(data) {
	if (typeof data === 'string') {
		return data
	}
	if (!data?.getReader) {
		return data === null || data === undefined ? '' : JSON.stringify(data)
	}
	const reader = data.getReader()
	const decoder = new TextDecoder()
	let text = ''
	for (;;) {
		const { done, value } = await reader.read()
		if (done) {
			return text + decoder.decode()
		}
		text += decoder.decode(value, { stream: true })
	}
}

/** normalizeViz fills in the fields a VizResult may omit. */
export function normalizeViz(r) {
	const arr = (v) => (Array.isArray(v) ? v : [])
	const ev = arr(r?.explained_variance)
	return {
		...r,
		space: r?.space === 'semantic' ? 'semantic' : 'keyword',
		note: r?.note ?? '',
		explained_variance: [Number(ev[0]) || 0, Number(ev[1]) || 0],
		points: arr(r?.points).filter((p) => Number.isFinite(p?.x) && Number.isFinite(p?.y)).map((p) => ({ ...p, legs: arr(p.legs), rank: p.rank ?? 0 })),
		skipped_legs: arr(r?.skipped_legs),
	}
}

/** normalizeResult fills in the fields a SearchResult may omit, so views need no checks. */
export function normalizeResult(r) {
	const arr = (v) => (Array.isArray(v) ? v : [])
	const ver = r?.verification ?? {}
	return {
		...r,
		query: r?.query ?? '',
		results: arr(r?.results).map((d) => ({
			...d,
			excerpt: d?.excerpt ?? { chunk_no: 0, text: '' },
			more: arr(d?.more),
		})),
		skipped_legs: arr(r?.skipped_legs),
		verification: { checked: ver.checked ?? 0, dropped: ver.dropped ?? 0, unverified: arr(ver.unverified) },
		corrections: arr(r?.corrections).filter((c) => typeof c?.from === 'string' && typeof c?.to === 'string'),
		corrected_query: typeof r?.corrected_query === 'string' ? r.corrected_query : '',
		total: Number.isInteger(r?.total) ? r.total : arr(r?.results).length,
		weak_count: Number.isInteger(r?.weak_count) ? r.weak_count : 0,
		offset: Number.isInteger(r?.offset) ? r.offset : 0,
		facets: r?.facets && typeof r.facets === 'object' ? r.facets : null,
		reason_code: typeof r?.reason_code === 'string' ? r.reason_code : '',
	}
}

// The app's JSON API, reached through AppAPI's proxy as the signed-in user.

/** ApiError is a failed call: status is the HTTP status, 0 when the app could not be reached. */
export class ApiError extends Error {
  constructor(message, status = 0, kind = '') {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.kind = kind
  }
}

/**
 * errorMessage explains a failed response. The app answers errors as
 * {"error": "..."}; AppAPI's proxy answers 404 when the app or route is
 * unknown or the session is gone, and 500 when the app is unreachable.
 */
export function errorMessage(status, statusText, body) {
  if (body && typeof body.error === 'string' && body.error.trim()) return body.error.trim()
  switch (status) {
    case 401:
    case 403:
      return 'You are not allowed to do this. Your session may have expired: reload the page and sign in again.'
    case 404:
      return 'The app did not answer this request (404). It may be disabled, or your session expired: reload the page.'
    case 500:
    case 502:
    case 503:
    case 504:
      return `The app is not reachable right now (${status}). Try again in a moment.`
    default:
      return `The request failed: ${status} ${statusText || ''}`.trim()
  }
}

/**
 * createClient returns the API client. base is the proxy prefix ending in
 * "/"; token is the requesttoken, or a function returning it (Nextcloud
 * renews the token on long-open pages, so it is read for every request);
 * fetchFn defaults to the global fetch.
 */
export function createClient({ base, token, fetchFn }) {
  const doFetch = fetchFn ?? ((...args) => globalThis.fetch(...args))
  const currentToken = typeof token === 'function' ? token : () => token

  async function request(path, { signal } = {}) {
    let res
    try {
      res = await doFetch(base + path, {
        method: 'GET',
        credentials: 'same-origin',
        headers: { Accept: 'application/json', requesttoken: currentToken() ?? '' },
        signal,
      })
    } catch (e) {
      if (e?.name === 'AbortError') throw e
      throw new ApiError(`Could not reach the app: ${e?.message || e}`, 0, 'network')
    }
    let text = ''
    try {
      text = await res.text()
    } catch (e) {
      if (e?.name === 'AbortError') throw e
      throw new ApiError(`The answer was cut off: ${e?.message || e}`, res.status, 'network')
    }
    let body = null
    try {
      body = text ? JSON.parse(text) : null
    } catch {
      body = null
    }
    if (!res.ok) throw new ApiError(errorMessage(res.status, res.statusText, body), res.status, body?.kind ?? '')
    if (body === null || typeof body !== 'object') throw new ApiError('The app sent an answer that is not JSON.', res.status, 'parse')
    return body
  }

  return {
    /** search runs GET api/search with params (URLSearchParams) and returns a normalized SearchResult. */
    async search(params, signal) {
      return normalizeResult(await request(`api/search?${params}`, { signal }))
    },
    /** status runs GET api/status (all=true asks for every user; admins only). */
    status(signal, all = false) {
      return request(all ? 'api/status?all=1' : 'api/status', { signal })
    },
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
  }
}

import { describe, expect, it, vi } from 'vitest'
import { ApiError, createClient, errorMessage, normalizeResult } from '../../src/lib/api.js'
import kube from '../fixtures/search-kubernetes.json'

const base = '/index.php/apps/app_api/proxy/hybrid_search/'

function response(status, body, { json = true, statusText = '' } = {}) {
  const text = json ? JSON.stringify(body) : body
  return { ok: status >= 200 && status < 300, status, statusText, text: async () => text }
}

describe('createClient', () => {
  it('sends the request token and Accept through the proxy', async () => {
    const fetchFn = vi.fn(async () => response(200, kube))
    const client = createClient({ base, token: 'tok123', fetchFn })
    const signal = new AbortController().signal
    const got = await client.search(new URLSearchParams({ q: 'kuberntes upgrade', algorithm: 'hybrid' }), signal)
    expect(fetchFn).toHaveBeenCalledWith(`${base}api/search?q=kuberntes+upgrade&algorithm=hybrid`, {
      method: 'GET',
      credentials: 'same-origin',
      headers: { Accept: 'application/json', requesttoken: 'tok123' },
      signal,
    })
    expect(got.results).toHaveLength(2)
    expect(got.results[0].title).toBe('Kubernetes upgrade runbook.md')
  })

  it('reads a renewed request token for every request', async () => {
    const fetchFn = vi.fn(async () => response(200, { files: {} }))
    let token = 'first'
    const client = createClient({ base, token: () => token, fetchFn })
    await client.status()
    token = 'renewed'
    await client.status()
    expect(fetchFn.mock.calls.map((c) => c[1].headers.requesttoken)).toEqual(['first', 'renewed'])
  })

  it('asks for the status, and for every user', async () => {
    const fetchFn = vi.fn(async () => response(200, { files: {} }))
    const client = createClient({ base, token: '', fetchFn })
    await client.status()
    await client.status(undefined, true)
    expect(fetchFn.mock.calls.map((c) => c[0])).toEqual([`${base}api/status`, `${base}api/status?all=1`])
  })

  const failures = [
    { name: 'server message on 400', res: response(400, { error: 'weights: the sum must be at most 1', kind: 'invalid' }), status: 400, message: 'weights: the sum must be at most 1', kind: 'invalid' },
    { name: 'server message on 503', res: response(503, { error: 'the index store is unavailable' }), status: 503, message: 'the index store is unavailable' },
    { name: 'proxy 404 without JSON', res: response(404, '<html>Not found</html>', { json: false }), status: 404, message: 'did not answer this request (404)' },
    { name: 'proxy 500 without body', res: response(500, '', { json: false }), status: 500, message: 'not reachable right now (500)' },
    { name: 'unknown status', res: response(418, '', { json: false, statusText: "I'm a teapot" }), status: 418, message: "The request failed: 418 I'm a teapot" },
    { name: 'blank error field', res: response(401, { error: '  ' }), status: 401, message: 'session may have expired' },
    { name: 'HTML with 200', res: response(200, '<!DOCTYPE html>', { json: false }), status: 200, message: 'not JSON' },
    { name: 'JSON null with 200', res: response(200, null), status: 200, message: 'not JSON' },
  ]
  for (const c of failures) {
    it(c.name, async () => {
      const client = createClient({ base, token: 't', fetchFn: async () => c.res })
      const err = await client.search(new URLSearchParams({ q: 'x' })).catch((e) => e)
      expect(err).toBeInstanceOf(ApiError)
      expect(err.status).toBe(c.status)
      expect(err.message).toContain(c.message)
      if (c.kind) expect(err.kind).toBe(c.kind)
    })
  }

  it('reports a network failure as status 0', async () => {
    const client = createClient({ base, token: 't', fetchFn: async () => { throw new TypeError('Failed to fetch') } })
    const err = await client.status().catch((e) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect(err).toMatchObject({ status: 0, kind: 'network', message: 'Could not reach the app: Failed to fetch' })
  })

  it('passes an abort through unchanged', async () => {
    const abort = new DOMException('aborted', 'AbortError')
    const client = createClient({ base, token: 't', fetchFn: async () => { throw abort } })
    await expect(client.status()).rejects.toBe(abort)
  })

  it('reports a body cut off mid-way', async () => {
    const res = { ok: true, status: 200, statusText: '', text: async () => { throw new TypeError('network error') } }
    const client = createClient({ base, token: 't', fetchFn: async () => res })
    await expect(client.status()).rejects.toMatchObject({ kind: 'network', message: 'The answer was cut off: network error' })
  })
})

describe('errorMessage', () => {
  it('prefers the server text', () => {
    expect(errorMessage(400, 'Bad Request', { error: ' q is required ' })).toBe('q is required')
  })
})

describe('normalizeResult', () => {
  it('fills in missing lists', () => {
    const got = normalizeResult({ query: 'x', results: [{ file_id: 1 }], skipped_legs: null })
    expect(got.results[0].more).toEqual([])
    expect(got.results[0].excerpt).toEqual({ chunk_no: 0, text: '' })
    expect(got.skipped_legs).toEqual([])
    expect(got.verification).toEqual({ checked: 0, dropped: 0, unverified: [] })
  })
  it('keeps what is there', () => {
    const got = normalizeResult(kube)
    expect(got.verification).toEqual({ checked: 2, dropped: 1, unverified: [102] })
    expect(got.results[0].more).toHaveLength(2)
  })
})

// Ask your files: the event-stream reader (however the proxy cuts or
// bundles the stream), the client's POST api/ask, and [N] citations as
// links to the files.
import { describe, expect, it, vi } from 'vitest'
import { createClient } from '../../src/lib/api.js'
import { askErrorText, askRetryable, citeSegments, passageLink, readEvents, sseParser } from '../../src/lib/ask.js'

// events parses chunks and returns [name, data] pairs.
function events(chunks) {
	const got = []
	const p = sseParser((name, data) => got.push([name, data]))
	for (const c of chunks) {
		p.push(c)
	}
	p.end()
	return got
}

// stream is a ReadableStream of the chunks, as bytes.
function stream(chunks, { hang = false } = {}) {
	const enc = new TextEncoder()
	return new ReadableStream({
		start(ctl) {
			for (const c of chunks) {
				ctl.enqueue(typeof c === 'string' ? enc.encode(c) : c)
			}
			if (!hang) {
				ctl.close()
			}
		},
	})
}

const SSE = 'text/event-stream; charset=utf-8'
const passage = (n, extra = {}) => ({ n, file_id: 100 + n, title: `Doc ${n}`, path: `/Docs/Doc ${n}.md`, link: `http://nc.internal/index.php/f/${100 + n}`, chunk_no: 0, text: `text ${n}`, tokens: 5, ...extra })

describe('sseParser', () => {
	const whole = 'event: passages\ndata: {"passages":[]}\n\nevent: text\ndata: {"text":"The upgrade"}\n\n'
	const want = [['passages', '{"passages":[]}'], ['text', '{"text":"The upgrade"}']]

	it('reads several events in one chunk', () => {
		expect(events([whole])).toEqual(want)
	})

	it('reads events split across chunks at every position', () => {
		for (let i = 1; i < whole.length; i++) {
			expect(events([whole.slice(0, i), whole.slice(i)]), `split at ${i}`).toEqual(want)
		}
		expect(events([...whole])).toEqual(want) // one character at a time
	})

	it('skips keep-alive comments, also between the lines of an event', () => {
		expect(events([': keep-alive\n\n', 'event: text\n: keep-alive\ndata: {"text":"a"}\n\n', ': keep-alive\n\n'])).toEqual([['text', '{"text":"a"}']])
	})

	it('takes CRLF and CR line ends, a CRLF split across chunks too', () => {
		expect(events(['event: text\r\ndata: {"text":"a"}\r', '\n\r\n'])).toEqual([['text', '{"text":"a"}']])
		expect(events(['event: text\rdata: x\r\r'])).toEqual([['text', 'x']])
	})

	it('joins data lines, names an unnamed event "message" and drops an event the stream did not end', () => {
		expect(events(['data: a\ndata: b\n\n', 'event: done\ndata: {"text":'])).toEqual([['message', 'a\nb']])
	})

	it('passes the error event on', () => {
		expect(events(['event: passages\ndata: {"passages":[]}\n\nevent: error\ndata: {"error":"chat: model went quiet","kind":"unavailable","code":"model_timeout"}\n\n']))
			.toEqual([['passages', '{"passages":[]}'], ['error', '{"error":"chat: model went quiet","kind":"unavailable","code":"model_timeout"}']])
	})
})

describe('readEvents', () => {
	it('decodes UTF-8 split inside a character', async () => {
		const bytes = new TextEncoder().encode('event: text\ndata: {"text":"紅葉"}\n\n')
		const got = []
		await readEvents(stream([bytes.slice(0, 22), bytes.slice(22)]), (name, data) => got.push([name, data]))
		expect(got).toEqual([['text', '{"text":"紅葉"}']])
	})

	it('stops reading when the signal aborts', async () => {
		const ctl = new AbortController()
		const got = []
		const reading = readEvents(stream(['event: text\ndata: {"text":"a"}\n\n'], { hang: true }), (name) => {
			got.push(name)
			ctl.abort()
		}, ctl.signal)
		await expect(reading).rejects.toMatchObject({ name: 'AbortError' })
		expect(got).toEqual(['text'])
	})
})

describe('client.ask', () => {
	function client(res) {
		const calls = []
		const http = { async request(cfg) {
			calls.push(cfg)
			return typeof res === 'function' ? res(cfg) : res
		} }
		return { calls, c: createClient({ base: '/p/', http }) }
	}

	it('posts the question through the proxy and streams the events', async () => {
		const done = { question: 'q', text: 'Soon [1].', answered: true, citations: [{ n: 1, file_id: 101 }], passages: [passage(1)] }
		const { calls, c } = client({ status: 200, headers: { 'content-type': SSE }, data: stream([
			`event: passages\ndata: ${JSON.stringify({ passages: [passage(1)] })}\n\nevent: te`,
			'xt\ndata: {"text":"Soon"}\n\n: keep-alive\n\nevent: text\ndata: {"text":" [1]."}\n\n',
			`event: done\ndata: ${JSON.stringify(done)}\n\n`,
		]) })
		const seen = []
		const a = await c.ask({ question: 'q', path_prefix: '/Docs' }, { onEvent: (name, data) => seen.push([name, data]) })
		expect(calls[0]).toMatchObject({ method: 'POST', url: '/p/api/ask', data: { question: 'q', path_prefix: '/Docs', stream: true }, adapter: 'fetch', responseType: 'stream', headers: { Accept: 'text/event-stream' } })
		expect(seen.map(([n]) => n)).toEqual(['passages', 'text', 'text', 'done'])
		expect(seen.filter(([n]) => n === 'text').map(([, d]) => d.text).join('')).toBe('Soon [1].')
		expect(a).toEqual(done)
	})

	const failures = [
		{ name: 'ask_off (404) in words', res: { status: 404, headers: { 'content-type': 'application/json' }, data: stream(['{"error":"asking your files is not available","kind":"not_found","code":"ask_off"}']) }, code: 'ask_off', status: 404, msg: 'has not configured a chat model' },
		{ name: 'busy (503) in words', res: { status: 503, headers: {}, data: '{"error":"every slot busy","kind":"unavailable","code":"busy"}' }, code: 'busy', status: 503, msg: 'Other questions are being answered' },
		{ name: 'a 400 without a code as the other calls say it', res: { status: 400, headers: {}, data: stream(['{"error":"bad","kind":"invalid"}']) }, code: '', status: 400, msg: 'did not accept the request' },
		{ name: 'the proxy\'s 404 without JSON', res: { status: 404, headers: { 'content-type': 'text/html' }, data: stream(['<html>']) }, code: '', status: 404, msg: 'did not answer this request (404)' },
		{ name: 'an error event after the answer started', res: { status: 200, headers: { 'content-type': SSE }, data: stream(['event: passages\ndata: {"passages":[]}\n\nevent: error\ndata: {"error":"chat: timeout","kind":"unavailable","code":"model_timeout"}\n\n']) }, code: 'model_timeout', status: 200, msg: 'took too long' },
		{ name: 'a code it does not know: the server\'s message', res: { status: 200, headers: { 'content-type': SSE }, data: stream(['event: error\ndata: {"error":"the moon is in the way","kind":"unavailable","code":"moon"}\n\n']) }, code: 'moon', status: 200, msg: 'the moon is in the way' },
		{ name: 'a stream that ends without done', res: { status: 200, headers: { 'content-type': SSE }, data: stream(['event: text\ndata: {"text":"The"}\n\n']) }, code: '', status: 200, msg: 'broke off' },
		{ name: 'a 200 that is not an event stream (a login page)', res: { status: 200, headers: { 'content-type': 'text/html' }, data: stream(['<html>']) }, code: '', status: 200, msg: 'not an event stream' },
	]
	for (const f of failures) {
		it(f.name, async () => {
			const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
			const { c } = client(f.res)
			const err = await c.ask({ question: 'q' }).catch((e) => e)
			warn.mockRestore()
			expect(err.name).toBe('ApiError')
			expect(err.code).toBe(f.code)
			expect(err.status).toBe(f.status)
			expect(err.message).toContain(f.msg)
		})
	}

	it('rejects with an AbortError when cancelled, before or during the answer', async () => {
		const ctl = new AbortController()
		ctl.abort()
		const { c } = client(() => {
			const e = new Error('canceled')
			e.name = 'CanceledError'
			throw e
		})
		await expect(c.ask({ question: 'q' }, { signal: ctl.signal })).rejects.toMatchObject({ name: 'AbortError' })
		const during = new AbortController()
		const { c: c2 } = client({ status: 200, headers: { 'content-type': SSE }, data: stream(['event: passages\ndata: {"passages":[]}\n\n'], { hang: true }) })
		const p = c2.ask({ question: 'q' }, { signal: during.signal, onEvent: () => during.abort() })
		await expect(p).rejects.toMatchObject({ name: 'AbortError' })
	})

	it('says an unreachable app in words', async () => {
		const { c } = client(() => {
			throw new Error('Network Error')
		})
		await expect(c.ask({ question: 'q' })).rejects.toMatchObject({ status: 0, kind: 'network', message: expect.stringContaining('Could not reach the app') })
	})
})

describe('citeSegments', () => {
	const ps = [passage(1), passage(2), passage(3)]

	it('links each cited number to its passage\'s file, on the page\'s own Nextcloud', () => {
		const segs = citeSegments('Planned for May [1]. Rollback [2, 3]; see [2;9].', ps, '/nc')
		expect(segs).toEqual([
			{ text: 'Planned for May [' },
			{ cite: 1, passage: ps[0], href: '/nc/index.php/f/101' },
			{ text: ']. Rollback [' },
			{ cite: 2, passage: ps[1], href: '/nc/index.php/f/102' },
			{ text: ', ' },
			{ cite: 3, passage: ps[2], href: '/nc/index.php/f/103' },
			{ text: ']; see [' },
			{ cite: 2, passage: ps[1], href: '/nc/index.php/f/102' },
			{ text: ';9]' },
			{ text: '.' },
		].reduce((out, s) => {
			// plain pieces next to each other are one
			const last = out[out.length - 1]
			if (s.text !== undefined && last?.text !== undefined) {
				last.text += s.text
			} else {
				out.push({ ...s })
			}
			return out
		}, []))
	})

	it('leaves numbers that name no passage, and other brackets, as text', () => {
		expect(citeSegments('See [7] and [a] and [1000].', ps)).toEqual([{ text: 'See [7] and [a] and [1000].' }])
		expect(citeSegments('', ps)).toEqual([])
		expect(citeSegments('Text [1] before passages arrive', [])).toEqual([{ text: 'Text [1] before passages arrive' }])
	})

	it('never links to another scheme: a javascript: link gives the permalink', () => {
		const bad = passage(1, { link: 'javascript:alert(1)' })
		const href = passageLink(bad, '')
		expect(href).not.toMatch(/^javascript:/i)
		expect(href).toMatch(/\/f\/101$/)
	})
})

describe('askErrorText', () => {
	it('words every code the README lists, and falls back to the message', () => {
		for (const code of ['ask_off', 'invalid', 'busy', 'search_failed', 'model_unavailable', 'model_timeout', 'model_error']) {
			expect(askErrorText(code, 'server words')).not.toBe('server words')
		}
		expect(askErrorText('new_code', 'server words')).toBe('server words')
		expect(askErrorText('', '', 'fallback')).toBe('fallback')
	})
})

describe('askRetryable', () => {
	it('offers another try where it may help', () => {
		const cases = [
			[{ code: 'busy', status: 503 }, true],
			[{ code: 'model_timeout', status: 200 }, true], // after the answer started
			[{ code: 'model_unavailable', status: 503 }, true],
			[{ code: 'ask_off', status: 404 }, false],
			[{ code: 'invalid', status: 400 }, false],
			[{ code: 'model_error', status: 500 }, false],
			[{ code: '', status: 200, kind: 'network' }, true], // broke off
			[{ code: '', status: 0 }, true],
			[{ code: '', status: 502 }, true],
			[{ code: '', status: 404 }, false],
		]
		for (const [e, want] of cases) {
			expect(askRetryable(e), JSON.stringify(e)).toBe(want)
		}
	})
})

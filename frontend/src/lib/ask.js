// "Ask your files": reading the answer of POST api/ask, a server-sent
// event stream (README, "Ask your files"), and turning its [N] citations
// into links to the passages' files.

import { fileLinks, nextcloudLink } from './env.js'
import { t } from './l10n.js'

/**
 * sseParser returns a parser of a text/event-stream that calls
 * onEvent(name, data) for each event as the stream's text arrives in
 * push(chunk) calls, however the chunks split it (the WHATWG "event
 * stream interpretation": lines end in CRLF, LF or CR; "data" lines are
 * joined with "\n"; lines starting with ":" are comments, such as the
 * server's keep-alives; an event without "event:" is "message"). end()
 * dispatches nothing that was not ended by a blank line, as the standard
 * says.
 */
export function sseParser(onEvent) {
	let buf = ''
	let name = ''
	let data = []
	let hasData = false
	let skipLF = false // the chunk ended with CR: a LF at the next one's start is its pair

	function line(l) {
		if (l === '') {
			if (hasData) {
				onEvent(name || 'message', data.join('\n'))
			}
			name = ''
			data = []
			hasData = false
			return
		}
		if (l.startsWith(':')) {
			return
		}
		const i = l.indexOf(':')
		const field = i < 0 ? l : l.slice(0, i)
		let value = i < 0 ? '' : l.slice(i + 1)
		if (value.startsWith(' ')) {
			value = value.slice(1)
		}
		if (field === 'event') {
			name = value
		} else if (field === 'data') {
			data.push(value)
			hasData = true
		}
	}

	return {
		push(chunk) {
			let s = chunk
			if (skipLF && s.startsWith('\n')) {
				s = s.slice(1)
			}
			skipLF = false
			buf += s
			let at = 0
			for (;;) {
				const m = /\r\n|\r|\n/.exec(buf.slice(at))
				if (!m) {
					break
				}
				const end = at + m.index
				// A CR at the very end may be the first half of a CRLF.
				if (m[0] === '\r' && end + 1 === buf.length) {
					skipLF = true
				}
				line(buf.slice(at, end))
				at = end + m[0].length
			}
			buf = buf.slice(at)
		},
		end() {
			buf = ''
			data = []
			hasData = false
		},
	}
}

/**
 * readEvents reads a ReadableStream of bytes as server-sent events and
 * calls onEvent(name, data) for each; it resolves when the stream ends.
 * An abort of signal cancels the stream (so the server stops the answer)
 * and rejects with an AbortError.
 */
export async function readEvents(body, onEvent, signal) {
	const reader = body.getReader()
	const decoder = new TextDecoder()
	const parser = sseParser(onEvent)
	const stop = () => reader.cancel().catch(() => {})
	signal?.addEventListener('abort', stop, { once: true })
	try {
		for (;;) {
			if (signal?.aborted) {
				throw abortError()
			}
			const { done, value } = await reader.read()
			if (signal?.aborted) {
				throw abortError()
			}
			if (done) {
				break
			}
			parser.push(decoder.decode(value, { stream: true }))
		}
		parser.push(decoder.decode())
	} catch (e) {
		if (signal?.aborted) {
			throw abortError()
		}
		throw e
	} finally {
		signal?.removeEventListener('abort', stop)
		parser.end()
	}
}

/** abortError is what a cancelled request rejects with, as fetch does. */
export function abortError() {
	const e = new Error('The request was cancelled.')
	e.name = 'AbortError'
	return e
}

/** ASK_ERROR_CODES are the codes of a failed question the panel words itself. */
export const ASK_ERROR_CODES = ['ask_off', 'invalid', 'busy', 'search_failed', 'model_unavailable', 'model_timeout', 'model_error']

/**
 * askErrorText says why a question got no answer, in the user's language,
 * from the server's code (README, the table of codes); for a code it does
 * not know, the server's own message, else fallback.
 */
export function askErrorText(code, message = '', fallback = '') {
	switch (code) {
		case 'ask_off':
			return t('Asking your files is not available: the administrator has not configured a chat model.')
		case 'invalid':
			return t('The question was not accepted. Ask with 1 to 2000 characters.')
		case 'busy':
			return t('Other questions are being answered right now. Try again in a moment.')
		case 'search_failed':
			return t('The passages to answer from could not be found: the search is not available right now. Try again in a moment.')
		case 'model_unavailable':
			return t('The chat model is not reachable right now. Try again later, or tell your administrator.')
		case 'model_timeout':
			return t('The chat model took too long to answer. Try again, perhaps with a shorter question.')
		case 'model_error':
			return t('The chat model could not answer this question.')
	}
	return message || fallback || t('The question could not be answered.')
}

/**
 * askRetryable tells whether asking again may help: the server said it
 * may (busy, search_failed, model_unavailable, model_timeout), or the app
 * could not be reached or the answer broke off, or a 5xx or 429 without
 * a code.
 */
export function askRetryable(e) {
	if (['busy', 'search_failed', 'model_unavailable', 'model_timeout'].includes(e?.code)) {
		return true
	}
	if (e?.code) {
		return false
	}
	return e?.kind === 'network' || !e?.status || e.status >= 500 || e.status === 429
}

// CITE finds [N], [N, M] and [N; M], as the server's citeRE does.
const CITE = /\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]/g

/**
 * citeSegments splits an answer's text into plain text and citations:
 * each number of a [N], [N, M] or [N; M] that names one of the passages
 * becomes {cite: N, passage, href}, the link opening its file (as a
 * search result's title does); numbers that name no passage stay text,
 * as the server does not cite them either.
 */
export function citeSegments(text, passages, webroot = '') {
	const byN = new Map((passages ?? []).map((p) => [p.n, p]))
	const out = []
	const plain = (s) => {
		if (!s) {
			return
		}
		const last = out[out.length - 1]
		if (last && last.text !== undefined) {
			last.text += s
		} else {
			out.push({ text: s })
		}
	}
	let at = 0
	for (const m of String(text ?? '').matchAll(CITE)) {
		const nums = m[1].split(/\s*[,;]\s*/).map(Number)
		if (!nums.some((num) => byN.has(num))) {
			continue
		}
		plain(text.slice(at, m.index))
		plain('[')
		// The separators between the numbers as written ("1, 2" or "1;2").
		const seps = m[1].split(/\d+/).slice(1, -1)
		nums.forEach((num, i) => {
			if (i > 0) {
				plain(seps[i - 1])
			}
			const p = byN.get(num)
			if (p) {
				out.push({ cite: num, passage: p, href: passageLink(p, webroot) })
			} else {
				plain(String(num))
			}
		})
		plain(']')
		at = m.index + m[0].length
	}
	plain(String(text ?? '').slice(at))
	return out
}

/** passageLink is where a passage's file opens: its link into Nextcloud, else its permalink. */
export function passageLink(p, webroot = '') {
	return nextcloudLink(p?.link, webroot) || fileLinks(p, '').permalink || ''
}

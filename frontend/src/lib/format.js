// Formatting of numbers, dates, durations and the index status for people.

import { n, t } from './l10n.js'
import { legLabel, LEGS } from './weights.js'

// Intl formatters are slow to make (a result page writes hundreds of
// numbers and dates), so each is made once per locale and options.
const formatters = new Map()

/** numberFormat returns a cached Intl.NumberFormat. */
export function numberFormat(locale, options) {
	const key = `n|${locale ?? ''}|${JSON.stringify(options ?? {})}`
	let f = formatters.get(key)
	if (!f) {
		formatters.set(key, (f = new Intl.NumberFormat(locale, options)))
	}
	return f
}

/** dateFormat returns a cached Intl.DateTimeFormat. */
export function dateFormat(locale, options) {
	const key = `d|${locale ?? ''}|${JSON.stringify(options ?? {})}`
	let f = formatters.get(key)
	if (!f) {
		formatters.set(key, (f = new Intl.DateTimeFormat(locale, options)))
	}
	return f
}

/** formatNumber writes n with the locale's digit grouping ("12,345"). */
export function formatNumber(n, locale) {
	if (typeof n !== 'number' || !Number.isFinite(n)) {
		return '0'
	}
	return numberFormat(locale).format(n)
}

/**
 * parseTime reads an RFC 3339 time; Go's zero time ("0001-01-01T00:00:00Z")
 * and anything unreadable give null.
 */
export function parseTime(s) {
	if (typeof s !== 'string' || !s) {
		return null
	}
	const d = new Date(s)
	if (Number.isNaN(d.getTime()) || d.getUTCFullYear() <= 1) {
		return null
	}
	return d
}

/** formatDate writes a date in the locale's medium style ("12 May 2024"), or "". */
export function formatDate(s, locale) {
	const d = parseTime(s)
	if (!d) {
		return ''
	}
	return dateFormat(locale, { dateStyle: 'medium' }).format(d)
}

/** formatDateTime writes a date and time ("12 May 2024, 14:03"), or "". */
export function formatDateTime(s, locale) {
	const d = parseTime(s)
	if (!d) {
		return ''
	}
	return dateFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(d)
}

/**
 * formatDuration writes a number of seconds as "45 s", "12 min",
 * "3 h 20 min" or "2 d 4 h"; zero, negative or unknown durations give "".
 */
export function formatDuration(seconds) {
	if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
		return ''
	}
	if (seconds < 1) {
		return t('{n} ms', { n: Math.round(seconds * 1000) })
	}
	if (seconds < 60) {
		return t('{n} s', { n: Math.round(seconds) })
	}
	const minutes = Math.round(seconds / 60)
	if (minutes < 60) {
		return t('{n} min', { n: minutes })
	}
	const hours = Math.floor(minutes / 60)
	if (hours < 24) {
		return minutes % 60 ? t('{h} h {m} min', { h: hours, m: minutes % 60 }) : t('{h} h', { h: hours })
	}
	const days = Math.floor(hours / 24)
	return hours % 24 ? t('{d} d {h} h', { d: days, h: hours % 24 }) : t('{d} d', { d: days })
}

/** formatRelevance writes a relevance in [0, 1] with two decimals in the locale ("0.87", German "0,87"). */
export function formatRelevance(r, locale) {
	return numberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(clamp01(r))
}

/** clamp01 limits r to [0, 1]; non-numbers give 0. */
export function clamp01(r) {
	if (typeof r !== 'number' || !Number.isFinite(r)) {
		return 0
	}
	return Math.min(1, Math.max(0, r))
}

/** formatScore writes a raw leg score compactly in the locale ("0.8123", "12.4"). */
export function formatScore(s, locale) {
	if (typeof s !== 'number' || !Number.isFinite(s)) {
		return '–'
	}
	const digits = Math.abs(s) >= 100 ? 0 : Math.abs(s) >= 10 ? 1 : 4
	return numberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }).format(s)
}

/**
 * docKind names the icon for a result: "note" for notes, otherwise a file
 * kind from the MIME type ("pdf", "image", "sheet", "slides", "code",
 * "archive", "text", "document" or "file").
 */
export function docKind(type, mime) {
	if (type === 'note') {
		return 'note'
	}
	const m = (mime ?? '').toLowerCase()
	if (m === 'application/pdf') {
		return 'pdf'
	}
	if (m.startsWith('image/')) {
		return 'image'
	}
	if (m === 'text/csv' || m.includes('spreadsheet') || m.includes('excel')) {
		return 'sheet'
	}
	if (m.includes('presentation') || m.includes('powerpoint')) {
		return 'slides'
	}
	if (m.includes('wordprocessing') || m.includes('msword') || m.includes('opendocument.text') || m === 'application/rtf') {
		return 'document'
	}
	// A web page is read as a document, not as code.
	if (m === 'text/html' || m === 'application/xhtml+xml') {
		return 'document'
	}
	if (/(zip|x-tar|x-7z|x-rar|x-bzip|compressed)/.test(m)) {
		return 'archive'
	}
	if (m === 'application/json' || m.includes('javascript') || m === 'application/xml' || m === 'text/xml' || m.includes('x-sh') || m.includes('x-python')) {
		return 'code'
	}
	if (m.startsWith('text/')) {
		return 'text'
	}
	return 'file'
}

/** kindLabel names a docKind for people. */
export function kindLabel(kind) {
	switch (kind) {
		case 'note': return t('Note')
		case 'pdf': return t('PDF')
		case 'image': return t('Image')
		case 'sheet': return t('Spreadsheet')
		case 'slides': return t('Presentation')
		case 'archive': return t('Archive')
		case 'code': return t('Code')
		case 'document': return t('Document')
		case 'text': return t('Text')
	}
	return t('File')
}

/** skippedNotice turns a skipped leg into a sentence ("Semantic search is off: …"). */
export function skippedNotice(s) {
	const label = s?.leg ? legLabel(s.leg) : t('A search method')
	const reason = skipReason(s)
	return reason ? t('{method} search is off: {reason}', { method: label, reason }) : t('{method} search is off.', { method: label })
}

// SKIP_REASONS say in the user's language why a leg did not run, by the
// server's code (hybridsearch.SkippedLeg.Code).
const SKIP_REASONS = {
	semantic_off: () => t('no embedding model is configured'),
	embedder_unavailable: () => t('the embedding model is not answering'),
	embedder_error: () => t('the embedding model refused the query'),
	store_unavailable: () => t('the search index is not answering'),
	store_error: () => t('the search index could not answer'),
	timeout: () => t('it took too long'),
}

/**
 * skipReason is why a leg was skipped, in the user's language: the
 * translation of its code, or for a code the panel does not know a
 * general sentence (the server's English words are not shown).
 */
export function skipReason(s) {
	const known = Object.hasOwn(SKIP_REASONS, s?.code ?? '') ? SKIP_REASONS[s.code] : null
	return known ? known() : t('it could not run right now')
}

// VIZ_NOTES say in the user's language why the map is limited, by the
// server's code (hybridsearch.VizResult.NoteCode); null when a detail they
// need is missing or unknown.
const VIZ_NOTES = {
	semantic_off: () => t('No embedding model is configured, so the map shows the keyword (BM25) vectors instead of embeddings.'),
	embedder_failed: (m) => {
		const reason = Object.hasOwn(SKIP_REASONS, m.note_reason_code ?? '') ? SKIP_REASONS[m.note_reason_code]() : ''
		return reason ? t('The embedding model could not be used ({reason}), so the map shows the keyword (BM25) vectors instead of embeddings.', { reason }) : null
	},
	no_embeddings: () => t('No chunk has an embedding yet, so the map shows the keyword (BM25) vectors instead of embeddings.'),
	chunks_without_embeddings: (m) => (Number.isInteger(m.note_count) && m.note_count > 0
		? n('{count} chunk has no embedding yet and is not shown.', '{count} chunks have no embedding yet and are not shown.', m.note_count, { count: m.note_count })
		: null),
}

// SIMILAR_NOTES say in the user's language why Find similar compared words,
// by the server's code (hybridsearch.SimilarResult.NoteCode).
const SIMILAR_NOTES = {
	semantic_off: () => t('No embedding model is configured, so the files’ words were compared (keyword search).'),
	no_embeddings: (r) => n('This file has no embeddings yet, so its words were compared (keyword search).', 'These files have no embeddings yet, so their words were compared (keyword search).', Math.max(1, r.sources?.length ?? 0)),
}

/**
 * noteText is a server note in the user's language by its code; for a
 * code the panel does not know, fallback() (the server's English words
 * are not shown).
 */
function noteText(notes, r, fallback) {
	const code = r?.note_code ?? ''
	const said = Object.hasOwn(notes, code) ? notes[code](r) : null
	if (said) {
		return said
	}
	return r?.note || code ? fallback(r) : ''
}

/** vizNote is what limits the vector-space map (GET api/viz), or "". */
export function vizNote(m) {
	return noteText(VIZ_NOTES, m, (r) => (r?.space === 'keyword' ? t('The map shows the keyword (BM25) vectors instead of embeddings.') : t('Some chunks are not shown.')))
}

/** similarNote is why Find similar (GET api/similar) compared words, or "". */
export function similarNote(r) {
	return noteText(SIMILAR_NOTES, r, () => t('The files’ words were compared (keyword search).'))
}

/**
 * legRows lists an explanation's legs in display order, with absent legs
 * marked: ran is false for a leg that did not run in this search (skipped,
 * or weight 0), so "not found" is only said of legs that looked.
 */
export function legRows(explain, ran = LEGS, locale) {
	const legs = explain?.legs ?? {}
	const order = [...LEGS, ...Object.keys(legs).filter((k) => !LEGS.includes(k)).sort()]
	return order.map((leg) => {
		const s = legs[leg]
		return {
			leg,
			label: legLabel(leg),
			found: Boolean(s),
			ran: Boolean(s) || ran.includes(leg),
			rank: s ? s.rank : null,
			score: s ? formatScore(s.score, locale) : '',
		}
	})
}

/**
 * resultSummary is the sentence read out after a search ("3 results for
 * “apfel” in 12 ms").
 */
export function resultSummary(res, locale) {
	const k = res?.results?.length ?? 0
	const q = res?.query ?? ''
	const count = formatNumber(k, locale)
	if (typeof res?.took_ms === 'number' && Number.isFinite(res.took_ms)) {
		return n('{count} result for “{q}” in {ms} ms', '{count} results for “{q}” in {ms} ms', k, { count, q, ms: formatNumber(Math.round(res.took_ms), locale) })
	}
	return n('{count} result for “{q}”', '{count} results for “{q}”', k, { count, q })
}

// Search options as the panel holds them, and their translation into the
// query string of GET api/search (see SearchRequest in the Go module root).
// The choices, limits and defaults are the server's (rules.js).

import { t } from './l10n.js'
import { searchRules, setDefaults } from './rules.js'
import { defaultWeights, legLabel, LEGS, validateWeights } from './weights.js'

/** algorithmValues returns the server's search algorithms, in its order. */
export function algorithmValues() {
	return searchRules().algorithms
}

/** algorithms returns the search algorithms with their labels and hints. */
export function algorithms() {
	const hints = {
		hybrid: t('All three methods, fused'),
		semantic: t('By meaning, across languages'),
		keyword: t('Exact words (BM25)'),
		fuzzy: t('Tolerates typos and partial words'),
	}
	return algorithmValues().map((value) => ({ value, label: legLabel(value), hint: hints[value] }))
}

/** fusionValues returns the server's fusion methods of the hybrid algorithm. */
export function fusionValues() {
	return searchRules().fusions
}

/** fusions returns the fusion methods with their labels. */
export function fusions() {
	const labels = {
		rrf: t('Reciprocal rank (RRF)'),
		linear: t('Linear (normalized scores)'),
		auto: t('Automatic (weights from the query)'),
	}
	return fusionValues().map((value) => ({ value, label: labels[value] ?? value }))
}

/**
 * topKChoices returns the page sizes offered: 10, 20 and the largest the
 * server allows, with its default among them.
 */
export function topKChoices() {
	const r = searchRules()
	return [...new Set([r.defaults.top_k, 10, 20, r.max_top_k])].filter((k) => k >= 1 && k <= r.max_top_k).sort((a, b) => a - b)
}

/** defaultTopK returns the server's default page size. */
export function defaultTopK() {
	return searchRules().defaults.top_k
}

/** maxQueryLength returns the longest query the server takes, in characters. */
export function maxQueryLength() {
	return searchRules().max_query_runes
}

/**
 * setServerDefaults takes the admin's default fusion and weights from GET
 * api/settings ({fusion, weights}): they override the rules' defaults.
 * Values the rules do not allow are ignored; null returns to the rules' own.
 */
export function setServerDefaults(s) {
	const d = {}
	if (fusionValues().includes(s?.fusion)) {
		d.fusion = s.fusion
	}
	const w = s?.weights
	if (w && validateWeights(w).valid) {
		d.weights = Object.fromEntries(LEGS.map((leg) => [leg, w[leg]]))
	}
	setDefaults(d)
}

/** defaultOptions returns fresh search options with the server's defaults. */
export function defaultOptions() {
	const d = searchRules().defaults
	return {
		algorithm: d.algorithm,
		fusion: d.fusion,
		weights: defaultWeights(),
		topK: d.top_k,
		notes: true,
		files: true,
		pathPrefix: '',
		modifiedFrom: '', // YYYY-MM-DD, inclusive, the user's time zone
		modifiedUntil: '', // YYYY-MM-DD, inclusive
		// The result page's own filters and order (facets, see SearchFilters).
		kind: '', // a docKind ("pdf", "note", …); '' for any
		mimes: [], // the MIME types that kind stands for in the last answer
		modified: '', // a modification-time facet (MODIFIED_FACETS); '' for any time
		owner: '', // 'me', 'others' or '' for both
		sort: '', // '' (relevance) or 'modified'
	}
}

/** MODIFIED_FACETS are the server's modification-time facets, newest first, with their age in days. */
export const MODIFIED_FACETS = [
	{ value: 'day', days: 1 },
	{ value: 'week', days: 7 },
	{ value: 'month', days: 30 },
	{ value: 'year', days: 365 },
	{ value: 'older', days: 365, before: true },
]

/**
 * modifiedRange returns {after, before} (RFC 3339) for a modification-time
 * facet at time now, or {} for none: "week" is the last 7 days, "older"
 * before a year ago.
 */
export function modifiedRange(facet, now = Date.now()) {
	const f = MODIFIED_FACETS.find((m) => m.value === facet)
	if (!f) {
		return {}
	}
	const at = new Date(now - f.days * 86400_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
	return f.before ? { before: at } : { after: at }
}

/** usesWeights tells whether the weights matter for these options. */
export function usesWeights(opts) {
	return opts.algorithm === 'hybrid' && opts.fusion !== 'auto'
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/**
 * dayStart returns the RFC 3339 time (UTC, whole seconds) at which the local
 * day YYYY-MM-DD starts, shifted by days; "" for an invalid date.
 */
export function dayStart(date, days = 0) {
	const m = DATE.exec(date ?? '')
	if (!m) {
		return ''
	}
	const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])]
	const day = new Date(y, mo, d)
	if (day.getFullYear() !== y || day.getMonth() !== mo || day.getDate() !== d) {
		return ''
	}
	return new Date(y, mo, d + days).toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** normalizePath makes a path prefix absolute ("Documents/x" → "/Documents/x"). */
export function normalizePath(p) {
	const t = (p ?? '').trim()
	if (!t) {
		return ''
	}
	return t.startsWith('/') ? t : '/' + t
}

/**
 * validateOptions checks the options before a search and returns
 * {valid, errors, weights} with weights from validateWeights (or null when
 * the algorithm does not use them).
 */
export function validateOptions(opts) {
	const errors = []
	let weights = null
	if (usesWeights(opts)) {
		weights = validateWeights(opts.weights)
		errors.push(...weights.errors)
	}
	if (!opts.notes && !opts.files) {
		errors.push(t('Choose notes, files or both.'))
	}
	if (opts.modifiedFrom && !dayStart(opts.modifiedFrom)) {
		errors.push(t('The “modified from” date is not a valid date.'))
	}
	if (opts.modifiedUntil && !dayStart(opts.modifiedUntil)) {
		errors.push(t('The “modified until” date is not a valid date.'))
	}
	if (opts.modifiedFrom && opts.modifiedUntil && dayStart(opts.modifiedFrom) && dayStart(opts.modifiedUntil) && opts.modifiedFrom > opts.modifiedUntil) {
		errors.push(t('The “modified from” date is after the “modified until” date.'))
	}
	return { valid: errors.length === 0, error: errors[0] ?? '', errors, weights }
}

/**
 * buildSearchParams returns the query string parameters of GET api/search
 * for query q and options opts. Parameters that equal the server's defaults
 * are still sent when they matter, so the request says what the panel shows.
 */
export function buildSearchParams(q, opts, { explain = true, algorithm = opts.algorithm, offset = 0, facets = false, includeWeak = false, exact = false, now } = {}) {
	const p = new URLSearchParams()
	p.set('q', (q ?? '').trim())
	p.set('algorithm', algorithm)
	if (algorithm === 'hybrid') {
		p.set('fusion', opts.fusion)
		if (opts.fusion !== 'auto') {
			for (const leg of LEGS) {
				p.set(`${leg}_weight`, String(opts.weights[leg]))
			}
		}
	}
	p.set('top_k', String(opts.topK || defaultTopK()))
	if (offset > 0) {
		p.set('offset', String(offset))
	}
	if (opts.kind === 'note') {
		p.set('types', 'note')
	} else if (opts.kind) {
		p.set('types', 'file')
		if (opts.mimes?.length) {
			p.set('mime', opts.mimes.join(','))
		}
	} else if (opts.notes !== opts.files) {
		p.set('types', opts.notes ? 'note' : 'file')
	}
	const prefix = normalizePath(opts.pathPrefix)
	if (prefix) {
		p.set('path_prefix', prefix)
	}
	// The options' dates and the facet's range: the narrower of each bound.
	const range = modifiedRange(opts.modified, now)
	const after = [dayStart(opts.modifiedFrom), range.after].filter(Boolean).sort().pop()
	if (after) {
		p.set('modified_after', after)
	}
	const before = [dayStart(opts.modifiedUntil, 1), range.before].filter(Boolean).sort()[0]
	if (before) {
		p.set('modified_before', before)
	}
	if (opts.owner === 'me' || opts.owner === 'others') {
		p.set('owner', opts.owner)
	}
	if (opts.sort === 'modified') {
		p.set('sort', 'modified')
	}
	if (facets) {
		p.set('facets', '1')
	}
	if (includeWeak) {
		p.set('include_weak', '1')
	}
	if (exact) {
		p.set('no_correction', '1')
	}
	if (explain) {
		p.set('explain', '1')
	}
	return p
}

/**
 * encodeState writes the query and the options that differ from the
 * defaults into a URL fragment ("q=…&algorithm=keyword"), so a reload or a
 * shared link shows the same search.
 */
export function encodeState(q, opts) {
	const d = defaultOptions()
	const p = new URLSearchParams()
	if (q) {
		p.set('q', q)
	}
	if (opts.algorithm !== d.algorithm) {
		p.set('algorithm', opts.algorithm)
	}
	if (opts.fusion !== d.fusion) {
		p.set('fusion', opts.fusion)
	}
	for (const leg of LEGS) {
		if (opts.weights[leg] !== d.weights[leg]) {
			p.set(`${leg}_weight`, String(opts.weights[leg]))
		}
	}
	if (opts.topK !== d.topK) {
		p.set('top_k', String(opts.topK))
	}
	if (opts.notes !== opts.files) {
		p.set('types', opts.notes ? 'note' : 'file')
	}
	if (opts.pathPrefix) {
		p.set('path', opts.pathPrefix)
	}
	if (opts.modifiedFrom) {
		p.set('from', opts.modifiedFrom)
	}
	if (opts.modifiedUntil) {
		p.set('until', opts.modifiedUntil)
	}
	if (opts.kind) {
		p.set('kind', opts.kind)
		if (opts.mimes?.length) {
			p.set('mime', opts.mimes.join(','))
		}
	}
	if (opts.modified) {
		p.set('modified', opts.modified)
	}
	if (opts.owner) {
		p.set('owner', opts.owner)
	}
	if (opts.sort) {
		p.set('sort', opts.sort)
	}
	return p.toString()
}

/** decodeState reads what encodeState wrote, ignoring unknown or bad values. */
export function decodeState(fragment) {
	const p = new URLSearchParams((fragment ?? '').replace(/^#/, ''))
	const opts = defaultOptions()
	const algorithm = p.get('algorithm')
	if (algorithmValues().includes(algorithm)) {
		opts.algorithm = algorithm
	}
	const fusion = p.get('fusion')
	if (fusionValues().includes(fusion)) {
		opts.fusion = fusion
	}
	for (const leg of LEGS) {
		const raw = p.get(`${leg}_weight`)
		const v = raw === null || raw.trim() === '' ? NaN : Number(raw)
		if (Number.isFinite(v)) {
			opts.weights[leg] = v
		}
	}
	const topK = Number(p.get('top_k'))
	if (topKChoices().includes(topK)) {
		opts.topK = topK
	}
	const types = p.get('types')
	if (types === 'note') {
		opts.files = false
	}
	if (types === 'file') {
		opts.notes = false
	}
	opts.pathPrefix = p.get('path') ?? ''
	if (DATE.test(p.get('from') ?? '')) {
		opts.modifiedFrom = p.get('from')
	}
	if (DATE.test(p.get('until') ?? '')) {
		opts.modifiedUntil = p.get('until')
	}
	const kind = p.get('kind') ?? ''
	if (/^[a-z]{1,20}$/.test(kind)) {
		opts.kind = kind
		opts.mimes = (p.get('mime') ?? '').split(',').map((m) => m.trim()).filter((m) => /^[\w.+-]+\/[\w.+-]+$/.test(m)).slice(0, 50)
	}
	if (MODIFIED_FACETS.some((m) => m.value === p.get('modified'))) {
		opts.modified = p.get('modified')
	}
	if (['me', 'others'].includes(p.get('owner'))) {
		opts.owner = p.get('owner')
	}
	if (p.get('sort') === 'modified') {
		opts.sort = 'modified'
	}
	return { q: p.get('q') ?? '', exact: p.get('exact') === '1', opts }
}

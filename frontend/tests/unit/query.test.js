// Dates are local days: pin the time zone (Node applies TZ changes at once).
process.env.TZ = 'Europe/Berlin'

import { describe, expect, it } from 'vitest'
import { buildSearchParams, dayStart, decodeState, defaultOptions, encodeState, normalizePath, validateOptions } from '../../src/lib/query.js'

const opts = (over = {}) => ({ ...defaultOptions(), ...over })
const asObject = (p) => Object.fromEntries(p.entries())

describe('buildSearchParams', () => {
	const cases = [
		{
			name: 'hybrid defaults',
			q: '  kuberntes upgrade ',
			opts: opts(),
			want: { q: 'kuberntes upgrade', algorithm: 'hybrid', fusion: 'rrf', semantic_weight: '0.5', keyword_weight: '0.3', fuzzy_weight: '0.2', top_k: '10', explain: '1' },
		},
		{
			name: 'keyword sends no fusion or weights',
			q: 'Apfelkuchen',
			opts: opts({ algorithm: 'keyword' }),
			want: { q: 'Apfelkuchen', algorithm: 'keyword', top_k: '10', explain: '1' },
		},
		{
			name: 'auto fusion sends no weights',
			q: 'x',
			opts: opts({ fusion: 'auto' }),
			want: { q: 'x', algorithm: 'hybrid', fusion: 'auto', top_k: '10', explain: '1' },
		},
		{
			name: 'linear with custom weights',
			q: 'x',
			opts: opts({ fusion: 'linear', weights: { semantic: 0, keyword: 0.75, fuzzy: 0.25 }, topK: 50 }),
			want: { q: 'x', algorithm: 'hybrid', fusion: 'linear', semantic_weight: '0', keyword_weight: '0.75', fuzzy_weight: '0.25', top_k: '50', explain: '1' },
		},
		{
			name: 'notes only, folder, dates',
			q: '紅葉',
			opts: opts({ algorithm: 'fuzzy', files: false, pathPrefix: ' Notes/旅行 ', modifiedFrom: '2024-05-01', modifiedUntil: '2024-05-31' }),
			want: { q: '紅葉', algorithm: 'fuzzy', top_k: '10', types: 'note', path_prefix: '/Notes/旅行', modified_after: '2024-04-30T22:00:00Z', modified_before: '2024-05-31T22:00:00Z', explain: '1' },
		},
		{
			name: 'files only',
			q: 'x',
			opts: opts({ algorithm: 'semantic', notes: false }),
			want: { q: 'x', algorithm: 'semantic', top_k: '10', types: 'file', explain: '1' },
		},
	]
	for (const c of cases) {
		it(c.name, () => {
			expect(asObject(buildSearchParams(c.q, c.opts))).toEqual(c.want)
		})
	}

	it('leaves explain out when asked', () => {
		expect(buildSearchParams('x', opts(), { explain: false }).has('explain')).toBe(false)
	})

	it('escapes the query for the URL', () => {
		expect(buildSearchParams('a&b=c 紅葉 #1', opts({ algorithm: 'keyword' })).toString()).toBe('q=a%26b%3Dc+%E7%B4%85%E8%91%89+%231&algorithm=keyword&top_k=10&explain=1')
	})
})

describe('dayStart', () => {
	const cases = [
		{ name: 'summer time', got: dayStart('2024-05-01'), want: '2024-04-30T22:00:00Z' },
		{ name: 'winter time', got: dayStart('2024-01-15'), want: '2024-01-14T23:00:00Z' },
		{ name: 'next day across the DST change', got: dayStart('2024-03-31', 1), want: '2024-03-31T22:00:00Z' },
		{ name: 'next day across a month end', got: dayStart('2024-02-29', 1), want: '2024-02-29T23:00:00Z' },
		{ name: 'empty', got: dayStart(''), want: '' },
		{ name: 'not a date', got: dayStart('yesterday'), want: '' },
		{ name: 'impossible date', got: dayStart('2023-02-29'), want: '' },
		{ name: 'impossible date, next day', got: dayStart('2024-02-31', 1), want: '' },
	]
	for (const c of cases) {
		it(c.name, () => expect(c.got).toBe(c.want))
	}
})

describe('normalizePath', () => {
	const cases = [
		{ got: normalizePath(''), want: '' },
		{ got: normalizePath('  '), want: '' },
		{ got: normalizePath('Documents'), want: '/Documents' },
		{ got: normalizePath('/Documents/会議'), want: '/Documents/会議' },
	]
	for (const c of cases) {
		it(`"${c.want}"`, () => expect(c.got).toBe(c.want))
	}
})

describe('validateOptions', () => {
	const cases = [
		{ name: 'defaults', opts: opts(), valid: true },
		{ name: 'no types', opts: opts({ notes: false, files: false }), error: 'Choose notes, files or both.' },
		{ name: 'from after until', opts: opts({ modifiedFrom: '2024-06-01', modifiedUntil: '2024-05-01' }), error: 'after the “modified until” date' },
		{ name: 'same day', opts: opts({ modifiedFrom: '2024-06-01', modifiedUntil: '2024-06-01' }), valid: true },
		{ name: 'bad date', opts: opts({ modifiedFrom: '2024-13-01' }), error: 'not a valid date' },
		{ name: 'bad weights', opts: opts({ weights: { semantic: 1, keyword: 1, fuzzy: 0 } }), error: 'add up to 2' },
		{ name: 'bad weights ignored by keyword', opts: opts({ algorithm: 'keyword', weights: { semantic: 1, keyword: 1, fuzzy: 0 } }), valid: true },
		{ name: 'bad weights ignored by auto fusion', opts: opts({ fusion: 'auto', weights: { semantic: 0, keyword: 0, fuzzy: 0 } }), valid: true },
	]
	for (const c of cases) {
		it(c.name, () => {
			const got = validateOptions(c.opts)
			expect(got.valid).toBe(Boolean(c.valid))
			if (c.error) {
				expect(got.errors.join(' ')).toContain(c.error)
			}
		})
	}
})

describe('encodeState and decodeState', () => {
	it('writes nothing for defaults', () => {
		expect(encodeState('', defaultOptions())).toBe('')
	})
	it('round-trips a changed search', () => {
		const o = opts({ algorithm: 'hybrid', fusion: 'linear', weights: { semantic: 0.2, keyword: 0.6, fuzzy: 0.2 }, topK: 20, notes: false, pathPrefix: '/Documents/会議', modifiedFrom: '2024-05-01', modifiedUntil: '2024-05-31' })
		const frag = encodeState('紅葉 & more', o)
		const got = decodeState('#' + frag)
		expect(got.q).toBe('紅葉 & more')
		expect(got.opts).toEqual(o)
	})
	it('ignores unknown and bad values', () => {
		const got = decodeState('#q=x&algorithm=magic&fusion=nope&semantic_weight=abc&keyword_weight=&top_k=7&from=soon&extra=1&kind=<b>&modified=century&owner=bob&sort=size')
		expect(got).toEqual({ q: 'x', exact: false, opts: defaultOptions() })
	})
	it('reads an empty fragment', () => {
		expect(decodeState('')).toEqual({ q: '', exact: false, opts: defaultOptions() })
		expect(decodeState(undefined)).toEqual({ q: '', exact: false, opts: defaultOptions() })
	})
	it('keeps the result filters and the order in the URL', () => {
		const o = opts({ kind: 'pdf', mimes: ['application/pdf'], modified: 'week', owner: 'others', sort: 'modified' })
		const frag = encodeState('plan', o)
		expect(frag).toBe('q=plan&kind=pdf&mime=application%2Fpdf&modified=week&owner=others&sort=modified')
		expect(decodeState('#' + frag + '&exact=1')).toEqual({ q: 'plan', exact: true, opts: o })
	})
})

describe('the result filters in the request', () => {
	const now = Date.parse('2026-03-10T12:00:00Z')
	it('sends kind, folder, time, owner and order, paging, counts and weak matches', () => {
		const p = buildSearchParams('plan', opts({ kind: 'pdf', mimes: ['application/pdf'], modified: 'week', owner: 'me', sort: 'modified' }), { offset: 10, facets: true, includeWeak: true, exact: true, now })
		expect(Object.fromEntries(p)).toMatchObject({ types: 'file', mime: 'application/pdf', modified_after: '2026-03-03T12:00:00Z', owner: 'me', sort: 'modified', offset: '10', facets: '1', include_weak: '1', no_correction: '1' })
		expect(Object.fromEntries(buildSearchParams('plan', opts({ kind: 'note' }), { now }))).toMatchObject({ types: 'note' })
		expect(Object.fromEntries(buildSearchParams('plan', opts({ modified: 'older' }), { now }))).toMatchObject({ modified_before: '2025-03-10T12:00:00Z' })
		// The options' own dates and the facet: the narrower bound wins.
		expect(buildSearchParams('plan', opts({ modified: 'year', modifiedFrom: '2026-03-01' }), { now }).get('modified_after')).toBe(new Date(2026, 2, 1).toISOString().replace(/\.\d{3}Z$/, 'Z'))
	})
})

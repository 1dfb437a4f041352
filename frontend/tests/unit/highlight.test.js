import { describe, expect, it } from 'vitest'
import { clipSegments, highlightSegments, normalizeRanges, runeLength } from '../../src/lib/highlight.js'
import cjk from '../fixtures/search-cjk.json'

const marked = (segs) => segs.filter((s) => s.mark).map((s) => s.text)
const joined = (segs) => segs.map((s) => s.text).join('')

describe('highlightSegments', () => {
	const cases = [
		{ name: 'ascii', text: 'kubernetes upgrade runbook', ranges: [[11, 18]], want: ['upgrade'] },
		{ name: 'no ranges', text: 'plain text', ranges: [], want: [] },
		{ name: 'missing ranges', text: 'plain text', ranges: undefined, want: [] },
		{ name: 'whole text', text: 'Apfel', ranges: [[0, 5]], want: ['Apfel'] },
		// 🍎 is one rune but two UTF-16 units: UTF-16 offsets would mark "kuche".
		{ name: 'emoji before the match', text: '🍎 Apfelkuchen', ranges: [[2, 13]], want: ['Apfelkuchen'] },
		{ name: 'emoji inside the match', text: 'go 🚀 now', ranges: [[3, 4]], want: ['🚀'] },
		{ name: 'several emoji', text: '🍁🍁🍁紅葉', ranges: [[3, 5]], want: ['紅葉'] },
		{ name: 'CJK', text: '京都の旅で紅葉を楽しんだ', ranges: [[5, 7]], want: ['紅葉'] },
		{ name: 'German umlauts', text: 'Größe und Maße', ranges: [[0, 5], [10, 14]], want: ['Größe', 'Maße'] },
		{ name: 'non-BMP CJK (U+20BB7)', text: '𠮷野家の𠮷', ranges: [[0, 3], [4, 5]], want: ['𠮷野家', '𠮷'] },
		{ name: 'unsorted ranges', text: 'one two three', ranges: [[8, 13], [0, 3]], want: ['one', 'three'] },
		{ name: 'overlapping ranges merge', text: 'abcdefgh', ranges: [[1, 4], [3, 6]], want: ['bcdef'] },
		{ name: 'touching ranges merge', text: 'abcdefgh', ranges: [[1, 3], [3, 5]], want: ['bcde'] },
		{ name: 'out of range is clamped', text: 'abc', ranges: [[1, 99]], want: ['bc'] },
		{ name: 'negative start is clamped', text: 'abc', ranges: [[-5, 1]], want: ['a'] },
		{ name: 'empty and reversed ranges dropped', text: 'abc', ranges: [[1, 1], [2, 1]], want: [] },
		{ name: 'malformed ranges dropped', text: 'abc', ranges: [null, [1], ['0', 2], [0.5, 2], [0, 1]], want: ['a'] },
		{ name: 'empty text', text: '', ranges: [[0, 3]], want: [] },
		{ name: 'non-string text', text: null, ranges: [[0, 3]], want: [] },
	]
	for (const c of cases) {
		it(c.name, () => {
			const got = highlightSegments(c.text, c.ranges)
			expect(marked(got)).toEqual(c.want)
			expect(joined(got)).toBe(typeof c.text === 'string' ? c.text : '')
		})
	}

	it('gives rune offsets for each segment', () => {
		const got = highlightSegments('🍎 Apfel', [[2, 7]])
		expect(got).toEqual([
			{ text: '🍎 ', mark: false, start: 0, end: 2 },
			{ text: 'Apfel', mark: true, start: 2, end: 7 },
		])
	})

	it('marks the fixture CJK excerpt after an emoji', () => {
		const ex = cjk.results[0].excerpt
		expect(marked(highlightSegments(ex.text, ex.highlights))).toEqual(['紅葉'])
	})
})

describe('normalizeRanges', () => {
	it('returns nothing for a non-array', () => {
		expect(normalizeRanges('x', 10)).toEqual([])
	})
	it('merges nested ranges', () => {
		expect(normalizeRanges([[0, 10], [2, 3], [12, 14]], 20)).toEqual([[0, 10], [12, 14]])
	})
})

describe('clipSegments', () => {
	const long = 'word '.repeat(200) // 1000 runes
	it('leaves short text alone', () => {
		const segs = highlightSegments('short text', [[0, 5]])
		expect(clipSegments(segs, 360)).toBe(segs)
	})
	it('keeps the first match in view with ellipses', () => {
		const text = long + 'needle ' + long
		const start = runeLength(long)
		const got = clipSegments(highlightSegments(text, [[start, start + 6]]), 100, 30)
		expect(marked(got)).toEqual(['needle'])
		expect(got[0]).toMatchObject({ text: '…', ellipsis: true })
		expect(got[got.length - 1]).toMatchObject({ text: '…', ellipsis: true })
		const body = got.filter((s) => !s.ellipsis).map((s) => s.text).join('')
		expect(runeLength(body)).toBeLessThanOrEqual(100)
		// Cuts fall on word boundaries.
		expect(body.startsWith('word ')).toBe(true)
		expect(body.endsWith('word ') || body.endsWith('word')).toBe(true)
	})
	it('starts at the beginning when there is no match', () => {
		const got = clipSegments(highlightSegments(long, []), 50)
		expect(got[0].ellipsis).toBeUndefined()
		expect(got[got.length - 1].ellipsis).toBe(true)
	})
	it('shows the end when the match is near the end', () => {
		const text = long + 'needle'
		const start = runeLength(long)
		const got = clipSegments(highlightSegments(text, [[start, start + 6]]), 100, 30)
		expect(got[got.length - 1]).toMatchObject({ text: 'needle', mark: true })
	})
	it('cuts CJK text without spaces by runes and never splits a surrogate pair', () => {
		const text = '🍁'.repeat(500) + '紅葉' + '京'.repeat(500)
		const got = clipSegments(highlightSegments(text, [[500, 502]]), 60, 10)
		expect(marked(got)).toEqual(['紅葉'])
		const body = got.filter((s) => !s.ellipsis).map((s) => s.text).join('')
		expect(body).toBe('🍁'.repeat(10) + '紅葉' + '京'.repeat(48))
		expect(body).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
	})
})

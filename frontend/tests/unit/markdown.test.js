import { describe, expect, it } from 'vitest'
import { highlightSegments } from '../../src/lib/highlight.js'
import { isMarkdown, plainMarkdown } from '../../src/lib/markdown.js'

function marked(text, ranges) {
	return highlightSegments(text, ranges).filter((s) => s.mark).map((s) => s.text)
}

describe('plainMarkdown', () => {
	it.each([
		['## Upgrade steps\n\nDrain the **node** first.', 'Upgrade steps\n\nDrain the node first.'],
		['# Title #', 'Title'],
		['- one\n- two\n  * nested', '• one\n• two\n  • nested'],
		['> quoted *text* here', 'quoted text here'],
		['See [the runbook](https://x.example/run) and ![a chart](c.png).', 'See the runbook and a chart.'],
		['Run `kubectl drain` now', 'Run kubectl drain now'],
		['| Item | Cost |\n|------|-----:|\n| Rent | 900 |', ' Item   Cost \n Rent   900 '],
		['```sh\n## not a heading\n```\nafter', '## not a heading\nafter'],
		['text\n\n---\n\nmore', 'text\n\nmore'],
		['snake_case_name and 2*3*4 stay', 'snake_case_name and 2*3*4 stay'],
		['a \\*literal\\* star', 'a *literal* star'],
		['Kyoto 紅葉 **見頃**', 'Kyoto 紅葉 見頃'],
	])('%j', (md, want) => {
		expect(plainMarkdown(md).text).toBe(want)
	})

	it('moves highlights onto the text shown', () => {
		const md = '## Kubernetes upgrade\n\nDrain **each node**, then 🍎 upgrade.'
		// Rune offsets of "Kubernetes", "node" and the second "upgrade" in md.
		const runes = Array.from(md)
		const at = (word, from = 0) => {
			const i = runes.join('').indexOf(word, from)
			const start = Array.from(md.slice(0, i)).length
			return [start, start + Array.from(word).length]
		}
		const ranges = [at('Kubernetes'), at('node'), at('upgrade', 30)]
		const got = plainMarkdown(md, ranges)
		expect(got.text).toBe('Kubernetes upgrade\n\nDrain each node, then 🍎 upgrade.')
		expect(marked(got.text, got.highlights)).toEqual(['Kubernetes', 'node', 'upgrade'])
	})

	it('drops a highlight whose characters all went away', () => {
		expect(plainMarkdown('## x', [[0, 2]]).highlights).toEqual([])
	})
})

describe('isMarkdown', () => {
	it.each([
		[{ type: 'note', mime: 'text/plain' }, true],
		[{ type: 'file', mime: 'text/markdown' }, true],
		[{ type: 'file', mime: 'text/html' }, true],
		[{ type: 'file', mime: 'text/plain', path: '/a/README.md' }, true],
		[{ type: 'file', mime: 'text/plain', path: '/a/notes.txt' }, false],
		[{ type: 'file', mime: 'application/pdf' }, false],
	])('%j', (doc, want) => expect(isMarkdown(doc)).toBe(want))
})

process.env.TZ = 'UTC'

import { describe, expect, it } from 'vitest'
import {
	docKind,
	formatDate,
	formatDateTime,
	formatDuration,
	formatNumber,
	formatRelevance,
	formatScore,
	legRows,
	parseTime,
	resultSummary,
	skippedNotice,
} from '../../src/lib/format.js'
import { describeStatus, indexingSummary } from '../../src/lib/statustext.js'
import kube from '../fixtures/search-kubernetes.json'
import busy from '../fixtures/status-busy.json'

describe('formatDuration', () => {
	const cases = [
		{ in: 0, want: '' },
		{ in: -5, want: '' },
		{ in: NaN, want: '' },
		{ in: undefined, want: '' },
		{ in: 0.0168, want: '17 ms' },
		{ in: 1, want: '1 s' },
		{ in: 45.4, want: '45 s' },
		{ in: 60, want: '1 min' },
		{ in: 12 * 60 + 10, want: '12 min' },
		{ in: 3600, want: '1 h' },
		{ in: 3 * 3600 + 20 * 60, want: '3 h 20 min' },
		{ in: 86400, want: '1 d' },
		{ in: 2 * 86400 + 4 * 3600, want: '2 d 4 h' },
	]
	for (const c of cases) {
		it(`${c.in} s → "${c.want}"`, () => expect(formatDuration(c.in)).toBe(c.want))
	}
})

describe('formatRelevance', () => {
	const cases = [
		{ in: 0.934, want: '0.93' },
		{ in: 1, want: '1.00' },
		{ in: 1.7, want: '1.00' },
		{ in: -0.2, want: '0.00' },
		{ in: null, want: '0.00' },
	]
	for (const c of cases) {
		it(`${c.in} → ${c.want}`, () => expect(formatRelevance(c.in)).toBe(c.want))
	}
	it('is never a percentage', () => expect(formatRelevance(0.03)).not.toContain('%'))
})

describe('dates and numbers', () => {
	it('drops Go zero times', () => {
		expect(parseTime('0001-01-01T00:00:00Z')).toBeNull()
		expect(formatDate('0001-01-01T00:00:00Z', 'en-GB')).toBe('')
		expect(formatDate('garbage', 'en-GB')).toBe('')
		expect(formatDate(undefined, 'en-GB')).toBe('')
	})
	it('formats in the locale', () => {
		expect(formatDate('2024-08-15T09:30:00Z', 'en-GB')).toBe('15 Aug 2024')
		expect(formatDate('2024-08-15T09:30:00Z', 'de-DE')).toBe('15.08.2024')
		expect(formatDate('2024-08-15T09:30:00Z', 'ja-JP')).toBe('2024/08/15')
		expect(formatDateTime('2024-08-15T09:30:00Z', 'en-GB')).toBe('15 Aug 2024, 09:30')
		expect(formatNumber(56789, 'en-US')).toBe('56,789')
		expect(formatNumber(56789, 'de-DE')).toBe('56.789')
		expect(formatNumber(undefined, 'en-US')).toBe('0')
	})
	it('formats scores compactly', () => {
		expect(formatScore(3.14159)).toBe('3.1416')
		expect(formatScore(12.345)).toBe('12.3')
		expect(formatScore(123.4)).toBe('123')
		expect(formatScore(undefined)).toBe('–')
	})
})

describe('docKind', () => {
	const cases = [
		{ type: 'note', mime: 'text/markdown', want: 'note' },
		{ type: 'file', mime: 'application/pdf', want: 'pdf' },
		{ type: 'file', mime: 'image/png', want: 'image' },
		{ type: 'file', mime: 'text/csv', want: 'sheet' },
		{ type: 'file', mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', want: 'sheet' },
		{ type: 'file', mime: 'application/vnd.oasis.opendocument.presentation', want: 'slides' },
		{ type: 'file', mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', want: 'document' },
		{ type: 'file', mime: 'application/json', want: 'code' },
		{ type: 'file', mime: 'text/html', want: 'document' },
		{ type: 'file', mime: 'application/zip', want: 'archive' },
		{ type: 'file', mime: 'text/markdown', want: 'text' },
		{ type: 'file', mime: 'application/octet-stream', want: 'file' },
		{ type: 'file', mime: undefined, want: 'file' },
	]
	for (const c of cases) {
		it(`${c.mime} → ${c.want}`, () => expect(docKind(c.type, c.mime)).toBe(c.want))
	}
})

describe('search result text', () => {
	it('says which leg is off and why', () => {
		expect(skippedNotice(kube.skipped_legs[0])).toBe('Semantic search is off: no embedding model is configured')
		// Without a code the panel knows, its own words, never the server's.
		expect(skippedNotice({ leg: 'keyword' })).toBe('Keyword search is off: it could not run right now')
		expect(skippedNotice({ leg: 'rerank', reason: 'x' })).toBe('rerank search is off: it could not run right now')
	})
	it('summarizes a result page', () => {
		expect(resultSummary(kube, 'en-US')).toBe('2 results for “kuberntes upgrade” in 12 ms')
		expect(resultSummary({ query: '紅葉', results: [{}], took_ms: 3 }, 'en-US')).toBe('1 result for “紅葉” in 3 ms')
		expect(resultSummary({ query: 'x', results: [] })).toBe('0 results for “x”')
	})
	it('lists every leg of an explanation, absent ones too', () => {
		const got = legRows(kube.results[0].explain)
		expect(got).toEqual([
			{ leg: 'semantic', label: 'Semantic', found: false, ran: true, rank: null, score: '' },
			{ leg: 'keyword', label: 'Keyword', found: true, ran: true, rank: 2, score: '3.1416' },
			{ leg: 'fuzzy', label: 'Fuzzy', found: true, ran: true, rank: 1, score: '0.6120' },
		])
		expect(legRows(undefined).every((r) => !r.found)).toBe(true)
		// A leg that was skipped did not run: "did not run", never "not found".
		expect(legRows(kube.results[0].explain, ['keyword', 'fuzzy'])[0]).toMatchObject({ leg: 'semantic', found: false, ran: false })
	})
})

describe('describeStatus', () => {
	it('describes a busy index', () => {
		const got = describeStatus(busy, 'en-US')
		expect(got.counts.map((c) => [c.key, c.text])).toEqual([
			['indexed', '1,234'],
			['pending', '5'],
			['skipped', '3'],
			['failed', '2'],
			['chunks', '56,789'],
		])
		expect(got.progress).toMatchObject({ done: 1239, total: 1244, text: '1,239 of 1,244 files processed' })
		expect(got.queue.text).toBe('120 jobs waiting · 2.5 jobs/s · about 48 s left')
		expect(got.scan).toMatchObject({ running: true, text: 'Scanning: 1 of 4 users done, 900 files seen, 120 queued', fraction: 0.25 })
		// The server's English is not shown: the state by name or code.
		expect(got.components).toEqual([
			{ name: 'embedder', label: 'Embedder', ok: false, note: false, state: 'the embedding model is not answering' },
			{ name: 'nats', label: 'Queue (NATS)', ok: true, note: false, state: 'working' },
			{ name: 'nextcloud', label: 'Nextcloud', ok: true, note: false, state: 'working' },
			{ name: 'store', label: 'Index store', ok: true, note: false, state: 'working' },
		])
		expect(got.health).toBe('Some parts of the search are not working right now; an administrator can see why.')
		expect(got.problems).toEqual([
			{ fileId: 55, path: '/Documents/scan.pdf', status: 'failed', reason: 'extract: the PDF is encrypted', updated: 'Oct 1, 2024, 10:00 AM' },
			{ fileId: 56, path: '/Photos/huge.tiff', status: 'skipped', reason: 'larger than 50 MB', updated: 'Oct 1, 2024, 9:00 AM' },
		])
		expect(got.counters).toBe('1,500 jobs processed, 4,000 chunks embedded, 800 vectors reused')
		expect(got.busy).toBe(true)
	})

	it('describes an idle index after a scan (the demo)', () => {
		const rep = {
			version: '0.1.0',
			user: 'alice',
			files: { indexed: 11, skipped: 0, failed: 0, pending: 0, chunks: 24 },
			problems: [],
			queue: { pending: 0, jobs_per_second: 0, eta_seconds: 0 },
			scan: { running: false, started: '2026-11-22T00:57:08.5Z', finished: '2026-11-22T00:57:08.54Z', users_total: 2, users_done: 2, files_seen: 11, queued: 11, duration_seconds: 0.0168 },
			components: { nats: { ok: true } },
		}
		const got = describeStatus(rep, 'en-GB')
		expect(got.progress.text).toBe('11 of 11 files processed')
		expect(got.progress.fraction).toBe(1)
		expect(got.queue.text).toBe('0 jobs waiting')
		expect(got.scan.text).toBe('Last scan finished 22 Nov 2026, 00:57 (took 17 ms): 11 files seen, 11 queued')
		expect(got.counters).toBe('')
		expect(got.busy).toBe(false)
	})

	it('copes with an empty or partial report', () => {
		const got = describeStatus({ queue: { pending: 3, error: 'nats: timeout' }, scan: { running: false } }, 'en-US')
		expect(got.progress.text).toBe('No files found yet')
		expect(got.queue).toMatchObject({ pending: 3, text: '3 jobs waiting', error: 'The queue is not answering.' })
		expect(got.scan.text).toBe('No scan has run yet')
		expect(got.components).toEqual([])
		expect(got.problems).toEqual([])
		expect(got.busy).toBe(true)
		expect(describeStatus(null).counts.every((c) => c.value === 0)).toBe(true)
	})

	it('lists every user for admins', () => {
		const got = describeStatus({ per_user: { bob: { indexed: 2 }, alice: { indexed: 1000, chunks: 3 } } }, 'en-US')
		expect(got.perUser).toEqual([
			{ user: 'alice', counts: ['1,000', '0', '0', '0', '3'] },
			{ user: 'bob', counts: ['2', '0', '0', '0', '0'] },
		])
	})

	it('says the queue is paused and names each embedding host', () => {
		const got = describeStatus({
			queue: { pending: 7, jobs_per_second: 0, eta_seconds: 0, paused: true, paused_reason: 'no embedding host answers' },
			components: { embedder: { ok: false, error: 'no embedding host answers' }, store: { ok: true } },
			embedders: [
				{ host: 'http://gpu1:11434', ok: false, error: 'host unreachable' },
				{ host: 'http://gpu2:11434', ok: true },
			],
		}, 'en-US')
		expect(got.queue).toMatchObject({ pending: 7, paused: true, text: '7 jobs waiting · paused: no embedding host answers' })
		expect(got.components.map((c) => [c.label, c.ok, c.state])).toEqual([
			['Embedder', false, 'the embedding model is not answering'],
			['Ollama at http://gpu1:11434', false, 'not answering'],
			['Ollama at http://gpu2:11434', true, 'working'],
			['Index store', true, 'working'],
		])
	})

	it('names a failing component without an error text', () => {
		expect(describeStatus({ components: { store: { ok: false } } }).components[0].state).toBe('the search index is not answering')
		expect(describeStatus({ components: { rerank: { ok: false, error: 'gpu on fire' } } }).components[0].state).toBe('not working')
	})

	it('says component states by their codes, a missing OCR language as a note', () => {
		const got = describeStatus({ components: {
			ocr: { ok: true, code: 'ocr_languages_missing', note: 'OCR languages not installed (install tesseract-ocr-<code>): fra', detail: ['fra', 'spa'] },
			settings: { ok: false, code: 'settings_unreadable', error: 'the admin settings could not be read from Nextcloud: timeout' },
		} }, 'en-US')
		expect(got.components).toEqual([
			{ name: 'ocr', label: 'Text recognition (OCR)', ok: true, note: true, state: 'working; fra, spa are not installed, so text in those languages is not recognised' },
			{ name: 'settings', label: 'Admin settings', ok: false, note: false, state: 'could not be read from Nextcloud' },
		])
		expect(JSON.stringify(got)).not.toContain('tesseract')
	})

	it('shows users who are not admins their own files, not the components', () => {
		const got = describeStatus(busy, 'en-US', { admin: false })
		expect(got.components).toEqual([])
		expect(got.health).toBe('Some parts of the search are not working right now; an administrator can see why.')
		expect(describeStatus({ components: { store: { ok: true } } }, 'en-US', { admin: false }).health).toBe('Everything the search needs is working.')
	})

	it('says whether live updates are on, with the delays, and how to turn them on', () => {
		const on = describeStatus({ live: { enabled: true, deliveries_last_hour: 42, delay_p50_seconds: 2.4, delay_p95_seconds: 95 } }, 'en-US')
		expect(on.live).toEqual({ on: true, text: 'Live updates are on: 42 changes arrived in the last hour. Half of them reached the app within 2 s, 95 % within 2 min of the change.' })
		const off = describeStatus({ live: { enabled: false, reason_code: 'webhook_listeners_disabled', reason: 'webhook_listeners is disabled' } }, 'en-US')
		expect(off.live.text).toContain('Run “occ app:enable webhook_listeners”')
		expect(describeStatus({ live: { enabled: false, reason_code: 'webhook_listeners_disabled' } }, 'en-US', { admin: false }).live.text).toBe('Changes to your files are found by the regular scan, not at once.')
		expect(describeStatus({}, 'en-US').live).toBe(null)
	})

	it('shows the progress of a rebuild for a new model', () => {
		const got = describeStatus({ files: { indexed: 300 }, rebuild: { model: 'bge-m3', done: 120, total: 300, progress: 0.4 } }, 'en-US')
		expect(got.rebuild).toMatchObject({ model: 'bge-m3', fraction: 0.4, text: 'Rebuilding the index for the embedding model bge-m3: 120 of 300 files (40%). Searches use the current index until the new one has caught up.' })
		expect(got.busy).toBe(true)
		expect(describeStatus({ rebuild: { model: '', done: 1, total: 2 } }, 'en-US').rebuild.text).toContain('without an embedding model: 1 of 2 files (50%)')
	})
})

describe('indexingSummary', () => {
	it('says when indexing is under way, paused, scanning for the first time or rebuilding, and how far', () => {
		expect(indexingSummary({ files: { indexed: 10, pending: 0 } }, 'en-US')).toBe(null)
		expect(indexingSummary({ files: { indexed: 14, pending: 43 }, queue: { pending: 43 } }, 'en-US')).toEqual({ kind: 'running', fraction: 14 / 57, text: 'Indexing is under way: 14 of 57 of your files are processed (25%). Search finds what is indexed.' })
		expect(indexingSummary({ files: { indexed: 14, pending: 43 }, queue: { pending: 43, eta_seconds: 130 } }, 'en-US').text).toContain('about 2 min left')
		expect(indexingSummary({ files: { indexed: 1, pending: 3 }, queue: { pending: 3, paused: true } }, 'en-US').kind).toBe('paused')
		expect(indexingSummary({ files: { indexed: 5, pending: 0 }, scan: { running: true, files_seen: 5 } }, 'en-US').kind).toBe('scan')
		expect(indexingSummary({ files: { indexed: 300 }, rebuild: { model: 'bge-m3', done: 1, total: 4 } }, 'de-DE')).toMatchObject({ kind: 'rebuild', fraction: 0.25 })
	})
})

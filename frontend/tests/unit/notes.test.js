import { getLanguage, register, setLanguage, unregister } from '@nextcloud/l10n'
import { flushPromises, mount } from '@vue/test-utils'
// The map's and Find similar's notes in the user's language: the server's
// note_code is translated (l10n/<lang>.json), with the count in its plural
// form; an unknown code, or one missing a detail it needs, gives a general
// sentence in the user's language, never the server's English.
import { afterEach, describe, expect, it, vi } from 'vitest'
import SimilarView from '../../src/components/SimilarView.vue'
import VizView from '../../src/components/VizView.vue'
import de from '../../../l10n/de.json'
import ja from '../../../l10n/ja.json'
import { normalizeViz } from '../../src/lib/api.js'
import { similarNote, vizNote } from '../../src/lib/format.js'
import { APP_ID } from '../../src/lib/l10n.js'

const language = getLanguage()
afterEach(() => {
	unregister(APP_ID)
	setLanguage(language)
})

const KEYWORD_MAP = 'so the map shows the keyword (BM25) vectors instead of embeddings.'

// What the server sends for each viz note code (hybridsearch.VizNote*).
const viz = {
	semantic_off: { note_code: 'semantic_off', note: `No embedding model is configured, ${KEYWORD_MAP}` },
	embedder_failed: { note_code: 'embedder_failed', note_reason_code: 'timeout', note: `The embedding model did not answer (unavailable: embedding: timed out), ${KEYWORD_MAP}` },
	no_embeddings: { note_code: 'no_embeddings', note: `No chunk has an embedding yet, ${KEYWORD_MAP}` },
	chunks_without_embeddings: { note_code: 'chunks_without_embeddings', note_count: 3, note: '3 chunks have no embedding yet and are not shown.' },
}
const similar = {
	semantic_off: { note_code: 'semantic_off', note: "No embedding model is configured, so the files' words were compared (keyword search).", sources: [{ file_id: 1 }] },
	no_embeddings: { note_code: 'no_embeddings', note: 'These files have no embeddings yet, so their words were compared (keyword search).', sources: [{ file_id: 1 }, { file_id: 2 }] },
}

describe('vizNote', () => {
	it('says each code in English', () => {
		expect(vizNote(viz.semantic_off)).toBe(viz.semantic_off.note)
		expect(vizNote(viz.embedder_failed)).toBe(`The embedding model could not be used (it took too long), ${KEYWORD_MAP}`)
		expect(vizNote({ ...viz.embedder_failed, note_reason_code: 'embedder_unavailable' })).toBe(`The embedding model could not be used (the embedding model is not answering), ${KEYWORD_MAP}`)
		expect(vizNote(viz.no_embeddings)).toBe(viz.no_embeddings.note)
		expect(vizNote(viz.chunks_without_embeddings)).toBe('3 chunks have no embedding yet and are not shown.')
		expect(vizNote({ ...viz.chunks_without_embeddings, note_count: 1 })).toBe('1 chunk has no embedding yet and is not shown.')
	})
	it("says a general sentence for what it does not know, not the server's words", () => {
		expect(vizNote({ space: 'keyword', note_code: 'store_busy', note: 'The store is busy.' })).toBe('The map shows the keyword (BM25) vectors instead of embeddings.') // a new code
		expect(vizNote({ space: 'semantic', note: 'Older server.' })).toBe('Some chunks are not shown.') // no code
		expect(vizNote({ space: 'keyword', note_code: 'toString', note: 'x' })).toBe('The map shows the keyword (BM25) vectors instead of embeddings.') // not an inherited property
		expect(vizNote({ ...viz.embedder_failed, space: 'keyword', note_reason_code: 'gpu_on_fire' })).toBe('The map shows the keyword (BM25) vectors instead of embeddings.') // a new reason
		expect(vizNote({ ...viz.chunks_without_embeddings, space: 'semantic', note_count: undefined })).toBe('Some chunks are not shown.')
		expect(vizNote({ space: 'semantic' })).toBe('')
		expect(vizNote(null)).toBe('')
	})
})

describe('similarNote', () => {
	it('says each code in English, for one file or several', () => {
		expect(similarNote(similar.semantic_off)).toBe('No embedding model is configured, so the files’ words were compared (keyword search).')
		expect(similarNote(similar.no_embeddings)).toBe(similar.no_embeddings.note)
		expect(similarNote({ ...similar.no_embeddings, sources: [{ file_id: 1 }] })).toBe('This file has no embeddings yet, so its words were compared (keyword search).')
	})
	it("says a general sentence for what it does not know, not the server's words", () => {
		expect(similarNote({ note_code: 'new_code', note: 'Something new.' })).toBe('The files’ words were compared (keyword search).')
		expect(similarNote({ note: 'Older server.' })).toBe('The files’ words were compared (keyword search).')
		expect(similarNote({ space: 'semantic', note: '' })).toBe('')
	})
})

for (const [lang, want] of [
	['de', {
		semantic_off: 'Es ist kein Embedding-Modell eingerichtet, daher zeigt die Karte die Stichwortvektoren (BM25) statt der Embeddings.',
		embedder_failed: 'Das Embedding-Modell war nicht nutzbar (es hat zu lange gedauert), daher zeigt die Karte die Stichwortvektoren (BM25) statt der Embeddings.',
		one: '1 Abschnitt hat noch kein Embedding und wird nicht gezeigt.',
		three: '3 Abschnitte haben noch kein Embedding und werden nicht gezeigt.',
		similarOne: 'Diese Datei hat noch keine Embeddings, daher wurden ihre Wörter verglichen (Stichwortsuche).',
		similarTwo: 'Diese Dateien haben noch keine Embeddings, daher wurden ihre Wörter verglichen (Stichwortsuche).',
	}],
	['ja', {
		semantic_off: '埋め込みモデルが設定されていないため、マップには埋め込みの代わりにキーワードベクトル（BM25）を表示しています。',
		embedder_failed: '埋め込みモデルを使えなかったため（時間がかかりすぎました）、マップには埋め込みの代わりにキーワードベクトル（BM25）を表示しています。',
		one: 'チャンク 1 件はまだ埋め込みがないため表示していません。',
		three: 'チャンク 3 件はまだ埋め込みがないため表示していません。',
		similarOne: 'ファイルにまだ埋め込みがないため、その語を比較しました（キーワード検索）。',
		similarTwo: 'ファイルにまだ埋め込みがないため、その語を比較しました（キーワード検索）。',
	}],
]) {
	describe(`notes in ${lang}`, () => {
		it('translates every code, with the plural form for the count', () => {
			// The plural form follows the page's language (Nextcloud renders <html lang>).
			setLanguage(lang)
			register(APP_ID, { de, ja }[lang].translations)
			const english = (r, f) => {
				unregister(APP_ID)
				const s = f(r)
				register(APP_ID, { de, ja }[lang].translations)
				return s
			}
			for (const r of Object.values(viz)) {
				const got = vizNote(r)
				expect(got, r.note_code).not.toBe(english(r, vizNote))
				expect(got, r.note_code).not.toBe(r.note)
			}
			for (const r of Object.values(similar)) {
				expect(similarNote(r), r.note_code).not.toBe(english(r, similarNote))
			}
			expect(vizNote(viz.semantic_off)).toBe(want.semantic_off)
			expect(vizNote(viz.embedder_failed)).toBe(want.embedder_failed)
			expect(vizNote({ ...viz.chunks_without_embeddings, note_count: 1 })).toBe(want.one)
			expect(vizNote(viz.chunks_without_embeddings)).toBe(want.three)
			expect(similarNote({ ...similar.no_embeddings, sources: [{ file_id: 1 }] })).toBe(want.similarOne)
			expect(similarNote(similar.no_embeddings)).toBe(want.similarTwo)
			expect(vizNote({ space: 'keyword', note_code: 'store_busy', note: 'The store is busy.' })).not.toBe('The map shows the keyword (BM25) vectors instead of embeddings.')
			expect(similarNote({ note_code: 'new_code', note: 'Something new.' })).not.toBe('The files’ words were compared (keyword search).')
		})
	})
}

describe('the map and Find similar show the note by its code', () => {
	it('in German, with the count, also for an unknown code', async () => {
		setLanguage('de')
		register(APP_ID, de.translations)
		const maps = [
			{ space: 'semantic', note_code: 'chunks_without_embeddings', note_count: 1, note: '1 chunks have no embedding yet and are not shown.', points: [{ file_id: 1, chunk_no: 0, x: 0, y: 0, rank: 1, best: true, legs: ['keyword'] }] },
			{ space: 'keyword', note_code: 'later_code', note: 'Server words.', points: [] },
		]
		const client = { viz: vi.fn(async () => normalizeViz(maps.shift())) }
		const w = mount(VizView, { props: { client, params: 'q=x' } })
		await flushPromises()
		expect(w.get('.hs-viz__note').text()).toBe('1 Abschnitt hat noch kein Embedding und wird nicht gezeigt.')
		await w.setProps({ params: 'q=y' })
		await flushPromises()
		expect(w.get('.hs-viz__note').text()).toBe(de.translations['The map shows the keyword (BM25) vectors instead of embeddings.'])
		w.unmount()

		const res = { sources: [{ file_id: 12, title: 'Plan', path: '/Plan.md' }], space: 'keyword', note_code: 'no_embeddings', note: 'These files have no embeddings yet, so their words were compared (keyword search).', results: [], skipped_legs: [], verification: { checked: 0, dropped: 0, unverified: [] } }
		const s = mount(SimilarView, { props: { client: { similar: vi.fn(async () => res) }, ids: [12] } })
		await flushPromises()
		expect(s.get('.hs-similar__note').text()).toBe('Diese Datei hat noch keine Embeddings, daher wurden ihre Wörter verglichen (Stichwortsuche).')
		s.unmount()
	})
})

import { register, unregister } from '@nextcloud/l10n'
// Skipped legs in the user's language: the server's code is translated
// (l10n/<lang>.json); for an unknown code the panel says in the user's
// language that the method could not run, never the server's English.
import { afterEach, describe, expect, it } from 'vitest'
import de from '../../../l10n/de.json'
import ja from '../../../l10n/ja.json'
import { skippedNotice, skipReason } from '../../src/lib/format.js'
import { APP_ID } from '../../src/lib/l10n.js'

const CODES = ['semantic_off', 'embedder_unavailable', 'embedder_error', 'store_unavailable', 'store_error', 'timeout']

afterEach(() => unregister(APP_ID))

const english = {
	semantic_off: 'no embedding model is configured',
	embedder_unavailable: 'the embedding model is not answering',
	embedder_error: 'the embedding model refused the query',
	store_unavailable: 'the search index is not answering',
	store_error: 'the search index could not answer',
	timeout: 'it took too long',
}

describe('skipReason', () => {
	it('says each code the server sends in English', () => {
		expect(Object.keys(english)).toEqual(CODES)
		for (const code of CODES) {
			expect(skipReason({ leg: 'semantic', code, reason: 'server words' })).toBe(english[code])
		}
	})
	it("says a general sentence, not the server's words, for an unknown or missing code", () => {
		expect(skipReason({ leg: 'keyword', code: 'quota_exceeded', reason: 'store: over quota' })).toBe('it could not run right now')
		expect(skipReason({ leg: 'keyword', reason: 'unavailable: store down' })).toBe('it could not run right now')
		expect(skipReason({ leg: 'semantic', code: 'toString', reason: 'x' })).toBe('it could not run right now') // not an inherited property
	})
	for (const [lang, want] of [
		['de', { semantic_off: 'es ist kein Embedding-Modell eingerichtet', timeout: 'es hat zu lange gedauert', notice: 'Die Suche „Semantisch“ ist aus: es ist kein Embedding-Modell eingerichtet' }],
		['ja', { semantic_off: '埋め込みモデルが設定されていません', timeout: '時間がかかりすぎました', notice: 'セマンティック検索はオフです：埋め込みモデルが設定されていません' }],
	]) {
		it(`translates every code in ${lang}, and an unknown one too`, () => {
			const bundle = { de, ja }[lang].translations
			register(APP_ID, bundle)
			for (const code of CODES) {
				const got = skipReason({ leg: 'semantic', code, reason: 'semantic search is off: no embedding model is configured' })
				expect(got, code).toBe(bundle[english[code]])
				expect(got, code).not.toBe(english[code])
			}
			expect(skipReason({ leg: 'semantic', code: 'semantic_off' })).toBe(want.semantic_off)
			expect(skipReason({ leg: 'keyword', code: 'timeout' })).toBe(want.timeout)
			expect(skippedNotice({ leg: 'semantic', code: 'semantic_off', reason: 'no embedding model is configured' })).toBe(want.notice)
			expect(skipReason({ leg: 'keyword', code: 'new_code', reason: 'store: something new' })).toBe(bundle['it could not run right now'])
		})
	}
})

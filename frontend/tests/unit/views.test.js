import { readFileSync } from 'node:fs'
import { join } from 'node:path'
// @vitest-environment node
import { describe, expect, it } from 'vitest'
import { jsOf, L10N, languages, readBundle, sourceStrings } from '../../scripts/l10n.mjs'
import { clientConfigs, shellQuote, tokenState } from '../../src/lib/assistant.js'
import { overlap } from '../../src/lib/compare.js'
import { colorKey, legend, scales } from '../../src/lib/viz.js'

describe('assistant configurations', () => {
	const url = 'https://cloud.example.org/index.php/apps/app_api/proxy/hybrid_search/mcp'
	const byId = Object.fromEntries(clientConfigs(url, 's3cr3t').map((c) => [c.id, c]))
	it('Claude Code: one command with the header', () => {
		expect(byId['claude-code'].text).toBe(`claude mcp add --transport http nextcloud-search ${url} \\\n  --header 'Authorization: Bearer s3cr3t'`)
	})
	it('Claude Desktop goes through mcp-remote with the secret in env', () => {
		const cfg = JSON.parse(byId['claude-desktop'].text).mcpServers['nextcloud-search']
		expect(cfg).toEqual({ command: 'npx', args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH}'], env: { AUTH: 'Bearer s3cr3t' } })
	})
	it('Cursor and VS Code take URL and headers', () => {
		expect(JSON.parse(byId.cursor.text)).toEqual({ mcpServers: { 'nextcloud-search': { url, headers: { Authorization: 'Bearer s3cr3t' } } } })
		expect(JSON.parse(byId.vscode.text)).toEqual({ servers: { 'nextcloud-search': { type: 'http', url, headers: { Authorization: 'Bearer s3cr3t' } } } })
	})
	it('without a secret, only the URL: the client signs in itself (OAuth)', () => {
		const oauth = Object.fromEntries(clientConfigs(url, '').map((c) => [c.id, c]))
		expect(oauth['claude-code'].text).toBe(`claude mcp add --transport http nextcloud-search ${url}`)
		expect(JSON.parse(oauth['claude-desktop'].text).mcpServers['nextcloud-search']).toEqual({ command: 'npx', args: ['-y', 'mcp-remote', url] })
		expect(JSON.parse(oauth.cursor.text)).toEqual({ mcpServers: { 'nextcloud-search': { url } } })
		expect(JSON.parse(oauth.vscode.text)).toEqual({ servers: { 'nextcloud-search': { type: 'http', url } } })
		expect(Object.values(oauth).some((c) => c.text.includes('Authorization'))).toBe(false)
	})
	it('quotes for the shell', () => {
		expect(shellQuote("it's")).toBe('\'it\'\\\'\'s\'')
		expect(shellQuote('https://a/b')).toBe('https://a/b')
	})
	it('tells token states', () => {
		expect(tokenState({ revoked: true })).toBe('revoked')
		expect(tokenState({ expires: '2000-01-01T00:00:00Z' })).toBe('expired')
		expect(tokenState({ expires: '2999-01-01T00:00:00Z' })).toBe('active')
	})
})

describe('compare', () => {
	it('counts documents shared with hybrid', () => {
		expect(overlap([1, 2, 3, 4], [3, 1, 9])).toEqual({ shared: 2, share: 2 / 3 })
		expect(overlap([], [1])).toEqual({ shared: 0, share: 0 })
	})
})

describe('vector-space map', () => {
	it('colours by the one leg, or several', () => {
		expect(colorKey(['keyword'])).toBe('keyword')
		expect(colorKey(['semantic', 'fuzzy'])).toBe('several')
		expect(colorKey([])).toBe('')
		const l = legend([{ rank: 1, legs: ['fuzzy'] }, { rank: 2, legs: ['keyword', 'fuzzy'] }, { rank: 0, legs: [] }])
		expect(l.map((k) => k.key)).toEqual(['fuzzy', 'several'])
	})
	it('fits every point in the box with equal scales', () => {
		const pts = [{ x: -1, y: 0 }, { x: 3, y: 1 }, { x: 1, y: -1 }]
		const s = scales(pts, { x: 0, y: 2 }, 800, 480, 20)
		for (const p of [...pts, { x: 0, y: 2 }]) {
			expect(s.x(p.x)).toBeGreaterThanOrEqual(20 - 1e-9)
			expect(s.x(p.x)).toBeLessThanOrEqual(780 + 1e-9)
			expect(s.y(p.y)).toBeGreaterThanOrEqual(20 - 1e-9)
			expect(s.y(p.y)).toBeLessThanOrEqual(460 + 1e-9)
		}
		expect(s.x(1) - s.x(0)).toBeCloseTo(s.y(0) - s.y(1), 9) // y grows upwards, same scale
	})
})

describe('build', () => {
	// Vitest runs Vue's CommonJS build, which ignores the flag, so only a
	// browser shows the breakage (NcSelect: "forwardedSlots is not a function").
	it("keeps Vue's Options API, which @nextcloud/vue's components use", async () => {
		const { default: config } = await import('../../vite.config.js')
		expect(config.define.__VUE_OPTIONS_API__).toBe('true')
	})
})

describe('translations', () => {
	const strings = sourceStrings()
	it('ships German and Japanese', () => expect(languages()).toEqual(['de', 'ja']))
	for (const lang of ['de', 'ja']) {
		it(`${lang}: every string of the panel is translated, and ${lang}.js is current`, () => {
			const bundle = readBundle(lang)
			expect(strings.filter((s) => !(s in bundle.translations))).toEqual([])
			const js = readFileSync(join(L10N, `${lang}.js`), 'utf8')
			expect(js).toBe(jsOf(bundle))
			// Placeholders survive translation.
			for (const [k, v] of Object.entries(bundle.translations)) {
				const want = [...k.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
				for (const form of [].concat(v)) {
					expect([...new Set([...form.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort(), `${lang}: ${k}`).toEqual([...new Set(want)])
				}
			}
		})
	}
})

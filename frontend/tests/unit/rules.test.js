import { afterEach, describe, expect, it } from 'vitest'
import { algorithms, buildSearchParams, decodeState, defaultOptions, fusions, maxQueryLength, setServerDefaults, topKChoices } from '../../src/lib/query.js'
import { searchRules, setRules } from '../../src/lib/rules.js'
import builtIn from '../../src/lib/search-rules.json'
import { defaultWeights, rebalance, validateWeights, weightSum } from '../../src/lib/weights.js'

// serverRules are rules an app could serve: other limits and an admin's
// defaults, so the panel visibly follows them rather than its own copy.
const serverRules = {
	...builtIn,
	max_query_runes: 200,
	max_top_k: 30,
	max_weight_sum: 0.8,
	algorithms: ['hybrid', 'keyword', 'fuzzy'],
	fusions: ['rrf', 'linear'],
	defaults: { algorithm: 'hybrid', fusion: 'linear', weights: { semantic: 0.2, keyword: 0.4, fuzzy: 0.2 }, top_k: 20 },
}

describe('search rules', () => {
	afterEach(() => {
		setServerDefaults(null)
		setRules(builtIn)
	})

	it('start as the server\'s built-in rules', () => {
		expect(searchRules()).toEqual(builtIn)
		expect(defaultOptions()).toMatchObject({ algorithm: 'hybrid', fusion: 'rrf', weights: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 }, topK: 10 })
		expect(topKChoices()).toEqual([10, 20, 50])
		expect(maxQueryLength()).toBe(1000)
	})

	it('follow what the server serves', () => {
		expect(setRules(serverRules)).toBe(true)
		expect(defaultOptions()).toMatchObject({ algorithm: 'hybrid', fusion: 'linear', weights: { semantic: 0.2, keyword: 0.4, fuzzy: 0.2 }, topK: 20 })
		expect(algorithms().map((a) => a.value)).toEqual(['hybrid', 'keyword', 'fuzzy'])
		expect(fusions().map((f) => f.value)).toEqual(['rrf', 'linear'])
		expect(topKChoices()).toEqual([10, 20, 30])
		expect(maxQueryLength()).toBe(200)
		// The sum limit is the server's: 0.9 passes 0.8.
		const v = validateWeights({ semantic: 0.5, keyword: 0.3, fuzzy: 0.1 })
		expect(v.valid).toBe(false)
		expect(v.error).toBe('The weights add up to 0.9; together they may be at most 0.8.')
		expect(validateWeights(defaultWeights()).valid).toBe(true)
		expect(weightSum(rebalance(defaultWeights(), 'semantic', 0.7))).toBeLessThanOrEqual(0.8 + 1e-9)
		// A shared link with values the server does not offer keeps the defaults.
		expect(decodeState('q=x&algorithm=semantic&fusion=auto&top_k=50').opts).toMatchObject({ algorithm: 'hybrid', fusion: 'linear', topK: 20 })
		expect(buildSearchParams('x', defaultOptions()).get('top_k')).toBe('20')
	})

	it('take the admin\'s defaults over their own, whichever comes first', () => {
		setServerDefaults({ fusion: 'rrf', weights: { semantic: 0.1, keyword: 0.5, fuzzy: 0.2 } })
		expect(setRules(serverRules)).toBe(true)
		expect(defaultOptions()).toMatchObject({ fusion: 'rrf', weights: { semantic: 0.1, keyword: 0.5, fuzzy: 0.2 }, topK: 20 })
		expect(searchRules().max_top_k).toBe(30)
		// Weights over the server's sum limit (0.8) are not taken; the fusion is.
		setServerDefaults({ fusion: 'rrf', weights: { semantic: 0.5, keyword: 0.4, fuzzy: 0 } })
		expect(defaultOptions()).toMatchObject({ fusion: 'rrf', weights: { semantic: 0.2, keyword: 0.4, fuzzy: 0.2 } })
		// A fusion the server does not offer is not taken either.
		setServerDefaults({ fusion: 'auto' })
		expect(defaultOptions().fusion).toBe('linear')
		setServerDefaults(null)
		expect(defaultOptions()).toMatchObject({ fusion: 'linear', weights: serverRules.defaults.weights })
	})

	it('ignore what is not a complete set', () => {
		for (const bad of [null, undefined, {}, { ...serverRules, algorithms: [] }, { ...serverRules, defaults: { ...serverRules.defaults, weights: { semantic: 1 } } }, { ...serverRules, max_top_k: 'many' }]) {
			expect(setRules(bad)).toBe(false)
			expect(searchRules()).toEqual(builtIn)
		}
	})
})

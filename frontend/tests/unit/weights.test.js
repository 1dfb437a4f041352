import { describe, expect, it } from 'vitest'
import { defaultWeights, formatWeight, parkLegs, rebalance, restoreLeg, validateWeights, weightSum } from '../../src/lib/weights.js'

describe('validateWeights', () => {
	const cases = [
		{ name: 'defaults', w: defaultWeights(), valid: true },
		{ name: 'sum exactly 1', w: { semantic: 0.4, keyword: 0.4, fuzzy: 0.2 }, valid: true },
		{ name: 'float noise at 1 (0.1 + 0.2 + 0.7)', w: { semantic: 0.1, keyword: 0.2, fuzzy: 0.7 }, valid: true },
		{ name: 'sum below 1', w: { semantic: 0.1, keyword: 0, fuzzy: 0 }, valid: true },
		{ name: 'one leg only', w: { semantic: 0, keyword: 1, fuzzy: 0 }, valid: true },
		{ name: 'sum above 1', w: { semantic: 0.6, keyword: 0.3, fuzzy: 0.2 }, valid: false, error: 'The weights add up to 1.1; together they may be at most 1.', fields: ['semantic', 'keyword', 'fuzzy'] },
		{ name: 'just above 1', w: { semantic: 0.5, keyword: 0.5, fuzzy: 0.001 }, valid: false, error: 'add up to 1' },
		{ name: 'negative', w: { semantic: -0.1, keyword: 0.3, fuzzy: 0.2 }, valid: false, error: 'The Semantic weight must be 0 or more.', fields: ['semantic'] },
		{ name: 'all zero', w: { semantic: 0, keyword: 0, fuzzy: 0 }, valid: false, error: 'At least one weight must be above 0.', fields: ['semantic', 'keyword', 'fuzzy'] },
		{ name: 'not a number', w: { semantic: NaN, keyword: 0.3, fuzzy: 0.2 }, valid: false, error: 'The Semantic weight must be a number.', fields: ['semantic'] },
		{ name: 'infinite', w: { semantic: 0.5, keyword: Infinity, fuzzy: 0.2 }, valid: false, error: 'The Keyword weight must be a number.', fields: ['keyword'] },
		{ name: 'string', w: { semantic: '0.5', keyword: 0.3, fuzzy: 0.2 }, valid: false, error: 'must be a number' },
		{ name: 'missing leg', w: { semantic: 0.5, keyword: 0.3 }, valid: false, error: 'The Fuzzy weight must be a number.' },
		{ name: 'two negatives', w: { semantic: -1, keyword: -1, fuzzy: 0.2 }, valid: false, errors: 2 },
	]
	for (const c of cases) {
		it(c.name, () => {
			const got = validateWeights(c.w)
			expect(got.valid).toBe(c.valid)
			if (c.valid) {
				expect(got.errors).toEqual([])
			}
			if (c.error) {
				expect(got.errors.join(' ')).toContain(c.error)
			}
			if (c.errors) {
				expect(got.errors).toHaveLength(c.errors)
			}
			if (c.fields) {
				expect(Object.keys(got.fields).sort()).toEqual([...c.fields].sort())
			}
		})
	}

	it('does not blame zero legs for a sum above 1', () => {
		const got = validateWeights({ semantic: 0.8, keyword: 0.7, fuzzy: 0 })
		expect(got.fields).toEqual({ semantic: true, keyword: true })
	})
})

describe('weightSum and formatWeight', () => {
	it('adds the legs', () => {
		expect(weightSum({ semantic: 0.25, keyword: 0.25, fuzzy: 0.5 })).toBe(1)
	})
	const cases = [
		{ got: formatWeight(0.5), want: '0.5' },
		{ got: formatWeight(1.0000000000000002), want: '1' },
		{ got: formatWeight(0.35), want: '0.35' },
		{ got: formatWeight(NaN), want: '–' },
	]
	for (const c of cases) {
		it(`formats ${c.want}`, () => expect(c.got).toBe(c.want))
	}
})

describe('rebalance', () => {
	const cases = [
		{ name: 'room left: others stay', w: { semantic: 0.3, keyword: 0.3, fuzzy: 0.2 }, leg: 'semantic', v: 0.5, want: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 } },
		{ name: 'excess taken in proportion', w: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 }, leg: 'semantic', v: 0.8, want: { semantic: 0.8, keyword: 0.12, fuzzy: 0.08 } },
		{ name: 'slider to 1 zeroes the others', w: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 }, leg: 'keyword', v: 1, want: { semantic: 0, keyword: 1, fuzzy: 0 } },
		{ name: 'locked leg keeps its weight', w: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 }, leg: 'keyword', v: 0.7, locked: ['semantic'], want: { semantic: 0.5, keyword: 0.5, fuzzy: 0 } },
		{ name: 'clamped and rounded', w: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 }, leg: 'fuzzy', v: 1.37, want: { semantic: 0, keyword: 0, fuzzy: 1 } },
		{ name: 'odd split keeps the sum at 1', w: { semantic: 0.33, keyword: 0.33, fuzzy: 0.34 }, leg: 'fuzzy', v: 0.55, want: { semantic: 0.22, keyword: 0.23, fuzzy: 0.55 } },
	]
	for (const c of cases) {
		it(c.name, () => {
			const got = rebalance(c.w, c.leg, c.v, c.locked)
			expect(got).toEqual(c.want)
			expect(weightSum(got)).toBeLessThanOrEqual(1 + 1e-9)
		})
	}
	it('never exceeds 1 for any move', () => {
		for (let a = 0; a <= 100; a += 7) {
			for (let v = 0; v <= 100; v += 9) {
				const w = { semantic: a / 100, keyword: (100 - a) / 200, fuzzy: (100 - a) / 200 }
				for (const leg of ['semantic', 'keyword', 'fuzzy']) {
					const got = rebalance(w, leg, v / 100)
					expect(weightSum(got)).toBeLessThanOrEqual(1 + 1e-9)
					expect(got[leg]).toBeCloseTo(v / 100, 9)
				}
			}
		}
	})
})

describe('parkLegs and restoreLeg', () => {
	const w = { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 }
	it('parks a leg that cannot run at 0 and keeps its weight', () => {
		const p = parkLegs(w, ['semantic'])
		expect(p.weights).toEqual({ semantic: 0, keyword: 0.3, fuzzy: 0.2 })
		expect(p.parked).toEqual({ semantic: 0.5 })
		expect(w.semantic).toBe(0.5) // not changed
		// Parked again, the first weight is kept.
		expect(parkLegs(p.weights, ['semantic'], p.parked).parked).toEqual({ semantic: 0.5 })
		expect(parkLegs(w, ['rerank']).weights).toEqual(w)
	})
	it('lets the other sliders use the whole budget', () => {
		const { weights } = parkLegs(w, ['semantic'])
		expect(rebalance(weights, 'keyword', 1, ['semantic'])).toEqual({ semantic: 0, keyword: 1, fuzzy: 0 })
		expect(rebalance(weights, 'keyword', 0.9, ['semantic'])).toEqual({ semantic: 0, keyword: 0.9, fuzzy: 0.1 })
		expect(validateWeights({ semantic: 0, keyword: 1, fuzzy: 0 }).valid).toBe(true)
		// Before: the locked leg held its weight, so keyword reached 0.5 at most.
		expect(rebalance(w, 'keyword', 1, ['semantic']).keyword).toBe(0.5)
	})
	const cases = [
		{ name: 'room left: nothing else moves', w: { semantic: 0, keyword: 0.3, fuzzy: 0.2 }, value: 0.5, want: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 } },
		{ name: 'the others used the budget: they give way in proportion', w: { semantic: 0, keyword: 0.6, fuzzy: 0.4 }, value: 0.5, want: { semantic: 0.5, keyword: 0.3, fuzzy: 0.2 } },
		{ name: 'one other at the whole budget', w: { semantic: 0, keyword: 1, fuzzy: 0 }, value: 0.5, want: { semantic: 0.5, keyword: 0.5, fuzzy: 0 } },
		{ name: 'a leg still off keeps 0', w: { semantic: 0, keyword: 1, fuzzy: 0 }, value: 0.5, off: ['semantic', 'fuzzy'], want: { semantic: 0.5, keyword: 0.5, fuzzy: 0 } },
		{ name: 'parked at 0 comes back at 0', w: { semantic: 0, keyword: 0.7, fuzzy: 0.3 }, value: 0, want: { semantic: 0, keyword: 0.7, fuzzy: 0.3 } },
	]
	for (const c of cases) {
		it(`restores: ${c.name}`, () => {
			const got = restoreLeg(c.w, 'semantic', c.value, c.off ?? ['semantic'])
			expect(got).toEqual(c.want)
			expect(validateWeights(got).valid).toBe(true)
		})
	}
})

// Fusion weights, checked by the server's rule (hybridsearch.SearchRules):
// each ≥ 0, a sum of at most the rules' max_weight_sum, not all 0.

import { t } from './l10n.js'
import { searchRules } from './rules.js'

/** LEGS are the retrieval legs in display order. */
export const LEGS = ['semantic', 'keyword', 'fuzzy']

/** legLabel names a leg for people ("Semantic"). */
export function legLabel(leg) {
	switch (leg) {
		case 'semantic': return t('Semantic')
		case 'keyword': return t('Keyword')
		case 'fuzzy': return t('Fuzzy')
		case 'hybrid': return t('Hybrid')
	}
	return String(leg ?? '')
}

/** defaultWeights returns a fresh copy of the server's default weights. */
export function defaultWeights() {
	const w = searchRules().defaults.weights
	return Object.fromEntries(LEGS.map((leg) => [leg, w[leg]]))
}

/** maxWeightSum is what the weights may add up to at most (1). */
export function maxWeightSum() {
	return searchRules().max_weight_sum
}

// EPSILON absorbs float noise: 0.1 + 0.2 + 0.7 is 1.0000000000000002.
const EPSILON = 1e-9

/** weightSum adds the three weights. */
export function weightSum(w) {
	return LEGS.reduce((acc, leg) => acc + Number(w?.[leg]), 0)
}

/**
 * validateWeights checks w and returns {valid, error, errors, fields, sum}:
 * error is the one message to show (the first problem), errors all of
 * them, fields marks which legs are at fault.
 */
export function validateWeights(w) {
	const errors = []
	const fields = {}
	for (const leg of LEGS) {
		const v = w?.[leg]
		if (typeof v !== 'number' || !Number.isFinite(v)) {
			errors.push(t('The {leg} weight must be a number.', { leg: legLabel(leg) }))
			fields[leg] = true
		} else if (v < 0) {
			errors.push(t('The {leg} weight must be 0 or more.', { leg: legLabel(leg) }))
			fields[leg] = true
		}
	}
	if (errors.length) {
		return { valid: false, error: errors[0], errors, fields, sum: NaN }
	}
	const sum = weightSum(w)
	const max = maxWeightSum()
	if (sum > max + EPSILON) {
		errors.push(t('The weights add up to {sum}; together they may be at most {max}.', { sum: formatWeight(sum), max: formatWeight(max) }))
		for (const leg of LEGS) {
			if (w[leg] > 0) {
				fields[leg] = true
			}
		}
	} else if (LEGS.every((leg) => w[leg] === 0)) {
		errors.push(t('At least one weight must be above 0.'))
		for (const leg of LEGS) {
			fields[leg] = true
		}
	}
	return { valid: errors.length === 0, error: errors[0] ?? '', errors, fields, sum }
}

/**
 * rebalance sets leg's weight to value (clamped to [0, max], two decimals,
 * max being maxWeightSum) and, when the sum would pass max, takes the
 * excess from the other legs that are not locked, in proportion to their
 * weights, so the sum stays at most max. Locked legs (ones that cannot run) keep their weight; if the
 * others cannot give enough, the moved leg gets what is left. Returns new
 * weights; w is not changed.
 */
export function rebalance(w, leg, value, locked = []) {
	const v = Number(value)
	if (!Number.isFinite(v)) {
		return { ...w }
	}
	// Work in whole hundredths, so the sum is exact.
	const total = Math.round(maxWeightSum() * 100)
	const h = {}
	for (const l of LEGS) {
		h[l] = Math.max(0, Math.round((Number(w?.[l]) || 0) * 100))
	}
	h[leg] = Math.min(total, Math.max(0, Math.round(v * 100)))
	const others = LEGS.filter((l) => l !== leg && !locked.includes(l))
	const fixed = LEGS.filter((l) => l !== leg && locked.includes(l)).reduce((a, l) => a + h[l], 0)
	const excess = LEGS.reduce((a, l) => a + h[l], 0) - total
	if (excess > 0) {
		const pool = others.reduce((a, l) => a + h[l], 0)
		if (pool <= excess) {
			for (const l of others) {
				h[l] = 0
			}
			h[leg] = Math.max(0, Math.min(h[leg], total - fixed))
		} else {
			// Take from each in proportion; what rounding leaves, from the largest.
			let left = excess
			const cut = {}
			for (const l of others) {
				cut[l] = Math.floor((h[l] * excess) / pool)
				left -= cut[l]
			}
			for (const l of [...others].sort((a, b) => h[b] - h[a])) {
				const take = Math.min(h[l] - cut[l], left)
				cut[l] += take
				left -= take
			}
			for (const l of others) {
				h[l] -= cut[l]
			}
		}
	}
	const out = { ...w }
	for (const l of LEGS) {
		out[l] = h[l] / 100
	}
	return out
}

/** formatWeight shows a weight with at most two decimals ("0.5", "0.35"). */
export function formatWeight(v) {
	if (!Number.isFinite(v)) {
		return '–'
	}
	return String(Math.round(v * 100) / 100)
}

/**
 * parkLegs sets the weight of each leg in off (legs that cannot run) to 0,
 * so the legs that run may share the whole budget, and returns the new
 * weights with the weights the legs had (parked, to restore them with
 * restoreLeg). Legs already parked keep their parked weight. w and parked
 * are not changed.
 */
export function parkLegs(w, off, parked = {}) {
	const out = { weights: { ...w }, parked: { ...parked } }
	for (const leg of off) {
		if (!LEGS.includes(leg)) {
			continue
		}
		if (!(leg in out.parked)) {
			out.parked[leg] = Number(w?.[leg]) || 0
		}
		out.weights[leg] = 0
	}
	return out
}

/**
 * restoreLeg gives a leg that can run again the weight it had (value),
 * taking what the sum cannot hold from the other legs in proportion
 * (rebalance), never from the legs still off. w is not changed.
 */
export function restoreLeg(w, leg, value, off = []) {
	return rebalance(w, leg, value, off.filter((l) => l !== leg))
}

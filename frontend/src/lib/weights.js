// Fusion weights, checked by the same rule as the server
// (hybridsearch.Weights): each ≥ 0, sum ≤ 1, not all 0.

import { t } from './l10n.js'

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

/** DEFAULT_WEIGHTS are the server's defaults (hybridsearch.DefaultWeights). */
export const DEFAULT_WEIGHTS = Object.freeze({ semantic: 0.5, keyword: 0.3, fuzzy: 0.2 })

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
  if (errors.length) return { valid: false, error: errors[0], errors, fields, sum: NaN }
  const sum = weightSum(w)
  if (sum > 1 + EPSILON) {
    errors.push(t('The weights add up to {sum}; together they may be at most 1.', { sum: formatWeight(sum) }))
    for (const leg of LEGS) if (w[leg] > 0) fields[leg] = true
  } else if (LEGS.every((leg) => w[leg] === 0)) {
    errors.push(t('At least one weight must be above 0.'))
    for (const leg of LEGS) fields[leg] = true
  }
  return { valid: errors.length === 0, error: errors[0] ?? '', errors, fields, sum }
}

/**
 * rebalance sets leg's weight to value (clamped to [0, 1], two decimals)
 * and, when the sum would pass 1, takes the excess from the other legs
 * that are not locked, in proportion to their weights, so the sum stays
 * at most 1. Locked legs (ones that cannot run) keep their weight; if the
 * others cannot give enough, the moved leg gets what is left. Returns new
 * weights; w is not changed.
 */
export function rebalance(w, leg, value, locked = []) {
  let v = Number(value)
  if (!Number.isFinite(v)) return { ...w }
  // Work in whole hundredths, so the sum is exact.
  const h = {}
  for (const l of LEGS) h[l] = Math.max(0, Math.round((Number(w?.[l]) || 0) * 100))
  h[leg] = Math.min(100, Math.max(0, Math.round(v * 100)))
  const others = LEGS.filter((l) => l !== leg && !locked.includes(l))
  const fixed = LEGS.filter((l) => l !== leg && locked.includes(l)).reduce((a, l) => a + h[l], 0)
  const excess = LEGS.reduce((a, l) => a + h[l], 0) - 100
  if (excess > 0) {
    const pool = others.reduce((a, l) => a + h[l], 0)
    if (pool <= excess) {
      for (const l of others) h[l] = 0
      h[leg] = Math.max(0, Math.min(h[leg], 100 - fixed))
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
      for (const l of others) h[l] -= cut[l]
    }
  }
  const out = { ...w }
  for (const l of LEGS) out[l] = h[l] / 100
  return out
}

/** formatWeight shows a weight with at most two decimals ("0.5", "0.35"). */
export function formatWeight(v) {
  if (!Number.isFinite(v)) return '–'
  return String(Math.round(v * 100) / 100)
}

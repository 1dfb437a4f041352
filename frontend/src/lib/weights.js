// Fusion weights, checked by the same rule as the server
// (hybridsearch.Weights): each ≥ 0, sum ≤ 1, not all 0.

/** LEGS are the retrieval legs in display order. */
export const LEGS = ['semantic', 'keyword', 'fuzzy']

/** LEG_LABELS name each leg for people. */
export const LEG_LABELS = { semantic: 'Semantic', keyword: 'Keyword', fuzzy: 'Fuzzy' }

/** DEFAULT_WEIGHTS are the server's defaults (hybridsearch.DefaultWeights). */
export const DEFAULT_WEIGHTS = Object.freeze({ semantic: 0.5, keyword: 0.3, fuzzy: 0.2 })

// EPSILON absorbs float noise: 0.1 + 0.2 + 0.7 is 1.0000000000000002.
const EPSILON = 1e-9

/** weightSum adds the three weights. */
export function weightSum(w) {
  return LEGS.reduce((acc, leg) => acc + Number(w?.[leg]), 0)
}

/**
 * validateWeights checks w and returns {valid, errors, fields, sum}; errors
 * are sentences for people, fields marks which legs are at fault.
 */
export function validateWeights(w) {
  const errors = []
  const fields = {}
  for (const leg of LEGS) {
    const v = w?.[leg]
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      errors.push(`The ${LEG_LABELS[leg].toLowerCase()} weight must be a number.`)
      fields[leg] = true
    } else if (v < 0) {
      errors.push(`The ${LEG_LABELS[leg].toLowerCase()} weight must be 0 or more.`)
      fields[leg] = true
    }
  }
  if (errors.length) return { valid: false, errors, fields, sum: NaN }
  const sum = weightSum(w)
  if (sum > 1 + EPSILON) {
    errors.push(`The weights add up to ${formatWeight(sum)}; together they may be at most 1.`)
    for (const leg of LEGS) if (w[leg] > 0) fields[leg] = true
  } else if (LEGS.every((leg) => w[leg] === 0)) {
    errors.push('At least one weight must be above 0.')
    for (const leg of LEGS) fields[leg] = true
  }
  return { valid: errors.length === 0, errors, fields, sum }
}

/** formatWeight shows a weight with at most two decimals ("0.5", "0.35"). */
export function formatWeight(v) {
  if (!Number.isFinite(v)) return '–'
  return String(Math.round(v * 100) / 100)
}

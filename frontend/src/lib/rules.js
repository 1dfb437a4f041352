// The search rules the server checks every request by (hybridsearch.SearchRules
// in the Go module root): limits, choices and defaults. The app serves them
// in the page's initial state (hybrid_search_info.search_rules); main.js
// hands them to setRules before the panel starts. search-rules.json is the
// server's built-in set, generated from it by a Go test (frontend/rules_test.go),
// and is used only when a page lacks them.

import builtIn from './search-rules.json'

let current = builtIn

/** isRules tells whether r looks like the server's rules. */
function isRules(r) {
  const d = r?.defaults
  return Boolean(
    r && Array.isArray(r.algorithms) && r.algorithms.length && Array.isArray(r.fusions) && r.fusions.length &&
    Number.isFinite(r.max_top_k) && r.max_top_k > 0 && Number.isFinite(r.max_weight_sum) && Number.isFinite(r.max_query_runes) &&
    d && typeof d.algorithm === 'string' && typeof d.fusion === 'string' && Number.isFinite(d.top_k) &&
    d.weights && ['semantic', 'keyword', 'fuzzy'].every((leg) => Number.isFinite(d.weights[leg])),
  )
}

/**
 * setRules takes the server's rules (from the initial state); anything that
 * is not a complete set leaves the current rules and returns false.
 */
export function setRules(r) {
  if (!isRules(r)) return false
  current = r
  return true
}

/** searchRules returns the rules in force. */
export function searchRules() {
  return current
}

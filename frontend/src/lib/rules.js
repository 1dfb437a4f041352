// The search rules the server checks every request by (hybridsearch.SearchRules
// in the Go module root): limits, choices and defaults. The app serves them
// in the page's initial state (hybrid_search_info.search_rules); main.js
// hands them to setRules before the panel starts, and the admin's default
// fusion and weights to setDefaults (through query.js setServerDefaults). search-rules.json is the
// server's built-in set, generated from it by a Go test (frontend/rules_test.go),
// and is used only when a page lacks them.

import builtIn from './search-rules.json'

// base are the server's rules; admin, the admin's defaults when the panel
// has read them (GET api/settings), which override the rules' own because
// an admin may change them while the app runs; current combines the two.
let base = builtIn
let admin = null
let current = builtIn

function refresh() {
	current = admin ? { ...base, defaults: { ...base.defaults, ...admin } } : base
}

/** isRules tells whether r looks like the server's rules. */
function isRules(r) {
	const d = r?.defaults
	return Boolean(r && Array.isArray(r.algorithms) && r.algorithms.length && Array.isArray(r.fusions) && r.fusions.length
		&& Number.isFinite(r.max_top_k) && r.max_top_k > 0 && Number.isFinite(r.max_weight_sum) && Number.isFinite(r.max_query_runes)
		&& d && typeof d.algorithm === 'string' && typeof d.fusion === 'string' && Number.isFinite(d.top_k)
		&& d.weights && ['semantic', 'keyword', 'fuzzy'].every((leg) => Number.isFinite(d.weights[leg])))
}

/**
 * setRules takes the server's rules (from the initial state); anything that
 * is not a complete set leaves the current rules and returns false.
 */
export function setRules(r) {
	if (!isRules(r)) {
		return false
	}
	base = r
	refresh()
	return true
}

/**
 * setDefaults makes d ({fusion, weights}, either may be absent) the
 * defaults in force over the rules' own; null returns to the rules' own.
 * The caller checks d against the rules (query.js setServerDefaults).
 */
export function setDefaults(d) {
	admin = d && Object.keys(d).length ? { ...d } : null
	refresh()
}

/** searchRules returns the rules in force, with the admin's defaults. */
export function searchRules() {
	return current
}

// The comparison of algorithms: overlap of each result list with hybrid's.

/**
 * overlap returns how many of the documents in ids are also in hybrid's
 * list, and that share of the shorter list (0 when either is empty).
 */
export function overlap(ids, hybridIds) {
	const h = new Set(hybridIds)
	const shared = ids.filter((id) => h.has(id)).length
	const base = Math.min(ids.length, hybridIds.length)
	return { shared, share: base ? shared / base : 0 }
}

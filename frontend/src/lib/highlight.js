// Highlight ranges from the server are [start, end) offsets in runes (Go's
// word for Unicode code points), not UTF-16 units: "🍎" is one rune but two
// JavaScript string units. Everything here works on code points.

/**
 * normalizeRanges clamps ranges to [0, n], drops empty and malformed ones,
 * sorts them and merges overlapping or touching ones.
 */
export function normalizeRanges(ranges, n) {
	if (!Array.isArray(ranges)) {
		return []
	}
	const clean = []
	for (const r of ranges) {
		if (!Array.isArray(r) || r.length < 2) {
			continue
		}
		let [s, e] = r
		if (!Number.isInteger(s) || !Number.isInteger(e)) {
			continue
		}
		s = Math.max(0, Math.min(n, s))
		e = Math.max(0, Math.min(n, e))
		if (e > s) {
			clean.push([s, e])
		}
	}
	clean.sort((a, b) => a[0] - b[0] || a[1] - b[1])
	const merged = []
	for (const [s, e] of clean) {
		const last = merged[merged.length - 1]
		if (last && s <= last[1]) {
			last[1] = Math.max(last[1], e)
		} else {
			merged.push([s, e])
		}
	}
	return merged
}

/**
 * highlightSegments splits text into consecutive segments, each
 * {text, mark, start, end} with start/end in runes; mark is true inside a
 * highlight. Joining the texts gives the input back.
 */
export function highlightSegments(text, ranges) {
	const runes = Array.from(typeof text === 'string' ? text : '')
	const n = runes.length
	const segments = []
	let at = 0
	const push = (s, e, mark) => {
		if (e > s) {
			segments.push({ text: runes.slice(s, e).join(''), mark, start: s, end: e })
		}
	}
	for (const [s, e] of normalizeRanges(ranges, n)) {
		push(at, s, false)
		push(s, e, true)
		at = e
	}
	push(at, n, false)
	return segments
}

/**
 * clipSegments shortens segmented text to about max runes, keeping the first
 * highlight in view with some context before it. Cuts prefer whitespace and
 * are shown as "…". Text that fits is returned unchanged.
 */
export function clipSegments(segments, max = 300, before = 60) {
	const total = segments.length ? segments[segments.length - 1].end : 0
	if (total <= max) {
		return segments
	}
	const runes = segments.flatMap((seg) => Array.from(seg.text))
	const first = segments.find((seg) => seg.mark)
	let start = first ? Math.max(0, first.start - before) : 0
	let end = Math.min(total, start + max)
	if (end === total) {
		start = Math.max(0, end - max)
	}
	start = snap(runes, start, +1, first ? first.start : end)
	end = snap(runes, end, -1, first ? Math.min(first.end, end) : start)
	const out = []
	if (start > 0) {
		out.push({ text: '…', mark: false, start, end: start, ellipsis: true })
	}
	for (const seg of segments) {
		const s = Math.max(seg.start, start)
		const e = Math.min(seg.end, end)
		if (e > s) {
			out.push({ text: runes.slice(s, e).join(''), mark: seg.mark, start: s, end: e })
		}
	}
	if (end < total) {
		out.push({ text: '…', mark: false, start: end, end, ellipsis: true })
	}
	return out
}

// snap moves a cut at i to a nearby whitespace (within 20 runes, never past
// limit) so words are not cut in half; text without spaces (CJK) is cut at i.
function snap(runes, i, dir, limit) {
	if (i <= 0 || i >= runes.length) {
		return i
	}
	for (let k = 0; k < 20; k++) {
		const j = i + dir * k
		if (j <= 0 || j >= runes.length) {
			break
		}
		const cut = dir > 0 ? j + 1 : j
		if ((dir > 0 && cut > limit) || (dir < 0 && cut < limit)) {
			break
		}
		if (/\s/u.test(runes[j])) {
			return cut
		}
	}
	return i
}

/** runeLength is the length of s in code points. */
export function runeLength(s) {
	return Array.from(s ?? '').length
}

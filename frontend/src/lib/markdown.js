// Markdown shown as text: excerpts of Markdown notes and files (and of HTML
// files, whose text the app extracts as Markdown) carry their syntax, "##"
// headings, "**bold**", "[links](…)", table pipes and code fences. An
// excerpt shows the words only. Highlight ranges are [start, end) rune
// offsets into the original text; they are moved to the text shown.

// Each rule rewrites one line: it returns the kept pieces as
// [start, end) rune offsets into the line, plus inserted text.
const HEADING = /^\s{0,3}#{1,6}(\s+|$)/
const QUOTE = /^\s{0,3}(>\s?)+/
const BULLET = /^(\s*)[-*+]\s+/
const FENCE = /^\s{0,3}(```|~~~)/
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/
const TABLE_SEP = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/

/** isMarkdown tells whether a document's excerpts are Markdown text. */
export function isMarkdown(doc) {
	const mime = (doc?.mime ?? '').toLowerCase()
	const path = (doc?.path ?? '').toLowerCase()
	return doc?.type === 'note' || mime === 'text/markdown' || mime === 'text/x-markdown' || mime === 'text/html'
		|| mime === 'application/xhtml+xml' || /\.(md|markdown)$/.test(path)
}

/**
 * plainMarkdown returns {text, highlights}: text without Markdown syntax,
 * and the highlight ranges moved onto it (a range whose characters all
 * went away is dropped).
 */
export function plainMarkdown(text, highlights = []) {
	const runes = Array.from(typeof text === 'string' ? text : '')
	const out = [] // {ch, src}: src is the rune offset in text, -1 for inserted
	let lineStart = 0
	let inFence = false
	while (lineStart <= runes.length) {
		let lineEnd = runes.indexOf('\n', lineStart)
		if (lineEnd < 0) {
			lineEnd = runes.length
		}
		const line = runes.slice(lineStart, lineEnd)
		const kept = rewriteLine(line, inFence)
		if (kept.fence) {
			inFence = !inFence
		}
		for (const k of kept.parts) {
			if (typeof k === 'string') {
				for (const ch of k) {
					out.push({ ch, src: -1 })
				}
			} else {
				for (let i = k[0]; i < k[1]; i++) {
					out.push({ ch: line[i], src: lineStart + i })
				}
			}
		}
		if (lineEnd < runes.length && !kept.drop) {
			out.push({ ch: '\n', src: lineEnd })
		}
		lineStart = lineEnd + 1
	}
	// Collapse the blank lines dropped syntax leaves behind.
	const squeezed = []
	for (const c of out) {
		const prev = squeezed.length ? squeezed[squeezed.length - 1] : null
		const prev2 = squeezed.length > 1 ? squeezed[squeezed.length - 2] : null
		if (c.ch === '\n' && prev?.ch === '\n' && prev2?.ch === '\n') {
			continue
		}
		squeezed.push(c)
	}
	while (squeezed.length && squeezed[0].ch === '\n') {
		squeezed.shift()
	}
	return { text: squeezed.map((c) => c.ch).join(''), highlights: moveRanges(highlights, squeezed) }
}

// rewriteLine returns the kept parts of one line: [start, end) ranges of
// its runes and inserted strings; drop removes the line with its newline.
function rewriteLine(line, inFence) {
	const s = line.join('')
	if (FENCE.test(s)) {
		return { parts: [], drop: true, fence: true }
	}
	if (inFence) {
		return { parts: [[0, line.length]] }
	}
	if (RULE.test(s) || TABLE_SEP.test(s)) {
		return { parts: [], drop: true }
	}
	let from = 0
	let prefix = ''
	let m
	if ((m = HEADING.exec(s))) {
		from = Array.from(m[0]).length
	} else if ((m = QUOTE.exec(s))) {
		from = Array.from(m[0]).length
	} else if ((m = BULLET.exec(s))) {
		from = Array.from(m[0]).length
		prefix = m[1] + '• '
	}
	const parts = prefix ? [prefix] : []
	inline(line, from, line.length, parts)
	// A heading's closing hashes ("## Title ##").
	if (HEADING.test(s)) {
		trimTrailing(parts, line, /[\s#]/)
	}
	return { parts }
}

// inline keeps line[from:to) without emphasis markers, backticks, table
// pipes and link syntax: "[text](url)" and "![alt](url)" keep the text.
function inline(line, from, to, parts) {
	let start = from
	const flush = (end) => {
		if (end > start) {
			parts.push([start, end])
		}
	}
	for (let i = from; i < to; i++) {
		const c = line[i]
		if (c === '\\' && i + 1 < to && /[\\`*_[\]()#|!>-]/.test(line[i + 1])) {
			flush(i)
			start = i + 1
			i++
			continue
		}
		if ((c === '*' || c === '_') && line[i + 1] === c) {
			flush(i)
			start = i + 2
			i++
			continue
		}
		if (c === '*' && emphasisStar(line, i, from, to)) {
			flush(i)
			start = i + 1
			continue
		}
		if (c === '`') {
			flush(i)
			start = i + 1
			continue
		}
		if (c === '|') {
			flush(i)
			if (i !== from && i !== to - 1) {
				parts.push(' ')
			} // a cell border, not the row's edge
			start = i + 1
			continue
		}
		if (c === '[' || (c === '!' && line[i + 1] === '[')) {
			const open = c === '!' ? i + 1 : i
			const close = line.indexOf(']', open + 1)
			if (close > 0 && close < to && line[close + 1] === '(') {
				const end = line.indexOf(')', close + 2)
				if (end > 0 && end < to) {
					flush(i)
					inline(line, open + 1, close, parts)
					start = end + 1
					i = end
					continue
				}
			}
		}
	}
	flush(to)
}

// emphasisStar tells whether the * at i opens or closes emphasis: next to
// a word character on one side and not a space on the other.
function emphasisStar(line, i, from, to) {
	const before = i > from ? line[i - 1] : ' '
	const after = i + 1 < to ? line[i + 1] : ' '
	const word = /[\p{L}\p{N}]/u
	return (word.test(after) && /\s|^$/.test(before)) || (word.test(before) && /\s|[.,;:!?)]/.test(after))
		|| (word.test(before) && i + 1 === to)
}

function trimTrailing(parts, line, re) {
	while (parts.length) {
		const last = parts[parts.length - 1]
		if (typeof last === 'string') {
			return
		}
		while (last[1] > last[0] && re.test(line[last[1] - 1])) {
			last[1]--
		}
		if (last[1] > last[0]) {
			return
		}
		parts.pop()
	}
}

// moveRanges maps [start, end) source ranges onto the output characters.
function moveRanges(ranges, out) {
	if (!Array.isArray(ranges)) {
		return []
	}
	const moved = []
	for (const r of ranges) {
		if (!Array.isArray(r) || r.length < 2) {
			continue
		}
		let s = -1
		let e = -1
		out.forEach((c, i) => {
			if (c.src >= r[0] && c.src < r[1]) {
				if (s < 0) {
					s = i
				}
				e = i + 1
			}
		})
		if (s >= 0) {
			moved.push([s, e])
		}
	}
	return moved
}

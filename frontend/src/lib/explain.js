// What a search did, in words: why it found nothing, which typos it
// corrected, why a match is weak, and how the semantic leg judged a match.

import { formatNumber, numberFormat } from './format.js'
import { t } from './l10n.js'
import { legLabel } from './weights.js'

// REASONS say why a search had nothing to look up, by the server's code
// (hybridsearch.SearchResult.ReasonCode).
const REASONS = {
	nothing_to_search: () => t('The query holds no word or number to look for. Type a word, a name or a number.'),
	unknown_words: () => t('No document holds a word of the query, and no word in your files is close enough to be a typo of one.'),
}

/** reasonText is why a search found nothing, by its reason code; "" for none or an unknown code. */
export function reasonText(code) {
	return Object.hasOwn(REASONS, code ?? '') ? REASONS[code]() : ''
}

/**
 * correctedParts splits the corrected query into parts for display, each
 * {text, corrected}: the words the search corrected are marked, so the
 * panel can show "Showing results for **kubernetes** upgrade".
 */
export function correctedParts(res) {
	const q = res?.corrected_query ?? ''
	const fixed = new Set((res?.corrections ?? []).map((c) => c.to.toLowerCase()))
	if (!q || !fixed.size) {
		return []
	}
	const out = []
	for (const m of q.matchAll(/([\p{L}\p{N}']+)|([^\p{L}\p{N}']+)/gu)) {
		const text = m[0]
		const corrected = Boolean(m[1]) && fixed.has(text.toLowerCase())
		const last = out[out.length - 1]
		if (last && !last.corrected && !corrected) {
			last.text += text
		} else {
			out.push({ text, corrected })
		}
	}
	return out
}

/**
 * weakText says why a document is a weak match, from its explanation
 * (weak_reason, weak_threshold), or "".
 */
export function weakText(explain, locale) {
	switch (explain?.weak_reason) {
		case 'low_relevance':
			return t('A weak match: its relevance is below {threshold}, the least the search counts as a match.', { threshold: formatNumber(explain.weak_threshold ?? 0, locale) })
		case 'semantic_uncalibrated':
			return t('A weak match: only the semantic search found it, and with this few documents it cannot tell a match by meaning from chance.')
	}
	return ''
}

/**
 * semanticText says how the semantic leg judged a chunk against the
 * user's own documents (explain.semantic), or "".
 */
export function semanticText(cal, locale) {
	if (!cal || typeof cal.cosine !== 'number') {
		return ''
	}
	const f = (v) => numberFormat(locale, { maximumFractionDigits: 2, minimumFractionDigits: 2 }).format(v)
	if (!cal.sampled) {
		return t('Cosine similarity {cosine}; too few documents to compare it with.', { cosine: f(cal.cosine) })
	}
	const vars = { cosine: f(cal.cosine), baseline: f(cal.baseline), gap: f(cal.gap), min: f(cal.min_gap), count: formatNumber(cal.sampled, locale) }
	return cal.reference
		? t('Cosine similarity {cosine}, against a typical {baseline} for {count} texts (yours and the app’s reference texts, as you have few documents): {gap} of the way to a perfect match; a match needs {min}.', vars)
		: t('Cosine similarity {cosine}, against a typical {baseline} for {count} of your documents: {gap} of the way to a perfect match; a match needs {min}.', vars)
}

/**
 * correctionText says which correction a leg matched a document through
 * ("through “kubernetes”, the correction of “kuberntes” found by Fuzzy"),
 * or "".
 */
export function correctionText(corrected) {
	if (!Array.isArray(corrected) || !corrected.length) {
		return ''
	}
	return corrected.map((c) => t('through “{to}”, the correction of “{from}” found by {leg}', { to: c.to, from: c.from, leg: legLabel(c.leg || 'fuzzy') })).join('; ')
}

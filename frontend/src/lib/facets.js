// The result page's filters with counts, from a search's facets
// (hybridsearch.Facets): kinds of document (a note, or a group of MIME
// types such as PDF or spreadsheet), folders, modification time and owner.

import { docKind, formatNumber, kindLabel } from './format.js'
import { n, t } from './l10n.js'

/**
 * kindFacets groups the facets' MIME types by document kind: notes from
 * the type counts, files by docKind of their MIME type; each {value,
 * label, count, mimes}, largest first.
 */
export function kindFacets(facets) {
	const out = new Map()
	const notes = (facets?.types ?? []).find((f) => f.value === 'note')?.count ?? 0
	for (const f of facets?.mimes ?? []) {
		const kind = docKind('file', f.value)
		const k = out.get(kind) ?? { value: kind, label: kindLabel(kind), count: 0, mimes: [] }
		k.count += f.count
		k.mimes.push(f.value)
		out.set(kind, k)
	}
	// Notes are Markdown files too: their MIME type counts them among the
	// text files, so they are taken out again.
	if (notes) {
		const text = out.get('text')
		if (text) {
			text.count -= notes
			if (text.count <= 0) {
				out.delete('text')
			}
		}
		out.set('note', { value: 'note', label: kindLabel('note'), count: notes, mimes: [] })
	}
	return [...out.values()].sort((a, b) => b.count - a.count || a.label.localeCompare(b.label))
}

/** modifiedLabel names a modification-time facet. */
export function modifiedLabel(value) {
	switch (value) {
		case 'day': return t('Last 24 hours')
		case 'week': return t('Last 7 days')
		case 'month': return t('Last 30 days')
		case 'year': return t('Last 12 months')
		case 'older': return t('Older than a year')
	}
	return t('Any time')
}

/** ownerLabel names an owner facet. */
export function ownerLabel(value) {
	switch (value) {
		case 'me': return t('Owned by me')
		case 'others': return t('Shared with me')
	}
	return t('Anyone')
}

/** withCount writes a facet option's label with its count ("PDF (3)"). */
export function withCount(label, count, locale) {
	return Number.isInteger(count) ? t('{label} ({count})', { label, count: formatNumber(count, locale) }) : label
}

/** folderLabel shows a folder facet ("/" is the folder the search is in). */
export function folderLabel(value, prefix) {
	if (!value || value === '/' || value === prefix) {
		return prefix && prefix !== '/' ? t('Directly in {folder}', { folder: prefix }) : t('Top folder')
	}
	return value
}

/** matchesText counts the matches of a search for the filter bar. */
export function matchesText(total, locale, capped) {
	const count = formatNumber(total, locale)
	return capped ? t('{count}+ matches', { count }) : n('{count} match', '{count} matches', total, { count })
}

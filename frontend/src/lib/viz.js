// Layout of the vector-space map: scales, colours and legend.

import { numberFormat } from './format.js'
import { t } from './l10n.js'
import { legLabel, LEGS } from './weights.js'

/** LEG_COLORS colour result points by the leg that found them. */
export const LEG_COLORS = { semantic: '#0082c9', keyword: '#c47a00', fuzzy: '#2d8a44', several: '#a24ca6' }

/** colorKey is a result point's colour: its one leg, or "several". */
export function colorKey(legs) {
	const known = (legs ?? []).filter((l) => LEGS.includes(l))
	if (known.length === 1) {
		return known[0]
	}
	return known.length > 1 ? 'several' : ''
}

/** legend lists the colours in use, with labels. */
export function legend(points) {
	const keys = new Set(points.filter((p) => p.rank > 0).map((p) => colorKey(p.legs)).filter(Boolean))
	return [...LEGS, 'several'].filter((k) => keys.has(k)).map((k) => ({
		key: k,
		color: LEG_COLORS[k],
		label: k === 'several' ? t('Found by several methods') : t('Found by {method}', { method: legLabel(k) }),
	}))
}

/**
 * scales maps projection coordinates into a width×height box with pad
 * pixels of margin, keeping the aspect ratio of the data (distances stay
 * comparable on both axes); y grows upwards as in a plot.
 */
export function scales(points, query, width, height, pad = 24) {
	const xs = points.map((p) => p.x)
	const ys = points.map((p) => p.y)
	if (query) {
		xs.push(query.x)
		ys.push(query.y)
	}
	if (!xs.length) {
		return { x: () => width / 2, y: () => height / 2 }
	}
	const [x0, x1] = [Math.min(...xs), Math.max(...xs)]
	const [y0, y1] = [Math.min(...ys), Math.max(...ys)]
	const span = Math.max(x1 - x0, y1 - y0, 1e-9)
	const k = Math.min((width - 2 * pad) / Math.max(x1 - x0, span * 1e-3, 1e-9), (height - 2 * pad) / Math.max(y1 - y0, span * 1e-3, 1e-9))
	const cx = (x0 + x1) / 2
	const cy = (y0 + y1) / 2
	return { x: (v) => width / 2 + (v - cx) * k, y: (v) => height / 2 - (v - cy) * k }
}

/** percent writes a share in [0, 1] as a whole percentage ("23 %"). */
export function percent(share, locale) {
	return numberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(Number(share) || 0)
}

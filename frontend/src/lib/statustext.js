// The index status (GET api/status) for people: counts, progress, queue,
// scan, live updates, a rebuild for a new model, and the components'
// health, all in the user's language from the server's codes and numbers
// (the server's English texts are not shown). Users who are not admins see
// their own files' progress, never the infrastructure.

import { formatDateTime, formatDuration, formatNumber, numberFormat, parseTime } from './format.js'
import { n, t } from './l10n.js'

const COUNT_KEYS = ['indexed', 'pending', 'skipped', 'failed', 'chunks']

/** countLabel names a file count of the status. */
function countLabel(key) {
	switch (key) {
		case 'indexed': return t('Indexed')
		case 'pending': return t('Pending')
		case 'skipped': return t('Skipped')
		case 'failed': return t('Failed')
	}
	return t('Chunks')
}

/** countColumns returns the column labels of the per-user table. */
export function countColumns() {
	return COUNT_KEYS.map(countLabel)
}

/** componentLabel names a component the status reports on. */
export function componentLabel(name) {
	switch (name) {
		case 'nats': return t('Queue (NATS)')
		case 'nextcloud': return t('Nextcloud')
		case 'store': return t('Index store')
		case 'embedder': return t('Embedder')
		case 'settings': return t('Admin settings')
		case 'ocr': return t('Text recognition (OCR)')
	}
	return name
}

// COMPONENT_STATES say a component's state in the user's language, by the
// server's code (hybridsearch.ComponentStatus.Code).
const COMPONENT_STATES = {
	ocr_off: () => t('turned off'),
	ocr_unavailable: () => t('not available: the OCR program (tesseract) is missing or fails'),
	ocr_no_languages: () => t('not available: none of the chosen OCR languages is installed'),
	ocr_languages_missing: (c) => n('working; {langs} is not installed, so text in that language is not recognised', 'working; {langs} are not installed, so text in those languages is not recognised', (c.detail ?? []).length || 1, { langs: (c.detail ?? []).join(', ') || '?' }),
	settings_ignored: () => t('some values are not used: the app’s environment sets them'),
	settings_not_applied: () => t('the embedding settings could not be applied'),
	settings_unreadable: () => t('could not be read from Nextcloud'),
	no_embedding_host: () => t('no embedding host answers'),
}

// FAILURES say what a failing component without a code means.
const FAILURES = {
	embedder: () => t('the embedding model is not answering'),
	store: () => t('the search index is not answering'),
	nats: () => t('the queue is not answering'),
	nextcloud: () => t('Nextcloud is not answering'),
	settings: () => t('something is wrong with them'),
	ocr: () => t('not available'),
}

/**
 * componentState says how a component is, in the user's language: by its
 * code, else by its name; note is set for a working component with a
 * remark (a missing optional OCR language).
 */
export function componentState(name, c) {
	const byCode = Object.hasOwn(COMPONENT_STATES, c?.code ?? '') ? COMPONENT_STATES[c.code](c) : ''
	if (c?.ok) {
		return { ok: true, note: Boolean(byCode), text: byCode || t('working') }
	}
	const byName = Object.hasOwn(FAILURES, name) ? FAILURES[name]() : t('not working')
	return { ok: false, note: false, text: byCode || byName }
}

/** describeLive turns the status's live field into what the status view says, or null. */
export function describeLive(live, locale, admin) {
	if (!live || typeof live !== 'object') {
		return null
	}
	const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
	if (live.enabled) {
		const count = num(live.deliveries_last_hour)
		const parts = [n('Live updates are on: {count} change arrived in the last hour.', 'Live updates are on: {count} changes arrived in the last hour.', count, { count: formatNumber(count, locale) })]
		const p50 = formatDuration(num(live.delay_p50_seconds))
		const p95 = formatDuration(num(live.delay_p95_seconds))
		if (admin && p50 && p95) {
			parts.push(t('Half of them reached the app within {p50}, 95 % within {p95} of the change.', { p50, p95 }))
		}
		return { on: true, text: parts.join(' ') }
	}
	if (!admin) {
		return { on: false, text: t('Changes to your files are found by the regular scan, not at once.') }
	}
	if (live.reason_code === 'webhook_listeners_disabled') {
		return { on: false, text: t('Live updates are off: Nextcloud’s webhook_listeners app is disabled. Run “occ app:enable webhook_listeners” on the Nextcloud server; until then the regular scan finds changes.'), command: 'occ app:enable webhook_listeners' }
	}
	return { on: false, text: t('Live updates are off; the regular scan finds changes.') }
}

/** describeRebuild turns the status's rebuild field (a new index for another model) into words, or null. */
export function describeRebuild(rb, locale) {
	if (!rb || typeof rb !== 'object') {
		return null
	}
	const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
	const total = num(rb.total)
	const done = Math.min(num(rb.done), total || num(rb.done))
	const fraction = Number.isFinite(rb.progress) ? Math.min(1, Math.max(0, rb.progress)) : (total ? done / total : 0)
	const model = typeof rb.model === 'string' ? rb.model.trim() : ''
	const counts = { done: formatNumber(done, locale), total: formatNumber(total, locale), share: percentText(fraction, locale) }
	const text = model
		? t('Rebuilding the index for the embedding model {model}: {done} of {total} files ({share}). Searches use the current index until the new one has caught up.', { model, ...counts })
		: t('Rebuilding the index without an embedding model: {done} of {total} files ({share}). Searches use the current index until the new one has caught up.', counts)
	return { model, done, total, fraction, text }
}

/** percentText writes a share in [0, 1] as a whole percentage in the locale ("25 %"). */
export function percentText(share, locale) {
	return numberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }).format(Number(share) || 0)
}

/**
 * describeStatus turns the body of GET api/status into what the status view
 * shows: counts, overall progress, queue, scan, live updates, rebuild,
 * components, problems. For users who are not admins the components are
 * summed up in one sentence (health).
 */
export function describeStatus(rep, locale, { admin = true } = {}) {
	const files = rep?.files ?? {}
	const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
	const counts = COUNT_KEYS.map((key) => ({ key, label: countLabel(key), value: num(files[key]), text: formatNumber(num(files[key]), locale) }))
	const done = num(files.indexed) + num(files.skipped) + num(files.failed)
	const total = done + num(files.pending)
	const progress = {
		done,
		total,
		fraction: total ? done / total : 1,
		text: total ? t('{done} of {total} files processed', { done: formatNumber(done, locale), total: formatNumber(total, locale) }) : t('No files found yet'),
	}

	const q = rep?.queue ?? {}
	const pending = num(q.pending)
	const parts = [n('{count} job waiting', '{count} jobs waiting', pending, { count: formatNumber(pending, locale) })]
	if (num(q.jobs_per_second) > 0) {
		parts.push(t('{rate} jobs/s', { rate: formatNumber(Math.round(num(q.jobs_per_second) * 10) / 10, locale) }))
	}
	const eta = formatDuration(num(q.eta_seconds))
	if (pending > 0 && q.paused) {
		parts.push(t('paused: no embedding host answers'))
	} else if (pending > 0 && eta) {
		parts.push(t('about {eta} left', { eta }))
	}
	const queue = { pending, paused: Boolean(q.paused), text: parts.join(' · '), error: q.error ? t('The queue is not answering.') : '' }

	let scan = null
	if (rep?.scan) {
		const s = rep.scan
		const seen = t('{seen} files seen, {queued} queued', { seen: formatNumber(num(s.files_seen), locale), queued: formatNumber(num(s.queued), locale) })
		const error = s.last_error ? t('The last scan stopped with an error; it is tried again.') : ''
		if (s.running) {
			const started = formatDateTime(s.started, locale)
			scan = {
				running: true,
				first: !parseTime(s.finished),
				text: t('Scanning: {done} of {total} users done, {seen}', { done: formatNumber(num(s.users_done), locale), total: formatNumber(num(s.users_total), locale), seen }),
				detail: started ? t('started {time}', { time: started }) : '',
				fraction: num(s.users_total) ? num(s.users_done) / num(s.users_total) : 0,
				error,
			}
		} else if (parseTime(s.finished)) {
			const took = formatDuration(num(s.duration_seconds))
			scan = {
				running: false,
				text: took ? t('Last scan finished {time} (took {took}): {seen}', { time: formatDateTime(s.finished, locale), took, seen }) : t('Last scan finished {time}: {seen}', { time: formatDateTime(s.finished, locale), seen }),
				detail: '',
				fraction: 1,
				error,
			}
		} else {
			scan = { running: false, text: t('No scan has run yet'), detail: '', fraction: 0, error }
		}
	}

	const components = Object.keys(rep?.components ?? {})
		.sort()
		.map((name) => {
			const c = rep.components[name] ?? {}
			const st = componentState(name, c)
			return { name, label: componentLabel(name), ok: st.ok, note: st.note, state: st.text }
		})
	// Each embedding host (admins only), after the embedder.
	const hosts = (rep?.embedders ?? []).map((h) => ({ name: `embedder ${h.host}`, label: t('Ollama at {host}', { host: h.host }), ok: Boolean(h.ok), note: false, state: h.ok ? t('working') : t('not answering') }))
	const at = components.findIndex((c) => c.name === 'embedder')
	components.splice(at < 0 ? components.length : at + 1, 0, ...hosts)
	const failing = components.filter((c) => !c.ok)
	const health = failing.length
		? t('Some parts of the search are not working right now; an administrator can see why.')
		: t('Everything the search needs is working.')

	const problems = (rep?.problems ?? []).map((p) => ({
		fileId: p.file_id,
		path: p.path || t('file {id}', { id: p.file_id }),
		status: p.status || 'failed',
		reason: p.error || '',
		updated: formatDateTime(p.updated, locale),
	}))

	const perUser = Object.keys(rep?.per_user ?? {})
		.sort()
		.map((user) => ({ user, counts: COUNT_KEYS.map((key) => formatNumber(num(rep.per_user[user]?.[key]), locale)) }))

	const counters = rep?.counters
		? t('{processed} jobs processed, {embedded} chunks embedded, {reused} vectors reused', { processed: formatNumber(num(rep.counters.processed), locale), embedded: formatNumber(num(rep.counters.embedded), locale), reused: formatNumber(num(rep.counters.reused), locale) })
		: ''

	const rebuild = describeRebuild(rep?.rebuild, locale)
	const busy = pending > 0 || num(files.pending) > 0 || Boolean(rep?.scan?.running) || Boolean(rebuild && rebuild.fraction < 1)
	return {
		version: rep?.version ?? '',
		user: rep?.user ?? '',
		counts,
		progress,
		queue,
		scan,
		components: admin ? components : [],
		health,
		problems,
		perUser,
		counters,
		busy,
		live: describeLive(rep?.live, locale, admin),
		rebuild,
	}
}

/** statusBusy tells whether indexing is under way (poll often). */
export function statusBusy(rep) {
	if (!rep) {
		return false
	}
	return describeStatus(rep).busy
}

/**
 * indexingSummary says, for the search view, whether indexing is still
 * under way and how far it is, or null when it is not: a rebuild for a new
 * model, paused work, the first scan, or files waiting.
 */
export function indexingSummary(rep, locale) {
	if (!rep) {
		return null
	}
	const d = describeStatus(rep, locale, { admin: false })
	const pending = d.counts.find((c) => c.key === 'pending').value
	const share = percentText(d.progress.fraction, locale)
	const counts = { done: formatNumber(d.progress.done, locale), total: formatNumber(d.progress.total, locale), share }
	if (d.rebuild && d.rebuild.fraction < 1) {
		return { kind: 'rebuild', fraction: d.rebuild.fraction, text: d.rebuild.text }
	}
	if (d.queue.paused && (pending > 0 || d.queue.pending > 0)) {
		return { kind: 'paused', fraction: d.progress.fraction, text: t('Indexing is paused: no embedding host answers. {done} of {total} of your files are processed ({share}); the rest waits, and search finds what is indexed.', counts) }
	}
	if (d.scan?.running && d.scan.first) {
		return { kind: 'scan', fraction: d.progress.fraction, text: t('The first scan of your files is running: {done} of {total} files found so far are processed. Search finds what is indexed.', counts) }
	}
	if (pending > 0) {
		const eta = formatDuration(Number(rep?.queue?.eta_seconds) || 0)
		return {
			kind: 'running',
			fraction: d.progress.fraction,
			text: eta
				? t('Indexing is under way: {done} of {total} of your files are processed ({share}), about {eta} left. Search finds what is indexed.', { ...counts, eta })
				: t('Indexing is under way: {done} of {total} of your files are processed ({share}). Search finds what is indexed.', counts),
		}
	}
	return null
}

// Formatting of numbers, dates, durations and the index status for people.

import { LEG_LABELS } from './weights.js'

/** formatNumber writes n with the locale's digit grouping ("12,345"). */
export function formatNumber(n, locale) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '0'
  return new Intl.NumberFormat(locale).format(n)
}

/**
 * parseTime reads an RFC 3339 time; Go's zero time ("0001-01-01T00:00:00Z")
 * and anything unreadable give null.
 */
export function parseTime(s) {
  if (typeof s !== 'string' || !s) return null
  const d = new Date(s)
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() <= 1) return null
  return d
}

/** formatDate writes a date in the locale's medium style ("12 May 2024"), or "". */
export function formatDate(s, locale) {
  const d = parseTime(s)
  if (!d) return ''
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(d)
}

/** formatDateTime writes a date and time ("12 May 2024, 14:03"), or "". */
export function formatDateTime(s, locale) {
  const d = parseTime(s)
  if (!d) return ''
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(d)
}

/**
 * formatDuration writes a number of seconds as "45 s", "12 min",
 * "3 h 20 min" or "2 d 4 h"; zero, negative or unknown durations give "".
 */
export function formatDuration(seconds) {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return ''
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`
  if (seconds < 60) return `${Math.round(seconds)} s`
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`
  const days = Math.floor(hours / 24)
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`
}

/** formatRelevance writes a relevance in [0, 1] with two decimals ("0.87"). */
export function formatRelevance(r) {
  return clamp01(r).toFixed(2)
}

/** clamp01 limits r to [0, 1]; non-numbers give 0. */
export function clamp01(r) {
  if (typeof r !== 'number' || !Number.isFinite(r)) return 0
  return Math.min(1, Math.max(0, r))
}

/** formatScore writes a raw leg score compactly ("0.8123", "12.4"). */
export function formatScore(s) {
  if (typeof s !== 'number' || !Number.isFinite(s)) return '–'
  if (Math.abs(s) >= 100) return s.toFixed(0)
  if (Math.abs(s) >= 10) return s.toFixed(1)
  return s.toFixed(4)
}

/**
 * docKind names the icon for a result: "note" for notes, otherwise a file
 * kind from the MIME type ("pdf", "image", "sheet", "slides", "code",
 * "archive", "text", "document" or "file").
 */
export function docKind(type, mime) {
  if (type === 'note') return 'note'
  const m = (mime ?? '').toLowerCase()
  if (m === 'application/pdf') return 'pdf'
  if (m.startsWith('image/')) return 'image'
  if (m === 'text/csv' || m.includes('spreadsheet') || m.includes('excel')) return 'sheet'
  if (m.includes('presentation') || m.includes('powerpoint')) return 'slides'
  if (m.includes('wordprocessing') || m.includes('msword') || m.includes('opendocument.text') || m === 'application/rtf') return 'document'
  if (/(zip|x-tar|x-7z|x-rar|x-bzip|compressed)/.test(m)) return 'archive'
  if (m === 'application/json' || m.includes('javascript') || m === 'application/xml' || m === 'text/xml' || m === 'text/html' || m.includes('x-sh') || m.includes('x-python')) return 'code'
  if (m.startsWith('text/')) return 'text'
  return 'file'
}

/** KIND_LABELS name each docKind for people. */
export const KIND_LABELS = {
  note: 'Note',
  pdf: 'PDF',
  image: 'Image',
  sheet: 'Spreadsheet',
  slides: 'Presentation',
  archive: 'Archive',
  code: 'Code',
  document: 'Document',
  text: 'Text',
  file: 'File',
}

/** skippedNotice turns a skipped leg into a sentence ("Semantic search is off: …"). */
export function skippedNotice(s) {
  const label = LEG_LABELS[s?.leg] ?? (s?.leg ? String(s.leg) : 'A search method')
  return `${label} search is off${skipReason(s) ? `: ${skipReason(s)}` : '.'}`
}

/**
 * skipReason is why a leg was skipped, without a leading "semantic search
 * is off:" that the server may already have written.
 */
export function skipReason(s) {
  const reason = (s?.reason ?? '').trim()
  const leg = String(s?.leg ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return leg ? reason.replace(new RegExp(`^${leg} search is (off|unavailable)[:.]?\\s*`, 'i'), '') : reason
}

/** legRows lists an explanation's legs in display order, with absent legs marked. */
export function legRows(explain) {
  const legs = explain?.legs ?? {}
  const order = ['semantic', 'keyword', 'fuzzy', ...Object.keys(legs).filter((k) => !(k in LEG_LABELS)).sort()]
  return order.map((leg) => {
    const s = legs[leg]
    return {
      leg,
      label: LEG_LABELS[leg] ?? leg,
      found: Boolean(s),
      rank: s ? s.rank : null,
      score: s ? formatScore(s.score) : '',
    }
  })
}

/**
 * resultSummary is the sentence read out after a search ("3 results for
 * “apfel” in 12 ms").
 */
export function resultSummary(res, locale) {
  const n = res?.results?.length ?? 0
  const q = res?.query ?? ''
  const count = n === 1 ? '1 result' : `${formatNumber(n, locale)} results`
  const took = typeof res?.took_ms === 'number' && Number.isFinite(res.took_ms) ? ` in ${formatNumber(Math.round(res.took_ms), locale)} ms` : ''
  return `${count} for “${q}”${took}`
}

const COUNT_LABELS = [
  ['indexed', 'Indexed'],
  ['pending', 'Pending'],
  ['skipped', 'Skipped'],
  ['failed', 'Failed'],
  ['chunks', 'Chunks'],
]

/** COMPONENT_LABELS name the components the status reports on. */
export const COMPONENT_LABELS = {
  nats: 'Queue (NATS)',
  nextcloud: 'Nextcloud',
  store: 'Index store',
  embedder: 'Embedder',
}

/**
 * describeStatus turns the body of GET api/status into what the status view
 * shows: counts, overall progress, queue, scan, components, problems.
 */
export function describeStatus(rep, locale) {
  const files = rep?.files ?? {}
  const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)
  const counts = COUNT_LABELS.map(([key, label]) => ({ key, label, value: num(files[key]), text: formatNumber(num(files[key]), locale) }))
  const done = num(files.indexed) + num(files.skipped) + num(files.failed)
  const total = done + num(files.pending)
  const progress = {
    done,
    total,
    fraction: total ? done / total : 1,
    text: total ? `${formatNumber(done, locale)} of ${formatNumber(total, locale)} files processed` : 'No files found yet',
  }

  const q = rep?.queue ?? {}
  const pending = num(q.pending)
  const parts = [pending === 1 ? '1 job waiting' : `${formatNumber(pending, locale)} jobs waiting`]
  if (num(q.jobs_per_second) > 0) parts.push(`${formatNumber(Math.round(num(q.jobs_per_second) * 10) / 10, locale)} jobs/s`)
  const eta = formatDuration(num(q.eta_seconds))
  if (pending > 0 && eta) parts.push(`about ${eta} left`)
  const queue = { pending, text: parts.join(' · '), error: q.error || '' }

  let scan = null
  if (rep?.scan) {
    const s = rep.scan
    const seen = `${formatNumber(num(s.files_seen), locale)} files seen, ${formatNumber(num(s.queued), locale)} queued`
    if (s.running) {
      const started = formatDateTime(s.started, locale)
      scan = {
        running: true,
        text: `Scanning: ${formatNumber(num(s.users_done), locale)} of ${formatNumber(num(s.users_total), locale)} users done, ${seen}`,
        detail: started ? `started ${started}` : '',
        fraction: num(s.users_total) ? num(s.users_done) / num(s.users_total) : 0,
        error: s.last_error || '',
      }
    } else if (parseTime(s.finished)) {
      const took = formatDuration(num(s.duration_seconds))
      scan = {
        running: false,
        text: `Last scan finished ${formatDateTime(s.finished, locale)}${took ? ` (took ${took})` : ''}: ${seen}`,
        detail: '',
        fraction: 1,
        error: s.last_error || '',
      }
    } else {
      scan = { running: false, text: 'No scan has run yet', detail: '', fraction: 0, error: s.last_error || '' }
    }
  }

  const components = Object.keys(rep?.components ?? {})
    .sort()
    .map((name) => {
      const c = rep.components[name] ?? {}
      return { name, label: COMPONENT_LABELS[name] ?? name, ok: Boolean(c.ok), error: c.ok ? '' : c.error || 'unavailable' }
    })

  const problems = (rep?.problems ?? []).map((p) => ({
    fileId: p.file_id,
    path: p.path || `file ${p.file_id}`,
    status: p.status || 'failed',
    reason: p.error || '',
    updated: formatDateTime(p.updated, locale),
  }))

  const perUser = Object.keys(rep?.per_user ?? {})
    .sort()
    .map((user) => ({ user, counts: COUNT_LABELS.map(([key]) => formatNumber(num(rep.per_user[user]?.[key]), locale)) }))

  const counters = rep?.counters
    ? `${formatNumber(num(rep.counters.processed), locale)} jobs processed, ${formatNumber(num(rep.counters.embedded), locale)} chunks embedded, ${formatNumber(num(rep.counters.reused), locale)} vectors reused`
    : ''

  const busy = pending > 0 || num(files.pending) > 0 || Boolean(rep?.scan?.running)
  return { version: rep?.version ?? '', user: rep?.user ?? '', counts, progress, queue, scan, components, problems, perUser, counters, busy }
}

/** COUNT_COLUMNS are the column labels of the per-user table. */
export const COUNT_COLUMNS = COUNT_LABELS.map(([, label]) => label)

// The index status (GET api/status), shared by the views that show it:
// one poller per client, refreshing every few seconds while indexing is
// under way and every minute otherwise, at once when the page becomes
// visible again, and not at all while nobody watches or the page is hidden.

import { reactive } from 'vue'

/** BUSY_MS and IDLE_MS are how often the status is read while work is under way, and otherwise. */
export const BUSY_MS = 5_000
export const IDLE_MS = 60_000

const pollers = new WeakMap()

/**
 * statusPoller returns the client's shared poller: state is reactive
 * {report, error, loading, updated (a Date), all}; watch() starts polling
 * for one watcher and returns the function that stops watching; refresh()
 * reads at once; setAll(all) asks for every user's counts (admins).
 * busy(report) decides how soon the next read comes.
 */
export function statusPoller(client, { busy = () => false, busyMs = BUSY_MS, idleMs = IDLE_MS } = {}) {
  let p = pollers.get(client)
  if (p) return p
  const state = reactive({ report: null, error: null, loading: false, updated: null, all: false })
  let watchers = 0
  let timer = null
  let controller = null
  const doc = globalThis.document

  function schedule() {
    clearTimeout(timer)
    timer = null
    if (!watchers || doc?.hidden) return
    timer = setTimeout(refresh, state.error || busy(state.report) ? busyMs : idleMs)
  }

  async function refresh() {
    clearTimeout(timer)
    controller?.abort()
    const my = (controller = new AbortController())
    state.loading = true
    try {
      const r = await client.status(my.signal, state.all)
      if (my.signal.aborted) return
      state.report = r
      state.error = null
      state.updated = new Date()
    } catch (e) {
      if (e?.name === 'AbortError' || my.signal.aborted) return
      state.error = e
    } finally {
      if (controller === my) {
        state.loading = false
        controller = null
      }
    }
    schedule()
  }

  function onVisible() {
    if (doc?.hidden) {
      clearTimeout(timer)
      timer = null
    } else if (watchers) refresh()
  }

  p = {
    state,
    refresh,
    watch() {
      if (watchers++ === 0) {
        doc?.addEventListener?.('visibilitychange', onVisible)
        refresh()
      }
      let done = false
      return () => {
        if (done) return
        done = true
        if (--watchers === 0) {
          clearTimeout(timer)
          timer = null
          controller?.abort()
          controller = null
          state.loading = false
          doc?.removeEventListener?.('visibilitychange', onVisible)
        }
      }
    },
    setAll(all) {
      state.all = Boolean(all)
      return refresh()
    },
  }
  pollers.set(client, p)
  return p
}

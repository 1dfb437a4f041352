// The index status (GET api/status), shared by the views that show it:
// one poller per client, refreshing every few seconds while indexing is
// under way and every minute otherwise, at once when the page becomes
// visible again, and not at all while nobody watches or the page is hidden.

import { reactive } from 'vue'

/** BUSY_MS and IDLE_MS are how often the status is read while work is under way, and otherwise. */
export const BUSY_MS = 5_000
export const IDLE_MS = 60_000

/** VIEW_IDLE_MS is how often the status view reads an idle status: new files show within it. */
export const VIEW_IDLE_MS = 15_000

const pollers = new WeakMap()

/**
 * statusPoller returns the client's shared poller: state is reactive
 * {report, error, loading, updated (a Date), all}; watch({idleMs}) starts
 * polling for one watcher (idleMs: how often it wants the status while
 * idle, at most IDLE_MS) and returns the function that stops watching; refresh()
 * reads at once; setAll(all) asks for every user's counts (admins).
 * busy(report) decides how soon the next read comes.
 */
export function statusPoller(client, { busy = () => false, busyMs = BUSY_MS, idleMs = IDLE_MS } = {}) {
	let p = pollers.get(client)
	if (p) {
		return p
	}
	const state = reactive({ report: null, error: null, loading: false, updated: null, all: false })
	let watchers = 0
	const idleWanted = new Map() // watcher → the idle interval it wants
	let timer = null
	let controller = null
	const doc = globalThis.document

	function schedule() {
		clearTimeout(timer)
		timer = null
		if (!watchers || doc?.hidden) {
			return
		}
		const idle = Math.min(idleMs, ...idleWanted.values())
		timer = setTimeout(refresh, state.error || busy(state.report) ? busyMs : idle)
	}

	async function refresh() {
		clearTimeout(timer)
		controller?.abort()
		const my = (controller = new AbortController())
		state.loading = true
		try {
			const r = await client.status(my.signal, state.all)
			if (my.signal.aborted) {
				return
			}
			state.report = r
			state.error = null
			state.updated = new Date()
		} catch (e) {
			if (e?.name === 'AbortError' || my.signal.aborted) {
				return
			}
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
		} else if (watchers) {
			refresh()
		}
	}

	p = {
		state,
		refresh,
		watch({ idleMs: wanted } = {}) {
			const me = Symbol('watcher')
			if (wanted) {
				idleWanted.set(me, wanted)
			}
			if (watchers++ === 0) {
				doc?.addEventListener?.('visibilitychange', onVisible)
				refresh()
			} else if (wanted) {
				schedule()
			}
			let done = false
			return () => {
				if (done) {
					return
				}
				done = true
				idleWanted.delete(me)
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

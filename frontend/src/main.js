// Entry point of the search panel. Nextcloud's top-menu page loads this as a
// classic deferred script through AppAPI's proxy, so it is built as one IIFE.

import { createApp } from 'vue'
import App from './App.vue'
import { createClient } from './lib/api.js'
import { currentUser, initialState, isAdmin, locale, mountPoint, proxyBase, similarIds, webroot } from './lib/env.js'
import { setServerDefaults } from './lib/query.js'
import { setRules } from './lib/rules.js'

import './nextcloud-theme.css'
import './style.css'

let started = false

// settingsWait is how long the panel waits for the admin's defaults before
// it starts with the rules' own.
const settingsWait = 3000

async function start() {
	if (started) {
		return
	}
	started = true
	const client = createClient({ base: proxyBase() })
	const info = initialState('hybrid_search_info') ?? {}
	// The server's search rules; without them (an app enabled before it
	// served them) the built-in set stands in until the app is enabled again.
	if (!setRules(info.search_rules)) {
		console.warn('hybrid_search: the page has no search rules; using the built-in ones')
	}
	// The admin's default fusion and weights, which may have changed since
	// the rules were registered, override the rules' defaults.
	const ctl = new AbortController()
	const timer = setTimeout(() => ctl.abort(), settingsWait)
	let semantic = null // whether an embedding model is configured; null when unknown
	let ask = null // {enabled, model} when a chat model answers questions
	try {
		const settings = await client.settings(ctl.signal)
		setServerDefaults(settings)
		if (typeof settings?.semantic === 'boolean') {
			semantic = settings.semantic
		}
		if (settings?.ask?.enabled === true) {
			ask = { enabled: true, model: String(settings.ask.model ?? '') }
		}
	} catch {
		// The rules' defaults; the first search says what is wrong, if anything.
	} finally {
		clearTimeout(timer)
	}
	createApp(App, {
		client,
		info,
		locale: locale(),
		webroot: webroot(),
		admin: isAdmin(window),
		user: currentUser(document),
		semantic,
		ask,
		similar: similarIds(window.location.search),
	}).mount(mountPoint(document))
}

// AppAPI puts the app's l10n/<lang>.js after the page's scripts (both
// deferred), so the panel starts once every deferred script has run, when
// the translations are registered.
if (document.readyState === 'complete') {
	start()
} else {
	document.addEventListener('DOMContentLoaded', start)
	window.addEventListener('load', start)
}

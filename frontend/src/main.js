// Entry point of the search panel. Nextcloud's top-menu page loads this as a
// classic deferred script through AppAPI's proxy, so it is built as one IIFE.

import { createApp } from 'vue'
import App from './App.vue'
import { createClient } from './lib/api.js'
import { initialState, isAdmin, locale, mountPoint, proxyBase, similarIds, webroot } from './lib/env.js'
import { setServerDefaults } from './lib/query.js'
import './nextcloud-theme.css'
import './style.css'

let started = false

// settingsWait is how long the panel waits for the admin's defaults before
// it starts with the built-in ones.
const settingsWait = 3000

async function start() {
  if (started) return
  started = true
  const client = createClient({ base: proxyBase() })
  const ctl = new AbortController()
  const timer = setTimeout(() => ctl.abort(), settingsWait)
  try {
    setServerDefaults(await client.settings(ctl.signal))
  } catch {
    // Built-in defaults; the first search says what is wrong, if anything.
  } finally {
    clearTimeout(timer)
  }
  createApp(App, {
    client,
    info: initialState('hybrid_search_info') ?? {},
    locale: locale(),
    webroot: webroot(),
    admin: isAdmin(window),
    similar: similarIds(window.location.search),
  }).mount(mountPoint(document))
}

// AppAPI puts the app's l10n/<lang>.js after the page's scripts (both
// deferred), so the panel starts once every deferred script has run, when
// the translations are registered.
if (document.readyState === 'complete') start()
else {
  document.addEventListener('DOMContentLoaded', start)
  window.addEventListener('load', start)
}

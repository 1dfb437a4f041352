// Entry point of the search panel. Nextcloud's top-menu page loads this as a
// classic deferred script through AppAPI's proxy, so it is built as one IIFE.

import { createApp } from 'vue'
import App from './App.vue'
import { createClient } from './lib/api.js'
import { initialState, isAdmin, locale, mountPoint, proxyBase, webroot } from './lib/env.js'
import './nextcloud-theme.css'
import './style.css'

let started = false

function start() {
  if (started) return
  started = true
  const client = createClient({ base: proxyBase() })
  createApp(App, {
    client,
    info: initialState('hybrid_search_info') ?? {},
    locale: locale(),
    webroot: webroot(),
    admin: isAdmin(window),
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

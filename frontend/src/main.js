// Entry point of the search panel. Nextcloud's top-menu page loads this as a
// classic deferred script through AppAPI's proxy, so it is built as one IIFE.

import { createApp } from 'vue'
import App from './App.vue'
import { createClient } from './lib/api.js'
import { initialState, isAdmin, locale, mountPoint, proxyBase, requestToken, webroot } from './lib/env.js'
import './style.css'

function start() {
  const info = initialState(document, 'hybrid_search_info') ?? {}
  const client = createClient({ base: proxyBase(window), token: () => requestToken(document) })
  createApp(App, {
    client,
    info,
    locale: locale(document),
    webroot: webroot(window),
    admin: isAdmin(window),
  }).mount(mountPoint(document))
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start)
else start()

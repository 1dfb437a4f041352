// Hybrid Search panel. Loaded by Nextcloud's top-menu page through the
// AppAPI proxy; talks to the app through the same proxy.
(function () {
  'use strict'
  var appId = 'hybrid_search'
  var root = (window._oc_webroot || '') + '/index.php/apps/app_api/proxy/' + appId + '/'

  function initialState(key) {
    var el = document.getElementById('initial-state-app_api-' + key)
    if (!el) return null
    try { return JSON.parse(atob(el.value)) } catch (e) { return null }
  }

  function el(tag, text, cls) {
    var e = document.createElement(tag)
    if (text != null) e.textContent = text
    if (cls) e.className = cls
    return e
  }

  function render(container, info, status, error) {
    container.textContent = ''
    container.appendChild(el('h2', (info && info.display_name) || 'Hybrid Search'))
    if (error) {
      container.appendChild(el('p', 'The app did not answer: ' + error, 'hs-bad'))
      return
    }
    var table = el('table')
    function row(k, v, cls) {
      var tr = el('tr'); tr.appendChild(el('td', k)); tr.appendChild(el('td', v, cls)); table.appendChild(tr)
    }
    row('Version', status.version || (info && info.version) || '')
    row('Signed in as', status.user || '')
    Object.keys(status.components || {}).sort().forEach(function (name) {
      var c = status.components[name]
      row(name, c.ok ? 'ok' : ('unavailable: ' + (c.error || '')), c.ok ? 'hs-ok' : 'hs-bad')
    })
    container.appendChild(table)
  }

  function start() {
    var content = document.getElementById('content') || document.body
    var container = el('div'); container.id = 'hybrid-search'
    content.appendChild(container)
    var info = initialState('hybrid_search_info')
    container.appendChild(el('p', 'Loading…'))
    fetch(root + 'api/status', { headers: { 'Accept': 'application/json', 'requesttoken': (document.head.dataset || {}).requesttoken || '' }, credentials: 'same-origin' })
      .then(function (r) { return r.json().then(function (b) { if (!r.ok) throw new Error(b.error || r.status); return b }) })
      .then(function (st) { render(container, info, st, null) })
      .catch(function (e) { render(container, info, null, String(e.message || e)) })
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start)
  else start()
})()

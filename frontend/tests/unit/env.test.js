import { afterEach, describe, expect, it } from 'vitest'
import { initialState, isAdmin, locale, mountPoint, nextcloudLink, proxyBase, requestToken, webroot } from '../../src/lib/env.js'

afterEach(() => {
  document.head.innerHTML = ''
  document.body.innerHTML = ''
  delete document.head.dataset.requesttoken
  document.documentElement.removeAttribute('data-locale')
  document.documentElement.removeAttribute('lang')
})

describe('proxyBase', () => {
  const cases = [
    { name: 'root install', win: { _oc_webroot: '' }, want: '/index.php/apps/app_api/proxy/hybrid_search/' },
    { name: 'sub folder', win: { _oc_webroot: '/nextcloud' }, want: '/nextcloud/index.php/apps/app_api/proxy/hybrid_search/' },
    { name: 'trailing slash', win: { _oc_webroot: '/nc/' }, want: '/nc/index.php/apps/app_api/proxy/hybrid_search/' },
    { name: 'OC.webroot only', win: { OC: { webroot: '/cloud' } }, want: '/cloud/index.php/apps/app_api/proxy/hybrid_search/' },
    { name: 'nothing set', win: {}, want: '/index.php/apps/app_api/proxy/hybrid_search/' },
  ]
  for (const c of cases) it(c.name, () => expect(proxyBase(c.win)).toBe(c.want))
  it('webroot has no trailing slash', () => expect(webroot({ _oc_webroot: '/x//' })).toBe('/x'))
})

describe('page shell', () => {
  it('reads the request token', () => {
    expect(requestToken(document)).toBe('')
    document.head.dataset.requesttoken = 'abc+/='
    expect(requestToken(document)).toBe('abc+/=')
  })

  it('reads UTF-8 initial state', () => {
    const json = JSON.stringify({ app_id: 'hybrid_search', display_name: 'Hybridsuche für 日本語' })
    const b64 = btoa(String.fromCharCode(...new TextEncoder().encode(json)))
    document.body.innerHTML = `<input type="hidden" id="initial-state-app_api-hybrid_search_info" value="${b64}">`
    expect(initialState(document, 'hybrid_search_info')).toEqual({ app_id: 'hybrid_search', display_name: 'Hybridsuche für 日本語' })
  })

  it('gives null for missing or broken state', () => {
    expect(initialState(document, 'nope')).toBeNull()
    document.body.innerHTML = '<input type="hidden" id="initial-state-app_api-bad" value="%%%">'
    expect(initialState(document, 'bad')).toBeNull()
  })

  it('mounts inside the innermost #content', () => {
    document.body.innerHTML = '<main id="content"><h1>x</h1><div id="content"></div></main>'
    const el = mountPoint(document)
    expect(el.id).toBe('hybrid-search')
    expect(el.parentElement.tagName).toBe('DIV')
    expect(el.parentElement.parentElement.tagName).toBe('MAIN')
  })

  it('mounts in the body without #content', () => {
    expect(mountPoint(document).parentElement).toBe(document.body)
  })

  it('reads the locale', () => {
    expect(locale(document)).toBeUndefined()
    document.documentElement.lang = 'ja'
    expect(locale(document)).toBe('ja')
    document.documentElement.dataset.locale = 'de_DE'
    expect(locale(document)).toBe('de-DE')
    document.documentElement.dataset.locale = 'not a locale!'
    expect(locale(document)).toBeUndefined()
  })

  it('asks OC whether the user is an admin', () => {
    expect(isAdmin({})).toBe(false)
    expect(isAdmin({ OC: { isUserAdmin: () => true } })).toBe(true)
    expect(isAdmin({ OC: { isUserAdmin: () => { throw new Error('x') } } })).toBe(false)
  })
})

describe('nextcloudLink', () => {
  const cases = [
    { name: 'server path, root install', link: '/index.php/f/12', root: '', want: '/index.php/f/12' },
    { name: 'server path, sub folder', link: '/index.php/f/12', root: '/nc', want: '/nc/index.php/f/12' },
    { name: 'already has the web root', link: '/nc/index.php/f/12', root: '/nc', want: '/nc/index.php/f/12' },
    { name: 'absolute https', link: 'https://cloud.example.com/f/12', root: '/nc', want: 'https://cloud.example.com/f/12' },
    { name: 'absolute link into Nextcloud (internal NEXTCLOUD_URL)', link: 'http://nextcloud:8080/index.php/f/12', root: '', want: '/index.php/f/12' },
    { name: 'absolute note link, sub folder', link: 'https://cloud.example.com/nc/index.php/apps/notes/note/7', root: '/nc', want: '/nc/index.php/apps/notes/note/7' },
    { name: 'relative', link: 'f/12', root: '', want: 'f/12' },
    { name: 'empty', link: '', root: '', want: '' },
    { name: 'missing', link: undefined, root: '', want: '' },
    { name: 'javascript', link: 'javascript:alert(1)', root: '', want: '' },
    { name: 'javascript with tab and space', link: ' java\tscript:alert(1)', root: '', want: '' },
    { name: 'data', link: 'DATA:text/html,x', root: '', want: '' },
    { name: 'protocol relative', link: '//evil.example/x', root: '', want: '' },
    { name: 'backslash host', link: '/\\evil.example/x', root: '', want: '' },
  ]
  for (const c of cases) it(c.name, () => expect(nextcloudLink(c.link, c.root)).toBe(c.want))
})

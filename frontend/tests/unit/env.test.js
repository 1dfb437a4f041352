import { afterEach, describe, expect, it } from 'vitest'
import { fileLinks, initialState, isAdmin, mcpURL, mountPoint, nextcloudLink, proxyBase, webroot } from '../../src/lib/env.js'

afterEach(() => {
	document.head.innerHTML = ''
	document.body.innerHTML = ''
	delete window._oc_webroot
})

describe('proxyBase', () => {
	it('root install', () => {
		window._oc_webroot = ''
		expect(proxyBase()).toBe('/index.php/apps/app_api/proxy/hybrid_search/')
	})
	it('sub folder', () => {
		window._oc_webroot = '/nextcloud'
		expect(proxyBase()).toBe('/nextcloud/index.php/apps/app_api/proxy/hybrid_search/')
		expect(webroot()).toBe('/nextcloud')
	})
	it('MCP URL with the page origin', () => {
		window._oc_webroot = '/nc'
		expect(mcpURL({ location: { origin: 'https://cloud.example.org' } })).toBe('https://cloud.example.org/nc/index.php/apps/app_api/proxy/hybrid_search/mcp')
	})
	it('pretty URLs: no /index.php where Nextcloud rewrites (OC.config.modRewriteWorking)', () => {
		window._oc_webroot = ''
		window.OC = { ...(window.OC ?? {}), config: { modRewriteWorking: true } }
		try {
			expect(proxyBase()).toBe('/apps/app_api/proxy/hybrid_search/')
			expect(mcpURL({ location: { origin: 'https://cloud.example.org' } })).toBe('https://cloud.example.org/apps/app_api/proxy/hybrid_search/mcp')
		} finally {
			delete window.OC.config
		}
	})
})

describe('fileLinks', () => {
	it('opens in Files, downloads, previews and links, as Nextcloud\'s pages do', () => {
		window._oc_webroot = '/nc'
		const links = fileLinks({ file_id: 12, path: '/Docs/Q3 plan #2.md', type: 'file' }, 'alice', 'https://cloud.example.org')
		expect(links).toEqual({
			permalink: 'https://cloud.example.org/nc/index.php/f/12',
			preview: '/nc/index.php/core/preview?fileId=12&x=64&y=64&a=1',
			files: '/nc/index.php/apps/files/files/12?dir=%2FDocs&openfile=true',
			download: '/nc/remote.php/dav/files/alice/Docs/Q3%20plan%20%232.md',
		})
		expect(fileLinks({ file_id: 3, path: '/Notes/a.md', type: 'note' }, 'alice', '').preview).toBe('')
		expect(fileLinks({ file_id: 'x' }, 'alice')).toEqual({})
	})
})

describe('page shell', () => {
	it('reads UTF-8 initial state', () => {
		// PHP's json_encode, which Nextcloud's initial state uses, escapes non-ASCII.
		const json = JSON.stringify({ app_id: 'hybrid_search', display_name: 'Hybridsuche für 日本語' }).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
		const b64 = btoa(json)
		document.body.innerHTML = `<input type="hidden" id="initial-state-app_api-hybrid_search_info" value="${b64}">`
		expect(initialState('hybrid_search_info')).toEqual({ app_id: 'hybrid_search', display_name: 'Hybridsuche für 日本語' })
	})

	it('gives null for missing or broken state', () => {
		expect(initialState('nope')).toBeNull()
		document.body.innerHTML = '<input type="hidden" id="initial-state-app_api-bad" value="%%%">'
		expect(initialState('bad')).toBeNull()
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

	it('asks OC whether the user is an admin', () => {
		expect(isAdmin({})).toBe(false)
		expect(isAdmin({ OC: { isUserAdmin: () => true } })).toBe(true)
		expect(isAdmin({ OC: { isUserAdmin: () => {
			throw new Error('x')
		} } })).toBe(false)
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
	for (const c of cases) {
		it(c.name, () => expect(nextcloudLink(c.link, c.root)).toBe(c.want))
	}
})

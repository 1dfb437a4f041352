// What the Nextcloud page shell gives the panel: where the app's proxy is,
// the CSRF token, initial state, the user's locale and the mount point.

import { loadState } from '@nextcloud/initial-state'
import { getCanonicalLocale } from '@nextcloud/l10n'
import { generateUrl, getRootUrl } from '@nextcloud/router'
import { APP_ID } from './l10n.js'

export { APP_ID }

/** webroot returns Nextcloud's web root ("" or "/nextcloud"), never with a trailing slash. */
export function webroot() {
	return getRootUrl().replace(/\/+$/, '')
}

/** proxyBase is the URL prefix of the app's routes through AppAPI's proxy, ending in "/". */
export function proxyBase() {
	return generateUrl(`/apps/app_api/proxy/${APP_ID}/`)
}

/**
 * mcpURL is the app's MCP endpoint through AppAPI's proxy, as an assistant
 * outside the browser reaches it: the URL the server names in the page's
 * initial state (hybrid_search_info.mcp_url) when it does, else the page's
 * origin and the proxy prefix, which follows Nextcloud's pretty URLs
 * (without /index.php when OC.config.modRewriteWorking is set).
 */
export function mcpURL(win, info) {
	const given = typeof info?.mcp_url === 'string' ? info.mcp_url.trim() : ''
	if (/^https?:\/\//i.test(given)) {
		return given
	}
	return `${win.location.origin}${proxyBase()}mcp`
}

/** currentUser is the signed-in user's id, from the page head (data-user). */
export function currentUser(doc = globalThis.document) {
	return doc?.head?.dataset?.user ?? ''
}

/** encodePath percent-encodes each segment of a path, keeping the slashes. */
export function encodePath(p) {
	return String(p ?? '').split('/').map(encodeURIComponent).join('/')
}

/** dirOf returns the folder of a path ("/a/b.md" → "/a"; "/b.md" → "/"). */
export function dirOf(p) {
	const i = String(p ?? '').lastIndexOf('/')
	return i > 0 ? p.slice(0, i) : '/'
}

/**
 * fileLinks returns what a result offers to do with its file, as
 * Nextcloud's own pages do: open it in the Files app (the file in its
 * folder, files ViewController), download it (WebDAV GET with the
 * session), its preview (core PreviewController::getPreviewByFileId, 404
 * for a type without one) and its permalink (/f/<id>, absolute, to copy).
 * Notes open in the Notes app. uid is the signed-in user.
 */
export function fileLinks(doc, uid, origin = globalThis.location?.origin ?? '') {
	const id = Number(doc?.file_id)
	if (!Number.isSafeInteger(id) || id <= 0) {
		return {}
	}
	const path = typeof doc.path === 'string' && doc.path.startsWith('/') ? doc.path : ''
	const out = {
		permalink: origin + generateUrl(`/f/${id}`),
		preview: doc.type === 'note' ? '' : generateUrl(`/core/preview?fileId=${id}&x=64&y=64&a=1`),
	}
	if (path) {
		out.files = generateUrl(`/apps/files/files/${id}?dir=${encodeURIComponent(dirOf(path))}&openfile=true`)
		if (uid) {
			out.download = `${getRootUrl().replace(/\/+$/, '')}/remote.php/dav/files/${encodeURIComponent(uid)}${encodePath(path)}`
		}
	}
	return out
}

/** securitySettingsURL is where users create app passwords. */
export function securitySettingsURL() {
	return generateUrl('/settings/user/security')
}

/**
 * initialState reads a value AppAPI provided for the page (app "app_api");
 * missing or broken state gives null.
 */
export function initialState(key) {
	try {
		return loadState('app_api', key, null)
	} catch {
		return null
	}
}

/** locale is the user's locale as a BCP 47 tag ("de-DE"), or undefined for the browser default. */
export function locale() {
	const tag = getCanonicalLocale()
	try {
		return tag ? Intl.getCanonicalLocales(tag)[0] : undefined
	} catch {
		return undefined
	}
}

/**
 * similarIds reads the file ids AppAPI's "Find similar" file action puts
 * in the page URL (?fileIds=12,34); [] when there are none.
 */
export function similarIds(search) {
	const raw = new URLSearchParams(search ?? '').get('fileIds') ?? ''
	return raw.split(',').map((s) => s.trim()).filter((s) => /^[1-9]\d{0,17}$/.test(s)).slice(0, 10).map(Number)
}

/** isAdmin tells whether Nextcloud says the user is an admin. */
export function isAdmin(win) {
	try {
		return Boolean(win.OC?.isUserAdmin?.())
	} catch {
		return false
	}
}

/**
 * mountPoint adds the panel's root element to the page. Nextcloud wraps the
 * app's <div id="content"> in <main id="content">, so the innermost one is used.
 */
export function mountPoint(doc) {
	const hosts = doc.querySelectorAll('#content')
	const host = hosts.length ? hosts[hosts.length - 1] : doc.body
	const el = doc.createElement('div')
	el.id = 'hybrid-search'
	host.appendChild(el)
	return el
}

/**
 * nextcloudLink turns a result link into one the browser can follow: an
 * http(s) link into Nextcloud ("…/index.php/f/12") is opened on the page's
 * own Nextcloud, since the app may know Nextcloud under an internal address
 * (NEXTCLOUD_URL inside Docker); other http(s) URLs stay; server-relative
 * Nextcloud paths get the web root in front; any other scheme (javascript:,
 * data:) gives "".
 */
export function nextcloudLink(link, root) {
	if (typeof link !== 'string') {
		return ''
	}
	// Browsers ignore tabs, newlines and leading spaces in URLs, so look at the
	// scheme without them ("java\tscript:" is javascript:).
	const bare = Array.from(link).filter((c) => c > ' ' && c !== '\u007f').join('')
	if (!bare) {
		return ''
	}
	if (/^[a-z][a-z0-9+.-]*:/i.test(bare)) {
		if (!/^https?:\/\//i.test(bare)) {
			return ''
		}
		const at = bare.indexOf('/index.php/')
		return at >= 0 ? root + bare.slice(at) : link.trim()
	}
	if (bare.startsWith('//') || bare.startsWith('/\\') || bare.startsWith('\\')) {
		return ''
	}
	if (!link.startsWith('/')) {
		return link
	}
	if (root && (link === root || link.startsWith(root + '/'))) {
		return link
	}
	return root + link
}

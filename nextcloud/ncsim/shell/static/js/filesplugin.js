// The simulator's copy of AppAPI's files plugin (app_api src/filesplugin.js
// at v34.0.3), without its bundler: it reads the initial state
// app_api/ex_files_actions_menu, registers one file action per ExApp
// action, shows it for nodes whose MIME type contains one of the action's
// comma-separated MIME parts, and on click POSTs the node info to the
// ExApp's handler through the proxy: {"files": [node]} for version 2.0
// actions, the bare node for 1.0. A 2.0 answer with redirect_handler sends
// the browser to the ExApp page /apps/app_api/embedded/<app>/<handler>
// with ?fileIds=<id>.
(function () {
	'use strict'

	function loadState(app, key) {
		const el = document.getElementById(`initial-state-${app}-${key}`)
		const bytes = Uint8Array.from(atob(el.value), (c) => c.charCodeAt(0))
		return JSON.parse(new TextDecoder().decode(bytes))
	}

	function t(app, text) {
		return (window._oc_l10n_registry_translations || {})[app]?.[text] ?? text
	}

	const state = loadState('app_api', 'ex_files_actions_menu')
	const fallbackIcon = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="currentColor" d="M4 4h7v7H4zm9 0h7v7h-7zM4 13h7v7H4zm9 0h7v7h-7z"/></svg>'

	function proxyUrl(appId, route) {
		return `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/${appId}/${route}`
	}

	function pageUrl(appId, route) {
		return `${window._oc_webroot || ''}/index.php/apps/app_api/embedded/${appId}/${route}`
	}

	// mimeMatches is filesplugin.js mimeMatches: "text/, application/pdf"
	// matches every node whose MIME type contains one of the parts.
	function mimeMatches(nodeMime, configuredMime) {
		return configuredMime.split(',').map((m) => m.trim()).filter(Boolean).some((m) => nodeMime.includes(m))
	}

	function buildNodeInfo(node) {
		return {
			fileId: node.fileid,
			name: node.basename,
			directory: node.dirname,
			etag: node.attributes.etag,
			mime: node.mime,
			favorite: Boolean(node.attributes.favorite).toString(),
			permissions: node.permissions,
			fileType: node.type,
			size: Number(node.size),
			mtime: new Date(node.mtime).getTime() / 1000,
			shareTypes: node.attributes.shareTypes || null,
			shareAttributes: node.attributes.shareAttributes || null,
			sharePermissions: node.attributes.sharePermissions || null,
			shareOwner: node.attributes.ownerDisplayName || null,
			shareOwnerId: node.attributes.ownerId || null,
			userId: document.head.dataset.user,
			instanceId: state.instanceId,
		}
	}

	// post is @nextcloud/axios's POST: JSON, with the request token.
	async function post(url, body) {
		const r = await fetch(url, {
			method: 'POST',
			credentials: 'same-origin',
			headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/plain, */*', requesttoken: OC.requestToken, 'X-Requested-With': 'XMLHttpRequest' },
			body: JSON.stringify(body),
		})
		if (!r.ok) throw new Error(`Request failed with status code ${r.status}`)
		const text = await r.text()
		try { return JSON.parse(text) } catch { return text }
	}

	function register(fileAction) {
		let icon = fallbackIcon
		const isV2 = fileAction.version === '2.0'
		const handler = proxyUrl(fileAction.appid, fileAction.action_handler)
		const execSingle = async (node) => {
			try {
				const data = await post(handler, isV2 ? { files: [buildNodeInfo(node)] } : buildNodeInfo(node))
				if (isV2 && data && typeof data === 'object' && 'redirect_handler' in data) {
					window.location.assign(`${pageUrl(fileAction.appid, data.redirect_handler)}?fileIds=${node.fileid}`)
				}
				return true
			} catch (error) {
				console.error('Failed to send FileAction request to ExApp', error)
				return false
			}
		}
		window._nc_fileactions.push({
			id: fileAction.name,
			displayName: () => t(fileAction.appid, fileAction.display_name),
			title: () => t(fileAction.appid, fileAction.display_name),
			iconSvgInline: () => icon,
			order: Number(fileAction.order),
			enabled: ({ nodes }) => nodes.length > 0 && nodes.every((node) => mimeMatches(node.mime, fileAction.mime)),
			exec: async ({ nodes }) => execSingle(nodes[0]),
		})
		if (fileAction.icon) {
			fetch(proxyUrl(fileAction.appid, fileAction.icon), { credentials: 'same-origin' }).then(async (r) => {
				if (r.ok && (r.headers.get('content-type') || '').toLowerCase().startsWith('image/svg+xml')) {
					icon = await r.text()
				}
			}).catch((e) => console.debug('[app_api] icon', e))
		}
	}

	window._nc_fileactions = window._nc_fileactions || []
	state.fileActions.forEach(register)
})()

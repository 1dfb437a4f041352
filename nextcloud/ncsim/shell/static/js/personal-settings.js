// The simulated personal settings: the language (PUT
// /ocs/v2.php/cloud/users/{uid} key=language, provisioning_api) and the
// theme (PUT /ocs/v2.php/apps/theming/api/v1/theme/{id}/enable). Both
// reload the page, as Nextcloud does after a language change.
(function () {
	'use strict'
	async function send(method, url, body, status) {
		const r = await fetch(`${window._oc_webroot || ''}${url}`, {
			method,
			credentials: 'same-origin',
			headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'OCS-APIRequest': 'true', requesttoken: OC.requestToken },
			body: body ? JSON.stringify(body) : undefined,
		})
		status.textContent = r.ok ? 'Saved' : 'Failed to save setting'
		if (r.ok) window.location.reload()
	}
	document.addEventListener('change', (e) => {
		const status = e.target.closest('section')?.querySelector('.settings-saved')
		if (e.target.id === 'language-select') {
			send('PUT', `/ocs/v2.php/cloud/users/${encodeURIComponent(e.target.dataset.user)}`, { key: 'language', value: e.target.value }, status)
		} else if (e.target.name === 'theme') {
			send('PUT', `/ocs/v2.php/apps/theming/api/v1/theme/${encodeURIComponent(e.target.value)}/enable`, null, status)
		}
	})
})()

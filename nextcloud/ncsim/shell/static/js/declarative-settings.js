// The simulator's stand-in for the settings app's DeclarativeSection.vue
// (apps/settings/src/components/DeclarativeSettings, server 13088b74): each
// change of a field is saved at once with POST
// /ocs/v2.php/settings/api/declarative/value {app, formId, fieldId, value}
// (value-sensitive for sensitive fields); text fields save 1 s after the
// last keystroke or on Enter. Values are sent as the Vue component sends
// them: text as typed, checkboxes as 1 or 0, multi-checkbox as a JSON
// object and multi-select as a JSON list.
(function () {
	'use strict'
	const timers = new Map()

	function valueOf(field) {
		const type = field.dataset.type
		const input = field.querySelector('input, select')
		switch (type) {
		case 'checkbox':
			return input.checked ? 1 : 0
		case 'multi-checkbox': {
			const out = {}
			field.querySelectorAll('input[type=checkbox]').forEach((c) => { out[c.value] = c.checked })
			return JSON.stringify(out)
		}
		case 'multi-select':
			return JSON.stringify([...input.selectedOptions].map((o) => o.value))
		case 'radio':
			return field.querySelector('input[type=radio]:checked')?.value ?? ''
		default:
			return input.value
		}
	}

	async function save(field) {
		const section = field.closest('[data-form]')
		const status = section.querySelector('.settings-saved')
		const url = `${window._oc_webroot || ''}/ocs/v2.php/settings/api/declarative/${field.dataset.sensitive ? 'value-sensitive' : 'value'}`
		try {
			const r = await fetch(url, {
				method: 'POST',
				credentials: 'same-origin',
				headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'OCS-APIRequest': 'true', requesttoken: OC.requestToken },
				body: JSON.stringify({ app: section.dataset.app, formId: section.dataset.form, fieldId: field.dataset.field, value: valueOf(field) }),
			})
			if (!r.ok) throw new Error(`status ${r.status}`)
			status.classList.remove('settings-error')
			status.textContent = 'Saved'
			field.dataset.saved = String(Date.now())
		} catch (e) {
			console.debug(e)
			status.classList.add('settings-error')
			status.textContent = 'Failed to save setting'
		}
	}

	function isText(field) {
		return ['text', 'password', 'email', 'tel', 'url', 'number'].includes(field.dataset.type)
	}

	document.addEventListener('input', (e) => {
		const field = e.target.closest('.declarative-settings-section [data-field]')
		if (!field || !isText(field)) return
		clearTimeout(timers.get(field))
		timers.set(field, setTimeout(() => save(field), 1000))
	})
	document.addEventListener('change', (e) => {
		const field = e.target.closest('.declarative-settings-section [data-field]')
		if (!field || isText(field)) return
		save(field)
	})
	document.addEventListener('keydown', (e) => {
		const field = e.target.closest('.declarative-settings-section [data-field]')
		if (field && isText(field) && e.key === 'Enter') {
			clearTimeout(timers.get(field))
			save(field)
		}
	})
})()

// The simulator's stand-in for the Assistant (nextcloud/assistant): pick
// an available task type, fill in its inputs (Text as a text area, Enum as
// a choice, Number as a number; the defaults preset), schedule it with
// POST /ocs/v2.php/taskprocessing/schedule {type, appId: "assistant",
// input}, then poll GET /ocs/v2.php/taskprocessing/task/{id} every 500 ms
// until it ends. The output shows text as it is (links made clickable) and
// file slots as links to the files; a failed task shows its
// userFacingErrorMessage (Nextcloud 33 and later) or a generic message.
(function () {
	'use strict'
	const root = window._oc_webroot || ''
	const headers = { Accept: 'application/json', 'OCS-APIRequest': 'true', requesttoken: OC.requestToken }
	const $ = (id) => document.getElementById(id)
	let types = {}
	let current = null // the running task's id
	let timer = null

	async function ocs(method, path, body) {
		const opts = { method, credentials: 'same-origin', headers: { ...headers } }
		if (body !== undefined) {
			opts.headers['Content-Type'] = 'application/json'
			opts.body = JSON.stringify(body)
		}
		const r = await fetch(`${root}/ocs/v2.php/taskprocessing${path}`, opts)
		const data = await r.json().catch(() => ({}))
		if (!r.ok) {
			throw new Error(data?.ocs?.data?.message || data?.ocs?.meta?.message || `status ${r.status}`)
		}
		return data.ocs.data
	}

	function field(key, shape, enums, defaults, optional) {
		const wrap = document.createElement('div')
		wrap.className = 'declarative-form-field'
		wrap.dataset.key = key
		wrap.dataset.type = shape.type
		const label = document.createElement('label')
		label.className = 'field-title'
		label.htmlFor = `assistant-in-${key}`
		label.textContent = shape.name + (optional ? ' (optional)' : '')
		let input
		if (shape.type === 'Enum') {
			input = document.createElement('select')
			if (optional) input.append(new Option('', ''))
			for (const v of enums[key] || []) input.append(new Option(v.name, v.value))
		} else if (shape.type === 'Number') {
			input = document.createElement('input')
			input.type = 'number'
		} else if (shape.type === 'Text' && !optional) {
			input = document.createElement('textarea')
		} else {
			input = document.createElement('input')
			input.type = 'text'
		}
		input.id = `assistant-in-${key}`
		if (defaults[key] !== undefined) input.value = defaults[key]
		const hint = document.createElement('span')
		hint.className = 'hint'
		hint.textContent = shape.description
		wrap.append(label, input, hint)
		return wrap
	}

	function showType() {
		const t = types[$('assistant-type').value]
		const box = $('assistant-inputs')
		box.replaceChildren()
		if (!t) return
		$('assistant-type-description').textContent = t.description
		for (const [key, shape] of Object.entries(t.inputShape || {})) {
			box.append(field(key, shape, t.inputShapeEnumValues || {}, t.inputShapeDefaults || {}, false))
		}
		for (const [key, shape] of Object.entries(t.optionalInputShape || {})) {
			box.append(field(key, shape, t.optionalInputShapeEnumValues || {}, t.optionalInputShapeDefaults || {}, true))
		}
	}

	function collect() {
		const input = {}
		for (const f of $('assistant-inputs').querySelectorAll('[data-key]')) {
			const el = f.querySelector('input, textarea, select')
			if (el.value === '') continue
			input[f.dataset.key] = f.dataset.type === 'Number' ? Number(el.value) : el.value
		}
		return input
	}

	function linkify(text) {
		const out = document.createElement('div')
		out.className = 'assistant-output-text'
		const re = /(https?:\/\/[^\s)\]]+|\/index\.php\/f\/\d+)/g
		let last = 0
		for (const m of text.matchAll(re)) {
			out.append(text.slice(last, m.index))
			const a = document.createElement('a')
			a.href = m[0]
			a.textContent = m[0]
			a.target = '_blank'
			a.rel = 'noopener noreferrer'
			out.append(a)
			last = m.index + m[0].length
		}
		out.append(text.slice(last))
		return out
	}

	function showOutput(task) {
		const t = types[task.type] || {}
		const shapes = { ...(t.outputShape || {}), ...(t.optionalOutputShape || {}) }
		const box = $('assistant-output')
		box.replaceChildren()
		// The task type's slots first, then the provider's optional ones.
		for (const key of Object.keys(shapes)) {
			const value = (task.output || {})[key]
			if (value === undefined || value === null) continue
			const shape = shapes[key]
			const h = document.createElement('h4')
			h.textContent = shape.name
			box.append(h)
			if (shape.type === 'ListOfFiles' || shape.type === 'File') {
				const ul = document.createElement('ul')
				ul.className = 'assistant-output-files'
				for (const id of [].concat(value)) {
					const li = document.createElement('li')
					const a = document.createElement('a')
					a.href = `${root}/index.php/f/${id}`
					a.textContent = `File ${id}`
					li.append(a)
					ul.append(li)
				}
				box.append(ul)
			} else {
				box.append(linkify(String(value)))
			}
		}
	}

	function status(text, error) {
		const p = $('assistant-status')
		p.textContent = text
		p.classList.toggle('error', !!error)
		$('assistant-result').hidden = false
	}

	async function poll() {
		if (current === null) return
		try {
			const { task } = await ocs('GET', `/task/${current}`)
			const names = { STATUS_SCHEDULED: 'Scheduled', STATUS_RUNNING: 'Running', STATUS_SUCCESSFUL: 'Done', STATUS_FAILED: 'Failed', STATUS_CANCELLED: 'Cancelled' }
			const done = ['STATUS_SUCCESSFUL', 'STATUS_FAILED', 'STATUS_CANCELLED'].includes(task.status)
			let text = names[task.status] || task.status
			if (task.status === 'STATUS_RUNNING' && task.progress) text += ` (${Math.round(task.progress * 100)} %)`
			if (task.status === 'STATUS_FAILED') text = task.userFacingErrorMessage || 'The task failed.'
			status(text, task.status === 'STATUS_FAILED')
			document.body.dataset.taskStatus = task.status
			if (task.status === 'STATUS_SUCCESSFUL') showOutput(task)
			if (done) {
				current = null
				$('assistant-cancel').hidden = true
				$('assistant-run').disabled = false
				return
			}
		} catch (e) {
			status(e.message, true)
		}
		timer = setTimeout(poll, 500)
	}

	async function run(e) {
		e.preventDefault()
		clearTimeout(timer)
		$('assistant-output').replaceChildren()
		// The previous task's status must not stand for this one.
		delete document.body.dataset.taskStatus
		try {
			const { task } = await ocs('POST', '/schedule', { type: $('assistant-type').value, appId: 'assistant', customId: '', input: collect() })
			current = task.id
			document.body.dataset.taskStatus = task.status
			document.body.dataset.taskId = String(task.id)
			$('assistant-run').disabled = true
			$('assistant-cancel').hidden = false
			status('Scheduled')
			poll()
		} catch (err) {
			status(err.message, true)
		}
	}

	async function cancel() {
		if (current === null) return
		try {
			await ocs('POST', `/tasks/${current}/cancel`)
		} catch (err) {
			status(err.message, true)
		}
	}

	async function init() {
		try {
			types = (await ocs('GET', '/tasktypes')).types || {}
		} catch (e) {
			types = {}
		}
		const ids = Object.keys(types).sort()
		$('assistant-empty').hidden = ids.length > 0
		$('assistant-form').hidden = ids.length === 0
		for (const id of ids) $('assistant-type').append(new Option(types[id].name, id))
		showType()
		$('assistant-type').addEventListener('change', showType)
		$('assistant-form').addEventListener('submit', run)
		$('assistant-cancel').addEventListener('click', cancel)
		document.body.dataset.assistantReady = '1'
	}

	init()
})()

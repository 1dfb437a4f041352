// The simulated Files app. It keeps the file actions other apps register
// where @nextcloud/files keeps them (window._nc_fileactions, filled by
// registerFileAction), and opens a row's actions menu with the actions
// whose enabled({ nodes }) accepts the row's node, ordered by their order.
// exec({ nodes }) runs on click, as the Files app's FileEntryActions does.
(function () {
	'use strict'
	window._nc_fileactions = window._nc_fileactions || []

	function nodeOf(row) {
		const node = JSON.parse(row.dataset.node)
		node.mtime = new Date(node.mtime)
		return node
	}

	function closeMenus() {
		document.querySelectorAll('.files-list__menu').forEach((m) => m.remove())
		document.querySelectorAll('.files-list__actions-toggle[aria-expanded="true"]').forEach((b) => b.setAttribute('aria-expanded', 'false'))
	}

	function openMenu(button) {
		closeMenus()
		const row = button.closest('tr')
		const node = nodeOf(row)
		const actions = window._nc_fileactions
			.filter((a) => { try { return a.enabled({ nodes: [node] }) } catch (e) { console.warn(e); return false } })
			.sort((a, b) => (a.order || 0) - (b.order || 0))
		const menu = document.createElement('ul')
		menu.className = 'files-list__menu'
		menu.setAttribute('role', 'menu')
		if (actions.length === 0) {
			const li = document.createElement('li')
			li.textContent = 'No actions'
			li.className = 'ncsim-muted'
			menu.append(li)
		}
		for (const action of actions) {
			const li = document.createElement('li')
			const item = document.createElement('button')
			item.type = 'button'
			item.setAttribute('role', 'menuitem')
			item.dataset.action = action.id
			const icon = document.createElement('span')
			icon.className = 'action-icon'
			icon.setAttribute('aria-hidden', 'true')
			icon.innerHTML = action.iconSvgInline({ nodes: [node] }) || ''
			const label = document.createElement('span')
			label.textContent = action.displayName({ nodes: [node] })
			item.append(icon, label)
			item.addEventListener('click', async () => {
				closeMenus()
				const ok = await action.exec({ nodes: [node] })
				if (ok === false) {
					showError(`"${label.textContent}" failed`)
				}
			})
			li.append(item)
			menu.append(li)
		}
		button.after(menu)
		button.setAttribute('aria-expanded', 'true')
		menu.querySelector('button')?.focus()
	}

	function showError(text) {
		const p = document.createElement('p')
		p.className = 'settings-error files-error'
		p.setAttribute('role', 'alert')
		p.textContent = text
		document.querySelector('#app-content h2')?.after(p)
	}

	document.addEventListener('click', (e) => {
		const toggle = e.target.closest('.files-list__actions-toggle')
		if (toggle) {
			if (toggle.getAttribute('aria-expanded') === 'true') closeMenus()
			else openMenu(toggle)
		} else if (!e.target.closest('.files-list__menu')) {
			closeMenus()
		}
	})
	document.addEventListener('keydown', (e) => {
		if (e.key === 'Escape') closeMenus()
	})
})()

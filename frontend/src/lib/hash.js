// The page's URL fragment holds the panel's state: the search (query,
// options, filters; query.js encodeState) and the section shown
// (section=assistant|status) and its mode (mode=ask: ask your files), so a reload or a shared link shows the same.

/** SECTIONS are the panel's sections, the first the default. */
export const SECTIONS = ['search', 'assistant', 'status']

/** readSection returns the section named in a fragment, or the default. */
export function readSection(fragment) {
	const s = new URLSearchParams((fragment ?? '').replace(/^#/, '')).get('section')
	return SECTIONS.includes(s) ? s : SECTIONS[0]
}

/**
 * withState returns the fragment for a search state (encodeState's) and a
 * section: the section is kept unless it is the default.
 */
export function withState(state, section) {
	const p = new URLSearchParams(state ?? '')
	p.delete('section')
	if (section && section !== SECTIONS[0]) {
		p.set('section', section)
	}
	return p.toString()
}

/** readMode returns the search section's mode in a fragment: "ask" (mode=ask) or "search". */
export function readMode(fragment) {
	return new URLSearchParams((fragment ?? '').replace(/^#/, '')).get('mode') === 'ask' ? 'ask' : 'search'
}

/** withMode returns the fragment with its mode set (mode=ask) or removed. */
export function withMode(fragment, mode) {
	const p = new URLSearchParams((fragment ?? '').replace(/^#/, ''))
	if (mode === 'ask') {
		p.set('mode', 'ask')
	} else {
		p.delete('mode')
	}
	return p.toString()
}

/** setFragment replaces the page URL's fragment without a new history entry. */
export function setFragment(win, fragment) {
	if (!win?.history?.replaceState) {
		return
	}
	const url = win.location.pathname + win.location.search + (fragment ? `#${fragment}` : '')
	win.history.replaceState(win.history.state, '', url)
}

/** currentFragment is the page URL's fragment without "#". */
export function currentFragment(win) {
	return (win?.location?.hash ?? '').replace(/^#/, '')
}

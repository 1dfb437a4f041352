// Icons of the panel as SVG path data on a 24×24 grid (NcIconSvgWrapper's
// path), drawn for the panel: a magnifier, a speech bubble, bars, a
// folder, a download arrow, a chain link and a list.

/** ICONS maps an icon's name to its path. */
export const ICONS = {
	search: 'M10 2a8 8 0 1 0 4.9 14.3l5.4 5.4 1.4-1.4-5.4-5.4A8 8 0 0 0 10 2zM10 4a6 6 0 1 1 0 12a6 6 0 1 1 0-12z',
	assistant: 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z',
	status: 'M4 20h3V10H4zm6.5 0h3V4h-3zM17 20h3v-7h-3z',
	folder: 'M3 5h7l2 2h9v12H3z',
	download: 'M11 3h2v10l3.5-3.5 1.4 1.4L12 16.8l-5.9-5.9 1.4-1.4L11 13zM4 19h16v2H4z',
	link: 'M10.6 13.4a1 1 0 0 0 1.4 0l4-4a3 3 0 0 0-4.2-4.2l-1.5 1.5 1.4 1.4 1.5-1.5a1 1 0 0 1 1.4 1.4l-4 4a1 1 0 0 0 0 1.4zm2.8-2.8a1 1 0 0 0-1.4 0l-4 4a3 3 0 0 0 4.2 4.2l1.5-1.5-1.4-1.4-1.5 1.5a1 1 0 0 1-1.4-1.4l4-4a1 1 0 0 0 0-1.4z',
	list: 'M4 5h16v2H4zm0 6h16v2H4zm0 6h16v2H4z',
	similar: 'M4 4h10v10H4zM10 10h10v10H10z',
}

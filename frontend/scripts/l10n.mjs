// Translations of the panel, kept the way Nextcloud apps keep them: l10n/
// at the repository root holds <lang>.json ({"translations", "pluralForm"})
// and the <lang>.js that Nextcloud serves on the app's pages
// (OC.L10N.register("hybrid_search", …)); AppAPI copies l10n/ into
// Nextcloud's apps folder when it installs the ExApp.
//
//   node scripts/l10n.mjs          writes l10n/<lang>.js from l10n/<lang>.json
//   node scripts/l10n.mjs --check  fails when a <lang>.js is stale or a string lacks a translation
//
// Strings are the literal first arguments of t('…') and n('…', '…') in src/.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import process from 'node:process'
import { fileURLToPath } from 'node:url'

export const APP_ID = 'hybrid_search'
const here = dirname(fileURLToPath(import.meta.url))
export const SRC = resolve(here, '../src')
export const L10N = resolve(here, '../../l10n')

/** sourceStrings returns every translatable string of src/: singulars, and plural pairs as "_sing_::_plural_". */
export function sourceStrings(dir = SRC) {
	const out = new Set()
	const lit = String.raw`'((?:[^'\\]|\\.)*)'`
	const single = new RegExp(String.raw`\bt\(\s*${lit}`, 'g')
	const plural = new RegExp(String.raw`\bn\(\s*${lit}\s*,\s*${lit}`, 'g')
	const walk = (d) => {
		for (const e of readdirSync(d, { withFileTypes: true })) {
			const p = join(d, e.name)
			if (e.isDirectory()) {
				walk(p)
			} else if (/\.(js|vue)$/.test(e.name)) {
				const text = readFileSync(p, 'utf8')
				for (const m of text.matchAll(single)) {
					out.add(unescape(m[1]))
				}
				for (const m of text.matchAll(plural)) {
					out.add(`_${unescape(m[1])}_::_${unescape(m[2])}_`)
				}
			}
		}
	}
	walk(dir)
	return [...out].sort()
}

function unescape(s) {
	return s.replace(/\\(.)/g, '$1')
}

/** languages lists the shipped translations. */
export function languages() {
	return readdirSync(L10N).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort()
}

/** readBundle reads l10n/<lang>.json. */
export function readBundle(lang) {
	return JSON.parse(readFileSync(join(L10N, `${lang}.json`), 'utf8'))
}

/** jsOf is the l10n/<lang>.js Nextcloud serves for a bundle. */
export function jsOf(bundle) {
	return `OC.L10N.register(\n    "${APP_ID}",\n    ${JSON.stringify(bundle.translations, null, 4).replace(/\n/g, '\n    ')},\n"${bundle.pluralForm}");\n`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const check = process.argv.includes('--check')
	const strings = sourceStrings()
	let bad = 0
	for (const lang of languages()) {
		const bundle = readBundle(lang)
		const missing = strings.filter((s) => !(s in bundle.translations))
		const unused = Object.keys(bundle.translations).filter((s) => !strings.includes(s))
		for (const s of missing) {
			console.error(`${lang}: missing ${JSON.stringify(s)}`)
		}
		for (const s of unused) {
			console.error(`${lang}: unused ${JSON.stringify(s)}`)
		}
		bad += missing.length
		const js = join(L10N, `${lang}.js`)
		if (check) {
			let cur = ''
			try {
				cur = readFileSync(js, 'utf8')
			} catch {
				// no <lang>.js yet: it is stale
			}
			if (cur !== jsOf(bundle)) {
				console.error(`${lang}.js is stale: run node scripts/l10n.mjs`)
				bad++
			}
		} else {
			writeFileSync(js, jsOf(bundle))
		}
	}
	console.log(`${strings.length} strings, ${languages().length} languages, ${bad} problems`)
	process.exit(bad ? 1 : 0)
}

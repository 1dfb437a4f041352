// ESLint with Nextcloud's shared config (@nextcloud/eslint-config): the
// panel is Vue 3 with plain JavaScript in its .vue files.
import { recommendedJavascript } from '@nextcloud/eslint-config'

export default [
	...recommendedJavascript,
	{
		files: ['**/*.js', '**/*.mjs', '**/*.vue'],
		ignores: ['**/tests/**'], // as Nextcloud's documentation rules do
		rules: {
			// Doc comments here are short prose that names the parameters in the sentence (the project's style); a tag per parameter would repeat it.
			'jsdoc/require-param': 'off',
			// A doc comment on every exported name, as in the project's Go code; small inner helpers are read with their caller.
			'jsdoc/require-jsdoc': ['warn', { publicOnly: true }],
		},
	},
	{
		files: ['src/**/*.js', 'src/**/*.vue'],
		rules: {
			// The panel tells the admin in the browser console why it fell back (a server refusal, missing rules); it logs nothing else.
			'no-console': ['error', { allow: ['warn'] }],
		},
	},
	{
		files: ['tests/**/*.mjs', 'scripts/**/*.mjs'],
		rules: {
			// The browser test and the l10n script are command-line programs: the terminal is where they report.
			'no-console': 'off',
		},
	},
	{
		files: ['tests/**'],
		rules: {
			// Tests compare with translated text exactly as l10n/*.json ships it, not English source strings to translate.
			'@nextcloud/l10n-non-breaking-space': 'off',
		},
	},
]

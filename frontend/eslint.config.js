// ESLint with Nextcloud's shared config (@nextcloud/eslint-config): the
// panel is Vue 3 with plain JavaScript in its .vue files.
import { recommendedJavascript } from '@nextcloud/eslint-config'

export default [
	...recommendedJavascript,
]

// Stylelint with Nextcloud's shared config (@nextcloud/stylelint-config), for
// the style sheets in src/ and the <style> blocks of the .vue files.
import nextcloud from '@nextcloud/stylelint-config'

export default {
	...nextcloud,
}

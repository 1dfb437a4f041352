// Translation helpers bound to the app id. Nextcloud serves the app's
// l10n/<lang>.js (OC.L10N.register("hybrid_search", …)) on the app's pages;
// @nextcloud/l10n reads what it registered. Vue escapes text itself, so
// placeholders are not HTML-escaped here.

import { translate, translatePlural } from '@nextcloud/l10n'

/** APP_ID is the ExApp id, also the translation domain. */
export const APP_ID = 'hybrid_search'

/** t translates text, filling {placeholders} from vars. */
export function t(text, vars) {
	return translate(APP_ID, text, vars, undefined, { escape: false })
}

/** n translates a singular/plural pair for count (%n is the count). */
export function n(singular, plural, count, vars) {
	return translatePlural(APP_ID, singular, plural, count, vars, { escape: false })
}

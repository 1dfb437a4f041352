import vue from '@vitejs/plugin-vue'
// Builds the panel as what Nextcloud's top-menu page loads through the
// AppAPI proxy: one classic script (IIFE, no code splitting) and one style
// sheet, next to the static files in public/ (img/app.svg).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

export default defineConfig({
	plugins: [vue()],
	define: {
		// Library mode leaves process.env alone; Vue needs it replaced.
		'process.env.NODE_ENV': JSON.stringify('production'),
		// @nextcloud/vue logs an error unless the app's name and version are set.
		appName: JSON.stringify('hybrid_search'),
		appVersion: JSON.stringify('0.1.0'),
		// @nextcloud/vue's components are written with the Options API (NcSelect's
		// forwardedSlots is a method): turning it off breaks them in the browser
		// only, since Vitest loads Vue's CommonJS build, which ignores the flag.
		__VUE_OPTIONS_API__: 'true',
		__VUE_PROD_DEVTOOLS__: 'false',
		__VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
	},
	build: {
		outDir: 'dist',
		emptyOutDir: true,
		target: 'es2020',
		sourcemap: false,
		reportCompressedSize: false,
		cssCodeSplit: false,
		lib: {
			entry: fileURLToPath(new URL('./src/main.js', import.meta.url)),
			name: 'HybridSearch',
			formats: ['iife'],
			fileName: () => 'js/hybrid_search-main.js',
			cssFileName: 'css/hybrid_search-main',
		},
		rollupOptions: {
			output: { inlineDynamicImports: true },
		},
	},
	test: {
		environment: 'happy-dom',
		include: ['tests/unit/**/*.test.js'],
		// @nextcloud/vue imports its CSS from JavaScript; Vite must process it.
		server: { deps: { inline: [/@nextcloud\/vue/] } },
	},
})

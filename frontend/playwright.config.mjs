// Browser tests of the search panel (tests/e2e/*.spec.mjs) with
// @playwright/test, in Debian's chromium (CHROMIUM, default
// /usr/bin/chromium): never a downloaded browser. Each spec file starts its
// own hybridsearch-demo (tests/e2e/session.mjs). Screenshots, the demo's
// logs, what the page showed at a failure (and traces with E2E_TRACE) and
// the reports go to the checkout's git-ignored .artifacts/e2e/.
import { defineConfig } from '@playwright/test'
import { fileURLToPath } from 'node:url'

const artifacts = fileURLToPath(new URL('../.artifacts/e2e/', import.meta.url))

export default defineConfig({
	testDir: 'tests/e2e',
	testMatch: '*.spec.mjs',
	outputDir: artifacts + 'test-results',
	// Checks in a file run in order on one page: each builds on the last.
	fullyParallel: false,
	// Two files at a time, each with its own demo: 2.0 min instead of 3.8 (and
	// 2.9–3.5 min for the one-demo runner this replaced) on two busy cores.
	workers: Number(process.env.E2E_WORKERS || 2),
	retries: 0,
	timeout: 180_000, // one check; some wait for the app's 50 s share refresh
	globalTimeout: 900_000,
	expect: { timeout: 15_000 },
	reporter: [['list'], ['json', { outputFile: artifacts + 'report.json' }]],
	use: {
		launchOptions: {
			executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
			args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
		},
		viewport: { width: 1280, height: 900 },
		locale: 'en-US',
		timezoneId: 'UTC',
		permissions: ['clipboard-read', 'clipboard-write'],
		actionTimeout: 15_000,
		navigationTimeout: 15_000,
		// Traces cost much on two busy cores: E2E_TRACE=retain-on-failure keeps failures'.
		trace: process.env.E2E_TRACE || 'off',
	},
})

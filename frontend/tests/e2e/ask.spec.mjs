// The panel's Ask mode: without a chat model it is not offered; an admin
// names one in the administration settings (pointing at a fake Ollama,
// fake-ollama.mjs), and the panel then asks a question, shows the answer
// as it streams, links its [N] citation to the right file, lists the
// passages, says when the files do not hold the answer, and stops a
// running answer (the model's request ends too).

import { startFakeOllama } from './fake-ollama.mjs'
import { adminSetting, api, axeView, expect, isViewer, note, overflow, shot, test, useDemo } from './session.mjs'

const s = useDemo()
const MODEL = 'fake-chat:1b'
const QUESTION = 'Which Kubernetes version is the upgrade target?'
let fake, admin

test.beforeAll(async () => {
	fake = await startFakeOllama(MODEL)
	admin = await s.context.newPage()
})
test.afterAll(() => fake?.close())

// setChat names the chat host and model in the admin settings and waits
// until the app reads them (every 2 s in the demo).
async function setChat(host, model) {
	if (admin.url() === 'about:blank') {
		await admin.goto(`${s.ready.nextcloud_url}/index.php/settings/admin/declarative_settings`)
		await admin.locator('[data-form="hybrid_search_admin"]').waitFor()
	}
	await adminSetting(admin, 'ollama_chat_host', host)
	await adminSetting(admin, 'ollama_chat_model', model)
	await expect.poll(async () => (await api(s.page, 'api/settings')).body?.ask?.enabled, { timeout: 20_000, message: `api/settings ask after naming chat model ${JSON.stringify(model)}` }).toBe(Boolean(model))
	await s.page.goto(s.ready.panel_url)
	await s.page.locator('#hs-query, #hs-question').first().waitFor()
}

// askAndWatch asks q in the panel and watches the answer in the page:
// when its first text showed (ms after the click), how many times the
// text grew, and its final phase.
async function askAndWatch(page, q) {
	await page.locator('#hs-question').fill(q)
	return page.evaluate(async () => {
		const t0 = performance.now()
		let first = 0
		let asking = false
		const lengths = new Set()
		const textOf = (el) => [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE || n.classList?.contains('hs-cite')).map((n) => n.textContent).join('')
		const seen = () => {
			const el = document.querySelector('.hs-answer__text')
			const t = el ? textOf(el) : ''
			const phase = document.querySelector('.hs-answer')?.dataset.phase ?? (document.querySelector('.hs-ask-error') ? 'error' : '')
			if (phase === 'asking') {
				asking = true
			}
			if (!asking) {
				return ''
			} // still the previous answer
			if (t.trim()) {
				if (!first) {
					first = performance.now() - t0
				}
				lengths.add(t.length)
			}
			return phase !== 'asking' ? phase : ''
		}
		return await new Promise((resolve, reject) => {
			const obs = new MutationObserver(() => {
				const phase = seen()
				if (phase) {
					obs.disconnect()
					resolve({ first, growth: lengths.size, phase })
				}
			})
			obs.observe(document.querySelector('.hs-ask'), { childList: true, subtree: true, characterData: true, attributes: true })
			setTimeout(() => {
				obs.disconnect()
				reject(new Error('no answer within 20 s'))
			}, 20_000)
			document.querySelector('.hs-ask-submit').click()
		})
	})
}

test('without a chat model the panel offers no Ask mode', async () => {
	const { page, ready } = s
	expect((await api(page, 'api/settings')).body?.ask?.enabled).toBe(false)
	await page.goto(`${ready.panel_url}#mode=ask&q=anything`)
	await page.locator('#hs-query').waitFor()
	await expect(page.locator('.hs-modes, #hs-question'), 'the Ask mode is offered without a chat model').toHaveCount(0)
	const r = await page.evaluate(async () => {
		const base = `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/hybrid_search/`
		const res = await fetch(base + 'api/ask', { method: 'POST', headers: { 'Content-Type': 'application/json', requesttoken: document.head.dataset.requesttoken || '' }, body: JSON.stringify({ question: 'x' }) })
		return { status: res.status, code: (await res.json().catch(() => null))?.code }
	})
	expect(r, 'POST api/ask').toEqual({ status: 404, code: 'ask_off' })
})

test('an admin names a chat model: the panel offers Ask next to the search', async () => {
	const { page } = s
	await setChat(fake.url, MODEL)
	await page.locator('.hs-modes').waitFor()
	await page.locator('#hs-query').fill(QUESTION)
	await page.locator('.hs-mode--ask').click()
	await expect(page.locator('#hs-question'), 'the question field holds the words typed in the search').toHaveValue(QUESTION)
	expect(new URL(page.url()).hash, 'the URL keeps the mode').toContain('mode=ask')
})

test('a question streams its answer, with a citation that opens the right file and the passages used', async () => {
	const { page } = s
	const found = (await api(page, `api/search?q=${encodeURIComponent('Kubernetes upgrade runbook')}&algorithm=keyword&top_k=1`)).body
	const runbook = found?.results?.find((d) => d.path.endsWith('/Kubernetes upgrade runbook.md'))
	expect(runbook, 'the runbook is in the index').toBeTruthy()
	const w = await askAndWatch(page, QUESTION)
	expect(w.phase, `the answer's end: ${await page.locator('.hs-ask-error').textContent().catch(() => '')}`).toBe('done')
	expect(w.growth, 'steps the answer showed in (streamed)').toBeGreaterThanOrEqual(3)
	await expect(page.locator('.hs-answer__text')).toContainText(/v1\.29\.4/)
	const cite = page.locator('.hs-cite').first()
	const n = await cite.getAttribute('data-n')
	await expect(cite, `citation [${n}] links the runbook`).toHaveAttribute('href', `/index.php/f/${runbook.file_id}`)
	// The passages, expandable under the answer.
	const toggle = page.locator('.hs-passages-toggle')
	await expect(toggle, 'the passages are closed at first').toHaveAttribute('aria-expanded', 'false')
	await toggle.click()
	const item = page.locator(`#hs-passage-${n}`)
	await expect(item.locator('.hs-passage__link')).toHaveText('Kubernetes upgrade runbook')
	await expect(item.locator('.hs-passage__path')).toContainText('/Documents/Engineering/Kubernetes upgrade runbook.md')
	expect((await item.locator('.hs-excerpt__text').textContent()).trim().length).toBeGreaterThan(20)
	const count = await page.locator('.hs-passage').count()
	await shot(page, '-ask')
	// Keyboard: the citation is a link in the tab order; Enter opens the file.
	await cite.focus()
	await Promise.all([page.waitForURL((u) => isViewer(u) && u.pathname.includes(`/${runbook.file_id}`)), page.keyboard.press('Enter')])
	await page.goBack()
	await expect(page.locator('#hs-question'), 'the question after Back').toHaveValue(QUESTION)
	note(`first text ${Math.round(w.first)} ms after the click (fake model: ${fake.timing.first} ms to its first token, ${fake.timing.perToken} ms per token), ${w.growth} steps, ${count} passages, [${n}] → file ${runbook.file_id}`)
})

test('the answered Ask view: no serious or critical axe-core violation, light and dark; fits a phone', async () => {
	const { page } = s
	expect((await askAndWatch(page, QUESTION)).phase).toBe('done')
	await page.locator('.hs-passages-toggle').click()
	const found = await axeView(page, 'ask')
	await page.emulateMedia({ colorScheme: 'dark' })
	// The theme switches with CSS transitions: measure the settled colours.
	await page.waitForFunction(() => getComputedStyle(document.querySelector('#hybrid-search .hs-app-content')).backgroundColor === 'rgb(23, 23, 23)'
		&& getComputedStyle(document.querySelector('label[for="hs-question"]')).color === 'rgb(153, 153, 153)'
		&& getComputedStyle(document.querySelector('.hs-passages-toggle .button-vue__text')).color === 'rgb(235, 235, 235)')
	await page.waitForTimeout(500)
	found.push(...await axeView(page, 'ask, dark'))
	await page.emulateMedia({ colorScheme: 'light' })
	expect(found).toEqual([])
	await page.setViewportSize({ width: 390, height: 844 })
	try {
		await page.waitForTimeout(300)
		const wider = await overflow(page)
		await shot(page, '-mobile-ask')
		expect(wider, 'pixels the Ask view is wider than a phone screen').toBeLessThanOrEqual(0)
	} finally {
		await page.setViewportSize({ width: 1280, height: 900 })
	}
})

test('a question the files do not answer says so', async () => {
	const { page } = s
	expect((await askAndWatch(page, 'Who won the football championship in 1954?')).phase).toBe('done')
	await expect(page.locator('.hs-answer-none')).toHaveText(/do not seem to contain the answer|None of your files/)
	await expect(page.locator('.hs-answer__text'), 'the model’s refusal is not shown as an answer').toHaveCount(0)
})

test('Stop ends a running answer, and the model’s request with it', async () => {
	const { page } = s
	fake.timing.perToken = 700
	try {
		const before = fake.chats.length
		await page.locator('#hs-question').fill(QUESTION)
		await page.locator('.hs-ask-submit').click()
		await page.waitForFunction(() => /\S/.test([...(document.querySelector('.hs-answer__text')?.childNodes ?? [])].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('')))
		await page.locator('#hs-question').press('Escape')
		await page.locator('.hs-answer-stopped').waitFor()
		await expect.poll(() => fake.chats[before]?.closedEarly, { timeout: 5000, message: 'the model stops answering after Stop' }).toBe(true)
		const chat = fake.chats[before]
		const words = chat.answer.split(/\s+/).length
		expect(chat.tokensSent, 'tokens the model sent').toBeLessThan(words)
		note(`the model stopped after ${chat.tokensSent} of ${words} tokens`)
	} finally {
		fake.timing.perToken = 60
	}
})

test('a chat model that is down is said in words, with Try again', async () => {
	const { page } = s
	await fake.close() // Ollama stopped: its port refuses connections
	expect((await askAndWatch(page, QUESTION)).phase).toBe('error')
	await expect(page.locator('.hs-ask-error .hs-error__message')).toHaveText('The chat model is not reachable right now. Try again later, or tell your administrator.')
	await expect(page.locator('.hs-ask-error .hs-retry'), 'Try again').toHaveCount(1)
	await expect(page.locator('#hs-ask-live')).toHaveText(/^\s*The question could not be answered:/)
})

test('turning the chat model off hides the Ask mode again', async () => {
	await setChat('', '')
	await expect(s.page.locator('.hs-modes, #hs-question'), 'the Ask mode is still offered').toHaveCount(0)
})

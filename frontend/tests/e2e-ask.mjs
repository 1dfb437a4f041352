// The panel's Ask mode in the browser (run by e2e.mjs): without a chat
// model it is not offered; an admin names one in the administration
// settings (pointing at the fake Ollama below), and the panel then asks a
// question, shows the answer as it streams, links its [N] citation to the
// right file, lists the passages, says when the files do not hold the
// answer, and stops a running answer (the model's request ends too).
//
// The demo has no chat model of its own (it links no test fake), so this
// file serves one: a small stand-in for Ollama's /api/show and /api/chat
// that answers as the Go tests' fake does (embedding/embeddingtest chat.go,
// after Ollama v0.17.4 server/routes.go: application/x-ndjson, one
// ChatResponse per token, then done with the counts), with the
// Extractive responder's rule: the passage sentence sharing the most words
// of four letters or more with the question, cited " [N]"; with none it
// replies the app's NOT_IN_FILES marker (answer/prompt.go).

import { createServer } from 'node:http'
import { axeView } from './e2e-search-page.mjs'

/**
 * startFakeOllama serves a chat model named model on 127.0.0.1 and
 * resolves with {url, chats, timing, close}: chats records each /api/chat
 * ({question, answer, tokensSent, closedEarly}); timing {first, perToken}
 * (ms) may be changed at any time.
 */
export async function startFakeOllama(model) {
	const chats = []
	const timing = { first: 150, perToken: 60 }
	const known = (name) => name === model || `${name}:latest` === model || name === `${model}:latest`
	const server = createServer(async (req, res) => {
		const body = await new Promise((resolve) => {
			let s = ''
			req.on('data', (c) => {
				s += c
			})
			req.on('end', () => resolve(s))
		})
		let r
		try {
			r = JSON.parse(body || '{}')
		} catch {
			return error(res, 400, 'invalid character in request body')
		}
		if (req.method === 'POST' && req.url === '/api/show') {
			if (!known(r.model ?? r.name)) {
				return error(res, 404, `model '${r.model ?? r.name}' not found`)
			}
			return json(res, 200, {
				modelfile: '',
				parameters: '',
				template: '{{ .Prompt }}',
				details: { format: 'gguf', family: 'llama', parameter_size: '1.2B', quantization_level: 'Q4_K_M' },
				model_info: { 'general.architecture': 'llama', 'llama.context_length': 8192 },
				capabilities: ['completion'],
			})
		}
		if (req.method === 'POST' && req.url === '/api/chat') {
			if (!r.model) {
				return error(res, 400, 'model is required')
			}
			if (!known(r.model)) {
				return error(res, 404, `model '${r.model}' not found`)
			}
			const user = [...(r.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? ''
			const answer = extractive(user)
			const chat = { question: user.slice(user.lastIndexOf('Question:') + 9).trim(), answer, tokensSent: 0, closedEarly: false, done: false }
			chats.push(chat)
			res.on('close', () => {
				if (!chat.done) {
					chat.closedEarly = true
				}
			})
			res.writeHead(200, { 'Content-Type': 'application/x-ndjson' })
			const tokens = answer.match(/\s*\S+/g) ?? []
			const promptTokens = (r.messages ?? []).reduce((n, m) => n + (m.content.match(/\S+/g) ?? []).length + 4, 0)
			await sleep(timing.first)
			for (const tok of tokens) {
				if (res.destroyed || res.writableEnded) {
					return
				}
				res.write(JSON.stringify({ model: r.model, created_at: new Date().toISOString(), message: { role: 'assistant', content: tok }, done: false }) + '\n')
				chat.tokensSent++
				await sleep(timing.perToken)
			}
			if (res.destroyed) {
				return
			}
			chat.done = true
			res.end(JSON.stringify({ model: r.model, created_at: new Date().toISOString(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', total_duration: 1, load_duration: 1, prompt_eval_count: promptTokens, eval_count: tokens.length }) + '\n')
			return
		}
		error(res, 404, '404 page not found')
	})
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
	const { port } = server.address()
	return {
		url: `http://127.0.0.1:${port}`,
		chats,
		timing,
		close: () => new Promise((resolve) => {
			if (!server.listening) {
				return resolve()
			}
			server.closeAllConnections?.()
			server.close(() => resolve())
		}),
	}
}

function json(res, status, v) {
	res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' })
	res.end(JSON.stringify(v))
}

function error(res, status, msg) {
	json(res, status, { error: msg })
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms))
}

// extractive answers the prompt's question from its numbered passages
// (embeddingtest.Extractive, with NOT_IN_FILES as the refusal).
function extractive(user) {
	const qi = user.lastIndexOf('Question:')
	const question = qi >= 0 ? user.slice(qi + 9) : user
	const words = new Set(wordsOf(question).filter((w) => [...w].length >= 4))
	const starts = [...user.matchAll(/^\s*\[(\d+)\]/gm)]
	let best = { score: 0, sent: '', n: 0 }
	starts.forEach((m, i) => {
		const end = i + 1 < starts.length ? starts[i + 1].index : user.length
		let body = user.slice(m.index + m[0].length, end)
		const nl = body.indexOf('\n')
		body = nl >= 0 ? body.slice(nl + 1) : ''
		const q = body.lastIndexOf('Question:')
		if (q >= 0) {
			body = body.slice(0, q)
		}
		for (const sent of sentences(body)) {
			if (sent.startsWith('<passage-') || sent.startsWith('</passage-')) {
				continue
			}
			const score = wordsOf(sent).filter((w) => words.has(w)).length
			if (score > best.score) {
				best = { score, sent, n: Number(m[1]) }
			}
		}
	})
	return best.score ? `${best.sent.trim()} [${best.n}]` : 'NOT_IN_FILES'
}

function wordsOf(s) {
	return s.toLowerCase().split(/[^a-z0-9\u0080-\uffff]+/).filter(Boolean)
}

function sentences(text) {
	const out = []
	for (const line of text.split('\n')) {
		let start = 0
		for (let i = 0; i < line.length; i++) {
			if ('.!?'.includes(line[i]) && (i + 1 === line.length || line[i + 1] === ' ')) {
				const s = line.slice(start, i + 1).trim()
				if (s) {
					out.push(s)
				}
				start = i + 1
			}
		}
		const rest = line.slice(start).trim()
		if (rest) {
			out.push(rest)
		}
	}
	return out
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

/**
 * askChecks runs the Ask mode's checks with the e2e's helpers: check,
 * assert, page (alice's panel), context, ready (the demo's READY info),
 * adminSetting, api and shot(name) for a screenshot.
 */
export async function askChecks({ check, assert, page, context, ready, adminSetting, api, shot, isViewer, log }) {
	const MODEL = 'fake-chat:1b'
	const fake = await startFakeOllama(MODEL)
	const admin = await context.newPage()
	const setChat = async (host, model) => {
		if (admin.url() === 'about:blank') {
			await admin.goto(`${ready.nextcloud_url}/index.php/settings/admin/declarative_settings`)
			await admin.locator('[data-form="hybrid_search_admin"]').waitFor()
		}
		await adminSetting(admin, 'ollama_chat_host', host)
		await adminSetting(admin, 'ollama_chat_model', model)
		// The app reads its settings every 2 s in the demo.
		let s
		const until = Date.now() + 20_000
		do {
			s = (await api(page, 'api/settings')).body
			if (Boolean(s?.ask?.enabled) === Boolean(model)) {
				break
			}
			await page.waitForTimeout(300)
		} while (Date.now() < until)
		assert(Boolean(s?.ask?.enabled) === Boolean(model), `api/settings ask is ${JSON.stringify(s?.ask)} after naming chat model ${JSON.stringify(model)}`)
		await page.goto(ready.panel_url)
		await page.locator('#hs-query, #hs-question').first().waitFor()
	}
	try {
		await check('without a chat model the panel offers no Ask mode', async () => {
			const s = (await api(page, 'api/settings')).body
			assert(s?.ask?.enabled === false, `api/settings ask is ${JSON.stringify(s?.ask)}`)
			await page.goto(`${ready.panel_url}#mode=ask&q=anything`)
			await page.locator('#hs-query').waitFor()
			assert(await page.locator('.hs-modes, #hs-question').count() === 0, 'the Ask mode is offered without a chat model')
			const r = await page.evaluate(async () => {
				const base = `${window._oc_webroot || ''}/index.php/apps/app_api/proxy/hybrid_search/`
				const res = await fetch(base + 'api/ask', { method: 'POST', headers: { 'Content-Type': 'application/json', requesttoken: document.head.dataset.requesttoken || '' }, body: JSON.stringify({ question: 'x' }) })
				return { status: res.status, body: await res.json().catch(() => null) }
			})
			assert(r.status === 404 && r.body?.code === 'ask_off', `POST api/ask answered ${r.status} ${JSON.stringify(r.body)}`)
		})

		let enabled = false
		await check('an admin names a chat model: the panel offers Ask next to the search', async () => {
			await setChat(fake.url, MODEL)
			enabled = true
			await page.locator('.hs-modes').waitFor()
			await page.locator('#hs-query').fill('Which Kubernetes version is the upgrade target?')
			await page.locator('.hs-mode--ask').click()
			await page.locator('#hs-question').waitFor()
			const q = await page.locator('#hs-question').inputValue()
			assert(q === 'Which Kubernetes version is the upgrade target?', `the question field holds ${JSON.stringify(q)}, not the words typed in the search`)
			assert(new URL(page.url()).hash.includes('mode=ask'), `the URL does not keep the mode: ${page.url()}`)
		})
		if (!enabled) {
			return
		}

		let runbook
		await check('a question streams its answer, with a citation that opens the right file and the passages used', async () => {
			const s = (await api(page, `api/search?q=${encodeURIComponent('Kubernetes upgrade runbook')}&algorithm=keyword&top_k=1`)).body
			runbook = s?.results?.find((d) => d.path.endsWith('/Kubernetes upgrade runbook.md'))
			assert(runbook, 'the runbook is not in the index')
			const w = await askAndWatch(page, 'Which Kubernetes version is the upgrade target?')
			assert(w.phase === 'done', `the answer ended as ${w.phase}: ${await page.locator('.hs-ask-error').textContent().catch(() => '')}`)
			assert(w.growth >= 3, `the answer showed in ${w.growth} steps, not streamed`)
			const text = (await page.locator('.hs-answer__text').textContent()).trim()
			assert(/v1\.29\.4/.test(text), `answer ${JSON.stringify(text)}`)
			const cite = page.locator('.hs-cite').first()
			const n = await cite.getAttribute('data-n')
			const href = await cite.getAttribute('href')
			assert(href === `/index.php/f/${runbook.file_id}`, `citation [${n}] links ${href}, want the runbook /index.php/f/${runbook.file_id}`)
			// The passages, expandable under the answer.
			const toggle = page.locator('.hs-passages-toggle')
			assert(await toggle.getAttribute('aria-expanded') === 'false', 'the passages are open from the start')
			await toggle.click()
			const item = page.locator(`#hs-passage-${n}`)
			await item.waitFor()
			const title = (await item.locator('.hs-passage__link').textContent()).trim()
			const path = (await item.locator('.hs-passage__path').textContent()).trim()
			const excerpt = (await item.locator('.hs-excerpt__text').textContent()).trim()
			assert(title === 'Kubernetes upgrade runbook' && path.includes('/Documents/Engineering/Kubernetes upgrade runbook.md') && excerpt.length > 20, `passage ${n}: ${title} | ${path} | ${excerpt.slice(0, 40)}`)
			const count = await page.locator('.hs-passage').count()
			await shot('-ask')
			// Keyboard: the citation is a link in the tab order; Enter opens the file.
			await cite.focus()
			await Promise.all([page.waitForURL((u) => isViewer(u) && u.pathname.includes(`/${runbook.file_id}`)), page.keyboard.press('Enter')])
			await page.goBack()
			await page.locator('#hs-question').waitFor()
			const back = await page.locator('#hs-question').inputValue()
			assert(back === 'Which Kubernetes version is the upgrade target?', `after Back the question is ${JSON.stringify(back)}`)
			return `first text ${Math.round(w.first)} ms after the click (fake model: ${fake.timing.first} ms to its first token, ${fake.timing.perToken} ms per token), ${w.growth} steps, ${count} passages, [${n}] → file ${runbook.file_id}`
		})

		await check('the answered Ask view: no serious or critical axe-core violation, light and dark; fits a phone', async () => {
			const w = await askAndWatch(page, 'Which Kubernetes version is the upgrade target?')
			assert(w.phase === 'done', `ended as ${w.phase}`)
			await page.locator('.hs-passages-toggle').click()
			const found = [...await axeView(page, 'ask', log)]
			await page.emulateMedia({ colorScheme: 'dark' })
			await page.waitForFunction(() => getComputedStyle(document.querySelector('#hybrid-search .hs-app-content')).backgroundColor === 'rgb(23, 23, 23)')
			// The theme switches with CSS transitions: measure the settled colours.
			await page.waitForFunction(() => getComputedStyle(document.querySelector('label[for="hs-question"]')).color === 'rgb(153, 153, 153)'
				&& getComputedStyle(document.querySelector('.hs-passages-toggle .button-vue__text')).color === 'rgb(235, 235, 235)')
			await page.waitForTimeout(500)
			found.push(...await axeView(page, 'ask, dark', log))
			await page.emulateMedia({ colorScheme: 'light' })
			assert(found.length === 0, found.slice(0, 3).join(' | '))
			await page.setViewportSize({ width: 390, height: 844 })
			try {
				await page.waitForTimeout(300)
				const wider = await page.evaluate(() => Math.max(...['#hybrid-search', '#hybrid-search .hs-app-content'].map((sel) => {
					const el = document.querySelector(sel)
					return el ? el.scrollWidth - el.clientWidth : 0
				})))
				await shot('-mobile-ask')
				assert(wider <= 0, `the Ask view is ${wider} px wider than a phone screen`)
			} finally {
				await page.setViewportSize({ width: 1280, height: 900 })
			}
		})

		await check('a question the files do not answer says so', async () => {
			const w = await askAndWatch(page, 'Who won the football championship in 1954?')
			assert(w.phase === 'done', `ended as ${w.phase}`)
			const note = (await page.locator('.hs-answer-none').textContent()).trim()
			assert(/do not seem to contain the answer|None of your files/.test(note), `note ${JSON.stringify(note)}`)
			assert(await page.locator('.hs-answer__text').count() === 0, 'the model’s refusal is shown as an answer')
		})

		await check('Stop ends a running answer, and the model’s request with it', async () => {
			fake.timing.perToken = 700
			try {
				const before = fake.chats.length
				await page.locator('#hs-question').fill('Which Kubernetes version is the upgrade target?')
				await page.locator('.hs-ask-submit').click()
				await page.waitForFunction(() => /\S/.test([...(document.querySelector('.hs-answer__text')?.childNodes ?? [])].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join('')))
				await page.locator('#hs-question').press('Escape')
				await page.locator('.hs-answer-stopped').waitFor()
				const chat = fake.chats[before]
				const until = Date.now() + 5000
				while (!chat?.closedEarly && Date.now() < until) {
					await page.waitForTimeout(100)
				}
				assert(chat?.closedEarly, 'the model went on answering after Stop')
				const words = chat.answer.split(/\s+/).length
				assert(chat.tokensSent < words, `the model sent all ${words} tokens`)
				return `the model stopped after ${chat.tokensSent} of ${words} tokens`
			} finally {
				fake.timing.perToken = 60
			}
		})

		await check('a chat model that is down is said in words, with Try again', async () => {
			await fake.close() // Ollama stopped: its port refuses connections
			const w = await askAndWatch(page, 'Which Kubernetes version is the upgrade target?')
			assert(w.phase === 'error', `ended as ${w.phase}`)
			const msg = (await page.locator('.hs-ask-error .hs-error__message').textContent()).trim()
			assert(msg === 'The chat model is not reachable right now. Try again later, or tell your administrator.', `error ${JSON.stringify(msg)}`)
			assert(await page.locator('.hs-ask-error .hs-retry').count() === 1, 'no Try again')
			const live = (await page.locator('#hs-ask-live').textContent()).trim()
			assert(live.startsWith('The question could not be answered:'), `live region ${JSON.stringify(live)}`)
			return msg
		})
	} finally {
		await check('turning the chat model off hides the Ask mode again', async () => {
			await setChat('', '')
			assert(await page.locator('.hs-modes, #hs-question').count() === 0, 'the Ask mode is still offered')
		})
		await admin.close()
		await fake.close()
	}
}

// A stand-in for Ollama's chat model for the Ask mode's browser checks
// (ask.spec.mjs).
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

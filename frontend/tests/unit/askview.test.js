import { flushPromises, mount } from '@vue/test-utils'
// The panel's Ask mode, in happy-dom, with a fake client whose ask() plays
// the server's events: offered only with a chat model, streamed text,
// clickable citations, the passages, "not in your files", errors in words,
// stopping, and the mode and question in the URL.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import App from '../../src/App.vue'
import { ApiError, normalizeResult } from '../../src/lib/api.js'
import kube from '../fixtures/search-kubernetes.json'
import busy from '../fixtures/status-busy.json'

const passages = [
	{ n: 1, file_id: 106, title: 'Kubernetes upgrade runbook', path: '/Documents/Engineering/Kubernetes upgrade runbook.md', link: 'http://nc.internal/index.php/f/106', chunk_no: 0, text: '# Kubernetes cluster upgrade runbook\n\nThe upgrade to 1.31 is planned for May.', tokens: 20 },
	{ n: 2, file_id: 107, title: 'Release notes', path: '/Documents/Release notes.txt', link: 'http://nc.internal/index.php/f/107', chunk_no: 2, page: 3, text: 'Nothing about upgrades.', tokens: 6 },
]

// deferred is a promise with its resolve and reject outside.
function deferred() {
	let resolve
	let reject
	const promise = new Promise((res, rej) => {
		resolve = res
		reject = rej
	})
	return { promise, resolve, reject }
}

// playAsk returns an ask() that sends steps ([name, data] events, or a
// deferred to wait on) and then resolves with done or rejects with fail.
function playAsk(steps, { done, fail } = {}) {
	return vi.fn(async (body, { signal, onEvent }) => {
		for (const s of steps) {
			if (s.promise) {
				await s.promise
			} else {
				onEvent(s[0], s[1])
			}
			if (signal?.aborted) {
				const e = new Error('cancelled')
				e.name = 'AbortError'
				throw e
			}
		}
		if (fail) {
			throw fail
		}
		return done
	})
}

function fakeClient(ask) {
	return {
		search: vi.fn(async () => normalizeResult(kube)),
		status: vi.fn(async () => busy),
		ask,
	}
}

let wrapper
function mountApp(client, props = {}) {
	wrapper = mount(App, { props: { client, locale: 'en-US', ask: { enabled: true, model: 'qwen3:4b' }, ...props }, attachTo: document.body })
	return wrapper
}

async function toAsk(w) {
	await w.get('.hs-mode--ask input').setValue(true)
	await flushPromises()
}

beforeEach(() => {
	window.history.replaceState(null, '', '/index.php/apps/app_api/embedded/hybrid_search/search')
})
afterEach(() => {
	wrapper?.unmount()
	wrapper = null
})

describe('the Ask mode', () => {
	it('is not offered without a chat model', async () => {
		window.history.replaceState(null, '', '/index.php/apps/app_api/embedded/hybrid_search/search#mode=ask&q=x')
		const w = mountApp(fakeClient(vi.fn()), { ask: null })
		await flushPromises()
		expect(w.find('.hs-modes').exists()).toBe(false)
		expect(w.find('#hs-question').exists()).toBe(false)
		expect(w.find('#hs-query').exists()).toBe(true)
	})

	it('is offered next to the search with a chat model, and keeps the words typed', async () => {
		const w = mountApp(fakeClient(vi.fn()))
		await w.get('#hs-query').setValue('kubernetes upgrade date')
		await toAsk(w)
		expect(w.find('#hs-query').exists()).toBe(false)
		expect(w.get('#hs-question').element.value).toBe('kubernetes upgrade date')
		expect(window.location.hash).toContain('mode=ask')
		expect(w.find('.hs-empty--start').text()).toContain('cites them as [1], [2]')
	})

	it('streams the answer with clickable citations, the sources and the passages', async () => {
		const gate = deferred()
		const done = { question: 'When is the upgrade?', text: 'The upgrade to 1.31 is planned for May [1].', answered: true, citations: [{ n: 1, file_id: 106, title: passages[0].title, path: passages[0].path, link: passages[0].link }], passages, model: 'qwen3:4b', took_ms: 1800 }
		const ask = playAsk([['passages', { passages }], ['text', { text: 'The upgrade to 1.31' }], gate, ['text', { text: ' is planned for May [1].' }]], { done })
		const w = mountApp(fakeClient(ask))
		await toAsk(w)
		await w.get('#hs-question').setValue('When is the upgrade?')
		await w.get('.hs-askbar').trigger('submit')
		await flushPromises()
		// Part of the answer is there while the rest is written.
		expect(ask.mock.calls[0][0]).toEqual({ question: 'When is the upgrade?' })
		const text = w.get('.hs-answer__text')
		expect(text.text()).toContain('The upgrade to 1.31')
		expect(text.attributes('aria-live')).toBe('polite')
		expect(text.attributes('aria-busy')).toBe('true')
		expect(w.find('.hs-ask-stop').exists()).toBe(true)
		expect(w.get('#hs-ask-live').text()).toBe('Writing the answer…')
		gate.resolve()
		await flushPromises()
		expect(w.get('.hs-answer__text').text()).toBe('The upgrade to 1.31 is planned for May [1].')
		expect(w.get('.hs-answer__text').attributes('aria-busy')).toBe('false')
		const cite = w.get('.hs-cite')
		expect(cite.text()).toBe('1')
		expect(cite.attributes('href')).toBe('/index.php/f/106') // on the page's own Nextcloud
		expect(cite.attributes('aria-label')).toBe('Source 1: Kubernetes upgrade runbook')
		expect(w.get('.hs-answer__sources li[data-n="1"] a').attributes('href')).toBe('/index.php/f/106')
		expect(w.get('#hs-ask-live').text()).toBe('The answer is complete. It cites 1 file.')
		expect(w.get('.hs-answer__meta').text()).toBe('Written by qwen3:4b in 2 s')
		// The passages used, collapsed under the answer.
		const toggle = w.get('.hs-passages-toggle')
		expect(toggle.text()).toBe('Show the 2 passages the answer was written from')
		expect(toggle.attributes('aria-expanded')).toBe('false')
		expect(w.get('#hs-passages').isVisible()).toBe(false)
		await toggle.trigger('click')
		expect(w.get('#hs-passages').isVisible()).toBe(true)
		const items = w.findAll('.hs-passage')
		expect(items.map((li) => li.get('.hs-passage__link').text())).toEqual(['Kubernetes upgrade runbook', 'Release notes'])
		expect(items[1].get('.hs-passage__path').text()).toContain('/Documents/Release notes.txt')
		expect(items[1].text()).toContain('page 3')
		expect(items[0].text()).toContain('planned for May')
		expect(window.location.hash).toBe('#q=When+is+the+upgrade%3F&mode=ask')
	})

	it('says when the files do not hold the answer instead of showing the model’s words', async () => {
		const done = { question: 'q', text: 'Your files do not seem to contain the answer to this question.', answered: false, citations: [], passages: [passages[1]], took_ms: 900 }
		const w = mountApp(fakeClient(playAsk([['passages', { passages: [passages[1]] }], ['text', { text: done.text }]], { done })))
		await toAsk(w)
		await w.get('#hs-question').setValue('Who won the 1954 World Cup?')
		await w.get('.hs-askbar').trigger('submit')
		await flushPromises()
		expect(w.get('.hs-answer-none').text()).toContain('Your files do not seem to contain the answer to this question, so none is given')
		expect(w.find('.hs-answer__text').exists()).toBe(false)
		expect(w.find('.hs-answer__sources').exists()).toBe(false)
		expect(w.get('.hs-passages-toggle').text()).toBe('Show the 1 passage the answer was written from')
		expect(w.get('#hs-ask-live').text()).toBe('Your files do not seem to contain the answer.')
	})

	const failures = [
		{ name: 'a model that is down', err: new ApiError('The chat model is not reachable right now. Try again later, or tell your administrator.', 503, 'unavailable', 'chat: dial tcp', 'model_unavailable'), retry: true },
		{ name: 'a model that is slow (after the answer started)', err: new ApiError('The chat model took too long to answer. Try again, perhaps with a shorter question.', 200, 'unavailable', '', 'model_timeout'), steps: [['passages', { passages }], ['text', { text: 'The upgrade' }]], retry: true, kept: 'The upgrade' },
		{ name: 'asking turned off meanwhile', err: new ApiError('Asking your files is not available: the administrator has not configured a chat model.', 404, 'not_found', '', 'ask_off'), retry: false },
		{ name: 'a refused question (4xx)', err: new ApiError('The question was not accepted. Ask with 1 to 2000 characters.', 400, 'invalid', '', 'invalid'), retry: false },
	]
	for (const f of failures) {
		it(`shows ${f.name} in words`, async () => {
			const ask = playAsk(f.steps ?? [], { fail: f.err })
			const w = mountApp(fakeClient(ask))
			await toAsk(w)
			await w.get('#hs-question').setValue('When is the upgrade?')
			await w.get('.hs-askbar').trigger('submit')
			await flushPromises()
			const card = w.get('.hs-ask-error')
			expect(card.attributes('role')).toBe('alert')
			expect(card.get('.hs-error__message').text()).toBe(f.err.message)
			expect(card.find('.hs-retry').exists()).toBe(f.retry)
			if (f.kept) {
				expect(w.get('.hs-answer__text').text()).toBe(f.kept)
			}
			expect(w.get('#hs-ask-live').text()).toBe(`The question could not be answered: ${f.err.message}`)
			if (f.retry) {
				await card.get('.hs-retry').trigger('click')
				expect(ask).toHaveBeenCalledTimes(2)
			}
		})
	}

	it('stops a running answer with the button or Escape, keeping what was written', async () => {
		const gate = deferred()
		let signal
		const ask = vi.fn(async (body, o) => {
			signal = o.signal
			o.onEvent('passages', { passages })
			o.onEvent('text', { text: 'The upgrade' })
			await Promise.race([gate.promise, new Promise((res, rej) => o.signal.addEventListener('abort', () => {
				const e = new Error('cancelled')
				e.name = 'AbortError'
				rej(e)
			}))])
			return {}
		})
		const w = mountApp(fakeClient(ask))
		await toAsk(w)
		await w.get('#hs-question').setValue('When is the upgrade?')
		await w.get('.hs-askbar').trigger('submit')
		await flushPromises()
		await w.get('.hs-ask-stop').trigger('click')
		await flushPromises()
		expect(signal.aborted).toBe(true)
		expect(w.get('.hs-answer-stopped').text()).toBe('You stopped the answer.')
		expect(w.get('.hs-answer__text').text()).toBe('The upgrade')
		expect(w.find('.hs-ask-stop').exists()).toBe(false)
		expect(w.find('.hs-ask-error').exists()).toBe(false)
		// Escape in the question field stops too.
		await w.get('.hs-askbar').trigger('submit')
		await flushPromises()
		await w.get('#hs-question').trigger('keydown', { key: 'Escape' })
		await flushPromises()
		expect(signal.aborted).toBe(true)
		expect(w.get('#hs-ask-live').text()).toBe('You stopped the answer.')
	})

	it('starts in the Ask mode with the question from the URL, and goes back to the search', async () => {
		window.history.replaceState(null, '', '/index.php/apps/app_api/embedded/hybrid_search/search#q=When+is+the+upgrade%3F&path=%2FDocuments&mode=ask')
		const ask = playAsk([], { done: { text: '', answered: false, citations: [], passages: [] } })
		const w = mountApp(fakeClient(ask))
		await flushPromises()
		expect(w.get('#hs-question').element.value).toBe('When is the upgrade?')
		expect(ask).not.toHaveBeenCalled() // asking costs the model's time: only on Enter
		expect(w.get('.hs-ask-scope').text()).toContain('/Documents')
		await w.get('.hs-askbar').trigger('submit')
		await flushPromises()
		expect(ask.mock.calls[0][0]).toEqual({ question: 'When is the upgrade?', path_prefix: '/Documents' })
		expect(w.get('.hs-answer-none').text()).toContain('None of your files')
		await w.get('.hs-mode--search input').setValue(true)
		await flushPromises()
		expect(window.location.hash).not.toContain('mode=')
		expect(w.get('#hs-query').element.value).toBe('When is the upgrade?')
	})
})

import { flushPromises, mount } from '@vue/test-utils'
// Connect an assistant: instructions that are true (issue 23). The URL-only
// sign-in comes first, tokens are sent on the same (proxy) URL, the URL is
// the one the server names (pretty URLs), and revoking asks first.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import AssistantView from '../../src/components/AssistantView.vue'
import { mcpURL } from '../../src/lib/env.js'

let wrapper
afterEach(() => {
	wrapper?.unmount()
	document.body.innerHTML = ''
})

function client(tokens = [{ id: 't1', name: 'laptop', created: '2026-01-01T00:00:00Z', expires: '2999-01-01T00:00:00Z' }, { id: 't2', name: 'Claude', client_id: 'c1', created: '2026-01-02T00:00:00Z', expires: '2999-01-01T00:00:00Z' }]) {
	return {
		tokens: vi.fn(async () => tokens),
		issueToken: vi.fn(async (name) => ({ id: 'new', name, token: 'tok-secret' })),
		revokeToken: vi.fn(async () => {}),
	}
}

describe('the MCP URL', () => {
	beforeEach(() => {
		window._oc_webroot = ''
	})
	it('is the one the server names, else the proxy URL on the page’s origin', () => {
		const win = { location: { origin: 'https://cloud.example.org' } }
		expect(mcpURL(win, { mcp_url: 'https://cloud.example.org/apps/app_api/proxy/hybrid_search/mcp' })).toBe('https://cloud.example.org/apps/app_api/proxy/hybrid_search/mcp')
		expect(mcpURL(win, { mcp_url: 'javascript:alert(1)' })).toBe('https://cloud.example.org/index.php/apps/app_api/proxy/hybrid_search/mcp')
		expect(mcpURL(win, {})).toBe('https://cloud.example.org/index.php/apps/app_api/proxy/hybrid_search/mcp')
	})
})

describe('AssistantView', () => {
	beforeEach(() => window.history.replaceState(null, '', '/index.php/apps/app_api/embedded/hybrid_search/search'))

	it('leads with the URL-only sign-in, then tokens on the same URL', async () => {
		const info = { mcp_url: 'https://cloud.example.org/apps/app_api/proxy/hybrid_search/mcp' }
		wrapper = mount(AssistantView, { props: { client: client(), info }, attachTo: document.body })
		await flushPromises()
		expect(wrapper.get('.hs-mcp-url').text()).toBe(info.mcp_url)
		const ways = wrapper.findAll('.hs-as-way').map((h) => h.text())
		expect(ways).toEqual(['The simplest way: the address is all it needs', 'Or with a token'])
		expect(wrapper.text()).not.toContain('not accepted through Nextcloud')
		// The configurations start with the URL alone.
		expect(wrapper.get('[data-config="claude-code"] .hs-config__text').text()).toBe(`claude mcp add --transport http nextcloud-search ${info.mcp_url}`)
		// A new token goes into every configuration, on the same URL.
		await wrapper.get('#hs-token-name').setValue('phone')
		await wrapper.get('.hs-token-form').trigger('submit')
		await flushPromises()
		const cursor = JSON.parse(wrapper.get('[data-config="cursor"] .hs-config__text').text())
		expect(cursor.mcpServers['nextcloud-search']).toEqual({ url: info.mcp_url, headers: { Authorization: 'Bearer tok-secret' } })
		expect(wrapper.findAll('.hs-tokens tbody tr').map((r) => r.findAll('td')[1].text())).toEqual(['token', 'sign-in'])
	})

	it('asks before revoking', async () => {
		const c = client()
		wrapper = mount(AssistantView, { props: { client: c }, attachTo: document.body })
		await flushPromises()
		await wrapper.get('tr[data-token="t1"] .hs-token-revoke').trigger('click')
		await flushPromises()
		expect(c.revokeToken).not.toHaveBeenCalled()
		const dialog = document.querySelector('.hs-revoke-dialog')
		expect(dialog.textContent).toContain('Revoke “laptop”?')
		const cancel = [...dialog.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Cancel')
		cancel.click()
		await flushPromises()
		expect(c.revokeToken).not.toHaveBeenCalled()
		await wrapper.get('tr[data-token="t1"] .hs-token-revoke').trigger('click')
		await flushPromises()
		const revoke = [...document.querySelector('.hs-revoke-dialog').querySelectorAll('button')].find((b) => b.textContent.trim() === 'Revoke')
		revoke.click()
		await flushPromises()
		expect(c.revokeToken).toHaveBeenCalledWith('t1')
	})
})

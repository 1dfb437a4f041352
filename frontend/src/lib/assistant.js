// Client configurations for connecting an AI assistant to the MCP
// endpoint, in each client's documented format.

/** SERVER_NAME is the name the configurations give the server. */
export const SERVER_NAME = 'nextcloud-search'

/**
 * clientConfigs returns the configurations for url with secret sent as a
 * Bearer token: Claude Code (a command), Claude Desktop (through
 * mcp-remote, which adds the header), Cursor and VS Code (JSON files).
 * Without a secret the configurations hold only the URL: the client signs
 * in itself (MCP authorization, OAuth).
 */
export function clientConfigs(url, secret) {
	const json = (v) => JSON.stringify(v, null, 2)
	if (!secret) {
		return [
			{ id: 'claude-code', name: 'Claude Code', where: 'terminal', text: `claude mcp add --transport http ${SERVER_NAME} ${shellQuote(url)}` },
			{ id: 'claude-desktop', name: 'Claude Desktop', where: 'claude_desktop_config.json', text: json({ mcpServers: { [SERVER_NAME]: { command: 'npx', args: ['-y', 'mcp-remote', url] } } }) },
			{ id: 'cursor', name: 'Cursor', where: '~/.cursor/mcp.json', text: json({ mcpServers: { [SERVER_NAME]: { url } } }) },
			{ id: 'vscode', name: 'VS Code', where: '.vscode/mcp.json', text: json({ servers: { [SERVER_NAME]: { type: 'http', url } } }) },
		]
	}
	const auth = `Bearer ${secret}`
	return [
		{
			id: 'claude-code',
			name: 'Claude Code',
			where: 'terminal',
			text: `claude mcp add --transport http ${SERVER_NAME} ${shellQuote(url)} \\\n  --header ${shellQuote(`Authorization: ${auth}`)}`,
		},
		{
			id: 'claude-desktop',
			name: 'Claude Desktop',
			where: 'claude_desktop_config.json',
			text: json({ mcpServers: { [SERVER_NAME]: { command: 'npx', args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH}'], env: { AUTH: auth } } } }),
		},
		{
			id: 'cursor',
			name: 'Cursor',
			where: '~/.cursor/mcp.json',
			text: json({ mcpServers: { [SERVER_NAME]: { url, headers: { Authorization: auth } } } }),
		},
		{
			id: 'vscode',
			name: 'VS Code',
			where: '.vscode/mcp.json',
			text: json({ servers: { [SERVER_NAME]: { type: 'http', url, headers: { Authorization: auth } } } }),
		},
	]
}

/** shellQuote quotes s for a POSIX shell when it needs it. */
export function shellQuote(s) {
	return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${String(s).replace(/'/g, '\'\\\'\'')}'`
}

/** tokenState says whether a token record is active, expired or revoked. */
export function tokenState(tok, now = Date.now()) {
	if (tok?.revoked) {
		return 'revoked'
	}
	const exp = Date.parse(tok?.expires ?? '')
	if (Number.isFinite(exp) && exp <= now) {
		return 'expired'
	}
	return 'active'
}

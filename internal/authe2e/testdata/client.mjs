// The official TypeScript SDK client through the whole MCP authorization
// flow against a connector: 401 -> protected-resource metadata ->
// authorization-server metadata -> dynamic client registration ->
// authorization code with PKCE (login and consent submitted over HTTP, as a
// browser would) -> token; then it calls whoami, and write_entry, whose
// extra scope is answered 403 insufficient_scope, re-authorizes with the
// scope the challenge names, and calls it again. It prints one JSON object
// with what it saw. With ONLY_WHOAMI set, it stops after the first whoami.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const mcpURL = new URL(process.env.MCP_URL);
const user = process.env.LOGIN ?? 'alice';
const redirectUrl = 'http://127.0.0.1:9/callback'; // never reached: the code is read from the redirect

const requests = []; // "METHOD /path STATUS" of every request the SDK made
const loggedFetch = async (input, init) => {
  const res = await fetch(input, init);
  const u = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  requests.push(`${init?.method ?? 'GET'} ${u.pathname} ${res.status}`);
  return res;
};

// A browser's part: cookies, redirects, and the login and consent forms.
const cookies = new Map();
async function browserFetch(url, init = {}) {
  const headers = { ...(init.headers ?? {}) };
  if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  for (const c of res.headers.getSetCookie()) {
    const [pair, ...attrs] = c.split(';');
    const i = pair.indexOf('=');
    const name = pair.slice(0, i).trim();
    const value = pair.slice(i + 1).trim();
    const expired = attrs.some((a) => /expires=thu, 01 jan 1970/i.test(a.trim()));
    if (expired || value === '') cookies.delete(name); else cookies.set(name, value);
  }
  return res;
}

const prompts = []; // the interactions the user went through
async function authorize(authURL) {
  const requested = Object.fromEntries(authURL.searchParams);
  let next = authURL.href;
  for (let i = 0; i < 20; i++) {
    const res = await browserFetch(next);
    if (res.status >= 300 && res.status < 400) {
      const loc = new URL(res.headers.get('location'), next);
      if (loc.href.startsWith(redirectUrl)) {
        const code = loc.searchParams.get('code');
        if (!code) throw new Error(`no code in the redirect: ${loc}`);
        return { code, requested };
      }
      next = loc.href;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`authorization: ${res.status} at ${next}: ${html.slice(0, 300)}`);
    const action = new URL(html.match(/action="([^"]+)"/)[1], next);
    let body;
    if (html.includes('name="pending"')) {
      // The consent page of a connector that is its own authorization
      // server (--auth-upstream): allow, with the form's hidden fields.
      prompts.push('connector-consent');
      const field = (n) => html.match(new RegExp(`name="${n}" value="([^"]*)"`))[1];
      body = new URLSearchParams({ pending: field('pending'), csrf: field('csrf'), action: 'allow' });
    } else if (html.includes('name="prompt" value="login"')) {
      prompts.push('login');
      body = new URLSearchParams({ prompt: 'login', login: user, password: 'any' });
    } else if (html.includes('name="prompt" value="consent"')) {
      prompts.push('consent');
      body = new URLSearchParams({ prompt: 'consent' });
    } else {
      throw new Error(`unexpected page at ${next}: ${html.slice(0, 300)}`);
    }
    const post = await browserFetch(action, {
      method: 'POST',
      body: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (post.status < 300 || post.status >= 400) throw new Error(`submitting ${prompts.at(-1)}: ${post.status} ${await post.text()}`);
    next = new URL(post.headers.get('location'), action).href;
  }
  throw new Error('too many redirects');
}

class AuthProvider {
  constructor() { this.authorizations = []; }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: 'mcpgen OAuth test',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() { return this.client; }
  saveClientInformation(c) { this.client = c; }
  tokens() { return this.tokenSet; }
  saveTokens(t) { this.tokenSet = t; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
  async redirectToAuthorization(url) {
    const a = await authorize(url);
    this.authorizations.push(a.requested);
    this.code = a.code;
  }
}

const out = { requests, prompts };
const provider = new AuthProvider();
// TRANSPORT=sse: the HTTP+SSE transport of 2024-11-05 (MCP_URL ends in /sse).
const sse = process.env.TRANSPORT === 'sse';
const newTransport = () => sse
  ? new SSEClientTransport(mcpURL, { authProvider: provider, fetch: loggedFetch })
  : new StreamableHTTPClientTransport(mcpURL, { authProvider: provider, fetch: loggedFetch });
const text = (res) => (res.content ?? []).map((c) => c.text ?? '').join('');

try {
  let transport = newTransport();
  let client = new Client({ name: 'mcpgen-oauth-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    throw new Error('connected without authorizing');
  } catch (err) {
    if (!(err instanceof UnauthorizedError)) throw err;
  }
  await transport.finishAuth(provider.code);
  transport = newTransport();
  client = new Client({ name: 'mcpgen-oauth-test', version: '1.0.0' });
  await client.connect(transport);
  out.protocolVersion = transport.protocolVersion ?? null;
  out.sessionId = transport.sessionId ?? null;
  out.whoami = text(await client.callTool({ name: 'whoami', arguments: {} }));
  out.scopeBefore = provider.tokenSet?.scope ?? null;
  if (process.env.ONLY_WHOAMI) {
    // The flow and one call, for authorization servers without notes:write.
    out.accessToken = provider.tokenSet?.access_token ?? null;
    await client.close();
    throw new Error('done');
  }

  // A tool needing a scope the token lacks: 403, re-authorize, call again.
  try {
    out.writeFirst = text(await client.callTool({ name: 'write_entry', arguments: { text: 'hello' } }));
  } catch (err) {
    if (sse && !(err instanceof UnauthorizedError)) {
      // The SDK's SSE transport does not step up on 403: it reports it.
      out.refused = String(err?.message ?? err);
      await client.close();
      throw new Error('done');
    }
    if (!(err instanceof UnauthorizedError)) throw err;
    out.stepUp = true;
    await transport.finishAuth(provider.code);
    out.write = text(await client.callTool({ name: 'write_entry', arguments: { text: 'hello' } }));
  }
  out.scopeAfter = provider.tokenSet?.scope ?? null;
  out.accessToken = provider.tokenSet?.access_token ?? null;
  out.sessionAfter = transport.sessionId ?? null;
  out.whoamiAfter = text(await client.callTool({ name: 'whoami', arguments: {} }));
  if (process.env.UPSTREAM_USER) out.upstreamUser = text(await client.callTool({ name: 'upstream_user', arguments: {} }));
  out.authorizations = provider.authorizations;
  out.clientId = provider.client?.client_id ?? null;
  await client.close();
} catch (err) {
  const done = err?.message === 'done' && ((sse && out.refused) || process.env.ONLY_WHOAMI);
  if (!done) out.error = String(err?.stack ?? err);
}
process.stdout.write(JSON.stringify(out) + '\n');

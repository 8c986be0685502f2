// The inspector signing in by OAuth: when /mcp answers 401 with a
// WWW-Authenticate resource_metadata (RFC 9728), the inspector reads the
// protected-resource metadata, then its authorization server's metadata
// (RFC 8414), registers itself as a public client (RFC 7591) with a
// redirect URI on its own origin (CALLBACK_PATH), and sends the browser
// through authorization code with PKCE (S256, by the browser's Web
// Crypto). The callback page exchanges the code; the tokens stay in this
// tab's sessionStorage. An access token the server refuses is refreshed
// once, when a refresh token is held.

// CALLBACK_PATH is the inspector's redirect URI path (the Go server
// serves the app there). It is under /_mcpgen/ so that it never meets the
// authorization server's own /oauth/callback on mcpgen dev's front.
export const CALLBACK_PATH = "/_mcpgen/oauth/callback";

// The access token is kept where the pasted one is (mcp.ts's getToken).
const tokenKey = "mcpgen.inspector.token";
// What refreshing and signing out need: {issuer, tokenEndpoint,
// revocationEndpoint, clientId, resource, refreshToken}.
const sessionKey = "mcpgen.inspector.oauth";
// A sign-in under way, from Sign in until the callback.
const pendingKey = "mcpgen.inspector.oauth.pending";
// A registered client, per authorization server and redirect URI.
const clientPrefix = "mcpgen.inspector.oauth.client:";

interface Session {
  issuer: string;
  tokenEndpoint: string;
  revocationEndpoint?: string;
  clientId: string;
  resource?: string;
  refreshToken?: string;
}

interface Pending extends Session {
  state: string;
  verifier: string;
  redirectUri: string;
  back: string; // the app's URL to return to
}

// Challenge is what the server's last 401 (or 403) said.
export interface Challenge {
  resourceMetadata?: string;
  scope?: string;
  error?: string;
}

let last: Challenge | null = null;

// lastChallenge is the server's last WWW-Authenticate Bearer challenge.
export function lastChallenge(): Challenge | null {
  return last;
}

// noteChallenge records a WWW-Authenticate header's Bearer parameters.
export function noteChallenge(header: string | null) {
  if (!header) return;
  const c: Challenge = {};
  const re = /([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(header))) {
    const v = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3];
    if (m[1] === "resource_metadata") c.resourceMetadata = v;
    if (m[1] === "scope") c.scope = v;
    if (m[1] === "error") c.error = v;
  }
  last = c;
}

function read<T>(key: string): T | null {
  try {
    const s = sessionStorage.getItem(key);
    return s ? (JSON.parse(s) as T) : null;
  } catch {
    return null;
  }
}

function write(key: string, v: unknown) {
  if (v === null) sessionStorage.removeItem(key);
  else sessionStorage.setItem(key, JSON.stringify(v));
}

// signedInByOAuth says whether the token came from an OAuth sign-in.
export function signedInByOAuth(): boolean {
  return read<Session>(sessionKey) !== null;
}

// canRefresh says whether a refresh token is held.
export function canRefresh(): boolean {
  return !!read<Session>(sessionKey)?.refreshToken;
}

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function random(n: number): string {
  return b64url(crypto.getRandomValues(new Uint8Array(n)));
}

async function s256(verifier: string): Promise<string> {
  const sum = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return b64url(new Uint8Array(sum));
}

async function getJSON(url: string): Promise<any | null> {
  try {
    const r = await fetch(url, { headers: { Accept: "application/json" } });
    if (!r.ok) return null;
    return await r.json();
  } catch {
    return null;
  }
}

// wellKnown is RFC 8414's (and RFC 9728's) metadata URL: the well-known
// name inserted between the host and the path.
function wellKnown(base: string, name: string): string {
  const u = new URL(base);
  const path = u.pathname === "/" ? "" : u.pathname.replace(/\/$/, "");
  return `${u.origin}/.well-known/${name}${path}`;
}

// resourceMetadata finds the protected-resource metadata: the one the
// challenge names, else the well-known ones of /mcp.
async function resourceMetadata(): Promise<any> {
  const mcp = new URL("/mcp", location.href).href;
  const tries = [last?.resourceMetadata, wellKnown(mcp, "oauth-protected-resource"), new URL("/.well-known/oauth-protected-resource", location.href).href];
  for (const u of tries) {
    if (!u) continue;
    const m = await getJSON(u);
    if (m && Array.isArray(m.authorization_servers) && m.authorization_servers.length > 0) return m;
  }
  throw new Error(
    "the server's protected-resource metadata (RFC 9728) could not be read from this page's origin" +
      (last?.resourceMetadata ? ` (${last.resourceMetadata})` : "") +
      "; paste a token instead",
  );
}

async function serverMetadata(issuer: string): Promise<any> {
  for (const u of [wellKnown(issuer, "oauth-authorization-server"), wellKnown(issuer, "openid-configuration")]) {
    const m = await getJSON(u);
    if (m && m.authorization_endpoint && m.token_endpoint) {
      if (m.issuer && m.issuer.replace(/\/$/, "") !== issuer.replace(/\/$/, "")) {
        throw new Error(`the authorization server's metadata names issuer ${m.issuer}, not ${issuer}`);
      }
      return m;
    }
  }
  throw new Error(`the authorization server metadata (RFC 8414) of ${issuer} could not be read from this page's origin; paste a token instead`);
}

// register returns the inspector's client ID at the authorization server,
// registering it (RFC 7591) the first time in this tab.
async function register(as: any, issuer: string, redirectUri: string): Promise<string> {
  const key = clientPrefix + issuer + " " + redirectUri;
  const known = read<{ clientId: string }>(key);
  if (known) return known.clientId;
  if (!as.registration_endpoint) {
    throw new Error(
      `the authorization server ${issuer} offers no dynamic client registration (RFC 7591), and the inspector on ` +
        `${location.origin} cannot publish a client ID metadata document it could fetch; paste a token instead`,
    );
  }
  const r = await fetch(as.registration_endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({
      client_name: "mcpgen inspector",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  const body = await r.json().catch(() => ({}));
  if (!r.ok || !body.client_id) {
    throw new Error(`registering the inspector failed (HTTP ${r.status}): ${body.error_description ?? body.error ?? ""}`);
  }
  write(key, { clientId: body.client_id });
  return body.client_id;
}

// signIn sends the browser to the authorization server. It returns only
// when it fails to start.
export async function signIn(scope?: string): Promise<void> {
  const prm = await resourceMetadata();
  const issuer: string = prm.authorization_servers[0];
  const as = await serverMetadata(issuer);
  const methods: string[] | undefined = as.code_challenge_methods_supported;
  if (methods && !methods.includes("S256")) throw new Error(`the authorization server ${issuer} does not support PKCE with S256`);
  const redirectUri = new URL(CALLBACK_PATH, location.href).href;
  const clientId = await register(as, issuer, redirectUri);
  const verifier = random(32);
  const state = random(16);
  const p: Pending = {
    issuer: as.issuer ?? issuer,
    tokenEndpoint: as.token_endpoint,
    revocationEndpoint: as.revocation_endpoint,
    clientId,
    resource: prm.resource,
    state,
    verifier,
    redirectUri,
    back: location.pathname.startsWith(CALLBACK_PATH) ? "/" : location.pathname + location.search,
  };
  write(pendingKey, p);
  const u = new URL(as.authorization_endpoint);
  u.searchParams.set("response_type", "code");
  u.searchParams.set("client_id", clientId);
  u.searchParams.set("redirect_uri", redirectUri);
  u.searchParams.set("state", state);
  u.searchParams.set("code_challenge", await s256(verifier));
  u.searchParams.set("code_challenge_method", "S256");
  if (prm.resource) u.searchParams.set("resource", prm.resource);
  const sc = scope ?? last?.scope;
  if (sc) u.searchParams.set("scope", sc);
  location.assign(u.href);
}

// isCallback says whether this page is the authorization server's answer.
export function isCallback(): boolean {
  return location.pathname === CALLBACK_PATH;
}

// finishSignIn handles the callback: it checks state (and iss when
// given), exchanges the code, keeps the tokens, and returns the app's URL
// to go back to.
export async function finishSignIn(): Promise<string> {
  const q = new URLSearchParams(location.search);
  const p = read<Pending>(pendingKey);
  write(pendingKey, null);
  if (!p) throw new Error("no sign-in was started in this tab (or it was already finished)");
  if (q.get("state") !== p.state) throw new Error("the answer's state is not the one this sign-in sent");
  const iss = q.get("iss");
  if (iss && iss.replace(/\/$/, "") !== p.issuer.replace(/\/$/, "")) throw new Error(`the answer comes from issuer ${iss}, not ${p.issuer}`);
  if (q.get("error")) throw new Error(`the authorization server answered ${q.get("error")}: ${q.get("error_description") ?? ""}`);
  const code = q.get("code");
  if (!code) throw new Error("the answer has no code");
  const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: p.redirectUri, client_id: p.clientId, code_verifier: p.verifier });
  if (p.resource) form.set("resource", p.resource);
  const tok = await tokenRequest(p.tokenEndpoint, form);
  const s: Session = {
    issuer: p.issuer,
    tokenEndpoint: p.tokenEndpoint,
    revocationEndpoint: p.revocationEndpoint,
    clientId: p.clientId,
    resource: p.resource,
    refreshToken: tok.refresh_token,
  };
  write(sessionKey, s);
  sessionStorage.setItem(tokenKey, tok.access_token);
  return p.back || "/";
}

async function tokenRequest(endpoint: string, form: URLSearchParams): Promise<any> {
  const r = await fetch(endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    body: form.toString(),
  });
  const body = await r.json().catch(() => ({}));
  if (!r.ok || !body.access_token) {
    throw new Error(`the token endpoint answered HTTP ${r.status}: ${body.error ?? ""} ${body.error_description ?? ""}`.trim());
  }
  return body;
}

let refreshing: Promise<boolean> | null = null;

// refresh trades the refresh token for new tokens; false when there is
// none or the server refused it (the user signs in again). Concurrent
// callers share one request: the server rotates refresh tokens and takes
// a reused one as stolen.
export function refresh(): Promise<boolean> {
  if (refreshing) return refreshing;
  refreshing = (async () => {
    const s = read<Session>(sessionKey);
    if (!s?.refreshToken) return false;
    const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: s.refreshToken, client_id: s.clientId });
    if (s.resource) form.set("resource", s.resource);
    try {
      const tok = await tokenRequest(s.tokenEndpoint, form);
      write(sessionKey, { ...s, refreshToken: tok.refresh_token ?? s.refreshToken });
      sessionStorage.setItem(tokenKey, tok.access_token);
      return true;
    } catch {
      write(sessionKey, { ...s, refreshToken: undefined });
      return false;
    }
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

// signOut forgets the tokens, revoking the refresh token (RFC 7009) when
// the server offers revocation.
export async function signOut(): Promise<void> {
  const s = read<Session>(sessionKey);
  write(sessionKey, null);
  sessionStorage.removeItem(tokenKey);
  if (s?.refreshToken && s.revocationEndpoint) {
    try {
      await fetch(s.revocationEndpoint, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: s.refreshToken, token_type_hint: "refresh_token", client_id: s.clientId }).toString(),
      });
    } catch {
      // forgotten here either way
    }
  }
}

// An authorization server for mcpgen's OAuth tests: oidc-provider (a
// certified OpenID provider) on 127.0.0.1, with dynamic client registration,
// PKCE and resource indicators, issuing JWT access tokens (ES256) whose
// audience is the resource the client asked for. Login and consent are
// oidc-provider's development interactions, which the test drives over
// HTTP. A few /test/ endpoints let the Go test rotate the signing key, mint
// tokens with chosen claims (expired, another audience, another issuer, an
// unpublished key), and have a resource get opaque tokens, which connectors
// check at the introspection endpoint with the static client
// mcpgen-connector / connector-secret. It prints {"issuer": URL} on stdout and exits when
// stdin closes.
import http from 'node:http';
import crypto from 'node:crypto';
import Provider from 'oidc-provider';

const SCOPES = 'notes:read notes:write';

function newKey(kid) {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
}

let generation = 1;
let keys = [newKey('k1')];
const stranger = newKey('stranger'); // never published
const opaque = new Set(); // resources that get opaque tokens (checked by introspection)

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

function makeProvider() {
  const p = new Provider(issuer, {
    jwks: { keys },
    scopes: ['openid', 'offline_access', ...SCOPES.split(' ')],
    clients: [{
      // The connector's own credentials, for introspection.
      client_id: 'mcpgen-connector', client_secret: 'connector-secret',
      grant_types: [], response_types: [], redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    features: {
      devInteractions: { enabled: true },
      introspection: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (ctx, client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource) => {
          if (!resource.startsWith('http://127.0.0.1:') && !resource.startsWith('http://localhost:')) {
            throw new Error('unknown resource ' + resource);
          }
          return {
            scope: SCOPES,
            audience: resource,
            accessTokenTTL: 600,
            accessTokenFormat: opaque.has(resource) ? 'opaque' : 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    clientDefaults: {
      grant_types: ['authorization_code'], response_types: ['code'],
      token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256',
    },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 600 },
    cookies: { keys: ['mcpgen-test-cookie-key'] },
  });
  p.proxy = false;
  return p;
}

let provider = makeProvider();
let callback = provider.callback();

function json(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function mint(q) {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: q.get('iss') ?? issuer,
    sub: q.get('sub') ?? 'alice',
    aud: q.get('aud'),
    scope: q.get('scope') ?? 'notes:read',
    iat: now,
    exp: now + Number(q.get('exp') ?? 600),
    client_id: 'minted',
  };
  const jwk = q.get('key') === 'stranger' ? stranger : keys[0];
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b64({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })}.${b64(claims)}`;
  const key = crypto.createPrivateKey({ key: jwk, format: 'jwk' });
  const sig = crypto.sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${sig.toString('base64url')}`;
}

server.on('request', async (req, res) => {
  const url = new URL(req.url, issuer);
  try {
    if (url.pathname === '/test/rotate' && req.method === 'POST') {
      // A new signing key first; the old one stays published a while, as
      // providers do, so tokens already issued keep verifying.
      generation += 1;
      keys = [newKey(`k${generation}`), keys[0]];
      provider = makeProvider();
      callback = provider.callback();
      return json(res, 200, { kid: keys[0].kid });
    }
    if (url.pathname === '/test/opaque' && req.method === 'POST') {
      opaque.add(url.searchParams.get('resource'));
      return json(res, 200, {});
    }
    if (url.pathname === '/test/mint') {
      return json(res, 200, { token: await mint(url.searchParams) });
    }
    if (url.pathname === '/reg' && req.method === 'POST') {
      // Like most hosted providers, this one does not limit a client to the
      // scopes it registered with (oidc-provider would): MCP clients
      // register with the scopes of the first challenge and step up later.
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      delete body.scope;
      req.body = body;
    }
  } catch (err) {
    return json(res, 500, { error: String(err) });
  }
  return callback(req, res);
});

process.stdout.write(JSON.stringify({ issuer }) + '\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));

// An upstream identity provider for mcpgen's --auth-upstream tests:
// oidc-provider (a certified OpenID provider) on 127.0.0.1 configured as
// the providers teams sign in with are: no registration endpoint, one
// static client (the connector's, mcpgen-connector / connector-secret,
// whose redirect URI is argv[2]), PKCE required, ES256 ID tokens. Login and
// consent are oidc-provider's development interactions, which the test
// drives over HTTP (any login name is accepted and becomes the subject).
// It prints {"issuer": URL} on stdout, and exits when stdin closes or its
// parent process is gone.
import http from 'node:http';
import crypto from 'node:crypto';
import Provider from 'oidc-provider';

const callback = process.argv[2];
if (!callback) {
  process.stderr.write('usage: node upstream.mjs CONNECTOR_CALLBACK_URL\n');
  process.exit(2);
}

const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const key = { ...privateKey.export({ format: 'jwk' }), kid: 'up1', alg: 'ES256', use: 'sig' };

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: { keys: [key] },
  scopes: ['openid', 'offline_access'],
  clients: [{
    client_id: 'mcpgen-connector', client_secret: 'connector-secret',
    redirect_uris: [callback], grant_types: ['authorization_code'], response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'ES256',
  }],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: false },
  },
  pkce: { required: () => true },
  ttl: { Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60, AccessToken: 600, IdToken: 600 },
  cookies: { keys: ['mcpgen-upstream-cookie-key'] },
});
provider.proxy = false;
server.on('request', provider.callback());

process.stdout.write(JSON.stringify({ issuer }) + '\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
// A parent killed without closing our stdin (SIGKILL, a crashed test)
// still ends us: poll whether it is there.
const parent = process.ppid;
setInterval(() => {
  try { process.kill(parent, 0); } catch { process.exit(0); }
  if (process.ppid !== parent) process.exit(0);
}, 500).unref();

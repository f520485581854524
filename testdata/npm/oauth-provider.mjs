// A real OAuth 2.1 / OpenID authorization server for weft's OAuth tests:
// oidc-provider (a certified OpenID provider) on a loopback port, with
// dynamic client registration, PKCE, resource indicators (JWT access tokens
// for the MCP server named on the command line), refresh tokens and token
// revocation. The login and consent screens accept at once, as user
// "alice", so that a test's "browser" only has to follow redirects.
//
// usage: node oauth-provider.mjs RESOURCE_URL[,RESOURCE_URL…] [ACCESS_TOKEN_TTL_SECONDS]
// It prints "issuer=URL" on stdout once it listens.
import http from 'node:http';
import Provider from 'oidc-provider';

const resources = (process.argv[2] || '').split(',').filter(Boolean);
const resource = resources[0];
const accessTTL = Number(process.argv[3] || 300);
if (!resource) {
  console.error('usage: oauth-provider.mjs RESOURCE_URL [ACCESS_TOKEN_TTL_SECONDS]');
  process.exit(2);
}

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  scopes: ['openid', 'offline_access', 'mcp:tools'],
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (!resources.includes(indicator)) throw new Error(`unknown resource ${indicator}`);
        return { scope: 'mcp:tools', audience: resource, accessTokenTTL: accessTTL, accessTokenFormat: 'jwt' };
      },
    },
  },
  pkce: { required: () => true },
  // A refresh token for every client allowed the refresh_token grant, not
  // only with offline_access and a consent prompt.
  issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: async (ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  ttl: { RefreshToken: 3600, AccessToken: accessTTL },
});

// consent grants whatever the prompt says is missing.
async function consent(details) {
  const { prompt, params, session } = details;
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const d = prompt.details;
  if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
  if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(d.missingResourceScopes || {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return { consent: { grantId: await grant.save() } };
}

const callback = provider.callback();
server.on('request', async (req, res) => {
  if (!req.url.startsWith('/interaction/')) return callback(req, res);
  try {
    const details = await provider.interactionDetails(req, res);
    const result = details.prompt.name === 'login' ? { login: { accountId: 'alice' } } : await consent(details);
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err));
  }
});
provider.on('server_error', (ctx, err) => console.error('server_error', err));

console.log(`issuer=${issuer}`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));

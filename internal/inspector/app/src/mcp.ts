// The inspector's MCP client: the official TypeScript SDK client over
// Streamable HTTP to the server's /mcp on the inspector's own origin, its
// traffic recorded in the protocol log.

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as oauth from "./oauth";
import { tap } from "./protocol";

export interface Lists {
  tools: any[];
  resources: any[];
  templates: any[];
  prompts: any[];
}

// Elicit asks the user what the server's elicitation/create asks.
export type Elicit = (params: any) => Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> }>;

// Sample answers the server's sampling/createMessage: the user plays the model.
export type Sample = (params: any) => Promise<any>;

export async function connect(
  onListChanged: (what: string) => void,
  onUpdated: (uri: string) => void,
  elicit: Elicit,
  sample: Sample,
): Promise<Client> {
  const client = new Client(
    { name: "mcpgen-inspector", version: "1.0.0" },
    {
      capabilities: {
        elicitation: { form: {} },
        sampling: {},
        extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
      } as any,
    },
  );
  client.setRequestHandler("elicitation/create", async (req: any) => (await elicit(req.params)) as any);
  client.setRequestHandler("sampling/createMessage", async (req: any) => (await sample(req.params)) as any);
  // Notifications are observed on the transport, not through the client's
  // handlers: AppBridge takes those over to forward them to the view.
  // A bearer token (pasted, or from an OAuth sign-in: oauth.ts) goes with
  // every request. On a 401 the challenge is noted (its resource_metadata
  // is where an OAuth sign-in starts), a refresh token is used when held
  // (the transport then retries once), and otherwise the error is an
  // UnauthorizedError, which the app turns into its sign-in panel.
  const authProvider = {
    token: async () => getToken() || undefined,
    onUnauthorized: async (ctx: { response: Response }) => {
      oauth.noteChallenge(ctx.response.headers.get("WWW-Authenticate"));
      if (await oauth.refresh()) return;
      const err = new Error("Unauthorized (401): " + (ctx.response.headers.get("WWW-Authenticate") ?? "no token"));
      err.name = "UnauthorizedError";
      throw err;
    },
  };
  const transport = tap(new StreamableHTTPClientTransport(new URL("/mcp", location.href), { authProvider }), "server", (m) => {
    switch (m?.method) {
      case "notifications/tools/list_changed":
        return onListChanged("tools");
      case "notifications/resources/list_changed":
        return onListChanged("resources");
      case "notifications/prompts/list_changed":
        return onListChanged("prompts");
      case "notifications/resources/updated":
        return onUpdated(m.params?.uri ?? "");
    }
  });
  await client.connect(transport);
  return client;
}

// listAll pages through each list the server offers.
export async function listAll(client: Client): Promise<Lists> {
  const caps: any = client.getServerCapabilities() ?? {};
  const pages = async (fn: (cursor?: string) => Promise<any>, key: string) => {
    const out: any[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 100; i++) {
      const r = await fn(cursor);
      out.push(...(r[key] ?? []));
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return out;
  };
  const [tools, resources, templates, prompts] = await Promise.all([
    caps.tools ? pages((cursor) => client.listTools({ cursor }), "tools") : [],
    caps.resources ? pages((cursor) => client.listResources({ cursor }), "resources") : [],
    caps.resources ? pages((cursor) => client.listResourceTemplates({ cursor }), "resourceTemplates") : [],
    caps.prompts ? pages((cursor) => client.listPrompts({ cursor }), "prompts") : [],
  ]);
  return { tools, resources, templates, prompts };
}

// viewURI is the ui:// resource a tool's view is linked by, if any.
export function viewURI(tool: any): string | undefined {
  const meta = tool?._meta ?? {};
  return meta.ui?.resourceUri ?? meta["ui/resourceUri"] ?? meta["openai/outputTemplate"];
}

// tokenKey is where the bearer token the user pasted is kept: this tab's
// sessionStorage, so it is sent by no other tab and gone when the tab closes.
const tokenKey = "mcpgen.inspector.token";

export function getToken(): string {
  try {
    return sessionStorage.getItem(tokenKey) ?? "";
  } catch {
    return "";
  }
}

// setToken keeps token for this tab; an empty one signs out.
export function setToken(token: string) {
  if (token) sessionStorage.setItem(tokenKey, token);
  else sessionStorage.removeItem(tokenKey);
}

// AuthProblem is why the server refused a request: no or a bad token (401),
// or a token without a scope the request needs (403).
export type AuthProblem = "" | "unauthorized" | "forbidden";

// authProblem tells an authorization refusal from other errors.
export function authProblem(e: unknown): AuthProblem {
  const err = e as any;
  const status = err?.status ?? err?.code ?? err?.data?.status;
  const msg = String(err?.message ?? e);
  if (err?.name === "UnauthorizedError" || status === 401 || /\b401\b|unauthorized/i.test(msg)) return "unauthorized";
  if (status === 403 || /\b403\b|forbidden|insufficient[_ ]scope/i.test(msg)) return "forbidden";
  return "";
}

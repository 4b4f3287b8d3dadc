/**
 * The small part of oidc-provider 9 (which ships no type declarations) that the test harness uses.
 * See node_modules/oidc-provider/lib/provider.js and lib/actions/interaction.js.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    redirect_uris: string[];
    grant_types?: string[];
    response_types?: string[];
    token_endpoint_auth_method?: string;
    [key: string]: unknown;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: unknown, rejected: string[]): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export interface Interaction {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id: string };
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface Configuration {
    clients?: ClientMetadata[];
    clientAuthMethods?: string[];
    claims?: Record<string, string[] | null>;
    scopes?: string[];
    conformIdTokenClaims?: boolean;
    pkce?: { required?: (ctx: unknown, client: unknown) => boolean };
    features?: Record<string, { enabled: boolean } & Record<string, unknown>>;
    interactions?: { url?: (ctx: unknown, interaction: Interaction) => string };
    findAccount?: (ctx: unknown, id: string, token?: unknown) => Account | undefined | Promise<Account | undefined>;
    cookies?: { keys?: string[]; [key: string]: unknown };
    jwks?: { keys: Record<string, unknown>[] };
    [key: string]: unknown;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    Grant: {
      new (properties: { accountId: string; clientId: string }): GrantInstance;
      find(id: string): Promise<GrantInstance | undefined>;
    };
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  export default Provider;
}

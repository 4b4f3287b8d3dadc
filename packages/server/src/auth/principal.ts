/** Who is making a request, once their credential has been checked. */
import type { AuthMethod, Role } from '../db/repositories/users-repository.js';

export interface AuthUser {
  id: number;
  email: string;
  username: string;
  role: Role;
  authMethod: AuthMethod;
  passwordNeedsReset: boolean;
}

export type Principal =
  /** Auth is off: everyone is anonymous and data routes are open. */
  | { kind: 'anonymous' }
  /** A system API key: reads and writes project data, administers nothing. */
  | { kind: 'system'; apiKeyId: number }
  /** A user through a browser session (cookie or access token as bearer). */
  | { kind: 'user'; user: AuthUser; via: 'session'; sessionId: string }
  /** A user through one of their user API keys. */
  | { kind: 'user'; user: AuthUser; via: 'api-key'; apiKeyId: number };

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;

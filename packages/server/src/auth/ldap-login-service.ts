/**
 * LDAP login (POST /auth/ldap/login, docs/ldap.md): the directory checks the password, then the
 * user is found or created as Phoenix 20.3 does (get_or_create_ldap_user) and a session opens
 * exactly as for a password login. Every refusal is the same 401 sentence; attempts count under
 * the login guess limit, keyed by the lower-cased username.
 */
import { randomBytes } from 'node:crypto';
import type { LdapConfig } from '../config.js';
import { isUniqueViolation } from '../db/errors.js';
import type { UserRecord, UsersRepository } from '../db/repositories/users-repository.js';
import { UnauthenticatedError, UnavailableError } from '@sightline/common';
import { normalizeEmail } from './emails.js';
import { LdapUnavailableError, type LdapDirectory, type LdapIdentity } from './ldap-directory.js';
import type { IssuedTokens, LoginSessionsService } from './login-sessions-service.js';

export const LDAP_LOGIN_FAILED = 'Invalid username and/or password';
const RETRY_AFTER_SECONDS = 30;

interface Dependencies {
  config: Pick<LdapConfig, 'allowSignUp'>;
  directory: LdapDirectory;
  users: UsersRepository;
  sessions: LoginSessionsService;
  /** Refusals an operator must see (account conflicts); never with a password. */
  onError?: (error: unknown, context: string) => void;
}

export type LdapLoginService = ReturnType<typeof createLdapLoginService>;

export function createLdapLoginService({ config, directory, users, sessions, onError }: Dependencies) {
  const refused = () => new UnauthenticatedError(LDAP_LOGIN_FAILED);
  const conflict = (message: string) => {
    onError?.(new Error(message), 'LDAP login');
    return refused();
  };

  /** A username for a new user: the display name, with a short random suffix when taken. */
  const usernameFor = async (displayName: string): Promise<string> => {
    const base = displayName.trim().slice(0, 80) || 'user';
    if (!(await users.findByUsername(base))) return base;
    for (let attempt = 0; attempt < 5; attempt++) {
      const candidate = `${base} (${randomBytes(3).toString('hex')})`;
      if (!(await users.findByUsername(candidate))) return candidate;
    }
    throw conflict('could not choose a username for a new LDAP user');
  };

  /** The LDAP user this identity belongs to, if any (Phoenix's lookup: unique id first, then email). */
  const existingUser = async (identity: LdapIdentity, email: string): Promise<UserRecord | undefined> => {
    if (identity.uniqueId !== null) {
      const known = await users.findByLdapUniqueId(identity.uniqueId);
      if (known) return known;
    }
    const holder = await users.findByEmail(email);
    if (holder?.authMethod !== 'LDAP') return undefined;
    // An email recycled to another person (another unique id) never takes over the old account.
    if (identity.uniqueId !== null && holder.ldapUniqueId !== null && holder.ldapUniqueId !== identity.uniqueId) {
      throw conflict(`LDAP account conflict: user ${holder.id} has another unique id; an admin must resolve it`);
    }
    return holder;
  };

  const userFor = async (identity: LdapIdentity, now: Date): Promise<{ user: UserRecord; roleChanged: boolean }> => {
    const email = normalizeEmail(identity.email);
    const found = await existingUser(identity, email);
    if (found) {
      if (found.deletedAt !== null) throw refused();
      let role = identity.role;
      // No change may leave the server without an active admin (docs/auth.md): the last one stays admin.
      if (found.role === 'admin' && role !== 'admin' && (await users.countActiveAdmins()) <= 1) {
        onError?.(new Error(`LDAP login: user ${found.id} is the last active admin and keeps the role`), 'LDAP login');
        role = 'admin';
      }
      const changes = {
        ...(found.email !== email && { email }),
        ...(found.role !== role && { role }),
        ...(identity.uniqueId !== null && found.ldapUniqueId === null && { ldapUniqueId: identity.uniqueId }),
      };
      if (Object.keys(changes).length === 0) return { user: found, roleChanged: false };
      const synced = await users.syncLdapUser(found.id, changes, now.toISOString()).catch((error: unknown) => {
        if (isUniqueViolation(error)) throw conflict(`LDAP login: the directory's email of user ${found.id} belongs to another account`);
        throw error;
      });
      if (!synced) throw refused();
      return { user: synced, roleChanged: found.role !== synced.role };
    }
    if (!config.allowSignUp) throw refused();
    if (await users.findByEmail(email)) throw conflict('LDAP login: the email belongs to a user with another sign-in method');
    try {
      const user = await users.insert(
        {
          email,
          username: await usernameFor(identity.displayName),
          role: identity.role,
          authMethod: 'LDAP',
          ldapUniqueId: identity.uniqueId,
        },
        now.toISOString(),
      );
      return { user, roleChanged: false };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // The same person's parallel login created the account a moment ago.
      const created = await existingUser(identity, email);
      if (created && created.deletedAt === null) return { user: created, roleChanged: false };
      throw conflict('LDAP login: the email or username was taken meanwhile');
    }
  };

  return {
    /** Opens a session for a directory user, or throws 401 (one sentence for every refusal), 429 or 503. */
    async login(rawUsername: unknown, rawPassword: unknown, now = new Date()): Promise<IssuedTokens> {
      const username = typeof rawUsername === 'string' ? rawUsername : '';
      const password = typeof rawPassword === 'string' ? rawPassword : '';
      if (username.trim() === '' || password === '') throw new UnauthenticatedError('Username and password required');
      const key = `ldap:${username.trim().toLowerCase()}`;
      await sessions.admitLoginAttempt(key, now);
      let identity: LdapIdentity | null;
      try {
        identity = await directory.authenticate(username, password);
      } catch (error) {
        if (error instanceof LdapUnavailableError) {
          throw new UnavailableError('the LDAP directory cannot be reached right now; try again later', RETRY_AFTER_SECONDS);
        }
        throw error;
      }
      if (identity === null) throw refused();
      const { user, roleChanged } = await userFor(identity, now);
      await sessions.forgetLoginAttempts(key);
      // A role the directory changed applies to every session at once, as an admin's change does.
      if (roleChanged) await sessions.revokeAll(user.id, now);
      return sessions.openSession(user.id, now);
    },
  };
}

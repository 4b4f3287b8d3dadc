/** Users: the default admin, the viewer's own profile, and admin management, with the spec's rules. */
import { isUniqueViolation } from '../db/errors.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { AuthMethod, Role, UserRecord, UsersRepository } from '../db/repositories/users-repository.js';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '@sightline/common';
import type { Authenticator } from './authenticator.js';
import { isPlausibleEmail, normalizeEmail } from './emails.js';
import { hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import { mayChangeRoleOf, mayDeleteUser, mayReadUser, mayRenameDuringPasswordReset } from './policies.js';
import type { UserPrincipal } from './principal.js';
import type { LoginSessionsService } from './login-sessions-service.js';

export const DEFAULT_ADMIN_EMAIL = 'admin@localhost';
export const DEFAULT_ADMIN_USERNAME = 'admin';

export interface NewUserInput {
  email: string;
  username: string;
  role: string;
  authMethod: string;
  password?: string;
}

export interface UserUpdateInput {
  username?: string;
  password?: string;
  role?: string;
  email?: unknown;
}

interface Dependencies {
  users: UsersRepository;
  withTransaction: WithTransaction;
  sessions: LoginSessionsService;
  authenticator: Authenticator;
}

const invalid = (message: string) => new InvalidInputError(message);

/** Parses a role written in any case. */
export function parseRole(value: string): Role {
  const role = value.trim().toLowerCase();
  if (role !== 'admin' && role !== 'member') throw invalid('role must be "admin" or "member"');
  return role;
}

function parseAuthMethod(value: string): AuthMethod {
  const method = value.trim().toUpperCase();
  if (method !== 'LOCAL' && method !== 'OAUTH2' && method !== 'LDAP') throw invalid('auth_method must be "LOCAL", "OAUTH2" or "LDAP"');
  return method;
}

function parseUsername(value: string): string {
  const username = value.trim();
  if (username === '' || username.length > 100) throw invalid('username must be 1 to 100 characters');
  return username;
}

async function hashedPassword(password: string) {
  const problem = passwordProblem(password);
  if (problem) throw invalid(problem);
  return hashPassword(password);
}

/** 409 unless another active admin remains besides `user` (call after users.lockActiveAdmins, in the same transaction). */
async function assertNotLastAdmin(users: UsersRepository, user: UserRecord): Promise<void> {
  if (user.role === 'admin' && (await users.countActiveAdmins()) <= 1) {
    throw new ConflictError('the server must keep at least one active admin');
  }
}

export type UsersService = ReturnType<typeof createUsersService>;

/** The users service. */
export function createUsersService({ users, withTransaction, sessions, authenticator }: Dependencies) {
  const now = () => new Date().toISOString();

  const conflictFor = async (email: string, username: string): Promise<ConflictError | null> => {
    if (await users.findByEmail(email)) return new ConflictError(`the email ${email} is already in use (or belonged to a deleted user)`);
    if (await users.findByUsername(username))
      return new ConflictError(`the username ${username} is already in use (or belonged to a deleted user)`);
    return null;
  };

  const requireActive = async (id: number): Promise<UserRecord> => {
    const user = await users.findActiveById(id);
    if (!user) throw new NotFoundError('user not found');
    return user;
  };

  /** Writes changes, turning a username clash into 409. */
  const applyChanges = async (
    user: UserRecord,
    changes: { username?: string; role?: Role; password?: { hash: string; salt: string }; passwordNeedsReset?: boolean },
    repository: UsersRepository = users,
  ): Promise<UserRecord> => {
    if (changes.username !== undefined && changes.username !== user.username) {
      if (await repository.findByUsername(changes.username))
        throw new ConflictError(`the username ${changes.username} is already in use (or belonged to a deleted user)`);
    }
    try {
      const updated = await repository.update(
        user.id,
        {
          username: changes.username,
          role: changes.role,
          passwordHash: changes.password?.hash,
          passwordSalt: changes.password?.salt,
          passwordNeedsReset: changes.passwordNeedsReset,
        },
        now(),
      );
      if (!updated) throw new NotFoundError('user not found');
      authenticator.invalidate();
      return updated;
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('the username is already in use');
      throw error;
    }
  };

  return {
    /** Creates admin@localhost on the first start with auth on (no user exists yet). */
    async ensureDefaultAdmin(initialPassword: string): Promise<void> {
      if (!(await users.isEmpty())) return;
      const { hash, salt } = await hashPassword(initialPassword);
      try {
        await users.insert(
          {
            email: DEFAULT_ADMIN_EMAIL,
            username: DEFAULT_ADMIN_USERNAME,
            role: 'admin',
            authMethod: 'LOCAL',
            passwordHash: hash,
            passwordSalt: salt,
            passwordNeedsReset: true,
          },
          now(),
        );
      } catch (error) {
        if (!isUniqueViolation(error)) throw error; // another replica created it first
      }
    },

    get: requireActive,

    /** Reads a user: admins read anyone, members only themselves. */
    async read(actor: UserPrincipal, id: number): Promise<UserRecord> {
      if (!mayReadUser(actor, id)) throw new ForbiddenError("only admins can read other users' information");
      return requireActive(id);
    },

    list: (limit: number, beforeId?: number) => users.listActive(limit, beforeId),

    /** Creates a user (admin). A local user given a password must change it at first login. */
    async create(input: NewUserInput): Promise<UserRecord> {
      const email = normalizeEmail(input.email);
      if (!isPlausibleEmail(email)) throw invalid('email must be an address such as name@example.com');
      const username = parseUsername(input.username);
      const role = parseRole(input.role);
      const authMethod = parseAuthMethod(input.authMethod);
      if (authMethod !== 'LOCAL' && input.password !== undefined) throw invalid(`an ${authMethod} user has no password`);
      const password = input.password !== undefined ? await hashedPassword(input.password) : undefined;
      const conflict = await conflictFor(email, username);
      if (conflict) throw conflict;
      try {
        return await users.insert(
          {
            email,
            username,
            role,
            authMethod,
            passwordHash: password?.hash ?? null,
            passwordSalt: password?.salt ?? null,
            passwordNeedsReset: password !== undefined,
          },
          now(),
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError('the email or username is already in use');
        throw error;
      }
    },

    /** The viewer changes their own username, or their password given the current one. */
    async updateSelf(actor: UserPrincipal, input: { username?: string; password?: string; currentPassword?: string }): Promise<UserRecord> {
      const user = await requireActive(actor.user.id);
      if (input.username !== undefined && !mayRenameDuringPasswordReset(actor, user.passwordNeedsReset)) {
        throw new ForbiddenError('password change required');
      }
      if (input.password !== undefined) {
        if (user.authMethod !== 'LOCAL') throw invalid('users who sign in through an identity provider have no password here');
        if (input.currentPassword === undefined) throw invalid('current_password is required to change the password');
        await sessions.admitPasswordGuess(user.email);
        const matches =
          user.passwordHash && user.passwordSalt
            ? await verifyPassword(input.currentPassword, { hash: user.passwordHash, salt: user.passwordSalt })
            : false;
        if (!matches) throw new ForbiddenError('current password is incorrect');
        await sessions.forgetPasswordGuesses(user.email);
      }
      const username = input.username !== undefined ? parseUsername(input.username) : undefined;
      const password = input.password !== undefined ? await hashedPassword(input.password) : undefined;
      const updated = await applyChanges(user, { username, password, passwordNeedsReset: password ? false : undefined });
      if (password) await sessions.revokeAll(user.id);
      return updated;
    },

    /** An admin changes another user's (or their own) username, password or role. */
    async update(actor: UserPrincipal, id: number, input: UserUpdateInput): Promise<UserRecord> {
      if (input.email !== undefined) throw invalid('email cannot be changed');
      const user = await requireActive(id);
      const role = input.role !== undefined ? parseRole(input.role) : undefined;
      const roleChanges = role !== undefined && role !== user.role;
      if (roleChanges && !mayChangeRoleOf(actor, user.id)) throw new ConflictError('you cannot change your own role');
      if (input.password !== undefined && user.authMethod !== 'LOCAL')
        throw invalid('users who sign in through an identity provider have no password here');
      const username = input.username !== undefined ? parseUsername(input.username) : undefined;
      const password = input.password !== undefined ? await hashedPassword(input.password) : undefined;
      const changes = {
        username,
        role,
        password,
        // A password set by an admin is a temporary one; the owner must choose their own.
        passwordNeedsReset: password ? user.id !== actor.user.id : undefined,
      };
      const updated =
        roleChanges && user.role === 'admin'
          ? // A demotion: check and write under the admins' lock (see lockActiveAdmins).
            await withTransaction(async (trx) => {
              await trx.users.lockActiveAdmins();
              const current = await trx.users.findActiveById(id);
              if (!current) throw new NotFoundError('user not found');
              await assertNotLastAdmin(trx.users, current);
              return applyChanges(current, changes, trx.users);
            })
          : await applyChanges(user, changes);
      if (password || roleChanges) await sessions.revokeAll(user.id);
      return updated;
    },

    /** Deletes a user for good: sessions and user keys die at once; email and username stay reserved. */
    async delete(actor: UserPrincipal, id: number): Promise<void> {
      if (!mayDeleteUser(actor, id)) throw new ConflictError('you cannot delete yourself');
      await withTransaction(async (trx) => {
        await trx.users.lockActiveAdmins();
        const user = await trx.users.findActiveById(id);
        if (!user) throw new NotFoundError('user not found');
        await assertNotLastAdmin(trx.users, user);
        const stamp = now();
        await trx.users.markDeleted(id, stamp);
        await trx.apiKeys.deleteForUser(id);
        await trx.loginSessions.revokeUserSessions(id, stamp);
      });
      authenticator.invalidate();
    },

    /** Sets a new password from the host (CLI); the user must change it at next login. */
    async resetPasswordByEmail(rawEmail: string, password: string): Promise<UserRecord> {
      const user = await users.findByEmail(normalizeEmail(rawEmail));
      if (!user || user.deletedAt !== null) throw new NotFoundError(`no active user has the email ${normalizeEmail(rawEmail)}`);
      if (user.authMethod !== 'LOCAL') throw invalid('this user signs in through an identity provider and has no password here');
      const hashed = await hashedPassword(password);
      const updated = await applyChanges(user, { password: hashed, passwordNeedsReset: true });
      await sessions.revokeAll(user.id);
      return updated;
    },
  };
}

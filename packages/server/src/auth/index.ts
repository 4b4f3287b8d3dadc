/** Composition of the auth layer: repositories → authenticator → services. */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { createDataAccess } from '../db/repositories/index.js';
import { createApiKeysService, type ApiKeysService } from './api-keys-service.js';
import { createAuthenticator, type Authenticator } from './authenticator.js';
import { createJwtCodec } from './jwt.js';
import { createLoginSessionsService, type LoginSessionsService } from './login-sessions-service.js';
import { createUsersService, type UsersService } from './users-service.js';
import { createMailer } from './mailer.js';
import { createOidcService, type OidcService } from './oidc-service.js';
import { createLdapDirectory } from './ldap-directory.js';
import { createLdapLoginService, type LdapLoginService } from './ldap-login-service.js';
import { createPasswordResetService, type PasswordResetService } from './password-reset-service.js';

export interface AuthLayer {
  authenticator: Authenticator;
  loginSessions: LoginSessionsService;
  users: UsersService;
  apiKeys: ApiKeysService;
  passwordResets: PasswordResetService;
  oidc: OidcService;
  /** null unless SERVICE_LDAP_HOST is set. */
  ldapLogin: LdapLoginService | null;
}

/** Where the auth layer reports failures that do not reach a response (mail delivery, IDP errors, bookkeeping). */
export type AuthErrorReporter = (error: unknown, context: string) => void;

/** Builds the auth layer over the database; with auth off it exists but every route using it is refused. */
export function createAuthLayer(config: Config, database: Database, report?: AuthErrorReporter): AuthLayer {
  const onError = (context: string) => (error: unknown) => report?.(error, context);
  const { repositories, withTransaction } = createDataAccess(database);
  const usersRepository = repositories.users;
  const apiKeysRepository = repositories.apiKeys;
  const sessionsRepository = repositories.loginSessions;
  // With auth off no token is ever issued, so an unguessable throwaway key is as good as none.
  const jwt = createJwtCodec(config.secret ?? randomBytes(48).toString('base64'));
  const authenticator = createAuthenticator({
    users: usersRepository,
    apiKeys: apiKeysRepository,
    sessions: sessionsRepository,
    jwt,
    onError: onError('recording API key use'),
  });
  const loginSessions = createLoginSessionsService({
    config,
    users: usersRepository,
    sessions: sessionsRepository,
    loginFailures: repositories.loginFailures,
    withTransaction,
    jwt,
    authenticator,
  });
  return {
    authenticator,
    loginSessions,
    passwordResets: createPasswordResetService({
      config,
      users: usersRepository,
      resets: repositories.passwordResets,
      sessions: loginSessions,
      mailer: config.smtp ? createMailer(config.smtp) : null,
      onError: onError('sending a password reset mail'),
    }),
    oidc: createOidcService({
      config,
      users: usersRepository,
      onError: (error, idp) => report?.(error, `OpenID Connect login through ${idp}`),
    }),
    ldapLogin: config.ldap
      ? createLdapLoginService({
          config: config.ldap,
          directory: createLdapDirectory({ config: config.ldap, onError: (error, context) => report?.(error, context) }),
          users: usersRepository,
          sessions: loginSessions,
          onError: (error, context) => report?.(error, context),
        })
      : null,
    users: createUsersService({ users: usersRepository, withTransaction, sessions: loginSessions, authenticator }),
    apiKeys: createApiKeysService({ apiKeys: apiKeysRepository, authenticator }),
  };
}

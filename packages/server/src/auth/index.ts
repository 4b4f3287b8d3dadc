/** Composition of the auth layer: repositories → authenticator → services. */
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { createApiKeysRepository } from '../db/repositories/api-keys-repository.js';
import { createLoginFailuresRepository } from '../db/repositories/login-failures-repository.js';
import { createSessionsRepository } from '../db/repositories/sessions-repository.js';
import { createUsersRepository } from '../db/repositories/users-repository.js';
import { createApiKeysService, type ApiKeysService } from './api-keys-service.js';
import { createAuthenticator, type Authenticator } from './authenticator.js';
import { createJwtCodec } from './jwt.js';
import { createSessionsService, type SessionsService } from './sessions-service.js';
import { createUsersService, type UsersService } from './users-service.js';
import { createMailer } from './mailer.js';
import { createOidcService, type OidcService } from './oidc-service.js';
import { createPasswordResetService, type PasswordResetService } from './password-reset-service.js';
import { createPasswordResetRepository } from '../db/repositories/password-reset-repository.js';

export interface AuthLayer {
  authenticator: Authenticator;
  sessions: SessionsService;
  users: UsersService;
  apiKeys: ApiKeysService;
  passwordResets: PasswordResetService;
  oidc: OidcService;
}

/** Builds the auth layer over the database; with auth off it exists but every route using it is refused. */
/** Where the auth layer reports failures that do not reach a response (mail delivery, IDP errors, bookkeeping). */
export type AuthErrorReporter = (error: unknown, context: string) => void;

export function createAuthLayer(config: Config, database: Database, report?: AuthErrorReporter): AuthLayer {
  const onError = (context: string) => (error: unknown) => report?.(error, context);
  const db = database.db;
  const usersRepository = createUsersRepository(db);
  const apiKeysRepository = createApiKeysRepository(db);
  const sessionsRepository = createSessionsRepository(db);
  // With auth off no token is ever issued, so an unguessable throwaway key is as good as none.
  const jwt = createJwtCodec(config.secret ?? randomBytes(48).toString('base64'));
  const authenticator = createAuthenticator({
    users: usersRepository,
    apiKeys: apiKeysRepository,
    sessions: sessionsRepository,
    jwt,
    onError: onError('recording API key use'),
  });
  const sessions = createSessionsService({
    config,
    users: usersRepository,
    sessions: sessionsRepository,
    loginFailures: createLoginFailuresRepository(db),
    jwt,
    authenticator,
  });
  return {
    authenticator,
    sessions,
    passwordResets: createPasswordResetService({
      config,
      users: usersRepository,
      resets: createPasswordResetRepository(db),
      sessions,
      mailer: config.smtp ? createMailer(config.smtp) : null,
      onError: onError('sending a password reset mail'),
    }),
    oidc: createOidcService({
      config,
      users: usersRepository,
      onError: (error, idp) => report?.(error, `OpenID Connect login through ${idp}`),
    }),
    users: createUsersService({ db, users: usersRepository, sessions, authenticator }),
    apiKeys: createApiKeysService({ apiKeys: apiKeysRepository, authenticator }),
  };
}

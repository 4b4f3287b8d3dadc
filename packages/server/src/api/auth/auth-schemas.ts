/** Response schemas (TypeBox) of the auth, user and API-key routes, for serialisation and the OpenAPI document. */
import { Type } from '@sinclair/typebox';
import { Nullable } from '../shared/schemas.js';

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const User = Type.Object(
  {
    id: Type.String({ description: 'Opaque user id (base64 of "User:<row id>").' }),
    email: Type.String(),
    username: Type.String(),
    role: Type.Union([Type.Literal('admin'), Type.Literal('member')]),
    auth_method: Type.Union([Type.Literal('LOCAL'), Type.Literal('OAUTH2'), Type.Literal('LDAP')]),
    password_needs_reset: Type.Boolean({ description: 'True until the user chooses their own password.' }),
    created_at: Timestamp('Creation time (UTC).'),
    updated_at: Timestamp('Last change (UTC).'),
  },
  { title: 'User' },
);

export const Viewer = Type.Union(
  [
    User,
    Type.Object({ auth_method: Type.Literal('SYSTEM'), role: Type.Literal('system') }, { title: 'SystemViewer' }),
    Type.Object({ auth_method: Type.Literal('ANONYMOUS') }, { title: 'AnonymousViewer' }),
  ],
  { title: 'Viewer' },
);

export const ApiKey = Type.Object(
  {
    id: Type.String({ description: 'Opaque key id (base64 of "ApiKey:<row id>").' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    created_at: Timestamp('Creation time (UTC).'),
    expires_at: Nullable(Type.String({ format: 'date-time' })),
    last_used_at: Nullable(Type.String({ format: 'date-time', description: 'Last use, to the minute.' })),
  },
  { title: 'ApiKey' },
);

export const CreatedApiKey = Type.Object(
  { ...ApiKey.properties, key: Type.String({ description: 'The secret key (sk-sl-…); shown only in this response.' }) },
  { title: 'CreatedApiKey' },
);

export const UserApiKey = Type.Object(
  {
    ...ApiKey.properties,
    user: Nullable(Type.Object({ id: Type.String(), username: Type.String(), email: Type.String() })),
  },
  { title: 'UserApiKey' },
);

export const AuthConfig = Type.Object(
  {
    auth_enabled: Type.Boolean(),
    basic_auth_enabled: Type.Boolean({ description: 'Email and password login is offered.' }),
    smtp_configured: Type.Boolean({ description: 'Password recovery by email is available.' }),
    ldap_enabled: Type.Boolean({ description: 'LDAP login (POST /auth/ldap/login) is offered: SERVICE_LDAP_HOST is set.' }),
    idps: Type.Array(Type.Object({ slug: Type.String(), display_name: Type.String(), login_url: Type.String() })),
  },
  { title: 'AuthConfig' },
);

export const NoContent = (description: string) => Type.Null({ description });
export const Redirect = (description: string) => Type.Null({ description });

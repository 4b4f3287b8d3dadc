/** The signed-in viewer, the login page's configuration, and the session calls. */
import { useQuery, type QueryClient } from '@tanstack/react-query';
import { call, client, sessionlessClient } from './http';
import type { User } from '@sightline/client/browser';

/** Who the UI is showing: a signed-in user, or the anonymous viewer when auth is off (or a system key). */
export type Viewer = (User & { kind: 'user' }) | { kind: 'anonymous' } | { kind: 'system' };

export const viewerKey = ['viewer'] as const;
export const authConfigKey = ['auth-config'] as const;

export async function fetchViewer(): Promise<Viewer> {
  const { data } = await call(client.GET('/v1/user'));
  if (data.auth_method === 'ANONYMOUS') return { kind: 'anonymous' };
  if (data.auth_method === 'SYSTEM') return { kind: 'system' };
  return { ...data, kind: 'user' };
}

export function useViewer() {
  return useQuery({ queryKey: viewerKey, queryFn: fetchViewer, staleTime: 60_000, retry: false });
}

export function useAuthConfig() {
  return useQuery({
    queryKey: authConfigKey,
    queryFn: async () => (await call(sessionlessClient.GET('/auth/config'))).data,
    staleTime: 5 * 60_000,
  });
}

export async function login(email: string, password: string): Promise<void> {
  await call(sessionlessClient.POST('/auth/login', { body: { email, password } }));
}

/** How each kind of account signs in, as the settings pages name it. */
export const SIGN_IN_METHODS: Record<User['auth_method'], string> = {
  LOCAL: 'Password',
  OAUTH2: 'Identity provider',
  LDAP: 'Directory (LDAP)',
};

/** Sign-in with a directory username and password (SERVICE_LDAP_*; docs/ldap.md). */
export async function ldapLogin(username: string, password: string): Promise<void> {
  await call(sessionlessClient.POST('/auth/ldap/login', { body: { username, password } }));
}

export async function logout(): Promise<void> {
  await call(sessionlessClient.POST('/auth/logout'));
}

/**
 * Forgets everything cached for the signed-in user (before another sign-in, after sign-out).
 * The login page's configuration stays: removing a query while it loads would cancel it for good.
 */
export function clearUserData(queryClient: QueryClient): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== authConfigKey[0] });
}

/** The viewer as a user, or null with auth off. */
export function userOf(viewer: Viewer | undefined): (User & { kind: 'user' }) | null {
  return viewer?.kind === 'user' ? viewer : null;
}

/** Explanations of the `?error=<code>` that OAuth2 redirects put on the login page. */
export const OAUTH2_ERRORS: Record<string, string> = {
  unknown_idp: 'That sign-in provider is not configured on this server.',
  idp_unavailable: 'The identity provider cannot be reached right now. Try again in a moment.',
  idp_error: 'The identity provider refused the sign-in.',
  login_failed: 'The sign-in could not be completed. Try again or ask an administrator.',
  user_deleted: 'This account was deleted by an administrator.',
  missing_email: 'The identity provider did not share an email address, which Sightline needs.',
  email_in_use:
    'The email address of that account already belongs to another Sightline user (or a deleted one). Sign in with that account instead, or ask an administrator.',
  unsafe_return_url: 'The sign-in link was not valid. Start again from this page.',
  missing_flow: 'The sign-in took too long or cookies are blocked. Start again.',
  state_mismatch: 'The sign-in response did not belong to this browser. Start again.',
  token_exchange_failed: 'The identity provider did not accept the sign-in code. Start again.',
  invalid_id_token: 'The identity token from the provider did not pass verification.',
};

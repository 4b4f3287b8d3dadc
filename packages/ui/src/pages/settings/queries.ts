/** React Query hooks of the settings: API keys, users, model prices and provider settings. */
import { useQuery } from '@tanstack/react-query';
import type { User, UserApiKey } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';

export const ownKeysKey = ['api-keys', 'own'] as const;
export const systemKeysKey = ['api-keys', 'system'] as const;
export const allUserKeysKey = ['api-keys', 'all-users'] as const;
export const usersKey = ['users'] as const;

export function useOwnKeys(enabled = true) {
  return useQuery({
    queryKey: ownKeysKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/user/api_keys', { signal }))).data,
    enabled,
  });
}

export function useSystemKeys(enabled: boolean) {
  return useQuery({
    queryKey: systemKeysKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/system/api_keys', { signal }))).data,
    enabled,
  });
}

export function useAllUserKeys(enabled: boolean) {
  return useQuery({
    queryKey: allUserKeysKey,
    queryFn: ({ signal }) =>
      allPages<UserApiKey>((cursor) => call(client.GET('/v1/users/api_keys', { params: { query: { limit: 1000, cursor } }, signal }))),
    enabled,
  });
}

export function useUsers(enabled: boolean) {
  return useQuery({
    queryKey: usersKey,
    queryFn: ({ signal }) =>
      allPages<User>((cursor) => call(client.GET('/v1/users', { params: { query: { limit: 1000, cursor } }, signal }))),
    enabled,
  });
}

export const modelPricesKey = ['model-prices'] as const;

/** Overrides first, then the shipped prices (docs/costs.md). */
export function useModelPrices() {
  return useQuery({
    queryKey: modelPricesKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/model_prices', { signal }))).data,
  });
}

export const secretsKey = ['secrets'] as const;

/** Which provider settings are set, in the environment or stored (admins; never a value). */
export function useSecrets(enabled: boolean) {
  return useQuery({
    queryKey: secretsKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/secrets', { signal }))).data,
    enabled,
  });
}

export const jobsKey = ['system', 'jobs'] as const;

/** The background jobs of the replica that answers (GET /v1/system/jobs), refreshed every five seconds while shown. */
export function useJobs(enabled: boolean) {
  return useQuery({
    queryKey: jobsKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/system/jobs', { signal }))).data,
    enabled,
    refetchInterval: 5000,
  });
}

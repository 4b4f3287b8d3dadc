/**
 * Provider keys and base URLs (docs/playground.md): stored encrypted by admins, or given as
 * environment variables, which win. Values are never returned by any route and never logged;
 * only the names and where each comes from are listed.
 */
import { InvalidInputError } from '@sightline/common';
import type { SecretsRepository } from '../db/repositories/secrets-repository.js';
import { checkedBaseUrl } from './provider-urls.js';
import { PROVIDERS, PROVIDER_SETTING_NAMES } from './providers.js';
import type { SecretBox } from './secret-box.js';

export interface SecretChange {
  key: string;
  /** The new value; null deletes the stored one. */
  value: string | null;
}

export interface SecretStatus {
  key: string;
  /** Set in the server's environment (wins over a stored value). */
  fromEnvironment: boolean;
  /** Stored (encrypted) in the database. */
  stored: boolean;
  updatedAt: string | null;
}

const MAX_VALUE_LENGTH = 4096;

export type SecretsService = ReturnType<typeof createSecretsService>;

/** The secrets service; `box` is null when SERVICE_SECRET is not set (nothing can be stored then). */
export function createSecretsService({
  secrets,
  box,
  env,
  allowPrivateUrls,
  now = () => new Date().toISOString(),
}: {
  secrets: SecretsRepository;
  box: SecretBox | null;
  env: Readonly<Record<string, string | undefined>>;
  /** SERVICE_ALLOW_PRIVATE_PROVIDER_URLS (docs/playground.md, "Where the server may call"). */
  allowPrivateUrls: boolean;
  now?: () => string;
}) {
  const known = new Set(PROVIDER_SETTING_NAMES);
  const baseUrlNames = new Set(Object.values(PROVIDERS).map((provider) => provider.baseUrlName));
  const fromEnvironment = (key: string) => {
    const value = env[key]?.trim();
    return value ? value : null;
  };

  return {
    /** Stores or deletes values, all or nothing; answers which keys were set and deleted. */
    async upsertOrDelete(changes: SecretChange[]): Promise<{ upserted: string[]; deleted: string[] }> {
      for (const change of changes) {
        if (!known.has(change.key)) {
          throw new InvalidInputError(`unknown secret ${JSON.stringify(change.key)}: one of ${[...known].join(', ')}`);
        }
        if (change.value !== null && (change.value.trim() === '' || change.value.length > MAX_VALUE_LENGTH)) {
          throw new InvalidInputError(`the value of ${change.key} must be 1 to ${MAX_VALUE_LENGTH} characters (null deletes it)`);
        }
        // Refused when stored, so no run ever calls it; environment values are checked at each call.
        if (change.value !== null && baseUrlNames.has(change.key)) checkedBaseUrl(change.key, change.value, allowPrivateUrls);
      }
      const keys = changes.map((change) => change.key);
      if (new Set(keys).size !== keys.length) throw new InvalidInputError('each secret may be named once per request');
      if (!box && changes.some((change) => change.value !== null)) {
        throw new InvalidInputError(
          'storing provider keys needs SERVICE_SECRET (32 or more characters) to encrypt them; or set them as environment variables',
        );
      }
      const upserted: string[] = [];
      const deleted: string[] = [];
      for (const change of changes) {
        if (change.value === null) {
          if (await secrets.delete(change.key)) deleted.push(change.key);
        } else {
          await secrets.upsert({ key: change.key, ...box!.seal(change.key, change.value.trim()), updatedAt: now() });
          upserted.push(change.key);
        }
      }
      return { upserted, deleted };
    },

    /** Every provider setting: whether it is set in the environment and whether one is stored. */
    async list(): Promise<SecretStatus[]> {
      const stored = new Map((await secrets.listKeys()).map((row) => [row.key, row.updatedAt]));
      return [...known].map((key) => ({
        key,
        fromEnvironment: fromEnvironment(key) !== null,
        stored: stored.has(key),
        updatedAt: stored.get(key) ?? null,
      }));
    },

    /** The value in force: the environment's, else the stored one (null when neither, or it no longer decrypts). */
    async resolve(key: string): Promise<string | null> {
      const environment = fromEnvironment(key);
      if (environment !== null) return environment;
      const row = box ? await secrets.find(key) : undefined;
      return row && box ? box.open(key, row) : null;
    },
  };
}

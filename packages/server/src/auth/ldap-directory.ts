/**
 * The LDAP directory behind POST /auth/ldap/login (docs/ldap.md), as Phoenix 20.3 asks it:
 * search the user with the service account (or anonymously), bind as the user's DN with the
 * given password, read email, display name and unique id, find the groups (memberOf, or a group
 * search) and map them to a role, first mapping that matches wins. Several hosts are replicas:
 * one that cannot be reached is skipped for the next; when none answers, LdapUnavailableError.
 * Values from the login form enter filters only escaped (RFC 4515) and never a DN; the bind
 * password and the user's password are never logged.
 */
import fs from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Client, EqualityFilter, InvalidCredentialsError, ResultCodeError, SizeLimitExceededError, type Entry } from 'ldapts';
import { canonicalDn, type LdapConfig } from '../config.js';
import type { Role } from '../db/repositories/users-repository.js';

/** No LDAP server could be asked (connection refused or cut, TLS failure, time-out, service account refused). */
export class LdapUnavailableError extends Error {
  override readonly name = 'LdapUnavailableError';
}

/** What a successful LDAP login knows about the user. */
export interface LdapIdentity {
  email: string;
  displayName: string;
  /** The directory's immutable id (SERVICE_LDAP_ATTR_UNIQUE_ID), lower-cased; null when not configured. */
  uniqueId: string | null;
  groups: string[];
  role: Role;
}

export const MAX_USERNAME_LENGTH = 256;
export const MAX_PASSWORD_LENGTH = 1024;

// ldapts escapes filter values per RFC 4515 (\2a \28 \29 \5c \00) through a Filter's escape().
const filterEscaper = new EqualityFilter({ attribute: 'x', value: '' });

/** A value escaped for use inside an LDAP filter (RFC 4515 §3). */
export function escapeFilterValue(value: string): string {
  return filterEscaper.escape(value);
}

/** A filter template with every %s replaced by the escaped value. */
export function fillFilter(template: string, value: string): string {
  const escaped = escapeFilterValue(value);
  return template.split('%s').join(escaped);
}

/** Active Directory's objectGUID (16 bytes, the first three groups little-endian) as a UUID string. */
function guidString(bytes: Buffer): string {
  const hex = (from: number, to: number, reverse: boolean) => {
    const part = [...bytes.subarray(from, to)];
    return (reverse ? part.reverse() : part).map((byte) => byte.toString(16).padStart(2, '0')).join('');
  };
  return [hex(0, 4, true), hex(4, 6, true), hex(6, 8, true), hex(8, 10, false), hex(10, 16, false)].join('-');
}

/** The first value of an attribute (names compared without case), as text. */
function firstValue(entry: Entry, name: string): string | null {
  const values = allValues(entry, name);
  return values[0] ?? null;
}

function allValues(entry: Entry, name: string): string[] {
  const key = Object.keys(entry).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  if (key === undefined || key === 'dn') return [];
  const raw = entry[key];
  const list = Array.isArray(raw) ? raw : [raw];
  return list
    .map((value) => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value ?? '')))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

function uniqueIdOf(entry: Entry, name: string): string | null {
  const key = Object.keys(entry).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  if (key === undefined) return null;
  const raw = entry[key];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (Buffer.isBuffer(value)) {
    if (value.length === 16) return guidString(value);
    const text = value.toString('utf8').trim();
    return text === '' ? null : text.toLowerCase();
  }
  const text = typeof value === 'string' ? value.trim() : '';
  return text === '' ? null : text.toLowerCase();
}

export type LdapDirectory = ReturnType<typeof createLdapDirectory>;

interface Dependencies {
  config: LdapConfig;
  /** Where failures of a server are reported (never with a password). */
  onError?: (error: unknown, context: string) => void;
}

/** The directory client for the configured LDAP servers. */
export function createLdapDirectory({ config, onError }: Dependencies) {
  const readFile = (file: string | null) => (file === null ? undefined : fs.readFileSync(file));
  // The certificate is checked against the configured host (a name, or an address in an IP SAN);
  // SNI carries names only.
  const tlsOptions = (host: string): ConnectionOptions => ({
    host: host.replace(/^\[|\]$/g, ''),
    servername: /^[\d.]+$|^\[/.test(host) ? undefined : host,
    rejectUnauthorized: config.tlsVerify,
    ca: readFile(config.tlsCaCertFile),
    cert: readFile(config.tlsClientCertFile),
    key: readFile(config.tlsClientKeyFile),
  });
  const binaryAttributes = config.attrUniqueId?.toLowerCase() === 'objectguid' ? [config.attrUniqueId] : [];
  const attributes = [
    config.attrEmail,
    config.attrDisplayName,
    config.attrMemberOf,
    config.attrUniqueId,
    config.groupSearchFilterUserAttr,
  ].filter((name): name is string => name !== null);

  /** A connected client (STARTTLS done when asked), not yet bound. */
  const connect = async (host: string): Promise<Client> => {
    const scheme = config.tlsMode === 'ldaps' ? 'ldaps' : 'ldap';
    const client = new Client({
      url: `${scheme}://${host}:${config.port}`,
      timeout: config.timeoutMs,
      connectTimeout: config.connectTimeoutMs,
      tlsOptions: config.tlsMode === 'ldaps' ? tlsOptions(host) : undefined,
      strictDN: false,
    });
    try {
      if (config.tlsMode === 'starttls') await client.startTLS(tlsOptions(host));
    } catch (error) {
      await client.unbind().catch(() => undefined);
      throw error;
    }
    return client;
  };

  /** True when the DN and password bind; false for wrong credentials; throws when the server fails. */
  const verifyPassword = async (host: string, dn: string, password: string): Promise<boolean> => {
    const client = await connect(host);
    try {
      await client.bind(dn, password);
      return true;
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return false;
      throw error;
    } finally {
      await client.unbind().catch(() => undefined);
    }
  };

  /** The one entry the filter finds in the first base that has any; null when none or several. */
  const searchUser = async (client: Client, username: string): Promise<Entry | null> => {
    const filter = fillFilter(config.userSearchFilter, username);
    for (const base of config.userSearchBaseDns) {
      let searchEntries: Entry[];
      try {
        ({ searchEntries } = await client.search(base, {
          scope: 'sub',
          filter,
          attributes,
          explicitBufferAttributes: binaryAttributes,
          sizeLimit: 2,
        }));
      } catch (error) {
        // More than two entries: ambiguous, refused below like two.
        if (error instanceof SizeLimitExceededError) return null;
        throw error;
      }
      if (searchEntries.length === 0) continue;
      // Several entries for one login name: refused rather than guessed (as Phoenix does).
      if (searchEntries.length > 1) return null;
      return searchEntries[0]!;
    }
    return null;
  };

  const groupsOf = async (client: Client, entry: Entry, username: string): Promise<string[]> => {
    if (config.groupSearchFilter === null) {
      return config.attrMemberOf === null ? [] : allValues(entry, config.attrMemberOf);
    }
    const value = config.groupSearchFilterUserAttr === null ? username : firstValue(entry, config.groupSearchFilterUserAttr);
    if (value === null) return [];
    const filter = fillFilter(config.groupSearchFilter, value);
    const groups: string[] = [];
    for (const base of config.groupSearchBaseDns) {
      try {
        const { searchEntries } = await client.search(base, { scope: 'sub', filter, attributes: ['cn'] });
        for (const group of searchEntries) groups.push(group.dn);
      } catch (error) {
        // As Phoenix: a base the server refuses (missing, size limit) is skipped, the others still count.
        if (!(error instanceof ResultCodeError)) throw error;
        onError?.(error, `LDAP group search in ${base}`);
      }
    }
    return groups;
  };

  /** The role of the first mapping that matches one of the groups ('*' matches everyone); null when none does. */
  const roleFor = (groups: string[]): Role | null => {
    const canonical = new Set(groups.map((group) => canonicalDn(group)).filter((group): group is string => group !== null));
    for (const mapping of config.groupRoleMappings) {
      if (mapping.groupDn === '*' || canonical.has(mapping.groupDn)) return mapping.role;
    }
    return null;
  };

  /** Asks one server; null for wrong credentials or a user who may not sign in; throws when the server fails. */
  const authenticateOn = async (host: string, username: string, password: string): Promise<LdapIdentity | null> => {
    const client = await connect(host);
    try {
      if (config.bindDn !== null && config.bindPassword !== null) await client.bind(config.bindDn, config.bindPassword);
      const entry = await searchUser(client, username);
      if (entry === null) {
        // A bind that must fail, so an unknown user takes as long as a wrong password.
        await verifyPassword(host, `cn=sightline-unknown-user-${Date.now()},dc=invalid`, password).catch(() => false);
        return null;
      }
      if (!(await verifyPassword(host, entry.dn, password))) return null;
      const email = config.attrEmail === null ? null : firstValue(entry, config.attrEmail);
      if (email === null) {
        onError?.(new Error(`the LDAP entry has no ${config.attrEmail} attribute (SERVICE_LDAP_ATTR_EMAIL)`), 'LDAP login');
        return null;
      }
      let uniqueId: string | null = null;
      if (config.attrUniqueId !== null) {
        uniqueId = uniqueIdOf(entry, config.attrUniqueId);
        if (uniqueId === null) {
          onError?.(new Error(`the LDAP entry has no ${config.attrUniqueId} attribute (SERVICE_LDAP_ATTR_UNIQUE_ID)`), 'LDAP login');
          return null;
        }
      }
      const groups = await groupsOf(client, entry, username);
      const role = roleFor(groups);
      if (role === null) return null; // in no mapped group: may not sign in
      const displayName = (config.attrDisplayName === null ? null : firstValue(entry, config.attrDisplayName)) ?? username;
      return { email, displayName, uniqueId, groups, role };
    } finally {
      await client.unbind().catch(() => undefined);
    }
  };

  return {
    /**
     * The identity for a username and password; null when they are wrong or the user may not sign
     * in (unknown, ambiguous, in no mapped group, missing a required attribute). Throws
     * LdapUnavailableError when no server could answer.
     */
    async authenticate(username: string, password: string): Promise<LdapIdentity | null> {
      // An empty password would be an anonymous bind, which servers accept (RFC 4513 §5.1.2).
      if (username.trim() === '' || password === '') return null;
      if (username.length > MAX_USERNAME_LENGTH || password.length > MAX_PASSWORD_LENGTH) return null;
      // A random order spreads logins over the replicas (Fisher-Yates).
      const hosts = [...config.hosts];
      for (let i = hosts.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [hosts[i], hosts[j]] = [hosts[j]!, hosts[i]!];
      }
      for (const host of hosts) {
        try {
          return await authenticateOn(host, username, password);
        } catch (error) {
          // ldapts errors carry the operation's result, never the password.
          onError?.(error, `LDAP server ${host}`);
        }
      }
      throw new LdapUnavailableError('no LDAP server could be reached');
    },
  };
}

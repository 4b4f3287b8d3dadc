/** RFC 4515 escaping of login names in LDAP filters, and canonical DNs for group mappings (docs/ldap.md). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FilterParser } from 'ldapts';
import { canonicalDn } from '../../src/config.js';
import { escapeFilterValue, fillFilter } from '../../src/auth/ldap-directory.js';

describe('escapeFilterValue', () => {
  test('escapes the five characters RFC 4515 names, and nothing else', () => {
    assert.equal(escapeFilterValue('*)(uid=*'), '\\2a\\29\\28uid=\\2a');
    assert.equal(escapeFilterValue('a\\b'), 'a\\5cb');
    assert.equal(escapeFilterValue('nul\u0000'), 'nul\\00');
    assert.equal(escapeFilterValue("Jörg O'Brien-Smith"), "Jörg O'Brien-Smith");
  });

  test('an injected username stays one value of one equality filter', () => {
    for (const username of ['*)(uid=*', 'x)(|(objectClass=*)', '*', 'admin)(&', '\\2a']) {
      const filter = FilterParser.parseString(fillFilter('(&(objectClass=inetOrgPerson)(uid=%s))', username));
      assert.equal(filter.toString(), `(&(objectClass=inetOrgPerson)(uid=${escapeFilterValue(username)}))`, username);
      const [, uid] = (filter as unknown as { filters: { attribute: string; value: string }[] }).filters;
      assert.equal(uid?.attribute, 'uid');
      assert.equal(uid?.value, username, 'the whole username is the value, unescaped back');
    }
  });

  test('every %s of the template is filled', () => {
    assert.equal(fillFilter('(|(uid=%s)(mail=%s))', 'a*'), '(|(uid=a\\2a)(mail=a\\2a))');
  });
});

describe('canonicalDn', () => {
  test('lower-cases, trims around separators, keeps escapes, orders multi-valued RDNs', () => {
    assert.equal(canonicalDn('CN=Admins, OU=Groups,DC=Example,DC=com'), 'cn=admins,ou=groups,dc=example,dc=com');
    assert.equal(canonicalDn('cn=Smith\\, John,ou=users,dc=x'), 'cn=smith\\, john,ou=users,dc=x');
    assert.equal(canonicalDn('uid=a+cn=B,dc=x'), canonicalDn('cn=b+uid=A,dc=x'));
  });

  test('refuses what is not a DN', () => {
    for (const value of ['admins', 'cn=', '=x', 'cn=a,,dc=x', 'c n=a', 'cn=a\\']) assert.equal(canonicalDn(value), null, value);
  });
});

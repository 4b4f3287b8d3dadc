/** A system API key on a fresh auth-enabled server, for benchmarks that ingest with auth on. */

/** SERVICE_SECRET of the benchmarks' auth-enabled servers. */
export const BENCH_SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Logs in as the default admin, sets a password, and creates a system key, through the REST API.
 * A database an earlier run already set up (`--sqlite-file`) has that password: it is used as is.
 */
export async function systemKey(base: string): Promise<string> {
  const json = { 'content-type': 'application/json' };
  const tryLogin = async (password: string) => {
    const response = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'admin@localhost', password }),
    });
    if (response.status === 401) return null;
    if (response.status !== 204) throw new Error(`login failed: ${response.status}`);
    return response.headers
      .getSetCookie()
      .map((cookie) => cookie.split(';')[0])
      .join('; ');
  };
  const login = async (password: string) => {
    const cookie = await tryLogin(password);
    if (cookie === null) throw new Error('login failed: 401');
    return cookie;
  };
  const first = await tryLogin('admin');
  if (first !== null) {
    const changed = await fetch(`${base}/v1/user`, {
      method: 'PATCH',
      headers: { ...json, cookie: first },
      body: JSON.stringify({ password: 'bench-password-1', current_password: 'admin' }),
    });
    if (changed.status !== 200) throw new Error(`password change failed: ${changed.status}`);
  }
  const cookie = await login('bench-password-1');
  const created = await fetch(`${base}/v1/system/api_keys`, {
    method: 'POST',
    headers: { ...json, cookie },
    body: JSON.stringify({ data: { name: 'bench' } }),
  });
  if (created.status !== 201) throw new Error(`key creation failed: ${created.status}`);
  return ((await created.json()) as { data: { key: string } }).data.key;
}

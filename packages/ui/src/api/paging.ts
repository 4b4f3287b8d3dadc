/** Reading a paged list of the API whole. */
import type { Page } from '@sightline/client/browser';

/** Every item of a paged list (follows next_cursor). */
export async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    all.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

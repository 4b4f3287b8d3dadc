/** Reading the API's paged lists: whole, or page by page as a list scrolls. */
import { keepPreviousData } from '@tanstack/react-query';
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

/**
 * The options of an infinitely scrolled list (useInfiniteQuery): each page asks for the one
 * after the cursor of the last, and the shown pages stay while new ones load.
 */
export const cursorPages = {
  initialPageParam: null as string | null,
  getNextPageParam: (last: { next_cursor: string | null }) => last.next_cursor,
  placeholderData: keepPreviousData,
};

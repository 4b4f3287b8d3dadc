/**
 * SQL of a full-text query (docs/search.md) in each dialect: SQLite's FTS5 table `span_search`
 * in the index file attached as `search` (db/search-index/; rowid = the span's row id, its
 * search text cut into words by the `ascii` tokenizer, as span-model/search-text.ts defines
 * them) and PostgreSQL's `span_search_vectors` (migration 0048), a tsvector of the same words per
 * span, keyed by the span's and its trace's row ids. The query's words were cut the same way
 * (letters, digits and marks only), so neither query syntax can see an operator or a quote in
 * them; the query text is still a bound parameter.
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { indexedWords } from '../../span-model/search-text.js';

/** Words that must all appear: each phrase's words in order, the last one as a prefix when `prefix`. */
export interface SearchQuery {
  phrases: { words: string[]; prefix: boolean }[];
}

/** FTS5's query: `"a b" "c" *` is the phrase a b and a word starting with c. */
export const fts5Query = (query: SearchQuery) =>
  query.phrases.map((phrase) => `"${phrase.words.join(' ')}"${phrase.prefix ? ' *' : ''}`).join(' ');

/** PostgreSQL's tsquery text: `('a' <-> 'b') & ('c':*)`. */
export const tsQuery = (query: SearchQuery) =>
  query.phrases
    .map((phrase) => {
      const words = phrase.words.map((word, index) => `'${word}'${phrase.prefix && index === phrase.words.length - 1 ? ':*' : ''}`);
      return `(${words.join(' <-> ')})`;
    })
    .join(' & ');

/** PostgreSQL's tsvector text of a span's search text (searchTextOf): each word at its position (positions stop at 16,383). */
export function tsVectorText(searchText: string): string {
  const words = indexedWords(searchText);
  let out = '';
  for (let index = 0; index < words.length; index++) out += `${index === 0 ? '' : ' '}'${words[index]}':${Math.min(index + 1, 16_383)}`;
  return out;
}

/** True for the spans (alias `spans`) whose text matches. */
export function spanMatchesSql(dialect: Dialect, query: SearchQuery): RawBuilder<SqlBool> {
  // Tested span by span as a list walks them: one probe of the words' primary key each.
  if (dialect === 'postgres')
    return sql<SqlBool>`exists (select 1 from span_search_vectors v where v.span_rowid = spans.id and v.trace_rowid = spans.trace_rowid
      and v.search_vector @@ cast(${tsQuery(query)} as tsquery))`;
  return sql<SqlBool>`(spans.id in (select rowid from search.span_search where span_search match ${fts5Query(query)}))`;
}

/** True for the traces (alias `traces`) of the project that have a span whose text matches. */
export function traceMatchesSql(dialect: Dialect, query: SearchQuery, projectId: number): RawBuilder<SqlBool> {
  if (dialect === 'postgres')
    return sql<SqlBool>`(traces.id in (select v.trace_rowid from span_search_vectors v where v.project_id = ${projectId} and v.search_vector @@ cast(${tsQuery(
      query,
    )} as tsquery)))`;
  return sql<SqlBool>`(traces.id in (select s.trace_rowid from spans s where s.id in (select rowid from search.span_search where span_search match ${fts5Query(query)}) and s.project_id = ${projectId}))`;
}

/** Most span row ids read from SQLite's index before a search gives up on reading by ids (searchRowidsSqlite). */
export const MAX_SEARCH_ROWIDS = 10_000;

/**
 * On SQLite, the row ids of the spans (of every project) whose text matches, newest first, when
 * there are at most MAX_SEARCH_ROWIDS of them; undefined when there are more. A rare word then
 * reads its few spans by id; a common one is tested against each span a list walks instead, as
 * the subquery of spanMatchesSql, which SQLite's planner would otherwise build in full for every page.
 */
export async function searchRowidsSqlite(db: Kysely<DB>, query: SearchQuery): Promise<number[] | undefined> {
  const result = await sql<{ rowid: number }>`select rowid from search.span_search where span_search match ${fts5Query(
    query,
  )} order by rowid desc limit ${MAX_SEARCH_ROWIDS + 1}`.execute(db);
  return result.rows.length > MAX_SEARCH_ROWIDS ? undefined : result.rows.map((row) => Number(row.rowid));
}

/**
 * On PostgreSQL, the row ids of the project's spans whose text matches, newest first, when the
 * query has a rare word and at most MAX_SEARCH_ROWIDS spans match; undefined otherwise.
 * PostgreSQL knows how often its most common words occur (ANALYZE's statistics of the tsvector
 * column) and nothing of the others: for a rare word it guessed thousands of spans and scanned
 * the project's 1.3 million traces to join them, 330 ms at 10 million spans, where reading the
 * word's few spans first and then their traces by id took 14 ms (docs/performance.md, "Search and
 * filters"). A query made only of common words (or prefixes) is left to the planner, which walks
 * the newest traces: reading all of a common word's spans first cost 250 to 570 ms.
 */
export async function searchRowidsPostgres(db: Kysely<DB>, query: SearchQuery, projectId: number): Promise<number[] | undefined> {
  const common = await commonWords(db);
  const rare = query.phrases.some((phrase) =>
    phrase.words.some((word, index) => !(phrase.prefix && index === phrase.words.length - 1) && !common.has(word)),
  );
  if (!rare) return undefined;
  // Unordered: an ORDER BY could tempt the planner into walking the id index instead of the text index.
  const matches = sql`search_vector @@ cast(${tsQuery(query)} as tsquery)`;
  const result = await sql<{
    id: string | number;
  }>`select span_rowid as id from span_search_vectors where project_id = ${projectId} and ${matches} limit ${
    MAX_SEARCH_ROWIDS + 1
  }`.execute(db);
  if (result.rows.length > MAX_SEARCH_ROWIDS) return undefined;
  return result.rows.map((row) => Number(row.id)).sort((a, b) => b - a);
}

/** How long the list of common words is kept before it is read again (ANALYZE runs as autovacuum sees fit). */
const COMMON_WORDS_TTL_MS = 10 * 60_000;
const commonWordsCache = new WeakMap<Kysely<DB>, { at: number; words: Promise<Set<string>> }>();

/** The words PostgreSQL's statistics count among the most common of spans' text (empty before the first ANALYZE). */
function commonWords(db: Kysely<DB>): Promise<Set<string>> {
  const cached = commonWordsCache.get(db);
  if (cached && Date.now() - cached.at < COMMON_WORDS_TTL_MS) return cached.words;
  const words = sql<{ word: string }>`select unnest(most_common_elems::text::text[]) as word from pg_stats
    where schemaname = current_schema() and tablename = 'span_search_vectors' and attname = 'search_vector'`
    .execute(db)
    .then((result) => new Set(result.rows.map((row) => row.word)))
    .catch(() => new Set<string>());
  commonWordsCache.set(db, { at: Date.now(), words });
  return words;
}

/** The row ids of a rare word's spans of the project (see searchRowidsSqlite and searchRowidsPostgres); undefined for a common one. */
export function searchRowids(db: Kysely<DB>, dialect: Dialect, query: SearchQuery, projectId: number): Promise<number[] | undefined> {
  return dialect === 'sqlite' ? searchRowidsSqlite(db, query) : searchRowidsPostgres(db, query, projectId);
}

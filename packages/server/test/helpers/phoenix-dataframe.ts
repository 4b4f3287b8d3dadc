/**
 * phoenix-client's reading of a span query answer (packages/phoenix-client/.../resources/spans
 * `_process_span_dataframe` and `_decode_df_from_json_string`, with pandas' `parse_table_schema`),
 * ported step for step so that a test reads the answer exactly as the Python client does: the same
 * splits of the multipart text, the same dtype casts (which fail where pandas' would) and the same
 * stripping of the position prefixes.
 */

export interface DataFrame {
  /** Index level names after the client's renaming (null for an empty name). */
  indexNames: (string | null)[];
  columns: string[];
  /** Index values per row (one per level). */
  index: unknown[][];
  /** Column values per row, after the dtype casts. */
  rows: unknown[][];
  dtypes: string[];
}

/** Python's str.split(sep, 1). */
function splitOnce(text: string, separator: string): string[] {
  const at = text.indexOf(separator);
  return at < 0 ? [text] : [text.slice(0, at), text.slice(at + separator.length)];
}

/** Python's `x.split("_", 1)[1]`: an IndexError (thrown) when there is no underscore. */
function afterFirstUnderscore(name: string): string {
  const parts = splitOnce(name, '_');
  if (parts.length < 2) throw new Error(`IndexError: list index out of range (column ${JSON.stringify(name)})`);
  return parts[1]!;
}

/** pandas.io.json._table_schema.convert_json_field_to_pandas_type. */
function pandasType(field: { type: string; tz?: string; constraints?: unknown }): string {
  switch (field.type) {
    case 'string':
      return 'object';
    case 'integer':
      return 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'duration':
      return 'timedelta64';
    case 'datetime':
      return field.tz ? `datetime64[ns, ${field.tz}]` : 'datetime64[ns]';
    case 'any':
      return 'object';
    default:
      throw new Error(`ValueError: Unsupported or invalid field type: ${field.type}`);
  }
}

/** DataFrame.astype(dtype) of one value, failing where pandas fails. */
function cast(value: unknown, dtype: string, column: string): unknown {
  const missing = value === null || value === undefined;
  if (dtype === 'object') return missing ? null : value;
  if (dtype === 'int64') {
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new Error(`IntCastingNaNError: Cannot convert non-finite values (NA or inf) to integer (column ${column})`);
    return Math.trunc(value);
  }
  if (dtype === 'float64') {
    if (missing) return Number.NaN;
    if (typeof value === 'number') return value;
    if (typeof value === 'boolean') return value ? 1 : 0;
    throw new Error(`ValueError: could not convert string to float: ${JSON.stringify(value)} (column ${column})`);
  }
  if (dtype === 'bool') return Boolean(value) && !(Array.isArray(value) && value.length === 0);
  if (dtype.startsWith('datetime64')) {
    if (missing) return null;
    if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)?$/.test(value))
      throw new Error(`DateParseError: ${JSON.stringify(value)} (column ${column})`);
    return value;
  }
  throw new Error(`NotImplementedError: ${dtype}`);
}

/** pandas' parse_table_schema(json, precise_float=False), then the client's renaming. */
export function decodeDataFrame(json: string): DataFrame {
  const table = JSON.parse(json) as {
    schema: { fields: { name: string; type: string; tz?: string }[]; primaryKey?: string[] };
    data: Record<string, unknown>[];
  };
  const colOrder = table.schema.fields.map((field) => field.name);
  const dtypes = table.schema.fields.map(pandasType);
  if (dtypes.includes('timedelta64')) throw new Error('NotImplementedError: table="orient" can not yet read ISO-formatted Timedelta data');
  const data = table.data.map((record) => colOrder.map((name, c) => cast(record[name], dtypes[c]!, name)));
  let indexNames: (string | null)[] = [null];
  let keep = colOrder.map((_, c) => c);
  let index: unknown[][] = data.map((_, r) => [r]);
  if (table.schema.primaryKey) {
    const key = table.schema.primaryKey;
    const positions = key.map((name) => {
      const at = colOrder.indexOf(name);
      if (at < 0) throw new Error(`KeyError: None of [${name}] are in the columns`);
      return at;
    });
    indexNames = [...key];
    keep = keep.filter((c) => !positions.includes(c));
    index = data.map((row) => positions.map((c) => row[c]));
    if (indexNames.length === 1 && indexNames[0] === 'index') indexNames = [null];
    else if (indexNames.every((name) => name?.startsWith('level_'))) indexNames = indexNames.map(() => null);
  }
  return {
    // df.index.names = [x.split("_", 1)[1] or None for x in df.index.names]
    indexNames: indexNames.map((name) => {
      if (name === null) throw new Error("AttributeError: 'NoneType' object has no attribute 'split'");
      return afterFirstUnderscore(name) || null;
    }),
    columns: keep.map((c) => afterFirstUnderscore(colOrder[c]!)),
    index,
    rows: data.map((row) => keep.map((c) => row[c])),
    dtypes: keep.map((c) => dtypes[c]!),
  };
}

/** `_process_span_dataframe`: the frames of a multipart/mixed answer; none for any other answer. */
export function processSpanDataframes(contentType: string | null, body: string): DataFrame[] {
  const frames: DataFrame[] = [];
  if (contentType === null || !contentType.includes('multipart/mixed')) return frames;
  if (!contentType.includes('boundary='))
    throw new Error('ValueError: Boundary not found in Content-Type header for multipart/mixed response');
  const token = splitOnce(contentType.split('boundary=')[1]!, ';')[0]!;
  const boundary = `--${token}`;
  let text = body;
  while (text.includes(boundary)) {
    const [part, rest] = splitOnce(text, boundary) as [string, string];
    text = rest;
    if (part.includes('Content-Type: application/json')) {
      const pieces = splitOnce(part, '\r\n\r\n');
      if (pieces.length < 2) throw new Error('IndexError: list index out of range (part without a blank line)');
      frames.push(decodeDataFrame(pieces[1]!.trim()));
    }
  }
  return frames;
}

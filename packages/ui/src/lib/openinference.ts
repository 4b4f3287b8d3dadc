/**
 * Reading OpenInference attributes (flat dotted keys, as the API returns them) into the
 * structures the span view shows: chat messages, documents, tool calls, token counts.
 */

export type Attributes = Record<string, unknown>;

/** `prefix.0.x`, `prefix.0.y`, `prefix.1.x` → [{x, y}, {x}] (rest keys stay dotted). */
export function indexedGroups(attributes: Attributes, prefix: string): Attributes[] {
  const groups: Attributes[] = [];
  const start = `${prefix}.`;
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(start)) continue;
    const rest = key.slice(start.length);
    const dot = rest.indexOf('.');
    const index = Number(dot === -1 ? rest : rest.slice(0, dot));
    if (!Number.isInteger(index) || index < 0 || index > 10_000) continue;
    groups[index] ??= {};
    groups[index][dot === -1 ? '' : rest.slice(dot + 1)] = value;
  }
  return groups.filter(Boolean);
}

export interface ToolCall {
  id?: string;
  name?: string;
  arguments?: string;
}

export interface ChatMessage {
  role: string;
  name?: string;
  content?: string;
  toolCalls: ToolCall[];
  toolCallId?: string;
}

const str = (value: unknown) =>
  value === undefined || value === null ? undefined : typeof value === 'string' ? value : JSON.stringify(value);

/** Messages under `llm.input_messages` / `llm.output_messages`. */
export function chatMessages(attributes: Attributes, prefix: string): ChatMessage[] {
  return indexedGroups(attributes, prefix).map((group) => {
    let content = str(group['message.content']);
    if (content === undefined) {
      const parts = indexedGroups(group, 'message.contents')
        .map(
          (part) =>
            str(part['message_content.text']) ??
            (part['message_content.image.image.url'] ? `[image] ${str(part['message_content.image.image.url'])}` : undefined),
        )
        .filter((part): part is string => part !== undefined);
      if (parts.length > 0) content = parts.join('\n\n');
    }
    const toolCalls = indexedGroups(group, 'message.tool_calls').map((call) => ({
      id: str(call['tool_call.id']),
      name: str(call['tool_call.function.name']),
      arguments: str(call['tool_call.function.arguments']),
    }));
    return {
      role: str(group['message.role']) ?? 'unknown',
      name: str(group['message.name']),
      content,
      toolCalls,
      toolCallId: str(group['message.tool_call_id']),
    };
  });
}

export interface RetrievedDocument {
  id?: string;
  content?: string;
  score?: number;
  metadata?: string;
}

export function documents(attributes: Attributes, prefix: string): RetrievedDocument[] {
  return indexedGroups(attributes, prefix).map((group) => ({
    id: str(group['document.id']),
    content: str(group['document.content']),
    score: typeof group['document.score'] === 'number' ? group['document.score'] : undefined,
    metadata: str(group['document.metadata']),
  }));
}

/** Pretty JSON when the text is a JSON object or array; the text itself otherwise. */
export function prettyJson(value: unknown): { text: string; json: boolean } {
  if (typeof value !== 'string') return { text: JSON.stringify(value, null, 2), json: true };
  const trimmed = value.trim();
  if ((trimmed.startsWith('{') && trimmed.endsWith('}')) || (trimmed.startsWith('[') && trimmed.endsWith(']'))) {
    try {
      return { text: JSON.stringify(JSON.parse(trimmed), null, 2), json: true };
    } catch {
      // not JSON after all
    }
  }
  return { text: value, json: false };
}

/** Attributes grouped by their first key segment (`llm`, `input`, `http`, …), groups and keys sorted. */
export function attributeSections(attributes: Attributes): [string, [string, unknown][]][] {
  const sections = new Map<string, [string, unknown][]>();
  for (const [key, value] of Object.entries(attributes)) {
    const head = key.includes('.') ? key.slice(0, key.indexOf('.')) : 'other';
    let list = sections.get(head);
    if (!list) {
      list = [];
      sections.set(head, list);
    }
    list.push([key, value]);
  }
  const natural = new Intl.Collator(undefined, { numeric: true });
  for (const list of sections.values()) list.sort(([a], [b]) => natural.compare(a, b));
  return [...sections.entries()].sort(([a], [b]) => natural.compare(a, b));
}

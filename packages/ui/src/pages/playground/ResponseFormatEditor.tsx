/**
 * The playground's response format (docs/playground.md, "Response format"): plain text, JSON
 * object mode, or a JSON schema the answer must follow, and what each chosen provider makes of it.
 */
import { Checkbox, Group, JsonInput, Paper, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { TOOL_NAME, parsedSchema, type DraftResponseFormat, type PlaygroundDraft, type Provider } from '../../lib/playground';

/** What a provider does with the format, when it differs from OpenAI's (which takes it as sent). */
function providerNote(provider: Provider, type: DraftResponseFormat['type']): string | null {
  if (type === 'text') return null;
  if (provider === 'google') {
    return type === 'json_schema'
      ? 'Gemini: sent as responseMimeType application/json with the schema as responseJsonSchema (name and strict have no equivalent).'
      : 'Gemini: sent as responseMimeType application/json.';
  }
  if (provider !== 'anthropic') return null;
  return type === 'json_schema'
    ? 'Anthropic: sent as its structured outputs (output_config.format), which its newer models follow.'
    : 'Anthropic has no JSON mode without a schema: the run is refused. Choose JSON schema.';
}

export function ResponseFormatEditor({
  draft,
  providers,
  update,
}: {
  draft: PlaygroundDraft;
  /** The providers of the models that will run. */
  providers: Provider[];
  update: (change: Partial<PlaygroundDraft>) => void;
}) {
  const format = draft.responseFormat;
  const set = (change: Partial<DraftResponseFormat>) => update({ responseFormat: { ...format, ...change } });
  const schema = parsedSchema(format.schema, 'The response schema');
  const notes = [...new Set(providers.map((provider) => providerNote(provider, format.type)).filter((note) => note !== null))];
  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Text fw={600}>Response format</Text>
          <SegmentedControl
            size="xs"
            aria-label="Response format"
            value={format.type}
            onChange={(value) => set({ type: value as DraftResponseFormat['type'] })}
            data={[
              { value: 'text', label: 'Text' },
              { value: 'json_object', label: 'JSON object' },
              { value: 'json_schema', label: 'JSON schema' },
            ]}
          />
        </Group>
        {format.type === 'text' ? (
          <Text size="sm" c="dimmed">
            The model answers in free text.
          </Text>
        ) : null}
        {format.type === 'json_object' ? (
          <Text size="sm" c="dimmed">
            The model answers a JSON object (OpenAI's JSON mode); say in the prompt what it should hold.
          </Text>
        ) : null}
        {format.type === 'json_schema' ? (
          <>
            <Group gap="sm" align="flex-end">
              <TextInput
                style={{ flex: 1 }}
                size="xs"
                label="Schema name"
                value={format.name}
                error={format.name.trim() && !TOOL_NAME.test(format.name.trim()) ? '1 to 64 letters, digits, _ or -' : undefined}
                onChange={(event) => set({ name: event.currentTarget.value })}
              />
              <Checkbox
                mb={6}
                size="xs"
                label="Strict"
                checked={format.strict}
                onChange={(event) => set({ strict: event.currentTarget.checked })}
              />
            </Group>
            <JsonInput
              size="xs"
              label="Schema (JSON schema)"
              autosize
              minRows={4}
              maxRows={16}
              value={format.schema}
              error={'problem' in schema ? schema.problem : undefined}
              onChange={(value) => set({ schema: value })}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            />
          </>
        ) : null}
        {notes.map((note) => (
          <Text key={note} size="xs" c={note.includes('refused') ? 'red' : 'dimmed'} data-testid="response-format-note">
            {note}
          </Text>
        ))}
      </Stack>
    </Paper>
  );
}

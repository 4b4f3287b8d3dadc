/**
 * The playground's function tools (docs/playground.md, "Tools"): name, description and a JSON
 * schema of the parameters each, and which tool the model must call (tool_choice).
 */
import { ActionIcon, Button, Group, JsonInput, Paper, Select, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { TOOL_NAME, newTool, toolParameters, type DraftTool, type PlaygroundDraft, type ToolChoice } from '../../lib/playground';

/** The Select's value of a tool choice: `auto`, `none`, `required` or `tool:<name>`. */
const choiceValue = (choice: ToolChoice) => (typeof choice === 'string' ? choice : `tool:${choice.name}`);

export function ToolsEditor({ draft, update }: { draft: PlaygroundDraft; update: (change: Partial<PlaygroundDraft>) => void }) {
  const setTool = (id: string, change: Partial<DraftTool>) =>
    update({ tools: draft.tools.map((tool) => (tool.id === id ? { ...tool, ...change } : tool)) });
  const named = draft.tools.map((tool) => tool.name.trim()).filter((name) => TOOL_NAME.test(name));
  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Text fw={600}>Tools</Text>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconPlus size={14} />}
            onClick={() => update({ tools: [...draft.tools, newTool()] })}
          >
            Add tool
          </Button>
        </Group>
        {draft.tools.length === 0 ? (
          <Text size="sm" c="dimmed">
            No tools. Add a function the model may call; its calls show in the answer, and you send back their results.
          </Text>
        ) : null}
        {draft.tools.map((tool, index) => {
          const parameters = toolParameters(tool);
          const nameProblem = tool.name.trim() && !TOOL_NAME.test(tool.name.trim()) ? '1 to 64 letters, digits, _ or -' : undefined;
          return (
            <Paper key={tool.id} withBorder p="sm" radius="sm" data-testid="playground-tool">
              <Stack gap={6}>
                <Group gap="xs" align="flex-start" wrap="nowrap">
                  <TextInput
                    style={{ flex: 1 }}
                    size="xs"
                    label="Function name"
                    aria-label={`Name of tool ${index + 1}`}
                    placeholder="get_weather"
                    value={tool.name}
                    error={nameProblem}
                    onChange={(event) => setTool(tool.id, { name: event.currentTarget.value })}
                  />
                  <Tooltip label="Remove this tool">
                    <ActionIcon
                      mt={22}
                      variant="subtle"
                      color="gray"
                      aria-label={`Remove tool ${index + 1}`}
                      onClick={() => update({ tools: draft.tools.filter((candidate) => candidate.id !== tool.id) })}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Group>
                <TextInput
                  size="xs"
                  label="Description"
                  aria-label={`Description of tool ${index + 1}`}
                  placeholder="What the function does, for the model"
                  value={tool.description}
                  onChange={(event) => setTool(tool.id, { description: event.currentTarget.value })}
                />
                <JsonInput
                  size="xs"
                  label="Parameters (JSON schema)"
                  aria-label={`Parameters of tool ${index + 1}`}
                  autosize
                  minRows={3}
                  maxRows={14}
                  value={tool.parameters}
                  error={'problem' in parameters ? parameters.problem : undefined}
                  onChange={(value) => setTool(tool.id, { parameters: value })}
                  styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                />
              </Stack>
            </Paper>
          );
        })}
        {draft.tools.length > 0 ? (
          <Select
            size="xs"
            label="Tool choice"
            data={[
              { value: 'auto', label: 'auto: the model decides' },
              { value: 'none', label: 'none: answer in text' },
              { value: 'required', label: 'required: call a tool' },
              ...named.map((name) => ({ value: `tool:${name}`, label: `call ${name}` })),
            ]}
            value={choiceValue(draft.toolChoice)}
            onChange={(value) => {
              if (!value) return;
              update({ toolChoice: value.startsWith('tool:') ? { name: value.slice(5) } : (value as 'auto' | 'none' | 'required') });
            }}
            allowDeselect={false}
          />
        ) : null}
      </Stack>
    </Paper>
  );
}

/**
 * One model column of the playground (docs/playground.md, "Side by side"): its provider, model
 * and parameters, and below them its own run of the shared messages, streaming.
 */
import { ActionIcon, Divider, Group, NumberInput, Paper, Select, SimpleGrid, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { PROVIDERS, type DraftToolCall, type ModelSettings, type Provider } from '../../lib/playground';
import { RunOutput, type RunState } from './RunOutput';

/** A number input's value as a number or null when blank. */
const numberOrNull = (value: number | string): number | null => (value === '' || value === null ? null : Number(value));

export function ModelColumn({
  index,
  settings,
  run,
  onChange,
  onRemove,
  onSendResults,
}: {
  /** 0 for the first column. */
  index: number;
  settings: ModelSettings;
  run: RunState;
  onChange: (change: Partial<ModelSettings>) => void;
  /** Absent for the first column, which stays. */
  onRemove?: (() => void) | undefined;
  onSendResults: (text: string, calls: DraftToolCall[], results: string[]) => void;
}) {
  const provider = PROVIDERS.find((candidate) => candidate.value === settings.provider) ?? PROVIDERS[0];
  return (
    <Paper withBorder p="md" radius="md" data-testid="playground-column" style={{ minWidth: 0 }}>
      <Stack gap="sm">
        {/* As tall as the remove button, so that every column's fields line up. */}
        <Group justify="space-between" wrap="nowrap" mih={28}>
          <Text fw={600} size="sm" truncate>
            Model {index + 1}
            <Text span c="dimmed" size="xs" ml={6}>
              {settings.provider}:{settings.model.trim() || '…'}
            </Text>
          </Text>
          {onRemove ? (
            <Tooltip label="Remove this model">
              <ActionIcon variant="subtle" color="gray" aria-label={`Remove model ${index + 1}`} onClick={onRemove}>
                <IconX size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
        <SimpleGrid cols={2} spacing="xs">
          <Select
            size="xs"
            label="Provider"
            data={PROVIDERS.map((candidate) => ({ value: candidate.value, label: candidate.label }))}
            value={settings.provider}
            onChange={(value) => value && onChange({ provider: value as Provider })}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
          />
          <TextInput
            size="xs"
            label="Model"
            placeholder={provider.example}
            value={settings.model}
            onChange={(event) => onChange({ model: event.currentTarget.value })}
          />
        </SimpleGrid>
        <SimpleGrid cols={3} spacing="xs">
          <NumberInput
            size="xs"
            label="Temperature"
            placeholder="default"
            min={0}
            max={2}
            step={0.1}
            decimalScale={2}
            value={settings.temperature ?? ''}
            onChange={(value) => onChange({ temperature: numberOrNull(value) })}
          />
          <NumberInput
            size="xs"
            label="Max tokens"
            placeholder={settings.provider === 'anthropic' ? '1024' : 'default'}
            min={1}
            allowDecimal={false}
            value={settings.maxTokens ?? ''}
            onChange={(value) => onChange({ maxTokens: numberOrNull(value) })}
          />
          <NumberInput
            size="xs"
            label="Top p"
            placeholder="default"
            min={0}
            max={1}
            step={0.05}
            decimalScale={2}
            value={settings.topP ?? ''}
            onChange={(value) => onChange({ topP: numberOrNull(value) })}
          />
        </SimpleGrid>
        <Divider />
        <RunOutput run={run} onSendResults={onSendResults} />
      </Stack>
    </Paper>
  );
}

/**
 * "Add example" on a dataset's examples page: the input, expected output and metadata typed as
 * JSON objects, checked in the browser (the JSON error under its field), then appended as one
 * new version (an append upload of one example, docs/datasets.md); the server's refusals show as
 * its sentence.
 */
import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { call, client } from '../../api/http';
import { parseObject, templateOf } from './exampleJson';

export interface ExampleTemplate {
  input: Record<string, unknown>;
  output: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

const FIELDS = [
  { key: 'input', label: 'Input', required: true, placeholder: '{"question": "What is the capital of France?"}' },
  { key: 'output', label: 'Output', required: false, placeholder: '{"answer": "Paris"} (optional)' },
  { key: 'metadata', label: 'Metadata', required: false, placeholder: '{"source": "written by hand"} (optional)' },
] as const;

type Key = (typeof FIELDS)[number]['key'];

function AddExampleForm({
  datasetName,
  template,
  onAdded,
  onClose,
}: {
  datasetName: string;
  template: ExampleTemplate | undefined;
  onAdded: () => void;
  onClose: () => void;
}) {
  const [texts, setTexts] = useState<Record<Key, string>>({
    input: templateOf(template?.input),
    output: templateOf(template?.output),
    metadata: '',
  });
  // Errors show once Add was pressed, then follow the typing.
  const [checked, setChecked] = useState(false);
  const parsed = {
    input: parseObject(texts.input, true),
    output: parseObject(texts.output, false),
    metadata: parseObject(texts.metadata, false),
  };
  const add = useMutation({
    mutationFn: async () => {
      if (!parsed.input.ok || !parsed.output.ok || !parsed.metadata.ok) throw new Error('Fix the fields marked in red first.');
      return call(
        client.POST('/v1/datasets/upload', {
          body: {
            action: 'append',
            name: datasetName,
            inputs: [parsed.input.value],
            outputs: [parsed.output.value],
            metadata: [parsed.metadata.value],
          },
        }),
      );
    },
    onSuccess: () => {
      onAdded();
      onClose();
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        setChecked(true);
        if (parsed.input.ok && parsed.output.ok && parsed.metadata.ok) add.mutate();
      }}
    >
      <Stack>
        <Text size="sm" c="dimmed">
          Each field is a JSON object. The example is added as a new version of the dataset; older versions stay as they were.
        </Text>
        {FIELDS.map((field, index) => {
          const result = parsed[field.key];
          return (
            <Textarea
              key={field.key}
              label={field.label}
              required={field.required}
              placeholder={field.placeholder}
              value={texts[field.key]}
              onChange={(event) => {
                const value = event.currentTarget.value;
                setTexts((current) => ({ ...current, [field.key]: value }));
              }}
              spellCheck={false}
              error={checked && !result.ok ? result.error : undefined}
              autosize
              minRows={3}
              maxRows={10}
              data-autofocus={index === 0 ? true : undefined}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
            />
          );
        })}
        {add.error ? (
          <Alert color="red" title="The example was not added" role="alert">
            {add.error.message}
          </Alert>
        ) : null}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={add.isPending}>
            Add example
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The button and its dialog; `onAdded` refreshes what shows the examples. */
export function AddExampleButton({
  datasetName,
  template,
  onAdded,
}: {
  datasetName: string | undefined;
  template: ExampleTemplate | undefined;
  onAdded: () => void;
}) {
  const [opened, setOpened] = useState(false);
  const narrow = useMediaQuery('(max-width: 36em)');
  return (
    <>
      <Button leftSection={<IconPlus size={16} />} onClick={() => setOpened(true)} disabled={datasetName === undefined}>
        Add example
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={<Text fw={600}>Add an example</Text>} size="lg" fullScreen={narrow}>
        {datasetName !== undefined ? (
          <AddExampleForm datasetName={datasetName} template={template} onAdded={onAdded} onClose={() => setOpened(false)} />
        ) : null}
      </Modal>
    </>
  );
}

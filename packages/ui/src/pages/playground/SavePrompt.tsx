/**
 * "Save as prompt": stores the playground's draft as a new version of a prompt (POST /v1/prompts
 * with Phoenix's `{prompt, version}` body, docs/prompts.md); a new name creates the prompt.
 */
import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, client } from '../../api/http';
import { promptsKey } from '../prompts/queries';
import { PROMPT_NAME, draftProblems, promptVersionBody, type PlaygroundDraft } from '../../lib/playground';

function SaveForm({ draft, onClose, onSaved }: { draft: PlaygroundDraft; onClose: () => void; onSaved: (name: string) => void }) {
  const [name, setName] = useState(draft.promptName ?? '');
  const [description, setDescription] = useState('');
  const queryClient = useQueryClient();
  const save = useMutation({
    mutationFn: () => call(client.POST('/v1/prompts', { body: promptVersionBody(draft, name.trim(), description) })),
    onSuccess: () => {
      const saved = name.trim();
      void queryClient.invalidateQueries({ queryKey: promptsKey });
      void queryClient.invalidateQueries({ queryKey: ['prompt-versions', saved] });
      notifications.show({
        color: 'teal',
        title: 'Prompt saved',
        // Notifications render outside the router, so the message holds no link (the header has Prompts).
        message: `A new version of ${saved} is stored.`,
      });
      onSaved(saved);
      onClose();
    },
  });
  const nameError =
    name.trim() && !PROMPT_NAME.test(name.trim())
      ? 'Lower-case letters, digits, - and _, starting and ending with a letter or digit'
      : null;
  const problems = draftProblems(draft);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <Stack>
        <TextInput
          label="Prompt name"
          description="An existing name gets a new version; a new one creates the prompt."
          placeholder="support-reply"
          required
          data-autofocus
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          error={nameError}
        />
        <Textarea
          label="Description"
          placeholder="What changed in this version"
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        {problems.length > 0 ? <Alert color="yellow">{problems.join(' ')}</Alert> : null}
        {save.isError ? (
          <Alert color="red" title="Could not save the prompt">
            {save.error.message}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending} disabled={!name.trim() || nameError !== null || problems.length > 0}>
            Save version
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The button and its dialog. */
export function SavePromptButton({ draft, onSaved }: { draft: PlaygroundDraft; onSaved: (name: string) => void }) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button variant="default" leftSection={<IconDeviceFloppy size={16} />} onClick={() => setOpened(true)}>
        Save as prompt
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Save as a prompt version">
        {opened ? <SaveForm draft={draft} onClose={() => setOpened(false)} onSaved={onSaved} /> : null}
      </Modal>
    </>
  );
}

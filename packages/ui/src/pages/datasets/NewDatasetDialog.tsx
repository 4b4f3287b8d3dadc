/**
 * "New dataset" on the datasets page: a name and a description make an empty dataset (a create
 * upload with no examples, docs/datasets.md "Empty datasets"), which then opens, ready for
 * Add example.
 */
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Alert, Button, Group, Modal, Stack, Text, TextInput, Textarea } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call, client } from '../../api/http';
import { datasetsKey } from './queries';
import { datasetPath } from './DatasetsPage';

function NewDatasetForm({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: async () =>
      (
        await call(
          client.POST('/v1/datasets/upload', {
            body: { action: 'create', name: name.trim(), description: description.trim() || null, inputs: [] },
          }),
        )
      ).data,
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: datasetsKey });
      onClose();
      navigate(datasetPath(data.dataset_id));
    },
  });
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (name.trim() !== '') create.mutate();
      }}
    >
      <Stack>
        <Text size="sm" c="dimmed">
          An empty dataset: add its examples one by one on its page, or from spans in the explorer.
        </Text>
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          maxLength={256}
          data-autofocus
        />
        <Textarea
          label="Description"
          autosize
          minRows={2}
          maxRows={5}
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        {create.error ? (
          <Alert color="red" title="The dataset was not created" role="alert">
            {create.error.message}
          </Alert>
        ) : null}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending} disabled={name.trim() === ''}>
            Create dataset
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function NewDatasetDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>New dataset</Text>}>
      <NewDatasetForm onClose={onClose} />
    </Modal>
  );
}

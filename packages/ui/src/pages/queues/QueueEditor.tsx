/**
 * Creating or changing an annotation queue: its name, instructions for reviewers, the annotation
 * configs they fill in (in order), and who reviews. Admins pick reviewers among every user; a member
 * can name themself (the users list is the admins'); with auth off anyone reviews, so there is no list.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Group, Modal, MultiSelect, Stack, Text, TextInput, Textarea } from '@mantine/core';
import type { AnnotationQueueDetail } from '@sightline/client/browser';
import { useCurrentViewer } from '../../components/AuthGate';
import { useAnnotationConfigs } from '../projects/annotationQueries';
import { useUsers } from '../settings/queries';
import { queueKey, queuesKey, saveQueue } from './queries';

export function QueueEditor({
  queue,
  onClose,
  onSaved,
}: {
  queue: AnnotationQueueDetail | null;
  onClose: () => void;
  onSaved?: (queue: AnnotationQueueDetail) => void;
}) {
  const viewer = useCurrentViewer();
  const isAdmin = viewer.kind === 'user' && viewer.role === 'admin';
  const configs = useAnnotationConfigs();
  const users = useUsers(isAdmin);
  const queryClient = useQueryClient();
  const [name, setName] = useState(queue?.name ?? '');
  const [description, setDescription] = useState(queue?.description ?? '');
  const [instructions, setInstructions] = useState(queue?.instructions ?? '');
  const [configIds, setConfigIds] = useState<string[]>(queue?.annotation_configs.map((config) => config.id) ?? []);
  const [reviewerIds, setReviewerIds] = useState<string[]>(queue?.reviewers.map((reviewer) => reviewer.id) ?? []);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Who can be picked: every user for an admin; for a member, themself and the reviewers already named.
  const reviewerChoices = new Map<string, string>();
  for (const reviewer of queue?.reviewers ?? []) reviewerChoices.set(reviewer.id, reviewer.username);
  if (viewer.kind === 'user') reviewerChoices.set(viewer.id, viewer.username);
  for (const user of users.data ?? []) reviewerChoices.set(user.id, `${user.username} (${user.email})`);

  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      const saved = await saveQueue(queue, {
        name: name.trim(),
        description: description.trim() || null,
        instructions: instructions.trim() || null,
        annotation_config_ids: configIds,
        ...(viewer.kind === 'user' ? { reviewer_ids: reviewerIds } : {}),
      });
      await queryClient.invalidateQueries({ queryKey: queuesKey });
      await queryClient.invalidateQueries({ queryKey: queueKey(saved.id) });
      onSaved?.(saved);
      onClose();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal
      opened
      onClose={onClose}
      title={<Text fw={600}>{queue ? `Edit ${queue.name}` : 'New annotation queue'}</Text>}
      size="lg"
      centered
    >
      <Stack>
        <TextInput label="Name" required value={name} onChange={(event) => setName(event.currentTarget.value)} data-autofocus />
        <TextInput label="Description" value={description} onChange={(event) => setDescription(event.currentTarget.value)} />
        <Textarea
          label="Instructions"
          description="Shown to reviewers above every item: what to look for, how to judge."
          autosize
          minRows={3}
          maxRows={10}
          value={instructions}
          onChange={(event) => setInstructions(event.currentTarget.value)}
        />
        <MultiSelect
          label="Annotation configs"
          description="What reviewers fill in, in this order (number keys choose the labels of the first categorical one)."
          placeholder={configs.data?.length === 0 ? 'No configs yet: create them on a project’s Annotation configs tab' : 'Pick configs'}
          data={(configs.data ?? []).map((config) => ({ value: config.id, label: `${config.name} (${config.type.toLowerCase()})` }))}
          value={configIds}
          onChange={setConfigIds}
          searchable
        />
        {viewer.kind === 'user' ? (
          <MultiSelect
            label="Reviewers"
            description={
              isAdmin
                ? 'Besides admins, who may review its items.'
                : 'Besides admins, who may review its items (an admin can add other users).'
            }
            placeholder="Pick reviewers"
            data={[...reviewerChoices].map(([value, label]) => ({ value, label }))}
            value={reviewerIds}
            onChange={setReviewerIds}
            searchable
          />
        ) : (
          <Text size="sm" c="dimmed">
            Authentication is off: everyone may review.
          </Text>
        )}
        {error ? (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void save()} loading={saving} disabled={name.trim() === ''}>
            {queue ? 'Save queue' : 'Create queue'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

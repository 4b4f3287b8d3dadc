import { Alert, Button, Group, Paper, Stack, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import type { ReactNode } from 'react';

/**
 * The frame of a "New …" form (alert rules, scheduled exports, online-evaluation rules): a
 * titled panel whose submit runs `onSubmit`, shows the server's sentence when it fails
 * ("Not created"), and offers Cancel beside the create button.
 */
export function CreateForm({
  title,
  submitLabel,
  canSubmit,
  onSubmit,
  onCancel,
  children,
}: {
  title: string;
  submitLabel: string;
  canSubmit: boolean;
  /** Creates the thing; a thrown error's message is shown and the form stays open. */
  onSubmit: () => Promise<void>;
  onCancel: () => void;
  children: ReactNode;
}) {
  const create = useMutation({ mutationFn: onSubmit });
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      component="form"
      aria-label={title}
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <Stack gap="sm">
        <Title order={4}>{title}</Title>
        {children}
        {create.error ? (
          <Alert color="red" role="alert" title="Not created">
            {create.error.message}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending} disabled={!canSubmit}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

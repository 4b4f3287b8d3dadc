import { Alert, Button, Group, Paper, Stack, Title } from '@mantine/core';
import { type ReactNode, useState } from 'react';

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
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const submit = async () => {
    setFailure(null);
    setSaving(true);
    try {
      await onSubmit();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setSaving(false);
    }
  };
  return (
    <Paper
      withBorder
      radius="md"
      p="md"
      component="form"
      aria-label={title}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Stack gap="sm">
        <Title order={4}>{title}</Title>
        {children}
        {failure ? (
          <Alert color="red" role="alert" title="Not created">
            {failure}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button type="submit" loading={saving} disabled={!canSubmit}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/**
 * Delete, with a confirmation naming what goes (and what goes with it). Deletes that only admins
 * may make (projects, traces, sessions: the permission table's data-admin rows) are not offered
 * to members; anything else the server refuses shows its sentence in the dialog.
 */
import { type ReactNode, useState } from 'react';
import { Button, type ButtonProps, Text } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useCurrentViewer } from './AuthGate';
import { ConfirmModal } from './ConfirmModal';

export interface DeleteButtonProps {
  /** What is deleted, as the dialog's title says it: `project "support-bot"`. */
  what: string;
  /** What else goes with it, one sentence. */
  consequence: ReactNode;
  onDelete: () => Promise<unknown>;
  /** After the delete: where to go, what to refresh. */
  onDeleted: () => void;
  /** Only admins (and sign-in off) may: hidden for members. */
  adminOnly?: boolean;
  size?: ButtonProps['size'];
}

export function DeleteButton({ what, consequence, onDelete, onDeleted, adminOnly = false, size = 'xs' }: DeleteButtonProps) {
  const viewer = useCurrentViewer();
  const [opened, setOpened] = useState(false);
  const remove = useMutation({
    mutationFn: onDelete,
    onSuccess: () => {
      setOpened(false);
      onDeleted();
    },
  });
  if (adminOnly && viewer.kind === 'user' && viewer.role !== 'admin') return null;
  return (
    <>
      <Button
        size={size}
        variant="subtle"
        color="red"
        leftSection={<IconTrash size={14} />}
        onClick={() => setOpened(true)}
        aria-label={`Delete ${what}`}
      >
        Delete
      </Button>
      <ConfirmModal
        opened={opened}
        title={`Delete ${what}?`}
        confirmLabel="Delete"
        onConfirm={() => remove.mutate()}
        onClose={() => setOpened(false)}
        loading={remove.isPending}
        error={remove.error?.message ?? null}
      >
        <Text size="sm">{consequence} This cannot be undone.</Text>
      </ConfirmModal>
    </>
  );
}

/**
 * "Upload dataset" on the datasets page (docs/ui.md, "Datasets"): a CSV or JSONL file, picked or
 * dropped, with a name and a description; its columns and first rows read in the browser from
 * the head of the file (filePreview.ts), each column assigned to the input, the output, the
 * metadata or nothing; then the file itself is sent to the server's form upload
 * (docs/datasets.md, "Files"), with its progress, and the new dataset opens. The server's
 * refusals (a taken name, a malformed row) show as its sentence.
 */
import { type DragEvent, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import {
  Alert,
  Badge,
  Button,
  FileButton,
  Group,
  Modal,
  NativeSelect,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconFileUpload, IconUpload } from '@tabler/icons-react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormProgress, sendForm } from '../../api/http';
import { formatBytes, formatCount } from '../../lib/format';
import { COLUMN_ROLES, type ColumnRole, defaultRoles, roleKeys, unusableColumn } from './columnRoles';
import { type FilePreview, formatOf, previewFile } from './filePreview';
import { datasetsKey } from './queries';
import { datasetPath } from './DatasetsPage';

const ROLE_LABELS: Record<ColumnRole, string> = { input: 'Input', output: 'Output', metadata: 'Metadata', ignore: 'Ignore' };
const ROLE_COLORS: Record<ColumnRole, string> = { input: 'indigo', output: 'teal', metadata: 'gray', ignore: 'gray' };
/** Longest text of a preview cell. */
const CELL_CHARS = 120;

const clip = (text: string) => (text.length > CELL_CHARS ? `${text.slice(0, CELL_CHARS)}…` : text);
const stem = (fileName: string) => fileName.replace(/\.(csv|jsonl|ndjson)$/i, '');

/** The file picker: a button, or a file dropped anywhere on the zone. */
function FileZone({ file, onFile }: { file: File | null; onFile: (file: File) => void }) {
  const [over, setOver] = useState(false);
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setOver(false);
    const dropped = event.dataTransfer.files[0];
    if (dropped) onFile(dropped);
  };
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      data-testid="file-drop-zone"
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      style={{
        borderStyle: 'dashed',
        borderWidth: 2,
        borderColor: over ? 'var(--mantine-color-indigo-5)' : undefined,
        background: over ? 'var(--sl-row-active)' : 'var(--sl-muted-bg)',
      }}
    >
      <Group gap="sm" wrap="nowrap" align="center">
        <IconFileUpload size={32} stroke={1.5} style={{ flex: 'none', color: 'var(--mantine-color-dimmed)' }} />
        <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
          {file ? (
            <>
              <Text size="sm" fw={500} style={{ wordBreak: 'break-all' }}>
                {file.name}
              </Text>
              <Text size="xs" c="dimmed">
                {formatBytes(file.size)}
              </Text>
            </>
          ) : (
            <>
              <Text size="sm" fw={500}>
                Drop a CSV or JSONL file here
              </Text>
              <Text size="xs" c="dimmed">
                CSV with a header row, or JSONL with one JSON object per line; up to 256 MiB
              </Text>
            </>
          )}
        </Stack>
        <FileButton onChange={(picked) => picked && onFile(picked)} accept=".csv,.jsonl,.ndjson,text/csv,application/jsonl">
          {(props) => (
            <Button {...props} variant="default" size="xs" data-autofocus style={{ flex: 'none' }}>
              {file ? 'Choose another' : 'Choose file'}
            </Button>
          )}
        </FileButton>
      </Group>
    </Paper>
  );
}

/** A role for each column, and the first rows with each column's role above it. */
function ColumnsAndRows({
  preview,
  roles,
  onRole,
}: {
  preview: FilePreview;
  roles: ColumnRole[];
  onRole: (index: number, role: ColumnRole) => void;
}) {
  return (
    <>
      <Stack gap={6}>
        <Title order={5}>Columns</Title>
        <Text size="xs" c="dimmed">
          What each column becomes in the examples: a key of the input, the expected output, or the metadata. At least one column must be an
          input.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" verticalSpacing={6}>
          {preview.columns.map((column, index) => {
            const unusable = unusableColumn(column);
            return (
              <Group key={preview.columnIds[index]} gap="xs" wrap="nowrap" justify="space-between" data-testid="column-role">
                <Text size="sm" ff="monospace" truncate="end" title={unusable ?? column} c={unusable ? 'dimmed' : undefined}>
                  {column || '(no name)'}
                </Text>
                <NativeSelect
                  size="xs"
                  w={120}
                  style={{ flex: 'none' }}
                  aria-label={`Role of column ${column}`}
                  disabled={unusable !== null}
                  value={roles[index]}
                  onChange={(event) => onRole(index, event.currentTarget.value as ColumnRole)}
                  data={COLUMN_ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }))}
                />
              </Group>
            );
          })}
        </SimpleGrid>
      </Stack>
      <Stack gap={6}>
        <Title order={5}>First rows</Title>
        {preview.rows.length === 0 ? (
          <Text size="sm" c="dimmed">
            The file has no rows after its {preview.format === 'csv' ? 'header' : 'first line'}.
          </Text>
        ) : (
          <Paper withBorder radius="md" style={{ overflow: 'auto' }}>
            <Table aria-label="First rows of the file" fz="xs" verticalSpacing={4} horizontalSpacing="xs" withColumnBorders>
              <Table.Thead>
                <Table.Tr>
                  {preview.columns.map((column, index) => (
                    <Table.Th key={preview.columnIds[index]} style={{ minWidth: 140, verticalAlign: 'top' }}>
                      <Text size="xs" ff="monospace" fw={600} c={roles[index] === 'ignore' ? 'dimmed' : undefined}>
                        {column}
                      </Text>
                      <Badge size="xs" variant="light" color={ROLE_COLORS[roles[index] ?? 'ignore']}>
                        {ROLE_LABELS[roles[index] ?? 'ignore']}
                      </Badge>
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {preview.rows.map(({ row, cells }) => (
                  <Table.Tr key={row}>
                    {preview.columnIds.map((columnId, index) => (
                      <Table.Td
                        key={columnId}
                        style={{ maxWidth: 260, wordBreak: 'break-word', opacity: roles[index] === 'ignore' ? 0.5 : 1 }}
                      >
                        {clip(cells[index] ?? '')}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
        )}
      </Stack>
    </>
  );
}

/** The upload's progress: bytes sent, then the server storing what it parsed. */
function UploadProgress({ progress }: { progress: FormProgress }) {
  const done = progress.total > 0 && progress.sent >= progress.total;
  const percent = progress.total > 0 ? Math.round((progress.sent / progress.total) * 100) : 0;
  const label = done
    ? 'Sent; the server is storing the last examples…'
    : `Uploading ${percent}% (${formatBytes(progress.sent)} of ${formatBytes(progress.total)})`;
  return (
    <Stack gap={4}>
      <Progress value={done ? 100 : percent} animated={done} aria-label="Upload progress" />
      <Text size="xs" c="dimmed" aria-live="polite" data-testid="upload-progress">
        {label}
      </Text>
    </Stack>
  );
}

function UploadForm({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<FilePreview | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [roles, setRoles] = useState<ColumnRole[]>([]);
  const [name, setName] = useState('');
  const [nameTouched, setNameTouched] = useState(false);
  const [description, setDescription] = useState('');
  const [progress, setProgress] = useState<FormProgress | null>(null);
  const abort = useRef<AbortController | null>(null);
  // Closing the dialog (Cancel, Escape) stops an upload under way: the server then stores nothing.
  useEffect(() => () => abort.current?.abort(), []);

  const upload = useMutation({
    mutationFn: async () => {
      if (!file || !preview) throw new Error('Choose a file first.');
      const keys = roleKeys(preview.columns, roles);
      // The fields come before the file: the server reads the form in order (docs/datasets.md, "Files").
      const form = new FormData();
      form.append('action', 'create');
      form.append('name', name.trim());
      if (description.trim() !== '') form.append('description', description.trim());
      for (const key of keys.input) form.append('input_keys[]', key);
      for (const key of keys.output) form.append('output_keys[]', key);
      for (const key of keys.metadata) form.append('metadata_keys[]', key);
      form.append('file', file, file.name);
      abort.current = new AbortController();
      setProgress({ sent: 0, total: file.size });
      try {
        return (await sendForm('/v1/datasets/upload', form, { onProgress: setProgress, signal: abort.current.signal })).data;
      } finally {
        setProgress(null);
      }
    },
    onSuccess: (data) => {
      void queryClient.invalidateQueries({ queryKey: datasetsKey });
      onClose();
      navigate(datasetPath(data.dataset_id));
    },
  });

  const pick = (picked: File) => {
    setFile(picked);
    setPreview(null);
    setPreviewError(null);
    upload.reset();
    if (!nameTouched) setName(stem(picked.name));
    previewFile(picked).then(
      (read) => {
        setPreview(read);
        setRoles(defaultRoles(read.columns));
      },
      (error: unknown) => setPreviewError(error instanceof Error ? error.message : String(error)),
    );
  };

  const inputs = preview ? roleKeys(preview.columns, roles).input.length : 0;
  const problem =
    file === null
      ? 'Choose a file.'
      : previewError !== null || preview === null
        ? null
        : name.trim() === ''
          ? 'Give the dataset a name.'
          : inputs === 0
            ? 'Make at least one column an input.'
            : null;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (problem === null && preview) upload.mutate();
      }}
    >
      <Stack gap="md">
        <FileZone file={file} onFile={pick} />
        {previewError ? (
          <Alert color="red" title="This file cannot be read" role="alert">
            {previewError}
          </Alert>
        ) : null}
        {file && formatOf(file.name) && !preview && !previewError ? (
          <Text size="sm" c="dimmed">
            Reading the first rows…
          </Text>
        ) : null}
        <TextInput
          label="Name"
          required
          value={name}
          onChange={(event) => {
            setName(event.currentTarget.value);
            setNameTouched(true);
          }}
          maxLength={256}
        />
        <Textarea
          label="Description"
          autosize
          minRows={2}
          maxRows={5}
          value={description}
          onChange={(event) => setDescription(event.currentTarget.value)}
        />
        {preview ? (
          <ColumnsAndRows
            preview={preview}
            roles={roles}
            onRole={(index, role) => setRoles((current) => current.map((old, at) => (at === index ? role : old)))}
          />
        ) : null}
        {upload.error ? (
          <Alert color="red" title="The dataset was not created" role="alert">
            {upload.error.message}
          </Alert>
        ) : null}
        {progress ? <UploadProgress progress={progress} /> : null}
        <Group justify="space-between" gap="xs">
          <Text size="xs" c="dimmed">
            {problem ?? (preview ? `${formatCount(preview.columns.length, 'column')}, ${formatCount(inputs, 'input column')}` : '')}
          </Text>
          <Group gap="xs" ml="auto">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" leftSection={<IconUpload size={16} />} loading={upload.isPending} disabled={problem !== null || !preview}>
              Upload dataset
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

export function UploadDatasetDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const narrow = useMediaQuery('(max-width: 36em)');
  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>Upload a dataset</Text>} size="xl" fullScreen={narrow}>
      <UploadForm onClose={onClose} />
    </Modal>
  );
}

/**
 * The filter editor: one line of Phoenix's span condition syntax (docs/search.md), completed as
 * it is typed (span columns, the project's attribute keys, annotation names) and applied on
 * Enter. The server parses it; its 422 is shown under the line with a caret at the character
 * it names, so the mistake is pointed at rather than described.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Box, type BoxProps, Code, Combobox, Group, Text, TextInput, useCombobox } from '@mantine/core';
import { IconFilter } from '@tabler/icons-react';

const COLUMNS = ['span_kind', 'name', 'status_code', 'status_message', 'latency_ms', 'parent_id', 'span_id', 'trace_id'];
const KEYWORDS = ['and', 'or', 'not', 'in', 'is None', 'is not None'];

/** The word being typed before the caret: a name, a dotted path or an `attributes['…` or `annotations['…` prefix. */
const CURRENT = /(?:attributes\[['"][^'"]*|annotations\[['"][^'"]*|[A-Za-z_][\w.]*)$/;

export interface ConditionInputProps {
  value: string;
  onApply: (value: string) => void;
  attributeKeys: string[];
  annotationNames: string[];
  /** The server's answer to the last condition applied, when it refused it. */
  error?: string | null | undefined;
  w?: BoxProps['w'];
}

/** Where the server's message says the mistake is (jsep's "at character N"), if it says. */
export function errorPosition(message: string): number | null {
  const match = /at character (\d+)/.exec(message);
  return match ? Number(match[1]) : null;
}

export function ConditionInput({ value, onApply, attributeKeys, annotationNames, error, w }: ConditionInputProps) {
  const [text, setText] = useState(value);
  const [caret, setCaret] = useState(value.length);
  const input = useRef<HTMLInputElement>(null);
  const combobox = useCombobox({ onDropdownClose: () => combobox.resetSelectedOption() });
  useEffect(() => setText(value), [value]);

  const current = CURRENT.exec(text.slice(0, caret))?.[0] ?? '';
  const candidates = useMemo(() => {
    const all = [
      ...COLUMNS,
      ...attributeKeys.map((key) => `attributes['${key}']`),
      ...annotationNames.flatMap((name) => [`annotations['${name}'].score`, `annotations['${name}'].label`]),
      ...KEYWORDS,
    ];
    if (current === '') return [];
    const lower = current.toLowerCase();
    return all.filter((candidate) => candidate.toLowerCase().startsWith(lower) && candidate !== current).slice(0, 12);
  }, [current, attributeKeys, annotationNames]);

  const complete = (candidate: string) => {
    const start = caret - current.length;
    const next = `${text.slice(0, start)}${candidate} ${text.slice(caret)}`;
    setText(next);
    const position = start + candidate.length + 1;
    setCaret(position);
    combobox.closeDropdown();
    requestAnimationFrame(() => input.current?.setSelectionRange(position, position));
  };

  const position = error ? errorPosition(error) : null;
  return (
    <Box w={w}>
      <Combobox store={combobox} onOptionSubmit={complete}>
        <Combobox.Target>
          <TextInput
            ref={input}
            label="Filter"
            aria-label="Filter condition"
            placeholder="span_kind == 'LLM' and latency_ms > 2000"
            leftSection={<IconFilter size={14} />}
            value={text}
            spellCheck={false}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
            error={error ? ' ' : undefined}
            onChange={(event) => {
              setText(event.currentTarget.value);
              setCaret(event.currentTarget.selectionStart ?? event.currentTarget.value.length);
              combobox.openDropdown();
              combobox.updateSelectedOptionIndex();
            }}
            onClick={(event) => setCaret(event.currentTarget.selectionStart ?? text.length)}
            onBlur={() => combobox.closeDropdown()}
            onKeyDown={(event) => {
              // Enter applies the condition unless an option of the open list is chosen.
              if (event.key === 'Enter' && (!combobox.dropdownOpened || combobox.getSelectedOptionIndex() < 0)) {
                event.preventDefault();
                combobox.closeDropdown();
                onApply(text.trim());
              }
              if (event.key === 'Escape') combobox.closeDropdown();
            }}
            onKeyUp={(event) => setCaret(event.currentTarget.selectionStart ?? text.length)}
          />
        </Combobox.Target>
        <Combobox.Dropdown hidden={candidates.length === 0}>
          <Combobox.Options>
            {candidates.map((candidate) => (
              <Combobox.Option value={candidate} key={candidate}>
                <Text size="sm" ff="monospace">
                  {candidate}
                </Text>
              </Combobox.Option>
            ))}
          </Combobox.Options>
        </Combobox.Dropdown>
      </Combobox>
      {error ? (
        <Box mt={4} role="alert" aria-label="Filter error">
          {position !== null && position <= value.length ? (
            <Code block fz={12} style={{ whiteSpace: 'pre', overflowX: 'auto' }}>
              {`${value}\n${' '.repeat(position)}^`}
            </Code>
          ) : null}
          <Group gap={4}>
            <Text size="xs" c="red">
              {error}
            </Text>
          </Group>
        </Box>
      ) : null}
    </Box>
  );
}

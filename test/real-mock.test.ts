// The mock model server used by `npm run real:record` / `real:check` (test/real/mock-server.mjs):
// each protocol's request gets a well-formed answer (SSE or JSON), scripted by the prompt, and the
// server stops itself after its request bound and its time bound.
import { afterEach, describe, expect, it } from 'vitest';
import { must } from './helpers.js';
// @ts-expect-error plain ESM module without types
import { fromSchema, plan, SCRIPTS, startMock, TITLE } from './real/mock-server.mjs';

type Mock = { url: string; port: number; requests: number; close(): Promise<void>; closed: Promise<void> };
let mock: Mock | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function post(path: string, body: unknown) {
  const res = await fetch(`${must(mock).url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** Parse an SSE body into [{event, data}] (data JSON-decoded unless it is [DONE]). */
function sse(text: string) {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .trim()
    .split('\n\n')
    .map((block) => {
      const ev = /^event: (.*)$/m.exec(block)?.[1];
      const raw = must(/^data: (.*)$/m.exec(block))[1];
      return { event: ev, data: raw === '[DONE]' ? raw : JSON.parse(raw) };
    });
}

const bash = {
  name: 'Bash',
  description: 'run',
  input_schema: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command'] },
};

describe('mock model server', () => {
  it('listens on loopback at an OS-picked port', async () => {
    mock = await startMock({ maxMs: 60000 });
    expect(must(mock).url).toBe(`http://127.0.0.1:${must(mock).port}`);
    expect(must(mock).port).toBeGreaterThan(0);
  });

  it('Anthropic Messages: a streamed plain answer has the full event sequence', async () => {
    mock = await startMock({ maxMs: 60000 });
    const r = await post('/v1/messages?beta=true', {
      model: 'm',
      stream: true,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>x</system-reminder>' },
            { type: 'text', text: 'hello there' },
          ],
        },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.type).toContain('text/event-stream');
    const events = sse(r.text);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    expect(events[2].data.delta).toEqual({ type: 'text_delta', text: 'Mock answer to: hello there' });
    expect(events[4].data.delta.stop_reason).toBe('end_turn');
  });

  it('Anthropic Messages: the shell script calls the Bash tool, then answers once the result is back', async () => {
    mock = await startMock({ maxMs: 60000 });
    const first = sse(
      (await post('/v1/messages', { stream: true, tools: [bash], messages: [{ role: 'user', content: SCRIPTS.shell }] })).text,
    );
    const start = must(first.find((e) => e.event === 'content_block_start' && e.data.content_block.type === 'tool_use'));
    expect(start.data.content_block.name).toBe('Bash');
    const json = must(first.find((e) => e.data.delta?.type === 'input_json_delta')).data.delta.partial_json;
    expect(JSON.parse(json)).toMatchObject({ command: 'echo hi' });
    expect(must(first.find((e) => e.event === 'message_delta')).data.delta.stop_reason).toBe('tool_use');
    const id = start.data.content_block.id;
    const second = await post('/v1/messages', {
      stream: false,
      tools: [bash],
      messages: [
        { role: 'user', content: SCRIPTS.shell },
        { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'echo hi' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'hi' }] },
      ],
    });
    expect(second.type).toContain('application/json');
    const msg = JSON.parse(second.text);
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    expect(msg.content[0].text).toMatch(/printed hi/);
  });

  it('OpenAI Responses: streamed events in order with sequence numbers, ending in response.completed', async () => {
    mock = await startMock({ maxMs: 60000 });
    const r = await post('/v1/responses', {
      model: 'm',
      stream: true,
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>x</environment_context>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'plain prompt' }] },
      ],
    });
    const events = sse(r.text);
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.data.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[4].data.delta).toBe('Mock answer to: plain prompt');
    expect(must(events.at(-1)).data.response.status).toBe('completed');
  });

  it('OpenAI Responses: a namespaced tool (Codex multi_agent_v1.spawn_agent) is called with its namespace', async () => {
    mock = await startMock({ maxMs: 60000 });
    const tools = [
      {
        type: 'namespace',
        name: 'multi_agent_v1',
        tools: [
          {
            type: 'function',
            name: 'spawn_agent',
            parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
          },
        ],
      },
    ];
    const events = sse(
      (
        await post('/v1/responses', {
          stream: true,
          tools,
          input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: SCRIPTS.subagent }] }],
        })
      ).text,
    );
    const done = must(events.find((e) => e.event === 'response.output_item.done')).data.item;
    expect(done).toMatchObject({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1' });
    expect(JSON.parse(done.arguments)).toEqual({ message: 'Reply with the word hi.' });
  });

  it('chat completions: streamed chunks, a tool call with finish_reason tool_calls, then [DONE]', async () => {
    mock = await startMock({ maxMs: 60000 });
    const tools = [
      {
        type: 'function',
        function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } },
      },
    ];
    const events = sse(
      (
        await post('/v1/chat/completions', {
          stream: true,
          tools,
          messages: [
            { role: 'system', content: 's' },
            { role: 'user', content: SCRIPTS.shell },
          ],
        })
      ).text,
    );
    expect(must(events.at(-1)).data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => e.data);
    for (const c of chunks) expect(c.object).toBe('chat.completion.chunk');
    const call = must(chunks.find((c) => c.choices[0]?.delta?.tool_calls)).choices[0].delta.tool_calls[0];
    expect(call.function.name).toBe('bash');
    expect(JSON.parse(call.function.arguments)).toEqual({ command: 'echo hi' });
    expect(must(chunks.find((c) => c.choices[0]?.finish_reason)).choices[0].finish_reason).toBe('tool_calls');
  });

  it('chat completions: a title request (no tools, a title-generator system prompt) gets the title', async () => {
    mock = await startMock({ maxMs: 60000 });
    const r = JSON.parse(
      (
        await post('/v1/chat/completions', {
          stream: false,
          messages: [
            { role: 'system', content: 'You are a title generator. Generate a brief title.' },
            { role: 'user', content: 'hello' },
          ],
        })
      ).text,
    );
    expect(r.choices[0].message.content).toBe(TITLE);
  });

  it('Gemini: streamGenerateContent (SSE), generateContent with a JSON schema, countTokens', async () => {
    mock = await startMock({ maxMs: 60000 });
    const stream = sse(
      (
        await post('/v1beta/models/gemini-x:streamGenerateContent?alt=sse', {
          contents: [
            { role: 'user', parts: [{ text: '<session_context>\nThis is the Gemini CLI.</session_context>' }, { text: 'hi gemini' }] },
          ],
        })
      ).text,
    );
    expect(stream).toHaveLength(1);
    expect(stream[0].data.candidates[0]).toMatchObject({
      content: { role: 'model', parts: [{ text: 'Mock answer to: hi gemini' }] },
      finishReason: 'STOP',
    });
    const schema = {
      type: 'OBJECT',
      properties: { next_speaker: { type: 'STRING', enum: ['user', 'model'] }, reasoning: { type: 'STRING' } },
      required: ['next_speaker', 'reasoning'],
    };
    const json = JSON.parse(
      (
        await post('/v1beta/models/gemini-x:generateContent', {
          contents: [{ role: 'user', parts: [{ text: 'who speaks next?' }] }],
          generationConfig: { responseMimeType: 'application/json', responseSchema: schema },
        })
      ).text,
    );
    expect(JSON.parse(json.candidates[0].content.parts[0].text)).toEqual({ next_speaker: 'user', reasoning: 'done' });
    expect(JSON.parse((await post('/v1beta/models/gemini-x:countTokens', { contents: [] })).text)).toEqual({ totalTokens: 10 });
  });

  it('answers unknown requests 404 and logs them', async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'real-mock-'));
    try {
      mock = await startMock({ maxMs: 60000, unknownLog: join(dir, 'unknown.jsonl') });
      const r = await post('/v1/nothing-here', { a: 1 });
      expect(r.status).toBe(404);
      const logged = readFileSync(join(dir, 'unknown.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(logged).toEqual([{ method: 'POST', url: '/v1/nothing-here', body: { a: 1 } }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad JSON is answered with an error, not a crash', async () => {
    mock = await startMock({ maxMs: 60000 });
    const res = await fetch(`${must(mock).url}/v1/messages`, { method: 'POST', body: '{not json' });
    expect(res.status).toBe(200); // an empty request still gets a (plain) answer
    expect(JSON.parse(await res.text()).type).toBe('message');
  });

  it('stops itself after maxRequests', async () => {
    mock = await startMock({ maxMs: 60000, maxRequests: 2 });
    await post('/v1/messages/count_tokens', {});
    await post('/v1/messages/count_tokens', {});
    await must(mock).closed;
    await expect(fetch(`${must(mock).url}/v1/models`)).rejects.toThrow();
  });

  it('stops itself after maxMs', async () => {
    mock = await startMock({ maxMs: 50 });
    await must(mock).closed;
    await expect(fetch(`${must(mock).url}/v1/models`)).rejects.toThrow();
  });
});

describe('mock scripting', () => {
  it('fromSchema fills required properties, honours enums, hints and nested objects', () => {
    const s = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'integer' },
        c: { enum: ['x', 'y'] },
        d: { type: 'object', properties: { e: { type: 'boolean' } }, required: ['e'] },
        opt: { type: 'string' },
      },
      required: ['a', 'b', 'c', 'd'],
    };
    expect(fromSchema(s, { a: 'hinted' })).toEqual({ a: 'hinted', b: 1, c: 'x', d: { e: true } });
  });

  it('Claude task list: loads the deferred tools through ToolSearch first, then creates and updates tasks', () => {
    const base = { prompt: SCRIPTS.tasks, system: '', context: 'deferred tools: TaskCreate TaskUpdate' };
    expect(plan({ ...base, tools: [{ name: 'ToolSearch' }], steps: 0, called: [] })).toEqual({
      tool: { name: 'ToolSearch', args: { query: 'select:TaskCreate,TaskUpdate' } },
    });
    const tools = [
      { name: 'ToolSearch' },
      { name: 'TaskCreate', schema: { type: 'object', properties: { subject: { type: 'string' } }, required: ['subject'] } },
      {
        name: 'TaskUpdate',
        schema: { type: 'object', properties: { taskId: { type: 'string' }, status: { type: 'string' } }, required: ['taskId'] },
      },
    ];
    expect(plan({ ...base, tools, steps: 1, called: ['ToolSearch'] }).tool).toEqual({
      name: 'TaskCreate',
      args: { subject: 'Write the plan' },
    });
    expect(plan({ ...base, tools, steps: 3, called: ['TaskCreate', 'TaskCreate', 'ToolSearch'] }).tool).toEqual({
      name: 'TaskUpdate',
      args: { taskId: '1', status: 'completed' },
    });
    expect(plan({ ...base, tools, steps: 4, called: ['TaskUpdate', 'TaskCreate', 'TaskCreate', 'ToolSearch'] })).toEqual({
      text: 'Created the task list.',
    });
  });

  it('without a matching tool the scripts answer in text', () => {
    expect(plan({ prompt: SCRIPTS.shell, tools: [], steps: 0 }).text).toMatch(/printed hi/);
    expect(plan({ prompt: SCRIPTS.subagent, tools: [], steps: 0 }).text).toMatch(/subagent/);
  });
});
